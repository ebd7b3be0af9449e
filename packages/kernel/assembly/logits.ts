// Applying a token mask to logits in place: masked entries become -Infinity.
import { STATUS_LENGTH_MISMATCH, STATUS_OK } from '../src/abi';

/**
 * Masks `count` f32 logits at `logits` with the bitset at `bits` covering `vocabSize`
 * tokens; logits past `vocabSize` (padding of the output layer) are masked too.
 */
export function applyBitset(logits: usize, count: u32, bits: usize, vocabSize: u32): i32 {
  if (count < vocabSize) return STATUS_LENGTH_MISMATCH;
  const negInf = f32x4.splat(-Infinity);
  const fullWords = vocabSize >>> 5;
  for (let w: u32 = 0; w < fullWords; w++) {
    const word = load<u32>(bits + (w << 2));
    if (word === 0xffffffff) continue;
    const at = logits + (w << 7);
    if (word === 0) {
      for (let k: u32 = 0; k < 128; k += 16) v128.store(at + k, negInf);
      continue;
    }
    let masked = ~word;
    while (masked !== 0) {
      store<f32>(at + (ctz<u32>(masked) << 2), -Infinity);
      masked &= masked - 1;
    }
  }
  for (let id = fullWords << 5; id < vocabSize; id++) {
    if (!((load<u32>(bits + ((id >>> 5) << 2)) >>> (id & 31)) & 1)) store<f32>(logits + (id << 2), -Infinity);
  }
  fillNegInf(logits, vocabSize, count);
  return STATUS_OK;
}

/** Masks `count` f32 logits with the BRLE at `brle` (no runs: no restriction). */
export function applyBrle(logits: usize, count: u32, brle: usize, runCount: u32): i32 {
  if (runCount === 0) return STATUS_OK;
  let id: u32 = 0;
  for (let i: u32 = 0; i < runCount; i++) {
    const run = load<u32>(brle + (i << 2));
    if (run > count - id) return STATUS_LENGTH_MISMATCH;
    if (!(i & 1)) fillNegInf(logits, id, id + run);
    id += run;
  }
  fillNegInf(logits, id, count);
  return STATUS_OK;
}

function fillNegInf(logits: usize, from: u32, to: u32): void {
  let at = logits + (from << 2);
  const end = logits + (to << 2);
  const negInf = f32x4.splat(-Infinity);
  while (at < end && (at & 15)) {
    store<f32>(at, -Infinity);
    at += 4;
  }
  for (; at + 16 <= end; at += 16) v128.store(at, negInf);
  for (; at < end; at += 4) store<f32>(at, -Infinity);
}
