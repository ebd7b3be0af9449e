/**
 * Token slices: fixed subsets of a vocabulary, computed when the vocab index is built, that
 * the mask adds wholesale where a lexer state accepts all of their tokens (the state inside
 * a JSON string accepts every token of plain string content). Slice `i` is bit `i` in the
 * index's slice sections; the order below is part of the format (append only, and bump
 * VOCAB_VERSION when a definition changes).
 */
import { MAX_TOKEN_SLICES } from './vocab-layout.ts';

/** A token slice: non-empty tokens of whole UTF-8 characters, none of them excluded. */
export interface TokenSlice {
  readonly name: string;
  /** ASCII code points its tokens never contain (every other character is allowed). */
  readonly excludedAscii: readonly number[];
  /** Most characters in one of its tokens; unbounded when absent. */
  readonly maxChars?: number;
}

const CONTROL = Array.from({ length: 0x20 }, (_, i) => i);
const JSON_STRING_EXCLUDED = [...CONTROL, 0x22, 0x5c];

/** The slices every vocab index carries, in bit order. */
export const TOKEN_SLICES: readonly TokenSlice[] = [
  { name: 'json-string-content', excludedAscii: JSON_STRING_EXCLUDED },
  { name: 'json-string-content-8', excludedAscii: JSON_STRING_EXCLUDED, maxChars: 8 },
  { name: 'json-string-content-16', excludedAscii: JSON_STRING_EXCLUDED, maxChars: 16 },
  { name: 'json-string-content-32', excludedAscii: JSON_STRING_EXCLUDED, maxChars: 32 },
];

if (TOKEN_SLICES.length > MAX_TOKEN_SLICES) throw new Error(`at most ${MAX_TOKEN_SLICES} token slices fit the vocab index`);

/** Whether the token with these bytes belongs to `slice`. */
export function tokenInSlice(bytes: Uint8Array, slice: TokenSlice): boolean {
  const chars = utf8CharCount(bytes);
  if (chars <= 0 || chars > (slice.maxChars ?? Infinity)) return false;
  for (const byte of bytes) if (byte < 0x80 && slice.excludedAscii.includes(byte)) return false;
  return true;
}

/**
 * The number of characters in `bytes` when they are well-formed UTF-8 (no overlong forms,
 * surrogates or code points past U+10FFFF), else -1.
 */
export function utf8CharCount(bytes: Uint8Array): number {
  let chars = 0;
  for (let i = 0; i < bytes.length; chars++) {
    const lead = bytes[i]!;
    const [length, low, high] = lead < 0x80 ? [1, 0, 0] : utf8Lead(lead);
    if (length === 0 || i + length > bytes.length) return -1;
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k]!;
      const [lo, hi] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte < lo || byte > hi) return -1;
    }
    i += length;
  }
  return chars;
}

/**
 * For a lead byte of a multi-byte UTF-8 character: its length and the range of the byte
 * after it (narrower than 0x80–0xBF after E0, ED, F0 and F4); length 0 for a byte that
 * cannot start a character.
 */
export function utf8Lead(lead: number): readonly [length: number, low: number, high: number] {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  return [0, 0, 0];
}
