/**
 * Samplers over masked logits: greedy, temperature, top-k, top-p, min-p, with a seeded RNG.
 * Masked tokens carry -Infinity and are never drawn; the rest keep their relative
 * probabilities (the filters only remove tokens, they never reweight the survivors).
 */

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
  if (!(Number.isFinite(repetitionPenalty) && repetitionPenalty > 0)) throw new RangeError(`sampling.repetitionPenalty must be a finite number > 0, not ${repetitionPenalty}`);
  for (const [id, bias] of Object.entries(options.logitBias ?? {})) {
    if (!/^\d+$/.test(id) || !(Number.isFinite(bias) || bias === -Infinity)) throw new RangeError(`sampling.logitBias: ${id} → ${bias} is not a token id and a finite bias (or -Infinity)`);
  }
}

/**
 * The probabilities the sampler draws from, for the allowed tokens of `logits` (entries of
 * -Infinity are masked): ids sorted by decreasing probability, and their probabilities.
 * Temperature 0 gives the argmax alone. Empty when every token is masked.
 */
export function samplingDistribution(logits: Float32Array, options: SamplingOptions): { ids: Int32Array; probs: Float64Array } {
  const { temperature = 1, topK = 0, topP = 1, minP = 0 } = options;
  if (temperature === 0) {
    const best = argmax(logits);
    return best < 0 ? { ids: new Int32Array(0), probs: new Float64Array(0) } : { ids: Int32Array.of(best), probs: Float64Array.of(1) };
  }
  let count = 0;
  for (let i = 0; i < logits.length; i++) if (logits[i]! !== -Infinity) count++;
  const ids = new Int32Array(count);
  for (let i = 0, j = 0; i < logits.length; i++) if (logits[i]! !== -Infinity) ids[j++] = i;
  ids.sort((a, b) => logits[b]! - logits[a]! || a - b);
  let keep = topK > 0 ? Math.min(topK, count) : count;
  const probs = new Float64Array(keep);
  if (keep === 0) return { ids, probs };
  const top = logits[ids[0]!]! / temperature;
  let total = 0;
  for (let j = 0; j < keep; j++) total += probs[j] = Math.exp(logits[ids[j]!]! / temperature - top);
  // min-p and top-p cut the sorted list; each keeps at least the most likely token.
  if (minP > 0) {
    const floor = minP * (probs[0]! / total);
    while (keep > 1 && probs[keep - 1]! / total < floor) keep--;
  }
  if (topP < 1) {
    let cumulative = 0;
    for (let j = 0; j < keep; j++) {
      cumulative += probs[j]! / total;
      if (cumulative >= topP) {
        keep = j + 1;
        break;
      }
    }
  }
  total = 0;
  for (let j = 0; j < keep; j++) total += probs[j]!;
  const kept = probs.subarray(0, keep);
  for (let j = 0; j < keep; j++) kept[j] /= total;
  return { ids: ids.subarray(0, keep), probs: kept };
}

/** Draws a token from `logits` (masked entries -Infinity); -1 if every token is masked. */
export function sampleToken(logits: Float32Array, options: SamplingOptions, rng: Rng): number {
  const { temperature = 1, topK = 0, topP = 1, minP = 0 } = options;
  if (temperature === 0) return argmax(logits);
  // Without filters nothing needs sorting: one pass for the sum, one to draw.
  if (topK === 0 && topP >= 1 && minP === 0) {
    const best = argmax(logits);
    if (best < 0) return -1;
    const top = logits[best]! / temperature;
    let total = 0;
    for (let i = 0; i < logits.length; i++) if (logits[i]! !== -Infinity) total += Math.exp(logits[i]! / temperature - top);
    let u = rng.next() * total;
    for (let i = 0; i < logits.length; i++) {
      if (logits[i]! === -Infinity) continue;
      u -= Math.exp(logits[i]! / temperature - top);
      if (u < 0) return i;
    }
    return best;
  }
  const { ids, probs } = samplingDistribution(logits, options);
  if (ids.length === 0) return -1;
  let u = rng.next();
  for (let j = 0; j < ids.length; j++) {
    u -= probs[j]!;
    if (u < 0) return ids[j]!;
  }
  return ids[ids.length - 1]!;
}

/** Index of the largest finite logit (lowest id on ties), or -1 if all are -Infinity. */
export function argmax(logits: Float32Array): number {
  let best = -1;
  let value = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i]! > value) {
      value = logits[i]!;
      best = i;
    }
  }
  return best;
}

/** Adds `bias` to `logits` in place (ids past the vocabulary are ignored). */
export function applyLogitBias(logits: Float32Array, bias: Readonly<Record<number, number>> | undefined): void {
  if (bias === undefined) return;
  for (const [id, value] of Object.entries(bias)) {
    const i = Number(id);
    if (i < logits.length) logits[i] = logits[i]! + value;
  }
}

/** Softmax mass of the tokens that are finite in `masked`, under the unmasked `logits`. */
export function allowedMass(logits: Float32Array, masked: Float32Array): number {
  const top = logits[argmax(logits)] ?? 0;
  let all = 0;
  let allowed = 0;
  for (let i = 0; i < logits.length; i++) {
    const p = Math.exp(logits[i]! - top);
    all += p;
    if (masked[i]! !== -Infinity) allowed += p;
  }
  return all > 0 ? allowed / all : 0;
}

/** The `n` most likely tokens of `logits` (softmax at temperature 1), most likely first. */
export function topCandidates(logits: Float32Array, n: number): { id: number; p: number }[] {
  const best: number[] = [];
  for (let i = 0; i < logits.length; i++) {
    if (logits[i]! === -Infinity) continue;
    if (best.length < n || logits[i]! > logits[best[best.length - 1]!]!) {
      best.push(i);
      best.sort((a, b) => logits[b]! - logits[a]! || a - b);
      if (best.length > n) best.pop();
    }
  }
  const top = best.length > 0 ? logits[best[0]!]! : 0;
  let total = 0;
  for (let i = 0; i < logits.length; i++) if (logits[i]! !== -Infinity) total += Math.exp(logits[i]! - top);
  return best.map((id) => ({ id, p: Math.exp(logits[id]! - top) / total }));
}

/** Applies `penalty` (see `SamplingOptions.repetitionPenalty`) in place to the logits of the `seen` tokens (once each). */
export function penalizeRepetition(logits: Float32Array, seen: ReadonlySet<number>, penalty: number): void {
  for (const token of seen) {
    const logit = logits[token];
    if (logit === undefined || logit === -Infinity) continue;
    logits[token] = logit > 0 ? logit / penalty : logit * penalty;
  }
}
