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
import { explicitDfa, type ExplicitDfa } from '../lexer/lexer-dfa.ts';
import { isNullable, languageFacts, rx, type ByteRegex } from '../ir/byte-regex.ts';
import type { GrammarIR, LexemeDef } from '../ir/grammar-ir.ts';
import type { GrammarLimits } from '../limits.ts';

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
// Most state sequences one rule is split into, and the longest rule split.
const MAX_RULE_PATHS = 256;
const MAX_RULE_LENGTH = 1024;
// How much larger than the grammar as written the rewrite may grow (in symbols, rules included).
const MAX_GROWTH = 4;

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
function meets(a: ByteSet, b: ByteSet): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i]! & b[i]!) !== 0) return true;
  return false;
}
function within(a: ByteSet, b: ByteSet): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i]! & ~b[i]!) !== 0) return false;
  return true;
}
function setOfRanges(ranges: readonly number[]): ByteSet {
  const set = byteSet();
  for (let i = 0; i + 1 < ranges.length; i += 2) for (let b = ranges[i]!; b <= ranges[i + 1]!; b++) add(set, b);
  return set;
}
const ALL_BYTES = setOfRanges([0, 255]);

// The bytes some string of `regex` starts with (`first`) or holds anywhere: a superset where
// intersections and complements are involved.
function bytesOf(regex: ByteRegex, first: boolean): ByteSet {
  switch (regex.kind) {
    case 'bytes':
      return setOfRanges(regex.ranges);
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
      return setOfRanges((first ? [regex.automaton.edges[0] ?? []] : regex.automaton.edges).flatMap(rangeTriples));
  }
}
// Whether no string of `regex` is a proper prefix of another, as its structure proves (a
// character class, a literal): such a terminal never goes on past a match.
function prefixFree(regex: ByteRegex): boolean {
  switch (regex.kind) {
    case 'bytes':
      return true;
    case 'seq':
      return regex.items.every((item) => prefixFree(item) && !isNullable(item));
    case 'alt': {
      const seen = byteSet();
      for (const item of regex.items) {
        const first = bytesOf(item, true);
        if (!prefixFree(item) || isNullable(item) || meets(seen, first)) return false;
        addAll(seen, first);
      }
      return true;
    }
    case 'repeat':
      return regex.min === regex.max && prefixFree(regex.item) && !isNullable(regex.item);
    default:
      return false;
  }
}
const rangeTriples = (edges: readonly number[]): number[] => edges.flatMap((x, i) => (i % 3 === 2 ? [] : [x]));

// A terminal's own DFA (`ExplicitDfa`: its states all reach acceptance), or null past
// MAX_TERMINAL_STATES or for an intersection or complement (their products take most of a
// compile: JSON strings with patterns and bounds, which never need the rewrite).
function terminalDfa(regex: ByteRegex): ExplicitDfa | null {
  if (languageFacts(regex).costly) return null;
  const dfa = explicitDfa(regex, MAX_TERMINAL_STATES, { lexerCacheBytes: 64 * 2048 });
  return dfa === null || dfa.rows.length === 0 ? null : dfa;
}

// The language of `dfa` starting with a byte of `starts` (all: any), ending in a state `ends` allows.
function variantRegex(dfa: ExplicitDfa, starts: ByteSet | null, ends: (state: number) => boolean): ByteRegex {
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

/** A grammar rewritten by `withGreedyEnds`. */
export interface GreedyEnds extends Bnf {
  /** The terminals that could swallow what follows them. */
  readonly swallowing: readonly string[];
  /** Whether the grammar as written derives some string of terminals (then, if the rewrite derives none, they are why). */
  readonly derivedText: boolean;
}

/**
 * `bnf` rewritten so that no greedy terminal is read where it cannot end before what follows
 * (see the module comment), with the names of the terminals that could swallow what follows
 * them; null when it has none or the rewrite would not be exact: also for grammars with
 * ignored terminals, permutations (`ir`'s) or exclusions, which are left as written.
 */
export function withGreedyEnds(bnf: Bnf, ir: Pick<GrammarIR, 'ignore' | 'permutations'>, limits: GrammarLimits): GreedyEnds | null {
  const { lexemes, names, rules, start } = bnf;
  if (ir.ignore.length > 0 || (ir.permutations?.size ?? 0) > 0 || lexemes.some((l) => (l.excludes?.length ?? 0) > 0)) return null;
  const T = lexemes.length;
  const symbols = T + names.length;
  const used = new Uint8Array(T);
  for (const r of rules) for (const s of r.rhs) if (s < T) used[s] = 1;
  // Character classes and literals (every GBNF and EBNF terminal) never go on past a match.
  if (lexemes.every((lexeme, t) => !used[t] || lexeme.mode === 'lazy' || prefixFree(lexeme.regex))) return null;
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
  graph.follow(follow, first, derivesEmpty, addAll, (set) => set.slice());

  // The risky terminals: greedy, and some ending of theirs is continued by a byte that may follow.
  const dfas = new Map<number, ExplicitDfa | null>();
  const dfaOf = (t: number): ExplicitDfa | null => {
    if (!dfas.has(t)) dfas.set(t, terminalDfa(lexemes[t]!.regex));
    return dfas.get(t)!;
  };
  const continues = (row: Int32Array, set: ByteSet): boolean => {
    for (let b = 0; b < 256; b++) if (row[b]! >= 0 && has(set, b)) return true;
    return false;
  };
  const risky: number[] = [];
  for (let t = 0; t < T; t++) {
    const regex = lexemes[t]!.regex;
    if (!used[t] || lexemes[t]!.mode === 'lazy' || prefixFree(regex) || !meets(bytesOf(regex, false), follow[t]!)) continue;
    const dfa = dfaOf(t);
    if (dfa === null) return null;
    if (dfa.rows.some((row, state) => dfa.accepting[state] && continues(row, follow[t]!))) risky.push(t);
  }
  if (risky.length === 0) return null;
  if (overlapping(bnf, graph, derivesEmpty, firsts, used, dfaOf)) return null;

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
  function endsBefore(dfa: ExplicitDfa, s: number, q: number): boolean {
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
  // Whether terminal t, ending before a byte of q's class, ends wherever it may end anyway.
  const endsAnywhere = (t: number, q: number): boolean => {
    const dfa = dfaOf(t);
    return q === FREE || q === END || (dfa !== null && dfa.accepting.every((accepts, s) => !accepts || endsBefore(dfa, s, q)));
  };
  const variant = (t: number, p: number, q: number): number => {
    const restricted = p !== FREE && !within(firsts[t]!, classBytes(p));
    if (!restricted && endsAnywhere(t, q)) return t;
    const key = `${t},${p},${q}`;
    let index = variants.get(key);
    if (index === undefined) {
      const dfa = dfaOf(t);
      const starts = restricted ? classBytes(p) : null;
      const regex =
        dfa === null
          ? rx.and([lexemes[t]!.regex, rx.seq([rx.byteRanges(rangesOfSet(starts!)), rx.repeat(rx.byteRanges([0, 255]), 0, Infinity)])])
          : variantRegex(dfa, starts, (s) => endsAnywhere(t, q) || endsBefore(dfa, s, q));
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

  // The start keeps one rule (the parser begins there): it derives `body`, whose rules are the
  // start's triples.
  const newStart = -newNames.push(names[start - T]!);
  const body = -newNames.push(names[start - T]!);
  newRules.push({ lhs: newStart, rhs: [body] });
  for (const q of [FREE, END]) if (exits[start]![FREE]! & (1 << q)) newRules.push({ lhs: body, rhs: [nonterminal(start, FREE, q)] });
  const maxSize = Math.min(limits.maxGrammarSymbols, MAX_GROWTH * rules.reduce((n, r) => n + r.rhs.length + 1, 0));
  let size = 0;
  while (pending.length > 0) {
    const [id, a, p, q] = pending.pop()!;
    for (const r of rulesOf.get(a) ?? []) {
      if (r.rhs.length > MAX_RULE_LENGTH) return null;
      // The states from which the rest of the rule can still end in q.
      const back = new Int32Array(r.rhs.length + 1);
      back[r.rhs.length] = 1 << q;
      for (let i = r.rhs.length - 1; i >= 0; i--) {
        for (let s = 0; s < states; s++) if (exits[r.rhs[i]!]![s]! & back[i + 1]!) back[i]! |= 1 << s;
      }
      if (!(back[0]! & (1 << p))) continue;
      // Every state sequence through the rule, its symbols written into one array.
      let paths = 0;
      const rhs = new Array<number>(r.rhs.length);
      const walk = (i: number, s: number): boolean => {
        if (i === r.rhs.length) {
          newRules.push({ lhs: id, rhs: rhs.slice() });
          size += rhs.length + 1;
          return ++paths <= MAX_RULE_PATHS && size <= maxSize;
        }
        const mask = exits[r.rhs[i]!]![s]! & back[i + 1]!;
        for (let next = 0; next < states; next++) {
          if (!(mask & (1 << next))) continue;
          rhs[i] = symbolFor(r.rhs[i]!, s, next);
          if (!walk(i + 1, next)) return false;
        }
        return true;
      };
      // Past the caps the rewrite would cost more than the dead ends it removes.
      if (!walk(0, p)) return null;
    }
  }
  const terminals = newLexemes.length;
  const renumber = (s: number): number => (s < 0 ? terminals - 1 - s : s);
  return {
    lexemes: newLexemes,
    names: newNames,
    rules: newRules.map((r) => ({ lhs: renumber(r.lhs), rhs: r.rhs.map(renumber) })),
    start: renumber(newStart),
    swallowing: risky.map((t) => lexemes[t]!.name),
    derivedText: derivesText(rules, graph, used, start),
  };
}

type Rule = Bnf['rules'][number];

// Whether `start` derives some string of the `used` terminals.
function derivesText(rules: readonly Rule[], graph: RuleGraph, used: Uint8Array, start: number): boolean {
  const derives = new Uint8Array(used.length + rules.reduce((n, r) => Math.max(n, r.lhs + 1), 0));
  derives.set(used);
  graph.up((r) => {
    if (derives[r.lhs] || !r.rhs.every((s) => derives[s])) return false;
    derives[r.lhs] = 1;
    return true;
  });
  return derives[start] === 1;
}

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
    this.#settle((rule, requeue) => {
      if (update(rule)) requeue(this.#usedIn[rule.lhs]!);
    });
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

  /** FOLLOW of every symbol from FIRST (`sets` holds what may follow the start), as `first`. */
  follow<S>(sets: readonly S[], first: readonly S[], derivesEmpty: Uint8Array, merge: (into: S, from: S) => boolean, copy: (set: S) => S): void {
    this.down((r) => {
      const grown: number[] = [];
      let trailer = copy(sets[r.lhs]!);
      for (let i = r.rhs.length - 1; i >= 0; i--) {
        const s = r.rhs[i]!;
        if (merge(sets[s]!, trailer)) grown.push(s);
        if (derivesEmpty[s]) merge(trailer, first[s]!);
        else trailer = copy(first[s]!);
      }
      return grown;
    });
  }

  /** Facts of right sides from left sides: `update` returns the symbols that grew. */
  down(update: (rule: Rule) => readonly number[]): void {
    this.#settle((rule, requeue) => {
      for (const s of update(rule)) requeue(this.#rulesOf[s]!);
    });
  }

  #settle(run: (rule: Rule, requeue: (rules: readonly number[]) => void) => void): void {
    const queue = this.#rules.map((_, i) => this.#rules.length - 1 - i);
    const queued = new Uint8Array(this.#rules.length).fill(1);
    const requeue = (rules: readonly number[]): void => {
      for (const j of rules) {
        if (queued[j]) continue;
        queued[j] = 1;
        queue.push(j);
      }
    };
    while (queue.length > 0) {
      const i = queue.pop()!;
      queued[i] = 0;
      run(this.#rules[i]!, requeue);
    }
  }
}

// The states a symbol with per-entry exits `exits` may leave in, entered in any state of `mask`.
function through(exits: Int32Array, mask: number): number {
  let out = 0;
  for (let p = 0; p < exits.length; p++) if (mask & (1 << p)) out |= exits[p]!;
  return out;
}

function rangesOfSet(set: ByteSet): number[] {
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
  used: Uint8Array,
  dfaOf: (t: number) => ExplicitDfa | null,
): boolean {
  const T = lexemes.length;
  // The overlapping pairs first (only terminals that start with a common byte can overlap):
  // most grammars have none, and then FOLLOW over terminals is not needed.
  const budget = { states: MAX_PAIR_STATES };
  const pairs: [number, number][] = [];
  const checked = new Set<number>();
  for (let byte = 0; byte < 256; byte++) {
    const starting = firsts.flatMap((set, t) => (used[t] && has(set, byte) ? [t] : []));
    for (const a of starting) {
      for (const b of starting) {
        if (a === b || checked.has(a * T + b)) continue;
        checked.add(a * T + b);
        if (
          overlaps(
            lexemes[a]!.regex,
            lexemes[b]!.regex,
            () => dfaOf(a),
            () => dfaOf(b),
            budget,
          )
        )
          pairs.push([a, b]);
        if (budget.states < 0) return true;
      }
    }
  }
  if (pairs.length === 0) return false;
  // FIRST and FOLLOW over the terminals of those pairs only.
  const paired = new Set(pairs.flat());
  const symbols = T + names.length;
  const first = Array.from({ length: symbols }, (_, s) => new Set(paired.has(s) ? [s] : []));
  const grow = (into: Set<number>, from: Set<number>): boolean => {
    const size = into.size;
    for (const x of from) into.add(x);
    return into.size > size;
  };
  graph.first(first, derivesEmpty, grow);
  const follow = Array.from({ length: symbols }, () => new Set<number>());
  graph.follow(follow, first, derivesEmpty, grow, (set) => new Set(set));
  const groups = [first[start]!, ...follow.slice(0, T)];
  return pairs.some(([a, b]) => groups.some((group) => group.has(a) && group.has(b)));
}

// The bytes of a literal terminal (one string), or null.
function literalOf(regex: ByteRegex): number[] | null {
  const items = regex.kind === 'seq' ? regex.items : [regex];
  const bytes: number[] = [];
  for (const item of items) {
    if (item.kind !== 'bytes' || item.ranges.length !== 2 || item.ranges[0] !== item.ranges[1]) return null;
    bytes.push(item.ranges[0]!);
  }
  return bytes;
}

// Whether a text of `a` is a prefix of a text of `b` (or it takes too long to tell): literals
// (keywords, punctuation) are compared as strings or walked through the other's automaton.
function overlaps(a: ByteRegex, b: ByteRegex, dfaA: () => ExplicitDfa | null, dfaB: () => ExplicitDfa | null, budget: { states: number }): boolean {
  const [textA, textB] = [literalOf(a), literalOf(b)];
  if (textA !== null && textB !== null) return textA.length <= textB.length && textA.every((byte, i) => byte === textB[i]);
  if (textA !== null) return walk(textA, dfaB(), () => false) !== 'dies';
  if (textB !== null) return walk(textB, dfaA(), (accepting) => accepting) === 'stops';
  const [x, y] = [dfaA(), dfaB()];
  return x === null || y === null || sharesPrefix(x, y, budget);
}

// Feeds `text` to `dfa` until it dies or `stop` holds of a state's acceptance (no automaton: it stops).
function walk(text: readonly number[], dfa: ExplicitDfa | null, stop: (accepting: boolean) => boolean): 'dies' | 'stops' | 'survives' {
  if (dfa === null) return 'stops';
  let state = 0;
  for (const byte of text) {
    state = dfa.rows[state]![byte]!;
    if (state < 0) return 'dies';
    if (stop(dfa.accepting[state]!)) return 'stops';
  }
  return 'survives';
}

// Whether a text `a` accepts is also a prefix of a text of `b` (true when the pairs of states
// explored run past the budget).
function sharesPrefix(a: ExplicitDfa, b: ExplicitDfa, budget: { states: number }): boolean {
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
