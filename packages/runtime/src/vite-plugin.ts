/**
 * `sieveApp()`: the Vite setup an app running Sieve's engine needs (build time, Node only).
 * - serves `kernel.wasm` and onnxruntime-web's WASM build under `ort/` at the app's root, and
 *   writes them into the build (`runtimeAssets`), so an app passes `kernel: '/kernel.wasm'`
 *   and `wasmPaths: '/ort/'` and nothing comes from a CDN;
 * - resolves onnxruntime-web's build that loads its WASM from `wasmPaths` instead of bundling
 *   26 MB of it;
 * - ES-module workers;
 * - cross-origin isolation headers on the dev and preview servers (onnxruntime-web's threads),
 *   and a strict Content-Security-Policy (`STRICT_CSP`: no eval, no inline script);
 * - local models (the transformers.js folder layout) served under `/models/` from `modelsDir`,
 *   never bundled; a missing file is a 404, not the app's index page.
 *
 * @module @sieve/runtime/vite
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, normalize, resolve } from 'node:path';
import type { GrammarLimits, JsonSchemaOptions } from '@sieve/grammar';
import type { GrammarSpec } from './constraint-specs.ts';
import { defaultKernelUrl } from '@sieve/kernel';
import { buildSpecMaskIndex } from './spec-mask-index.ts';
import { runtimeAssets } from './runtime-assets.ts';
import { defaultClientConditions, type Connect, type Plugin, type PluginOption } from 'vite';
import type { ManifestOptions } from 'vite-plugin-pwa';

/** Options of `sieveApp`. */
export interface SieveAppOptions {
  /** The folder served under `/models/` (default: `SIEVE_MODELS`, else none). */
  readonly modelsDir?: string;
  /** The dev and preview servers' Content-Security-Policy (default `STRICT_CSP`; `false`: none). */
  readonly contentSecurityPolicy?: string | false;
  /** Serve and emit `kernel.wasm` and `ort/` at the app's root (default true). */
  readonly runtimeAssets?: boolean;
}

/**
 * The policy Sieve's apps run under, and the one to serve them with: scripts only from the
 * app's origin, WebAssembly compilation allowed, no `eval`/`new Function`, no inline script.
 */
export const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; object-src 'none'; base-uri 'self'";

/** Where the dev and preview servers take the browser's CSP violation reports (and log them). */
export const CSP_REPORT_PATH = '/__sieve/csp-report';

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.onnx': 'application/octet-stream',
  '.txt': 'text/plain',
  '.wasm': 'application/wasm',
  '.mjs': 'text/javascript',
};

export function sieveApp(options: SieveAppOptions = {}): Plugin {
  const dir = options.modelsDir ?? process.env['SIEVE_MODELS'];
  const modelsDir = dir === undefined ? null : resolve(dir);
  const csp = options.contentSecurityPolicy ?? STRICT_CSP;
  const headers: Record<string, string> = csp === false ? ISOLATION : { ...ISOLATION, 'Content-Security-Policy': `${csp}; report-uri ${CSP_REPORT_PATH}` };
  // A violation is printed where the developer looks: the server's terminal.
  const reports: Connect.NextHandleFunction = (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let report: Record<string, unknown> = {};
      try {
        report = (JSON.parse(body) as { 'csp-report'?: Record<string, unknown> })['csp-report'] ?? {};
      } catch {
        // Not a report: logged as an unknown violation.
      }
      console.warn(
        `Content-Security-Policy violation: ${String(report['effective-directive'])} blocked ${String(report['blocked-uri'])} in ${String(report['source-file'] ?? report['document-uri'])}`,
      );
      res.statusCode = 204;
      res.end();
    });
  };
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
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    createReadStream(file).pipe(res);
  };
  // kernel.wasm and ort/ by path (read once, when first asked for); a file of the app's public folder wins.
  const assets = options.runtimeAssets === false ? [] : runtimeAssets();
  const assetBytes = new Map<string, Uint8Array>();
  const bytesOf = (path: string): Uint8Array | undefined => {
    const asset = assets.find((a) => a.path === path);
    if (asset === undefined) return undefined;
    if (!assetBytes.has(path)) assetBytes.set(path, asset.bytes());
    return assetBytes.get(path);
  };
  const runtime: Connect.NextHandleFunction = (req, res, next) => {
    const path = (req.url ?? '').split('?')[0]!.slice(1);
    const bytes = publicDir !== '' && existsSync(join(publicDir, path)) ? undefined : bytesOf(path);
    if (bytes === undefined) return next();
    res.setHeader('Content-Type', TYPES[extname(path)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', bytes.byteLength);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(bytes);
  };
  let publicDir = '';
  return {
    name: 'sieve-app',
    config: () => ({
      resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
      worker: { format: 'es' },
      server: { headers },
      preview: { headers },
    }),
    configResolved: (config) => void (publicDir = config.publicDir),
    configureServer: (server) => void server.middlewares.use('/models', models).use(CSP_REPORT_PATH, reports).use(runtime),
    configurePreviewServer: (server) => void server.middlewares.use('/models', models).use(CSP_REPORT_PATH, reports),
    generateBundle() {
      for (const { path } of assets) {
        if (publicDir !== '' && existsSync(join(publicDir, path))) continue;
        this.emitFile({ type: 'asset', fileName: path, source: bytesOf(path)! });
      }
    },
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
  /** Larger files are left out of the precache (default 4 MiB; a 151k-token vocab index is 4.6 MiB). */
  readonly maxPrecacheFileBytes?: number;
}

/**
 * `sieveApp()` plus an installable, offline PWA (vite-plugin-pwa, Workbox): the app shell is
 * precached, and models (`/models/`), onnxruntime (`/ort/`) and everything under `/vocab/` and
 * `/element/` are cached the first time they load. The service worker takes over at once.
 */
export function offlineApp(options: OfflineAppOptions): PluginOption[] {
  return [
    sieveApp(options),
    // vite-plugin-pwa (an optional peer) is loaded only by apps that ask for offline use.
    import('vite-plugin-pwa').then(({ VitePWA }) =>
      VitePWA({
        registerType: 'autoUpdate',
        injectRegister: 'script-defer',
        manifest: {
          start_url: '/',
          display: 'standalone',
          background_color: '#ffffff',
          theme_color: '#2f6fd6',
          icons: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
          ...options.manifest,
        },
        workbox: {
          globPatterns: ['**/*.{html,js,css,svg,wasm,sieve}', ...(options.precache ?? [])],
          globIgnores: ['ort/**', 'element/**', ...(options.ignore ?? [])],
          maximumFileSizeToCacheInBytes: options.maxPrecacheFileBytes ?? 4 * 2 ** 20,
          navigateFallback: null,
          // A page's query (`?model=`, `?hub=`) is read by its script: offline, `/?model=x` is
          // the precached `/` (precached files carry their revision, not a query).
          ignoreURLParametersMatching: [/.*/],
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
    ),
  ];
}

/** Options of `maskIndexes`. */
export interface MaskIndexesOptions {
  /** The app's vocab index (`.vocab`): indexes are built for its tokenizer. */
  readonly vocab: string;
  /** Most states per index (default 5,000); past them masks are computed at run time. */
  readonly maxStates?: number;
  /** How `.json` schemas are read (as `JsonSchema(schema, options)` at run time). */
  readonly schemaOptions?: JsonSchemaOptions;
  /** The limits the engine compiles with (`EngineLoadOptions.limits`). */
  readonly limits?: Partial<GrammarLimits>;
}

const FORMAT_OF_EXTENSION: Record<string, GrammarSpec['type']> = {
  '.json': 'json-schema',
  '.gbnf': 'gbnf',
  '.lark': 'lark',
  '.ebnf': 'ebnf',
  '.regex': 'regex',
};

/**
 * `import form from './form.schema.json?sieve'` (or a `.gbnf`, `.lark`, `.ebnf`, `.regex`
 * file): the grammar spec with its mask index, built at build time for the app's tokenizer.
 * The spec works as a constraint as it is; the index is a `.sieve` asset the engine fetches
 * once (inlined in dev). `import { indexInfo } from '…?sieve'` gives its states, size and
 * build time, and the build logs them.
 */
export function maskIndexes(options: MaskIndexesOptions): Plugin {
  const vocabPath = resolve(options.vocab);
  const built = new Map<string, { readonly file: Uint8Array; readonly info: object }>();
  let serving = false;
  return {
    name: 'sieve-mask-indexes',
    enforce: 'pre',
    configResolved: (config) => void (serving = config.command === 'serve'),
    async load(id) {
      const [path, query] = id.split('?', 2);
      if (query !== 'sieve' || path === undefined) return null;
      const type = FORMAT_OF_EXTENSION[extname(path)];
      if (type === undefined) this.error(`${basename(path)}?sieve: a grammar file is .json (JSON Schema), .gbnf, .lark, .ebnf or .regex`);
      this.addWatchFile(path);
      this.addWatchFile(vocabPath);
      const source = readFileSync(path, 'utf8');
      let spec: GrammarSpec;
      if (type === 'json-schema') {
        let schema: unknown;
        try {
          schema = JSON.parse(source);
        } catch (error) {
          this.error(`${basename(path)}: not JSON (${error instanceof Error ? error.message : String(error)})`);
        }
        spec = { type, schema, ...(options.schemaOptions === undefined ? {} : { options: options.schemaOptions }) };
      } else {
        spec = { type, grammar: source } as GrammarSpec;
      }
      const key = JSON.stringify([path, source, statSync(vocabPath).mtimeMs]);
      let entry = built.get(key);
      if (entry === undefined) {
        // kernel.wasm read here: the config's module runner is closed once the build runs.
        const index = await buildSpecMaskIndex(spec, new Uint8Array(readFileSync(vocabPath)), {
          kernel: readFileSync(defaultKernelUrl()),
          maxStates: options.maxStates ?? 5_000,
          description: `${type} ${basename(path)}`,
          ...(options.limits === undefined ? {} : { limits: options.limits }),
        });
        const info = {
          file: basename(path),
          states: index.stateCount,
          complete: index.complete,
          bytes: index.file.byteLength,
          buildMs: Math.round(index.buildMs),
          tokenizer: index.index.meta.tokenizer,
        };
        this.info(
          `${info.file}: mask index of ${info.states} states${info.complete ? '' : ' (incomplete: the rest is computed at run time)'}, ${(info.bytes / 1024).toFixed(0)} KiB, built in ${info.buildMs} ms`,
        );
        built.set(key, (entry = { file: index.file, info }));
      }
      const index = serving
        ? `Uint8Array.from(atob(${JSON.stringify(Buffer.from(entry.file).toString('base64'))}), (c) => c.charCodeAt(0))`
        : `import.meta.ROLLUP_FILE_URL_${this.emitFile({ type: 'asset', name: basename(path).replace(/\.[^.]*$/, '') + '.sieve', source: entry.file })}`;
      return `export const indexInfo = ${JSON.stringify(entry.info)};\nexport default { ...${JSON.stringify(spec)}, index: ${index} };\n`;
    },
  };
}
