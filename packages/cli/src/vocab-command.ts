/**
 * `sieve vocab build <preset|tokenizer.json> [-o FILE]` and
 * `sieve vocab info <preset|FILE> [--json]`.
 */
import { VocabIndex } from '@sieve/format';
import { buildVocabIndex } from '@sieve/vocab';
import { loadTokenizer, TOKENIZER_PRESETS } from '@sieve/vocab/presets';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, type Output } from './output.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where `pnpm build` puts the index of a preset (served to the apps from `public/`). */
export function presetIndexPath(preset: string): string {
  return join(repoRoot, 'public/vocab', `${preset}.vocab`);
}

export function vocabBuild(target: string, outFile: string | undefined, out: Output): void {
  const tokenizer = loadTokenizer(target);
  const file = buildVocabIndex(tokenizer.json, tokenizer);
  const path = resolve(outFile ?? (TOKENIZER_PRESETS[target] ? presetIndexPath(target) : `${tokenizer.name}.vocab`));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file);
  const index = new VocabIndex(file);
  out.result({ file: path, ...summary(index) }, () => `${path}: ${index.tokenCount} tokens, ${file.byteLength} bytes, built in ${index.meta.build_ms} ms`);
}

export function vocabInfo(target: string, out: Output): void {
  let file: Uint8Array;
  if (TOKENIZER_PRESETS[target]) {
    const path = presetIndexPath(target);
    if (existsSync(path)) {
      file = readFileSync(path);
    } else {
      out.progress(`${path} is not built yet (\`pnpm build\` builds it); building it in memory`);
      const tokenizer = loadTokenizer(target);
      file = buildVocabIndex(tokenizer.json, tokenizer);
    }
  } else if (existsSync(target)) {
    file = readFileSync(target);
  } else {
    throw new CliError('not_found', `no tokenizer preset or vocab index file named ${target} (presets: ${Object.keys(TOKENIZER_PRESETS).join(', ')})`);
  }
  const index = new VocabIndex(file);
  const data = summary(index);
  out.result(data, () =>
    [
      `${index.meta.name} (${index.meta.decoder}) from ${index.meta.source}`,
      `  tokens          ${data.tokens}`,
      `  special tokens  ${data.special_tokens}`,
      `  trie nodes      ${data.trie_nodes}`,
      `  eos token ids   ${data.eos_token_ids.join(', ')}`,
      `  file bytes      ${data.file_bytes}`,
      `  build ms        ${data.build_ms}`,
    ].join('\n'),
  );
}

function summary(index: VocabIndex) {
  return {
    name: index.meta.name,
    tokens: index.tokenCount,
    special_tokens: index.specialTokenCount,
    trie_nodes: index.trieNodeCount,
    max_token_bytes: index.maxTokenBytes,
    decoder: index.meta.decoder,
    bos_token_id: index.meta.bos_token_id,
    eos_token_ids: index.meta.eos_token_ids,
    file_bytes: index.file.byteLength,
    build_ms: index.meta.build_ms,
  };
}
