import { expect, test, type Page } from './fixtures.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { EXAMPLES } from '../apps/demo/src/examples.ts';

test.describe.configure({ timeout: 240_000 });

async function loadStories(page: Page): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.locator('#device').selectOption('wasm');
  await page.locator('#load').click();
  await expect(page.locator('#device-info')).toHaveAttribute('data-state', /wasm|webgpu|error/, { timeout: 60_000 });
  expect(await page.locator('#device-info').getAttribute('data-state'), (await page.locator('#device-info').textContent()) ?? '').toBe('wasm');
  await expect(page.locator('#device-info')).toContainText('runs on WASM');
  expect(errors).toEqual([]);
}

async function canvasPixels(page: Page): Promise<string> {
  return page.locator('#mask').evaluate((canvas: HTMLCanvasElement) => canvas.toDataURL());
}

test('the demo loads stories260K; every example compiles and generates output its constraint accepts', async ({ page }) => {
  await loadStories(page);
  for (const example of EXAMPLES) {
    await page.locator('#kind').selectOption(example.kind);
    await page.locator('#example').selectOption(example.id);
    await expect(page.locator('#compile-status')).toHaveAttribute('data-state', 'ok');
    await page.locator('#generate').click();
    await expect(page.locator('#result')).toHaveAttribute('data-state', /done|error/, { timeout: 60_000 });
    const summary = (await page.locator('#result').textContent()) ?? '';
    expect(await page.locator('#result').getAttribute('data-state'), summary).toBe('done');
    expect(summary, example.id).toContain(', complete.');
    const text = (await page.locator('body').getAttribute('data-output'))!;
    if (example.kind === 'json-schema') {
      const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(JSON.parse(example.source) as object);
      expect(validate(JSON.parse(text)), `${example.id}: ${text}`).toBe(true);
    }
    if (example.id === 'date') expect(text).toMatch(new RegExp(`^(?:${example.source})$`));
    await page.screenshot({ path: test.info().outputPath(`demo-${example.id}.png`), fullPage: true });
  }
});

test('the mask view changes between steps (step-through mode)', async ({ page }) => {
  await loadStories(page);
  await page.locator('#kind').selectOption('json-schema');
  await page.locator('#example').selectOption('invoice');
  await page.locator('#step-mode').check();
  await page.locator('#generate').click();
  await expect(page.locator('body')).toHaveAttribute('data-step', /\d+/, { timeout: 60_000 });
  const first = await page.locator('body').getAttribute('data-step');
  const before = await canvasPixels(page);
  await expect(page.locator('#next')).toBeEnabled();
  await page.locator('#next').click();
  await expect(page.locator('body')).not.toHaveAttribute('data-step', first!);
  const after = await canvasPixels(page);
  expect(after).not.toBe(before);
  await expect(page.locator('#allowed')).toContainText('of 512');
  await expect(page.locator('#mask')).toHaveAttribute('data-tokens-per-cell', '1');
  // stories260K has no chat template: raw prompts only, and the page says why.
  await expect(page.locator('#mode-chat')).toBeDisabled();
  await expect(page.locator('#chat-reason')).toContainText('no chat template');
  await page.screenshot({ path: test.info().outputPath('demo-step.png'), fullPage: true });
  await page.locator('#stop').click();
  await expect(page.locator('#result')).toHaveAttribute('data-state', 'done');
});

test('an invalid grammar shows its error at the right place', async ({ page }) => {
  await page.goto('/');
  await page.locator('#kind').selectOption('gbnf');
  const source = 'root ::= "a" missing-rule\n';
  await page.locator('#grammar').fill(source);
  await expect(page.locator('#compile-status')).toHaveAttribute('data-state', 'error');
  const backdrop = page.locator('#editor .backdrop');
  await expect(backdrop).toHaveAttribute('data-error-start', String(source.indexOf('missing-rule')));
  await expect(page.locator('#editor mark')).toHaveText('missing-rule');
  await expect(page.locator('#editor .error')).toContainText('line 1, column 14');
  // A JSON Schema error is placed by its pointer.
  await page.locator('#kind').selectOption('json-schema');
  await page.locator('#grammar').fill('{\n  "type": "object",\n  "properties": { "a": { "minimum": "x" } }\n}');
  await expect(page.locator('#compile-status')).toHaveAttribute('data-state', 'error');
  await expect(page.locator('#editor mark')).toHaveText('"x"');
  await page.screenshot({ path: test.info().outputPath('demo-error.png') });
});

test('works offline once loaded', async ({ page, context }) => {
  await loadStories(page);
  // The service worker controls the page and has cached what the model needed.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (navigator.serviceWorker.controller === null)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  });
  await page.reload();
  await loadStories(page); // fetched through the worker now, so cached
  await context.setOffline(true);
  try {
    await page.reload();
    await loadStories(page);
    await page.locator('#kind').selectOption('regex');
    await expect(page.locator('#compile-status')).toHaveAttribute('data-state', 'ok');
    await page.locator('#generate').click();
    await expect(page.locator('#result')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    expect(await page.locator('body').getAttribute('data-output')).toMatch(/^(19|20)[0-9]{2}-/);
  } finally {
    await context.setOffline(false);
  }
});

test('a worker that is killed is noticed and restarted; the page keeps its grammar and output', async ({ page }) => {
  await loadStories(page);
  await page.locator('#kind').selectOption('regex');
  await page.locator('#example').selectOption('date');
  await page.locator('#generate').click();
  await expect(page.locator('#result')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  const output = await page.locator('body').getAttribute('data-output');
  const grammar = await page.locator('#grammar').inputValue();
  // Closed from inside: no error event, the worker just ends (as when the browser kills it).
  const worker = page.workers().find((w) => w.url().includes('engine-worker'))!;
  await worker.evaluate(() => (self as unknown as { close(): void }).close());
  await expect(page.locator('body')).toHaveAttribute('data-restarts', '1', { timeout: 30_000 });
  await expect(page.locator('#device-info')).toHaveAttribute('data-state', 'wasm', { timeout: 60_000 });
  expect(await page.locator('body').getAttribute('data-output')).toBe(output);
  expect(await page.locator('#grammar').inputValue()).toBe(grammar);
  await page.locator('#generate').click();
  await expect(page.locator('#result')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  expect(await page.locator('body').getAttribute('data-output')).toMatch(/^(19|20)\d{2}-/);
});
