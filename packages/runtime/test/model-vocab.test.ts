// The vocab index a model gets when the app gives none: built from its tokenizer, kept in
// the Cache API (a stand-in here) and read back on the next load, unless this build cannot
// read what is kept (another format version, damaged bytes): then it is built again.
import { VocabIndex } from '@sieve/format';
import { loadTokenizer } from '@sieve/vocab/presets';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelVocab, type TokenizerFiles } from '../src/model-vocab.ts';

// A Cache API with one bucket: URL → bytes.
function fakeCaches(): { readonly store: Map<string, Uint8Array> } {
  const store = new Map<string, Uint8Array>();
  const bucket = {
    match: async (url: string) => (store.has(url) ? new Response(store.get(url)!.slice().buffer) : undefined),
    put: async (url: string, response: Response) => void store.set(url, new Uint8Array(await response.arrayBuffer())),
  };
  (globalThis as { caches?: unknown }).caches = { open: async () => bucket };
  return { store };
}

describe('model vocab cache', () => {
  const preset = loadTokenizer('stories260k');
  const tokenizer: TokenizerFiles = { json: preset.json, config: preset.tokenizerConfig ?? {}, eosTokenIds: [2] };
  let store: Map<string, Uint8Array>;
  beforeEach(() => void ({ store } = fakeCaches()));
  afterEach(() => void delete (globalThis as { caches?: unknown }).caches);

  it('builds once, then reads the cached index', async () => {
    expect((await modelVocab(undefined, tokenizer, 'stories260k', true)).origin).toBe('built');
    expect(store.size).toBe(1);
    const again = await modelVocab(undefined, tokenizer, 'stories260k', true);
    expect(again.origin).toBe('cached');
    expect(again.index).toBeInstanceOf(VocabIndex);
  });

  it('keys the cache by format version, and builds again over a damaged entry', async () => {
    await modelVocab(undefined, tokenizer, 'stories260k', true);
    const [url] = [...store.keys()];
    expect(url).toMatch(/\/v\d+\//);
    store.set(url!, Uint8Array.of(1, 2, 3));
    expect((await modelVocab(undefined, tokenizer, 'stories260k', true)).origin).toBe('built');
    expect((await modelVocab(undefined, tokenizer, 'stories260k', true)).origin).toBe('cached');
  });
});
