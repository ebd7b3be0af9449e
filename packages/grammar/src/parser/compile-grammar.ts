/**
 * Lowers a Grammar IR to plain BNF over lexeme terminals for the Earley parser: groups,
 * alternatives inside sequences and repetitions become fresh nonterminals. Symbols
 * `0 .. lexemeCount-1` are terminals (lexeme indices), the rest nonterminals.
 *
 * Permutation rules (see `PermutationDef`) are lowered lazily: one nonterminal per state
 * (members written, how many), whose rules are built the first time the parser predicts it
 * (`expand`). The tables only grow, so indices handed out stay valid.
 */
import { isNullable, nonEmpty } from '../ir/byte-regex.ts';
import { GrammarError, GrammarLimitError } from '../grammar-error.ts';
import { MAX_PERMUTATION_MEMBERS, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { LexerDfa } from '../lexer/lexer-dfa.ts';
import { withGreedyEnds } from './greedy-ends.ts';
import { DEFAULT_LIMITS, type GrammarLimits } from '../limits.ts';

/** A grammar ready for matching: BNF tables plus the lexer. */
export interface CompiledGrammar {
  readonly ir: GrammarIR;
  readonly limits: GrammarLimits;
  readonly lexer: LexerDfa;
  readonly terminalCount: number;
  /** Names of nonterminals (fresh ones are named after their parent rule). */
  readonly nonterminalNames: readonly string[];
  /** Per rule: left-hand side symbol and first index into the dotted-rule tables. */
  readonly ruleLhs: readonly number[];
  readonly ruleDot: readonly number[];
  /** Per dotted rule (rule + position): the symbol after the dot, or -1 when complete. */
  readonly dotNext: readonly number[];
  readonly dotRule: readonly number[];
  /**
   * Per nonterminal (index symbol - terminalCount): its rules, and whether it derives ε.
   * `null` for a permutation state not expanded yet (call `expand`).
   */
  readonly rulesOf: readonly (readonly number[] | null)[];
  readonly nullable: readonly number[];
  /** The augmented start rule `S' ::= start`. */
  readonly startRule: number;
  readonly ignore: readonly number[];
  /**
   * Greedy terminals that could swallow what the grammar expects after them: the grammar was
   * rewritten so that they end only where they can (`greedy-ends.ts`). Empty when it was not.
   */
  readonly swallowing: readonly string[];
  /** Builds the rules of a lazily lowered nonterminal (its symbol); returns them. */
  expand(symbol: number): readonly number[];
  /** Symbols of the nonterminals expanded so far, in order (hosts mirroring the tables sync from it). */
  readonly expanded: readonly number[];
}

// A permutation rule lowered to symbols, with its states' nonterminals.
interface Permutation {
  readonly name: string;
  readonly members: readonly number[];
  readonly requiredMask: bigint;
  /** Per member with dependencies: the members it requires, as a mask. */
  readonly dependencies: ReadonlyMap<number, bigint>;
  /** Sets of members that may not all be written, as masks. */
  readonly exclusive: readonly bigint[];
  readonly other: number;
  readonly min: number;
  readonly max: number;
  readonly separator: readonly number[];
  readonly close: readonly number[];
  /** Count of members written is tracked up to this (at least 1: a separator comes first). */
  readonly cap: number;
  /** Members that can be written at all (their grammar is productive), as a mask. */
  usable: bigint;
  readonly states: Map<string, number>;
}

const popCount = (x: bigint): number => {
  let n = 0;
  for (let v = x; v !== 0n; v &= v - 1n) n++;
  return n;
};
const bit = (i: number): bigint => 1n << BigInt(i);

type RepeatExpr = Extract<Expr, { kind: 'repeat' }>;

// A repetition of a star is that star: (X*){m,n} is X*, and (X+){m,n} is X{m,} (n >= 1).
// Lowered as written, every split of a text among the copies is a parse, and Earley keeps
// them all: `(([^x]*){0,99}){0,99}` grew its sets with every byte.
function collapsedRepeat(e: RepeatExpr): RepeatExpr {
  const item = e.item.kind === 'repeat' ? collapsedRepeat(e.item) : e.item;
  if (e.max >= 1 && item.kind === 'repeat' && item.max === Infinity && (item.min === 0 || item.min === 1)) {
    return { kind: 'repeat', item: item.item, min: item.min === 0 ? 0 : e.min, max: Infinity, ...(e.span !== undefined && { span: e.span }) };
  }
  return item === e.item ? e : { ...e, item };
}

/** Compiles a Grammar IR (throws `GrammarError` / `GrammarLimitError`). */
export function compileGrammar(ir: GrammarIR, limits: Partial<GrammarLimits> = {}): CompiledGrammar {
  const allLimits = { ...DEFAULT_LIMITS, ...limits };
  let terminalCount = ir.lexemes.length;
  let names: string[] = [];
  const ntIndex = new Map<string, number>();
  let rules: { lhs: number; rhs: number[] }[] = [];
  let symbolCount = 0;
  const count = (n: number): void => {
    symbolCount += n;
    if (symbolCount > allLimits.maxGrammarSymbols) {
      throw new GrammarLimitError(
        'maxGrammarSymbols',
        allLimits.maxGrammarSymbols,
        `the grammar has more than ${allLimits.maxGrammarSymbols} symbols after expanding repetitions (maxGrammarSymbols)`,
      );
    }
  };
  const nonterminal = (name: string): number => {
    names.push(name);
    return terminalCount + names.length - 1;
  };
  const addRule = (lhs: number, rhs: number[]): void => {
    count(rhs.length + 1);
    rules.push({ lhs, rhs });
  };

  for (const name of ir.rules.keys()) ntIndex.set(name, nonterminal(name));
  for (const name of ir.permutations?.keys() ?? []) {
    if (ntIndex.has(name)) throw new GrammarError('duplicate_rule', `rule ${name} is defined twice`);
    ntIndex.set(name, nonterminal(name));
  }
  // Lexemes never match the empty string: one that could becomes optional in the grammar.
  let lexemes = ir.lexemes.map((l) => (isNullable(l.regex) ? { ...l, regex: nonEmpty(l.regex) } : l));
  const optionalLexeme = new Map<number, number>();
  const lexemeSymbol = (index: number): number => {
    if (!isNullable(ir.lexemes[index]!.regex)) return index;
    let nt = optionalLexeme.get(index);
    if (nt === undefined) {
      nt = nonterminal(`${ir.lexemes[index]!.name}?`);
      addRule(nt, []);
      addRule(nt, [index]);
      optionalLexeme.set(index, nt);
    }
    return nt;
  };
  if (!ntIndex.has(ir.start)) throw new GrammarError('no_start_rule', `the start rule ${ir.start} is not defined`);

  // Converts an expression to a single symbol, creating a fresh nonterminal when needed. An
  // expression object met again (front-ends share one, as JSON Schema does an array's item
  // grammar) reuses its nonterminal: nested sharing would otherwise double at every level.
  const lowered = new Map<Expr, number>();
  const symbolOf = (e: Expr, owner: string): number => {
    switch (e.kind) {
      case 'lexeme':
        return lexemeSymbol(e.index);
      case 'ref': {
        const nt = ntIndex.get(e.name);
        if (nt === undefined) throw new GrammarError('unknown_rule', `unknown rule ${e.name}`, e.span);
        return nt;
      }
      default: {
        let nt = lowered.get(e);
        if (nt === undefined) {
          nt = nonterminal(`${owner}~${names.length}`);
          lowered.set(e, nt);
          lowerBody(nt, e, owner);
        }
        return nt;
      }
    }
  };
  const sequence = (e: Expr, owner: string): number[] => (e.kind === 'seq' ? e.items.map((item) => symbolOf(item, owner)) : [symbolOf(e, owner)]);
  const lowerBody = (lhs: number, e: Expr, owner: string): void => {
    if (e.kind === 'alt') {
      for (const item of e.items) addRule(lhs, sequence(item, owner));
    } else if (e.kind === 'repeat') {
      lowerRepeat(lhs, e, owner);
    } else {
      addRule(lhs, sequence(e, owner));
    }
  };
  const lowerRepeat = (lhs: number, written: RepeatExpr, owner: string): void => {
    if (written.min < 0 || written.max < written.min)
      throw new GrammarError('invalid_range', `invalid repetition {${written.min},${written.max}}`, written.span);
    const e = collapsedRepeat(written);
    const item = symbolOf(e.item, owner);
    count(e.min + (e.max === Infinity ? 2 : e.max - e.min));
    const prefix = Array<number>(e.min).fill(item);
    if (e.max === Infinity) {
      // star ::= ε | star item  (left recursion is cheap for Earley)
      const star = nonterminal(`${owner}~${names.length}*`);
      addRule(star, []);
      addRule(star, [star, item]);
      addRule(lhs, [...prefix, star]);
      return;
    }
    // Optional tail, nested: opt_k ::= ε | item opt_{k-1}
    let tail = -1;
    for (let k = 0; k < e.max - e.min; k++) {
      const opt = nonterminal(`${owner}~${names.length}?`);
      addRule(opt, []);
      addRule(opt, tail < 0 ? [item] : [item, tail]);
      tail = opt;
    }
    addRule(lhs, tail < 0 ? prefix : [...prefix, tail]);
  };

  for (const [name, body] of ir.rules) lowerBody(ntIndex.get(name)!, body, name);
  const permutations = new Map<number, Permutation>(); // by root nonterminal
  for (const [name, def] of ir.permutations ?? []) {
    if (def.members.length > MAX_PERMUTATION_MEMBERS)
      throw new GrammarError('unsupported', `permutation ${name} has more than ${MAX_PERMUTATION_MEMBERS} members`);
    if (((def.dependencies?.size ?? 0) > 0 || (def.exclusive?.length ?? 0) > 0) && (def.min !== 0 || def.max !== Infinity))
      throw new GrammarError('unsupported', `permutation ${name} has dependencies or exclusive sets and a member count bound`);
    const root = ntIndex.get(name)!;
    const cap = def.max === Infinity ? Math.max(def.min, 1) : def.max + 1;
    permutations.set(root, {
      name,
      members: def.members.map((m) => symbolOf(m, name)),
      requiredMask: def.required.reduce((mask, i) => mask | bit(i), 0n),
      dependencies: new Map([...(def.dependencies ?? [])].map(([i, needs]) => [i, needs.reduce((mask, j) => mask | bit(j), 0n)])),
      exclusive: (def.exclusive ?? []).map((set) => set.reduce((mask, j) => mask | bit(j), 0n)),
      other: def.other === null ? -1 : symbolOf(def.other, name),
      min: def.min,
      max: def.max,
      separator: sequence(def.separator, name),
      close: sequence(def.close, name),
      cap,
      usable: 0n,
      states: new Map([['0,0', root]]),
    });
  }
  let start = nonterminal(`${ir.start}'`);
  addRule(start, [ntIndex.get(ir.start)!]);
  // Greedy terminals that could swallow what the grammar expects after them get variants
  // that end only where they can (`greedy-ends.ts`).
  let swallowing: readonly string[] = [];
  let derivedText = true;
  const split = withGreedyEnds({ lexemes, names, rules, start }, ir, allLimits);
  if (split !== null) {
    ({ lexemes, names, rules, start, swallowing, derivedText } = split);
    terminalCount = lexemes.length;
  }

  // Keep only productive rules (every symbol derives some string): then every prefix the
  // parser accepts can still be completed. A lexeme that matches nothing is unproductive.
  const lexer = new LexerDfa(
    lexemes,
    [...ir.ignore].sort((a, b) => a - b),
    allLimits,
  );
  const productive = new Uint8Array(terminalCount + names.length);
  lexemes.forEach((_, i) => (productive[i] = lexer.matchesNothing(i) ? 0 : 1));
  const allProductive = (symbols: readonly number[]): boolean => symbols.every((sym) => productive[sym]);
  // Whether a permutation state can still be completed: enough usable members remain for
  // the required ones and the minimum, within the maximum.
  const completable = (p: Permutation, mask: bigint, written: number): boolean => {
    // The members that must still come: the required ones and, transitively, what the
    // written and coming ones depend on.
    let must = p.requiredMask | mask;
    for (let grown = true; grown;) {
      grown = false;
      for (const [i, needs] of p.dependencies) {
        if ((must & bit(i)) !== 0n && (needs & ~must) !== 0n) {
          must |= needs;
          grown = true;
        }
      }
    }
    // With dependencies or exclusive sets there are no count bounds: the least completion is
    // `must`, so it decides.
    if (p.exclusive.some((set) => (set & ~must) === 0n)) return false;
    must &= ~mask;
    if ((must & ~p.usable) !== 0n) return false;
    const missing = popCount(must);
    const available = p.other >= 0 && productive[p.other] ? Infinity : popCount(p.usable & ~mask);
    const needed = Math.max(missing, p.min - written, 0);
    return (
      needed <= available &&
      written + needed <= p.max &&
      (written + needed === 0 || allProductive(p.close)) &&
      (needed + Math.min(written, 1) <= 1 || allProductive(p.separator))
    );
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const r of rules) {
      if (!productive[r.lhs] && allProductive(r.rhs)) {
        productive[r.lhs] = 1;
        changed = true;
      }
    }
    for (const [root, p] of permutations) {
      p.usable = p.members.reduce((mask, m, i) => (productive[m] ? mask | bit(i) : mask), 0n);
      if (!productive[root] && completable(p, 0n, 0)) {
        productive[root] = 1;
        changed = true;
      }
    }
  }
  if (!productive[start] && !ir.allowEmpty) {
    const greedy =
      swallowing.length === 0 || !derivedText ? '' : ` (greedy lexing never ends ${swallowing.join(', ')} before some of what the grammar expects after it)`;
    throw new GrammarError('empty_language', `the grammar matches nothing: rule ${ir.start} can never be completed${greedy}`, ir.ruleSpans?.get(ir.start));
  }
  // The augmented start rule stays even when empty: then nothing is ever allowed.
  for (let i = rules.length - 1; i >= 0; i--) if (rules[i]!.lhs !== start && !allProductive(rules[i]!.rhs)) rules.splice(i, 1);
  const startRule = rules.findIndex((r) => r.lhs === start);

  // Tables, growable (plain arrays) for lazily expanded nonterminals.
  const rulesOf: (number[] | null)[] = Array.from({ length: names.length }, () => []);
  const ruleLhs: number[] = [];
  const ruleDot: number[] = [];
  const dotNext: number[] = [];
  const dotRule: number[] = [];
  const table = (lhs: number, rhs: readonly number[]): void => {
    const i = ruleLhs.length;
    ruleLhs.push(lhs);
    ruleDot.push(dotNext.length);
    for (const s of rhs) {
      dotNext.push(s);
      dotRule.push(i);
    }
    dotNext.push(-1);
    dotRule.push(i);
    rulesOf[lhs - terminalCount]!.push(i);
  };
  for (const r of rules) table(r.lhs, r.rhs);
  for (const root of permutations.keys()) rulesOf[root - terminalCount] = null;

  // Whether a permutation may end in state (mask, written).
  const closes = (p: Permutation, mask: bigint, written: number): boolean => {
    if ((p.requiredMask & ~mask) !== 0n || written < Math.min(p.min, p.cap)) return false;
    for (const [i, needs] of p.dependencies) if ((mask & bit(i)) !== 0n && (needs & ~mask) !== 0n) return false;
    return true;
  };
  // A permutation root derives ε when it may close at once (before any member).
  const nullable: number[] = Array.from({ length: names.length }, (_, nt) => {
    const p = permutations.get(nt + terminalCount);
    return p !== undefined && productive[nt + terminalCount] && closes(p, 0n, 0) ? 1 : 0;
  });
  for (let changed = true; changed;) {
    changed = false;
    const isNullableSymbol = (s: number): boolean => s >= terminalCount && nullable[s - terminalCount] === 1;
    for (const r of rules) {
      if (!nullable[r.lhs - terminalCount] && r.rhs.every(isNullableSymbol)) {
        nullable[r.lhs - terminalCount] = 1;
        changed = true;
      }
    }
  }

  // Permutation states: state (mask, written) of permutation p as a nonterminal.
  const stateOf = new Map<number, { p: Permutation; mask: bigint; written: number }>();
  for (const [root, p] of permutations) stateOf.set(root, { p, mask: 0n, written: 0 });
  const stateNonterminal = (p: Permutation, mask: bigint, written: number): number => {
    const key = `${mask.toString(16)},${written}`;
    let nt = p.states.get(key);
    if (nt === undefined) {
      nt = nonterminal(`${p.name}@${mask.toString(16)},${written}`);
      p.states.set(key, nt);
      stateOf.set(nt, { p, mask, written });
      rulesOf.push(null);
      const ends = closes(p, mask, written);
      nullable.push(ends && written === 0 ? 1 : ends && p.close.every((s) => s >= terminalCount && nullable[s - terminalCount] === 1) ? 1 : 0);
    }
    return nt;
  };
  const expanded: number[] = [];
  // (Not counted against maxGrammarSymbols: a grammar that compiled must not fail later, and
  // the states grow with those outputs reach, shared by every matcher of the grammar.)
  const expand = (nt: number): readonly number[] => {
    const known = rulesOf[nt - terminalCount];
    if (known !== null && known !== undefined) return known;
    const state = stateOf.get(nt);
    if (state === undefined) throw new RangeError(`nonterminal ${nt} is not a permutation state`);
    const { p, mask, written } = state;
    rulesOf[nt - terminalCount] = [];
    const lead = written > 0 ? p.separator : [];
    if (closes(p, mask, written)) table(nt, written > 0 ? p.close : []);
    if (written < p.max) {
      const next = Math.min(written + 1, p.cap);
      p.members.forEach((member, i) => {
        const b = bit(i);
        if ((mask & b) === 0n && (p.usable & b) !== 0n && completable(p, mask | b, next)) table(nt, [...lead, member, stateNonterminal(p, mask | b, next)]);
      });
      if (p.other >= 0 && productive[p.other] && completable(p, mask, next)) table(nt, [...lead, p.other, stateNonterminal(p, mask, next)]);
    }
    expanded.push(nt);
    return rulesOf[nt - terminalCount]!;
  };

  return {
    ir,
    limits: allLimits,
    lexer,
    terminalCount,
    nonterminalNames: names,
    ruleLhs,
    ruleDot,
    dotNext,
    dotRule,
    rulesOf,
    nullable,
    startRule,
    ignore: [...ir.ignore].sort((a, b) => a - b),
    swallowing,
    expand,
    expanded,
  };
}
