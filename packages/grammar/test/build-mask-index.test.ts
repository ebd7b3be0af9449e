// The ahead-of-time mask index against the live kernel matcher: identical masks, commits,
// acceptance, forced bytes, rollback and fork along random walks — for complete indexes and
// for indexes cut short by their state budget (where the matcher leaves the index).
import { MaskIndex, MaskIndexFormatError, writeMaskIndex } from '@sieve/format';
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMaskIndex,
  checkMaskIndex,
  compileGrammar,
  grammarFingerprint,
  IndexedMatcher,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  MaskIndexMismatchError,
  Matcher,
  parseGrammar,
  type CompiledGrammar,
} from '../src/index.ts';
import { bitsetIds } from './support/oracle.ts';
import { seeded, vocab } from './support/vocabs.ts';

let kernel: Kernel;
let stories: KernelVocab;
beforeAll(async () => {
  kernel = await loadKernel();
  stories = kernel.loadVocab(vocab('stories260k').file);
});
afterAll(() => kernel.dispose());

const SMALL_OBJECT = {
  type: 'object',
  properties: { size: { enum: ['S', 'M', 'L'] }, count: { type: 'integer', minimum: 1, maximum: 20 }, gift: { type: 'boolean' } },
  required: ['size'],
  additionalProperties: false,
};
const grammars: [string, () => CompiledGrammar][] = [
  ['regex', () => compileGrammar(parseGrammar('regex', '(yes|no|maybe)( [0-9]{1,3})?'))],
  ['GBNF with alternatives', () => compileGrammar(parseGrammar('gbnf', 'root ::= "(" item ("," item){0,2} ")"\nitem ::= "a" | "bb" | [0-9]'))],
  [
    'JSON Schema object (permutation states)',
    () => compileGrammar(jsonSchemaGrammar(SMALL_OBJECT, { whitespace: { separators: { item: ', ', key: ': ' } } }).grammar),
  ],
  [
    'JSON Schema with free strings',
    () =>
      compileGrammar(
        jsonSchemaGrammar({
          type: 'object',
          properties: { name: { type: 'string', maxLength: 3 }, tags: { type: 'array', items: { enum: ['x', 'y'] }, maxItems: 3 } },
          additionalProperties: false,
        }).grammar,
      ),
  ],
];

function walkAndCompare(grammar: CompiledGrammar, index: MaskIndex, seed: number, walks: number): { indexedSteps: number; steps: number } {
  const eos = vocab('stories260k').meta.eos_token_ids;
  const loaded = new KernelGrammar(kernel, grammar);
  const random = seeded(seed);
  let indexedSteps = 0;
  let steps = 0;
  try {
    for (let walk = 0; walk < walks; walk++) {
      const live = new KernelMatcher(loaded, stories, { eosTokenIds: eos });
      const indexed = new IndexedMatcher(index, () => new KernelMatcher(loaded, stories, { eosTokenIds: eos }), eos);
      const masks: string[] = [];
      for (let step = 0; step < 40; step++) {
        steps++;
        if (indexed.indexed) indexedSteps++;
        const expected = live.computeMaskBitset();
        expect(Array.from(indexed.computeMaskBitset()), `walk ${walk} step ${step}`).toEqual(Array.from(expected));
        expect(Array.from(indexed.computeMask())).toEqual(Array.from(live.computeMask()));
        expect(indexed.isAccepting()).toBe(live.isAccepting());
        expect(Array.from(indexed.forcedBytes())).toEqual(Array.from(live.forcedBytes()));
        expect(Array.from(indexed.forcedBytes(1))).toEqual(Array.from(live.forcedBytes(1)));
        masks.push(Array.from(expected).join());
        // Any token (allowed or not) is refused or taken by both alike.
        const probe = Math.floor(random() * stories.tokenCount);
        const probeIndexed = indexed.fork();
        const probeLive = live.fork();
        expect(probeIndexed.commitToken(probe)).toBe(probeLive.commitToken(probe));
        probeIndexed.dispose();
        probeLive.dispose();
        const allowed = bitsetIds(expected, stories.tokenCount);
        if (allowed.length === 0) break;
        const id = allowed[Math.floor(random() * allowed.length)]!;
        expect(indexed.commitToken(id)).toBe(true);
        expect(live.commitToken(id)).toBe(true);
        expect(indexed.isFinished).toBe(live.isFinished);
        expect(indexed.tokenCount).toBe(live.tokenCount);
        if (live.isFinished) break;
      }
      // Rolling back replays the same masks; a fork keeps the end state.
      const forked = indexed.fork();
      while (indexed.tokenCount > 0 && masks.length > indexed.tokenCount) {
        indexed.rollback(1);
        expect(Array.from(indexed.computeMaskBitset()).join()).toBe(masks[indexed.tokenCount]);
      }
      expect(Array.from(forked.computeMaskBitset())).toEqual(Array.from(live.computeMaskBitset()));
      forked.dispose();
      indexed.dispose();
      live.dispose();
    }
  } finally {
    loaded.dispose();
  }
  return { indexedSteps, steps };
}

describe.each(grammars)('%s', (_, make) => {
  it('a complete index serves every mask, equal to the live matcher', () => {
    const built = buildMaskIndex(make(), kernel, stories, vocab('stories260k'), { maxStates: 100_000 });
    expect(built.complete).toBe(true);
    expect(built.index.stateCount).toBe(built.stateCount);
    const { indexedSteps, steps } = walkAndCompare(make(), built.index, 5, 6);
    expect(indexedSteps).toBe(steps);
  }, 120_000);

  it('an index cut short hands over to the live matcher with the same answers', () => {
    const built = buildMaskIndex(make(), kernel, stories, vocab('stories260k'), { maxStates: 3 });
    expect(built.stateCount).toBe(3);
    expect(built.complete).toBe(false);
    const { indexedSteps, steps } = walkAndCompare(make(), built.index, 9, 6);
    expect(indexedSteps).toBeGreaterThan(0);
    expect(indexedSteps).toBeLessThan(steps);
  }, 120_000);
});

describe('arguments no matcher can take are refused alike (index, kernel, TypeScript)', () => {
  it('a token id that is no token commits nothing; a bad rollback or forced-bytes cap is a RangeError', () => {
    const grammar = compileGrammar(parseGrammar('regex', '[^\\n]{0,30}'));
    const built = buildMaskIndex(grammar, kernel, stories, vocab('stories260k'), { maxStates: 100 });
    const loaded = new KernelGrammar(kernel, grammar);
    const eos = vocab('stories260k').meta.eos_token_ids;
    const matchers = [
      new KernelMatcher(loaded, stories, { eosTokenIds: eos }),
      new IndexedMatcher(built.index, () => new KernelMatcher(loaded, stories, { eosTokenIds: eos }), eos),
      new Matcher(grammar, vocab('stories260k'), { eosTokenIds: eos }),
    ];
    const token = bitsetIds(matchers[0]!.computeMaskBitset(), stories.tokenCount).find((id) => !eos.includes(id))!;
    for (const matcher of matchers) {
      // (The kernel read 1.5 as 1 and 2^32 + id as id.)
      for (const id of [token + 0.5, 2 ** 32 + token, -(2 ** 32) + token, NaN, -1, stories.tokenCount + 5])
        expect(matcher.commitToken(id), `${id}`).toBe(false);
      expect(matcher.tokenCount).toBe(0);
      expect(matcher.commitToken(token)).toBe(true);
      for (const n of [1.5, NaN, -1, 2]) expect(() => matcher.rollback(n), `${n}`).toThrow(RangeError);
      for (const cap of [-1, 1.5, NaN]) expect(() => matcher.forcedBytes(cap), `${cap}`).toThrow(RangeError);
      matcher.rollback(1);
      expect(matcher.tokenCount).toBe(0);
      matcher.dispose();
    }
    loaded.dispose();
  });
});

describe('an EOS id that is also a text token', () => {
  it('is in the mask where the output is complete, and only there, as commitToken takes it (index, kernel, TypeScript)', () => {
    const vocabIndex = vocab('stories260k');
    const textToken = (text: string): number => {
      for (let id = 0; id < vocabIndex.tokenCount; id++)
        if (vocabIndex.isTextToken(id) && new TextDecoder().decode(vocabIndex.tokenBytes(id)) === text) return id;
      throw new Error(`no token ${text}`);
    };
    const [open, close] = [textToken('('), textToken(')')];
    const grammar = compileGrammar(parseGrammar('gbnf', 'root ::= "(" [a-z]{0,3} ")" ")"?'));
    const built = buildMaskIndex(grammar, kernel, stories, vocabIndex);
    const loaded = new KernelGrammar(kernel, grammar);
    const eos = [close];
    const matchers = [
      new KernelMatcher(loaded, stories, { eosTokenIds: eos }),
      new IndexedMatcher(built.index, () => new KernelMatcher(loaded, stories, { eosTokenIds: eos }), eos),
      new Matcher(grammar, vocabIndex, { eosTokenIds: eos }),
    ];
    for (const matcher of matchers) {
      expect(matcher.commitToken(open)).toBe(true);
      // ")" would end the output here, which is not complete: refused, and out of the mask.
      expect(bitsetIds(matcher.computeMaskBitset(), stories.tokenCount)).not.toContain(close);
      const probe = matcher.fork();
      expect(probe.commitToken(close)).toBe(false);
      probe.dispose();
      expect(matcher.commitBytes(new TextEncoder().encode('a)'))).toBe(true);
      expect(bitsetIds(matcher.computeMaskBitset(), stories.tokenCount)).toContain(close);
      expect(matcher.commitToken(close) && matcher.isFinished).toBe(true);
      matcher.dispose();
    }
    loaded.dispose();
  });
});

describe('bytes fed directly leave the index', () => {
  it('token healing bytes go to the live matcher; rollback returns to the index', () => {
    const grammar = compileGrammar(jsonSchemaGrammar(SMALL_OBJECT, { whitespace: { separators: { item: ', ', key: ': ' } } }).grammar);
    const built = buildMaskIndex(grammar, kernel, stories, vocab('stories260k'));
    const loaded = new KernelGrammar(kernel, grammar);
    const eos = vocab('stories260k').meta.eos_token_ids;
    const live = new KernelMatcher(loaded, stories, { eosTokenIds: eos });
    const indexed = new IndexedMatcher(built.index, () => new KernelMatcher(loaded, stories, { eosTokenIds: eos }), eos);
    const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
    // A token, then bytes: the matcher leaves the index; rolling the token back returns to it.
    const open = bitsetIds(indexed.computeMaskBitset(), stories.tokenCount).find(
      (id) => new TextDecoder().decode(vocab('stories260k').tokenBytes(id)) === '{',
    )!;
    expect(indexed.commitToken(open) && live.commitToken(open)).toBe(true);
    expect(indexed.commitBytes(encode('"si'))).toBe(true);
    expect(live.commitBytes(encode('"si'))).toBe(true);
    expect(indexed.indexed).toBe(false);
    expect(Array.from(indexed.computeMaskBitset())).toEqual(Array.from(live.computeMaskBitset()));
    expect(indexed.commitBytes(encode('x'))).toBe(false);
    indexed.rollback(1);
    expect(indexed.indexed).toBe(true);
    expect(indexed.tokenCount).toBe(0);
    // Bytes before any token keep it out of the index for good.
    expect(indexed.commitBytes(encode('{'))).toBe(true);
    expect(indexed.indexed).toBe(false);
    expect(indexed.tokenCount).toBe(0);
    indexed.dispose();
    live.dispose();
    loaded.dispose();
  });
});

describe('an index only serves its own grammar and vocabulary', () => {
  it('checkMaskIndex names what differs', () => {
    const grammar = compileGrammar(parseGrammar('regex', 'a[bc]{1,2}'));
    const built = buildMaskIndex(grammar, kernel, stories, vocab('stories260k'), { description: 'regex a[bc]{1,2}' });
    expect(() => checkMaskIndex(built.index, { grammar, vocab: vocab('stories260k') })).not.toThrow();
    // The same grammar compiled again (spans differ) keeps its fingerprint.
    expect(grammarFingerprint(parseGrammar('regex', 'a[bc]{1,2}'))).toBe(built.index.grammarFingerprint);
    const other = compileGrammar(parseGrammar('regex', 'a[bc]{1,3}'));
    expect(() => checkMaskIndex(built.index, { grammar: other, vocab: vocab('stories260k') })).toThrow(MaskIndexMismatchError);
    expect(() => checkMaskIndex(built.index, { grammar: other, vocab: vocab('stories260k') })).toThrow(/regex a\[bc\]\{1,2\}/);
    expect(() => checkMaskIndex(built.index, { grammar, vocab: vocab('llama3.1') })).toThrow(/another vocabulary/);
    expect(built.index.meta.tokenizer).toBe(vocab('stories260k').meta.name);
  });
});

describe('the mask index file format', () => {
  const file = (): Uint8Array => buildMaskIndex(compileGrammar(parseGrammar('regex', '(ab|cd)e?')), kernel, stories, vocab('stories260k')).file;

  it('reads back what was written', () => {
    const bytes = file();
    const index = new MaskIndex(bytes);
    const again = writeMaskIndex({
      tokenCount: index.tokenCount,
      vocabFingerprint: index.vocabFingerprint,
      grammarFingerprint: index.grammarFingerprint,
      complete: index.complete,
      meta: index.meta,
      states: Array.from({ length: index.stateCount }, (_, s) => {
        const ranges: number[] = [];
        for (let t = 0; t < index.tokenCount; t++) {
          const next = index.next(s, t);
          if (ranges.length === 0 || ranges[ranges.length - 1] !== next) ranges.push(t, next);
        }
        return { mask: index.mask(s), accepting: index.accepting(s), forced: index.forced(s), ranges: Int32Array.from(ranges) };
      }),
    });
    expect(Array.from(again)).toEqual(Array.from(bytes));
  });

  it('rejects damaged files with a typed error', () => {
    const bytes = file();
    const damaged = (change: (words: Uint32Array) => void): Uint8Array => {
      const copy = bytes.slice();
      change(new Uint32Array(copy.buffer));
      return copy;
    };
    const code = (data: Uint8Array): string => {
      try {
        new MaskIndex(data);
        return 'ok';
      } catch (error) {
        expect(error).toBeInstanceOf(MaskIndexFormatError);
        return (error as MaskIndexFormatError).code;
      }
    };
    expect(code(bytes)).toBe('ok');
    expect(code(bytes.subarray(0, 40))).toBe('truncated');
    expect(code(bytes.subarray(0, bytes.length - 8))).toBe('truncated');
    expect(code(damaged((w) => (w[0] = 0)))).toBe('bad_magic');
    expect(code(damaged((w) => (w[1] = 99)))).toBe('bad_version');
    expect(code(damaged((w) => (w[3] = 1_000_000)))).toBe('bad_section');
    // A state record pointing at a mask run outside the runs section.
    const statesAt = new Uint32Array(bytes.buffer, bytes.byteOffset, 20)[8]! / 4;
    expect(code(damaged((w) => (w[statesAt + 1] = 1_000_000)))).toBe('bad_state');
    // Every run changed: the masks no longer sum to the vocabulary, or disagree with the ranges.
    const runsAt = new Uint32Array(bytes.buffer, bytes.byteOffset, 20)[9]! / 4;
    expect(code(damaged((w) => (w[runsAt] = w[runsAt]! + 1)))).toBe('bad_state');
    // Unaligned bytes are copied, not refused.
    const unaligned = new Uint8Array(bytes.length + 1);
    unaligned.set(bytes, 1);
    expect(code(unaligned.subarray(1))).toBe('ok');
  });
});
