// The page side of a worker engine (`@sieve/runtime/client`) bundles none of the compiler: of
// @sieve/grammar only the modules of its compiler-free entries (`/errors`, `/inputs`), and
// nothing of transformers.js or onnxruntime. Bundled here as a user's Vite app would.
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

/** The modules a bundle of the entry points `entries` keeps (after tree-shaking), relative to the repository. */
async function bundledModules(entries: Record<string, string>): Promise<string[]> {
  const entry = Object.fromEntries(Object.entries(entries).map(([name, specifier]) => [name, fileURLToPath(import.meta.resolve(specifier))]));
  const result = await build({
    root: import.meta.dirname,
    configFile: false,
    logLevel: 'silent',
    build: { write: false, lib: { entry, formats: ['es'] } },
  });
  const outputs = [result].flat() as Rolldown.RolldownOutput[];
  const modules = outputs.flatMap((output) =>
    output.output.flatMap((chunk) => (chunk.type === 'chunk' ? Object.entries(chunk.modules).filter(([, m]) => m.renderedLength > 0) : [])),
  );
  return [...new Set(modules.map(([id]) => relative(ROOT, id).replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, 'npm:')))].sort();
}

describe('the page bundle of @sieve/runtime/client', () => {
  it('holds no compiler code', async () => {
    const page = await bundledModules({ client: '@sieve/runtime/client' });
    const leaves = await bundledModules({ errors: '@sieve/grammar/errors', inputs: '@sieve/grammar/inputs' });
    // The compiler-free entries hold a few small files (a new import of theirs shows here).
    expect(leaves).toEqual([
      'packages/grammar/src/frontends/grammar-formats.ts',
      'packages/grammar/src/frontends/json-schema/schema-error.ts',
      'packages/grammar/src/frontends/json-schema/zod.ts',
      'packages/grammar/src/frontends/tool-call-format.ts',
      'packages/grammar/src/grammar-error.ts',
      'packages/grammar/src/limits.ts',
      'packages/grammar/src/mask-index/mask-index-mismatch-error.ts',
    ]);
    expect(page.filter((id) => id.startsWith('packages/grammar/') && !leaves.includes(id))).toEqual([]);
    expect(page.filter((id) => id.startsWith('npm:'))).toEqual(['npm:comlink/dist/esm/comlink.mjs']);
    expect(page).toContain('packages/runtime/src/worker-client.ts');
  }, 60_000);
});
