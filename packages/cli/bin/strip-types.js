// Module hook of `sieve`: TypeScript sources load with their types stripped by esbuild. (tsx
// would also keep every function's name, calling a helper each time a closure is created,
// which costs several percent of a schema compile.) Imports name their `.ts` files, so Node
// resolves them itself.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function load(url, context, nextLoad) {
  const path = url.startsWith('file:') ? fileURLToPath(url) : '';
  if (!/\.m?ts$/.test(path)) return nextLoad(url, context);
  const { code } = await transform(await readFile(path, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: path });
  return { format: 'module', source: code, shortCircuit: true };
}
