import { writeVocabIndex, type VocabMeta } from '@sieve/format';
import { findTokenId, readTokenTable, tokenizerFingerprint, type TokenizerJson } from './tokenizer-json.ts';
import { buildTokenSlices, buildTokenTrie } from './token-trie.ts';

/** Where a tokenizer came from and which of its tokens end a generation. */
export interface VocabBuildOptions {
  readonly name: string;
  readonly source: string;
  /** `tokenizer_config.json` contents, for `bos_token` / `eos_token`. */
  readonly tokenizerConfig?: TokenizerConfig;
  /** `generation_config.json` contents, for `eos_token_id` (number or list). */
  readonly generationConfig?: { readonly eos_token_id?: number | readonly number[]; readonly bos_token_id?: number };
}

/** The parts of `tokenizer_config.json` read here. */
export interface TokenizerConfig {
  readonly bos_token?: string | { readonly content: string } | null;
  readonly eos_token?: string | { readonly content: string } | null;
}

/** Builds the vocab index file for a tokenizer. */
export function buildVocabIndex(json: TokenizerJson, options: VocabBuildOptions): Uint8Array {
  const started = performance.now();
  const table = readTokenTable(json);
  const offsets = new Uint32Array(table.tokens.length + 1);
  for (let id = 0; id < table.tokens.length; id++) offsets[id + 1] = offsets[id]! + table.tokens[id]!.length;
  const bytes = new Uint8Array(offsets[table.tokens.length]!);
  table.tokens.forEach((token, id) => bytes.set(token, offsets[id]!));
  const { trie, duplicates } = buildTokenTrie(table.tokens, table.flags);
  const { sliceNodes, sliceTokens, sliceLengths } = buildTokenSlices(table.tokens, table.flags, trie);

  const content = (token: TokenizerConfig['eos_token']): string | null => (token == null ? null : typeof token === 'string' ? token : token.content);
  const configEos = content(options.tokenizerConfig?.eos_token);
  const eos = new Set<number>();
  const configEosId = configEos === null ? null : findTokenId(json, configEos);
  if (configEosId !== null) eos.add(configEosId);
  const generationEos = options.generationConfig?.eos_token_id;
  for (const id of typeof generationEos === 'number' ? [generationEos] : (generationEos ?? [])) eos.add(id);
  const configBos = content(options.tokenizerConfig?.bos_token);
  const bos = options.generationConfig?.bos_token_id ?? (configBos === null ? null : findTokenId(json, configBos));

  const meta: VocabMeta = {
    name: options.name,
    source: options.source,
    tokenizer_fingerprint: tokenizerFingerprint(json),
    decoder: table.decoder,
    bos_token_id: bos,
    eos_token_ids: [...eos].sort((a, b) => a - b),
    build_ms: Math.round((performance.now() - started) * 10) / 10,
  };
  return writeVocabIndex({ offsets, flags: table.flags, bytes, trie, duplicates, sliceNodes, sliceTokens, sliceLengths, meta });
}
