/**
 * Which token slices (`TOKEN_SLICES` in @sieve/format) a lexer state accepts whole: reading
 * any token of the slice from the state never kills the lexer nor completes a lazy lexeme,
 * so the token is allowed whatever the parser expects, and the kernel adds the slice (or a
 * subtree of it) without stepping. Exact; what settles it, cheapest first:
 *
 * - an ASCII character that kills the state refuses every slice (the usual answer);
 * - its threads (NFA states; when no lexeme ends lazily, a state lives while one of its
 *   threads does): how many characters each surely lives, found on the graph of threads
 *   one character apart, explored a bounded distance. A thread that can always go on
 *   accepts every slice (inside a JSON string, whatever else the state tracks); one that
 *   lives past the widest bound accepts the bounded slices. States reached from a state
 *   whose life is known inherit it, less the characters read since, so a long counted
 *   string settles in a few steps. A thread of a product with a complement is measured on
 *   its shadow first (`LexerDfa.lifeProxy`: a lower bound on a graph the size of the other
 *   operand, instead of one state per pair);
 * - else a breadth-first search over the lexer states at character boundaries finds how
 *   many characters the shortest killing sequence has: a slice whose tokens are shorter is
 *   accepted. A search that would visit more than MAX_SLICE_STATES states stops there,
 *   refusing what it has not settled.
 *
 * Characters are walked as UTF-8 bytes, one byte standing for each run of bytes the lexer
 * treats alike.
 */
import { TOKEN_SLICES, utf8CharCount, utf8Lead, type TokenSlice } from '@sieve/format';
import { GrammarLimitError } from '../grammar-error.ts';
import { DEAD, type LexerDfa } from './lexer-dfa.ts';
import { SetTable } from './set-table.ts';

/**
 * What one check may explore before it gives up: threads in `threadLives`, and lexer states
 * visited (or built) by the search.
 */
const MAX_SLICE_STATES = 256;
// How many characters further than the widest bound a state's life is looked for.
const LIFE_SLACK = 16;

// The bytes a UTF-8 position allows: any byte at a character boundary (range 0), else the
// continuation byte due (narrower right after E0, ED, F0 and F4).
const RANGES: readonly (readonly [low: number, high: number])[] = [
  [0x00, 0xff],
  [0x80, 0xbf],
  [0xa0, 0xbf],
  [0x80, 0x9f],
  [0x90, 0xbf],
  [0x80, 0x8f],
];
const NO_CUTS = [0x100];
// Per byte from 0x80: continuation bytes due after it as a lead (-1: no lead), the RANGES
// index of the next; and where that changes (ASCII ends at 0x80; 256 ends the list).
const LEAD_DUE = new Int8Array(256);
const LEAD_RANGE = new Int8Array(256);
const LEAD_CUTS = [0x80];
for (let byte = 0x80; byte < 0x100; byte++) {
  const [length, low, high] = utf8Lead(byte);
  LEAD_DUE[byte] = length - 1;
  LEAD_RANGE[byte] = Math.max(
    0,
    RANGES.findIndex(([l, h]) => l === low && h === high),
  );
  if (byte > 0x80 && (LEAD_DUE[byte] !== LEAD_DUE[byte - 1] || LEAD_RANGE[byte] !== LEAD_RANGE[byte - 1])) LEAD_CUTS.push(byte);
}
LEAD_CUTS.push(0x100);

/** Slices with the same characters, checked together (they differ in their bound only). */
interface SliceGroup {
  readonly excluded: ReadonlySet<number>;
  /** Lead-byte and excluded-character cuts, sorted. */
  readonly cuts: readonly number[];
  /** The first ASCII character its slices allow. */
  readonly firstAscii: number;
  /** Its slices' indices, by bound (Infinity: unbounded). */
  readonly slices: readonly { readonly index: number; readonly bound: number }[];
  /** The largest finite bound, and whether one slice is unbounded. */
  readonly widestBound: number;
  readonly unbounded: boolean;
  /** Masks of its bounded slices, and of all its slices. */
  readonly boundedMask: number;
  readonly allMask: number;
}

const bound = (slice: TokenSlice): number => slice.maxChars ?? Infinity;
const GROUPS: readonly SliceGroup[] = [...new Set(TOKEN_SLICES.map((slice) => slice.excludedAscii.join()))].map((key) => {
  const slices = TOKEN_SLICES.flatMap((slice, index) => (slice.excludedAscii.join() === key ? [{ index, bound: bound(slice) }] : []));
  const excludedAscii = TOKEN_SLICES[slices[0]!.index]!.excludedAscii;
  return {
    excluded: new Set(excludedAscii),
    firstAscii: firstAllowedAscii(excludedAscii),
    cuts: [...new Set([...LEAD_CUTS, ...excludedAscii.flatMap((b) => [b, b + 1])])].sort((a, b) => a - b),
    slices: slices.sort((a, b) => a.bound - b.bound),
    widestBound: Math.max(0, ...slices.map((slice) => slice.bound).filter((b) => b < Infinity)),
    unbounded: slices.some((slice) => slice.bound === Infinity),
    boundedMask: slices.reduce((mask, slice) => (slice.bound < Infinity ? mask | (1 << slice.index) : mask), 0),
    allMask: slices.reduce((mask, slice) => mask | (1 << slice.index), 0),
  };
});

/**
 * The most bytes a token of a bounded slice has (4 per character): a counted state whose count
 * is this far below its shape's highest accepts the slices its shape does.
 */
export const SLICE_TICKS_MOST = 4 * Math.max(...GROUPS.map((group) => group.widestBound));

function firstAllowedAscii(excludedAscii: readonly number[]): number {
  for (let byte = 0; byte < 0x80; byte++) if (!excludedAscii.includes(byte)) return byte;
  throw new Error('a token slice must allow some ASCII character');
}

/**
 * A slice mask without the slices a wider accepted slice of the same characters contains:
 * what the kernel needs (a subtree one slice covers, a wider one covers too).
 */
export function widestSlices(mask: number): number {
  let widest = 0;
  for (const group of GROUPS) {
    const accepted = group.slices.filter(({ index }) => (mask & (1 << index)) !== 0);
    if (accepted.length > 0) widest |= 1 << accepted[accepted.length - 1]!.index;
  }
  return widest;
}

/** What the checks remember about one lexer, per slice group. */
interface GroupMemo {
  /** Per state: the states one character on, or KILLS when a character kills it. */
  readonly successors: Map<number, Int32Array | typeof KILLS>;
  /** Per thread: the ids of the thread sets one character on (in `threadSets`), or KILLS. */
  readonly threadSteps: Map<number, Int32Array | typeof KILLS>;
  /** The thread sets met by the thread walk (shared by the groups of one lexer). */
  readonly threadSets: ThreadSets;
  /** Per thread: characters within which nothing kills it, a lower bound (`threadLives`). */
  readonly threadLife: Map<number, number>;
  /** Per state: characters within which nothing kills it (a lower bound). */
  readonly lives: Map<number, number>;
  /** Per state: characters within which some sequence kills it (an upper bound). */
  readonly killWithin: Map<number, number>;
}
const KILLS = null;

/**
 * Thread sets as the thread walk meets them, each distinct set once per lexer (so that the
 * bytes inside characters, shared by many threads' walks, are stepped once), and per set
 * id: its byte cuts (an id in `cutLists`, which holds each distinct list once), and the set
 * after each byte stepped (a run's first byte; -1 when the set is empty), keyed
 * id * 256 + byte in one map (a map per set was thousands of objects for each scavenge to
 * copy).
 */
interface ThreadSets {
  readonly sets: SetTable;
  readonly cuts: number[];
  readonly cutLists: SetTable;
  readonly moves: Map<number, number>;
}

interface LexerMemo {
  readonly masks: Map<number, number>;
  readonly groups: readonly GroupMemo[];
  /** Per state: its length bound on slice 0, or -1 when it has none (`lengthBound`). */
  readonly lengthBounds: Map<number, number>;
}
const memos = new WeakMap<LexerDfa, LexerMemo>();

/**
 * The slices `state` of `lexer` accepts whole (bit i: `TOKEN_SLICES[i]`), memoized. A check
 * that would take the lexer past `maxLexerStates` answers no: it is only an optimization.
 */
export function sliceMask(lexer: LexerDfa, state: number): number {
  const memo = lexerMemo(lexer);
  let mask = memo.masks.get(state);
  if (mask === undefined) {
    mask = 0;
    for (let g = 0; g < GROUPS.length; g++) {
      const group = GROUPS[g]!;
      try {
        // A known length bound settles the group's slices at once: those bounded within it.
        const bound = group === SLICE_ZERO ? (memo.lengthBounds.get(state) ?? -1) : -1;
        mask |= bound >= 0 ? slicesWithin(group, bound) : acceptedSlices(lexer, state, group, memo.groups[g]!);
      } catch (error) {
        if (!(error instanceof GrammarLimitError)) throw error;
      }
    }
    memo.masks.set(state, mask);
  }
  return mask;
}

function lexerMemo(lexer: LexerDfa): LexerMemo {
  let memo = memos.get(lexer);
  if (memo === undefined) {
    const threadSets: ThreadSets = { sets: new SetTable(), cuts: [], cutLists: new SetTable(), moves: new Map() };
    const groups = GROUPS.map(() => ({
      successors: new Map(),
      threadSteps: new Map(),
      threadSets,
      threadLife: new Map(),
      lives: new Map(),
      killWithin: new Map(),
    }));
    memos.set(lexer, (memo = { masks: new Map(), groups, lengthBounds: new Map() }));
  }
  return memo;
}

/** A lexer state's length bound on slice 0 (`sliceLengthBound`). */
export interface SliceLengthBound {
  /** Of slice 0's tokens, the state accepts those of at most this many characters. */
  readonly bound: number;
  /** Its accepted slices hold slice 0's tokens of at most this many characters already. */
  readonly above: number;
}

// Slice 0 (the unbounded one: `vocab-layout.ts` orders its tokens by length) and its group.
const SLICE_ZERO = GROUPS.find((group) => group.slices.some(({ index, bound }) => index === 0 && bound === Infinity));
if (SLICE_ZERO === undefined) throw new Error('token slice 0 must be unbounded');

/**
 * The length bound of `state` on slice 0, when it has one: every string of slice 0's
 * characters with at most `bound` characters is read without the lexer dying or completing
 * a lazy lexeme, and every longer one kills it where no lexeme can end (a state with
 * `maxLength` characters left inside a JSON string). Of slice 0's tokens, the state then
 * accepts exactly those of at most `bound` characters, whatever the parser expects: the
 * kernel adds them by length and skips every subtree slice 0 covers. Null when there is
 * none within the widest bounded slice (past it those slices serve), or when finding it
 * would take too wide a search.
 */
export function sliceLengthBound(lexer: LexerDfa, state: number): SliceLengthBound | null {
  const accepted = sliceMask(lexer, state);
  // A state that accepts the widest bounded slice lives past where a bound is looked for.
  const above = widestBounded(SLICE_ZERO!, accepted);
  if (above >= SLICE_ZERO!.widestBound || (accepted & 1) !== 0) return null;
  const bound = lengthBound(lexer, state, lexerMemo(lexer));
  return bound < 0 ? null : { bound, above };
}

// `sliceLengthBound`'s bound, or -1; memoized, for the states the search passes through
// too (in a counted string, one search settles every position after the first).
function lengthBound(lexer: LexerDfa, state: number, memo: LexerMemo): number {
  let bound = memo.lengthBounds.get(state);
  if (bound === undefined) {
    try {
      bound = findLengthBound(lexer, state, SLICE_ZERO!, memo.lengthBounds);
    } catch (error) {
      if (!(error instanceof GrammarLimitError)) throw error;
      bound = -1;
    }
    memo.lengthBounds.set(state, bound);
  }
  return bound;
}

// Steps one character at a time from `state` while every character leads to one same state
// (a counted string's next position), until every character kills it.
function findLengthBound(lexer: LexerDfa, state: number, group: SliceGroup, known: Map<number, number>): number {
  // One byte on: DEAD where the lexer dies with no lexeme to end (the kernel rejects there),
  // -1 where it would end one or complete a lazy lexeme (no bound then).
  const step = (from: number, byte: number): number => {
    if (from === DEAD) return DEAD;
    const to = lexer.next(from, byte);
    if (to === DEAD) return lexer.winners(from).length > 0 ? -1 : DEAD;
    return lexer.endsLazily(to) ? -1 : to;
  };
  const cuts = (from: number): ArrayLike<number> => (from === DEAD ? NO_CUTS : lexer.byteCuts(from));
  // The states on the way, one per character read: each is settled with the start.
  const path = [state];
  const settled = (bound: number): number => {
    path.forEach((on, chars) => known.set(on, bound < 0 ? -1 : bound - chars));
    return bound;
  };
  const groupCuts = new Set(group.cuts);
  for (let at = state; path.length <= group.widestBound + 1;) {
    // Bytes the lexer tells apart where the characters do not (say, letters from digits):
    // they likely part ways, so no bound is looked for (stepping them builds states).
    if (!lexer.byteCuts(at).every((cut) => cut === 0 || groupCuts.has(cut))) return settled(-1);
    const ends = charSteps(group, at, step, cuts);
    // Some character ends a lexeme, or they part ways: no bound. All die: every string of
    // `path.length - 1` characters lives and every longer one dies.
    if (ends === KILLS || ends.length !== 1) return settled(-1);
    if (ends[0] === DEAD) return settled(path.length - 1);
    at = ends[0]!;
    const after = known.get(at);
    if (after !== undefined) return settled(after < 0 ? -1 : path.length + after);
    if (path.includes(at)) return settled(-1); // a loop never dies
    path.push(at);
  }
  // Alive past the widest bound: the states on the way are nearer to it, still unsettled.
  return -1;
}

// The group's bounded slices of at most `bound` characters.
function slicesWithin(group: SliceGroup, bound: number): number {
  let mask = 0;
  for (const slice of group.slices) if (slice.bound <= bound) mask |= 1 << slice.index;
  return mask;
}

// The widest bound of the group's bounded slices in `mask` (0: none).
function widestBounded(group: SliceGroup, mask: number): number {
  let widest = 0;
  for (const { index, bound } of group.slices) if (bound < Infinity && (mask & (1 << index)) !== 0) widest = Math.max(widest, bound);
  return widest;
}

function acceptedSlices(lexer: LexerDfa, start: number, group: SliceGroup, memo: GroupMemo): number {
  const { unbounded, widestBound } = group;
  if (asciiKills(lexer, start, group)) {
    rememberKill(memo, start, 1);
    return 0;
  }
  let life = 0; // no sequence of fewer characters kills the start
  const threadsDecide = !lexer.hasLazyLexemes;
  if (threadsDecide) {
    // Looking LIFE_SLACK characters past the widest bound, the states reached from here
    // settle themselves from this one for as many characters (`inheritedLife`).
    const horizon = widestBound + 1 + LIFE_SLACK;
    life = inheritedLife(lexer, start, horizon, group, memo);
    if (life <= widestBound) life = Math.max(life, threadLives(lexer, lexer.threads(start), horizon, group, memo));
    memo.lives.set(start, life);
    if (life === Infinity) return group.allMask;
    // Every bounded slice is settled; the search for the unbounded one is not worth it
    // (it only adds the few tokens longer than the widest bound).
    if (life > widestBound) return group.boundedMask;
  }
  // The bounded slices shorter than the start's life (none when the threads do not decide).
  const fromThreads = settledSlices(group, life, Infinity);
  // When one character repeated kills the start as soon as it can die, that settles it.
  if (threadsDecide && life > 0 && repeatedKills(lexer, start, life, group, memo)) return fromThreads;
  const answer = (killAt: number, expandedBelow: number): number => fromThreads | settledSlices(group, killAt, expandedBelow);
  const statesBefore = lexer.stateCount;
  // Breadth-first, one character a step: `depths[i]` characters at least lead to `states[i]`.
  const states = [start];
  const depths = [0];
  const parents = [-1];
  const seen = new Set<number>(states);
  let killAt = Infinity; // some sequence of this many characters kills the start
  let incomplete = false; // some state was left unexpanded
  for (let at = 0; at < states.length; at++) {
    // Every state fewer than `depth` characters away is expanded: the slices bounded by
    // `depth` are settled, and the others too once a kill within depth + 1 refuses them;
    // past the widest bound only the unbounded slice is open, until a kill refuses it.
    const depth = depths[at]!;
    if (killAt <= depth + 1 || (depth >= widestBound && (!unbounded || incomplete || killAt < Infinity))) return answer(killAt, depth);
    const state = states[at]!;
    if (threadsDecide && at > 0) {
      // A state whose threads are known to live long enough is left unexpanded (the
      // unbounded slice then stays open only if they live forever).
      const lives = knownLife(lexer, lexer.threads(state), memo);
      if (lives === Infinity) continue;
      if (depth + lives > widestBound) {
        incomplete = true;
        continue;
      }
    }
    const known = memo.killWithin.get(state);
    if (known !== undefined) killAt = Math.min(killAt, depth + known);
    const next = successors(lexer, state, group, memo);
    if (next === KILLS) {
      killAt = Math.min(killAt, depth + 1);
      // Every state on the way here is that many characters from death, or fewer.
      for (let i = at; i >= 0; i = parents[i]!) rememberKill(memo, states[i]!, depth + 1 - depths[i]!);
      continue;
    }
    for (const target of next) {
      if (seen.has(target)) continue;
      // The search's cost is the lexer states it builds (those inside characters too).
      if (seen.size >= MAX_SLICE_STATES || lexer.stateCount - statesBefore > MAX_SLICE_STATES) return answer(killAt, depth);
      seen.add(target);
      states.push(target);
      depths.push(depth + 1);
      parents.push(at);
    }
  }
  return answer(killAt, incomplete ? widestBound : Infinity);
}

// The slices of `group` a search settled as accepted: no kill within their bound, and
// every state fewer characters away than their bound expanded.
function settledSlices(group: SliceGroup, killAt: number, expandedBelow: number): number {
  let mask = 0;
  for (const { index, bound } of group.slices) {
    const killFree = bound === Infinity ? killAt === Infinity : bound < killAt;
    if (killFree && bound <= expandedBelow) mask |= 1 << index;
  }
  return mask;
}

// The states one character on from `state` (at a character boundary), or KILLS when some
// character's bytes kill the lexer or complete a lazy lexeme on the way; memoized.
function successors(lexer: LexerDfa, state: number, group: SliceGroup, memo: GroupMemo): Int32Array | typeof KILLS {
  let known = memo.successors.get(state);
  if (known === undefined) {
    const targets = charSteps(
      group,
      state,
      (from, byte) => {
        const to = lexer.next(from, byte);
        return kills(lexer, to) ? -1 : to;
      },
      (from) => lexer.byteCuts(from),
    );
    known = targets === KILLS ? KILLS : Int32Array.from(targets);
    memo.successors.set(state, known);
  }
  return known;
}

// Whether reaching `state` fails a slice token: the lexer died or a lazy lexeme ended.
function kills(lexer: LexerDfa, state: number): boolean {
  return state === DEAD || lexer.endsLazily(state);
}

// `state` dies within `within` characters (remembered when closer than known).
function rememberKill(memo: GroupMemo, state: number, within: number): void {
  const before = memo.killWithin.get(state);
  if (before === undefined || within < before) memo.killWithin.set(state, within);
}

// Whether an ASCII character of the group kills `state` (or completes a lazy lexeme).
function asciiKills(lexer: LexerDfa, state: number, group: SliceGroup): boolean {
  const cuts = lexer.byteCuts(state);
  for (let i = 0; cuts[i]! < 0x80; i++) {
    for (let byte = cuts[i]!; byte < Math.min(cuts[i + 1]!, 0x80); byte++) {
      if (group.excluded.has(byte)) continue;
      if (kills(lexer, lexer.next(state, byte))) return true;
      break; // the rest of the run goes the same way
    }
  }
  return false;
}

// Whether reading the group's first ASCII character `chars` times from `state` kills it by
// then; if so, the states on the way are remembered that close to death.
function repeatedKills(lexer: LexerDfa, state: number, chars: number, group: SliceGroup, memo: GroupMemo): boolean {
  const path = [state];
  for (let at = state; path.length <= chars;) {
    at = lexer.next(at, group.firstAscii);
    if (kills(lexer, at)) {
      path.forEach((on, i) => rememberKill(memo, on, path.length - i));
      return true;
    }
    path.push(at);
  }
  return false;
}

// A lower bound on the characters within which nothing kills `state`, from a state it was
// first reached from whose bound is known: that bound less the characters read since (when
// they are characters of the group).
function inheritedLife(lexer: LexerDfa, state: number, horizon: number, group: SliceGroup, memo: GroupMemo): number {
  const path: number[] = []; // bytes read since, last first
  for (let at = state; ;) {
    const origin = lexer.origin(at);
    if (origin === undefined || path.length >= 4 * horizon) return 0; // (4 bytes at most per character)
    path.push(origin[1]);
    at = origin[0];
    const known = memo.lives.get(at);
    if (known === undefined) continue;
    const bytes = Uint8Array.from(path.reverse());
    const chars = utf8CharCount(bytes);
    if (chars < 0 || bytes.some((byte) => group.excluded.has(byte))) return 0;
    return Math.max(0, known - chars);
  }
}

// The most any of `threads` surely lives (Infinity: one lives forever), from the threads
// within `horizon` characters of them, found by exploring that far (at most
// MAX_SLICE_STATES threads) and remembered for every thread explored.
//
// A thread's life is one more than the fewest, over the characters read first, of the most
// any thread after that character lives; a thread that some character kills lives 1, one
// left unexplored at the edge 0 (a lower bound). Values are settled smallest first, like
// shortest paths: a character's successors are settled once all of them are (the last one
// settled having the most), and a thread once the first of its characters is. The threads
// never settled can always go on: for every character one of the next threads is unsettled.
//
// Threads of a product with a complement first stand in by their shadows (`lexer.lifeProxy`),
// whose lives are lower bounds on theirs, found on a much smaller graph: enough when they
// reach the horizon, else the threads themselves are explored too.
function threadLives(lexer: LexerDfa, threads: ArrayLike<number>, horizon: number, group: SliceGroup, memo: GroupMemo): number {
  const known = knownLife(lexer, threads, memo);
  if (known === Infinity) return known;
  const proxies = new Set<number>();
  for (let t = 0; t < threads.length; t++) {
    const proxy = lexer.lifeProxy(threads[t]!);
    if (proxy !== threads[t]) proxies.add(proxy);
  }
  const shadowLife = proxies.size === 0 ? 0 : exploredLives(lexer, [...proxies], horizon, group, memo);
  return shadowLife >= horizon ? shadowLife : Math.max(shadowLife, exploredLives(lexer, threads, horizon, group, memo));
}

function exploredLives(lexer: LexerDfa, threads: ArrayLike<number>, horizon: number, group: SliceGroup, memo: GroupMemo): number {
  // Explore breadth-first: `explored[i]` first found `distance[i]` characters from `threads`.
  const explored = Array.from(threads);
  const index = new Map<number, number>(explored.map((thread, i) => [thread, i]));
  const distance = explored.map(() => 0);
  const sets = memo.threadSets.sets;
  const steps: (Int32Array | typeof KILLS | undefined)[] = [];
  for (let i = 0; i < explored.length; i++) {
    const thread = explored[i]!;
    const life = memo.threadLife.get(thread);
    // Left at the edge: too far, too many, or known to outlive what is asked.
    if (distance[i]! >= horizon || explored.length > MAX_SLICE_STATES || (life !== undefined && life >= horizon - distance[i]!)) continue;
    const next = threadSteps(lexer, thread, group, memo);
    steps[i] = next;
    if (next === KILLS) continue;
    for (const id of next) {
      for (const to of sets.get(id)) {
        if (index.has(to)) continue;
        index.set(to, explored.length);
        explored.push(to);
        distance.push(distance[i]! + 1);
      }
    }
  }
  // Settle smallest first (a bucket per life value).
  const life = explored.map(() => Infinity);
  const buckets: number[][] = [];
  const settle = (i: number, value: number): void => {
    (buckets[value] ??= []).push(i);
  };
  const waiting: number[][] = []; // per explored thread and character: successors not yet settled
  const waitingOn = explored.map((): [thread: number, char: number][] => []);
  explored.forEach((_, i) => {
    const next = steps[i];
    if (next === undefined) {
      // At the edge: what is known of it (forever stays unsettled).
      const known = memo.threadLife.get(explored[i]!) ?? 0;
      if (known !== Infinity) settle(i, Math.min(known, horizon));
    } else if (next === KILLS) settle(i, 1);
    else {
      waiting[i] = Array.from(next, (id, c) => {
        const set = sets.get(id);
        for (const to of set) waitingOn[index.get(to)!]!.push([i, c]);
        return set.length;
      });
    }
  });
  for (let value = 0; value < buckets.length; value++) {
    for (const i of buckets[value] ?? []) {
      if (life[i] !== Infinity) continue;
      life[i] = value;
      for (const [thread, c] of waitingOn[i]!) if (--waiting[thread]![c]! === 0 && life[thread] === Infinity) settle(thread, value + 1);
    }
  }
  let most = 0;
  explored.forEach((thread, i) => {
    const before = memo.threadLife.get(thread) ?? 0;
    if (life[i]! > before) memo.threadLife.set(thread, life[i]!);
    if (i < threads.length) most = Math.max(most, life[i]!, before);
  });
  return most;
}

// The most any of `threads` (or its shadow) is known to live (0 when unknown).
function knownLife(lexer: LexerDfa, threads: ArrayLike<number>, memo: GroupMemo): number {
  let most = 0;
  for (let t = 0; t < threads.length; t++) most = Math.max(most, memo.threadLife.get(threads[t]!) ?? 0, memo.threadLife.get(lexer.lifeProxy(threads[t]!)) ?? 0);
  return most;
}

// The ids of the thread sets one character on from `thread` alone, or KILLS; memoized.
function threadSteps(lexer: LexerDfa, thread: number, group: SliceGroup, memo: GroupMemo): Int32Array | typeof KILLS {
  let known = memo.threadSteps.get(thread);
  if (known === undefined) {
    const { sets, cuts, cutLists, moves } = memo.threadSets;
    const steps = charSteps(
      group,
      threadSet(lexer, Int32Array.of(thread), memo.threadSets),
      (from, byte) => {
        let to = moves.get(from * 256 + byte);
        if (to === undefined) {
          const threads = lexer.stepThreads(sets.get(from), byte);
          moves.set(from * 256 + byte, (to = threads.length === 0 ? -1 : threadSet(lexer, threads, memo.threadSets)));
        }
        return to;
      },
      (from) => cutLists.get(cuts[from]!),
    );
    known = steps === KILLS ? KILLS : Int32Array.from(steps);
    memo.threadSteps.set(thread, known);
  }
  return known;
}

// The id of a set of threads in `known` (added, with its cuts, when new).
function threadSet(lexer: LexerDfa, threads: Int32Array, known: ThreadSets): number {
  let id = known.sets.find(threads);
  if (id < 0) {
    id = known.sets.add(threads);
    known.cuts.push(known.cutLists.intern(Int32Array.from(lexer.threadCuts(threads))));
  }
  return id;
}

/**
 * Walks every character of `group` (its UTF-8 bytes, one byte per run of bytes that `cuts`
 * and the UTF-8 structure treat alike) from `start` with `step`: the distinct places one
 * character on, or KILLS when a step fails (-1) on the way. Places are non-negative integers.
 */
function charSteps(
  group: SliceGroup,
  start: number,
  step: (from: number, byte: number) => number,
  cuts: (from: number) => ArrayLike<number>,
): number[] | typeof KILLS {
  const ends = new Set<number>();
  const midSeen = new Set<number>();
  // Places inside a character, three numbers each: the place, continuation bytes due (0 at
  // a boundary), RANGES index.
  const stack = [start, 0, 0];
  while (stack.length > 0) {
    const range = stack.pop()!;
    const due = stack.pop()!;
    const at = stack.pop()!;
    const [low, high] = RANGES[range]!;
    const stepCuts = cuts(at);
    const charCuts = due === 0 ? group.cuts : NO_CUTS;
    let i = 0;
    let j = 0;
    // One byte per run of bytes between two cuts of either list.
    for (let byte = low; byte <= high;) {
      while (stepCuts[i]! <= byte) i++;
      while (charCuts[j]! <= byte) j++;
      const runEnd = Math.min(stepCuts[i]!, charCuts[j]!, high + 1);
      // What is due after this byte: -1 not a character of the group, 0 a boundary.
      let nextDue: number;
      let nextRange = 1;
      if (due > 0) nextDue = due - 1;
      else if (byte < 0x80) nextDue = group.excluded.has(byte) ? -1 : 0;
      else {
        nextDue = LEAD_DUE[byte]!;
        nextRange = LEAD_RANGE[byte]!;
      }
      if (nextDue >= 0) {
        const to = step(at, byte);
        if (to < 0) return KILLS;
        // (due < 4 and range < 6: five bits)
        const mid = to * 32 + nextDue * 8 + nextRange;
        if (nextDue === 0) ends.add(to);
        else if (!midSeen.has(mid)) {
          midSeen.add(mid);
          stack.push(to, nextDue, nextRange);
        }
      }
      byte = runEnd;
    }
  }
  return [...ends];
}
