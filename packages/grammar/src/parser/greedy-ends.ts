/**
 * Greedy terminals that can swallow what the grammar expects after them. With `NUM: /[0-9]+/`
 * in `start: NUM "0" | "x"`, the prefix `1` is a lexeme in progress that may still end, yet
 * greedy lexing never ends it before a `0` (the `0` continues it): no text completes `1`. The
 * lexer only knows that a lexeme can end, not that it can end before a byte the parser takes
 * next, so masks would allow such dead ends.
 *
 * This pass rewrites the grammar (lowered to BNF) so that they cannot occur, and its language
 * stays the same. The bytes that may follow a risky terminal are split into classes (bytes
 * every ending of every risky terminal treats alike), and the grammar is intersected with an
 * automaton over terminals whose states say what the next terminal must start with: FREE
 * (anything), K_c (a byte of class c) or END (nothing follows). A risky terminal becomes
 * variants that end only where no byte of c continues them (then K_c), or anywhere (END); a
 * terminal read in K_c becomes its variant that starts with a byte of c. The lexer prunes a
 * variant's states that cannot reach its acceptance, so a doomed prefix is refused at once.
 *
 * The rewrite drops parses that can never complete and restricts terminals, so the parser
 * expects fewer terminals at a boundary. That leaves the lexing of a text unchanged only when
 * no two terminals it may expect at once overlap: where one accepts, no other is still running
 * (else the longer match, or the higher priority, would depend on which are expected). Then a
 * text is cut into the same terminals as written, and the rewrite is exact. Grammars with such
 * overlapping terminals, with ignored terminals, permutations (JSON objects) or exclusions, and
 * with a terminal whose automaton is too large to explore, are left as they are (`null`).
 */
import { DEAD, LexerDfa } from '../lexer/lexer-dfa.ts';
import { isNullable, languageFacts, rx, type ByteRegex } from '../ir/byte-regex.ts';
import type { LexemeDef } from '../ir/grammar-ir.ts';
import { GrammarLimitError } from '../grammar-error.ts';
import { DEFAULT_LIMITS, type GrammarLimits } from '../limits.ts';

/** A grammar lowered to BNF: symbols below `lexemes.length` are terminals, the rest nonterminals. */
export interface Bnf {
  readonly lexemes: LexemeDef[];
  readonly names: string[];
  readonly rules: { lhs: number; rhs: number[] }[];
  /** The augmented start nonterminal: its one rule derives the grammar's start rule. */
  readonly start: number;
}

// Most DFA states of a terminal explored to learn where it may end.
const MAX_TERMINAL_STATES = 1024;
// Most pairs of states explored to tell whether the terminals overlap (over all pairs of terminals).
const MAX_PAIR_STATES = 100_000;
// Most byte classes (the automaton over terminals has two more states: FREE and END).
const MAX_CLASSES = 24;
// Most state sequences one rule is split into.
const MAX_RULE_PATHS = 256;

const FREE = 0;
const END = 1;

/** A set of bytes, and of END_OF_TEXT (what may follow the last terminal). */
type ByteSet = Uint32Array;
const END_OF_TEXT = 256;
const byteSet = (): ByteSet => new Uint32Array(9);
const has = (set: ByteSet, b: number): boolean => ((set[b >>> 5]! >>> (b & 31)) & 1) === 1;
const add = (set: ByteSet, b: number): void => {
  set[b >>> 5]! |= 1 << (b & 31);
};
// Adds `from` to `into`; whether `into` grew.
function addAll(into: ByteSet, from: ByteSet): boolean {
  let grew = false;
  for (let i = 0; i < into.length; i++) {
    const merged = (into[i]! | from[i]!) >>> 0;
    if (merged !== into[i]) {
      into[i] = merged;
      grew = true;
    }
  }
  return grew;
}
const meets = (a: ByteSet, b: ByteSet): boolean => a.some((word, i) => (word & b[i]!) !== 0);
const within = (a: ByteSet, b: ByteSet): boolean => a.every((word, i) => (word & ~b[i]!) === 0);
function rangesOf(ranges: readonly number[]): ByteSet {
  const set = byteSet();
  for (let i = 0; i + 1 < ranges.length; i += 2) for (let b = ranges[i]!; b <= ranges[i + 1]!; b++) add(set, b);
  return set;
}
const ALL_BYTES = rangesOf([0, 255]);

// The bytes some string of `regex` starts with (`first`) or holds anywhere: a superset where
// intersections and complements are involved.
function bytesOf(regex: ByteRegex, first: boolean): ByteSet {
  switch (regex.kind) {
    case 'bytes':
      return rangesOf(regex.ranges);
    case 'seq':
    case 'alt': {
      const set = byteSet();
      for (const item of regex.items) {
        addAll(set, bytesOf(item, first));
        if (first && regex.kind === 'seq' && !isNullable(item)) break;
      }
      return set;
    }
    case 'repeat':
      return regex.max === 0 ? byteSet() : bytesOf(regex.item, first);
    case 'and':
      return regex.items.map((item) => bytesOf(item, first)).reduce((a, b) => a.map((word, i) => word & b[i]!) as ByteSet);
    case 'not':
      return ALL_BYTES.slice();
    case 'automaton':
      return rangesOf((first ? [regex.automaton.edges[0] ?? []] : regex.automaton.edges).flatMap(rangeTriples));
  }
}
const rangeTriples = (edges: readonly number[]): number[] => edges.flatMap((x, i) => (i % 3 === 2 ? [] : [x]));

/** A terminal's own DFA: state 0 is the start; `rows[s][b]` the next state or -1. */
interface TerminalDfa {
  readonly rows: readonly Int32Array[];
  readonly accepting: readonly boolean[];
}

// The DFA of `regex` (its states all reach acceptance), or null past MAX_TERMINAL_STATES or
// for an intersection or complement (their products take most of a compile: JSON strings
// with patterns and bounds, which never need the rewrite).
function terminalDfa(regex: ByteRegex): TerminalDfa | null {
  if (languageFacts(regex).costly) return null;
  try {
    const dfa = new LexerDfa([{ name: 'terminal', regex }], [], { ...DEFAULT_LIMITS, maxLexerStates: MAX_TERMINAL_STATES + 1, lexerCacheBytes: 64 * 2048 });
    const start = dfa.start([0]);
    if (start === DEAD) return null;
    const ids = new Map([[start, 0]]);
    const order = [start];
    const rows: Int32Array[] = [];
    for (let i = 0; i < order.length; i++) {
      const targets = dfa.row(order[i]!).slice();
      const row = new Int32Array(256).fill(-1);
      for (let b = 0; b < 256; b++) {
        const target = targets[b]!;
        if (target === DEAD) continue;
        let id = ids.get(target);
        if (id === undefined) {
          if (order.length >= MAX_TERMINAL_STATES) return null;
          id = order.length;
          ids.set(target, id);
          order.push(target);
        }
        row[b] = id;
      }
      rows.push(row);
    }
    return { rows, accepting: order.map((state) => dfa.accepting(state).length > 0) };
  } catch (error) {
    if (error instanceof GrammarLimitError) return null;
    throw error;
  }
}

// The language of `dfa` starting with a byte of `starts` (all: any), ending in a state `ends` allows.
function variantRegex(dfa: TerminalDfa, starts: ByteSet | null, ends: (state: number) => boolean): ByteRegex {
  // A fresh start state (the old one may be entered again later), the others shifted by one.
  const runs = (row: Int32Array, keep: (b: number) => boolean): number[] => {
    const edges: number[] = [];
    for (let b = 0; b < 256; b++) {
      if (row[b]! < 0 || !keep(b)) continue;
      const last = edges.length - 3;
      if (last >= 0 && edges[last + 1] === b - 1 && edges[last + 2] === row[b]! + 1) edges[last + 1] = b;
      else edges.push(b, b, row[b]! + 1);
    }
    return edges;
  };
  const edges = [runs(dfa.rows[0]!, (b) => starts === null || has(starts, b)), ...dfa.rows.map((row) => runs(row, () => true))];
  const accepting = [false, ...dfa.accepting.map((accepts, state) => accepts && ends(state))];
  return rx.automaton({ edges, accepting });
}

/**
 * `bnf` rewritten so that no greedy terminal is read where it cannot end before what follows
 * (see the module comment), with the names of the terminals that could swallow what follows
 * them; null when it has none or the rewrite would not be exact. Call it only for grammars
 * with no ignored terminals, permutations or exclusions.
 */
export function withGreedyEnds(bnf: Bnf, limits: GrammarLimits): (Bnf & { readonly swallowing: readonly string[] }) | null {
  const { lexemes, names, rules, start } = bnf;
  const T = lexemes.length;
  const symbols = T + names.length;
  const firsts = lexemes.map((lexeme) => bytesOf(lexeme.regex, true));
  const graph = new RuleGraph(rules, symbols);
  const derivesEmpty = new Uint8Array(symbols);
  graph.up((r) => {
    if (derivesEmpty[r.lhs] || !r.rhs.every((s) => derivesEmpty[s])) return false;
    derivesEmpty[r.lhs] = 1;
    return true;
  });
  // FIRST and FOLLOW (bytes, END_OF_TEXT too) of every symbol.
  const first = Array.from({ length: symbols }, (_, s) => (s < T ? firsts[s]! : byteSet()));
  graph.first(first, derivesEmpty, addAll);
  const follow = Array.from({ length: symbols }, byteSet);
  add(follow[start]!, END_OF_TEXT);
  graph.down((r) => {
    const grown: number[] = [];
    const trailer = follow[r.lhs]!.slice();
    for (let i = r.rhs.length - 1; i >= 0; i--) {
      const s = r.rhs[i]!;
      if (addAll(follow[s]!, trailer)) grown.push(s);
      if (derivesEmpty[s]) addAll(trailer, first[s]!);
      else trailer.set(first[s]!);
    }
    return grown;
  });

  // The risky terminals: greedy, and some ending of theirs is continued by a byte that may follow.
  const used = new Uint8Array(T);
  for (const r of rules) for (const s of r.rhs) if (s < T) used[s] = 1;
  const dfas = new Map<number, TerminalDfa | null>();
  const dfaOf = (t: number): TerminalDfa | null => {
    if (!dfas.has(t)) dfas.set(t, terminalDfa(lexemes[t]!.regex));
    return dfas.get(t)!;
  };
  const continues = (row: Int32Array, set: ByteSet): boolean => {
    for (let b = 0; b < 256; b++) if (row[b]! >= 0 && has(set, b)) return true;
    return false;
  };
  const risky: number[] = [];
  for (let t = 0; t < T; t++) {
    if (!used[t] || lexemes[t]!.mode === 'lazy' || !meets(bytesOf(lexemes[t]!.regex, false), follow[t]!)) continue;
    const dfa = dfaOf(t);
    if (dfa === null) return null;
    if (dfa.rows.some((row, state) => dfa.accepting[state] && continues(row, follow[t]!))) risky.push(t);
  }
  if (risky.length === 0) return null;
  if (overlapping(bnf, graph, derivesEmpty, firsts, dfaOf)) return null;

  // Byte classes: the bytes that may follow a risky terminal, by which of its endings they continue.
  const classOf = new Map<string, ByteSet>();
  for (let b = 0; b < 256; b++) {
    if (!risky.some((t) => has(follow[t]!, b))) continue;
    const key = risky
      .map((t) =>
        dfaOf(t)!
          .rows.map((row, state) => (dfaOf(t)!.accepting[state] && row[b]! >= 0 ? '1' : '0'))
          .join(''),
      )
      .join('|');
    let set = classOf.get(key);
    if (set === undefined) classOf.set(key, (set = byteSet()));
    add(set, b);
  }
  const classes = [...classOf.values()];
  if (classes.length > MAX_CLASSES) return null;
  const states = 2 + classes.length;
  const classBytes = (p: number): ByteSet => classes[p - 2]!;

  // Per risky terminal and target state: which of its states reach an ending allowed there.
  const reaching = new Map<number, Uint8Array[]>();
  for (const t of risky) {
    const dfa = dfaOf(t)!;
    const into = dfa.rows.map(() => new Set<number>());
    dfa.rows.forEach((row, s) => row.forEach((to) => to >= 0 && into[to]!.add(s)));
    const perTarget: Uint8Array[] = [];
    for (let q = 0; q < states; q++) {
      const reach = new Uint8Array(dfa.rows.length);
      const stack = q === FREE ? [] : dfa.rows.flatMap((_, s) => (endsBefore(dfa, s, q) ? [s] : []));
      for (const s of stack) reach[s] = 1;
      while (stack.length > 0) {
        for (const u of into[stack.pop()!]!) {
          if (reach[u]) continue;
          reach[u] = 1;
          stack.push(u);
        }
      }
      perTarget.push(reach);
    }
    reaching.set(t, perTarget);
  }
  function endsBefore(dfa: TerminalDfa, s: number, q: number): boolean {
    return dfa.accepting[s]! && (q === END || !continues(dfa.rows[s]!, classBytes(q)));
  }
  const startBytes = (t: number, p: number): ByteSet | null => {
    if (p === END) return null;
    if (p === FREE) return firsts[t]!;
    const set = firsts[t]!.map((word, i) => word & classBytes(p)[i]!) as ByteSet;
    return set.some((word) => word !== 0) ? set : null;
  };
  // The states a terminal read in state p may leave the automaton in, as a mask.
  const terminalExits = (t: number, p: number): number => {
    const starts = startBytes(t, p);
    if (starts === null) return 0;
    const reach = reaching.get(t);
    if (reach === undefined) return 1 << FREE;
    const row = dfaOf(t)!.rows[0]!;
    let mask = 0;
    for (let q = 1; q < states; q++) {
      for (let b = 0; b < 256; b++) {
        if (has(starts, b) && row[b]! >= 0 && reach[q]![row[b]!]) {
          mask |= 1 << q;
          break;
        }
      }
    }
    return mask;
  };
  const exits = Array.from({ length: symbols }, (_, s) => Int32Array.from({ length: states }, (_, p) => (s < T && used[s] ? terminalExits(s, p) : 0)));
  graph.up((r) => {
    let grew = false;
    for (let p = 0; p < states; p++) {
      let mask = 1 << p;
      for (const s of r.rhs) mask = through(exits[s]!, mask);
      if ((exits[r.lhs]![p]! | mask) !== exits[r.lhs]![p]) {
        exits[r.lhs]![p]! |= mask;
        grew = true;
      }
    }
    return grew;
  });

  // The rewritten grammar: terminals keep their indices, variants follow them, nonterminals are
  // (nonterminal, from, to) triples numbered as they are reached (held as -1 - k until the
  // terminal count is known: -newNames.push(…) is -1 minus the new name's index).
  const newLexemes: LexemeDef[] = [...lexemes];
  const variants = new Map<string, number>();
  const variant = (t: number, p: number, q: number): number => {
    const restricted = p !== FREE && !within(firsts[t]!, classBytes(p));
    if (!restricted && (q === FREE || q === END)) return t;
    const key = `${t},${p},${q}`;
    let index = variants.get(key);
    if (index === undefined) {
      const dfa = dfaOf(t);
      const starts = restricted ? classBytes(p) : null;
      const regex =
        dfa === null
          ? rx.and([lexemes[t]!.regex, rx.seq([rx.byteRanges(rangesFrom(starts!)), rx.repeat(rx.byteRanges([0, 255]), 0, Infinity)])])
          : variantRegex(dfa, starts, (s) => q === FREE || endsBefore(dfa, s, q));
      index = newLexemes.push({ ...lexemes[t]!, regex }) - 1;
      variants.set(key, index);
    }
    return index;
  };
  const newNames: string[] = [];
  const newRules: { lhs: number; rhs: number[] }[] = [];
  const triples = new Map<string, number>();
  const pending: [number, number, number, number][] = [];
  const nonterminal = (a: number, p: number, q: number): number => {
    const key = `${a},${p},${q}`;
    let id = triples.get(key);
    if (id === undefined) {
      id = -newNames.push(names[a - T]!);
      triples.set(key, id);
      pending.push([id, a, p, q]);
    }
    return id;
  };
  const symbolFor = (s: number, p: number, q: number): number => (s < T ? variant(s, p, q) : nonterminal(s, p, q));
  const rulesOf = new Map<number, (typeof rules)[number][]>();
  for (const r of rules) {
    const list = rulesOf.get(r.lhs);
    if (list === undefined) rulesOf.set(r.lhs, [r]);
    else list.push(r);
  }

  const newStart = -newNames.push(names[start - T]!);
  const body = -newNames.push(names[start - T]!);
  newRules.push({ lhs: newStart, rhs: [body] });
  for (const q of [FREE, END]) if (exits[start]![FREE]! & (1 << q)) newRules.push({ lhs: body, rhs: [nonterminal(start, FREE, q)] });
  let size = 0;
  while (pending.length > 0) {
    const [id, a, p, q] = pending.pop()!;
    for (const r of rulesOf.get(a) ?? []) {
      // The states from which the rest of the rule can still end in q.
      const back = new Int32Array(r.rhs.length + 1);
      back[r.rhs.length] = 1 << q;
      for (let i = r.rhs.length - 1; i >= 0; i--) {
        for (let s = 0; s < states; s++) if (exits[r.rhs[i]!]![s]! & back[i + 1]!) back[i]! |= 1 << s;
      }
      if (!(back[0]! & (1 << p))) continue;
      let paths = 0;
      const walk = (i: number, s: number, rhs: number[]): void => {
        if (i === r.rhs.length) {
          if (++paths > MAX_RULE_PATHS) throw new TooManyPaths();
          size += rhs.length + 1;
          newRules.push({ lhs: id, rhs });
          return;
        }
        const mask = exits[r.rhs[i]!]![s]! & back[i + 1]!;
        for (let next = 0; next < states; next++) if (mask & (1 << next)) walk(i + 1, next, [...rhs, symbolFor(r.rhs[i]!, s, next)]);
      };
      try {
        walk(0, p, []);
      } catch (error) {
        if (error instanceof TooManyPaths) return null;
        throw error;
      }
      if (size > limits.maxGrammarSymbols) {
        throw new GrammarLimitError(
          'maxGrammarSymbols',
          limits.maxGrammarSymbols,
          `the grammar has more than ${limits.maxGrammarSymbols} symbols after expanding repetitions (maxGrammarSymbols)`,
        );
      }
    }
  }
  const terminals = newLexemes.length;
  const number = (s: number): number => (s < 0 ? terminals - 1 - s : s);
  return {
    lexemes: newLexemes,
    names: newNames,
    rules: newRules.map((r) => ({ lhs: number(r.lhs), rhs: r.rhs.map(number) })),
    start: number(newStart),
    swallowing: risky.map((t) => lexemes[t]!.name),
  };
}

class TooManyPaths extends Error {}

type Rule = Bnf['rules'][number];

/**
 * Facts of symbols that only grow, settled along the rules with a worklist: a rule is run
 * again only when a fact it reads grew, so a chain of 100,000 nested optional rules
 * (`"a"{1,100000}`) settles in one sweep, not one sweep per link.
 */
class RuleGraph {
  readonly #rules: readonly Rule[];
  // Per symbol: the rules whose right side holds it, and the rules it is the left side of.
  readonly #usedIn: number[][];
  readonly #rulesOf: number[][];

  constructor(rules: readonly Rule[], symbols: number) {
    this.#rules = rules;
    this.#usedIn = Array.from({ length: symbols }, () => []);
    this.#rulesOf = Array.from({ length: symbols }, () => []);
    rules.forEach((r, i) => {
      this.#rulesOf[r.lhs]!.push(i);
      for (const s of new Set(r.rhs)) this.#usedIn[s]!.push(i);
    });
  }

  /** Facts of left sides from right sides: `update` says whether the rule's left side grew. */
  up(update: (rule: Rule) => boolean): void {
    this.#settle((i) => (update(this.#rules[i]!) ? this.#usedIn[this.#rules[i]!.lhs]! : []));
  }

  /**
   * FIRST of every symbol: `sets` holds the terminals' own and receives the nonterminals';
   * `merge` adds one set to another and says whether it grew.
   */
  first<S>(sets: readonly S[], derivesEmpty: Uint8Array, merge: (into: S, from: S) => boolean): void {
    this.up((r) => {
      let grew = false;
      for (const s of r.rhs) {
        if (merge(sets[r.lhs]!, sets[s]!)) grew = true;
        if (!derivesEmpty[s]) break;
      }
      return grew;
    });
  }

  /** Facts of right sides from left sides: `update` returns the symbols that grew. */
  down(update: (rule: Rule) => readonly number[]): void {
    this.#settle((i) => update(this.#rules[i]!).flatMap((s) => this.#rulesOf[s]!));
  }

  #settle(run: (rule: number) => readonly number[]): void {
    const queue = this.#rules.map((_, i) => this.#rules.length - 1 - i);
    const queued = new Uint8Array(this.#rules.length).fill(1);
    while (queue.length > 0) {
      const i = queue.pop()!;
      queued[i] = 0;
      for (const j of run(i)) {
        if (queued[j]) continue;
        queued[j] = 1;
        queue.push(j);
      }
    }
  }
}

// The states a symbol with per-entry exits `exits` may leave in, entered in any state of `mask`.
function through(exits: Int32Array, mask: number): number {
  let out = 0;
  for (let p = 0; p < exits.length; p++) if (mask & (1 << p)) out |= exits[p]!;
  return out;
}

function rangesFrom(set: ByteSet): number[] {
  const ranges: number[] = [];
  for (let b = 0; b < 256; b++) {
    if (!has(set, b)) continue;
    if (ranges.length > 0 && ranges[ranges.length - 1] === b - 1) ranges[ranges.length - 1] = b;
    else ranges.push(b, b);
  }
  return ranges;
}

/**
 * Whether two terminals the parser may expect at once overlap: a text one matches is a prefix
 * of a text of the other (or their automata are too large to tell). Then which terminals the
 * parser expects changes how a text is lexed (the longer match, or the higher priority, wins),
 * and the rewrite, which drops and restricts some of them, would change the language.
 *
 * Terminals expected at once all start the grammar or all follow the terminal just read: a
 * boundary follows the one terminal that matched the text before it, since two that match
 * the same text overlap. So no overlap inside FIRST(start) and each FOLLOW(t) means none
 * anywhere.
 */
function overlapping(
  { lexemes, names, start }: Bnf,
  graph: RuleGraph,
  derivesEmpty: Uint8Array,
  firsts: readonly ByteSet[],
  dfaOf: (t: number) => TerminalDfa | null,
): boolean {
  const T = lexemes.length;
  const symbols = T + names.length;
  const first = Array.from({ length: symbols }, (_, s) => new Set(s < T ? [s] : []));
  const grow = (into: Set<number>, from: Set<number>): boolean => {
    const size = into.size;
    for (const x of from) into.add(x);
    return into.size > size;
  };
  graph.first(first, derivesEmpty, grow);
  const follow = Array.from({ length: symbols }, () => new Set<number>());
  graph.down((r) => {
    const grown: number[] = [];
    const trailer = new Set(follow[r.lhs]);
    for (let i = r.rhs.length - 1; i >= 0; i--) {
      const s = r.rhs[i]!;
      if (grow(follow[s]!, trailer)) grown.push(s);
      if (!derivesEmpty[s]) trailer.clear();
      grow(trailer, first[s]!);
    }
    return grown;
  });
  const budget = { states: MAX_PAIR_STATES };
  const checked = new Set<number>();
  for (const group of [first[start]!, ...follow.slice(0, T)]) {
    for (const a of group) {
      for (const b of group) {
        if (a === b || checked.has(a * T + b) || !meets(firsts[a]!, firsts[b]!)) continue;
        checked.add(a * T + b);
        const [x, y] = [dfaOf(a), dfaOf(b)];
        if (x === null || y === null || sharesPrefix(x, y, budget)) return true;
      }
    }
  }
  return false;
}

// Whether a text `a` accepts is also a prefix of a text of `b` (true when the pairs of states
// explored run past the budget).
function sharesPrefix(a: TerminalDfa, b: TerminalDfa, budget: { states: number }): boolean {
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length > 0) {
    const pair = stack.pop()!;
    const x = Math.floor(pair / MAX_TERMINAL_STATES);
    const y = pair % MAX_TERMINAL_STATES;
    for (let byte = 0; byte < 256; byte++) {
      const nx = a.rows[x]![byte]!;
      const ny = b.rows[y]![byte]!;
      if (nx < 0 || ny < 0) continue;
      if (a.accepting[nx]) return true;
      const next = nx * MAX_TERMINAL_STATES + ny;
      if (seen.has(next)) continue;
      if (--budget.states < 0) return true;
      seen.add(next);
      stack.push(next);
    }
  }
  return false;
}
