import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sieveApp } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';

const bundle = join(import.meta.dirname, 'bundle');
const publicCopy = join(import.meta.dirname, '..', '..', 'public', 'element');

// One ES module for a plain page's <script type="module">, with the engine's worker, kernel.wasm
// and onnxruntime-web's WASM (ort/) beside it, written to bundle/ (shipped in the package as
// `@sieve/element/bundle`) and copied to public/element/ so the apps serve it.
export default defineConfig({
  // Asset URLs relative to the module, wherever it is served from.
  base: './',
  // The bundle looks for kernel.wasm and ort/ beside itself (`assets` default).
  define: { __SIEVE_ELEMENT_BUNDLE__: 'true' },
  // Worker format, onnxruntime-web's extern-WASM build, kernel.wasm and ort/ in the output.
  plugins: [
    sieveApp(),
    {
      name: 'copy-to-public',
      closeBundle: () => {
        rmSync(publicCopy, { recursive: true, force: true });
        cpSync(bundle, publicCopy, { recursive: true });
      },
    },
  ],
  build: {
    target: 'es2022',
    outDir: bundle,
    emptyOutDir: true,
    lib: { entry: join(import.meta.dirname, 'src', 'index.ts'), formats: ['es'], fileName: () => 'sieve-output.js' },
  },
});
