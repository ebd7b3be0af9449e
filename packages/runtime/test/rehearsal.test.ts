// compile's rehearsal: the decode loop over a grammar on a stand-in model, so what the grammar
// builds on first use is built at compile time. It builds (lexer states, here), ends where the
// budget says, and changes no generation's output.
import { VocabIndex } from '@sieve/format';
import { loadKernel, type Kernel } from '@sieve/kernel';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Grammar } from '../src/constraints.ts';
import type { InThreadEngine } from '../src/engine.ts';
import { InvalidRequestError } from '../src/errors.ts';
import { REHEARSAL_TOKENS, rehearse } from '../src/rehearsal.ts';
import { kernelContext, STORIES_VOCAB, storiesEngine } from './support/engine.ts';

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 8 },
    priority: { enum: ['standard', 'express', 'overnight'] },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, count: { type: 'integer', minimum: 1 } } }, maxItems: 3 },
  },
  required: ['id', 'priority', 'items'],
  additionalProperties: false,
};
const ORDER = { type: 'json-schema', schema: ORDER_SCHEMA } as const;

describe('rehearse', () => {
  const vocabIndex = new VocabIndex(new Uint8Array(readFileSync(STORIES_VOCAB)));
  let kernel: Kernel;
  let context: ReturnType<typeof kernelContext>;
  beforeAll(async () => {
    kernel = await loadKernel();
    // (No tokenizer here: forced bytes are spelled greedily by the vocabulary.)
    context = kernelContext(kernel, vocabIndex, () => []);
  });
  afterAll(() => {
    context.vocab.dispose();
    kernel.dispose();
  });

  it('walks the grammar to a complete output, building lexer states on the way', async () => {
    const grammar = new Grammar(ORDER);
    try {
      const before = grammar.compiled.lexer.stateCount;
      const rehearsal = await rehearse(grammar, context, vocabIndex.tokenCount, 60_000);
      expect(rehearsal.complete).toBe(true);
      expect(rehearsal.tokens).toBeGreaterThan(10);
      expect(rehearsal.tokens).toBeLessThanOrEqual(REHEARSAL_TOKENS);
      expect(grammar.compiled.lexer.stateCount).toBeGreaterThan(before);
      // The same walk again builds nothing new: it is seeded.
      const after = grammar.compiled.lexer.stateCount;
      expect(await rehearse(grammar, context, vocabIndex.tokenCount, 60_000)).toMatchObject({ tokens: rehearsal.tokens, complete: true });
      expect(grammar.compiled.lexer.stateCount).toBe(after);
    } finally {
      grammar.dispose();
    }
  });

  it('stops at the first step past its budget', async () => {
    const grammar = new Grammar(ORDER);
    try {
      const whole = await rehearse(grammar, context, vocabIndex.tokenCount, 60_000);
      const cut = await rehearse(grammar, context, vocabIndex.tokenCount, 0);
      expect(cut.complete).toBe(false);
      expect(cut.tokens).toBeGreaterThan(0);
      expect(cut.tokens).toBeLessThan(whole.tokens);
    } finally {
      grammar.dispose();
    }
  });
});

describe('engine.compile', () => {
  let engine: InThreadEngine;
  beforeAll(async () => {
    engine = await storiesEngine();
  });
  afterAll(() => engine.dispose());

  it('gives the same generations with a rehearsal as without one', async () => {
    const rehearsed = await engine.compile(ORDER);
    const cold = await engine.compile(ORDER, { warmUpMs: 0 });
    for (const seed of [1, 2, 3]) {
      const request = { prompt: 'Once upon a time', maxTokens: 120, sampling: { seed } };
      const a = await engine.generate({ ...request, constraint: rehearsed });
      const b = await engine.generate({ ...request, constraint: cold });
      expect(a.tokens).toEqual(b.tokens);
      expect(a.complete).toBe(true);
    }
  });

  it('checks its options', async () => {
    const spec = ORDER;
    await expect(engine.compile(spec, { warmUpMs: -1 })).rejects.toMatchObject({ name: 'InvalidRequestError', path: 'options.warmUpMs' });
    await expect(engine.compile(spec, { warmUpMs: 1.5 })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(engine.compile(spec, { warm: true } as never)).rejects.toThrow(/options\.warm: is not a field here/);
  });
});
