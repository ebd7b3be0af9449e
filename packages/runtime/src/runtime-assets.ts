/**
 * The files a page running Sieve serves beside its scripts (Node only: read from the installed
 * packages): `kernel.wasm` (from `@sieve/kernel`) and, under `ort/`, the onnxruntime-web build
 * transformers.js loads in a browser (the asyncify variant: WASM and WebGPU in one binary),
 * so nothing comes from a CDN. Its glue module's one `new Function` (embind's method callers)
 * is replaced by `embindFunction` (`scripts/embind-without-eval.js`) so pages run under a
 * Content-Security-Policy without 'unsafe-eval' (the runtime loads this module by URL, never
 * from a blob:).
 *
 * Used by `sieveApp()` (served in dev, emitted by the build) and by `scripts/copy-runtime-assets.js`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defaultKernelUrl } from '@sieve/kernel';
import { embindFunction } from '../scripts/embind-without-eval.js';
import { ORT_WASM } from './ort-build.ts';

/** One file: its path under the served folder, and its bytes. */
export interface RuntimeAsset {
  readonly path: string;
  readonly bytes: () => Uint8Array;
}

/**
 * `kernel.wasm`, `ort/<ORT_WASM>.wasm` and `ort/<ORT_WASM>.mjs` (the glue without eval).
 * Fails if onnxruntime-web cannot be found, or its glue evaluates source text in a way the
 * stand-in does not replace.
 */
export function runtimeAssets(): readonly RuntimeAsset[] {
  const fromRuntime = createRequire(import.meta.url);
  const fromTransformers = createRequire(fromRuntime.resolve('@huggingface/transformers'));
  const dist = dirname(fromTransformers.resolve('onnxruntime-web'));
  return [
    { path: 'kernel.wasm', bytes: () => new Uint8Array(readFileSync(defaultKernelUrl())) },
    { path: `ort/${ORT_WASM}.wasm`, bytes: () => new Uint8Array(readFileSync(join(dist, `${ORT_WASM}.wasm`))) },
    { path: `ort/${ORT_WASM}.mjs`, bytes: () => new TextEncoder().encode(glueWithoutEval(readFileSync(join(dist, `${ORT_WASM}.mjs`), 'utf8'))) },
  ];
}

// What transformers.js does when it loads the glue itself (from a blob: URL, which the policy
// forbids), with embind's `new Function` replaced: the module must never take a browser for Node.
function glueWithoutEval(glue: string): string {
  const uses = glue.split('new Function(').length - 1;
  if (uses !== 1) throw new Error(`${ORT_WASM}.mjs has ${uses} uses of new Function (expected embind's one): update embind-without-eval.js`);
  const browserOnly = glue.replace('new Function(', 'sieveEmbindFunction(').replaceAll('globalThis.process?.versions?.node', 'false');
  const patched = `const sieveEmbindFunction = ${embindFunction.toString()};\n${browserOnly}`;
  const evalLike = /\beval\(|\bFunction\(|setTimeout\(\s*["'`]|setInterval\(\s*["'`]/.exec(patched);
  if (evalLike !== null) throw new Error(`${ORT_WASM}.mjs still evaluates source text (${evalLike[0]}): update embind-without-eval.js`);
  return patched;
}
