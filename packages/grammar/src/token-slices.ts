/**
 * Which token slices (`TOKEN_SLICES` in @sieve/format) a lexer state accepts whole: reading
 * any token of the slice from the state never kills the lexer nor completes a lazy lexeme,
 * so the token is allowed whatever the parser expects, and the kernel adds the slice (or a
 * subtree of it) without stepping. Exact: a breadth-first search over every character
 * sequence of the slice as UTF-8 bytes, one byte standing for each run of bytes the lexer
 * treats alike. A search that would visit more than MAX_SLICE_STATES lexer states answers no.
 */
import { TOKEN_SLICES, utf8Lead, type TokenSlice } from '@sieve/format';
import { GrammarLimitError } from './errors.ts';
import { DEAD, type LexerDfa } from './lexer.ts';

/** Most lexer states one slice check may visit before it gives up. */
export const MAX_SLICE_STATES = 256;

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
// Where the kind of a lead byte changes (ASCII, continuation, 2-, 3-, 4-byte leads, and the
// leads whose next byte has a narrower range); 256 ends the list.
const LEAD_CUTS = [0x80, 0xc2, 0xe0, 0xe1, 0xed, 0xee, 0xf0, 0xf1, 0xf4, 0xf5, 0x100];
const NO_CUTS = [0x100];

interface SliceSearch {
  readonly slice: TokenSlice;
  readonly excluded: ReadonlySet<number>;
  /** Lead-byte and excluded-character cuts, sorted. */
  readonly cuts: readonly number[];
  /** Earlier slices (in check order) with the same characters and a smaller bound. */
  readonly shorter: readonly number[];
}

// Slices are checked shortest bound first: when a slice with the same characters and a
// smaller bound is refused, a longer one is too.
const bound = (slice: TokenSlice): number => slice.maxChars ?? Infinity;
const ORDER = TOKEN_SLICES.map((_, i) => i).sort((a, b) => bound(TOKEN_SLICES[a]!) - bound(TOKEN_SLICES[b]!));
const SEARCHES: readonly SliceSearch[] = TOKEN_SLICES.map((slice, i) => {
  if ((slice.maxChars ?? 0) > 15) throw new Error('token slice bounds above 15 characters are not supported by the slice check');
  const sameChars = (other: TokenSlice): boolean => other.excludedAscii.join() === slice.excludedAscii.join();
  return {
    slice,
    excluded: new Set(slice.excludedAscii),
    cuts: [...new Set([...LEAD_CUTS, ...slice.excludedAscii.flatMap((b) => [b, b + 1])])].sort((a, b) => a - b),
    shorter: ORDER.slice(0, ORDER.indexOf(i)).filter((j) => sameChars(TOKEN_SLICES[j]!) && bound(TOKEN_SLICES[j]!) <= bound(slice)),
  };
});

const masks = new WeakMap<LexerDfa, Map<number, number>>();

/**
 * The slices `state` of `lexer` accepts whole (bit i: `TOKEN_SLICES[i]`), memoized. A check
 * that would take the lexer past `maxLexerStates` answers no: it is only an optimization.
 */
export function sliceMask(lexer: LexerDfa, state: number): number {
  let known = masks.get(lexer);
  if (known === undefined) masks.set(lexer, (known = new Map()));
  let mask = known.get(state);
  if (mask === undefined) {
    mask = 0;
    for (const i of ORDER) {
      const search = SEARCHES[i]!;
      if (search.shorter.some((j) => (mask! & (1 << j)) === 0)) continue;
      try {
        if (acceptsSlice(lexer, state, search)) mask |= 1 << i;
      } catch (error) {
        if (!(error instanceof GrammarLimitError)) throw error;
      }
    }
    known.set(state, mask);
  }
  return mask;
}

// Search items packed in one number: lexer state, continuation bytes due (0–3), RANGES
// index (0–5), characters read (0–15, counted only for bounded slices).
const pack = (state: number, due: number, range: number, chars: number): number => ((state * 4 + due) * 8 + range) * 16 + chars;

function acceptsSlice(lexer: LexerDfa, start: number, search: SliceSearch): boolean {
  const maxChars = search.slice.maxChars ?? 0; // 0: unbounded, characters are not counted
  const seen = new Set<number>();
  const states = new Set<number>([start]);
  const queue = [pack(start, 0, 0, 0)];
  for (let at = 0; at < queue.length; at++) {
    const item = queue[at]!;
    const chars = item % 16;
    const range = Math.floor(item / 16) % 8;
    const due = Math.floor(item / 128) % 4;
    const state = Math.floor(item / 512);
    if (due === 0 && maxChars > 0 && chars === maxChars) continue;
    const counted = maxChars > 0 ? chars + 1 : 0;
    const [low, high] = RANGES[range]!;
    const stateCuts = lexer.byteCuts(state);
    const extraCuts = due === 0 ? search.cuts : NO_CUTS;
    let i = 0;
    let j = 0;
    // One byte per run of bytes between two cuts of either list.
    for (let byte = low; byte <= high; ) {
      while (stateCuts[i]! <= byte) i++;
      while (extraCuts[j]! <= byte) j++;
      const runEnd = Math.min(stateCuts[i]!, extraCuts[j]!, high + 1);
      let next: number;
      if (due > 0) next = due === 1 ? pack(0, 0, 0, counted) : pack(0, due - 1, 1, chars);
      else if (byte < 0x80) next = search.excluded.has(byte) ? -1 : pack(0, 0, 0, counted);
      else {
        const [length, lo, hi] = utf8Lead(byte);
        next = length === 0 ? -1 : pack(0, length - 1, RANGES.findIndex(([l, h]) => l === lo && h === hi), chars);
      }
      if (next >= 0) {
        const target = lexer.next(state, byte);
        if (target === DEAD || lexer.endsLazily(target)) return false;
        const key = next + target * 512;
        if (!seen.has(key)) {
          seen.add(key);
          states.add(target);
          if (states.size > MAX_SLICE_STATES) return false;
          queue.push(key);
        }
      }
      byte = runEnd;
    }
  }
  return true;
}
