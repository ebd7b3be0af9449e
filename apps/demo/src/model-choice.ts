// What the model picker offers and what a pick loads: the catalogue's models (by hub id),
// stories260K from this page's server, any hub id, or any folder on this page's server.
import { catalogueModel, type CatalogueModel } from '@sieve/runtime/client';

/** A weights' data type as the engine takes it (`q4`, `q4f16`, `fp32`, …). */
export type Dtype = CatalogueModel['dtypes']['wasm'];

/** The dtypes the picker offers (those `estimatedDownloadBytes` and `modelFiles` know). */
export const DTYPES: readonly Dtype[] = ['fp32', 'fp16', 'q8', 'q4', 'q4f16'];

/** The tokenizers whose `.vocab` the root build writes to `public/vocab/` (`pnpm build:vocab`). */
export const PREBUILT_VOCABS: readonly string[] = ['stories260k', 'llama3.1', 'qwen3'];

/** stories260K, served from this page's `/models/` folder, with its prebuilt vocab index. */
export const STORIES = { path: '/models/stories260K', tokenizer: 'stories260k', dtype: 'fp32' } as const;

/** A pick: a catalogue model, stories260K, a typed hub id, or a typed folder path. */
export type ModelChoice =
  | { readonly kind: 'catalogue'; readonly model: CatalogueModel }
  | { readonly kind: 'stories' }
  | { readonly kind: 'hub'; readonly id: string }
  | { readonly kind: 'folder'; readonly path: string };

/** The model the engine is asked for: a hub id or a folder path. */
export function modelName(choice: ModelChoice): string {
  switch (choice.kind) {
    case 'catalogue':
      return choice.model.id;
    case 'stories':
      return STORIES.path;
    case 'hub':
      return choice.id;
    case 'folder':
      return choice.path;
  }
}

/** The catalogue's entry for a pick (a typed hub id may be one of the catalogue's). */
export function catalogueEntry(choice: ModelChoice): CatalogueModel | undefined {
  if (choice.kind === 'catalogue') return choice.model;
  return choice.kind === 'hub' ? catalogueModel(choice.id) : undefined;
}

/** Whether the pick downloads from the hub (else this page's server serves it). */
export function fromHub(choice: ModelChoice): boolean {
  return choice.kind === 'catalogue' || choice.kind === 'hub';
}

/**
 * The dtype to load on `device`: the catalogue's, fp32 for stories260K (its only export),
 * else null (the model's default, which transformers.js picks).
 */
export function defaultDtype(choice: ModelChoice, device: 'webgpu' | 'wasm'): Dtype | null {
  if (choice.kind === 'stories') return STORIES.dtype;
  return catalogueEntry(choice)?.dtypes[device] ?? null;
}

/**
 * The URL path of a prebuilt vocab index built for the pick's tokenizer, or null (the
 * engine then builds one from the model's tokenizer.json).
 */
export function prebuiltVocab(choice: ModelChoice): string | null {
  const tokenizer = choice.kind === 'stories' ? STORIES.tokenizer : catalogueEntry(choice)?.tokenizer;
  return tokenizer !== undefined && PREBUILT_VOCABS.includes(tokenizer) ? `/vocab/${tokenizer}.vocab` : null;
}

/** A parameter count for people: `268M`, `1.24B`. */
export function formatCount(count: number): string {
  return count >= 1e9 ? `${(count / 1e9).toFixed(2)}B` : `${Math.round(count / 1e6)}M`;
}
