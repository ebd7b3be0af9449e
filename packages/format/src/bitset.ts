/**
 * Packed token bitsets: bit `i % 32` of word `i >>> 5` is token `i`, least significant bit
 * first. This is the layout the kernel writes and the layout BRLE converts from and to.
 */

/** Number of 32-bit words needed for `vocabSize` bits. */
export function bitsetWords(vocabSize: number): number {
  return (vocabSize + 31) >>> 5;
}

/** A bitset with every token of `vocabSize` cleared. */
export function emptyBitset(vocabSize: number): Uint32Array {
  return new Uint32Array(bitsetWords(vocabSize));
}

/** Whether token `id` is set. */
export function bitsetHas(bits: Uint32Array, id: number): boolean {
  return ((bits[id >>> 5] >>> (id & 31)) & 1) === 1;
}

/** Sets token `id`. */
export function bitsetAdd(bits: Uint32Array, id: number): void {
  bits[id >>> 5] |= 1 << (id & 31);
}

/** Sets token `id` when `on`, clears it otherwise. */
export function bitsetPut(bits: Uint32Array, id: number, on: boolean): void {
  if (on) bits[id >>> 5] |= 1 << (id & 31);
  else bits[id >>> 5] &= ~(1 << (id & 31));
}
