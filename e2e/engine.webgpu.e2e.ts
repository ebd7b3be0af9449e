// Runs in the `webgpu` project (Chromium with --enable-unsafe-webgpu: SwiftShader, slow but correct).
import { expect, test } from './fixtures.ts';
import { expectValidJson, runEngineCheck } from './engine-check.ts';

test.describe.configure({ timeout: 180_000 });

test('the worker engine writes schema-valid JSON on the WebGPU execution provider', async ({ page }) => {
  const report = await runEngineCheck(page, 'webgpu');
  expect(report.info.fallbackReason).toBe(null);
  expect(report.info.device).toBe('webgpu');
  expectValidJson(report);
});
