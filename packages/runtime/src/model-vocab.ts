/**
 * The vocab index of a loaded model's tokenizer: the one the app gives, proved to be that
 * tokenizer's, or one built from its `tokenizer.json` (seconds at 128k–262k tokens), which a
 * browser keeps in the Cache API under the tokenizer's fingerprint so the next load skips it.
 */
import { VocabFormatError, VocabIndex, vocabLayout } from '@sieve/format';
import { buildVocabIndex, tokenizerFingerprint, type TokenizerConfig, type TokenizerJson } from '@sieve/vocab';
import { VocabMismatchError } from './errors.ts';

/** What the loaded tokenizer offers to build or check an index. */
export interface TokenizerFiles {
  readonly json: TokenizerJson;
  readonly config: TokenizerConfig;
  readonly eosTokenIds: readonly number[];
}

/** Where the index came from: given by the app, built now, or built on an earlier load and cached. */
export type VocabOrigin = 'given' | 'built' | 'cached';

// The Cache API bucket and the URL prefix built indexes are kept under.
const CACHE = 'sieve-vocab';
// (Per format version: an index of another version is never read.)
const CACHE_URL = `https://sieve.invalid/vocab/v${vocabLayout.VOCAB_VERSION}/`;

/**
 * The index for `tokenizer`: `given` (bytes), checked to be its own (`VocabMismatchError`
 * if not), or the cached (`useCache`) or newly built one.
 */
export async function modelVocab(
  given: Uint8Array | undefined,
  tokenizer: TokenizerFiles,
  name: string,
  useCache: boolean,
): Promise<{ readonly index: VocabIndex; readonly origin: VocabOrigin }> {
  const expected = tokenizerFingerprint(tokenizer.json);
  if (given !== undefined) {
    const index = new VocabIndex(given);
    checkVocab(index, expected, tokenizer);
    return { index, origin: 'given' };
  }
  const cached = useCache ? await readCached(expected) : null;
  if (cached !== null) {
    const index = parsedOrNull(cached);
    if (index?.meta.tokenizer_fingerprint === expected) return { index, origin: 'cached' };
  }
  const file = build(tokenizer, name);
  if (useCache) await writeCached(expected, file);
  return { index: new VocabIndex(file), origin: 'built' };
}

// A cached index this build cannot read (damaged) is built again.
function parsedOrNull(file: Uint8Array): VocabIndex | null {
  try {
    return new VocabIndex(file);
  } catch (error) {
    if (error instanceof VocabFormatError) return null;
    throw error;
  }
}

function build(tokenizer: TokenizerFiles, name: string): Uint8Array {
  return buildVocabIndex(tokenizer.json, {
    name,
    source: name,
    tokenizerConfig: tokenizer.config,
    generationConfig: { eos_token_id: [...tokenizer.eosTokenIds] },
  });
}

// Throws unless `index` was built from the tokenizer whose fingerprint is `expected`: by the
// fingerprint it records, or (an index from before those) by its token bytes against an
// index built now.
function checkVocab(index: VocabIndex, expected: string, tokenizer: TokenizerFiles): void {
  const recorded = index.meta.tokenizer_fingerprint;
  if (recorded !== undefined) {
    if (recorded !== expected)
      throw new VocabMismatchError(
        `the vocab index was built for another tokenizer (${index.meta.name}: fingerprint ${recorded}; the model's tokenizer has ${expected})`,
        expected,
        recorded,
      );
    return;
  }
  const own = new VocabIndex(build(tokenizer, index.meta.name));
  if (own.fingerprint !== index.fingerprint)
    throw new VocabMismatchError(
      `the vocab index was built for another tokenizer (${index.meta.name}: its token bytes differ from the model's tokenizer's)`,
      own.fingerprint,
      index.fingerprint,
    );
}

function cacheStorage(): CacheStorage | null {
  return typeof caches === 'undefined' ? null : caches;
}

async function readCached(key: string): Promise<Uint8Array | null> {
  try {
    const response = await (await cacheStorage()?.open(CACHE))?.match(CACHE_URL + key);
    return response === undefined ? null : new Uint8Array(await response.arrayBuffer());
  } catch {
    return null; // no cache (an opaque origin, storage off): build instead
  }
}

async function writeCached(key: string, file: Uint8Array): Promise<void> {
  try {
    await (await cacheStorage()?.open(CACHE))?.put(CACHE_URL + key, new Response(file.slice().buffer));
  } catch {
    // Quota or storage off: the next load builds again.
  }
}
