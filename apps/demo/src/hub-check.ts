// Hub check: loads a model by its hub id from the hub the URL names (?hub=URL&model=ID; the
// tests' local stand-in), in the runtime's Web Worker on WASM, and answers a chat in a JSON
// Schema. ?vocab=PATH passes a vocab index; ?abort=download|generate aborts that phase;
// ?retry=1 loads again after a failed load. Playwright reads <body data-report>.
import { createWorkerEngine, deleteCachedModel, listCachedModels, type CachedModel, type LoadProgress, type ModelInfo } from '@sieve/runtime/client';

/** What the check found. */
export interface HubReport {
  readonly info: ModelInfo | null;
  /** Files with their last reported size, and whether the total grew past 0. */
  readonly files: Readonly<Record<string, number>>;
  readonly loadErrors: readonly { readonly name: string; readonly code: unknown; readonly message: string }[];
  readonly text: string | null;
  readonly finishReason: string | null;
  readonly stopReason: string | null;
  /** The cached models after the check, and with ?delete=1, whether deleting this one worked and the list after. */
  readonly cached: readonly CachedModel[];
  readonly deleted: boolean | null;
  readonly cachedAfterDelete: readonly CachedModel[] | null;
}

export const CONTACT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 24 },
    email: { type: 'string', pattern: '^[a-z0-9._-]{1,20}@[a-z0-9-]{1,20}\\.[a-z]{2,6}$' },
    urgent: { type: 'boolean' },
  },
  required: ['name', 'email', 'urgent'],
  additionalProperties: false,
};

const status = document.querySelector<HTMLElement>('#status')!;
const output = document.querySelector<HTMLElement>('#output')!;
const params = new URLSearchParams(location.search);
const here = (path: string): string => new URL(path, location.href).href;

async function check(): Promise<HubReport> {
  const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }));
  const files: Record<string, number> = {};
  const loadErrors: { name: string; code: unknown; message: string }[] = [];
  const abort = params.get('abort');
  let info: ModelInfo | null = null;
  for (let attempt = 0; attempt < (params.get('retry') === '1' ? 2 : 1) && info === null; attempt++) {
    const controller = new AbortController();
    const vocab = params.get('vocab');
    try {
      info = await engine.load({
        model: params.get('model')!,
        hub: params.get('hub')!,
        device: 'wasm',
        kernel: here('/kernel.wasm'),
        wasmPaths: here('/ort/'),
        ...(vocab === null ? {} : { vocab: here(vocab) }),
        signal: controller.signal,
        onProgress: (p: LoadProgress) => {
          if (p.kind === 'file' && p.file !== undefined) files[p.file] = p.totalBytes;
          if (p.kind === 'total') status.textContent = `Downloading… ${(p.loadedBytes / 1024).toFixed(0)} of ${(p.totalBytes / 1024).toFixed(0)} KiB`;
          if (abort === 'download' && p.kind === 'file' && p.file?.endsWith('.onnx') && p.loadedBytes > 0) controller.abort();
        },
      });
    } catch (error) {
      const e = error as { name: string; code?: unknown; message: string };
      loadErrors.push({ name: e.name, code: e.code, message: e.message });
    }
  }
  if (info === null) {
    await engine.dispose();
    return { info, files, loadErrors, text: null, finishReason: null, stopReason: null, ...(await cacheReport()) };
  }
  status.textContent = 'Answering…';
  const messages = [
    { role: 'system', content: 'Extract the contact from the message as JSON.' },
    { role: 'user', content: 'Hello, Ada Lovelace here (ada@example.org). Could you call me back today? It is urgent.' },
  ] as const;
  let report: HubReport;
  if (abort === 'generate') {
    const controller = new AbortController();
    let tokens = 0;
    // Backpressure: the worker waits for each token's callback, so the abort lands at the third.
    const result = await engine.generate({
      messages,
      maxTokens: 200,
      signal: controller.signal,
      backpressure: true,
      onToken: () => void (++tokens === 3 && controller.abort()),
    });
    report = { info, files, loadErrors, text: result.text, finishReason: null, stopReason: result.stopReason, ...(await cacheReport()) };
  } else {
    const completion = await engine.chat.completions.create({
      messages,
      response_format: { type: 'json_schema', json_schema: { name: 'contact', schema: CONTACT_SCHEMA } },
      max_tokens: 120,
      seed: 1,
    });
    const choice = completion.choices[0]!;
    output.textContent = choice.message.content;
    report = { info, files, loadErrors, text: choice.message.content, finishReason: choice.finish_reason, stopReason: null, ...(await cacheReport()) };
  }
  await engine.dispose();
  return report;
}

// The cached models; with ?delete=1 this one is deleted, and the list read again.
async function cacheReport(): Promise<Pick<HubReport, 'cached' | 'deleted' | 'cachedAfterDelete'>> {
  const cached = await listCachedModels();
  if (params.get('delete') !== '1') return { cached, deleted: null, cachedAfterDelete: null };
  const deleted = await deleteCachedModel(params.get('model')!);
  return { cached, deleted, cachedAfterDelete: await listCachedModels() };
}

check()
  .then((report) => {
    status.textContent = report.info === null ? `Not loaded: ${report.loadErrors.map((e) => e.name).join(', ')}.` : `Done on ${report.info.device}.`;
    status.dataset.state = 'ready';
    document.body.dataset.report = JSON.stringify(report);
  })
  .catch((error: unknown) => {
    status.textContent = `Failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    status.dataset.state = 'error';
  });
