// Which token slices a lexer state accepts whole: checked against hand-worked cases (the
// mask-level exactness tests in kernel-matcher.test.ts check the masks they produce).
import { TOKEN_SLICES } from '@sieve/format';
import { describe, expect, it } from 'vitest';
import { rx, type ByteRegex } from '../src/ir/byte-regex.ts';
import { jsonRegex } from '../src/frontends/json.ts';
import { compileGrammar, parseGrammar } from '../src/index.ts';
import { jsonStringSpellings } from '../src/frontends/json-schema/json-strings.ts';
import { LexerDfa } from '../src/lexer/lexer-dfa.ts';
import { DEFAULT_LIMITS } from '../src/limits.ts';
import { sliceLengthBound, sliceMask, widestSlices } from '../src/lexer/slice-acceptance.ts';

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

// The state after `text` of a lexer whose one lexeme is `regex` (built directly: the text
// front ends have no intersection or complement).
function byteRegexAfter(regex: ByteRegex, text: string): { lexer: LexerDfa; state: number } {
  const lexer = new LexerDfa([{ name: 'KEY', regex }], [], DEFAULT_LIMITS);
  let state = lexer.start([0]);
  for (const byte of new TextEncoder().encode(text)) state = lexer.next(state, byte);
  return { lexer, state };
}
const ANY_STRING = jsonRegex.string(jsonRegex.stringChar(), 0, Infinity);

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

  it('accepts inside a key that is not one of many declared names, from the shadow of the product (no search)', () => {
    // An open object's other keys: any string but the 400 names. Its product with the names'
    // complement has a state per name prefix; the shadow is the string automaton's.
    const names = Array.from({ length: 400 }, (_, i) => `n${i.toString(36)}x${i}`);
    const { lexer, state } = byteRegexAfter(rx.and([ANY_STRING, rx.not(rx.alt(names.map(jsonStringSpellings)))]), '"n1');
    const before = lexer.stateCount;
    expect(sliceMask(lexer, state)).toBe(ALL);
    // (The states one ASCII character on, from the probe for the usual refusals; a search
    // would build a hundred more.)
    const asciiRuns = lexer.byteCuts(state).filter((cut) => cut < 0x80).length;
    expect(lexer.stateCount - before).toBeLessThanOrEqual(asciiRuns);
  });

  it('leaves out of the shadow what kills the product but not its operand', () => {
    // Up to 60 characters, but not starting with "abcdefgh": after "abcdefg" an "h" (one
    // character, in every slice) kills the key while the plain string would live on.
    const key = rx.and([
      jsonRegex.string(jsonRegex.stringChar(), 0, 60),
      rx.not(rx.seq([rx.literal('"abcdefgh'), rx.repeat(rx.byteRanges([0, 255]), 0, Infinity)])),
    ]);
    const slicesAfter = (text: string): number => {
      const { lexer, state } = byteRegexAfter(key, text);
      return sliceMask(lexer, state);
    };
    expect(slicesAfter('"abcdefg')).toBe(0);
    expect(slicesAfter('"abcdef')).toBe(0); // "gh"
    // Off the prefix, the bounded slices that fit the length left (the shadow, cut where the
    // prefix was, says less: the threads themselves are explored).
    expect(slicesAfter('"abcdefx')).toBe(UP_TO(32));
  });

  it('keeps the widest accepted slice of each kind for the kernel', () => {
    expect(widestSlices(ALL)).toBe(CONTENT);
    expect(widestSlices(UP_TO(40))).toBe(bit('json-string-content-32'));
    expect(widestSlices(0)).toBe(0);
  });
});

describe('length bounds on slice 0', () => {
  it.each([
    ['at most 12 characters, 2 read', `"${STRING_CHAR}{0,12}"`, '"ab', { bound: 10, above: 8 }],
    ['at least 3, at most 5, 1 read', `"${STRING_CHAR}{3,5}"`, '"a', { bound: 4, above: 0 }],
    ['at most 5 characters, 5 read (only the quote is left)', `"${STRING_CHAR}{0,5}"`, '"abcde', { bound: 0, above: 0 }],
    ['at most 5 characters, a two-byte one read', `"${STRING_CHAR}{0,5}"`, '"é', { bound: 4, above: 0 }],
    ['at most 100 characters, 20 read (past the widest bounded slice)', `"${STRING_CHAR}{0,100}"`, '"' + 'x'.repeat(20), null],
    ['unbounded', `"${STRING_CHAR}*"`, '"ab', null],
    ['letters only (other characters die at once)', '"[a-z]{0,5}"', '"ab', null],
    ['an escape may come (a backslash is not slice 0)', `"(${STRING_CHAR}|\\\\n){0,5}"`, '"ab', { bound: 3, above: 0 }],
    ['a lexeme that may end (a number)', '[0-9]{0,3}', '1', null],
  ])('%s', (_, regex, text, expected) => {
    const { lexer, state } = lexerAfter(regex, text);
    expect(sliceLengthBound(lexer, state)).toEqual(expected);
  });

  it('one search settles every later position of a counted string, with no states built', () => {
    const { lexer, state } = lexerAfter(`"${STRING_CHAR}{0,12}"`, '"');
    expect(sliceLengthBound(lexer, state)).toEqual({ bound: 12, above: 8 });
    let at = state;
    for (const [i, byte] of [...new TextEncoder().encode('abcdefghijkl')].entries()) {
      at = lexer.next(at, byte);
      const before = lexer.stateCount;
      expect(sliceLengthBound(lexer, at)).toEqual({ bound: 11 - i, above: 11 - i >= 8 ? 8 : 0 });
      expect(lexer.stateCount).toBe(before);
    }
  });
});
