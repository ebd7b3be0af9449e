// The fixture models (`sieve fixtures build`): deterministic, in the layout transformers.js
// loads, with the real tokenizers and chat templates; each runs a constrained chat through the
// engine (onnxruntime-node) in float32 and float16 files, and the output is valid for ajv.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InThreadEngine, loadModel } from '@sieve/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { buildFixtures, FIXTURES } from '../src/fixture-models.ts';

const out = mkdtempSync(join(tmpdir(), 'sieve-fixtures-'));
const built = buildFixtures(out);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const CONTACT = { type: 'object', properties: { name: { type: 'string', maxLength: 20 }, email: { type: 'string', format: 'email' }, urgent: { type: 'boolean' } }, required: ['name', 'email', 'urgent'], additionalProperties: false };

describe('fixture models', () => {
  it('are written the same way every time', () => {
    const again = mkdtempSync(join(tmpdir(), 'sieve-fixtures-'));
    try {
      const [first] = buildFixtures(again, FIXTURES.slice(0, 1));
      for (const file of ['config.json', 'onnx/model_q4f16.onnx', 'onnx/model.onnx']) expect(readFileSync(join(first!.dir, file)).equals(readFileSync(join(built[0]!.dir, file)))).toBe(true);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it('give the same logits from float32 and float16 files (float16 logits are read as numbers), and depend on the KV cache', async () => {
    const logitsOf = async (dtype: 'fp32' | 'q4f16', tokens: number[][]): Promise<Float32Array[]> => {
      const model = await loadModel({ model: built[0]!.dir, device: 'cpu', dtype });
      const sequence = model.startSequence();
      const all: Float32Array[] = [];
      for (const step of tokens) all.push(await sequence.forward(step));
      await model.dispose();
      return all;
    };
    const [whole, next] = await logitsOf('fp32', [[9707, 11, 1879], [0]]);
    const [half] = await logitsOf('q4f16', [[9707, 11, 1879]]);
    const [other] = await logitsOf('fp32', [[0]]);
    expect(whole!.length).toBe(built[0]!.vocab_size);
    let most = 0;
    for (let i = 0; i < whole!.length; i++) most = Math.max(most, Math.abs(whole![i]! - half![i]!));
    expect(most).toBeLessThan(0.05);
    // Token 0 after a context differs from token 0 alone: the cache is read.
    expect(next!.some((value, i) => Math.abs(value - other![i]!) > 1e-3)).toBe(true);
  }, 60_000);

  it.each(built.map((fixture) => [fixture.id, fixture] as const))('%s: a constrained chat in fp32 and q4f16 gives JSON ajv accepts', async (_, fixture) => {
    const validate = ajvValidator(CONTACT);
    for (const dtype of ['fp32', 'q4f16'] as const) {
      const engine = new InThreadEngine();
      try {
        const info = await engine.load({ model: fixture.dir, device: 'cpu', dtype });
        expect(info.vocabSize).toBe(fixture.vocab_size);
        const result = await engine.generate({
          messages: [
            { role: 'system', content: 'Extract the contact as JSON.' },
            { role: 'user', content: 'Hi, this is Ada Lovelace (ada@example.org). Please call back today!' },
          ],
          constraint: { type: 'json-schema', schema: CONTACT },
          maxTokens: 120,
          sampling: { temperature: 1, seed: 7 },
        });
        // The chat template rendered the messages: the prompt holds more than their words.
        expect(result.stats.promptTokens).toBeGreaterThan(20);
        expect(result.complete, result.text).toBe(true);
        expect(validate(JSON.parse(result.text)), result.text).toBe(true);
      } finally {
        await engine.dispose();
      }
    }
  }, 120_000);
});
