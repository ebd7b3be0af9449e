import { wrap } from 'comlink';
import type { Probe, ProbeReport } from './probe-worker.ts';

const status = document.querySelector<HTMLElement>('#status')!;
const facts = document.querySelector<HTMLElement>('#facts')!;

const worker = new Worker(new URL('./probe-worker.ts', import.meta.url), { type: 'module' });
const probe = wrap<Probe>(worker);

function show(report: ProbeReport): void {
  const rows: [string, string][] = [
    ['runs in a Web Worker', String(report.inWorker)],
    ['cross-origin isolated', String(report.crossOriginIsolated)],
    ['WebGPU available', String(report.webgpu)],
    ['vocabulary (stories260k)', `${report.vocabTokens} tokens`],
    [`tokens allowed by the literal ${JSON.stringify(report.literal)}`, String(report.allowedTokens)],
    ['kernel linear memory', `${(report.kernelMemoryBytes / 1024).toFixed(0)} KiB`],
  ];
  facts.replaceChildren(
    ...rows.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
}

probe
  .run('Once upon a time')
  .then((report) => {
    show(report);
    status.textContent = 'Kernel ready.';
    status.dataset.state = 'ready';
    document.body.dataset.probe = JSON.stringify(report);
  })
  .catch((error: unknown) => {
    status.textContent = `Failed: ${error instanceof Error ? error.message : String(error)}`;
    status.dataset.state = 'error';
  });
