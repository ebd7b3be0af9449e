import { defineConfig } from 'vite';

// Cross-origin isolation lets onnxruntime-web use threads (SharedArrayBuffer).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  publicDir: '../../public',
  server: { host: '127.0.0.1', port: 5173, headers: isolation },
  preview: { host: '127.0.0.1', port: 4317, strictPort: true, headers: isolation },
  worker: { format: 'es' },
  build: { target: 'es2022' },
});
