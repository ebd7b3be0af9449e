// Runs the demo's generation benchmark page (apps/demo/bench.html) in headless Chromium and
// prints its JSON reports: tokens per second with and without a JSON Schema constraint, and
// the step split into forward pass, mask, apply, sample, commit and the rest, in the engine's
// Web Worker (WASM execution provider) — for stories260K, then for each fixture model (real
// tokenizers, 128k–262k tokens) served by the local hub (e2e/local-hub.ts). Part of `pnpm bench`.
import { spawn } from 'node:child_process';
import { FIXTURES } from '../../packages/cli/src/fixture-models.ts';
import { LOCAL_HUB } from '../local-hub-address.ts';
import { runBenchPage } from './bench-page.ts';

process.stdout.write(JSON.stringify(await runBenchPage('/bench.html'), null, 2) + '\n');

const hub = spawn('pnpm', ['exec', 'tsx', 'local-hub.ts'], { cwd: new URL('..', import.meta.url).pathname, stdio: 'ignore', detached: true });
try {
  for (
    let i = 0;
    !(await fetch(`${LOCAL_HUB}/_control/log`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 300) throw new Error('the local hub did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const { id } of FIXTURES) {
    process.stdout.write(
      JSON.stringify(await runBenchPage(`/bench.html?model=${encodeURIComponent(id)}&hub=${encodeURIComponent(LOCAL_HUB)}`), null, 2) + '\n',
    );
  }
} finally {
  process.kill(-hub.pid!);
}
