// Sieve's masks inside code you already have: transformers.js's own `model.generate` with
// Sieve's logits processor, and the Vercel AI SDK's `generateText` with an object output on a Sieve engine.
// Usage: node adapters.js MODEL_DIR
/* global console */
import { basename, dirname, resolve } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';
import { createEngine, JsonSchema } from '@sieve/runtime';
import { sieveLanguageModel } from '@sieve/runtime/ai-sdk';
import { sieveLogitsProcessor } from '@sieve/runtime/transformers';
import { generateText, jsonSchema, Output } from 'ai';
import { CHARACTER } from './character.js';

const model = process.argv[2];
if (model === undefined) {
  console.error('usage: node adapters.js MODEL_DIR');
  process.exit(2);
}

// 1. transformers.js generates; Sieve masks every step (masks only: no fast-forward or healing).
env.allowRemoteModels = false;
env.localModelPath = `${dirname(resolve(model))}/`;
const tokenizer = await AutoTokenizer.from_pretrained(basename(model));
const causalLm = await AutoModelForCausalLM.from_pretrained(basename(model), { device: 'cpu' });
const processor = await sieveLogitsProcessor(tokenizer, JsonSchema(CHARACTER)); // index built from the tokenizer
const inputs = tokenizer('Once upon a time, there was a girl called');
const output = await causalLm.generate({ ...inputs, max_new_tokens: 60, do_sample: false, logits_processor: [processor] });
const generated = output.tolist()[0].slice(inputs.input_ids.dims.at(-1)).map(Number);
const fromTransformers = JSON.parse(tokenizer.decode(generated, { skip_special_tokens: true }));
processor.dispose();
await causalLm.dispose();

// 2. The AI SDK drives a Sieve engine; the object's schema is enforced by the masks.
const engine = createEngine();
await engine.load({ model, device: 'cpu' });
// (stories260K is a base model without a chat template: give it one.)
const chatTemplate = '{% for m in messages %}{{ m.content }}\n{% endfor %}';
const { output: fromAiSdk } = await generateText({
  model: sieveLanguageModel(engine, { chatTemplate }),
  output: Output.object({ schema: jsonSchema(CHARACTER) }),
  prompt: 'Once upon a time, there was a girl called',
  maxOutputTokens: 60,
  seed: 1,
});
await engine.dispose();

console.log(JSON.stringify({ transformers: fromTransformers, aiSdk: fromAiSdk }));
