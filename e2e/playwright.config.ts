import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '*.e2e.ts',
  outputDir: './results',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: 'http://127.0.0.1:4317',
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
    screenshot: 'on',
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'chromium', testIgnore: '*.webgpu.e2e.ts' },
    // A WebGPU adapter from SwiftShader: the WebGPU path is tested, never timed.
    {
      name: 'webgpu',
      testMatch: '*.webgpu.e2e.ts',
      use: { launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS, '--enable-unsafe-webgpu'] } },
    },
  ],
  // The production builds, served the way a static host would: the demo, and the forms PWA.
  webServer: [
    {
      command: 'pnpm --filter @sieve/demo run build && pnpm --filter @sieve/demo run preview',
      url: 'http://127.0.0.1:4317',
      reuseExistingServer: false,
      timeout: 120_000,
    },
    {
      command: 'pnpm --filter @sieve/forms run build && pnpm --filter @sieve/forms run preview',
      url: 'http://127.0.0.1:4319',
      reuseExistingServer: false,
      timeout: 120_000,
    },
    // A stand-in for the Hugging Face hub, serving the fixture models (e2e/local-hub.ts).
    { command: 'pnpm exec tsx local-hub.ts', url: 'http://127.0.0.1:4320/_control/log', reuseExistingServer: false, timeout: 120_000 },
  ],
});
