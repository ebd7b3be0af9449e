// The apps run under a strict Content-Security-Policy (`script-src 'self' 'wasm-unsafe-eval'`).
// Every e2e test fails on a violation (fixtures.ts) while running a real model; this file checks
// the policy is served, that the shipped code has nothing that evaluates source text, and that
// a violation is indeed seen.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { STRICT_CSP } from '../packages/runtime/src/vite-plugin.ts';
import { expect, test } from './fixtures.ts';

const APPS = { demo: 'http://127.0.0.1:4317', forms: 'http://127.0.0.1:4319' };
const root = join(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

test('the pages, the engine worker and onnxruntime are served with the strict policy', async ({ request }) => {
  for (const [app, origin] of Object.entries(APPS)) {
    const page = await request.get(`${origin}/`);
    const entry = (await page.text()).match(/src="(\/assets\/main-[^"]+\.js)"/)?.[1];
    expect(entry, `${app}'s entry script`).toBeDefined();
    const worker = readdirSync(join(root, 'apps', app, 'dist/assets')).find((name) => /^engine-worker-.+\.js$/.test(name));
    expect(worker, `${app}'s engine worker script`).toBeDefined();
    for (const path of ['/', entry!, `/assets/${worker}`, '/ort/ort-wasm-simd-threaded.asyncify.mjs', '/element/sieve-output.js']) {
      const response = await request.get(`${origin}${path}`);
      expect(response.status(), `${app} ${path}`).toBe(200);
      expect(response.headers()['content-security-policy'], `${app} ${path}`).toContain(STRICT_CSP);
    }
  }
});

test('no shipped script evaluates source text (eval, new Function, string timers)', () => {
  const evalLike = /\beval\s*\(|\bFunction\s*\(|set(?:Timeout|Interval)\s*\(\s*["'`]/;
  const shipped = ['apps/demo/dist', 'apps/forms/dist'].flatMap((dir) => files(join(root, dir))).filter((file) => /\.(m?js|html)$/.test(file));
  expect(shipped.length).toBeGreaterThan(10);
  const offending = shipped.filter((file) => evalLike.test(readFileSync(file, 'utf8')));
  expect(offending).toEqual([]);
});

test('a violation is reported (so the check in every test can fail)', async ({ page, cspViolations }) => {
  await page.goto('/engine.html');
  // An inline script: the policy blocks it and the browser reports it.
  await expect(page.addScriptTag({ content: 'document.body.dataset.inline = "ran"' })).rejects.toThrow();
  expect(await page.locator('body').getAttribute('data-inline')).toBe(null);
  await expect.poll(() => cspViolations.length).toBeGreaterThanOrEqual(1);
  expect(cspViolations.join('\n')).toContain('"blocked-uri":"inline"');
  cspViolations.length = 0;
});
