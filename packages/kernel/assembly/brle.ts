// BRLE on packed bitsets (layouts: @sieve/format brle.ts and bitset.ts).
import { STATUS_LENGTH_MISMATCH, STATUS_OK } from '../src/abi';

/** Number of 32-bit words for `vocabSize` bits. */
export function bitsetWords(vocabSize: u32): u32 {
  return (vocabSize + 31) >>> 5;
}

/**
 * Encodes the first `vocabSize` bits at `bits` as canonical BRLE into `out`, writing at
 * most `capacity` runs. Returns the number of runs the mask needs (which may exceed
 * `capacity`; then the output is incomplete).
 */
export function brleEncode(bits: usize, vocabSize: u32, out: usize, capacity: u32): u32 {
  let runs: u32 = 0;
  let runStart: u32 = 0;
  let current: u32 = 0; // value of the bit before the current word
  for (let id: u32 = 0; id < vocabSize; id += 32) {
    // 128 bits that all continue the current run are skipped at once.
    if ((id & 127) === 0 && id + 128 <= vocabSize && v128.all_true<i32>(v128.eq<i32>(v128.load(bits + (id >>> 3)), v128.splat<i32>(-<i32>current)))) {
      id += 96;
      continue;
    }
    const word = load<u32>(bits + (id >>> 3));
    const span = min<u32>(32, vocabSize - id);
    // Bit j is set where token id + j differs from the token before it: a run boundary.
    let changes = word ^ ((word << 1) | current);
    if (span < 32) changes &= (<u32>1 << span) - 1;
    while (changes !== 0) {
      const at = id + ctz<u32>(changes);
      if (runs < capacity) store<u32>(out + (runs << 2), at - runStart);
      runs++;
      runStart = at;
      changes &= changes - 1;
    }
    current = (word >>> (span - 1)) & 1;
  }
  if (runs < capacity) store<u32>(out + (runs << 2), vocabSize - runStart);
  return runs + 1;
}

/**
 * Decodes `runCount` runs at `brle` into a bitset of `vocabSize` bits at `bits` (padding
 * bits cleared). No runs means no restriction: all bits set.
 */
export function brleDecode(brle: usize, runCount: u32, vocabSize: u32, bits: usize): i32 {
  const words = bitsetWords(vocabSize);
  if (runCount === 0) {
    memory.fill(bits, 0xff, words << 2);
    clearPadding(bits, vocabSize);
    return STATUS_OK;
  }
  memory.fill(bits, 0, words << 2);
  let id: u32 = 0;
  for (let i: u32 = 0; i < runCount; i++) {
    const run = load<u32>(brle + (i << 2));
    if (run > vocabSize - id) return STATUS_LENGTH_MISMATCH;
    if (i & 1) setRange(bits, id, id + run);
    id += run;
  }
  return id === vocabSize ? STATUS_OK : STATUS_LENGTH_MISMATCH;
}

/** Clears the bits of every masked run of the BRLE at `brle` (an AND with that mask). */
export function bitsetAndBrle(bits: usize, vocabSize: u32, brle: usize, runCount: u32): i32 {
  if (runCount === 0) return STATUS_OK;
  let id: u32 = 0;
  for (let i: u32 = 0; i < runCount; i++) {
    const run = load<u32>(brle + (i << 2));
    if (run > vocabSize - id) return STATUS_LENGTH_MISMATCH;
    if (!(i & 1)) clearRange(bits, id, id + run);
    id += run;
  }
  return id === vocabSize ? STATUS_OK : STATUS_LENGTH_MISMATCH;
}

/** `dst &= src` over `words` 32-bit words, 128 bits at a time. */
export function bitsetAnd(dst: usize, src: usize, words: u32): void {
  const bytes = words << 2;
  let i: usize = 0;
  for (; i + 16 <= bytes; i += 16) v128.store(dst + i, v128.and(v128.load(dst + i), v128.load(src + i)));
  for (; i < bytes; i += 4) store<u32>(dst + i, load<u32>(dst + i) & load<u32>(src + i));
}

/** `dst |= src` over `words` 32-bit words, 128 bits at a time. */
export function bitsetOr(dst: usize, src: usize, words: u32): void {
  const bytes = words << 2;
  let i: usize = 0;
  for (; i + 16 <= bytes; i += 16) v128.store(dst + i, v128.or(v128.load(dst + i), v128.load(src + i)));
  for (; i < bytes; i += 4) store<u32>(dst + i, load<u32>(dst + i) | load<u32>(src + i));
}

/** Number of set bits among `words` words. */
export function bitsetCount(bits: usize, words: u32): u32 {
  let count: u32 = 0;
  for (let i: u32 = 0; i < words; i++) count += popcnt<u32>(load<u32>(bits + (i << 2)));
  return count;
}

export function setRange(bits: usize, from: u32, to: u32): void {
  writeRange(bits, from, to, true);
}

export function clearRange(bits: usize, from: u32, to: u32): void {
  writeRange(bits, from, to, false);
}

// Sets or clears bits [from, to): partial words bit by bit, whole words with memory.fill.
// @ts-expect-error: decorator (AssemblyScript)
@inline
function writeRange(bits: usize, from: u32, to: u32, value: bool): void {
  if (from >= to) return;
  const firstWord = from >>> 5;
  const lastWord = (to - 1) >>> 5;
  const headMask: u32 = 0xffffffff << (from & 31);
  const tailMask: u32 = 0xffffffff >>> (31 - ((to - 1) & 31));
  if (firstWord === lastWord) {
    updateWord(bits + (firstWord << 2), headMask & tailMask, value);
    return;
  }
  updateWord(bits + (firstWord << 2), headMask, value);
  if (lastWord > firstWord + 1) memory.fill(bits + ((firstWord + 1) << 2), value ? 0xff : 0, (lastWord - firstWord - 1) << 2);
  updateWord(bits + (lastWord << 2), tailMask, value);
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
function updateWord(at: usize, mask: u32, value: bool): void {
  const word = load<u32>(at);
  store<u32>(at, value ? word | mask : word & ~mask);
}

function clearPadding(bits: usize, vocabSize: u32): void {
  if (vocabSize & 31) {
    const at = bits + ((vocabSize >>> 5) << 2);
    store<u32>(at, load<u32>(at) & ((1 << (vocabSize & 31)) - 1));
  }
}
