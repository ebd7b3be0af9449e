// Which token slices a lexer state accepts whole: checked against hand-worked cases (the
// mask-level exactness tests in kernel-matcher.test.ts check the masks they produce).
import { TOKEN_SLICES } from '@sieve/format';
import { describe, expect, it } from 'vitest';
import { compileGrammar, parseGrammar } from '../src/index.ts';
import { sliceMask } from '../src/token-slices.ts';

const CONTENT = 1 << TOKEN_SLICES.findIndex((s) => s.name === 'json-string-content');
const SHORT = 1 << TOKEN_SLICES.findIndex((s) => s.name === 'json-string-content-8');

// The lexer state after `text`, for a grammar that is one regex.
function stateAfter(regex: string, text: string): { mask: number } {
  const lexer = compileGrammar(parseGrammar('regex', regex)).lexer;
  let state = lexer.start(lexer.lexemes.map((_, i) => i));
  for (const byte of new TextEncoder().encode(text)) state = lexer.next(state, byte);
  return { mask: sliceMask(lexer, state) };
}

describe('token slices a lexer state accepts whole', () => {
  it.each([
    ['inside a JSON string', '"([^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt])*"', '"ab', CONTENT | SHORT],
    ['at most 20 characters, 2 read', '"[^"\\\\\\x00-\\x1f]{0,20}"', '"ab', SHORT],
    ['at most 20 characters, 15 read', '"[^"\\\\\\x00-\\x1f]{0,20}"', '"abcdefghijklmno', 0],
    ['letters only', '"[a-z]*"', '"ab', 0],
    ['anything but a quote', '[^"]*', 'ab', CONTENT | SHORT],
    ['a number', '[0-9]+', '12', 0],
  ])('%s', (_, regex, text, expected) => {
    expect(stateAfter(regex, text).mask).toBe(expected);
  });

  it('refuses after half a UTF-8 character', () => {
    const lexer = compileGrammar(parseGrammar('regex', '"[^"\\\\\\x00-\\x1f]*"')).lexer;
    let state = lexer.start(lexer.lexemes.map((_, i) => i));
    for (const byte of [0x22, 0xe6, 0x97]) state = lexer.next(state, byte);
    expect(sliceMask(lexer, state)).toBe(0);
  });

  it('gives up, refusing, past MAX_SLICE_STATES lexer states', () => {
    // 400 names: telling them apart takes more lexer states than the check may visit.
    const names = Array.from({ length: 400 }, (_, i) => `n${i.toString(36)}x${i}`).join('|');
    expect(stateAfter(`"(${names}|[^"\\\\\\x00-\\x1f]*)"`, '"').mask & CONTENT).toBe(0);
    expect(stateAfter(`"(${names}|[^"\\\\\\x00-\\x1f]*)"`, '"zz').mask & CONTENT).toBe(CONTENT);
  });
});
