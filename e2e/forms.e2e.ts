import { expect, test, type Page } from './fixtures.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The built-in forms' schemas (the app imports them with `?sieve`, which only its build reads).
const SCHEMAS = join(import.meta.dirname, '..', 'apps', 'forms', 'src', 'schemas');
const BUILT_IN_FORMS = readdirSync(SCHEMAS).map((name) => ({ id: name.replace('.schema.json', ''), schema: JSON.parse(readFileSync(join(SCHEMAS, name), 'utf8')) as object }));

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

async function open(page: Page): Promise<void> {
  await page.goto('/');
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
    if (navigator.serviceWorker.controller === null) await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  });
  await page.reload(); // the model is fetched through the service worker: now it is cached
  await open(page);
  await context.setOffline(true);
  await page.reload();
  await open(page);
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
  await open(page);
  await expect(page.locator('#pasted')).toHaveValue('Note from Ada Lovelace, ada@example.org, London.');
  await expect(page.locator('[data-path="form.name"]')).toHaveValue('Ada Lovelace');

  // Kill the engine's worker in the middle of a fill: the page restarts it and keeps the draft.
  await page.locator('#fill').click();
  const worker = page.workers().find((w) => w.url().includes('engine-worker'))!;
  await worker.evaluate(() => setTimeout(() => {
    throw new Error('killed by the test');
  }));
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
  await open(page);
  await expect(page.locator('#pasted')).toHaveValue('Note from Ada Lovelace, ada@example.org, London.');
  // And the restarted engine fills forms again.
  const value = await fill(page, 'contact');
  expect(value).toHaveProperty('email');
  expect(outside).toEqual([]);
});

test('a custom form from a pasted schema; unsupported keywords explained with their place', async ({ page }) => {
  await open(page);
  await page.locator('#new-form summary').click();
  await page.locator('#custom-schema').fill(JSON.stringify({ type: 'object', properties: { when: { type: 'string', format: 'date' }, code: { type: 'string', pattern: '(?<=a)b' } }, required: ['when'] }));
  await page.locator('#custom-create').click();
  await expect(page.locator('#custom-error')).toBeVisible();
  await expect(page.locator('#custom-error')).toContainText('properties › code');
  await page.locator('#custom-title').fill('Delivery note');
  await page.locator('#custom-schema').fill(JSON.stringify({ type: 'object', properties: { parcel: { type: 'string', maxLength: 12 }, count: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['parcel', 'count'], additionalProperties: false }));
  await page.locator('#custom-create').click();
  await expect(page.locator('#form-title')).toHaveText('Delivery note');
  await page.locator('#pasted').fill('Two parcels for Mr Smith arrived today.');
  await page.locator('#fill').click();
  await expect(page.locator('#fill-status')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(page.locator('#validity')).toHaveAttribute('data-state', 'valid');
  // The custom form is kept.
  await page.reload();
  await open(page);
  await expect(page.locator('#form-list')).toContainText('Delivery note');
});
