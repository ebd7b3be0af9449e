// The demo page with the catalogue's models, from the local stand-in for the hub
// (e2e/local-hub.ts, ?hub=…): the size before downloading (estimate, then exact), the byte
// progress bar, cancelling a download, chat mode answering in a JSON Schema, the mask view at
// Gemma 3's 262,145 tokens, and the prebuilt vocab index where it matches the tokenizer.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { EXAMPLES } from '../apps/demo/src/examples.ts';
import { expect, test, type Page } from './fixtures.ts';
import { LOCAL_HUB } from './local-hub-address.ts';

test.describe.configure({ timeout: 240_000 });

const GEMMA = 'onnx-community/gemma-3-270m-it-ONNX';
const QWEN = 'onnx-community/Qwen3-0.6B-ONNX';
const LLAMA = 'onnx-community/Llama-3.2-1B-Instruct-ONNX';
const FIXTURES = join(import.meta.dirname, '..', '.fixtures', 'models');

interface HubLog {
  readonly served: string[];
  readonly held: number;
}
const control = async (command: string): Promise<HubLog> => (await fetch(`${LOCAL_HUB}/_control/${command}`)).json() as Promise<HubLog>;

test.beforeEach(async () => {
  await control('reset');
});

/** Opens the demo on the local hub and picks `model` on WASM; returns the page's uncaught errors, as they come. */
async function pick(page: Page, model: string): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`/?hub=${encodeURIComponent(LOCAL_HUB)}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.locator('#device').selectOption('wasm');
  await page.locator('#model').selectOption(model);
  return errors;
}

async function load(page: Page, state: 'wasm' | 'error' = 'wasm'): Promise<void> {
  await page.locator('#load').click();
  await expect(page.locator('#device-info')).toHaveAttribute('data-state', /wasm|webgpu|error|cancelled/, { timeout: 200_000 });
  expect(await page.locator('#device-info').getAttribute('data-state'), (await page.locator('#device-info').textContent()) ?? '').toBe(state);
}

const maskPixels = (page: Page): Promise<string> => page.locator('#mask').evaluate((canvas: HTMLCanvasElement) => canvas.toDataURL());

test('Gemma 3 from the catalogue: exact size before the download, progress to it, a chat in a JSON Schema, the mask at 262k tokens', async ({ page }) => {
  // Hold the hub's answers until the estimate has been seen: it shows before any request.
  const held: { continue(): Promise<void> }[] = [];
  let holding = true;
  await page.route(`${LOCAL_HUB}/**`, (route) => (holding ? void held.push(route) : route.continue()));
  const errors = await pick(page, GEMMA);
  await expect(page.locator('#dtype')).toHaveValue('q4'); // the catalogue's dtype on WASM
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'estimate');
  await expect(page.locator('#model-size')).toContainText(/≈ \d+ MB, estimate/);
  holding = false;
  for (const route of held) await route.continue();
  await page.unroute(`${LOCAL_HUB}/**`);
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'exact');
  const shown = Number(await page.locator('#model-size').getAttribute('data-bytes'));

  await control('reset'); // the log: what the load fetches
  await load(page);
  // The exact size is what the load fetched, file by file, from the hub.
  const fetched = [...new Set((await control('log')).served)];
  expect(fetched).toContain(`${GEMMA}/onnx/model_q4.onnx`);
  expect(fetched.every((file) => file.startsWith(`${GEMMA}/`))).toBe(true);
  expect(shown).toBe(fetched.reduce((sum, file) => sum + statSync(join(FIXTURES, file)).size, 0));
  // The bar reached the total, and the total is that size.
  expect(await page.locator('#progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([shown, shown]);
  await expect(page.locator('#vocab-info')).toHaveAttribute('data-origin', 'built');
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'cached');

  // Chat mode, a JSON Schema example, step through two sampled tokens, then run to the end.
  const example = EXAMPLES.find((e) => e.id === 'tool-call')!;
  await expect(page.locator('#mode-chat')).toBeEnabled();
  await page.locator('#mode-chat').check();
  await expect(page.locator('#chat-fields')).toBeVisible();
  await page.locator('#kind').selectOption(example.kind);
  await page.locator('#example').selectOption(example.id);
  await expect(page.locator('#user')).toHaveValue(example.prompt);
  await expect(page.locator('#compile-status')).toHaveAttribute('data-state', 'ok');
  await page.locator('#step-mode').check();
  await page.locator('#generate').click();
  await expect(page.locator('body')).toHaveAttribute('data-step', /\d+/, { timeout: 60_000 });
  const first = (await page.locator('body').getAttribute('data-step'))!;
  const before = await maskPixels(page);
  await expect(page.locator('#allowed')).toContainText('of 262,145');
  await expect(page.locator('#mask')).toHaveAttribute('data-tokens-per-cell', '3');
  await expect(page.locator('#mask-scale')).toContainText('3 tokens');
  // The sampled token is marked, and some cells show allowed tokens.
  const colours = await page.locator('#mask').evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let chosen = 0;
    let allowed = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === 255 && data[i + 1] === 196 && data[i + 2] === 0) chosen++;
      else if (data[i + 1]! > 60) allowed++;
    }
    return { chosen, allowed };
  });
  expect(colours.chosen).toBeGreaterThan(0);
  expect(colours.allowed).toBeGreaterThan(0);
  await page.locator('#next').click();
  await expect(page.locator('body')).not.toHaveAttribute('data-step', first);
  expect(await maskPixels(page)).not.toBe(before);
  await page.screenshot({ path: test.info().outputPath('demo-gemma-step.png'), fullPage: true });
  await page.locator('#step-mode').uncheck();
  await expect(page.locator('#result')).toHaveAttribute('data-state', /done|error/, { timeout: 120_000 });
  const summary = (await page.locator('#result').textContent()) ?? '';
  expect(await page.locator('#result').getAttribute('data-state'), summary).toBe('done');
  const text = (await page.locator('body').getAttribute('data-output'))!;
  const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(JSON.parse(example.source) as object);
  expect(validate(JSON.parse(text)), text).toBe(true);
  // Deleted from the browser, the model has to be downloaded again.
  await page.locator('#delete-cached').click();
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'exact');
  await expect(page.locator('#delete-cached')).toBeHidden();
  expect(errors).toEqual([]);
});

test('a download cancelled halfway says so; the page stays usable and the next load works', async ({ page }) => {
  await control(`hold?file=${GEMMA}/onnx/model_q4.onnx`);
  const errors = await pick(page, GEMMA);
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'exact');
  await page.locator('#load').click();
  // The weights are half sent and held: the download is under way.
  await expect.poll(async () => (await control('log')).held, { timeout: 60_000 }).toBe(1);
  await expect(page.locator('#progress-text')).toContainText(' of ');
  await expect(page.locator('#cancel')).toBeEnabled();
  await page.locator('#cancel').click();
  await expect(page.locator('#device-info')).toHaveAttribute('data-state', 'cancelled');
  await expect(page.locator('#device-info')).toContainText('cancelled');
  await expect(page.locator('#generate')).toBeDisabled();
  await expect(page.locator('#cancel')).toBeDisabled();
  expect((await control('log')).served).not.toContain(`${GEMMA}/onnx/model_q4.onnx`);
  await load(page);
  expect((await control('log')).served).toContain(`${GEMMA}/onnx/model_q4.onnx`);
  await expect(page.locator('#generate')).toBeEnabled();
  expect(errors).toEqual([]);
});

test("Qwen3 gets the prebuilt qwen3.vocab (given); Llama 3.2's index is built, llama3.1.vocab is not its tokenizer's", async ({ page }) => {
  const errors = await pick(page, QWEN);
  await expect(page.locator('#model-facts')).toContainText('prebuilt vocab index /vocab/qwen3.vocab');
  await load(page);
  await expect(page.locator('#vocab-info')).toHaveAttribute('data-origin', 'given');
  await expect(page.locator('#vocab-info')).toContainText('/vocab/qwen3.vocab');
  await page.locator('#model').selectOption(LLAMA);
  await load(page);
  await expect(page.locator('#vocab-info')).toHaveAttribute('data-origin', 'built');
  expect(errors).toEqual([]);
});

test('typed picks: a hub id of the catalogue gets its facts; a folder loads, and a failed load is said in words', async ({ page }) => {
  const errors = await pick(page, 'hub');
  await page.locator('#custom-model').fill(QWEN);
  await page.locator('#custom-model').press('Enter');
  await expect(page.locator('#dtype')).toHaveValue('q4');
  await expect(page.locator('#model-facts')).toContainText('prebuilt vocab index /vocab/qwen3.vocab');
  await expect(page.locator('#model-size')).toHaveAttribute('data-state', 'exact');
  // stories260K by its folder: only fp32 is exported, so the model's default (q8 on WASM) is missing.
  await page.locator('#model').selectOption('folder');
  await page.locator('#custom-model').fill('/models/stories260K');
  await page.locator('#custom-model').press('Enter');
  await expect(page.locator('#dtype')).toHaveValue('');
  await load(page, 'error');
  await expect(page.locator('#device-info')).toContainText('Could not load the model');
  await page.locator('#dtype').selectOption('fp32');
  await load(page);
  await expect(page.locator('#vocab-info')).toHaveAttribute('data-origin', 'built');
  await expect(page.locator('#mode-chat')).toBeDisabled();
  expect(errors).toEqual([]);
});
