// Runs the demo's generation benchmark page (apps/demo/bench.html) in headless Chromium and
// prints its JSON report: tokens per second with and without a JSON Schema constraint for
// stories260K in the engine's Web Worker (WASM execution provider). Part of `pnpm bench`.
import { runBenchPage } from './bench-page.ts';

process.stdout.write(JSON.stringify(await runBenchPage('/bench.html'), null, 2) + '\n');
