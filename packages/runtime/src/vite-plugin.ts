/**
 * `sieveApp()`: the Vite setup an app running Sieve's engine needs (build time, Node only).
 * - resolves onnxruntime-web's build that loads its WASM from `wasmPaths` (`/ort/`, copied by
 *   `scripts/copy-ort-wasm.js`) instead of bundling 26 MB of it;
 * - ES-module workers;
 * - cross-origin isolation headers on the dev and preview servers (onnxruntime-web's threads);
 * - local models (the transformers.js folder layout) served under `/models/` from `modelsDir`,
 *   never bundled; a missing file is a 404, not the app's index page.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { defaultClientConditions, type Connect, type Plugin, type PluginOption } from 'vite';
import { VitePWA, type ManifestOptions } from 'vite-plugin-pwa';

/** Options of `sieveApp`. */
export interface SieveAppOptions {
  /** The folder served under `/models/` (default: `SIEVE_MODELS`, else none). */
  readonly modelsDir?: string;
}

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const TYPES: Record<string, string> = { '.json': 'application/json', '.onnx': 'application/octet-stream', '.txt': 'text/plain' };

export function sieveApp(options: SieveAppOptions = {}): Plugin {
  const dir = options.modelsDir ?? process.env['SIEVE_MODELS'];
  const modelsDir = dir === undefined ? null : resolve(dir);
  const models: Connect.NextHandleFunction = (req, res, next) => {
    if (modelsDir === null) return next();
    const file = join(modelsDir, normalize(decodeURIComponent((req.url ?? '').split('?')[0]!)));
    if (!file.startsWith(modelsDir)) return next();
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    for (const [name, value] of Object.entries(ISOLATION)) res.setHeader(name, value);
    createReadStream(file).pipe(res);
  };
  return {
    name: 'sieve-app',
    config: () => ({
      resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
      worker: { format: 'es' },
      server: { headers: ISOLATION },
      preview: { headers: ISOLATION },
    }),
    configureServer: (server) => void server.middlewares.use('/models', models),
    configurePreviewServer: (server) => void server.middlewares.use('/models', models),
  };
}

/** The models folder beside this repository (`../shared/models`), for the repo's own apps. */
export function sharedModelsDir(appDir: string): string {
  return join(appDir, '..', '..', '..', 'shared', 'models');
}

/** What `offlineApp` precaches beyond the app's own HTML, JS, CSS, SVG and WASM. */
export interface OfflineAppOptions extends SieveAppOptions {
  readonly manifest: Partial<ManifestOptions>;
  /** Extra precache globs (e.g. the one vocab index the app uses), relative to the build output. */
  readonly precache?: readonly string[];
  /** Globs kept out of the precache (pages of other apps in a shared public folder). */
  readonly ignore?: readonly string[];
}

/**
 * `sieveApp()` plus an installable, offline PWA (vite-plugin-pwa, Workbox): the app shell is
 * precached, and models (`/models/`), onnxruntime (`/ort/`) and everything under `/vocab/` and
 * `/element/` are cached the first time they load. The service worker takes over at once.
 */
export function offlineApp(options: OfflineAppOptions): PluginOption[] {
  return [
    sieveApp(options),
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: 'script-defer',
      manifest: { start_url: '/', display: 'standalone', background_color: '#ffffff', theme_color: '#2f6fd6', icons: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }], ...options.manifest },
      workbox: {
        globPatterns: ['**/*.{html,js,css,svg,wasm}', ...(options.precache ?? [])],
        globIgnores: ['ort/**', 'element/**', ...(options.ignore ?? [])],
        maximumFileSizeToCacheInBytes: 4 * 2 ** 20,
        navigateFallback: null,
        clientsClaim: true,
        skipWaiting: true,
        runtimeCaching: [
          {
            urlPattern: ({ url }) => /^\/(models|ort|vocab|element)\//.test(url.pathname),
            handler: 'CacheFirst',
            options: { cacheName: 'sieve-models-and-runtimes', cacheableResponse: { statuses: [200] } },
          },
        ],
      },
    }),
  ];
}
