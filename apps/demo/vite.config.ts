import { join } from 'node:path';
import { offlineApp, sharedModelsDir } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: '../../public',
  // The engine's setup (workers, onnxruntime's WASM, COOP/COEP, /models/ from ../shared/models)
  // and offline use once loaded: the app shell precached, models, onnxruntime and vocab
  // indexes cached the first time they are fetched.
  plugins: offlineApp({
    modelsDir: process.env.SIEVE_MODELS ?? sharedModelsDir(import.meta.dirname),
    manifest: { name: 'Sieve demo', short_name: 'Sieve' },
  }),
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4317, strictPort: true },
  build: {
    target: 'es2022',
    rollupOptions: {
      input: {
        main: join(import.meta.dirname, 'index.html'),
        engine: join(import.meta.dirname, 'engine.html'),
        bench: join(import.meta.dirname, 'bench.html'),
        maskbench: join(import.meta.dirname, 'maskbench.html'),
        hub: join(import.meta.dirname, 'hub-check.html'),
      },
    },
  },
});
