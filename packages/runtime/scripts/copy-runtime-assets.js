#!/usr/bin/env node
// Copies the files a page running Sieve serves (kernel.wasm, and onnxruntime-web's WASM build
// under ort/, without eval) into a folder, for apps built without `sieveApp()` (Vite does it
// itself). Usage: copy-runtime-assets OUT_DIR — then pass `kernel: '<url>/kernel.wasm'` and
// `wasmPaths: '<url>/ort/'` to `engine.load`.
/* global console */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runtimeAssets } from '../dist/runtime-assets.js';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: copy-runtime-assets OUT_DIR');
  process.exit(2);
}
for (const asset of runtimeAssets()) {
  const file = join(out, asset.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, asset.bytes());
  console.error(`wrote ${file}`);
}
