import { expect, test } from '@playwright/test';

test('the demo page runs the kernel inside a Web Worker', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/');
  await expect(page.locator('#status')).toHaveAttribute('data-state', 'ready');
  const report = JSON.parse((await page.locator('body').getAttribute('data-probe'))!);
  expect(report.inWorker).toBe(true);
  expect(report.crossOriginIsolated).toBe(true);
  expect(report.vocabTokens).toBe(512);
  // "Once upon a time" starts with "O": some, but far from all, tokens fit.
  expect(report.allowedTokens).toBeGreaterThan(0);
  expect(report.allowedTokens).toBeLessThan(20);
  expect(errors).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('demo.png') });
});
