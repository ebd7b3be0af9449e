import { sieveApp } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';

// sieveApp(): ES-module workers, onnxruntime-web's WASM and kernel.wasm served at the root
// (and written into the build), COOP/COEP and a strict CSP, and local models under /models/.
export default defineConfig({
  plugins: [sieveApp({ modelsDir: process.env.SIEVE_MODELS ?? 'models' })],
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
