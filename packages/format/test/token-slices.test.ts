import { describe, expect, it } from 'vitest';
import { TOKEN_SLICES, tokenInSlice, utf8CharCount } from '../src/index.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('token slices', () => {
  it('counts the characters of well-formed UTF-8 only', () => {
    expect(utf8CharCount(text('héllo €𝄞'))).toBe(8);
    expect(utf8CharCount(bytes())).toBe(0);
    expect(utf8CharCount(bytes(0xc3))).toBe(-1); // cut short
    expect(utf8CharCount(bytes(0xa9))).toBe(-1); // a continuation byte first
    expect(utf8CharCount(bytes(0xc0, 0x80))).toBe(-1); // overlong
    expect(utf8CharCount(bytes(0xe0, 0x80, 0x80))).toBe(-1); // overlong
    expect(utf8CharCount(bytes(0xed, 0xa0, 0x80))).toBe(-1); // a surrogate
    expect(utf8CharCount(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(-1); // past U+10FFFF
    expect(utf8CharCount(bytes(0xf4, 0x8f, 0xbf, 0xbf))).toBe(1);
  });

  it('agrees with a strict decoder on every 1- and 2-byte sequence', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const decodes = (b: Uint8Array): boolean => {
      try {
        decoder.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) expect(utf8CharCount(bytes(a, b)) >= 0).toBe(decodes(bytes(a, b)));
    }
  });

  it('puts plain JSON string content in the string slices', () => {
    const [content, short] = TOKEN_SLICES;
    expect(content!.name).toBe('json-string-content');
    for (const s of ['hello', ' world', 'é', '日本語', "it's", '{}[],:']) expect(tokenInSlice(text(s), content!)).toBe(true);
    for (const s of ['"', 'a"', '\\n', '\n', '\t', 'ab\u0000']) expect(tokenInSlice(text(s), content!)).toBe(false);
    expect(tokenInSlice(bytes(0xe6, 0x97), content!)).toBe(false); // part of a character
    expect(tokenInSlice(bytes(), content!)).toBe(false);
    expect(tokenInSlice(text('12345678'), short!)).toBe(true);
    expect(tokenInSlice(text('123456789'), short!)).toBe(false);
    expect(tokenInSlice(text('123456789'), content!)).toBe(true);
  });
});
