import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VocabIndex } from '@sieve/format';
import { MODEL_CATALOGUE } from '@sieve/runtime/client';
import { describe, expect, it } from 'vitest';
import { catalogueEntry, defaultDtype, formatCount, PREBUILT_VOCABS, prebuiltVocab, type ModelChoice } from '../src/model-choice.ts';

const publicDir = join(import.meta.dirname, '..', '..', '..', 'public');
const byId = (id: string): ModelChoice => ({ kind: 'catalogue', model: MODEL_CATALOGUE.find((m) => m.id === id)! });

describe('prebuiltVocab', () => {
  it('offers a prebuilt index only for the tokenizer it was built from', () => {
    expect(prebuiltVocab(byId('onnx-community/Qwen3-0.6B-ONNX'))).toBe('/vocab/qwen3.vocab');
    // llama3.1.vocab is Llama 3.1's tokenizer, not Llama 3.2's.
    expect(prebuiltVocab(byId('onnx-community/Llama-3.2-1B-Instruct-ONNX'))).toBe(null);
    expect(prebuiltVocab(byId('onnx-community/gemma-3-270m-it-ONNX'))).toBe(null);
    expect(prebuiltVocab({ kind: 'stories' })).toBe('/vocab/stories260k.vocab');
    expect(prebuiltVocab({ kind: 'hub', id: 'onnx-community/Qwen3-0.6B-ONNX' })).toBe('/vocab/qwen3.vocab');
    expect(prebuiltVocab({ kind: 'folder', path: '/models/qwen3' })).toBe(null);
  });

  it("matches: each prebuilt index records the fingerprint the catalogue gives the model's tokenizer", () => {
    const files = PREBUILT_VOCABS.map((name) => join(publicDir, 'vocab', `${name}.vocab`));
    if (!files.every(existsSync)) throw new Error(`build the vocab indexes first (pnpm build:vocab): ${files.filter((f) => !existsSync(f)).join(', ')}`);
    for (const model of MODEL_CATALOGUE) {
      const path = prebuiltVocab({ kind: 'catalogue', model });
      if (path === null) continue;
      const index = new VocabIndex(new Uint8Array(readFileSync(join(publicDir, path))));
      expect(index.meta.tokenizer_fingerprint, model.id).toBe(model.tokenizerFingerprint);
    }
  });
});

describe('defaultDtype', () => {
  it("is the catalogue's per device, fp32 for stories260K, else the model's own default", () => {
    const qwen = byId('onnx-community/Qwen3-0.6B-ONNX');
    expect(defaultDtype(qwen, 'webgpu')).toBe('q4f16');
    expect(defaultDtype(qwen, 'wasm')).toBe('q4');
    expect(defaultDtype({ kind: 'stories' }, 'webgpu')).toBe('fp32');
    expect(defaultDtype({ kind: 'hub', id: 'someone/Other-ONNX' }, 'wasm')).toBe(null);
    expect(catalogueEntry({ kind: 'hub', id: 'onnx-community/Qwen3-0.6B-ONNX' })?.name).toBe('Qwen3 0.6B');
  });
});

describe('formatCount', () => {
  it('gives millions, or billions past a thousand million', () => {
    expect(formatCount(268e6)).toBe('268M');
    expect(formatCount(1.236e9)).toBe('1.24B');
  });
});
