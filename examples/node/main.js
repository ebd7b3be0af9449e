// Sieve in Node: load a local model (the transformers.js folder layout), then generate JSON
// that a JSON Schema allows. Usage: node main.js MODEL_DIR ["prompt"]
/* global console */
import { createEngine } from '@sieve/runtime';
import { CHARACTER } from './character.js';

const [model, prompt = 'Once upon a time, there was a girl called'] = process.argv.slice(2);
if (model === undefined) {
  console.error('usage: node main.js MODEL_DIR ["prompt"]');
  process.exit(2);
}

const engine = createEngine();
// Without a `vocab`, the token index is built from the model's tokenizer.json as it loads.
const info = await engine.load({ model, device: 'cpu' });
const { value, tokens } = await engine.generateJson(CHARACTER, { prompt, maxTokens: 60, sampling: { seed: 1 } });
console.log(JSON.stringify({ model: info.id, vocabOrigin: info.vocabOrigin, tokens: tokens.length, value }));
await engine.dispose();
