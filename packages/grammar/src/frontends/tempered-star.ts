/**
 * A repetition with no upper count whose iterations start with lookaheads, such as the
 * "tempered" token of `^((?!mode).)*$` (text that never contains `mode`): its texts followed
 * by a text of `rest` are L = rest ∪ (A ∩ B·L), where B is what one iteration reads and A the
 * condition its lookaheads put on the text from where it starts to the end. Copies cannot
 * build that (each would read the text after it), so it is built as one DFA, by subset
 * construction over threads: a thread reads B (or, once the repetition is over, `rest`) and
 * carries the conditions of the iterations it started, each the state of A's DFA on the text
 * read since; a thread dies when its part or one of its conditions can no longer match, drops
 * a condition that holds whatever follows, and accepts where `rest` does and every condition
 * it carries holds.
 */
import { nonEmpty, type ByteAutomaton, type ByteRegex } from '../ir/byte-regex.ts';
import { DEAD, LexerDfa } from '../lexer/lexer-dfa.ts';
import { DEFAULT_LIMITS } from '../limits.ts';

/** The DFA of L (see above), or null past `maxStates` states. */
export function temperedStar(body: ByteRegex, condition: ByteRegex, rest: ByteRegex, maxStates: number): ByteAutomaton | null {
  const iteration = new Part(nonEmpty(body));
  const holds = new Part(condition);
  const after = new Part(rest);
  // A thread: whether it reads `rest`, its state there or in B, and its conditions (sorted).
  interface Thread {
    readonly inRest: boolean;
    readonly at: number;
    readonly checks: readonly number[];
  }
  const keyOf = (t: Thread): string => `${t.inRest ? 'r' : 'b'}${t.at}:${t.checks.join(',')}`;
  const withCheck = (checks: readonly number[], check: number): number[] => (checks.includes(check) ? [...checks] : [...checks, check].sort((x, y) => x - y));
  // Where an iteration may start: one more (its condition from here on), or the rest.
  const starts = (checks: readonly number[]): Thread[] => {
    const threads: Thread[] = [];
    if (iteration.start !== DEAD && holds.start !== DEAD)
      threads.push({ inRest: false, at: iteration.start, checks: holds.always(holds.start) ? checks : withCheck(checks, holds.start) });
    if (after.start !== DEAD) threads.push({ inRest: true, at: after.start, checks });
    return threads;
  };
  // The threads with those that start where an iteration ends, as a sorted set.
  const close = (threads: Thread[]): Thread[] => {
    const found = new Map<string, Thread>();
    for (const stack = [...threads]; stack.length > 0;) {
      const thread = stack.pop()!;
      const key = keyOf(thread);
      if (found.has(key)) continue;
      found.set(key, thread);
      if (!thread.inRest && iteration.accepts(thread.at)) stack.push(...starts(thread.checks));
    }
    return [...found.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, t]) => t);
  };
  const step = (thread: Thread, byte: number): Thread | undefined => {
    const at = (thread.inRest ? after : iteration).next(thread.at, byte);
    if (at === DEAD) return undefined;
    const checks: number[] = [];
    for (const check of thread.checks) {
      const next = holds.next(check, byte);
      if (next === DEAD) return undefined;
      if (!holds.always(next) && !checks.includes(next)) checks.push(next);
    }
    return { inRest: thread.inRest, at, checks: checks.sort((x, y) => x - y) };
  };
  const ids = new Map<string, number>();
  const sets: Thread[][] = [];
  const idOf = (threads: Thread[]): number => {
    const key = threads.map(keyOf).join('|');
    let id = ids.get(key);
    if (id === undefined) {
      ids.set(key, (id = sets.length));
      sets.push(threads);
    }
    return id;
  };
  idOf(close(starts([])));
  const edges: number[][] = [];
  const accepting: boolean[] = [];
  for (let id = 0; id < sets.length; id++) {
    if (sets.length > maxStates) return null;
    const threads = sets[id]!;
    accepting.push(threads.some((t) => t.inRest && after.accepts(t.at) && t.checks.every((c) => holds.accepts(c))));
    const list: number[] = [];
    let runStart = 0;
    let runTarget = -1;
    // One step per run of bytes every part treats alike (runs start at the parts' cuts).
    const cuts = new Set<number>([0, 256]);
    for (const t of threads) {
      for (const cut of (t.inRest ? after : iteration).cuts(t.at)) cuts.add(cut);
      for (const check of t.checks) for (const cut of holds.cuts(check)) cuts.add(cut);
    }
    const bounds = [...cuts].sort((x, y) => x - y);
    for (let r = 0; r < bounds.length; r++) {
      const byte = bounds[r]!;
      let target = -1;
      if (byte < 256) {
        const next = close(threads.flatMap((t) => step(t, byte) ?? []));
        if (next.length > 0) target = idOf(next);
      }
      if (target !== runTarget || byte === 256) {
        if (runTarget >= 0) list.push(runStart, byte - 1, runTarget);
        runStart = byte;
        runTarget = target;
      }
    }
    edges.push(list);
  }
  return { edges, accepting };
}

// One regex as a lazily built DFA (dead ends pruned: a live state can still match).
class Part {
  readonly #dfa: LexerDfa;
  readonly start: number;
  readonly #always = new Map<number, boolean>();

  constructor(regex: ByteRegex) {
    this.#dfa = new LexerDfa([{ name: 'part', regex }], [], DEFAULT_LIMITS);
    this.start = this.#dfa.start([0]);
  }

  next(state: number, byte: number): number {
    return state === DEAD ? DEAD : this.#dfa.next(state, byte);
  }

  // Where the bytes `state` reads change course (sorted; 0 and 256 included).
  cuts(state: number): Iterable<number> {
    return state === DEAD ? [0, 256] : this.#dfa.byteCuts(state);
  }

  accepts(state: number): boolean {
    return state !== DEAD && this.#dfa.accepting(state).length > 0;
  }

  // Whether every text from `state` on matches: it accepts and every byte keeps it there.
  always(state: number): boolean {
    let known = this.#always.get(state);
    if (known === undefined) {
      known = this.accepts(state);
      for (let byte = 0; known && byte < 256; byte++) known = this.next(state, byte) === state;
      this.#always.set(state, known);
    }
    return known;
  }
}
