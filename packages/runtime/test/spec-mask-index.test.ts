// Generation with a precomputed mask index gives the same tokens as without one, whether the
// index covers every state or stops at its budget; a wrong index is refused with a clear error.
import { MaskIndex } from '@sieve/format';
import { MaskIndexMismatchError } from '@sieve/grammar';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonSchema, Regex, type GrammarSpec } from '../src/constraint-specs.ts';
import type { InThreadEngine } from '../src/engine.ts';
import { buildSpecMaskIndex } from '../src/spec-mask-index.ts';
import { STORIES_VOCAB, storiesEngine } from './support/engine.ts';

const vocabFile = new Uint8Array(readFileSync(STORIES_VOCAB));
const PROMPT = 'Once upon a time, there was a little girl named Lily.';
let engine: InThreadEngine;
beforeAll(async () => {
  engine = await storiesEngine();
});
afterAll(() => engine.dispose());

const ORDER = JsonSchema({
  type: 'object',
  properties: { size: { enum: ['small', 'large'] }, count: { type: 'integer', minimum: 1, maximum: 12 }, note: { type: 'string', maxLength: 6 } },
  required: ['size', 'count'],
  additionalProperties: false,
});

describe.each([
  ['a complete index', ORDER, 100_000, true],
  ['an index cut short by its budget', ORDER, 40, false],
  ['a regex index', Regex('(yes|no), [a-z]{2,5}!'), 100_000, true],
] as [string, GrammarSpec, number, boolean][])('%s', (_, spec, maxStates, complete) => {
  it('generates exactly what the live matcher generates', async () => {
    const built = await buildSpecMaskIndex(spec, vocabFile, { maxStates });
    expect(built.complete).toBe(complete);
    for (const seed of [1, 2, 3]) {
      const request = { prompt: PROMPT, maxTokens: 60, sampling: { temperature: 1, seed } };
      const live = await engine.generate({ ...request, constraint: spec });
      const indexed = await engine.generate({ ...request, constraint: { ...spec, index: built.file } });
      expect(indexed.tokens).toEqual(live.tokens);
      expect(indexed.complete).toBe(live.complete);
      // The stats say where the masks came from: all from a complete index (token healing's
      // masks aside), some from one cut short, none without one.
      const sampled = indexed.tokens.length - indexed.forcedTokens + (indexed.stopReason === 'eos' ? 1 : 0);
      expect(live.stats.indexedMasks).toBe(0);
      if (complete && indexed.healed === '') expect(indexed.stats.indexedMasks).toBe(sampled);
      expect(indexed.stats.indexedMasks).toBeGreaterThan(0);
      expect(indexed.stats.indexedMasks).toBeLessThanOrEqual(sampled);
    }
    // A compiled handle keeps the index too.
    const handle = await engine.compile({ ...spec, index: built.file });
    const seeded = { prompt: PROMPT, maxTokens: 60, sampling: { temperature: 1, seed: 4 } };
    const viaHandle = await engine.generate({ ...seeded, constraint: handle });
    expect(viaHandle.tokens).toEqual((await engine.generate({ ...seeded, constraint: spec })).tokens);
    expect(viaHandle.stats.indexedMasks).toBeGreaterThan(0);
    await engine.release(handle);
  }, 120_000);
});

describe('a mask index built for something else', () => {
  it('is refused for another grammar, naming it', async () => {
    const built = await buildSpecMaskIndex(Regex('(yes|no)') as GrammarSpec, vocabFile, { description: 'regex (yes|no)' });
    const generation = engine.generate({ prompt: PROMPT, constraint: { ...Regex('(yes|no|maybe)'), index: built.file } as GrammarSpec });
    await expect(generation).rejects.toThrow(MaskIndexMismatchError);
    await expect(engine.generate({ prompt: PROMPT, constraint: { ...Regex('(yes|no|maybe)'), index: built.file } as GrammarSpec })).rejects.toThrow(
      /regex \(yes\|no\)/,
    );
  });

  it('is refused for another tokenizer', async () => {
    const built = await buildSpecMaskIndex(Regex('(yes|no)') as GrammarSpec, vocabFile);
    // The same index, its vocab fingerprint changed.
    const file = built.file.slice();
    new Uint32Array(file.buffer)[4] ^= 1;
    expect(new MaskIndex(file).vocabFingerprint).not.toBe(built.index.vocabFingerprint);
    await expect(engine.generate({ prompt: PROMPT, constraint: { ...Regex('(yes|no)'), index: file } as GrammarSpec })).rejects.toThrow(/another vocabulary/);
  });

  it('is refused when damaged', async () => {
    await expect(engine.generate({ prompt: PROMPT, constraint: { ...Regex('(yes|no)'), index: new Uint8Array(128) } as GrammarSpec })).rejects.toThrow(
      /not a Sieve mask index/,
    );
  });
});
