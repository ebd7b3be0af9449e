/**
 * BRLE — binary run-length encoding of a token mask (wire-compatible with Pie).
 *
 * A mask over a vocabulary of `n` tokens is a `Uint32Array` of run lengths that sum to `n`.
 * Even indices are runs of masked tokens (`false`), odd indices runs of allowed tokens
 * (`true`). A mask that starts with an allowed token therefore begins with a `0`.
 * The encoders here always produce the canonical form: no zero-length run except that
 * leading `0`. An empty array means "no restriction" when masks are composed.
 */
import { bitsetWords } from './bitset.ts';

/** A BRLE-encoded token mask. */
export type Brle = Uint32Array;

/** Thrown when a BRLE does not describe a mask of the expected vocabulary size. */
export class BrleError extends Error {
  override readonly name = 'BrleError';
  constructor(
    readonly code: 'length_mismatch' | 'bad_bitset',
    message: string,
  ) {
    super(message);
  }
}

/** Sum of all runs: the vocabulary size the mask describes. */
export function brleLength(brle: Brle): number {
  let total = 0;
  for (let i = 0; i < brle.length; i++) total += brle[i]!;
  return total;
}

/** Number of allowed tokens. An empty BRLE (no restriction) reports `vocabSize`. */
export function brleCount(brle: Brle, vocabSize = brleLength(brle)): number {
  if (brle.length === 0) return vocabSize;
  let allowed = 0;
  for (let i = 1; i < brle.length; i += 2) allowed += brle[i]!;
  return allowed;
}

/** Encodes the first `vocabSize` bits of a packed bitset. */
export function brleFromBitset(bits: Uint32Array, vocabSize: number): Brle {
  if (bits.length < bitsetWords(vocabSize)) {
    throw new BrleError('bad_bitset', `bitset has ${bits.length} words, ${bitsetWords(vocabSize)} needed for ${vocabSize} tokens`);
  }
  const runs: number[] = [];
  let current = false;
  let runStart = 0;
  let id = 0;
  while (id < vocabSize) {
    const word: number = bits[id >>> 5]!;
    // Whole words equal to the current run value extend it without a per-bit loop.
    if ((id & 31) === 0 && id + 32 <= vocabSize && word === (current ? 0xffffffff : 0)) {
      id += 32;
      continue;
    }
    const bit: boolean = ((word >>> (id & 31)) & 1) === 1;
    if (bit !== current) {
      runs.push(id - runStart);
      runStart = id;
      current = bit;
    }
    id++;
  }
  runs.push(vocabSize - runStart);
  return Uint32Array.from(runs);
}

/**
 * Decodes into a packed bitset of `vocabSize` bits (padding bits stay clear).
 * An empty BRLE (no restriction) decodes to all tokens allowed.
 */
export function brleToBitset(brle: Brle, vocabSize = brleLength(brle)): Uint32Array {
  const bits = new Uint32Array(bitsetWords(vocabSize));
  if (brle.length === 0) {
    fillBits(bits, 0, vocabSize);
    return bits;
  }
  checkLength(brle, vocabSize);
  let id = 0;
  for (let i = 0; i < brle.length; i++) {
    const run = brle[i]!;
    if ((i & 1) === 1) fillBits(bits, id, id + run);
    id += run;
  }
  return bits;
}

/**
 * AND of several masks over the same vocabulary. Empty masks are "no restriction" and are
 * skipped; if every mask is empty the result is empty too.
 */
export function brleAnd(masks: readonly Brle[]): Brle {
  let result: Brle | undefined;
  for (const mask of masks) {
    if (mask.length === 0) continue;
    result = result === undefined ? mask.slice() : andTwo(result, mask);
  }
  return result ?? new Uint32Array(0);
}

/** Whether token `id` is allowed. An empty BRLE allows everything. */
export function brleAllows(brle: Brle, id: number): boolean {
  if (brle.length === 0) return true;
  let end = 0;
  for (let i = 0; i < brle.length; i++) {
    end += brle[i]!;
    if (id < end) return (i & 1) === 1;
  }
  return false;
}

/** Allowed token ids in increasing order. An empty BRLE yields `0..vocabSize-1`. */
export function* brleAllowedIds(brle: Brle, vocabSize = brleLength(brle)): Generator<number> {
  if (brle.length === 0) {
    for (let id = 0; id < vocabSize; id++) yield id;
    return;
  }
  let id = 0;
  for (let i = 0; i < brle.length; i++) {
    const end = id + brle[i]!;
    if ((i & 1) === 1) for (let t = id; t < end; t++) yield t;
    id = end;
  }
}

/**
 * Sets every masked logit to `-Infinity`, in place. Logits past the mask's vocabulary
 * (models often pad their output layer) are masked too. An empty BRLE changes nothing.
 */
export function applyBrle(logits: Float32Array, brle: Brle): void {
  if (brle.length === 0) return;
  const total = brleLength(brle);
  if (logits.length < total) {
    throw new BrleError('length_mismatch', `mask covers ${total} tokens but there are only ${logits.length} logits`);
  }
  let id = 0;
  for (let i = 0; i < brle.length; i++) {
    const end = id + brle[i]!;
    if ((i & 1) === 0) logits.fill(-Infinity, id, end);
    id = end;
  }
  logits.fill(-Infinity, total);
}

function checkLength(brle: Brle, vocabSize: number): void {
  const total = brleLength(brle);
  if (total !== vocabSize) {
    throw new BrleError('length_mismatch', `mask covers ${total} tokens, expected ${vocabSize}`);
  }
}

function fillBits(bits: Uint32Array, from: number, to: number): void {
  let id = from;
  while (id < to && (id & 31) !== 0) {
    bits[id >>> 5] |= 1 << (id & 31);
    id++;
  }
  while (id + 32 <= to) {
    bits[id >>> 5] = 0xffffffff;
    id += 32;
  }
  while (id < to) {
    bits[id >>> 5] |= 1 << (id & 31);
    id++;
  }
}

// Two-pointer merge of run boundaries: the output run value is the AND of both inputs'.
function andTwo(a: Brle, b: Brle): Brle {
  const total = brleLength(a);
  checkLength(b, total);
  const runs: number[] = [];
  let current = false;
  let runLength = 0;
  let ia = 0;
  let ib = 0;
  let leftA = a[0]!;
  let leftB = b[0]!;
  let pos = 0;
  while (pos < total) {
    while (leftA === 0) leftA = a[++ia]!;
    while (leftB === 0) leftB = b[++ib]!;
    const step = Math.min(leftA, leftB);
    const value = (ia & 1) === 1 && (ib & 1) === 1;
    if (value !== current) {
      runs.push(runLength);
      runLength = 0;
      current = value;
    }
    runLength += step;
    leftA -= step;
    leftB -= step;
    pos += step;
  }
  runs.push(runLength);
  return Uint32Array.from(runs);
}
