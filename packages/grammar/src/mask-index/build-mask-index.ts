/**
 * The ahead-of-time mask index: `buildMaskIndex` walks every matcher state a grammar can
 * reach over a vocabulary (breadth first, states told apart by the kernel's exact
 * mask-cache key) and records each state's mask and transitions (format: @sieve/format's
 * mask-index.ts); `IndexedMatcher` then serves masks by reading them, and falls back to the
 * live kernel matcher only where the index does not reach.
 */
import {
  bitsetPut,
  bitsetHas,
  brleFromBitset,
  brleLength,
  brleToBitset,
  fingerprint,
  MaskIndex,
  NEXT_REJECTED,
  NEXT_UNINDEXED,
  writeMaskIndex,
  type Brle,
  type MaskIndexStateInput,
  type VocabIndex,
} from '@sieve/format';
import type { Kernel, KernelVocab } from '@sieve/kernel';
import type { CompiledGrammar } from '../parser/compile-grammar.ts';
import type { GrammarIR } from '../ir/grammar-ir.ts';
import { KernelGrammar, KernelMatcher } from '../matcher/kernel-matcher.ts';
import { compileGrammar } from '../parser/compile-grammar.ts';
import { GrammarError } from '../grammar-error.ts';
import { checkByteCap, checkRollback, forcedTokensOf, type ForcedContinuation, type TokenMatcher } from '../matcher/reference-matcher.ts';
import { MaskIndexMismatchError } from './mask-index-mismatch-error.ts';

/**
 * A fingerprint of what a grammar's IR means (spans and origins, which only place error
 * messages, left out): mask indexes record it, and a matcher checks it before using one.
 */
export function grammarFingerprint(ir: GrammarIR): string {
  // A Merkle hash: each object hashed once from its children's hashes, so parts the IR shares
  // (a schema's item grammar used in many places) cost once, not once per use.
  const encoder = new TextEncoder();
  const hashes = new Map<object, string>();
  const hashOf = (value: unknown): string => {
    if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `"${value}"`;
    if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
    let hash = hashes.get(value);
    if (hash === undefined) {
      const parts =
        value instanceof Map
          ? [...(value as Map<unknown, unknown>).entries()].map(([k, v]) => `${hashOf(k)}=${hashOf(v)}`)
          : Array.isArray(value)
            ? value.map(hashOf)
            : Object.entries(value)
                .filter(([k, v]) => v !== undefined && !UNHASHED.has(k))
                .map(([k, v]) => `${JSON.stringify(k)}:${hashOf(v)}`);
      hash = fingerprint([encoder.encode(`${value instanceof Map ? 'M' : Array.isArray(value) ? 'A' : 'O'}(${parts.join(',')})`)]);
      hashes.set(value, hash);
    }
    return hash;
  };
  return hashOf(ir);
}

// Where things came from, not what they are: left out of the fingerprint.
const UNHASHED = new Set(['span', 'ruleSpans', 'origin']);

/** Options of `buildMaskIndex`. */
export interface MaskIndexBuildOptions {
  /**
   * Most states to index (default 50,000). A grammar with more reachable states (or
   * infinitely many: recursion) gets an incomplete index: tokens leading out of it are
   * marked, and a matcher continues from them without the index.
   */
  readonly maxStates?: number;
  /** What the grammar is, stored in the index's metadata. */
  readonly description?: string;
  /** Called after each state is done, with the states indexed and found so far. */
  readonly onProgress?: (done: number, found: number) => void;
}

/** What `buildMaskIndex` made. */
export interface BuiltMaskIndex {
  readonly file: Uint8Array;
  readonly index: MaskIndex;
  readonly stateCount: number;
  /** Whether every reachable state is indexed. */
  readonly complete: boolean;
  readonly buildMs: number;
}

/** Bytes of mask cache the build's grammar gets: state keys must stay comparable for the whole walk. */
const BUILD_CACHE_BYTES = 512 * 1024 * 1024;

/**
 * Builds the mask index of `grammar` over `vocab` (loaded in `kernel` from `vocabIndex`).
 * Exact by construction: every mask and transition comes from the kernel matcher itself.
 */
export function buildMaskIndex(
  grammar: CompiledGrammar,
  kernel: Kernel,
  vocab: KernelVocab,
  vocabIndex: VocabIndex,
  options: MaskIndexBuildOptions = {},
): BuiltMaskIndex {
  const started = performance.now();
  if (grammar.ir.uniqueArrays !== undefined) {
    throw new GrammarError(
      'unsupported',
      'no mask index for a grammar whose masks depend on the items written (uniqueItems kept while matching): use it without one',
    );
  }
  const maxStates = options.maxStates ?? 50_000;
  if (!(Number.isInteger(maxStates) && maxStates >= 1)) throw new RangeError(`maxStates must be a positive integer, not ${maxStates}`);
  // A private copy with a cache big enough that state keys never expire during the walk.
  const own = compileGrammar(grammar.ir, { ...grammar.limits, maskCacheBytes: BUILD_CACHE_BYTES });
  const loaded = new KernelGrammar(kernel, own);
  try {
    const matcher = new KernelMatcher(loaded, vocab, { eosTokenIds: [] });
    const keys = new Map<string, number>();
    // Per state: the state it was found from and the token that led there (paths replay).
    const parent: number[] = [-1];
    const via: number[] = [-1];
    const firstKey = matcher.stateKey();
    if (firstKey === null) throw new Error('internal: the start state has no key');
    keys.set(firstKey.key, 0);
    const epoch = firstKey.epoch;
    const states: MaskIndexStateInput[] = [];
    let complete = true;
    let path: number[] = []; // tokens committed on the matcher now
    for (let s = 0; s < parent.length; s++) {
      path = moveTo(matcher, path, pathOf(s, parent, via));
      const bits = matcher.computeMaskBitset();
      const mask = brleFromBitset(bits, vocab.tokenCount);
      const ranges: number[] = [];
      const push = (token: number, next: number): void => {
        if (ranges.length === 0 || ranges[ranges.length - 1] !== next) ranges.push(token, next);
      };
      for (let token = 0; token < vocab.tokenCount; token++) {
        if (!bitsetHas(bits, token)) {
          push(token, NEXT_REJECTED);
          continue;
        }
        if (!matcher.commitToken(token)) throw new Error(`internal: token ${token} is in the mask of state ${s} but not accepted`);
        const found = matcher.stateKey();
        if (found === null || found.epoch !== epoch) throw new Error('internal: the matcher state lost its key during the index build');
        let next = keys.get(found.key);
        if (next === undefined) {
          if (parent.length < maxStates) {
            next = parent.length;
            keys.set(found.key, next);
            parent.push(s);
            via.push(token);
          } else {
            next = NEXT_UNINDEXED;
            complete = false;
          }
        }
        matcher.rollback(1);
        push(token, next);
      }
      states.push({ mask, accepting: matcher.isAccepting(), forced: matcher.forcedBytes(FORCED_CAP), ranges: Int32Array.from(ranges) });
      options.onProgress?.(s + 1, parent.length);
    }
    matcher.dispose();
    const buildMs = performance.now() - started;
    const file = writeMaskIndex({
      tokenCount: vocab.tokenCount,
      vocabFingerprint: vocabIndex.fingerprint,
      grammarFingerprint: grammarFingerprint(grammar.ir),
      complete,
      states,
      meta: { grammar: options.description ?? '', tokenizer: vocabIndex.meta.name, build_ms: Math.round(buildMs) },
    });
    return { file, index: new MaskIndex(file), stateCount: states.length, complete, buildMs };
  } finally {
    loaded.dispose();
  }
}

// The tokens from the start to state `s`.
function pathOf(s: number, parent: readonly number[], via: readonly number[]): number[] {
  const path: number[] = [];
  for (let at = s; at > 0; at = parent[at]!) path.push(via[at]!);
  return path.reverse();
}

// Moves the matcher from `from` to `to` (token paths from the start): rolls back to their
// common prefix and commits the rest.
function moveTo(matcher: KernelMatcher, from: readonly number[], to: number[]): number[] {
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  matcher.rollback(from.length - common);
  for (let i = common; i < to.length; i++) {
    if (!matcher.commitToken(to[i]!)) throw new Error('internal: a recorded path no longer commits');
  }
  return to;
}

/**
 * Checks that `index` was built for `grammar` and `vocab` (those given); throws
 * `MaskIndexMismatchError` saying which differs.
 */
export function checkMaskIndex(index: MaskIndex, against: { readonly grammar?: CompiledGrammar; readonly vocab?: VocabIndex }): void {
  const { grammar, vocab: vocabIndex } = against;
  if (vocabIndex !== undefined && (index.vocabFingerprint !== vocabIndex.fingerprint || index.tokenCount !== vocabIndex.tokenCount)) {
    throw new MaskIndexMismatchError(
      'vocab',
      `the mask index was built for another vocabulary (tokenizer ${JSON.stringify(index.meta.tokenizer)}, ${index.tokenCount} tokens; this one is ${JSON.stringify(vocabIndex.meta.name)}, ${vocabIndex.tokenCount} tokens): rebuild it for this tokenizer`,
    );
  }
  if (grammar !== undefined && index.grammarFingerprint !== grammarFingerprint(grammar.ir)) {
    throw new MaskIndexMismatchError(
      'grammar',
      `the mask index was built for another grammar${index.meta.grammar === '' ? '' : ` (${index.meta.grammar})`}: rebuild it after changing the grammar or its options`,
    );
  }
}

// Most forced bytes stored per state.
const FORCED_CAP = 4096;

// Trail entries that are not index states.
const OFF_INDEX = -1;
const FINISHED = -2;

/**
 * A matcher that reads masks from a mask index while the output stays in indexed states,
 * and otherwise (bytes fed directly, or a token leading out of an incomplete index) hands
 * over to a live kernel matcher, made then by replaying what was committed. Same API and
 * same answers as `KernelMatcher`.
 */
export class IndexedMatcher implements TokenMatcher {
  readonly #index: MaskIndex;
  readonly #makeLive: () => KernelMatcher;
  readonly #eos: readonly number[];
  // The index state after the start and after each token (OFF_INDEX, FINISHED otherwise).
  #trail: number[];
  // What was committed, in order, for replay: token ids, and bytes fed directly.
  #committed: (number | Uint8Array)[];
  // Length of #committed before each token.
  #marks: number[];
  #live: KernelMatcher | null;

  /** `makeLive` makes a live matcher at the start of the same grammar (with the same EOS ids). */
  constructor(index: MaskIndex, makeLive: () => KernelMatcher, eosTokenIds: readonly number[], from?: IndexedMatcher) {
    this.#index = index;
    this.#makeLive = makeLive;
    this.#eos = eosTokenIds;
    this.#trail = from === undefined ? [0] : [...from.#trail];
    this.#committed = from === undefined ? [] : [...from.#committed];
    this.#marks = from === undefined ? [] : [...from.#marks];
    this.#live = from === undefined || from.#live === null ? null : from.#live.fork();
  }

  get #state(): number {
    return this.#trail[this.#trail.length - 1]!;
  }

  /** Whether the current state's mask comes from the index. */
  get indexed(): boolean {
    return this.#state >= 0;
  }

  get isFinished(): boolean {
    return this.#state === FINISHED;
  }

  get tokenCount(): number {
    return this.#marks.length;
  }

  isAccepting(): boolean {
    const state = this.#state;
    if (state === FINISHED) return true;
    return state >= 0 ? this.#index.accepting(state) : this.#ensureLive().isAccepting();
  }

  commitToken(id: number): boolean {
    const state = this.#state;
    if (state === FINISHED) return false;
    let next: number;
    if (this.#eos.includes(id)) {
      if (!this.isAccepting()) return false;
      next = FINISHED;
    } else if (state >= 0) {
      next = this.#index.next(state, id);
      if (next === NEXT_REJECTED) return false;
      if (next === NEXT_UNINDEXED) next = OFF_INDEX;
    } else {
      next = OFF_INDEX;
    }
    if (next === OFF_INDEX) this.#ensureLive();
    if (this.#live !== null && !this.#live.commitToken(id)) {
      if (state >= 0) throw new Error('internal: the mask index and the live matcher disagree');
      return false;
    }
    this.#marks.push(this.#committed.length);
    this.#committed.push(id);
    this.#trail.push(next);
    return true;
  }

  commitBytes(bytes: Uint8Array): boolean {
    if (this.#state === FINISHED) return false;
    if (!this.#ensureLive().commitBytes(bytes)) return false;
    this.#committed.push(bytes.slice());
    this.#trail[this.#trail.length - 1] = OFF_INDEX;
    return true;
  }

  completes(bytes: Uint8Array): boolean {
    const state = this.#state;
    if (state === FINISHED) return bytes.length === 0;
    return bytes.length === 0 ? this.isAccepting() : this.#ensureLive().completes(bytes);
  }

  rollback(n: number): void {
    checkRollback(n, this.tokenCount);
    if (n === 0) return;
    this.#live?.rollback(n);
    this.#committed.length = this.#marks[this.#marks.length - n]!;
    this.#marks.length -= n;
    this.#trail.length -= n;
  }

  fork(): IndexedMatcher {
    return new IndexedMatcher(this.#index, this.#makeLive, this.#eos, this);
  }

  computeMask(): Brle {
    const state = this.#state;
    if (state === FINISHED) return new Uint32Array([this.#index.tokenCount]);
    if (state < 0) return this.#ensureLive().computeMask();
    const mask = this.#index.mask(state);
    return this.#eos.length > 0 ? withEos(mask, this.#eos, this.#index.accepting(state)) : mask.slice();
  }

  computeMaskBitset(): Uint32Array {
    const state = this.#state;
    if (state < 0 && state !== FINISHED) return this.#ensureLive().computeMaskBitset();
    return brleToBitset(this.computeMask(), this.#index.tokenCount);
  }

  forcedBytes(maxBytes = FORCED_CAP): Uint8Array {
    checkByteCap(maxBytes);
    const state = this.#state;
    if (state === FINISHED) return new Uint8Array(0);
    if (state < 0) return this.#ensureLive().forcedBytes(maxBytes);
    // The index stores them up to the kernel's default cap; past it, only the live matcher knows.
    const forced = this.#index.forced(state);
    return forced.length < FORCED_CAP || maxBytes <= forced.length ? forced.slice(0, maxBytes) : this.#ensureLive().forcedBytes(maxBytes);
  }

  forcedTokens(encode: (bytes: Uint8Array) => readonly number[]): ForcedContinuation {
    return forcedTokensOf(this, encode);
  }

  dispose(): void {
    this.#live?.dispose();
    this.#live = null;
  }

  #ensureLive(): KernelMatcher {
    if (this.#live !== null) return this.#live;
    const live = this.#makeLive();
    try {
      for (const entry of this.#committed) {
        const ok = typeof entry === 'number' ? live.commitToken(entry) : live.commitBytes(entry);
        if (!ok) throw new Error('internal: the live matcher rejects what the mask index accepted');
      }
    } catch (error) {
      live.dispose();
      throw error;
    }
    this.#live = live;
    return live;
  }
}

// `mask` with the token ids in `ids` allowed too.
// `mask` with the EOS ids allowed where the output is complete, and only there (an EOS id
// that is also a text token ends the output wherever it is committed).
function withEos(mask: Brle, eos: readonly number[], accepting: boolean): Brle {
  const vocabSize = brleLength(mask);
  const bits = brleToBitset(mask, vocabSize);
  for (const id of eos) if (id >= 0 && id < vocabSize) bitsetPut(bits, id, accepting);
  return brleFromBitset(bits, vocabSize);
}
