/**
 * `array`, or a copy with room for at least `length` entries (twice as many as before, so
 * that appending piece by piece copies little).
 */
export function withRoom<T extends Int32Array | Uint8Array | Uint32Array>(array: T, length: number): T {
  if (array.length >= length) return array;
  const copy = new (array.constructor as new (length: number) => T)(Math.max(length, 2 * array.length));
  copy.set(array);
  return copy;
}
