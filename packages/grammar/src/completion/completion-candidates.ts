/**
 * A shortest way to finish: bytes that complete the output from a matcher's state, found by
 * grammar analysis (the runtime's budget-aware ending needs its length).
 *
 * 1. Symbols: the shortest string of every lexeme (a breadth-first search of its lexer
 *    automaton) and of every nonterminal (a fixed point over its rules, Knuth's
 *    generalisation of Dijkstra), over the part of the grammar reachable from where it is
 *    asked. Lazily expanded states (the permutations JSON objects compile to, one state per
 *    set of members written) would make that part exponential, so they are searched from the
 *    state asked about instead: a shortest path through the states it can go on to, each
 *    edge writing a member, ending at a rule that closes — only states cheaper than the
 *    answer are ever expanded (`MAX_STATE_SEARCH` at most).
 * 2. The chart: for each Earley set j and nonterminal X predicted there, the cheapest way to
 *    finish the whole sentence once X is complete from j — the rest of a parent item, then its
 *    parent's, up to the start rule — a shortest-path problem per set (cached on the set, as
 *    sets never change).
 * 3. The top set: the lexeme in progress finished (a search from its lexer state), the rest of
 *    an item's rule, then its parents.
 *
 * The result is an upper bound, not always the minimum (greedy lexing can join lexemes the
 * analysis keeps apart), so the caller checks it by feeding it to a copy of the matcher.
 */
import type { CompiledGrammar } from '../parser/compile-grammar.ts';
import type { EarleySet } from '../parser/earley.ts';
import { GrammarLimitError } from '../grammar-error.ts';
import { DEAD } from '../lexer/lexer-dfa.ts';

/** Lazily expanded states one search may expand; beyond, the state's strings are unknown. */
export const MAX_STATE_SEARCH = 4096;
// Lexer states one lexeme search may visit.
const MAX_LEXEME_SEARCH = 20_000;

interface SymbolTable {
  /** Per symbol: length of its shortest known string (Infinity when none is known yet). */
  readonly length: number[];
  /** Per nonterminal symbol: the rule giving that string. */
  readonly rule: number[];
  /** Per terminal: its shortest string. */
  readonly lexeme: (Uint8Array | null)[];
  readonly analysed: Set<number>;
  /** Ordinary nonterminals analysed so far (the fixed point runs over them). */
  readonly ordinary: number[];
  /** Lazily expanded states whose search ran (or runs now). */
  readonly searched: Set<number>;
  /** Shortest strings from a lexer state to a lexeme's end, by `state:lexeme`. */
  readonly fromState: Map<string, Uint8Array | null>;
  /** Bumped whenever a length falls: per-set costs computed before are stale. */
  version: number;
}

// Per set: for each nonterminal X predicted there, the cost of finishing once X is complete,
// and the item whose rest pays for it (-1 for the start rule's base case).
interface SetCosts {
  readonly version: number;
  readonly cost: Map<number, number>;
  readonly via: Map<number, { readonly dot: number; readonly origin: number }>;
}

const tables = new WeakMap<CompiledGrammar, SymbolTable>();
const setCosts = new WeakMap<EarleySet, SetCosts>();

/**
 * Bytes that could complete the output from (chart, lexer state, bytes of the lexeme in
 * progress), shortest first: the best way to finish through each item of the top set (at most
 * `max`). Not yet checked against the matcher (greedy lexing can join what the analysis
 * keeps apart, so the caller tries them in turn).
 */
export function completionCandidates(g: CompiledGrammar, chart: readonly EarleySet[], lex: number, lexLen: number, max: number): Uint8Array[] {
  try {
    return candidates(g, chart, lex, lexLen, max);
  } catch (error) {
    if (error instanceof GrammarLimitError) return [];
    throw error;
  }
}

function candidates(g: CompiledGrammar, chart: readonly EarleySet[], lex: number, lexLen: number, max: number): Uint8Array[] {
  const table = symbolTable(g);
  const k = chart.length - 1;
  const top = chart[k]!;
  const startLhs = g.ruleLhs[g.startRule]!;
  ensureSymbols(g, table, itemSymbols(g, top));
  // What finishing item `i` of the top set costs from dotted rule `from` on.
  const itemCost = (i: number, from: number): number => {
    const o = top.origins[i]!;
    const lhs = g.ruleLhs[g.dotRule[top.dots[i]!]!]!;
    const after = lhs === startLhs && o === 0 ? 0 : (costsOf(g, table, chart, o).cost.get(lhs) ?? Infinity);
    return restLength(g, table, from) + after;
  };
  const options: { cost: number; head: Uint8Array; item: number; from: number }[] = [];
  const consider = (head: Uint8Array, item: number, from: number): void => {
    const cost = head.length + itemCost(item, from);
    if (cost < Infinity) options.push({ cost, head, item, from });
  };
  if (lexLen === 0) {
    for (let i = 0; i < top.dots.length; i++) consider(EMPTY, i, top.dots[i]!);
  } else {
    for (let i = 0; i < top.dots.length; i++) {
      const next = g.dotNext[top.dots[i]!]!;
      if (next < 0 || next >= g.terminalCount) continue;
      const head = lexemeFrom(g, table, lex, next);
      if (head !== null) consider(head, i, top.dots[i]! + 1);
    }
    // An ignored lexeme in progress (whitespace) may end, and anything expected follow.
    for (const ignored of g.ignore) {
      const head = lexemeFrom(g, table, lex, ignored);
      if (head !== null) for (let i = 0; i < top.dots.length; i++) consider(head, i, top.dots[i]!);
    }
  }
  options.sort((a, b) => a.cost - b.cost);
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const { head, item, from } of options) {
    const bytes = Array.from(head);
    writeRest(g, table, from, bytes);
    writeAfter(g, table, chart, g.ruleLhs[g.dotRule[top.dots[item]!]!]!, top.origins[item]!, bytes);
    const key = bytes.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(Uint8Array.from(bytes));
    if (out.length >= max) break;
  }
  return out;
}

const EMPTY = new Uint8Array(0);

function symbolTable(g: CompiledGrammar): SymbolTable {
  let table = tables.get(g);
  if (table === undefined) {
    table = { length: [], rule: [], lexeme: [], analysed: new Set(), ordinary: [], searched: new Set(), fromState: new Map(), version: 0 };
    tables.set(g, table);
  }
  return table;
}

function itemSymbols(g: CompiledGrammar, set: EarleySet): number[] {
  const symbols: number[] = [];
  for (let i = 0; i < set.dots.length; i++) for (let d = set.dots[i]!; g.dotNext[d]! >= 0; d++) symbols.push(g.dotNext[d]!);
  return symbols;
}

// Whether `symbol` is a lazily expanded state (a permutation's), searched rather than closed over.
function isLazy(g: CompiledGrammar, symbol: number): boolean {
  if (symbol < g.terminalCount) return false;
  if (g.rulesOf[symbol - g.terminalCount] === null) return true;
  let lazy = lazySets.get(g);
  if (lazy === undefined || lazy.size !== g.expanded.length) lazySets.set(g, (lazy = new Set(g.expanded)));
  return lazy.has(symbol);
}
const lazySets = new WeakMap<CompiledGrammar, Set<number>>();

// Analyses every symbol reachable from `symbols` that is not analysed yet: terminals by their
// automaton, ordinary nonterminals by the fixed point, lazily expanded states by a search.
function ensureSymbols(g: CompiledGrammar, table: SymbolTable, symbols: readonly number[]): void {
  const lazy: number[] = [];
  let fresh = 0;
  const stack = symbols.filter((s) => !table.analysed.has(s));
  while (stack.length > 0) {
    const symbol = stack.pop()!;
    if (table.analysed.has(symbol)) continue;
    table.analysed.add(symbol);
    table.length[symbol] = Infinity;
    if (symbol < g.terminalCount) {
      const bytes = lexemeFrom(g, table, g.lexer.start([symbol]), symbol);
      table.lexeme[symbol] = bytes;
      table.length[symbol] = bytes === null ? Infinity : bytes.length;
      continue;
    }
    if (isLazy(g, symbol)) {
      lazy.push(symbol);
      continue;
    }
    table.ordinary.push(symbol);
    fresh++;
    for (const rule of g.rulesOf[symbol - g.terminalCount]!)
      for (let d = g.ruleDot[rule]!; g.dotNext[d]! >= 0; d++) if (!table.analysed.has(g.dotNext[d]!)) stack.push(g.dotNext[d]!);
  }
  if (fresh > 0) fixedPoint(g, table);
  // A state's search may give lengths the fixed point can use: run it again after them.
  let fell = false;
  for (const state of lazy) fell = searchState(g, table, state) || fell;
  if (fell) fixedPoint(g, table);
}

// Knuth's fixed point over the ordinary nonterminals: lengths only fall, and a rule is taken
// only when strictly shorter, so the chosen rules never loop.
function fixedPoint(g: CompiledGrammar, table: SymbolTable): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const nt of table.ordinary) {
      for (const rule of g.rulesOf[nt - g.terminalCount]!) {
        const length = restLength(g, table, g.ruleDot[rule]!);
        if (length < table.length[nt]!) {
          table.length[nt] = length;
          table.rule[nt] = rule;
          table.version++;
          changed = true;
        }
      }
    }
  }
}

// Dijkstra from a lazily expanded state: an edge is a rule ending in another such state
// (weighing what the rule writes before it), a rule ending otherwise closes. The states on the
// shortest path get their (final) lengths and rules. Returns whether a length fell.
function searchState(g: CompiledGrammar, table: SymbolTable, from: number): boolean {
  if (table.searched.has(from)) return false;
  table.searched.add(from);
  const dist = new Map<number, number>([[from, 0]]);
  const via = new Map<number, { readonly state: number; readonly rule: number }>();
  const done = new Set<number>();
  let best = Infinity;
  let bestEnd: { readonly state: number; readonly rule: number } | null = null;
  for (let expanded = 0; expanded < MAX_STATE_SEARCH; expanded++) {
    let state = -1;
    let d = Infinity;
    for (const [s, v] of dist) if (!done.has(s) && v < d) [state, d] = [s, v];
    if (state < 0 || d >= best) break;
    done.add(state);
    // A state known from an earlier search ends here at its length.
    if (state !== from && table.searched.has(state) && table.length[state]! < Infinity) {
      if (d + table.length[state]! < best) [best, bestEnd] = [d + table.length[state]!, { state, rule: -1 }];
      continue;
    }
    for (const rule of rulesOf(g, state)) {
      let last = g.ruleDot[rule]!;
      while (g.dotNext[last]! >= 0) last++;
      const tail = last > g.ruleDot[rule]! ? g.dotNext[last - 1]! : -1;
      const next = tail >= 0 && isLazy(g, tail) ? tail : -1;
      const end = next >= 0 ? last - 1 : last;
      const written: number[] = [];
      for (let dot = g.ruleDot[rule]!; dot < end; dot++) written.push(g.dotNext[dot]!);
      ensureSymbols(
        g,
        table,
        written.filter((s) => !table.analysed.has(s)),
      );
      let weight = 0;
      for (const symbol of written) weight += table.length[symbol] ?? Infinity;
      if (weight === Infinity) continue;
      if (next < 0) {
        if (d + weight < best) [best, bestEnd] = [d + weight, { state, rule }];
      } else if (d + weight < (dist.get(next) ?? Infinity)) {
        dist.set(next, d + weight);
        via.set(next, { state, rule });
      }
    }
  }
  if (bestEnd === null) return false;
  // Walk the path back: each state's length is what is left of the best from it.
  const path: { state: number; rule: number }[] = [];
  for (let at: { state: number; rule: number } | undefined = bestEnd; at !== undefined; at = via.get(at.state)) path.push(at);
  let fell = false;
  for (const { state, rule } of path) {
    if (rule < 0) continue; // ends at a state already known
    const length = best - dist.get(state)!;
    if (length < (table.length[state] ?? Infinity)) {
      table.length[state] = length;
      table.rule[state] = rule;
      table.version++;
      fell = true;
    }
  }
  return fell;
}

function rulesOf(g: CompiledGrammar, symbol: number): readonly number[] {
  return g.rulesOf[symbol - g.terminalCount] ?? g.expand(symbol);
}

// Length of the shortest string of the symbols from dotted rule `dot` to the rule's end.
function restLength(g: CompiledGrammar, table: SymbolTable, dot: number): number {
  let total = 0;
  for (let d = dot; g.dotNext[d]! >= 0; d++) total += table.length[g.dotNext[d]!] ?? Infinity;
  return total;
}

function writeRest(g: CompiledGrammar, table: SymbolTable, dot: number, out: number[]): void {
  for (let d = dot; g.dotNext[d]! >= 0; d++) writeSymbol(g, table, g.dotNext[d]!, out);
}

function writeSymbol(g: CompiledGrammar, table: SymbolTable, symbol: number, out: number[]): void {
  if (symbol < g.terminalCount) {
    for (const b of table.lexeme[symbol]!) out.push(b);
    return;
  }
  writeRest(g, table, g.ruleDot[table.rule[symbol]!]!, out);
}

// The shortest bytes taking lexer state `from` to a state where `lexeme` wins, or null.
function lexemeFrom(g: CompiledGrammar, table: SymbolTable, from: number, lexeme: number): Uint8Array | null {
  const key = `${from}:${lexeme}`;
  if (table.fromState.has(key)) return table.fromState.get(key)!;
  const lexer = g.lexer;
  const parent = new Map<number, { readonly state: number; readonly byte: number }>([[from, { state: -1, byte: -1 }]]);
  let found = -1;
  for (let queue = [from], at = 0; at < queue.length && found < 0 && parent.size <= MAX_LEXEME_SEARCH; at++) {
    const state = queue[at]!;
    if (lexer.winners(state).includes(lexeme)) {
      found = state;
      break;
    }
    const row = lexer.row(state);
    for (const byte of BYTE_ORDER) {
      const next = row[byte]!;
      if (next === DEAD || parent.has(next)) continue;
      parent.set(next, { state, byte });
      queue.push(next);
    }
  }
  let bytes: Uint8Array | null = null;
  if (found >= 0) {
    const reversed: number[] = [];
    for (let s = found; s !== from; s = parent.get(s)!.state) reversed.push(parent.get(s)!.byte);
    bytes = Uint8Array.from(reversed.reverse());
  }
  table.fromState.set(key, bytes);
  return bytes;
}

// Letters and digits first, then other printable ASCII, then the rest: readable completions.
const BYTE_ORDER: readonly number[] = (() => {
  const order: number[] = [];
  const add = (lo: number, hi: number): void => {
    for (let b = lo; b <= hi; b++) if (!order.includes(b)) order.push(b);
  };
  add(0x61, 0x7a);
  add(0x30, 0x39);
  add(0x20, 0x7e);
  add(0, 255);
  return order;
})();

// Cheapest finish of the sentence once each nonterminal predicted in set j is complete.
function costsOf(g: CompiledGrammar, table: SymbolTable, chart: readonly EarleySet[], j: number): SetCosts {
  const set = chart[j]!;
  const known = setCosts.get(set);
  if (known !== undefined && known.version === table.version) return known;
  ensureSymbols(g, table, itemSymbols(g, set));
  const startLhs = g.ruleLhs[g.startRule]!;
  const cost = new Map<number, number>();
  const via = new Map<number, { dot: number; origin: number }>();
  // Items born in this set (origin j) link their lhs to the nonterminal after their dot.
  const local = new Map<number, number[]>();
  const relax = (symbol: number, value: number, dot: number, origin: number): boolean => {
    if (!(value < (cost.get(symbol) ?? Infinity))) return false;
    cost.set(symbol, value);
    via.set(symbol, { dot, origin });
    return true;
  };
  for (let i = 0; i < set.dots.length; i++) {
    const d = set.dots[i]!;
    const next = g.dotNext[d]!;
    if (next < g.terminalCount) continue;
    const o = set.origins[i]!;
    const lhs = g.ruleLhs[g.dotRule[d]!]!;
    const tail = restLength(g, table, d + 1);
    if (lhs === startLhs && o === 0) relax(next, tail, d, o);
    else if (o < j) relax(next, tail + (costsOf(g, table, chart, o).cost.get(lhs) ?? Infinity), d, o);
    else {
      let list = local.get(lhs);
      if (list === undefined) local.set(lhs, (list = []));
      list.push(i);
    }
  }
  // Dijkstra over the local links (costs are lengths, never negative).
  const done = new Set<number>();
  for (;;) {
    let symbol = -1;
    let value = Infinity;
    for (const [s, c] of cost) if (!done.has(s) && c < value) [symbol, value] = [s, c];
    if (symbol < 0) break;
    done.add(symbol);
    for (const i of local.get(symbol) ?? []) {
      const d = set.dots[i]!;
      relax(g.dotNext[d]!, value + restLength(g, table, d + 1), d, j);
    }
  }
  const result = { version: table.version, cost, via };
  setCosts.set(set, result);
  return result;
}

// Writes the cheapest finish after nonterminal `symbol` completes from set `j`.
function writeAfter(g: CompiledGrammar, table: SymbolTable, chart: readonly EarleySet[], symbol: number, j: number, out: number[]): void {
  const startLhs = g.ruleLhs[g.startRule]!;
  for (;;) {
    if (symbol === startLhs && j === 0) return;
    const step = costsOf(g, table, chart, j).via.get(symbol);
    if (step === undefined) return;
    writeRest(g, table, step.dot + 1, out);
    symbol = g.ruleLhs[g.dotRule[step.dot]!]!;
    j = step.origin;
  }
}
