// Runs one of the demo's bench pages in headless Chromium and returns its JSON report: builds
// the demo, serves it with `vite preview`, waits for `#status` to say ready, reads
// `data-report`. `serve` answers chosen URLs from the driver (data the page fetches).
import { chromium } from '@playwright/test';
import { execSync, spawn } from 'node:child_process';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../chromium.ts';

const PORT = 4318;
const root = new URL('../..', import.meta.url).pathname;

export async function runBenchPage(path: string, serve: Readonly<Record<string, string>> = {}): Promise<unknown> {
  execSync('pnpm --filter @sieve/demo run build', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const server = spawn('pnpm', ['--filter', '@sieve/demo', 'exec', 'vite', 'preview', '--configLoader', 'runner', '--port', String(PORT)], {
    cwd: root,
    stdio: 'ignore',
    detached: true,
  });
  try {
    const url = `http://127.0.0.1:${PORT}${path}`;
    for (let i = 0; ; i++) {
      if (
        await fetch(url).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 100) throw new Error(`the preview server did not answer on ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_FLAGS,
    });
    try {
      // No service worker: the page's requests reach the routes below.
      const context = await browser.newContext({ serviceWorkers: 'block' });
      for (const [route, body] of Object.entries(serve)) await context.route(`**${route}`, (r) => r.fulfill({ body, contentType: 'application/json' }));
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('#status[data-state="ready"], #status[data-state="error"]').waitFor({ timeout: 60 * 60_000 });
      const report = await page.locator('body').getAttribute('data-report');
      if (report === null) throw new Error(`the bench page ${path} failed: ${await page.locator('#status').textContent()}`);
      return JSON.parse(report) as unknown;
    } finally {
      await browser.close();
    }
  } finally {
    process.kill(-server.pid!);
  }
}
