// Pathological inputs: each ends as a compiled grammar whose masks work (checked with the WASM
// matcher over llama3.1) or as a typed error naming the limit or the place — never a hang, a
// stack overflow or a kernel trap. docs/limits.md describes these outcomes.
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  compileGrammar,
  DEFAULT_LIMITS,
  GrammarError,
  GrammarLimitError,
  grammarFingerprint,
  jsonGrammar,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  MAX_EXPR_DEPTH,
  MAX_NESTING,
  parseGrammar,
  UnsupportedSchemaError,
  type CompiledGrammar,
  type GrammarFormat,
  type GrammarLimits,
} from '../src/index.ts';
import { bitsetIds } from './support/oracle.ts';
import { seeded, tokensByBytes, vocab } from './support/vocabs.ts';

const index = vocab('llama3.1');
const eos = index.meta.eos_token_ids;
const byBytes = tokensByBytes(index);
let kernel: Kernel;
let llama: KernelVocab;
const kernelGrammars: KernelGrammar[] = [];
beforeAll(async () => {
  kernel = await loadKernel();
  llama = kernel.loadVocab(index.file);
});
afterEach(() => {
  for (const grammar of kernelGrammars.splice(0)) grammar.dispose();
});
afterAll(() => kernel.dispose());

const SLOW = { timeout: 60_000 };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const compile = (format: GrammarFormat, source: string, limits: Partial<GrammarLimits> = {}): CompiledGrammar =>
  compileGrammar(parseGrammar(format, source), limits);
const compileSchema = (schema: unknown, limits: Partial<GrammarLimits> = {}): CompiledGrammar => compileGrammar(jsonSchemaGrammar(schema).grammar, limits);

/** A kernel matcher over llama3.1 (its grammar is freed after the test). */
function matcherOf(grammar: CompiledGrammar): KernelMatcher {
  const kernelGrammar = new KernelGrammar(kernel, grammar);
  kernelGrammars.push(kernelGrammar);
  return new KernelMatcher(kernelGrammar, llama, { eosTokenIds: eos });
}

/** The error `run` throws, which must be a `type` (anything else, or nothing, fails the test). */
function thrown<E extends Error>(type: new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The typed error of a default limit: `{ limit, value }` as `GrammarLimitError` carries them. */
const defaultLimit = (limit: Exclude<keyof GrammarLimits, 'maskCacheBytes' | 'lexerCacheBytes'>): { limit: string; value: number } => ({
  limit,
  value: DEFAULT_LIMITS[limit],
});

/** The token whose bytes are `text`. */
function tokenId(text: string): number {
  const id = byBytes.get(Buffer.from(text).toString('hex'));
  if (id === undefined) throw new Error(`${JSON.stringify(text)} is not one token of llama3.1`);
  return id;
}

/** Which of `texts` (each one token) the mask allows. */
function allowedAmong(mask: Uint32Array, texts: readonly string[]): string[] {
  return texts.filter((text) => {
    const id = tokenId(text);
    return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
  });
}

/** Text tokens whose bytes (read one character per byte) pass `test`, and EOS when `accepting`. */
function tokensWhere(test: (text: string) => boolean, accepting: boolean): number[] {
  const ids: number[] = [];
  for (let id = 0; id < index.tokenCount; id++) {
    if (index.isTextToken(id) ? test(Buffer.from(index.tokenBytes(id)).toString('latin1')) : accepting && eos.includes(id)) ids.push(id);
  }
  return ids;
}

const maskIds = (matcher: KernelMatcher): number[] => bitsetIds(matcher.computeMaskBitset(), index.tokenCount);

/** The allowed token ids, or the limit error the mask computation stopped with. */
function maskOrLimit(matcher: KernelMatcher): number[] | GrammarLimitError {
  try {
    return maskIds(matcher);
  } catch (error) {
    if (error instanceof GrammarLimitError) return error;
    throw error;
  }
}

const isWhitespace = (text: string): boolean => /^[ \t\n\r]+$/.test(text);
const prefixesOf = (words: readonly string[]): Set<string> => new Set(words.flatMap((word) => Array.from(word, (_, n) => word.slice(0, n + 1))));

/** Commits `text` in pieces of `size` bytes, computing a mask after each; false when a piece is refused. */
function commitInPieces(matcher: KernelMatcher, text: string, size: number): boolean {
  const all = bytes(text);
  for (let at = 0; at < all.length; at += size) {
    if (!matcher.commitBytes(all.subarray(at, at + size))) return false;
    matcher.computeMaskView();
  }
  return true;
}

/** Whether `text` is accepted whole by a fresh matcher of `grammar`. */
function accepts(grammar: CompiledGrammar, text: string): boolean {
  const matcher = matcherOf(grammar);
  return matcher.commitBytes(bytes(text)) && matcher.isAccepting();
}

describe('1. nested anyOf / oneOf, 16 levels', () => {
  // Each level: a constant, or the next level; the innermost is any string.
  const constants = (keyword: string, depth: number): object =>
    depth === 0 ? { type: 'string' } : { [keyword]: [{ type: 'integer', const: depth }, constants(keyword, depth - 1)] };
  // Each level: an integer, or an object whose one property holds the next level.
  const objects = (keyword: string, depth: number): object =>
    depth === 0
      ? { type: 'string' }
      : {
          [keyword]: [
            { type: 'integer' },
            { type: 'object', properties: { [`l${depth}`]: objects(keyword, depth - 1) }, required: [`l${depth}`], additionalProperties: false },
          ],
        };

  it.each(['anyOf', 'oneOf'])('%s of constants around a string compiles; the masks enforce every level', (keyword) => {
    const grammar = compileSchema(constants(keyword, 16));
    expect(allowedAmong(matcherOf(grammar).computeMaskBitset(), ['1', '9', '16', '"', '0', '17', '{', '[', 'true'])).toEqual(['1', '9', '16', '"']);
    expect(['16', '3', '"any text"', '17', '0', '[]'].map((text) => accepts(grammar, text))).toEqual([true, true, true, false, false, false]);
  });

  it.each(['anyOf', 'oneOf'])('%s of integers and objects compiles; the masks follow the nesting', (keyword) => {
    const grammar = compileSchema(objects(keyword, 16));
    const matcher = matcherOf(grammar);
    const levels = Array.from({ length: 16 }, (_, i) => `{"l${16 - i}": `).join('');
    expect(allowedAmong(matcher.computeMaskBitset(), ['{', '5', '-', '"', '['])).toEqual(['{', '5', '-']);
    expect(matcher.commitBytes(bytes(levels))).toBe(true);
    // The innermost level is the string.
    expect(allowedAmong(matcher.computeMaskBitset(), ['{', '5', '"'])).toEqual(['"']);
    expect(matcher.commitBytes(bytes(`"x"${'}'.repeat(16)}`))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
    expect(['{"l16": {"l15": 7}}', '{"l15": 7}'].map((text) => accepts(grammar, text))).toEqual([true, false]);
  });
});

describe('2. an enum of 10,000 strings', () => {
  it('compiles; the first mask is exactly the tokens that start a value; one value is accepted', SLOW, () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `value-${i}`);
    const quoted = values.map((value) => JSON.stringify(value));
    const starts = prefixesOf(quoted);
    const complete = new Set(quoted);
    // Whitespace (at most 20 in a row, the schema default) around one value.
    const startsValue = (text: string): boolean => {
      const [, lead, rest] = /^([ \t\n\r]*)(.*)$/s.exec(text)!;
      if (lead!.length > 20) return false;
      const [, value, after] = /^("[^"]*")?(.*)$/s.exec(rest!)!;
      return rest === '' || starts.has(rest!) || (value !== undefined && complete.has(value) && /^[ \t\n\r]{1,20}$/.test(after!));
    };
    const grammar = compileSchema({ enum: values });
    const matcher = matcherOf(grammar);
    expect(maskIds(matcher)).toEqual(tokensWhere(startsValue, false));
    expect(matcher.fork().commitBytes(bytes('"value-10000"'))).toBe(false);
    expect(matcher.commitBytes(bytes('"value-9876"'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
    expect(maskIds(matcher)).toEqual(tokensWhere((text) => /^[ \t\n\r]{1,20}$/.test(text), true));
  });
});

describe('3. counted repetition {1,100000}', () => {
  it.each([
    ['regex a{1,100000}', 'compiles', () => compile('regex', 'a{1,100000}')],
    ['regex (ab|cd){1,100000}', 'compiles', () => compile('regex', '(ab|cd){1,100000}')],
    ['GBNF "a"{1,100000}', 'compiles', () => compile('gbnf', 'root ::= "a"{1,100000}\n')],
    ['JSON Schema maxLength 100000', 'compiles', () => compileSchema({ type: 'string', maxLength: 100_000 })],
    ['JSON Schema maxLength 100000 and a pattern', 'compiles', () => compileSchema({ type: 'string', maxLength: 100_000, pattern: '^a' })],
    [
      'JSON Schema maxLength 100000 and a pattern counting to 100000 (no string that long reaches the count: read as unbounded)',
      'compiles',
      () => compileSchema({ type: 'string', maxLength: 100_000, pattern: '^(ab|c){1,100000}$' }),
    ],
    [
      'JSON Schema maxLength 100000 and a pattern counting to 40000 two characters at least (a count it could reach: copied)',
      'maxNfaStates',
      () => compileSchema({ type: 'string', maxLength: 100_000, pattern: '^(ab|cd){1,40000}$' }),
    ],
    ['JSON Schema maxItems 100000', 'maxGrammarSymbols', () => compileSchema({ type: 'array', maxItems: 100_000 })],
  ] as const)('%s: %s', (_, outcome, make) => {
    if (outcome === 'compiles') expect(make).not.toThrow();
    else expect(thrown(GrammarLimitError, make)).toMatchObject(defaultLimit(outcome));
  });

  const onlyA = (text: string): boolean => /^a+$/.test(text);

  it(
    'regex a{1,100000}: a lexer state per byte, rows kept within lexerCacheBytes: 25,000 bytes match with exact masks; maxLexerStates bounds the states',
    SLOW,
    () => {
      const grammar = compile('regex', 'a{1,100000}', { lexerCacheBytes: 0 });
      const matcher = matcherOf(grammar);
      expect(matcher.commitBytes(bytes('a'.repeat(1000)))).toBe(true);
      expect(maskIds(matcher)).toEqual(tokensWhere(onlyA, true));
      commitInPieces(matcher, 'a'.repeat(24_000), 1000);
      expect(maskIds(matcher)).toEqual(tokensWhere(onlyA, true));
      expect(grammar.lexer.stateCount).toBeGreaterThan(25_000); // far past the 16 rows kept
      const bounded = compile('regex', 'a{1,100000}', { maxLexerStates: 20_000 });
      expect(thrown(GrammarLimitError, () => commitInPieces(matcherOf(bounded), 'a'.repeat(25_000), 1000))).toMatchObject({
        limit: 'maxLexerStates',
        value: 20_000,
      });
    },
  );

  it('GBNF "a"{1,100000}: matches 1,000 bytes; every repetition adds an Earley item to each later set', SLOW, () => {
    const matcher = matcherOf(compile('gbnf', 'root ::= "a"{1,100000}\n'));
    expect(matcher.commitBytes(bytes('a'.repeat(1000)))).toBe(true);
    expect(maskIds(matcher)).toEqual(tokensWhere(onlyA, true));
    // So a set after n repetitions holds about n items: maxParserItems stops long runs.
    const limited = matcherOf(compile('gbnf', 'root ::= "a"{1,100000}\n', { maxParserItems: 1000 }));
    expect(thrown(GrammarLimitError, () => limited.commitBytes(bytes('a'.repeat(2000))))).toMatchObject({ limit: 'maxParserItems', value: 1000 });
  });

  it('GBNF "a"{1,100000}: the chart grows quadratically, and maxChartItems ends it before memory does', SLOW, () => {
    const matcher = matcherOf(compile('gbnf', 'root ::= "a"{1,100000}\n', { maxChartItems: 200_000 }));
    let committed = 0;
    const error = thrown(GrammarLimitError, () => {
      for (;;) {
        matcher.commitBytes(bytes('a'.repeat(50)));
        committed += 50;
      }
    });
    expect(error).toMatchObject({ limit: 'maxChartItems', value: 200_000 });
    // About n²/2 items after n bytes; the failed piece changed nothing.
    expect(committed).toBeGreaterThan(400);
    expect(committed).toBeLessThan(1000);
    expect(matcher.commitBytes(bytes('a'))).toBe(true);
  });
});

describe('4. regexes catastrophic for backtracking engines', () => {
  // [pattern, a long input matching a prefix, a byte that completes it, a byte that cannot follow]
  it.each([
    ['(a+)+b', 'a'.repeat(10_000), 'b', 'c'],
    ['(a|a)*c', 'a'.repeat(10_000), 'c', 'b'],
    ['(a|aa)+$', 'a'.repeat(10_000), '', 'b'],
    ['(x+x+)+y', 'x'.repeat(10_000), 'y', 'z'],
    ['(.*a){20}', 'ab'.repeat(5_000), 'a', '\n'],
  ])('%s is a small automaton: linear in the input', (pattern, long, end, wrong) => {
    const grammar = compile('regex', pattern);
    const matcher = matcherOf(grammar);
    expect(matcher.commitBytes(bytes(long))).toBe(true);
    expect(allowedAmong(matcher.computeMaskBitset(), [long.at(-1)!, wrong])).toEqual([long.at(-1)]);
    expect(matcher.fork().commitBytes(bytes(wrong))).toBe(false);
    expect(matcher.commitBytes(bytes(end))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
    expect(grammar.lexer.stateCount).toBeLessThan(300);
  });

  it('(x+x+)+y needs two x: "xy" is refused, "xxy" accepted', () => {
    const grammar = compile('regex', '(x+x+)+y');
    expect([accepts(grammar, 'xy'), accepts(grammar, 'xxy')]).toEqual([false, true]);
  });

  const EXPONENTIAL = '(a|b)*a(a|b){20}';
  const randomAb = (length: number, seed: number): string => {
    const random = seeded(seed);
    return Array.from({ length }, () => (random() < 0.5 ? 'a' : 'b')).join('');
  };

  it(`${EXPONENTIAL}: along a random walk the masks and acceptance are exact`, () => {
    const matcher = matcherOf(compile('regex', EXPONENTIAL));
    const text = randomAb(500, 7);
    for (let at = 0; at < text.length; at += 25) {
      expect(matcher.commitBytes(bytes(text.slice(at, at + 25)))).toBe(true);
      const written = text.slice(0, at + 25);
      expect(allowedAmong(matcher.computeMaskBitset(), ['a', 'b', 'ab', 'c'])).toEqual(['a', 'b', 'ab']);
      expect(matcher.isAccepting()).toBe(written.at(-21) === 'a');
    }
  });

  it(`${EXPONENTIAL}: its DFA has 2^21 states; the lazy lexer follows a 20,000-byte random walk exactly and stops at maxLexerStates`, SLOW, () => {
    const text = randomAb(20_000, 11);
    const matcher = matcherOf(compile('regex', EXPONENTIAL, { lexerCacheBytes: 0 }));
    for (let at = 0; at < text.length; at += 1000) {
      commitInPieces(matcher, text.slice(at, at + 1000), 100);
      expect(allowedAmong(matcher.computeMaskBitset(), ['a', 'b', 'ab', 'c'])).toEqual(['a', 'b', 'ab']);
      expect(matcher.isAccepting()).toBe(text.slice(0, at + 1000).at(-21) === 'a');
    }
    const bounded = matcherOf(compile('regex', EXPONENTIAL, { maxLexerStates: 5_000 }));
    expect(thrown(GrammarLimitError, () => commitInPieces(bounded, text, 100))).toMatchObject({ limit: 'maxLexerStates', value: 5_000 });
  });
});

describe('5. deep nesting of values', () => {
  const nestedArrays = (depth: number, innermost: object): object => (depth === 0 ? innermost : { type: 'array', items: nestedArrays(depth - 1, innermost) });

  it("199 array schemas: the grammar's fingerprint (mask indexes) hashes each shared part once", () => {
    const deep = jsonSchemaGrammar(nestedArrays(199, { type: 'integer' })).grammar;
    expect(grammarFingerprint(deep)).toMatch(/^[0-9a-f]{16}$/);
    expect(grammarFingerprint(deep)).not.toBe(grammarFingerprint(jsonSchemaGrammar(nestedArrays(198, { type: 'integer' })).grammar));
  });

  it('200 array schemas around an integer schema: 201 levels pass the schema nesting cap of 200', () => {
    const error = thrown(UnsupportedSchemaError, () => jsonSchemaGrammar(nestedArrays(200, { type: 'integer' })));
    expect(error).toMatchObject({ code: 'unsupported', pointer: '/items'.repeat(200), message: expect.stringContaining('nesting deeper than 200 levels') });
  });

  it('200 array schemas (the innermost empty) compile; tokens from the masks write a 200-deep text', SLOW, () => {
    const matcher = matcherOf(compileSchema(nestedArrays(199, { type: 'array', items: false })));
    const choices = ['[', ']', '1', '"'];
    expect(allowedAmong(matcher.computeMaskBitset(), choices)).toEqual(['[']);
    for (let depth = 1; depth <= 200; depth++) {
      expect(matcher.commitToken(tokenId('['))).toBe(true);
      expect(allowedAmong(matcher.computeMaskBitset(), choices), `depth ${depth}`).toEqual(depth < 200 ? ['[', ']'] : [']']);
    }
    for (let depth = 200; depth >= 1; depth--) expect(matcher.commitToken(tokenId(']'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });

  it.each([200, 2_000, 20_000])('any JSON accepts arrays %i deep, committed in 64-byte pieces', SLOW, (depth) => {
    const matcher = matcherOf(compileGrammar(jsonGrammar()));
    expect(commitInPieces(matcher, '['.repeat(depth), 64)).toBe(true);
    expect(allowedAmong(matcher.computeMaskBitset(), ['[', ']', '1', '}'])).toEqual(['[', ']', '1']);
    expect(commitInPieces(matcher, ']'.repeat(depth), 64)).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });
});

describe('6. left recursion and ambiguity', () => {
  const onlyA = (text: string): boolean => /^a+$/.test(text);
  const AMBIGUOUS = 'root ::= root root root | root root | "a"\n';

  it.each([
    ['left-recursive', 'root ::= root "a" | "a"\n'],
    ['ambiguous S S', 'root ::= root root | "a"\n'],
    ['ambiguous S S S | S S', AMBIGUOUS],
  ])('%s: 200 bytes one at a time, masks exact', (_, source) => {
    const matcher = matcherOf(compile('gbnf', source));
    for (let n = 1; n <= 200; n++) {
      expect(matcher.commitBytes(bytes('a'))).toBe(true);
      if (n % 50 === 0) expect(maskIds(matcher)).toEqual(tokensWhere(onlyA, true));
    }
    expect(matcher.isAccepting()).toBe(true);
  });

  it("repetitions of a star (llama.cpp's 'hang' case): one parse, not one per split of the text among the copies", () => {
    const nested = compile('gbnf', 'root ::= (((((([^x]*){0,99}){0,99}){0,99}){0,99}){0,99}){0,99}\n');
    expect(accepts(nested, 'a'.repeat(1000))).toBe(true);
    expect(accepts(nested, 'a'.repeat(999) + 'x')).toBe(false);
    const matcher = matcherOf(nested);
    expect(matcher.commitBytes(bytes('a'.repeat(1000)))).toBe(true);
    expect(matcher.forcedBytes()).toEqual(new Uint8Array(0));
    // (X+){m,n} is X{m,}: counts still hold below m.
    const plus = compile('gbnf', 'root ::= ("a"+){2,3} "b"\n');
    expect(['ab', 'aab', 'aaaaab'].map((text) => accepts(plus, text))).toEqual([false, true, true]);
  });

  it('Lark left recursion: a sum of 200 numbers, mask exact', () => {
    const matcher = matcherOf(compile('lark', 'start: start "+" NUM | NUM\nNUM: /[0-9]+/\n'));
    expect(commitInPieces(matcher, Array.from({ length: 200 }, (_, i) => i).join('+'), 16)).toBe(true);
    expect(maskIds(matcher)).toEqual(tokensWhere((text) => /^[0-9]*(\+[0-9]+)*\+?$/.test(text), true));
  });

  it('S S S | S S: every Earley set grows with the input, so maxParserItems (500 here) is reached', () => {
    const matcher = matcherOf(compile('gbnf', AMBIGUOUS, { maxParserItems: 500 }));
    expect(thrown(GrammarLimitError, () => matcher.commitBytes(bytes('a'.repeat(200))))).toMatchObject({ limit: 'maxParserItems', value: 500 });
  });

  it('S S S | S S: a commit whose work grows without bound ends at maxMaskMs, the matcher as it was', SLOW, () => {
    // Completion work grows cubically here: 3,000 bytes in one commit would take minutes.
    const matcher = matcherOf(compile('gbnf', AMBIGUOUS, { maxMaskMs: 100 }));
    expect(matcher.commitBytes(bytes('aa'))).toBe(true);
    expect(thrown(GrammarLimitError, () => matcher.commitBytes(bytes('a'.repeat(3_000))))).toMatchObject({ limit: 'maxMaskMs', value: 100 });
    expect(matcher.commitBytes(bytes('a'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });

  it('S S S | S S with maxMaskMs 50: each mask is exact or the typed maxMaskMs error', () => {
    const matcher = matcherOf(compile('gbnf', AMBIGUOUS, { maxMaskMs: 50 }));
    const expected = tokensWhere(onlyA, true);
    for (let n = 1; n <= 200; n++) {
      expect(matcher.commitBytes(bytes('a'))).toBe(true);
      if (n % 20 !== 0) continue;
      const mask = maskOrLimit(matcher);
      if (mask instanceof GrammarLimitError) expect(mask).toMatchObject({ limit: 'maxMaskMs', value: 50 });
      else expect(mask).toEqual(expected);
    }
  });
});

describe('7. unbounded whitespace', () => {
  it.each<[string, () => CompiledGrammar, number]>([
    ['any JSON, default whitespace', () => compileGrammar(jsonGrammar()), 64],
    ['any JSON, whitespace.maxRun 5', () => compileGrammar(jsonGrammar({ maxRun: 5 })), 5],
    ['JSON Schema, default whitespace', () => compileSchema({ type: 'array' }), 20],
  ])('%s: a run of whitespace ends after maxRun (%i) bytes', (_, make, maxRun) => {
    const matcher = matcherOf(make());
    const whitespaceTokens = (): number[] =>
      maskIds(matcher).filter((id) => index.isTextToken(id) && isWhitespace(Buffer.from(index.tokenBytes(id)).toString('latin1')));
    expect(matcher.commitBytes(bytes(`[${' '.repeat(maxRun - 1)}`))).toBe(true);
    expect(whitespaceTokens()).toEqual(tokensWhere((text) => isWhitespace(text) && text.length === 1, false));
    expect(matcher.commitBytes(bytes(' '))).toBe(true);
    expect(whitespaceTokens()).toEqual([]);
    expect(matcher.fork().commitBytes(bytes('\n'))).toBe(false);
    expect(matcher.commitBytes(bytes('1]'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });

  it('Lark %ignore /[ \\t\\n]+/ has no cap: 3,000 bytes of whitespace between two tokens', () => {
    const grammar = compile('lark', 'start: "a" "b"\n%ignore /[ \\t\\n]+/\n');
    const matcher = matcherOf(grammar);
    expect(commitInPieces(matcher, `a${' \t\n'.repeat(1000)}`, 100)).toBe(true);
    expect(allowedAmong(matcher.computeMaskBitset(), [' ', '\n', 'b', 'a'])).toEqual([' ', '\n', 'b']);
    expect(matcher.commitBytes(bytes('b'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
    expect(grammar.lexer.stateCount).toBeLessThan(20);
  });
});

describe('8. huge and deeply nested sources', () => {
  it('GBNF with 10,000 alternatives compiles; masks are exact', () => {
    const words = Array.from({ length: 10_000 }, (_, i) => `alt${i}`);
    const matcher = matcherOf(compile('gbnf', `root ::= ${words.map((w) => JSON.stringify(w)).join(' | ')}\n`));
    const starts = prefixesOf(words);
    expect(maskIds(matcher)).toEqual(tokensWhere((text) => starts.has(text), false));
    expect(matcher.commitBytes(bytes('alt9999'))).toBe(true);
    expect(maskIds(matcher)).toEqual(tokensWhere(() => false, true));
  });

  const nestedGroups = (format: 'regex' | 'gbnf' | 'lark', depth: number): string => {
    const groups = `${'('.repeat(depth)}${format === 'regex' ? 'a' : '"a"'}${')'.repeat(depth)}`;
    return format === 'regex' ? groups : format === 'gbnf' ? `root ::= ${groups}\n` : `start: ${groups}\n`;
  };

  it.each(['regex', 'gbnf', 'lark'] as const)('%s: 5,000 nested groups are refused at group 201; 200 compile', (format) => {
    const source = nestedGroups(format, 5_000);
    const error = thrown(GrammarError, () => parseGrammar(format, source));
    expect(error).toMatchObject({ code: 'unsupported', message: `groups nested deeper than ${MAX_NESTING} levels` });
    expect(source.slice(0, error.span!.start).split('(').length - 1).toBe(MAX_NESTING);
    expect(accepts(compile(format, nestedGroups(format, MAX_NESTING)), 'a')).toBe(true);
  });

  it.each(['gbnf', 'lark'] as const)('%s: 5,000 postfix operators in a row are refused; 500 compile', (format) => {
    const rule = (count: number): string => `${format === 'gbnf' ? 'root ::=' : 'start:'} "a"${'?'.repeat(count)}\n`;
    expect(thrown(GrammarError, () => compileGrammar(parseGrammar(format, rule(5_000))))).toMatchObject({
      code: 'unsupported',
      message: `expression nested deeper than ${MAX_EXPR_DEPTH} levels (groups and repetition operators)`,
    });
    expect(accepts(compile(format, rule(500)), 'a')).toBe(true);
  });

  it('Lark: a chain of 5,000 terminals, each using the next, is refused', () => {
    const chain = (length: number): string => `start: T0\n${Array.from({ length }, (_, i) => `T${i}: "a"${i + 1 < length ? ` T${i + 1}` : ''}`).join('\n')}\n`;
    expect(thrown(GrammarError, () => parseGrammar('lark', chain(5_000)))).toMatchObject({
      code: 'unsupported',
      message: `terminals nested deeper than ${MAX_NESTING} levels`,
    });
    expect(accepts(compile('lark', chain(MAX_NESTING)), 'a'.repeat(MAX_NESTING))).toBe(true);
  });

  it('JSON Schema: a $ref chain 1,000 long passes the schema nesting cap; 199 long compiles', () => {
    const chain = (length: number): object => ({
      $defs: Object.fromEntries(Array.from({ length }, (_, i) => [`d${i}`, i + 1 < length ? { $ref: `#/$defs/d${i + 1}` } : { type: 'integer' }])),
      $ref: '#/$defs/d0',
    });
    expect(thrown(UnsupportedSchemaError, () => jsonSchemaGrammar(chain(1_000)))).toMatchObject({
      pointer: '/$defs/d199',
      keyword: '$ref',
      message: expect.stringContaining('nesting deeper than 200 levels'),
    });
    expect(accepts(compileSchema(chain(199)), '42')).toBe(true);
  });

  const nest = (depth: number, innermost: unknown, wrap: (inner: unknown) => unknown): unknown =>
    depth === 0 ? innermost : wrap(nest(depth - 1, innermost, wrap));

  it.each([
    ['properties in properties', nest(5_000, { type: 'string' }, (p) => ({ type: 'object', properties: { p } })), '/properties/p'.repeat(500)],
    ['allOf in properties', nest(5_000, { type: 'string' }, (p) => ({ allOf: [{ type: 'object', properties: { p } }] })), '/allOf/0/properties/p'.repeat(250)],
    ['a const value', { const: nest(5_000, 'x', (p) => ({ p })) }, `/const${'/p'.repeat(999)}`],
  ])('JSON Schema 5,000 levels deep (%s) is refused at 1,000 levels of objects and arrays', (_, schema, pointer) => {
    expect(thrown(UnsupportedSchemaError, () => jsonSchemaGrammar(schema))).toMatchObject({
      code: 'unsupported',
      pointer,
      message: expect.stringContaining('nested deeper than 1000 levels'),
    });
  });

  it('JSON Schema: a const value 999 levels deep compiles and is accepted', SLOW, () => {
    const matcher = matcherOf(compileSchema({ const: nest(999, 'x', (p) => ({ p })) }));
    expect(commitInPieces(matcher, `${'{"p":'.repeat(999)}"x"${'}'.repeat(999)}`, 256)).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });
});
