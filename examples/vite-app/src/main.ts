import { createWorkerEngine } from '@sieve/runtime/client';

// What we want back, typed: the schema is the contract, the mask enforces it token by token.
interface Character {
  name: string;
  age: number;
}
const schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 20 }, age: { type: 'integer', minimum: 1, maximum: 99 } },
  required: ['name', 'age'],
  additionalProperties: false,
};

const status = document.querySelector('#status')!;
const output = document.querySelector('#output')!;
// `?model=` picks another model (a hub id, or a folder served under /models/), `?dtype=` its weights.
const query = new URLSearchParams(location.search);
const model = query.get('model') ?? '/models/stories260K';
const dtype = (query.get('dtype') ?? 'fp32') as 'fp32' | 'q4';

const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }));
try {
  const info = await engine.load({
    model,
    device: 'wasm',
    dtype,
    kernel: new URL('/kernel.wasm', location.href).href,
    wasmPaths: new URL('/ort/', location.href).href,
    onProgress: (p) => (status.textContent = `loading ${p.file ?? ''} ${p.loadedBytes}/${p.totalBytes ?? '?'}`),
  });
  status.textContent = `generating with ${info.id} (${info.device})…`;
  const stream = engine.streamJson<typeof schema, Character>(schema, {
    prompt: 'Once upon a time, there was a girl called',
    maxTokens: 60,
    sampling: { seed: 1 },
  });
  for await (const event of stream) output.textContent = event.json;
  const { value } = await stream.result;
  output.textContent = JSON.stringify(value);
  status.textContent = `done: ${value.name}, ${value.age}`;
  document.body.dataset['done'] = 'true';
} catch (error) {
  status.textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
  document.body.dataset['done'] = 'error';
}
