import { expect, test } from './fixtures.ts';
import { expectValidJson, runEngineCheck } from './engine-check.ts';

test.describe.configure({ timeout: 180_000 });

test('the worker engine writes schema-valid JSON on the WASM execution provider', async ({ page }) => {
  const report = await runEngineCheck(page, 'wasm');
  expect(report.info.device).toBe('wasm');
  expect(report.info.tokenCount).toBe(512);
  expect(report.progress.some((p) => p.kind === 'file' && p.file === 'onnx/model.onnx' && p.totalBytes > 1_000_000)).toBe(true);
  expectValidJson(report);
  await page.screenshot({ path: test.info().outputPath('engine-wasm.png') });
});
