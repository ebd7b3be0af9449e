// sieveApp() serves kernel.wasm and onnxruntime-web's WASM at the app's root in dev, and
// writes the same bytes into the build; a file of the same name in the app's public folder wins.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultKernelUrl } from '@sieve/kernel';
import { build, createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeAssets } from '../src/runtime-assets.ts';
import { sieveApp } from '../src/vite-plugin.ts';

const ORT = 'ort/ort-wasm-simd-threaded.asyncify';

describe('sieveApp() and the runtime assets', () => {
  let app = '';
  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'sieve-vite-'));
    writeFileSync(join(app, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>');
    writeFileSync(join(app, 'main.js'), 'console.log(1);');
  });
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it('lists kernel.wasm and the onnxruntime glue without eval', () => {
    const assets = new Map(runtimeAssets().map((asset) => [asset.path, asset.bytes()]));
    expect([...assets.keys()].sort()).toEqual(['kernel.wasm', `${ORT}.mjs`, `${ORT}.wasm`]);
    expect(assets.get('kernel.wasm')).toEqual(new Uint8Array(readFileSync(defaultKernelUrl())));
    const glue = new TextDecoder().decode(assets.get(`${ORT}.mjs`));
    expect(glue).toContain('sieveEmbindFunction(');
    expect(glue).not.toMatch(/\bnew Function\(|\beval\(/);
    expect(WebAssembly.validate(new Uint8Array(assets.get(`${ORT}.wasm`)!))).toBe(true);
  });

  it('dev: serves them at the root with the isolation headers; a file in the public folder wins', async () => {
    mkdirSync(join(app, 'public'), { recursive: true });
    writeFileSync(join(app, 'public', 'kernel.wasm'), 'mine');
    const server: ViteDevServer = await createServer({
      root: app,
      configFile: false,
      logLevel: 'silent',
      plugins: [sieveApp()],
      server: { port: 0, host: '127.0.0.1' },
    });
    await server.listen();
    try {
      const base = server.resolvedUrls!.local[0]!;
      const wasm = await fetch(new URL(`${ORT}.wasm`, base));
      expect(wasm.headers.get('content-type')).toBe('application/wasm');
      expect(wasm.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      // (26 MB: compared as buffers, not element by element.)
      const served = Buffer.from(await wasm.arrayBuffer());
      expect(
        served.equals(
          Buffer.from(
            runtimeAssets()
              .find((asset) => asset.path === `${ORT}.wasm`)!
              .bytes(),
          ),
        ),
      ).toBe(true);
      const glue = await fetch(new URL(`${ORT}.mjs`, base));
      expect(glue.headers.get('content-type')).toBe('text/javascript');
      expect(await glue.text()).toContain('sieveEmbindFunction(');
      expect(await (await fetch(new URL('kernel.wasm', base))).text()).toBe('mine');
    } finally {
      await server.close();
      rmSync(join(app, 'public'), { recursive: true, force: true });
    }
  });

  it('build: writes them into the output; runtimeAssets: false leaves them out', async () => {
    for (const runtime of [true, false]) {
      const outDir = join(app, runtime ? 'dist' : 'dist-without');
      await build({ root: app, configFile: false, logLevel: 'silent', plugins: [sieveApp({ runtimeAssets: runtime })], build: { outDir } });
      const written = (path: string): boolean => existsSync(join(outDir, path));
      expect(written('kernel.wasm')).toBe(runtime);
      expect(written(`${ORT}.wasm`)).toBe(runtime);
      expect(written(`${ORT}.mjs`)).toBe(runtime);
    }
  });
});
