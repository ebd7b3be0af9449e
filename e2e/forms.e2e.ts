import { expect, test, type Page } from './fixtures.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes, modelFiles } from '../packages/runtime/src/model-catalogue.ts';
import { LOCAL_HUB } from './local-hub-address.ts';

// The built-in forms' schemas (the app imports them with `?sieve`, which only its build reads).
const SCHEMAS = join(import.meta.dirname, '..', 'apps', 'forms', 'src', 'schemas');
const BUILT_IN_FORMS = readdirSync(SCHEMAS).map((name) => ({
  id: name.replace('.schema.json', ''),
  schema: JSON.parse(readFileSync(join(SCHEMAS, name), 'utf8')) as object,
}));

const ORIGIN = 'http://127.0.0.1:4319';
test.use({ baseURL: ORIGIN });
test.describe.configure({ timeout: 300_000 });

// Every request of the page and its workers stays on the app's origin.
function watchRequests(page: Page): string[] {
  const outside: string[] = [];
  page.context().on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(ORIGIN) && !url.startsWith('blob:') && !url.startsWith('data:')) outside.push(url);
  });
  return outside;
}

// Most tests run on stories260K (fast), picked by the address (a reload keeps it).
const STORIES = '/?model=stories260K';

async function open(page: Page, path = STORIES): Promise<void> {
  if (path !== '') await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#engine-status')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
}

async function fill(page: Page, formId: string): Promise<unknown> {
  await page.locator(`#form-list button[data-form="${formId}"]`).click();
  await expect(page.locator('body')).toHaveAttribute('data-form', formId);
  await page.locator('#sample').click();
  await page.locator('#fill').click();
  await expect(page.locator('#fill-status'), formId).toHaveAttribute('data-state', /done|stopped|error/, { timeout: 60_000 });
  expect(await page.locator('#fill-status').getAttribute('data-state'), (await page.locator('#fill-status').textContent()) ?? '').toBe('done');
  return JSON.parse((await page.locator('#json').textContent())!) as unknown;
}

test('offline after the first load, every form fills from pasted text and validates; nothing leaves the origin', async ({ page, context }) => {
  const outside = watchRequests(page);
  await open(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (navigator.serviceWorker.controller === null)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  });
  await page.reload(); // the model is fetched through the service worker: now it is cached
  await open(page, '');
  await context.setOffline(true);
  await page.reload();
  await open(page, '');
  for (const form of BUILT_IN_FORMS) {
    const value = await fill(page, form.id);
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(form.schema);
    expect(validate(value), `${form.id}: ${JSON.stringify(value)} ${JSON.stringify(validate.errors)}`).toBe(true);
    await expect(page.locator('#validity')).toHaveAttribute('data-state', 'valid');
    await page.screenshot({ path: test.info().outputPath(`forms-${form.id}.png`), fullPage: true });
  }
  expect(outside).toEqual([]);
});

test('a draft survives a reload and a killed worker', async ({ page }) => {
  const outside = watchRequests(page);
  await open(page);
  await page.locator('#form-list button[data-form="contact"]').click();
  await page.locator('#pasted').fill('Note from Ada Lovelace, ada@example.org, London.');
  await page.locator('[data-path="form.name"]').fill('Ada Lovelace');
  await expect(page.locator('#validity')).toHaveAttribute('data-state', 'invalid'); // email still empty
  await page.reload();
  await open(page, '');
  await expect(page.locator('#pasted')).toHaveValue('Note from Ada Lovelace, ada@example.org, London.');
  await expect(page.locator('[data-path="form.name"]')).toHaveValue('Ada Lovelace');

  // Kill the engine's worker in the middle of a fill: the page restarts it and keeps the draft.
  await page.locator('#fill').click();
  const worker = page.workers().find((w) => w.url().includes('engine-worker'))!;
  await worker.evaluate(() =>
    setTimeout(() => {
      throw new Error('killed by the test');
    }),
  );
  await expect(page.locator('body')).toHaveAttribute('data-restarts', '1');
  // What the fill had written before the kill stays (under load it may have reached the name).
  const name = await page.locator('[data-path="form.name"]').inputValue();
  expect(name).not.toBe('');
  await expect(page.locator('#engine-status')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  await expect(page.locator('#pasted')).toHaveValue('Note from Ada Lovelace, ada@example.org, London.');
  // A worker that ends without an error event (closed, or killed by the browser) is noticed too.
  const second = page.workers().find((w) => w.url().includes('engine-worker') && w !== worker)!;
  await second.evaluate(() => (self as unknown as { close(): void }).close());
  await expect(page.locator('body')).toHaveAttribute('data-restarts', '2', { timeout: 30_000 });
  await expect(page.locator('#engine-status')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  await expect(page.locator('[data-path="form.name"]')).toHaveValue(name);
  await page.reload();
  await open(page, '');
  await expect(page.locator('#pasted')).toHaveValue('Note from Ada Lovelace, ada@example.org, London.');
  // And the restarted engine fills forms again.
  const value = await fill(page, 'contact');
  expect(value).toHaveProperty('email');
  expect(outside).toEqual([]);
});

test('a custom form from a pasted schema; unsupported keywords explained with their place', async ({ page }) => {
  await open(page);
  await page.locator('#new-form summary').click();
  await page.locator('#custom-schema').fill(
    JSON.stringify({
      type: 'object',
      properties: { when: { type: 'string', format: 'date' }, code: { type: 'string', pattern: '(?<=a)b' } },
      required: ['when'],
    }),
  );
  await page.locator('#custom-create').click();
  await expect(page.locator('#custom-error')).toBeVisible();
  await expect(page.locator('#custom-error')).toContainText('properties › code');
  await page.locator('#custom-title').fill('Delivery note');
  await page.locator('#custom-schema').fill(
    JSON.stringify({
      type: 'object',
      properties: { parcel: { type: 'string', maxLength: 12 }, count: { type: 'integer', minimum: 1, maximum: 9 } },
      required: ['parcel', 'count'],
      additionalProperties: false,
    }),
  );
  await page.locator('#custom-create').click();
  await expect(page.locator('#form-title')).toHaveText('Delivery note');
  await page.locator('#pasted').fill('Two parcels for Mr Smith arrived today.');
  await page.locator('#fill').click();
  await expect(page.locator('#fill-status')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(page.locator('#validity')).toHaveAttribute('data-state', 'valid');
  // The custom form is kept.
  await page.reload();
  await open(page, '');
  await expect(page.locator('#form-list')).toContainText('Delivery note');
});

// ---------------------------------------------------------------------------------------
// Qwen3 0.6B, the default, from the local stand-in for the hub (random weights, the real
// tokenizer, config and chat template: the outputs are nonsense, the path is the real one).

const QWEN = 'onnx-community/Qwen3-0.6B-ONNX';
const QWEN_FILES = join(import.meta.dirname, '..', '.fixtures', 'models', QWEN);
const WITH_HUB = `/?hub=${encodeURIComponent(LOCAL_HUB)}`;

interface HubLog {
  readonly served: string[];
  readonly held: number;
}
const control = async (command: string): Promise<HubLog> => (await fetch(`${LOCAL_HUB}/_control/${command}`)).json() as Promise<HubLog>;

test('Qwen3 by default: its size and a download button first, a cancellable download with progress; then every form fills through the chat template with the build-time mask index; the next start loads it offline', async ({
  page,
  context,
}) => {
  await control('reset');
  await page.goto(WITH_HUB);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#model')).toHaveValue(QWEN);
  // Not downloaded behind the person's back: the size (the hub's exact bytes), a warning, a button.
  const status = page.locator('#engine-status');
  await expect(status).toHaveAttribute('data-state', 'needs-download');
  await expect(page.locator('#download')).toBeVisible();
  const size = page.locator('#download-size');
  await expect(size).toHaveAttribute('data-exact', 'true');
  const files = modelFiles((await size.getAttribute('data-dtype')) as Parameters<typeof modelFiles>[0]);
  const bytes = files.reduce((sum, file) => sum + statSync(join(QWEN_FILES, file)).size, 0);
  await expect(size).toHaveAttribute('data-bytes', String(bytes));
  await expect(size).toHaveText(formatBytes(bytes));
  await expect(page.locator('#download .warning')).toContainText('large download');
  await expect(page.locator('#download-source')).toHaveText(new URL(LOCAL_HUB).host);
  await expect(page.locator('#fill')).toBeDisabled();
  await page.screenshot({ path: test.info().outputPath('forms-qwen3-first-run.png'), fullPage: true });
  const weights = `${QWEN}/${files.at(-1)!}`;
  expect((await control('log')).served).not.toContain(weights);

  // A download held halfway by the hub shows its bytes, and Cancel stops it.
  await control(`hold?file=${weights}`);
  await page.locator('#download-start').click();
  await expect(status).toHaveAttribute('data-state', 'downloading');
  await expect.poll(async () => (await control('log')).held, { timeout: 60_000 }).toBe(1);
  const progress = page.locator('#download-progress');
  await expect.poll(() => progress.evaluate((bar: HTMLProgressElement) => bar.value), { timeout: 60_000 }).toBeGreaterThan(0);
  await page.locator('#download-cancel').click();
  await expect(status).toHaveAttribute('data-state', 'needs-download');
  await expect(status).toContainText('cancelled');
  await control('release');

  // Downloaded for real this time.
  await page.locator('#download-start').click();
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 120_000 });
  await expect(page.locator('#download')).toBeHidden();
  expect(await progress.evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([bytes, bytes]);
  expect((await control('log')).served).toContain(weights);

  for (const form of BUILT_IN_FORMS) {
    const value = await fill(page, form.id);
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(form.schema);
    expect(validate(value), `${form.id}: ${JSON.stringify(value)} ${JSON.stringify(validate.errors)}`).toBe(true);
    const fillStatus = page.locator('#fill-status');
    await expect(fillStatus).toHaveAttribute('data-prompt', 'chat');
    await expect(fillStatus).toHaveAttribute('data-index', 'build-time');
    expect(Number(await fillStatus.getAttribute('data-indexed-masks')), form.id).toBeGreaterThan(0);
    await page.screenshot({ path: test.info().outputPath(`forms-qwen3-${form.id}.png`), fullPage: true });
  }
  // Filling the last form again feeds only what its prompt does not share with the last fill.
  const last = BUILT_IN_FORMS.at(-1)!.id;
  await fill(page, last);
  expect(Number(await page.locator('#fill-status').getAttribute('data-reused-prompt-tokens'))).toBeGreaterThan(0);

  // Kept in the browser: the next start loads it at once, with the network gone.
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  await control('offline?on=1');
  await context.setOffline(true);
  await page.reload();
  await open(page, '');
  await expect(page.locator('body')).toHaveAttribute('data-model-cached', 'true');
  await expect(page.locator('#download')).toBeHidden();
  expect(await fill(page, 'contact')).toHaveProperty('email');
});

test('the model picked is remembered; stories260K, without a chat template, gets a raw prompt and no index', async ({ page }) => {
  await control('reset');
  await page.goto(WITH_HUB);
  await expect(page.locator('#engine-status')).toHaveAttribute('data-state', 'needs-download');
  await page.locator('#model').selectOption('stories260K');
  await expect(page.locator('#engine-status')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  await page.reload();
  await open(page, '');
  await expect(page.locator('#model')).toHaveValue('stories260K');
  expect(await fill(page, 'travel')).toHaveProperty('from');
  const fillStatus = page.locator('#fill-status');
  await expect(fillStatus).toHaveAttribute('data-prompt', 'raw');
  await expect(fillStatus).toHaveAttribute('data-index', 'none');
  await expect(fillStatus).toHaveAttribute('data-indexed-masks', '0');
  // Nothing of Qwen3 was downloaded.
  expect((await control('log')).served.filter((file) => file.endsWith('.onnx'))).toEqual([]);
});
