/**
 * Samplers over masked logits: greedy, temperature, top-k, top-p, min-p, with a seeded RNG.
 * Masked tokens carry -Infinity and are never drawn; the rest keep their relative
 * probabilities (the filters only remove tokens, they never reweight the survivors).
 */
import type { Brle } from '@sieve/format';

/** How the next token is chosen. Defaults: temperature 1, no filters, a random seed. */
export interface SamplingOptions {
  /** 0 means greedy (argmax, ties to the lowest id). */
  readonly temperature?: number;
  /** Keep only the k most likely tokens (0: off). */
  readonly topK?: number;
  /** Keep the smallest set of most likely tokens whose probability reaches p (1: off). */
  readonly topP?: number;
  /** Drop tokens less likely than minP × the most likely one's probability (0: off). */
  readonly minP?: number;
  /**
   * Tokens already in the context (prompt and output) have their logit divided by this when
   * positive and multiplied when negative, as Hugging Face's `repetition_penalty` (1: off).
   */
  readonly repetitionPenalty?: number;
  /** Seed of the RNG; the same seed, prompt and options give the same output. */
  readonly seed?: number;
  /** Added to the logits of these token ids before masking (see also `LogitBias`). */
  readonly logitBias?: Readonly<Record<number, number>>;
}

/** A uniform random number generator on [0, 1): xoshiro128**, seeded by splitmix32. */
export class Rng {
  readonly #s = new Uint32Array(4);

  constructor(seed: number) {
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.#s[i] = (z ^ (z >>> 16)) >>> 0;
    }
  }

  /** The next number in [0, 1). */
  next(): number {
    const s = this.#s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2] ^= s[0]!;
    s[3] ^= s[1]!;
    s[1] ^= s[2]!;
    s[0] ^= s[3]!;
    s[2] ^= t;
    s[3] = rotl(s[3]!, 11);
    return result / 4294967296;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** Checks sampling options, throwing a `RangeError` that names the bad one. */
export function checkSampling(options: SamplingOptions): void {
  const { temperature = 1, topK = 0, topP = 1, minP = 0, repetitionPenalty = 1 } = options;
  if (!(Number.isFinite(temperature) && temperature >= 0)) throw new RangeError(`sampling.temperature must be a finite number ≥ 0, not ${temperature}`);
  if (!(Number.isInteger(topK) && topK >= 0)) throw new RangeError(`sampling.topK must be an integer ≥ 0, not ${topK}`);
  if (!(topP > 0 && topP <= 1)) throw new RangeError(`sampling.topP must be in (0, 1], not ${topP}`);
  if (!(minP >= 0 && minP <= 1)) throw new RangeError(`sampling.minP must be in [0, 1], not ${minP}`);
  if (!(Number.isFinite(repetitionPenalty) && repetitionPenalty > 0))
    throw new RangeError(`sampling.repetitionPenalty must be a finite number > 0, not ${repetitionPenalty}`);
  for (const [id, bias] of Object.entries(options.logitBias ?? {})) {
    if (!/^\d+$/.test(id) || !(Number.isFinite(bias) || bias === -Infinity))
      throw new RangeError(`sampling.logitBias: ${id} → ${bias} is not a token id and a finite bias (or -Infinity)`);
  }
}

/**
 * The ids a draw may pick, as `[start, end)` pairs in ascending order: the allowed runs of
 * `mask` (empty: every id), cut at `length` (the logits there are). Entries of -Infinity inside
 * them (a bias, a refused draw) are skipped by the samplers.
 */
export function allowedRanges(mask: Brle | undefined, length: number): Int32Array {
  if (mask === undefined || mask.length === 0) return Int32Array.of(0, length);
  const ranges = new Int32Array(mask.length + 1);
  let count = 0;
  for (let i = 1, at = mask[0]!; i < mask.length && at < length; i += 2) {
    const end = Math.min(length, at + mask[i]!);
    if (end > at) {
      ranges[count++] = at;
      ranges[count++] = end;
    }
    // (Never read past the mask: a typed array read out of bounds is slow.)
    if (i + 1 < mask.length) at = end + mask[i + 1]!;
  }
  return ranges.subarray(0, count);
}

/**
 * Applies `mask` to `logits` for a draw and returns the ranges the draw reads (cut at
 * `length`, the logits there are). A mask that allows most tokens is written into the logits:
 * -Infinity over its disallowed runs (fewer than the allowed tokens), and the draw reads one
 * range, a pass like an unconstrained draw's. A narrower mask becomes its allowed runs
 * (`allowedRanges`) with nothing written. The draw is the same either way (tested).
 */
export function applyMask(logits: Float32Array, mask: Brle | undefined, length: number): Int32Array {
  if (mask === undefined || mask.length === 0) return Int32Array.of(0, length);
  let allowed = 0;
  for (let i = 1, at = mask[0]!; i < mask.length && at < length; i += 2) {
    const end = Math.min(length, at + mask[i]!);
    allowed += end - at;
    if (i + 1 < mask.length) at = end + mask[i + 1]!;
  }
  if (allowed * 2 <= length) return allowedRanges(mask, length);
  // Disallowed runs start the mask and alternate with the allowed ones (past its end: none).
  for (let i = 0, at = 0; i < mask.length && at < length; i += 2) {
    const end = Math.min(length, at + mask[i]!);
    for (let id = at; id < end; id++) logits[id] = -Infinity;
    at = end + (mask[i + 1] ?? 0);
  }
  return Int32Array.of(0, length);
}

/**
 * The probabilities the sampler draws from, for the tokens of `logits` inside `ranges` (all
 * by default) that are not -Infinity: ids sorted by decreasing probability (ties: lowest id
 * first), and their probabilities. Temperature 0 gives the argmax alone. Empty when no token
 * is left. Top-k, min-p and top-p look at the most likely tokens only: at a 262k vocabulary
 * they never sort it.
 */
export function samplingDistribution(
  logits: Float32Array,
  options: SamplingOptions,
  ranges: Int32Array = Int32Array.of(0, logits.length),
): { ids: Int32Array; probs: Float64Array } {
  const { temperature = 1, topK = 0, topP = 1, minP = 0 } = options;
  const best = argmax(logits, ranges);
  if (best < 0) return { ids: new Int32Array(0), probs: new Float64Array(0) };
  if (temperature === 0) return { ids: Int32Array.of(best), probs: Float64Array.of(1) };
  const count = finiteCount(logits, ranges);
  const top = logits[best]! / temperature;
  const weight = (id: number): number => Math.exp(logits[id]! / temperature - top);
  // Without top-k, top-p and min-p are relative to every token's probability.
  let total = topK > 0 ? 0 : weightSum(logits, ranges, temperature, top);
  // The most likely `size` tokens; more when top-p needs them (8× at a time).
  let size = topK > 0 ? Math.min(topK, count) : topP < 1 || minP > 0 ? Math.min(64, count) : count;
  for (;;) {
    const ids = mostLikely(logits, ranges, size, count);
    const probs = Float64Array.from(ids, weight);
    if (topK > 0) for (let j = 0; j < size; j++) total += probs[j]!;
    // min-p and top-p cut the sorted list; each keeps at least the most likely token.
    let keep = size;
    if (minP > 0) while (keep > 1 && probs[keep - 1]! < minP * probs[0]!) keep--;
    // Done when the list holds every candidate: top-k, a min-p cut inside it, top-p reached, or all tokens.
    let reached = topK > 0 || keep < size || size === count;
    if (topP < 1) {
      let cumulative = 0;
      for (let j = 0; j < keep; j++) {
        cumulative += probs[j]! / total;
        if (cumulative >= topP) {
          keep = j + 1;
          reached = true;
          break;
        }
      }
    }
    if (!reached) {
      size = Math.min(count, size * 8);
      continue;
    }
    const kept = probs.subarray(0, keep);
    let sum = 0;
    for (let j = 0; j < keep; j++) sum += kept[j]!;
    for (let j = 0; j < keep; j++) kept[j] /= sum;
    return { ids: ids.subarray(0, keep), probs: kept };
  }
}

/**
 * Draws a token from `logits` inside `ranges` (all by default; entries of -Infinity are
 * never drawn); -1 if no token is left. Without filters it costs two passes over the allowed
 * tokens and no sort.
 */
export function sampleToken(logits: Float32Array, options: SamplingOptions, rng: Rng, ranges: Int32Array = Int32Array.of(0, logits.length)): number {
  return new Draws(logits, options, rng, ranges).next();
}

/**
 * Draws from `logits` inside `ranges` that may be refused (budget-aware ending refuses a
 * token after which the output cannot be finished): `next()` draws a token (-1 when none is
 * left), `refuse(token)` takes it out of the draws after, as its logit set to -Infinity
 * would (and sets it so). Without filters the first draw's weights are kept, and a draw
 * after a refusal descends a tree of them (`WeightTree`) instead of passing over the allowed
 * tokens again; with filters the distribution is found again. (The weights live in one buffer: another draw
 * in between takes it, and the next draw here computes them again.)
 */
export class Draws {
  readonly #logits: Float32Array;
  readonly #options: SamplingOptions;
  readonly #rng: Rng;
  readonly #ranges: Int32Array;
  // Without filters: the sum of the kept weights (while `weights` holds this draw's), and
  // after a refusal, the same weights in a tree a draw descends.
  #total = 0;
  // The sum when the weights were last computed.
  #computed = 0;
  #tree: WeightTree | null = null;
  // What `owner` is while the weights are this draw's.
  readonly #claim = {};

  constructor(logits: Float32Array, options: SamplingOptions, rng: Rng, ranges: Int32Array = Int32Array.of(0, logits.length)) {
    this.#logits = logits;
    this.#options = options;
    this.#rng = rng;
    this.#ranges = ranges;
  }

  next(): number {
    const { temperature = 1, topK = 0, topP = 1, minP = 0 } = this.#options;
    const [logits, ranges] = [this.#logits, this.#ranges];
    if (temperature === 0) return argmax(logits, ranges);
    if (topK > 0 || topP < 1 || minP > 0) {
      const { ids, probs } = samplingDistribution(logits, this.#options, ranges);
      if (ids.length === 0) return -1;
      let u = this.#rng.next();
      for (let j = 0; j < ids.length; j++) {
        u -= probs[j]!;
        if (u < 0) return ids[j]!;
      }
      return ids[ids.length - 1]!;
    }
    if (owner !== this.#claim) {
      this.#total = this.#computed = keptWeights(logits, ranges, temperature);
      this.#tree = null;
      owner = this.#claim;
    }
    if (!(this.#total > 0)) return -1;
    let u = this.#rng.next() * this.#total;
    if (this.#tree !== null) {
      const token = this.#tree.find(u);
      if (token >= 0 && weights[token] !== 0) return token;
      // (Else rounding took the descent past the weights: the walk below decides.)
    }
    // (Past the last weight only by rounding: the last token with a weight.)
    let last = -1;
    for (let r = 0; r < ranges.length; r += 2) {
      for (let i = ranges[r]!; i < ranges[r + 1]!; i++) {
        if (weights[i] === 0) continue;
        last = i;
        u -= weights[i]!;
        if (u < 0) return i;
      }
    }
    return last;
  }

  refuse(token: number): void {
    this.#logits[token] = -Infinity;
    if (owner !== this.#claim || weights[token] === 0) return;
    // Taking out most of the weight would leave the rest to rounding (a sum less a near-equal
    // sum): the next draw computes the weights again, from the logits.
    if (this.#total - weights[token]! < this.#computed * 1e-3) {
      owner = null;
      return;
    }
    this.#tree ??= new WeightTree(this.#ranges);
    this.#tree.remove(token, weights[token]!);
    this.#total -= weights[token]!;
    weights[token] = 0;
  }
}

// The weights of the tokens inside `ranges` (from `weights`), in a Fenwick tree over their
// positions in the order of the ranges: a draw is a descent, O(log n), and so is taking a
// refused token's weight out — not a walk over every allowed token per draw.
class WeightTree {
  readonly #ranges: Int32Array;
  // Per range, the positions before it (and their count at the end).
  readonly #before: Int32Array;
  // 1-based: tree[j] sums the weights of positions (j − lowbit(j), j].
  readonly #tree: Float64Array;

  constructor(ranges: Int32Array) {
    const count = ranges.length / 2;
    const before = new Int32Array(count + 1);
    for (let r = 0; r < count; r++) before[r + 1] = before[r]! + ranges[2 * r + 1]! - ranges[2 * r]!;
    const size = before[count]!;
    const tree = new Float64Array(size + 1);
    for (let r = 0, j = 1; r < ranges.length; r += 2) for (let i = ranges[r]!; i < ranges[r + 1]!; i++, j++) tree[j] = weights[i]!;
    for (let j = 1; j <= size; j++) {
      const parent = j + (j & -j);
      if (parent <= size) tree[parent] += tree[j]!;
    }
    this.#ranges = ranges;
    this.#before = before;
    this.#tree = tree;
  }

  remove(token: number, weight: number): void {
    for (let j = this.#position(token) + 1; j < this.#tree.length; j += j & -j) this.#tree[j] -= weight;
  }

  // The token at the first position whose running sum passes `u` (-1: none does).
  find(u: number): number {
    const tree = this.#tree;
    const size = tree.length - 1;
    let at = 0;
    for (let step = 2 ** Math.floor(Math.log2(Math.max(1, size))); step > 0; step >>= 1) {
      if (at + step <= size && tree[at + step]! <= u) {
        at += step;
        u -= tree[at]!;
      }
    }
    return at < size ? this.#token(at) : -1;
  }

  // Binary searches: the range holding a token, the range holding a position.
  #position(token: number): number {
    const ranges = this.#ranges;
    let [lo, hi] = [0, ranges.length / 2 - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ranges[2 * mid]! <= token) lo = mid;
      else hi = mid - 1;
    }
    return this.#before[lo]! + token - ranges[2 * lo]!;
  }

  #token(at: number): number {
    const before = this.#before;
    let [lo, hi] = [0, before.length - 2];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (before[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return this.#ranges[2 * lo]! + at - before[lo]!;
  }
}

// Each token's weight, exp(logit / temperature − top), into `weights` (by token id, 0 for
// -Infinity), for the tokens inside `ranges`; returns their sum (0 when none is finite).
function keptWeights(logits: Float32Array, ranges: Int32Array, temperature: number): number {
  const best = argmax(logits, ranges);
  if (best < 0) return 0;
  const top = logits[best]! / temperature;
  if (weights.length < logits.length) weights = new Float64Array(logits.length);
  let total = 0;
  for (let r = 0; r < ranges.length; r += 2) {
    for (let i = ranges[r]!; i < ranges[r + 1]!; i++) total += weights[i] = logits[i]! === -Infinity ? 0 : Math.exp(logits[i]! / temperature - top);
  }
  return total;
}

// The draws' weights by token id, reused from draw to draw (a vocabulary's worth once
// grown), and the draws they belong to.
let weights = new Float64Array(0);
let owner: object | null = null;

/** Index of the largest finite logit inside `ranges` (lowest id on ties), or -1 if there is none. */
export function argmax(logits: Float32Array, ranges: Int32Array = Int32Array.of(0, logits.length)): number {
  let best = -1;
  let value = -Infinity;
  for (let r = 0; r < ranges.length; r += 2) {
    for (let i = ranges[r]!; i < ranges[r + 1]!; i++) {
      if (logits[i]! > value) {
        value = logits[i]!;
        best = i;
      }
    }
  }
  return best;
}

function finiteCount(logits: Float32Array, ranges: Int32Array): number {
  let count = 0;
  for (let r = 0; r < ranges.length; r += 2) for (let i = ranges[r]!; i < ranges[r + 1]!; i++) if (logits[i]! !== -Infinity) count++;
  return count;
}

// Σ exp(logit / temperature − top) over the finite logits inside `ranges`.
function weightSum(logits: Float32Array, ranges: Int32Array, temperature: number, top: number): number {
  let total = 0;
  for (let r = 0; r < ranges.length; r += 2) {
    for (let i = ranges[r]!; i < ranges[r + 1]!; i++) if (logits[i]! !== -Infinity) total += Math.exp(logits[i]! / temperature - top);
  }
  return total;
}

/**
 * The `size` most likely of the `count` finite tokens inside `ranges`, most likely first
 * (ties: lowest id first): a binary heap of the best so far, whose root (the worst of them)
 * each token is compared with; a sort of them all when `size` is a large part of them.
 */
function mostLikely(logits: Float32Array, ranges: Int32Array, size: number, count: number): Int32Array {
  if (size * 4 >= count) {
    const ids = new Int32Array(count);
    let j = 0;
    for (let r = 0; r < ranges.length; r += 2) for (let i = ranges[r]!; i < ranges[r + 1]!; i++) if (logits[i]! !== -Infinity) ids[j++] = i;
    return ids.sort((a, b) => logits[b]! - logits[a]! || a - b).subarray(0, size);
  }
  const heap = new Int32Array(size);
  if (size === 0) return heap;
  // a ranks after b: a lower logit, or the same and a higher id.
  const worse = (a: number, b: number): boolean => logits[a]! < logits[b]! || (logits[a]! === logits[b]! && a > b);
  const siftDown = (length: number): void => {
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      if (left >= length) return;
      const child = left + 1 < length && worse(heap[left + 1]!, heap[left]!) ? left + 1 : left;
      if (!worse(heap[child]!, heap[at]!)) return;
      [heap[at], heap[child]] = [heap[child]!, heap[at]!];
      at = child;
    }
  };
  let filled = 0;
  // The root's logit: a token must beat it to enter (ids ascend, so a tie never does).
  let floor = -Infinity;
  for (let r = 0; r < ranges.length; r += 2) {
    for (let i = ranges[r]!; i < ranges[r + 1]!; i++) {
      const value = logits[i]!;
      if (value === -Infinity) continue;
      if (filled < size) {
        let at = filled++;
        heap[at] = i;
        while (at > 0 && worse(heap[at]!, heap[(at - 1) >> 1]!)) {
          const parent = (at - 1) >> 1;
          [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
          at = parent;
        }
        if (filled === size) floor = logits[heap[0]!]!;
      } else if (value > floor) {
        heap[0] = i;
        siftDown(size);
        floor = logits[heap[0]!]!;
      }
    }
  }
  // Heap sort: the worst goes to the end each time.
  for (let end = filled - 1; end > 0; end--) {
    [heap[0], heap[end]] = [heap[end]!, heap[0]!];
    siftDown(end);
  }
  return heap.subarray(0, filled);
}

/** Adds `bias` to `logits` in place (ids past the vocabulary are ignored). */
export function applyLogitBias(logits: Float32Array, bias: Readonly<Record<number, number>> | undefined): void {
  if (bias === undefined) return;
  for (const [id, value] of Object.entries(bias)) {
    const i = Number(id);
    if (i < logits.length) logits[i] = logits[i]! + value;
  }
}

/** Softmax mass (temperature 1) of the tokens inside `ranges`, under `logits`. */
export function allowedMass(logits: Float32Array, ranges: Int32Array): number {
  const best = argmax(logits);
  if (best < 0) return 0;
  const top = logits[best]!;
  const all = weightSum(logits, Int32Array.of(0, logits.length), 1, top);
  return all > 0 ? weightSum(logits, ranges, 1, top) / all : 0;
}

/** The `n` most likely tokens of `logits` inside `ranges` (softmax at temperature 1 over them), most likely first. */
export function topCandidates(logits: Float32Array, n: number, ranges: Int32Array = Int32Array.of(0, logits.length)): { id: number; p: number }[] {
  const count = finiteCount(logits, ranges);
  const best = mostLikely(logits, ranges, Math.min(n, count), count);
  if (best.length === 0) return [];
  const top = logits[best[0]!]!;
  const total = weightSum(logits, ranges, 1, top);
  return Array.from(best, (id) => ({ id, p: Math.exp(logits[id]! - top) / total }));
}

/**
 * Log probabilities under the softmax (temperature 1) of the logits inside `ranges`: `of(id)`
 * for any token there, and the `n` most likely, most likely first. One pass for the norm, one
 * for the top (a heap).
 */
export function logprobsWithin(
  logits: Float32Array,
  n: number,
  ranges: Int32Array,
): { readonly of: (id: number) => number; readonly top: readonly { readonly id: number; readonly logprob: number }[] } {
  const count = finiteCount(logits, ranges);
  const best = mostLikely(logits, ranges, Math.min(Math.max(n, 1), count), count);
  if (best.length === 0) return { of: () => -Infinity, top: [] };
  const peak = logits[best[0]!]!;
  const norm = peak + Math.log(weightSum(logits, ranges, 1, peak));
  const of = (id: number): number => logits[id]! - norm;
  return { of, top: Array.from(best.subarray(0, n), (id) => ({ id, logprob: of(id) })) };
}

/** Applies `penalty` (see `SamplingOptions.repetitionPenalty`) in place to the logits of the `seen` tokens (once each). */
export function penalizeRepetition(logits: Float32Array, seen: ReadonlySet<number>, penalty: number): void {
  for (const token of seen) {
    const logit = logits[token];
    if (logit === undefined || logit === -Infinity) continue;
    logits[token] = logit > 0 ? logit / penalty : logit * penalty;
  }
}
