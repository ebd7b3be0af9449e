#!/usr/bin/env node
// Copies the onnxruntime-web build transformers.js loads in a browser (the asyncify variant:
// WASM and WebGPU in one binary) into a folder the apps serve, so nothing comes from a CDN.
// Its glue module's one `new Function` (embind's method callers) is replaced by
// `embindFunction` (./embind-without-eval.js), so the apps run under a Content-Security-Policy
// without 'unsafe-eval' (the runtime loads this module by URL, never from a blob:). Fails if
// the module has any other eval-like construct.
// Usage: node copy-ort-wasm.js OUT_DIR  (the runtime's `wasmPaths` option then points there).
/* global console */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { embindFunction } from './embind-without-eval.js';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: copy-ort-wasm.js OUT_DIR');
  process.exit(2);
}
const fromRuntime = createRequire(import.meta.url);
const fromTransformers = createRequire(fromRuntime.resolve('@huggingface/transformers'));
const dist = dirname(fromTransformers.resolve('onnxruntime-web'));
const name = 'ort-wasm-simd-threaded.asyncify';
mkdirSync(out, { recursive: true });
copyFileSync(join(dist, `${name}.wasm`), join(out, `${name}.wasm`));

const glue = readFileSync(join(dist, `${name}.mjs`), 'utf8');
const uses = glue.split('new Function(').length - 1;
if (uses !== 1) throw new Error(`${name}.mjs has ${uses} uses of new Function (expected embind's one): update embind-without-eval.js`);
// What transformers.js does when it loads the glue itself (from a blob: URL, which the policy
// forbids): the module must never take a browser for Node.
const browserOnly = glue.replace('new Function(', 'sieveEmbindFunction(').replaceAll('globalThis.process?.versions?.node', 'false');
const patched = `const sieveEmbindFunction = ${embindFunction.toString()};\n${browserOnly}`;
const evalLike = /\beval\(|\bFunction\(|setTimeout\(\s*["'`]|setInterval\(\s*["'`]/.exec(patched);
if (evalLike !== null) throw new Error(`${name}.mjs still evaluates source text (${evalLike[0]}): update embind-without-eval.js`);
writeFileSync(join(out, `${name}.mjs`), patched);
console.error(`copied onnxruntime-web (${dist}) to ${out}, without eval`);
