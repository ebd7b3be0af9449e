// Engine check: loads stories260K in the runtime's Web Worker and generates schema-valid JSON,
// on the device the URL names (?device=wasm|webgpu|auto). Playwright reads the report from
// <body data-report>; people read the page.
import { createWorkerEngine, JsonSchema, type GenerateResult, type LoadProgress, type ModelInfo } from '@sieve/runtime/client';

/** What the check found. */
export interface EngineReport {
  readonly info: ModelInfo;
  readonly progress: readonly LoadProgress[];
  readonly results: readonly Pick<GenerateResult, 'text' | 'tokens' | 'forcedTokens' | 'stopReason' | 'complete' | 'stats'>[];
  readonly streamed: number;
  readonly masksTransferred: boolean;
  readonly error: { readonly name: string; readonly code: unknown; readonly pointer: unknown; readonly keyword: unknown; readonly isSchemaError: boolean };
}

export const PERSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 12 },
    age: { type: 'integer', minimum: 1, maximum: 99 },
    pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 2 },
  },
  required: ['name', 'age'],
  additionalProperties: false,
};

const status = document.querySelector<HTMLElement>('#status')!;
const output = document.querySelector<HTMLElement>('#output')!;
const device = (new URLSearchParams(location.search).get('device') ?? 'auto') as 'auto' | 'wasm' | 'webgpu';
const here = (path: string): string => new URL(path, location.href).href;

async function check(): Promise<EngineReport> {
  const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }));
  const progress: LoadProgress[] = [];
  const info = await engine.load({
    model: '/models/stories260K',
    device,
    dtype: 'fp32',
    kernel: here('/kernel.wasm'),
    vocab: here('/vocab/stories260k.vocab'),
    wasmPaths: here('/ort/'),
    onProgress: (p) => {
      progress.push(p);
      status.textContent = p.kind === 'ready' ? 'Model loaded.' : `Loading… ${(p.loadedBytes / 1024).toFixed(0)} KiB`;
    },
  });
  status.textContent = `Generating on ${info.device}…`;
  const results = [];
  let streamed = 0;
  let masksTransferred = true;
  for (const seed of [1, 2, 3]) {
    const result = await engine.generate({
      prompt: 'Once upon a time, there was a little girl named Lily.',
      constraint: JsonSchema(PERSON_SCHEMA),
      sampling: { seed },
      maxTokens: 60,
      includeMask: true,
      onToken: (event) => {
        streamed++;
        if (!event.forced && !(event.mask instanceof Uint32Array)) masksTransferred = false;
        output.textContent += event.text;
      },
    });
    output.textContent += '\n';
    const { text, tokens, forcedTokens, stopReason, complete, stats } = result;
    results.push({ text, tokens, forcedTokens, stopReason, complete, stats });
  }
  // An error keeps its class and fields across the worker boundary.
  const error = await engine.generate({ prompt: 'x', constraint: JsonSchema({ type: 'string', minLength: 'three' }) }).then(
    () => ({ name: 'none', code: null, pointer: null, keyword: null, isSchemaError: false }),
    (e: unknown) => {
      const err = e as { name: string; code?: unknown; pointer?: unknown; keyword?: unknown };
      return { name: err.name, code: err.code, pointer: err.pointer, keyword: err.keyword, isSchemaError: e instanceof Error && 'pointer' in e };
    },
  );
  await engine.dispose();
  return { info, progress, results, streamed, masksTransferred, error };
}

check()
  .then((report) => {
    status.textContent = `Done on ${report.info.device}${report.info.fallbackReason ? ` (${report.info.fallbackReason})` : ''}.`;
    status.dataset.state = 'ready';
    document.body.dataset.report = JSON.stringify(report);
  })
  .catch((error: unknown) => {
    status.textContent = `Failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    status.dataset.state = 'error';
  });
