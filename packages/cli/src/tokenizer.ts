/**
 * Tokenizers for the CLI: a preset or tokenizer.json gives both the vocab index (exact
 * token bytes) and the tokenizer's own encoder, so inputs are split the way a model would.
 */
import { VocabIndex } from '@sieve/format';
import { TokenizerLoader } from '@lenml/tokenizers';
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
  const byBytes = new Map<string, number>();
  for (let id = vocab.tokenCount - 1; id >= 0; id--) if (vocab.isTextToken(id)) byBytes.set(hex(vocab.tokenBytes(id)), id);
  return {
    vocab,
    json: tokenizer.json,
    encode(text) {
      const ids = library.encode(text, { add_special_tokens: false });
      // SentencePiece tokenizers prepend a space to the whole input; generated text that
      // continues a prompt has none, so the first token loses it.
      const first = ids.length > 0 ? vocab.tokenBytes(ids[0]!) : null;
      if (first !== null && first[0] === 0x20 && !text.startsWith(' ')) {
        const rest = first.subarray(1);
        const whole = byBytes.get(hex(rest));
        ids.splice(0, 1, ...(rest.length === 0 ? [] : whole !== undefined ? [whole] : Array.from(rest, (b) => byBytes.get(hex(Uint8Array.of(b)))!)));
      }
      return ids;
    },
  };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
