// Which token slices a lexer state accepts whole: checked against hand-worked cases (the
// mask-level exactness tests in kernel-matcher.test.ts check the masks they produce).
import { TOKEN_SLICES } from '@sieve/format';
import { describe, expect, it } from 'vitest';
import { compileGrammar, parseGrammar } from '../src/index.ts';
import type { LexerDfa } from '../src/lexer.ts';
import { sliceMask, widestSlices } from '../src/token-slices.ts';

const bit = (name: string): number => 1 << TOKEN_SLICES.findIndex((s) => s.name === name);
const CONTENT = bit('json-string-content');
// The bounded slices of at most `n` characters.
const UP_TO = (n: number): number => TOKEN_SLICES.reduce((mask, s, i) => (s.maxChars !== undefined && s.maxChars <= n ? mask | (1 << i) : mask), 0);
const ALL = CONTENT | UP_TO(Infinity);

// The lexer and its state after `text` (or bytes), for a grammar that is one regex.
function lexerAfter(regex: string, text: string | readonly number[]): { lexer: LexerDfa; state: number } {
  const lexer = compileGrammar(parseGrammar('regex', regex)).lexer;
  let state = lexer.start(lexer.lexemes.map((_, i) => i));
  for (const byte of typeof text === 'string' ? new TextEncoder().encode(text) : text) state = lexer.next(state, byte);
  return { lexer, state };
}
function stateAfter(regex: string, text: string): { mask: number } {
  const { lexer, state } = lexerAfter(regex, text);
  return { mask: sliceMask(lexer, state) };
}

const STRING_CHAR = '[^"\\\\\\x00-\\x1f]';

describe('token slices a lexer state accepts whole', () => {
  it.each([
    ['inside a JSON string', `"(${STRING_CHAR}|\\\\["\\\\/bfnrt])*"`, '"ab', ALL],
    ['at most 20 characters, 2 read', `"${STRING_CHAR}{0,20}"`, '"ab', UP_TO(18)],
    ['at most 20 characters, 15 read', `"${STRING_CHAR}{0,20}"`, '"abcdefghijklmno', 0],
    ['at most 100 characters, 60 read', `"${STRING_CHAR}{0,100}"`, '"' + 'x'.repeat(60), UP_TO(40)],
    ['at most 64 characters, none read', `"${STRING_CHAR}{0,64}"`, '"', UP_TO(64)],
    ['letters only', '"[a-z]*"', '"ab', 0],
    ['anything but a quote', '[^"]*', 'ab', ALL],
    ['a number', '[0-9]+', '12', 0],
    ['a key containing a name (unanchored pattern)', `"${STRING_CHAR}*(Red|Blue)${STRING_CHAR}*"`, '"Re', ALL],
    ['a string of one letter then anything', `"[a-z]${STRING_CHAR}{0,30}"`, '"', 0],
  ])('%s', (_, regex, text, expected) => {
    expect(stateAfter(regex, text).mask).toBe(expected);
  });

  it('refuses after half a UTF-8 character', () => {
    const { lexer, state } = lexerAfter(`"${STRING_CHAR}*"`, [0x22, 0xe6, 0x97]);
    expect(sliceMask(lexer, state)).toBe(0);
  });

  it('accepts through a thread that loops on every character without searching the states around it', () => {
    // 400 names: telling them apart takes more lexer states than a search may visit, but the
    // free-text thread never dies.
    const names = Array.from({ length: 400 }, (_, i) => `n${i.toString(36)}x${i}`).join('|');
    const { lexer, state } = lexerAfter(`"(${names}|${STRING_CHAR}*)"`, '"');
    const before = lexer.stateCount;
    expect(sliceMask(lexer, state)).toBe(ALL);
    // (One ASCII character on, a few states: the probe for the usual refusals.)
    expect(lexer.stateCount - before).toBeLessThan(8);
  });

  it('settles the bounded slices of a long counted string from its threads, without searching lexer states', () => {
    const { lexer, state } = lexerAfter(`"${STRING_CHAR}{0,2000}"`, '"');
    const before = lexer.stateCount;
    expect(sliceMask(lexer, state)).toBe(UP_TO(Infinity));
    expect(lexer.stateCount - before).toBeLessThan(8);
  });

  it('searches states where no single thread settles it, leaving those whose threads do', () => {
    // Either branch dies on the first character of the other, and then lives 300 more.
    const regex = `"(a${STRING_CHAR}{0,300}|[^a"\\\\\\x00-\\x1f]${STRING_CHAR}{0,300})"`;
    const { lexer, state } = lexerAfter(regex, '"');
    const before = lexer.stateCount;
    expect(sliceMask(lexer, state)).toBe(UP_TO(Infinity));
    expect(lexer.stateCount - before).toBeLessThan(20);
  });

  it('settles the states of a long counted string from the kill found once', () => {
    const { lexer, state } = lexerAfter(`"${STRING_CHAR}{0,200}"`, '"');
    expect(sliceMask(lexer, state)).toBe(UP_TO(Infinity));
    let at = state;
    for (let read = 1; read <= 200; read++) {
      at = lexer.next(at, 0x61);
      expect(sliceMask(lexer, at), `${read} read`).toBe(UP_TO(200 - read));
    }
  });

  it('keeps the widest accepted slice of each kind for the kernel', () => {
    expect(widestSlices(ALL)).toBe(CONTENT);
    expect(widestSlices(UP_TO(40))).toBe(bit('json-string-content-32'));
    expect(widestSlices(0)).toBe(0);
  });
});
