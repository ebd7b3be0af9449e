// What the engine-check page (apps/demo/engine.html) must show, on any device.
import { expect, type Page } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020.js';
import type { EngineReport } from '../apps/demo/src/engine-check.ts';

// The person schema the engine-check page generates against (kept in step with the page).
const PERSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 12 },
    age: { type: 'integer', minimum: 1, maximum: 99 },
    pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 2 },
  },
  required: ['name', 'age'],
  additionalProperties: false,
};

/** Opens the engine check on `device` and returns its report, failing on page errors. */
export async function runEngineCheck(page: Page, device: string): Promise<EngineReport> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`/engine.html?device=${device}`);
  await expect(page.locator('#status')).toHaveAttribute('data-state', /ready|error/, { timeout: 170_000 });
  const status = await page.locator('#status').textContent();
  expect(await page.locator('#status').getAttribute('data-state'), status ?? '').toBe('ready');
  expect(errors).toEqual([]);
  return JSON.parse((await page.locator('body').getAttribute('data-report'))!) as EngineReport;
}

/** Every generation is complete and schema-valid; streaming, masks and errors crossed the boundary intact. */
export function expectValidJson(report: EngineReport): void {
  const validate = new Ajv2020({ strict: true }).compile(PERSON_SCHEMA);
  expect(report.results.length).toBe(3);
  for (const result of report.results) {
    expect(result.complete, result.text).toBe(true);
    expect(validate(JSON.parse(result.text)), result.text).toBe(true);
  }
  expect(report.streamed).toBe(report.results.reduce((n, r) => n + r.tokens.length, 0));
  expect(report.masksTransferred).toBe(true);
  // A schema error keeps its class, code and pointer across the worker boundary.
  expect(report.error).toEqual({ name: 'InvalidSchemaError', code: 'invalid_schema', pointer: '', keyword: 'minLength', isSchemaError: true });
}
