/**
 * Tokenizers for the CLI: a preset or tokenizer.json gives both the vocab index (exact
 * token bytes) and the tokenizer's own encoder, so inputs are split the way a model would.
 */
import { VocabIndex } from '@sieve/format';
import { TokenizerLoader } from '@lenml/tokenizers';
import { continuationEncoder } from '@sieve/runtime/continuation';
import { buildVocabIndex } from '@sieve/vocab';
import { loadTokenizer, TOKENIZER_PRESETS } from '@sieve/vocab/presets';
import { existsSync, readFileSync } from 'node:fs';
import { presetIndexPath } from './vocab-command.ts';

export interface CliTokenizer {
  readonly vocab: VocabIndex;
  /** The tokenizer.json it was loaded from (parsed). */
  readonly json: unknown;
  /** Tokens of `text` as a continuation of earlier output (no prefix space added). */
  encode(text: string): number[];
}

export function loadCliTokenizer(presetOrPath: string): CliTokenizer {
  const tokenizer = loadTokenizer(presetOrPath);
  const built = TOKENIZER_PRESETS[presetOrPath] && existsSync(presetIndexPath(presetOrPath));
  const vocab = new VocabIndex(built ? readFileSync(presetIndexPath(presetOrPath)) : buildVocabIndex(tokenizer.json, tokenizer));
  const library = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizer.json as never, tokenizerConfig: (tokenizer.tokenizerConfig ?? {}) as never });
  const encodeBytes = continuationEncoder(vocab, (text) => library.encode(text, { add_special_tokens: false }));
  return {
    vocab,
    json: tokenizer.json,
    encode: (text) => encodeBytes(new TextEncoder().encode(text)),
  };
}
