/**
 * Lowers a Grammar IR to plain BNF over lexeme terminals for the Earley parser: groups,
 * alternatives inside sequences and repetitions become fresh nonterminals. Symbols
 * `0 .. lexemeCount-1` are terminals (lexeme indices), the rest nonterminals.
 */
import { isNullable, nonEmpty } from './byte-regex.ts';
import { GrammarError, GrammarLimitError } from './errors.ts';
import type { Expr, GrammarIR } from './ir.ts';
import { LexerDfa } from './lexer.ts';
import { DEFAULT_LIMITS, type GrammarLimits } from './limits.ts';

/** A grammar ready for matching: BNF tables plus the lexer. */
export interface CompiledGrammar {
  readonly ir: GrammarIR;
  readonly limits: GrammarLimits;
  readonly lexer: LexerDfa;
  readonly terminalCount: number;
  /** Names of nonterminals (fresh ones are named after their parent rule). */
  readonly nonterminalNames: readonly string[];
  /** Per rule: left-hand side symbol and first index into the dotted-rule tables. */
  readonly ruleLhs: Int32Array;
  readonly ruleDot: Int32Array;
  /** Per dotted rule (rule + position): the symbol after the dot, or -1 when complete. */
  readonly dotNext: Int32Array;
  readonly dotRule: Int32Array;
  /** Per nonterminal (index symbol - terminalCount): its rules, and whether it derives ε. */
  readonly rulesOf: readonly Int32Array[];
  readonly nullable: Uint8Array;
  /** The augmented start rule `S' ::= start`. */
  readonly startRule: number;
  readonly ignore: readonly number[];
}

/** Compiles a Grammar IR (throws `GrammarError` / `GrammarLimitError`). */
export function compileGrammar(ir: GrammarIR, limits: Partial<GrammarLimits> = {}): CompiledGrammar {
  const allLimits = { ...DEFAULT_LIMITS, ...limits };
  const terminalCount = ir.lexemes.length;
  const names: string[] = [];
  const ntIndex = new Map<string, number>();
  const rules: { lhs: number; rhs: number[] }[] = [];
  let symbolCount = 0;
  const count = (n: number): void => {
    symbolCount += n;
    if (symbolCount > allLimits.maxGrammarSymbols) {
      throw new GrammarLimitError('maxGrammarSymbols', allLimits.maxGrammarSymbols, `the grammar has more than ${allLimits.maxGrammarSymbols} symbols after expanding repetitions (maxGrammarSymbols)`);
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
  // Lexemes never match the empty string: one that could becomes optional in the grammar.
  const lexemes = ir.lexemes.map((l) => (isNullable(l.regex) ? { ...l, regex: nonEmpty(l.regex) } : l));
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

  // Converts an expression to a single symbol, creating a fresh nonterminal when needed.
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
        const nt = nonterminal(`${owner}~${names.length}`);
        lowerBody(nt, e, owner);
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
  const lowerRepeat = (lhs: number, e: Extract<Expr, { kind: 'repeat' }>, owner: string): void => {
    if (e.min < 0 || e.max < e.min) throw new GrammarError('invalid_range', `invalid repetition {${e.min},${e.max}}`, e.span);
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
  const start = nonterminal(`${ir.start}'`);
  addRule(start, [ntIndex.get(ir.start)!]);

  const ntCount = names.length;
  // Keep only productive rules (every symbol derives some string): then every prefix the
  // parser accepts can still be completed. A lexeme that matches nothing is unproductive.
  const lexer = new LexerDfa(lexemes, [...ir.ignore].sort((a, b) => a - b), allLimits);
  const productive = new Uint8Array(terminalCount + ntCount);
  lexemes.forEach((_, i) => (productive[i] = lexer.matchesNothing(i) ? 0 : 1));
  for (let changed = true; changed; ) {
    changed = false;
    for (const r of rules) {
      if (!productive[r.lhs] && r.rhs.every((sym) => productive[sym])) {
        productive[r.lhs] = 1;
        changed = true;
      }
    }
  }
  if (!productive[ntIndex.get(ir.start)!] && !ir.allowEmpty) {
    throw new GrammarError('empty_language', `the grammar matches nothing: rule ${ir.start} can never be completed`, ir.ruleSpans?.get(ir.start));
  }
  // The augmented start rule stays even when empty: then nothing is ever allowed.
  for (let i = rules.length - 1; i >= 0; i--) if (rules[i]!.lhs !== start && !rules[i]!.rhs.every((sym) => productive[sym])) rules.splice(i, 1);
  const startRule = rules.findIndex((r) => r.lhs === start);

  const rulesOf: number[][] = Array.from({ length: ntCount }, () => []);
  rules.forEach((r, i) => rulesOf[r.lhs - terminalCount]!.push(i));
  const ruleLhs = Int32Array.from(rules, (r) => r.lhs);
  const ruleDot = new Int32Array(rules.length);
  const dotNext: number[] = [];
  const dotRule: number[] = [];
  rules.forEach((r, i) => {
    ruleDot[i] = dotNext.length;
    for (const s of r.rhs) {
      dotNext.push(s);
      dotRule.push(i);
    }
    dotNext.push(-1);
    dotRule.push(i);
  });

  const nullable = new Uint8Array(ntCount);
  for (let changed = true; changed; ) {
    changed = false;
    for (const r of rules) {
      if (!nullable[r.lhs - terminalCount] && r.rhs.every((s) => s >= terminalCount && nullable[s - terminalCount])) {
        nullable[r.lhs - terminalCount] = 1;
        changed = true;
      }
    }
  }

  return {
    ir,
    limits: allLimits,
    lexer,
    terminalCount,
    nonterminalNames: names,
    ruleLhs,
    ruleDot,
    dotNext: Int32Array.from(dotNext),
    dotRule: Int32Array.from(dotRule),
    rulesOf: rulesOf.map((r) => Int32Array.from(r)),
    nullable,
    startRule,
    ignore: [...ir.ignore].sort((a, b) => a - b),
  };
}
