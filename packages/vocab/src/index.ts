export { buildVocabIndex } from './build-vocab-index.ts';
export type { TokenizerConfig, VocabBuildOptions } from './build-vocab-index.ts';
export { buildTokenTrie, TrieLimitError } from './token-trie.ts';
export type { TokenTrie } from './token-trie.ts';
export { findTokenId, readTokenTable, TokenizerError } from './tokenizer-json.ts';
export type { TokenizerDecoder, TokenizerJson, TokenTable } from './tokenizer-json.ts';
