/**
 * The Sieve mask index (`.sieve`): a grammar's token automaton for one vocab index, computed
 * ahead of time (`sieve index build`, or the `?sieve` Vite import). With it, a matcher reads
 * each mask instead of computing it.
 *
 * Every reachable matcher state (states are told apart by the kernel's exact mask-cache
 * key) is numbered from 0, the start. Per state the index holds its mask, whether the output
 * is complete there, the bytes the grammar forces next, and where each allowed token leads.
 * A mask is a view of the file (no copy, no decoding); a transition is a binary search over
 * the state's token ranges.
 *
 * All integers are little-endian 32-bit. Sections start at multiples of 8 bytes:
 *
 *   header   MASK_INDEX_HEADER_WORDS words, indices MI_* below
 *   states   stateCount × STATE_WORDS words, indices ST_* below
 *   runs     the masks as BRLE (see brle.ts), EOS never included: a state's mask is
 *            runs[maskAt .. maskAt + maskRuns), summing to tokenCount
 *   ranges   pairs (first token, next state as i32) sorted by first token, a state's first
 *            pair at token 0: pair i covers tokens [first_i, first_{i+1}) (the last one up to
 *            tokenCount). Next state NEXT_REJECTED: not allowed; NEXT_UNINDEXED: allowed, but
 *            the state it leads to is not in the index (the build stopped at its state
 *            budget): the matcher goes on without the index from there.
 *   forced   the forced bytes of every state, back to back
 *   meta     UTF-8 JSON (`MaskIndexMeta`)
 *
 * The vocab fingerprint covers what masks depend on in a vocab index (token bytes and
 * flags); the grammar fingerprint covers the grammar's IR. A matcher only uses an index
 * whose fingerprints equal those of its grammar and vocab index.
 */
import { brleLength, type Brle } from './brle.ts';

/** "SMIX" read as a little-endian u32. */
export const MASK_INDEX_MAGIC = 0x58494d53;
/** Bumped on every incompatible layout change. */
export const MASK_INDEX_VERSION = 1;
export const MASK_INDEX_HEADER_WORDS = 20;
const SECTION_ALIGN = 8;

// Header word indices.
const MI_MAGIC = 0;
const MI_VERSION = 1;
const MI_TOKEN_COUNT = 2;
const MI_STATE_COUNT = 3;
const MI_VOCAB_FINGERPRINT = 4; // two words
const MI_GRAMMAR_FINGERPRINT = 6; // two words
const MI_STATES_AT = 8;
const MI_RUNS_AT = 9;
const MI_RUN_COUNT = 10;
const MI_RANGES_AT = 11;
const MI_RANGE_COUNT = 12;
const MI_FORCED_AT = 13;
const MI_FORCED_LENGTH = 14;
const MI_META_AT = 15;
const MI_META_LENGTH = 16;
const MI_FILE_LENGTH = 17;
const MI_FLAGS = 18;
/** Header flag: every reachable state is in the index. */
const MI_FLAG_COMPLETE = 1;

// State record word indices.
const STATE_WORDS = 8;
const ST_MASK_AT = 0;
const ST_MASK_RUNS = 1;
const ST_RANGES_AT = 2;
const ST_RANGE_COUNT = 3;
const ST_FORCED_AT = 4;
const ST_FORCED_LENGTH = 5;
const ST_FLAGS = 6;
/** State flag: the output is complete here (EOS allowed). */
const STATE_ACCEPTING = 1;

/** Next state of a token the state does not allow. */
export const NEXT_REJECTED = -1;
/** Next state of an allowed token whose state is not in the index. */
export const NEXT_UNINDEXED = -2;

/** Metadata stored with a mask index. */
export interface MaskIndexMeta {
  /** What the grammar is, for people (e.g. `json-schema contact.schema.json`). */
  readonly grammar: string;
  /** The vocab index's tokenizer name. */
  readonly tokenizer: string;
  /** Wall time the build took, in milliseconds. */
  readonly build_ms: number;
}

/** One state, as the writer takes it. */
export interface MaskIndexStateInput {
  /** BRLE over the vocabulary, EOS excluded. */
  readonly mask: Brle;
  readonly accepting: boolean;
  readonly forced: Uint8Array;
  /** Flat (first token, next state) pairs, sorted, the first at token 0. */
  readonly ranges: Int32Array;
}

/** Everything a mask index holds. */
export interface MaskIndexInput {
  readonly tokenCount: number;
  /** 16 hex digits each (see `fingerprint`). */
  readonly vocabFingerprint: string;
  readonly grammarFingerprint: string;
  /** Whether every reachable state is in `states`. */
  readonly complete: boolean;
  readonly states: readonly MaskIndexStateInput[];
  readonly meta: MaskIndexMeta;
}

/** Thrown for bytes that are not a valid mask index. */
export class MaskIndexFormatError extends Error {
  override readonly name = 'MaskIndexFormatError';
  constructor(
    readonly code: 'bad_magic' | 'bad_version' | 'truncated' | 'bad_section' | 'bad_state',
    message: string,
  ) {
    super(message);
  }
}

/** A validated, read-only view of a mask index. */
export class MaskIndex {
  readonly file: Uint8Array;
  readonly tokenCount: number;
  readonly stateCount: number;
  readonly vocabFingerprint: string;
  readonly grammarFingerprint: string;
  /** Whether every reachable state is in the index (else some transitions leave it). */
  readonly complete: boolean;
  readonly meta: MaskIndexMeta;
  readonly #states: Uint32Array;
  readonly #runs: Uint32Array;
  readonly #ranges: Int32Array;
  readonly #forced: Uint8Array;

  /** Checks the whole file: every lookup afterwards stays inside it and is well-formed. */
  constructor(file: Uint8Array) {
    // Typed views need 4-byte alignment.
    if (file.byteOffset % 4 !== 0) file = file.slice();
    this.file = file;
    if (file.byteLength < MASK_INDEX_HEADER_WORDS * 4) throw new MaskIndexFormatError('truncated', 'file is shorter than the mask index header');
    const header = new Uint32Array(file.buffer, file.byteOffset, MASK_INDEX_HEADER_WORDS);
    const word = (i: number): number => header[i]!;
    if (word(MI_MAGIC) !== MASK_INDEX_MAGIC) throw new MaskIndexFormatError('bad_magic', 'not a Sieve mask index (bad magic number)');
    if (word(MI_VERSION) !== MASK_INDEX_VERSION) {
      throw new MaskIndexFormatError(
        'bad_version',
        `mask index version ${word(MI_VERSION)}, this build reads version ${MASK_INDEX_VERSION}: rebuild it with \`sieve index build\``,
      );
    }
    if (word(MI_FILE_LENGTH) !== file.byteLength)
      throw new MaskIndexFormatError('truncated', `header says ${word(MI_FILE_LENGTH)} bytes, file has ${file.byteLength}`);
    const section = <T>(at: number, length: number, make: (buffer: ArrayBufferLike, offset: number, length: number) => T, unit: number): T => {
      if (at % unit !== 0 || at < MASK_INDEX_HEADER_WORDS * 4 || at + length * unit > file.byteLength) {
        throw new MaskIndexFormatError('bad_section', `section at byte ${at} (${length} × ${unit} bytes) is outside the file`);
      }
      return make(file.buffer, file.byteOffset + at, length);
    };
    const u32 = (b: ArrayBufferLike, o: number, n: number): Uint32Array => new Uint32Array(b, o, n);
    this.tokenCount = word(MI_TOKEN_COUNT);
    this.stateCount = word(MI_STATE_COUNT);
    this.vocabFingerprint = hex(word(MI_VOCAB_FINGERPRINT), word(MI_VOCAB_FINGERPRINT + 1));
    this.grammarFingerprint = hex(word(MI_GRAMMAR_FINGERPRINT), word(MI_GRAMMAR_FINGERPRINT + 1));
    this.complete = (word(MI_FLAGS) & MI_FLAG_COMPLETE) !== 0;
    if (this.stateCount === 0) throw new MaskIndexFormatError('bad_state', 'the index has no states');
    this.#states = section(word(MI_STATES_AT), this.stateCount * STATE_WORDS, u32, 4);
    this.#runs = section(word(MI_RUNS_AT), word(MI_RUN_COUNT), u32, 4);
    this.#ranges = section(word(MI_RANGES_AT), 2 * word(MI_RANGE_COUNT), (b, o, n) => new Int32Array(b, o, n), 4);
    this.#forced = section(word(MI_FORCED_AT), word(MI_FORCED_LENGTH), (b, o, n) => new Uint8Array(b, o, n), 1);
    const metaBytes = section(word(MI_META_AT), word(MI_META_LENGTH), (b, o, n) => new Uint8Array(b, o, n), 1);
    try {
      this.meta = JSON.parse(new TextDecoder().decode(metaBytes)) as MaskIndexMeta;
    } catch {
      throw new MaskIndexFormatError('bad_section', 'the metadata is not JSON');
    }
    for (let s = 0; s < this.stateCount; s++) this.#checkState(s);
  }

  /** The state's mask as BRLE (EOS excluded: see `accepting`). A view of the file: do not modify. */
  mask(state: number): Brle {
    const at = state * STATE_WORDS;
    return this.#runs.subarray(this.#states[at + ST_MASK_AT]!, this.#states[at + ST_MASK_AT]! + this.#states[at + ST_MASK_RUNS]!);
  }

  /** Whether the output is complete in this state (EOS allowed). */
  accepting(state: number): boolean {
    return (this.#states[state * STATE_WORDS + ST_FLAGS]! & STATE_ACCEPTING) !== 0;
  }

  /** The bytes the grammar forces next in this state (a view of the file). */
  forced(state: number): Uint8Array {
    const at = state * STATE_WORDS;
    return this.#forced.subarray(this.#states[at + ST_FORCED_AT]!, this.#states[at + ST_FORCED_AT]! + this.#states[at + ST_FORCED_LENGTH]!);
  }

  /**
   * The state after `token` (not EOS): a state number, `NEXT_REJECTED` when the state does
   * not allow the token, or `NEXT_UNINDEXED` when the state it leads to is not indexed.
   */
  next(state: number, token: number): number {
    if (!Number.isInteger(token) || token < 0 || token >= this.tokenCount) return NEXT_REJECTED;
    const ranges = this.#ranges;
    const at = state * STATE_WORDS;
    // The last pair whose first token is at most `token` (the first pair starts at 0).
    let lo = this.#states[at + ST_RANGES_AT]!;
    let hi = lo + this.#states[at + ST_RANGE_COUNT]! - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (ranges[2 * mid]! <= token) lo = mid;
      else hi = mid - 1;
    }
    return ranges[2 * lo + 1]!;
  }

  // Everything lookups rely on: sections in bounds, masks of the right length, ranges sorted
  // from token 0 to known states, and every allowed token (and only those) leading somewhere.
  #checkState(s: number): void {
    const st = this.#states.subarray(s * STATE_WORDS, (s + 1) * STATE_WORDS);
    const bad = (what: string): never => {
      throw new MaskIndexFormatError('bad_state', `state ${s}: ${what}`);
    };
    if (st[ST_MASK_AT]! + st[ST_MASK_RUNS]! > this.#runs.length) bad('its mask is outside the runs section');
    if (st[ST_FORCED_AT]! + st[ST_FORCED_LENGTH]! > this.#forced.length) bad('its forced bytes are outside their section');
    const count = st[ST_RANGE_COUNT]!;
    if (count === 0 || 2 * (st[ST_RANGES_AT]! + count) > this.#ranges.length) bad('its token ranges are outside their section');
    const mask = this.mask(s);
    if (brleLength(mask) !== this.tokenCount) bad(`its mask covers ${brleLength(mask)} tokens, not ${this.tokenCount}`);
    // Walk the mask's runs and the ranges together.
    const ranges = this.#ranges.subarray(2 * st[ST_RANGES_AT]!, 2 * (st[ST_RANGES_AT]! + count));
    if (ranges[0] !== 0) bad('its first token range does not start at token 0');
    let run = 0;
    let runEnd = mask[0]!;
    for (let i = 0; i < count; i++) {
      const from = ranges[2 * i]!;
      const to = i + 1 < count ? ranges[2 * i + 2]! : this.tokenCount;
      const next = ranges[2 * i + 1]!;
      if (!(from < to) || to > this.tokenCount) bad('its token ranges are not sorted');
      if (next !== NEXT_REJECTED && next !== NEXT_UNINDEXED && !(next >= 0 && next < this.stateCount))
        bad(`a token leads to state ${next}, which does not exist`);
      // Every token of the range must be allowed (odd run) or not (even run) alike.
      for (let t = from; t < to;) {
        while (t >= runEnd) runEnd += mask[++run]!;
        if ((run % 2 === 1) !== (next !== NEXT_REJECTED))
          bad(`token ${t} is ${run % 2 === 1 ? 'allowed by its mask but rejected' : 'rejected by its mask but leads somewhere'}`);
        t = runEnd;
      }
    }
  }
}

/** Serializes a mask index. */
export function writeMaskIndex(input: MaskIndexInput): Uint8Array {
  const stateCount = input.states.length;
  const states = new Uint32Array(stateCount * STATE_WORDS);
  let runCount = 0;
  let rangeCount = 0;
  let forcedLength = 0;
  input.states.forEach((state, s) => {
    const at = s * STATE_WORDS;
    states[at + ST_MASK_AT] = runCount;
    states[at + ST_MASK_RUNS] = state.mask.length;
    states[at + ST_RANGES_AT] = rangeCount;
    states[at + ST_RANGE_COUNT] = state.ranges.length / 2;
    states[at + ST_FORCED_AT] = forcedLength;
    states[at + ST_FORCED_LENGTH] = state.forced.length;
    states[at + ST_FLAGS] = state.accepting ? STATE_ACCEPTING : 0;
    runCount += state.mask.length;
    rangeCount += state.ranges.length / 2;
    forcedLength += state.forced.length;
  });
  const runs = new Uint32Array(runCount);
  const ranges = new Int32Array(2 * rangeCount);
  const forced = new Uint8Array(forcedLength);
  input.states.forEach((state, s) => {
    runs.set(state.mask, states[s * STATE_WORDS + ST_MASK_AT]!);
    ranges.set(state.ranges, 2 * states[s * STATE_WORDS + ST_RANGES_AT]!);
    forced.set(state.forced, states[s * STATE_WORDS + ST_FORCED_AT]!);
  });
  const metaBytes = new TextEncoder().encode(JSON.stringify(input.meta));
  const header = new Uint32Array(MASK_INDEX_HEADER_WORDS);
  const parts: [number, Uint8Array][] = [];
  let at = MASK_INDEX_HEADER_WORDS * 4;
  const place = (data: ArrayBufferView): number => {
    at = Math.ceil(at / SECTION_ALIGN) * SECTION_ALIGN;
    const start = at;
    parts.push([start, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)]);
    at += data.byteLength;
    return start;
  };
  header[MI_MAGIC] = MASK_INDEX_MAGIC;
  header[MI_VERSION] = MASK_INDEX_VERSION;
  header[MI_TOKEN_COUNT] = input.tokenCount;
  header[MI_STATE_COUNT] = stateCount;
  header.set(fingerprintWords(input.vocabFingerprint), MI_VOCAB_FINGERPRINT);
  header.set(fingerprintWords(input.grammarFingerprint), MI_GRAMMAR_FINGERPRINT);
  header[MI_STATES_AT] = place(states);
  header[MI_RUNS_AT] = place(runs);
  header[MI_RUN_COUNT] = runCount;
  header[MI_RANGES_AT] = place(ranges);
  header[MI_RANGE_COUNT] = rangeCount;
  header[MI_FORCED_AT] = place(forced);
  header[MI_FORCED_LENGTH] = forcedLength;
  header[MI_META_AT] = place(metaBytes);
  header[MI_META_LENGTH] = metaBytes.length;
  header[MI_FLAGS] = input.complete ? MI_FLAG_COMPLETE : 0;
  const fileLength = Math.ceil(at / SECTION_ALIGN) * SECTION_ALIGN;
  header[MI_FILE_LENGTH] = fileLength;
  const file = new Uint8Array(fileLength);
  file.set(new Uint8Array(header.buffer), 0);
  for (const [start, data] of parts) file.set(data, start);
  return file;
}

/**
 * A 64-bit fingerprint of byte strings, as 16 hex digits: two independent 32-bit
 * multiply-xorshift hashes of the length-prefixed parts. Not cryptographic: it tells apart
 * grammars and vocabularies, it does not resist forgery.
 */
export function fingerprint(parts: readonly Uint8Array[]): string {
  let a = 0x811c9dc5;
  let b = 0x3c6ef372;
  const take = (byte: number): void => {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x5bd1e995);
    b ^= b >>> 15;
  };
  for (const part of parts) {
    const n = part.length;
    for (let shift = 0; shift < 32; shift += 8) take((n >>> shift) & 0xff);
    for (let i = 0; i < n; i++) take(part[i]!);
  }
  // Final avalanche of both halves.
  const finish = (h: number): number => {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  return hex(finish(a), finish(b ^ a));
}

function hex(high: number, low: number): string {
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

function fingerprintWords(fp: string): [number, number] {
  if (!/^[0-9a-f]{16}$/.test(fp)) throw new MaskIndexFormatError('bad_section', `a fingerprint is 16 hex digits, not ${JSON.stringify(fp)}`);
  return [Number.parseInt(fp.slice(0, 8), 16), Number.parseInt(fp.slice(8), 16)];
}
