// Real-model paths through a stand-in for the hub (e2e/local-hub.ts, serving the fixture
// models under their hub ids): download with progress into the Cache API, the tokenizer's
// chat template, a vocab index built in the browser and cached, a constrained chat that ajv
// accepts; a wrong vocab index, a download cut halfway, loads with the hub gone, aborts.
import Ajv2020 from 'ajv/dist/2020.js';
import type { HubReport } from '../apps/demo/src/hub-check.ts';
import { expect, test, type Page } from './fixtures.ts';
import { LOCAL_HUB } from './local-hub-address.ts';

test.describe.configure({ timeout: 240_000 });

const FIXTURES = ['onnx-community/Qwen3-0.6B-ONNX', 'onnx-community/Llama-3.2-1B-Instruct-ONNX', 'onnx-community/gemma-3-270m-it-ONNX'];
const QWEN = FIXTURES[0]!;

const control = async (command: string): Promise<{ served: string[]; failing: string[] }> =>
  (await fetch(`${LOCAL_HUB}/_control/${command}`)).json() as Promise<{ served: string[]; failing: string[] }>;

async function hubCheck(page: Page, model: string, extra = ''): Promise<HubReport> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`/hub-check.html?hub=${encodeURIComponent(LOCAL_HUB)}&model=${encodeURIComponent(model)}${extra}`);
  await expect(page.locator('#status')).toHaveAttribute('data-state', /ready|error/, { timeout: 230_000 });
  expect(await page.locator('#status').getAttribute('data-state'), (await page.locator('#status').textContent()) ?? '').toBe('ready');
  expect(errors).toEqual([]);
  return JSON.parse((await page.locator('body').getAttribute('data-report'))!) as HubReport;
}

function expectValidContact(report: HubReport): void {
  // The page's schema (kept in step with it).
  const validate = new Ajv2020({ strict: true }).compile({
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 24 },
      email: { type: 'string', pattern: '^[a-z0-9._-]{1,20}@[a-z0-9-]{1,20}\\.[a-z]{2,6}$' },
      urgent: { type: 'boolean' },
    },
    required: ['name', 'email', 'urgent'],
    additionalProperties: false,
  });
  expect(validate(JSON.parse(report.text!)), report.text!).toBe(true);
  expect(report.finishReason).toBe('stop');
}

test.beforeEach(async () => {
  await control('reset');
});

for (const model of FIXTURES) {
  test(`${model}: loads by hub id with progress and answers a chat in the schema; the second load needs no hub`, async ({ page }) => {
    const first = await hubCheck(page, model);
    expect(first.loadErrors).toEqual([]);
    expect(first.info!.vocabOrigin).toBe('built');
    expect(first.info!.hasChatTemplate).toBe(true);
    // WASM's default dtype: q8, transformers.js's model_quantized.onnx.
    expect(first.files['onnx/model_quantized.onnx']).toBeGreaterThan(1_000_000);
    expect(first.files['tokenizer.json']).toBeGreaterThan(1_000_000);
    expectValidContact(first);
    await control('offline?on=1');
    const second = await hubCheck(page, model);
    expect(second.loadErrors).toEqual([]);
    expect(second.info!.vocabOrigin).toBe('cached');
    expectValidContact(second);
    expect(second.text).toBe(first.text); // same seed, same model
  });
}

test('cached models are listed with their files and size, and deleted: the next load needs the hub again', async ({ page }) => {
  const report = await hubCheck(page, QWEN, '&delete=1');
  const listed = report.cached.find((model) => model.id === QWEN);
  expect(listed?.files).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx']));
  expect(listed!.bytes).toBeGreaterThan(1_000_000);
  expect(report.deleted).toBe(true);
  expect(report.cachedAfterDelete!.some((model) => model.id === QWEN)).toBe(false);
  await control('offline?on=1');
  const again = await hubCheck(page, QWEN);
  expect(again.info).toBeNull();
  expect(again.loadErrors.length).toBe(1);
});

test("another tokenizer's vocab index is refused with VocabMismatchError", async ({ page }) => {
  const report = await hubCheck(page, QWEN, '&vocab=/vocab/llama3.1.vocab');
  expect(report.info).toBeNull();
  expect(report.loadErrors, JSON.stringify(report.loadErrors)).toMatchObject([{ name: 'VocabMismatchError', code: 'vocab_mismatch' }]);
});

test('a download cut halfway is not kept: loading again (the browser or the page) gets the whole file', async ({ page }) => {
  const model = `${QWEN}/onnx/model_quantized.onnx`;
  await control(`fail?file=${model}`);
  const report = await hubCheck(page, QWEN, '&retry=1');
  const log = await control('log');
  // The cut happened, the file was then served whole once, and the model works. (Chromium
  // itself fetches again after such a cut, so the page's own retry is rarely needed.)
  expect(log).toMatchObject({ failing: [] });
  expect(log.served.filter((file) => file === model)).toHaveLength(1);
  expect(report.loadErrors.length).toBeLessThanOrEqual(1);
  expect(report.info).not.toBeNull();
  expectValidContact(report);
});

test('a load aborted during the download rejects with LoadAbortedError; a generation aborted stops with abort', async ({ page }) => {
  const download = await hubCheck(page, QWEN, '&abort=download');
  expect(download.info).toBeNull();
  expect(download.loadErrors).toMatchObject([{ name: 'LoadAbortedError', code: 'aborted' }]);
  const generation = await hubCheck(page, QWEN, '&abort=generate');
  expect(generation.stopReason).toBe('abort');
});
