import { join } from 'node:path';
import { defaultClientConditions, defineConfig } from 'vite';

// One ES module for a plain page's <script type="module">, with the engine's worker beside it,
// written to public/element/ so the apps (and any static host) serve it.
export default defineConfig({
  // Asset URLs relative to the module, wherever it is served from.
  base: './',
  // onnxruntime-web's build that loads its WASM from `wasmPaths` (public/ort/) instead of
  // bundling 26 MB of it as an asset.
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: join(import.meta.dirname, '..', '..', 'public', 'element'),
    emptyOutDir: true,
    lib: { entry: join(import.meta.dirname, 'src', 'index.ts'), formats: ['es'], fileName: () => 'sieve-output.js' },
  },
});
