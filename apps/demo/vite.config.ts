import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { defaultClientConditions, defineConfig, type Connect, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

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
    if (!file.startsWith(modelsDir)) return next();
    // A missing model file is a 404, not the app's index page (the loader would try to parse it).
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.end();
      return;
    }
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
  plugins: [
    serveModels(),
    // Offline once loaded: the app shell is precached; models, onnxruntime and vocab indexes
    // are cached the first time they are fetched.
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: 'script-defer',
      manifest: { name: 'Sieve demo', short_name: 'Sieve', start_url: '/', display: 'standalone', background_color: '#ffffff', theme_color: '#2f6fd6', icons: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml' }] },
      workbox: {
        globPatterns: ['**/*.{html,js,css,svg,wasm}'],
        globIgnores: ['ort/**', 'vocab/**', 'element/**'],
        maximumFileSizeToCacheInBytes: 4 * 2 ** 20,
        navigateFallback: null,
        clientsClaim: true,
        skipWaiting: true,
        runtimeCaching: [
          {
            urlPattern: ({ url }) => /^\/(models|ort|vocab|element)\//.test(url.pathname) || url.pathname === '/kernel.wasm',
            handler: 'CacheFirst',
            options: { cacheName: 'sieve-models-and-runtimes', cacheableResponse: { statuses: [200] } },
          },
        ],
      },
    }),
  ],
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
