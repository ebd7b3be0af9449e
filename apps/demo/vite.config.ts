import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { defaultClientConditions, defineConfig, type Connect, type Plugin } from 'vite';

// Cross-origin isolation lets onnxruntime-web use threads (SharedArrayBuffer).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// Local models (the transformers.js folder layout) under /models/: SIEVE_MODELS, or the
// shared folder beside the repository. Never bundled: the dev and preview servers read them.
const modelsDir = resolve(process.env.SIEVE_MODELS ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'models'));
const TYPES: Record<string, string> = { '.json': 'application/json', '.onnx': 'application/octet-stream', '.txt': 'text/plain' };

function serveModels(): Plugin {
  const middleware: Connect.NextHandleFunction = (req, res, next) => {
    const path = normalize(decodeURIComponent((req.url ?? '').split('?')[0]!));
    const file = join(modelsDir, path);
    if (!file.startsWith(modelsDir) || !existsSync(file) || !statSync(file).isFile()) return next();
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    for (const [name, value] of Object.entries(isolation)) res.setHeader(name, value);
    createReadStream(file).pipe(res);
  };
  return {
    name: 'sieve-serve-models',
    configureServer: (server) => void server.middlewares.use('/models', middleware),
    configurePreviewServer: (server) => void server.middlewares.use('/models', middleware),
  };
}

export default defineConfig({
  publicDir: '../../public',
  plugins: [serveModels()],
  server: { host: '127.0.0.1', port: 5173, headers: isolation },
  preview: { host: '127.0.0.1', port: 4317, strictPort: true, headers: isolation },
  // onnxruntime-web's build that loads its WASM from `wasmPaths` (public/ort/) instead of
  // bundling 26 MB of it as an asset.
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    rollupOptions: {
      input: { main: join(import.meta.dirname, 'index.html'), engine: join(import.meta.dirname, 'engine.html'), bench: join(import.meta.dirname, 'bench.html') },
    },
  },
});
