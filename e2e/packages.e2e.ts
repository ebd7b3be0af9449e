// The packages as a user gets them: every public package packed with `pnpm pack`, checked by
// publint and @arethetypeswrong/cli, then installed with npm from the tarballs (never
// workspace links) into copies of `examples/` outside the workspace: a Node script, a Vite +
// TypeScript app built and run in Chromium, and a plain page with the element's bundle.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { expect, test } from '@playwright/test';

const REPO = resolve(import.meta.dirname, '..');
const MODELS = resolve(REPO, '..', 'shared', 'models');
const PUBLIC_PACKAGES = ['format', 'vocab', 'kernel', 'grammar', 'runtime', 'element'];
// What every example asks for (examples/*/main.js, src/main.ts, index.html).
const CHARACTER = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 20 }, age: { type: 'integer', minimum: 1, maximum: 99 } },
  required: ['name', 'age'],
  additionalProperties: false,
};
const isCharacter = new Ajv2020().compile(CHARACTER);

test.describe.configure({ mode: 'serial', timeout: 600_000 });

let work = '';
const tarballs = new Map<string, string>();

test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sieve-packages-'));
  mkdirSync(join(work, 'tarballs'));
  for (const name of PUBLIC_PACKAGES) {
    execFileSync('pnpm', ['pack', '--pack-destination', join(work, 'tarballs')], { cwd: join(REPO, 'packages', name), stdio: 'pipe' });
    tarballs.set(name, join(work, 'tarballs', `sieve-${name}-0.1.0.tgz`));
  }
});

test.afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

// An example copied outside the workspace, with the tarballs of `packages` installed by npm.
// (onnxruntime-node's install script would fetch CUDA binaries from nuget.org, which this
// machine cannot reach; its CPU binary ships in its npm package.)
function installExample(example: string, packages: readonly string[]): string {
  const dir = join(work, example);
  cpSync(join(REPO, 'examples', example), dir, { recursive: true, filter: (from) => !/node_modules|dist/.test(from.slice(REPO.length)) });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--onnxruntime-node-install=skip', ...packages.map((name) => tarballs.get(name)!)], {
    cwd: dir,
    stdio: 'pipe',
  });
  return dir;
}

test('publint and @arethetypeswrong/cli accept every packed package', () => {
  for (const [name, tarball] of tarballs) {
    const unpacked = join(work, 'unpacked', name);
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
    const lint = execFileSync('pnpm', ['exec', 'publint', '--strict', join(unpacked, 'package')], { cwd: REPO, encoding: 'utf8' });
    expect(lint, `publint ${name}`).toContain('All good!');
    // ESM only (no require), the way the packages are meant; kernel.wasm is a file, not a module.
    execFileSync('pnpm', ['exec', 'attw', tarball, '--profile', 'esm-only', '--exclude-entrypoints', 'kernel.wasm'], { cwd: REPO, stdio: 'pipe' });
  }
  // What the tarballs must and must not hold.
  const files = (name: string): string[] => execFileSync('tar', ['tzf', tarballs.get(name)!], { encoding: 'utf8' }).split('\n');
  expect(files('kernel')).toContain('package/build/kernel.wasm');
  expect(files('element')).toEqual(expect.arrayContaining(['package/bundle/sieve-output.js', 'package/bundle/kernel.wasm', 'package/dist/index.d.ts']));
  for (const name of PUBLIC_PACKAGES)
    expect(files(name), name).toEqual(expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/dist/index.js']));
  expect(files('kernel').some((file) => file.includes('kernel.debug'))).toBe(false);
});

test('Node: the tarballs installed with npm, createEngine → load(local folder) → generateJson; the transformers.js and AI SDK adapters', () => {
  const dir = installExample('node', ['format', 'vocab', 'kernel', 'grammar', 'runtime']);
  // Nothing but what npm installed: no workspace package in reach.
  expect(existsSync(join(dir, 'node_modules', '@sieve', 'runtime', 'dist', 'index.js'))).toBe(true);
  const out = execFileSync('node', ['main.js', join(MODELS, 'stories260K')], { cwd: dir, encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as { vocabOrigin: string; tokens: number; value: unknown };
  expect(result.vocabOrigin).toBe('built');
  expect(result.tokens).toBeGreaterThan(3);
  expect(isCharacter(result.value), JSON.stringify(result.value)).toBe(true);
  // The adapters, through transformers.js's own generate and the `ai` package.
  const adapters = execFileSync('node', ['adapters.js', join(MODELS, 'stories260K')], { cwd: dir, encoding: 'utf8' });
  const { transformers, aiSdk } = JSON.parse(adapters.trim().split('\n').at(-1)!) as { transformers: unknown; aiSdk: unknown };
  expect(isCharacter(transformers), JSON.stringify(transformers)).toBe(true);
  expect(isCharacter(aiSdk), JSON.stringify(aiSdk)).toBe(true);
});

test('Vite + TypeScript app from the tarballs: type-checks, builds, and generates schema-valid JSON in Chromium', async ({ page }) => {
  const dir = installExample('vite-app', ['format', 'vocab', 'kernel', 'grammar', 'runtime']);
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'pipe', env: { ...process.env, SIEVE_MODELS: MODELS } });
  for (const file of ['kernel.wasm', 'ort/ort-wasm-simd-threaded.asyncify.wasm', 'ort/ort-wasm-simd-threaded.asyncify.mjs'])
    expect(existsSync(join(dir, 'dist', file)), file).toBe(true);
  const preview = await start(
    'node',
    [join(dir, 'node_modules', 'vite', 'bin', 'vite.js'), 'preview', '--port', '4331', '--strictPort'],
    dir,
    'http://127.0.0.1:4331/',
  );
  try {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto('http://127.0.0.1:4331/');
    await expect(page.locator('body')).toHaveAttribute('data-done', /.+/, { timeout: 120_000 });
    await expect(page.locator('#status')).toContainText('done');
    const value = JSON.parse((await page.locator('#output').textContent())!) as unknown;
    expect(isCharacter(value), JSON.stringify(value)).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    preview.kill();
  }
});

test('a plain page: one <script type="module"> of the element bundle from the tarball, schema-valid JSON in Chromium', async ({ page }) => {
  const dir = installExample('plain-page', ['format', 'vocab', 'kernel', 'grammar', 'runtime', 'element']);
  const server = await serveStatic(dir, 4332);
  try {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto('http://127.0.0.1:4332/index.html');
    await expect(page.locator('body')).toHaveAttribute('data-done', /.+/, { timeout: 120_000 });
    const value = JSON.parse((await page.locator('#result').textContent())!) as unknown;
    expect(isCharacter(value), JSON.stringify(value)).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    server.close();
  }
});

// A command that serves `url`, once it answers.
async function start(command: string, args: readonly string[], cwd: string, url: string): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd, stdio: 'ignore', env: { ...process.env, SIEVE_MODELS: MODELS } });
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return child;
    } catch {
      // not up yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  child.kill();
  throw new Error(`${command} ${args.join(' ')} never served ${url}`);
}

// A static host for a plain page: its folder, and `/models/` from ../shared/models.
async function serveStatic(dir: string, port: number): Promise<Server> {
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.mjs': 'text/javascript',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
  };
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
    const file = path.startsWith('/models/') ? join(MODELS, path.slice('/models/'.length)) : join(dir, path);
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', types[extname(file)] ?? 'application/octet-stream');
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return server;
}
