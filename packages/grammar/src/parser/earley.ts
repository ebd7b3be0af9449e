/**
 * Earley parser over lexeme terminals (any CFG: left recursion, ambiguity and ε-rules are
 * fine). The chart is a list of immutable sets, one per lexeme boundary, so rolling back is
 * truncating the list and forking is copying it.
 */
import type { CompiledGrammar } from './compile-grammar.ts';
import { GrammarLimitError } from '../grammar-error.ts';

/** One closed Earley set. */
export interface EarleySet {
  /** Items as parallel arrays: dotted rule and origin set index. */
  readonly dots: Int32Array;
  readonly origins: Int32Array;
  /** Item indices grouped by the symbol after their dot. */
  readonly waiting: ReadonlyMap<number, Int32Array>;
  /** Terminals (lexeme indices) some item can scan next, sorted. */
  readonly expected: Int32Array;
  /** Whether the start rule is complete here (the input so far is a sentence). */
  readonly accepting: boolean;
}

/** The initial set: predictions of the start rule. */
export function initialSet(g: CompiledGrammar): EarleySet {
  return closeSet(g, [], 0, [g.ruleDot[g.startRule]!], [0]);
}

/**
 * The set after scanning any of `terminals` (sorted) from the last set of `chart`, or null
 * if no item can scan them.
 */
export function scanSet(g: CompiledGrammar, chart: readonly EarleySet[], terminals: ArrayLike<number>): EarleySet | null {
  const k = chart.length - 1;
  const last = chart[k]!;
  const dots: number[] = [];
  const origins: number[] = [];
  for (let t = 0; t < terminals.length; t++) {
    const items = last.waiting.get(terminals[t]!);
    if (items === undefined) continue;
    for (const i of items) {
      dots.push(last.dots[i]! + 1);
      origins.push(last.origins[i]!);
    }
  }
  return dots.length === 0 ? null : closeSet(g, chart, k + 1, dots, origins);
}

function closeSet(g: CompiledGrammar, chart: readonly EarleySet[], k: number, seedDots: number[], seedOrigins: number[]): EarleySet {
  const dots: number[] = [];
  const origins: number[] = [];
  const seen = new Set<number>();
  const predicted = new Set<number>();
  const expected = new Set<number>();
  const limit = g.limits.maxParserItems;
  const add = (d: number, o: number): void => {
    const key = d * (k + 1) + o;
    if (seen.has(key)) return;
    seen.add(key);
    if (dots.length >= limit) {
      throw new GrammarLimitError(
        'maxParserItems',
        limit,
        `a parser step needs more than ${limit} Earley items (maxParserItems); the grammar is too ambiguous here`,
      );
    }
    dots.push(d);
    origins.push(o);
  };
  for (let i = 0; i < seedDots.length; i++) add(seedDots[i]!, seedOrigins[i]!);

  for (let i = 0; i < dots.length; i++) {
    const d = dots[i]!;
    const o = origins[i]!;
    const next = g.dotNext[d]!;
    if (next < 0) {
      // Complete. Completions of ε-derivations (o === k) are covered by advancing over
      // nullable nonterminals at prediction time (Aycock & Horspool).
      if (o === k) continue;
      const lhs = g.ruleLhs[g.dotRule[d]!]!;
      const origin = chart[o]!;
      const parents = origin.waiting.get(lhs);
      if (parents !== undefined) for (const p of parents) add(origin.dots[p]! + 1, origin.origins[p]!);
    } else if (next >= g.terminalCount) {
      const nt = next - g.terminalCount;
      if (!predicted.has(nt)) {
        predicted.add(nt);
        for (const r of g.rulesOf[nt] ?? g.expand(next)) add(g.ruleDot[r]!, k);
      }
      if (g.nullable[nt]) add(d + 1, o);
    } else {
      expected.add(next);
    }
  }

  const groups = new Map<number, number[]>();
  let accepting = false;
  const startDone = g.ruleDot[g.startRule]! + 1;
  for (let i = 0; i < dots.length; i++) {
    const next = g.dotNext[dots[i]!]!;
    if (next >= 0) {
      let group = groups.get(next);
      if (group === undefined) groups.set(next, (group = []));
      group.push(i);
    } else if (dots[i] === startDone && origins[i] === 0) {
      accepting = true;
    }
  }
  const waiting = new Map<number, Int32Array>();
  for (const [symbol, items] of groups) waiting.set(symbol, Int32Array.from(items));
  return {
    dots: Int32Array.from(dots),
    origins: Int32Array.from(origins),
    waiting,
    expected: Int32Array.from([...expected].sort((a, b) => a - b)),
    accepting,
  };
}
