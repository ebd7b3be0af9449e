import { join } from 'node:path';
import { sieveApp } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';

// One ES module for a plain page's <script type="module">, with the engine's worker beside it,
// written to public/element/ so the apps (and any static host) serve it.
export default defineConfig({
  // Asset URLs relative to the module, wherever it is served from.
  base: './',
  // Worker format and onnxruntime-web's extern-WASM build (WASM from `assets`/ort/).
  plugins: [sieveApp()],
  build: {
    target: 'es2022',
    outDir: join(import.meta.dirname, '..', '..', 'public', 'element'),
    emptyOutDir: true,
    lib: { entry: join(import.meta.dirname, 'src', 'index.ts'), formats: ['es'], fileName: () => 'sieve-output.js' },
  },
});
