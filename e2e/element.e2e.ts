import { expect, test } from './fixtures.ts';
import Ajv2020 from 'ajv/dist/2020.js';

test.describe.configure({ timeout: 120_000 });

test('<sieve-output> in a plain HTML page fires done with output that validates', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/element.html');
  const body = page.locator('body');
  await expect(body).toHaveAttribute('data-person', /.+/, { timeout: 90_000 });
  await expect(body).toHaveAttribute('data-date', /.+/, { timeout: 90_000 });
  expect(await body.getAttribute('data-error')).toBe(null);
  const person = JSON.parse((await body.getAttribute('data-person'))!) as unknown;
  const schema = {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 12 }, age: { type: 'integer', minimum: 1, maximum: 12 } },
    required: ['name', 'age'],
    additionalProperties: false,
  };
  expect(new Ajv2020().compile(schema)(person)).toBe(true);
  expect(await body.getAttribute('data-date')).toMatch(/^(19|20)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/);
  expect(Number(await body.getAttribute('data-tokens'))).toBeGreaterThan(3);
  // The output is light DOM in the element's slot, and the status a CSS part.
  await expect(page.locator('#person > output[slot="output"]')).toHaveText((await body.getAttribute('data-person'))!);
  await expect(page.locator('#date').locator('[part="status"]')).toContainText('done');
  expect(errors).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('element.png'), fullPage: true });
});
