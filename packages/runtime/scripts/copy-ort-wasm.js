#!/usr/bin/env node
// Copies the onnxruntime-web build transformers.js loads in a browser (the asyncify variant:
// WASM and WebGPU in one binary) into a folder the apps serve, so nothing comes from a CDN.
// Usage: node copy-ort-wasm.js OUT_DIR  (the runtime's `wasmPaths` option then points there).
/* global console */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: copy-ort-wasm.js OUT_DIR');
  process.exit(2);
}
const fromRuntime = createRequire(import.meta.url);
const fromTransformers = createRequire(fromRuntime.resolve('@huggingface/transformers'));
const dist = dirname(fromTransformers.resolve('onnxruntime-web'));
mkdirSync(out, { recursive: true });
for (const file of ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm']) copyFileSync(join(dist, file), join(out, file));
console.error(`copied onnxruntime-web (${dist}) to ${out}`);
