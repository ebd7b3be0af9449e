// The MaskBench bench page: fetches the tokenized cases, runs them in a Web Worker (the same
// runner as `sieve bench maskbench` in Node) and leaves the summary in `data-report`.
import { publishReport } from './bench-report.ts';
import type { MaskBenchRequest, MaskBenchResponse } from './maskbench-worker.ts';

async function run(): Promise<object> {
  const here = (path: string): string => new URL(path, location.href).href;
  const response = await fetch('/maskbench-cases.json');
  if (!response.ok) throw new Error(`no cases at /maskbench-cases.json (HTTP ${response.status}): the driver serves them`);
  const { tokenizer, cases } = (await response.json()) as Omit<MaskBenchRequest, 'kernel' | 'vocab'>;
  const worker = new Worker(new URL('./maskbench-worker.ts', import.meta.url), { type: 'module' });
  const status = document.querySelector('#status')!;
  const result = await new Promise<MaskBenchResponse & { kind: 'result' }>((resolve, reject) => {
    worker.onmessage = ({ data }: MessageEvent<MaskBenchResponse>) => {
      if (data.kind === 'progress') status.textContent = `${data.done} of ${cases.length} files…`;
      else if (data.kind === 'error') reject(new Error(data.message));
      else resolve(data);
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ tokenizer, cases, kernel: here('/kernel.wasm'), vocab: here(`/vocab/${tokenizer}.vocab`) } satisfies MaskBenchRequest);
  });
  worker.terminate();
  return { ...result.result, user_agent: navigator.userAgent, hardware_concurrency: navigator.hardwareConcurrency };
}

publishReport(run());
