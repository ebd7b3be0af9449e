// Runs the demo's generation benchmark page (apps/demo/bench.html) in headless Chromium and
// prints its JSON report: tokens per second with and without a JSON Schema constraint for
// stories260K in the engine's Web Worker (WASM execution provider). Part of `pnpm bench`.
import { chromium } from '@playwright/test';
import { execSync, spawn } from 'node:child_process';

const PORT = 4318;
const root = new URL('../..', import.meta.url).pathname;
execSync('pnpm --filter @sieve/demo run build', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const server = spawn('pnpm', ['--filter', '@sieve/demo', 'exec', 'vite', 'preview', '--configLoader', 'runner', '--port', String(PORT)], { cwd: root, stdio: 'ignore', detached: true });
try {
  const url = `http://127.0.0.1:${PORT}/bench.html`;
  for (let i = 0; ; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) break;
    if (i > 100) throw new Error(`the preview server did not answer on ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator('#status[data-state="ready"], #status[data-state="error"]').waitFor({ timeout: 15 * 60_000 });
    const report = await page.locator('body').getAttribute('data-report');
    if (report === null) throw new Error(`the bench page failed: ${await page.locator('#status').textContent()}`);
    process.stdout.write(JSON.stringify(JSON.parse(report), null, 2) + '\n');
  } finally {
    await browser.close();
  }
} finally {
  process.kill(-server.pid!);
}
