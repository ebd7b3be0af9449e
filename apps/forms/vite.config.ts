import { join } from 'node:path';
import { maskIndexes, offlineApp, sharedModelsDir } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: '../../public',
  // The engine's setup (workers, onnxruntime's WASM, COOP/COEP, /models/) and an installable,
  // offline PWA: app shell, kernel.wasm and the vocab indexes of the default model (Qwen3) and
  // of stories260K precached, the model files and onnxruntime cached on first load.
  plugins: [
    ...offlineApp({
      modelsDir: process.env.SIEVE_MODELS ?? sharedModelsDir(import.meta.dirname),
      manifest: { name: 'Sieve forms', short_name: 'Forms', description: 'Fill forms from pasted text, on your device.' },
      precache: ['vocab/stories260k.vocab', 'vocab/qwen3.vocab'],
      maxPrecacheFileBytes: 6 * 2 ** 20,
      ignore: ['engine.html', 'bench.html', 'element.html'],
    }),
    // The built-in forms' mask indexes (`?sieve` imports), for the default model's tokenizer.
    // Over 151,669 tokens every token of a free string leads to a state of its own, so an
    // index reaches only the opening of a form: 30 states hold the forced structure up to the
    // first free choice and that choice (README: the table).
    maskIndexes({ vocab: join(import.meta.dirname, '..', '..', 'public', 'vocab', 'qwen3.vocab'), maxStates: 30 }),
  ],
  server: { host: '127.0.0.1', port: 5174 },
  preview: { host: '127.0.0.1', port: 4319, strictPort: true },
  build: { target: 'es2022', rollupOptions: { input: { main: join(import.meta.dirname, 'index.html') } } },
});
