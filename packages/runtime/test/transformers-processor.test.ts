// Sieve's masks in a generation transformers.js runs itself (model.generate with a logits
// processor): the outputs are valid for the constraint (ajv), greedy and sampled.
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { JsonSchema, Regex } from '../src/constraint-specs.ts';
import { sieveLogitsProcessor } from '../src/transformers-processor.ts';
import { STORIES_260K, STORIES_VOCAB } from './support/engine.ts';

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 1, maximum: 9 } },
  required: ['name', 'age'],
  additionalProperties: false,
};

describe('sieveLogitsProcessor with transformers.js generate', () => {
  let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof AutoModelForCausalLM.from_pretrained>>;
  beforeAll(async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${dirname(STORIES_260K)}/`;
    tokenizer = await AutoTokenizer.from_pretrained('stories260K');
    model = await AutoModelForCausalLM.from_pretrained('stories260K', { device: 'cpu' });
  });
  afterAll(async () => {
    await model?.dispose();
  });

  const run = async (processor: Awaited<ReturnType<typeof sieveLogitsProcessor>>, sample: boolean): Promise<string> => {
    const inputs = tokenizer('Once upon a time, there was a girl named Lily.');
    const output = (await model.generate({ ...inputs, max_new_tokens: 60, do_sample: sample, logits_processor: [processor] as never })) as {
      tolist(): bigint[][];
    };
    const ids = output.tolist()[0]!.slice(inputs.input_ids.dims.at(-1));
    return tokenizer.decode(ids.map(Number), { skip_special_tokens: true });
  };

  it('JSON valid against the schema, greedy and sampled, one processor reset between runs', async () => {
    const processor = await sieveLogitsProcessor(tokenizer, JsonSchema(SCHEMA), { vocab: new Uint8Array(readFileSync(STORIES_VOCAB)) });
    try {
      for (const sample of [false, true, true]) {
        processor.reset();
        const text = await run(processor, sample);
        expect(processor.complete()).toBe(true);
        expect(ajvValidator(SCHEMA)(JSON.parse(text))).toBe(true);
      }
    } finally {
      processor.dispose();
    }
  });

  it('a regex, with the vocab index built from the tokenizer itself', async () => {
    const processor = await sieveLogitsProcessor(tokenizer, Regex('(Lily|Tom) (ran|sat)\\.'), { cache: false });
    try {
      expect(await run(processor, true)).toMatch(/^(Lily|Tom) (ran|sat)\.$/);
    } finally {
      processor.dispose();
    }
  });
});
