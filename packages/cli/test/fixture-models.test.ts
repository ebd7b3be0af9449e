// The fixture models (`sieve fixtures build`): deterministic, in the layout transformers.js
// loads, with the real tokenizers and chat templates; each runs a constrained chat through the
// engine (onnxruntime-node) in float32 and float16 files, and the output is valid for ajv.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VocabIndex, writeVocabIndex } from '@sieve/format';
import { createServer } from 'node:http';
import {
  catalogueModel,
  estimatedDownloadBytes,
  formatBytes,
  InThreadEngine,
  loadModel,
  MODEL_CATALOGUE,
  modelDownloadSize,
  VocabMismatchError,
} from '@sieve/runtime';
import { buildVocabIndex, tokenizerFingerprint } from '@sieve/vocab';
import { afterAll, describe, expect, it } from 'vitest';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { buildFixtures, FIXTURES } from '../src/fixture-models.ts';
import { main } from '../src/main.ts';

const out = mkdtempSync(join(tmpdir(), 'sieve-fixtures-'));
const built = buildFixtures(out);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const CONTACT = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 20 }, email: { type: 'string', format: 'email' }, urgent: { type: 'boolean' } },
  required: ['name', 'email', 'urgent'],
  additionalProperties: false,
};

describe('fixture models', () => {
  it('are written the same way every time', () => {
    const again = mkdtempSync(join(tmpdir(), 'sieve-fixtures-'));
    try {
      const [first] = buildFixtures(again, FIXTURES.slice(0, 1));
      for (const file of ['config.json', 'onnx/model_q4f16.onnx', 'onnx/model.onnx'])
        expect(readFileSync(join(first!.dir, file)).equals(readFileSync(join(built[0]!.dir, file)))).toBe(true);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it('give the same logits from float32 and float16 files (float16 logits are read as numbers), and depend on the KV cache', async () => {
    const logitsOf = async (dtype: 'fp32' | 'q4f16', tokens: number[][]): Promise<Float32Array[]> => {
      const model = await loadModel({ model: built[0]!.dir, device: 'cpu', dtype });
      const sequence = model.startSequence();
      const all: Float32Array[] = [];
      for (const step of tokens) all.push(await sequence.forward(step));
      await model.dispose();
      return all;
    };
    const [whole, next] = await logitsOf('fp32', [[9707, 11, 1879], [0]]);
    const [half] = await logitsOf('q4f16', [[9707, 11, 1879]]);
    const [other] = await logitsOf('fp32', [[0]]);
    expect(whole!.length).toBe(built[0]!.vocab_size);
    let most = 0;
    for (let i = 0; i < whole!.length; i++) most = Math.max(most, Math.abs(whole![i]! - half![i]!));
    expect(most).toBeLessThan(0.05);
    // Token 0 after a context differs from token 0 alone: the cache is read.
    expect(next!.some((value, i) => Math.abs(value - other![i]!) > 1e-3)).toBe(true);
  }, 60_000);

  it.each(built.map((fixture) => [fixture.id, fixture] as const))(
    '%s: a constrained chat in fp32 and q4f16 gives JSON ajv accepts',
    async (_, fixture) => {
      const validate = ajvValidator(CONTACT);
      for (const dtype of ['fp32', 'q4f16'] as const) {
        const engine = new InThreadEngine();
        try {
          const info = await engine.load({ model: fixture.dir, device: 'cpu', dtype });
          expect(info.vocabSize).toBe(fixture.vocab_size);
          const result = await engine.generate({
            messages: [
              { role: 'system', content: 'Extract the contact as JSON.' },
              { role: 'user', content: 'Hi, this is Ada Lovelace (ada@example.org). Please call back today!' },
            ],
            constraint: { type: 'json-schema', schema: CONTACT },
            maxTokens: 120,
            sampling: { temperature: 1, seed: 7 },
          });
          // The chat template rendered the messages: the prompt holds more than their words.
          expect(result.stats.promptTokens).toBeGreaterThan(20);
          expect(result.complete, result.text).toBe(true);
          expect(validate(JSON.parse(result.text)), result.text).toBe(true);
        } finally {
          await engine.dispose();
        }
      }
    },
    120_000,
  );

  describe("the vocab index must be the tokenizer's", () => {
    const qwen = built.find((fixture) => fixture.tokenizer === 'qwen3')!;
    const load = async (vocab: Uint8Array): Promise<unknown> => {
      const engine = new InThreadEngine();
      try {
        return await engine.load({ model: qwen.dir, device: 'cpu', vocab });
      } catch (error) {
        return error;
      } finally {
        await engine.dispose();
      }
    };
    const ownIndex = (): Uint8Array =>
      buildVocabIndex(JSON.parse(readFileSync(join(qwen.dir, 'tokenizer.json'), 'utf8')), { name: 'qwen3', source: 'fixture' });

    it('its own index is taken, and proved by the fingerprint it records', async () => {
      expect(await load(ownIndex())).toMatchObject({ vocabOrigin: 'given', tokenCount: 151669 });
    }, 60_000);

    it("another tokenizer's index is refused with VocabMismatchError, even with fewer tokens than the model's logits", async () => {
      const llama = readFileSync(join(import.meta.dirname, '..', '..', '..', 'public', 'vocab', 'llama3.1.vocab'));
      const error = await load(new Uint8Array(llama));
      expect(error).toBeInstanceOf(VocabMismatchError);
      expect(error).toMatchObject({ code: 'vocab_mismatch' });
    }, 60_000);

    it('an index without a recorded fingerprint (older builds) is checked by its token bytes', async () => {
      const withoutFingerprint = (file: Uint8Array, change?: (bytes: Uint8Array) => void): Uint8Array => {
        const index = new VocabIndex(file);
        const meta = { ...index.meta };
        delete (meta as { tokenizer_fingerprint?: string }).tokenizer_fingerprint;
        const bytes = index.bytes.slice();
        change?.(bytes);
        return writeVocabIndex({
          offsets: index.offsets,
          flags: index.flags,
          bytes,
          trie: index.trie,
          duplicates: index.duplicates,
          sliceNodes: index.sliceNodes,
          sliceTokens: index.sliceTokens,
          sliceLengths: index.sliceLengths,
          meta,
        });
      };
      expect(await load(withoutFingerprint(ownIndex()))).toMatchObject({ vocabOrigin: 'given' });
      // One byte of one token differs: refused.
      expect(await load(withoutFingerprint(ownIndex(), (bytes) => (bytes[1000] = bytes[1000]! ^ 1)))).toBeInstanceOf(VocabMismatchError);
    }, 60_000);
  });

  describe('the model catalogue', () => {
    it('has every fixture, with the fingerprint of the same tokenizer', () => {
      for (const fixture of built) {
        const model = catalogueModel(fixture.id);
        expect(model, fixture.id).toBeDefined();
        expect(model!.tokenizerFingerprint).toBe(tokenizerFingerprint(JSON.parse(readFileSync(join(fixture.dir, 'tokenizer.json'), 'utf8'))));
        expect(model!.contextLength).toBe(JSON.parse(readFileSync(join(fixture.dir, 'config.json'), 'utf8')).max_position_embeddings);
      }
      expect(new Set(MODEL_CATALOGUE.map((model) => model.id)).size).toBe(MODEL_CATALOGUE.length);
    });

    it('formats sizes in decimal units with three significant digits', () => {
      expect([312_400, 4_808_760, 43_512_000, 480_000_000, 1_236_000_000].map(formatBytes)).toEqual(['312 KB', '4.81 MB', '43.5 MB', '480 MB', '1.24 GB']);
    });

    it('estimates sizes from parameters and bits, and refuses an unknown dtype', () => {
      const qwen = catalogueModel('onnx-community/Qwen3-0.6B-ONNX')!;
      expect(estimatedDownloadBytes(qwen, 'q4f16')).toBeGreaterThan(300e6);
      expect(estimatedDownloadBytes(qwen, 'q4f16')).toBeLessThan(estimatedDownloadBytes(qwen, 'fp16'));
      expect(() => estimatedDownloadBytes(qwen, 'q2' as never)).toThrow(/dtype q2/);
    });

    it('modelDownloadSize asks a hub for the bytes of each file the load downloads (external weights too)', async () => {
      const fixture = built[0]!;
      // A hub serving the fixtures, whose config says the q4 weights come in two external files.
      const server = createServer((request, response) => {
        const file = request.url?.startsWith(`/${fixture.id}/resolve/main/`) ? request.url.slice(`/${fixture.id}/resolve/main/`.length) : '';
        const body =
          file === ''
            ? null
            : file === 'config.json'
              ? JSON.stringify({ 'transformers.js_config': { use_external_data_format: { 'model_q4.onnx': 2 } } })
              : /_data(_1)?$/.test(file)
                ? 'x'.repeat(1000)
                : (() => {
                    try {
                      return readFileSync(join(fixture.dir, file));
                    } catch {
                      return null;
                    }
                  })();
        if (body === null) return void response.writeHead(404).end();
        response.writeHead(200, { 'Content-Length': String(Buffer.byteLength(body)) }).end(request.method === 'HEAD' ? undefined : body);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const hub = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      try {
        const q4f16 = await modelDownloadSize(fixture.id, 'q4f16', { hub });
        expect(q4f16.files.map((f) => f.file)).toEqual([
          'config.json',
          'generation_config.json',
          'tokenizer.json',
          'tokenizer_config.json',
          'onnx/model_q4f16.onnx',
        ]);
        const onnx = q4f16.files.at(-1)!;
        expect(onnx.bytes).toBe(readFileSync(join(fixture.dir, 'onnx/model_q4f16.onnx')).length);
        const q4 = await modelDownloadSize(fixture.id, 'q4', { hub });
        expect(q4.files.slice(-2)).toEqual([
          { file: 'onnx/model_q4.onnx_data', bytes: 1000 },
          { file: 'onnx/model_q4.onnx_data_1', bytes: 1000 },
        ]);
        expect(q4.bytes).toBe(q4.files.reduce((sum, f) => sum + f.bytes, 0));
        await expect(modelDownloadSize('nobody/none', 'q4', { hub })).rejects.toThrow(/nobody\/none\/resolve\/main\/config.json: HTTP 404/);
      } finally {
        server.close();
      }
    });
  });

  describe('sieve generate on a fixture', () => {
    const qwen = built.find((fixture) => fixture.tokenizer === 'qwen3')!;
    const run = async (...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> => {
      const lines: string[] = [];
      const code = await main(
        [...args, '--json'],
        (line) => lines.push(line),
        () => {},
      );
      return { code, json: JSON.parse(lines.at(-1)!) as Record<string, unknown> };
    };

    it('sends --system and --prompt through the chat template (--raw: the plain prompt)', async () => {
      const chat = await run('generate', '--model', qwen.dir, '--system', 'Answer briefly.', '--prompt', 'Hello', '--max-tokens', '3', '--seed', '1');
      const raw = await run('generate', '--model', qwen.dir, '--prompt', 'Hello', '--raw', '--max-tokens', '3', '--seed', '1');
      expect(chat).toMatchObject({ code: 0, json: { chat: true } });
      expect(raw).toMatchObject({ code: 0, json: { chat: false, prompt_tokens: 1 } });
      // <|im_start|>system\nAnswer briefly.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n
      expect(chat.json['prompt_tokens']).toBeGreaterThan(10);
    }, 60_000);

    it("exits 2 with vocab_mismatch for another tokenizer's --vocab", async () => {
      const llama = join(import.meta.dirname, '..', '..', '..', 'public', 'vocab', 'llama3.1.vocab');
      expect(await run('generate', '--model', qwen.dir, '--vocab', llama, '--prompt', 'Hello')).toMatchObject({
        code: 2,
        json: { error: { code: 'vocab_mismatch' } },
      });
    }, 60_000);
  });

  it('a chat with the same system prompt reuses its KV cache (float16 too), with the same tokens as without', async () => {
    const qwen = built.find((fixture) => fixture.tokenizer === 'qwen3')!;
    const engine = new InThreadEngine();
    try {
      await engine.load({ model: qwen.dir, device: 'cpu', dtype: 'q4f16' });
      const ask = async (text: string, reusePrefix: boolean) => {
        const result = await engine.generate({
          messages: [
            { role: 'system', content: 'Extract the contact as JSON. Be exact.' },
            { role: 'user', content: text },
          ],
          constraint: { type: 'json-schema', schema: CONTACT },
          maxTokens: 60,
          sampling: { seed: 3 },
          reusePrefix,
        });
        return { tokens: result.tokens, reused: result.stats.reusedPromptTokens };
      };
      const texts = ['Ada, ada@example.org, urgent.', 'Bob (bob@example.com), no hurry.'];
      const without = [await ask(texts[0]!, false), await ask(texts[1]!, false)];
      await ask('Something else entirely.', false);
      const reused = [await ask(texts[0]!, true), await ask(texts[1]!, true)];
      expect(without.map((r) => r.reused)).toEqual([0, 0]);
      expect(reused[1]!.reused).toBeGreaterThan(10); // the system turn and the user turn's start
      expect(reused.map((r) => r.tokens)).toEqual(without.map((r) => r.tokens));
    } finally {
      await engine.dispose();
    }
  }, 60_000);

  it("samples as the model's generation_config says unless asked otherwise; template options and the repetition penalty apply", async () => {
    const qwen = built.find((fixture) => fixture.tokenizer === 'qwen3')!;
    const engine = new InThreadEngine();
    try {
      const info = await engine.load({ model: qwen.dir, device: 'cpu' });
      expect(info.samplingDefaults).toEqual({ temperature: 0.6, topK: 20, topP: 0.95 });
      const messages = [{ role: 'user', content: 'Say something.' }];
      const tokens = async (sampling: object, extra: object = {}): Promise<readonly number[]> =>
        (await engine.generate({ messages, maxTokens: 12, sampling, reusePrefix: false, ...extra })).tokens;
      expect(await tokens({ seed: 4 })).toEqual(await tokens({ temperature: 0.6, topK: 20, topP: 0.95, seed: 4 }));
      expect(await tokens({ seed: 4 })).not.toEqual(await tokens({ temperature: 1, topK: 0, topP: 1, seed: 4 }));
      // Qwen3's template writes an empty think block when thinking is off.
      const thinking = await engine.generate({ messages, maxTokens: 1 });
      const direct = await engine.generate({ messages, maxTokens: 1, templateOptions: { enable_thinking: false } });
      expect(direct.stats.promptTokens).toBeGreaterThan(thinking.stats.promptTokens);
      // Greedy repeats itself here; with a huge penalty it never picks a token already in the context.
      const plain = await tokens({ temperature: 0 });
      const penalized = await tokens({ temperature: 0, repetitionPenalty: 1e6 });
      expect(new Set(plain).size).toBeLessThan(plain.length);
      expect(new Set(penalized).size).toBe(penalized.length);
    } finally {
      await engine.dispose();
    }
  }, 60_000);
});
