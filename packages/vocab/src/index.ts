/**
 * The token index a tokenizer's masks are computed over: each token's exact bytes and a token trie, built from a tokenizer.json (in a browser or in Node).
 *
 * @module @sieve/vocab
 */
export { buildVocabIndex } from './build-vocab-index.ts';
export type { TokenizerConfig, VocabBuildOptions } from './build-vocab-index.ts';
export { buildTokenSlices, buildTokenTrie, TrieLimitError } from './token-trie.ts';
export type { TokenSliceSections, TokenTrie } from './token-trie.ts';
export { findTokenId, readTokenTable, TokenizerError, tokenizerFingerprint } from './tokenizer-json.ts';
export type { TokenizerDecoder, TokenizerJson, TokenTable } from './tokenizer-json.ts';
