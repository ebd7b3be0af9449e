import { join } from 'node:path';
import { sharedModelsDir, sieveApp } from '@sieve/runtime/vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  publicDir: '../../public',
  plugins: [
    // Worker format, onnxruntime-web's extern-WASM build, COOP/COEP, /models/ from ../shared/models.
    sieveApp({ modelsDir: process.env.SIEVE_MODELS ?? sharedModelsDir(import.meta.dirname) }),
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
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4317, strictPort: true },
  build: {
    target: 'es2022',
    rollupOptions: {
      input: { main: join(import.meta.dirname, 'index.html'), engine: join(import.meta.dirname, 'engine.html'), bench: join(import.meta.dirname, 'bench.html') },
    },
  },
});
