// The models a person can fill forms with: the runtime's catalogue of small instruct models
// (downloaded once from the hub, with the person's consent, then kept in the browser), and
// stories260K, a tiny story model served by the app itself (no instructions, fast: the tests
// use it). Qwen3 0.6B is the default: the built-in forms' mask indexes are built for its
// tokenizer.
import { estimatedDownloadBytes, MODEL_CATALOGUE, modelFiles, type CachedModel, type CatalogueModel, type EngineLoadOptions } from '@sieve/runtime/client';

/** A model of the picker. */
export interface FormsModel {
  /** What `?model=` and the saved setting name: the hub id, or `stories260K`. */
  readonly id: string;
  readonly name: string;
  /** The catalogue's entry (hub models); null for the app's own stories260K. */
  readonly catalogue: CatalogueModel | null;
}

/** The model used until the person picks another. */
export const DEFAULT_MODEL_ID = 'onnx-community/Qwen3-0.6B-ONNX';

const STORIES: FormsModel = { id: 'stories260K', name: 'stories260K (tiny story model, no instructions; fast)', catalogue: null };

export const FORMS_MODELS: readonly FormsModel[] = [...MODEL_CATALOGUE.map((model) => ({ id: model.id, name: model.name, catalogue: model })), STORIES];

// Tokenizers whose vocab index the build writes to public/vocab/ (`pnpm build`); the others'
// are built from tokenizer.json at load time and kept in the Cache API.
const PREBUILT_VOCABS = new Set(['qwen3']);

/** The picker's model for `id`, if there is one. */
export function formsModel(id: string | null | undefined): FormsModel | undefined {
  return FORMS_MODELS.find((model) => model.id === id);
}

/** The dtype to load `model` in: the catalogue's for WebGPU or WASM (`webgpu`: the browser has an adapter); fp32 for stories260K. */
export function modelDtype(model: FormsModel, webgpu: boolean): NonNullable<EngineLoadOptions['dtype']> {
  return model.catalogue === null ? 'fp32' : model.catalogue.dtypes[webgpu ? 'webgpu' : 'wasm'];
}

/** The tokenizer's short name (`qwen3`): mask indexes built for it serve this model. */
export function modelTokenizer(model: FormsModel): string {
  return model.catalogue?.tokenizer ?? 'stories260k';
}

/** A size to show before the hub is asked (null: nothing to download). */
export function estimatedBytes(model: FormsModel, webgpu: boolean): number | null {
  return model.catalogue === null ? null : estimatedDownloadBytes(model.catalogue, modelDtype(model, webgpu));
}

/** Whether the browser keeps every file a load of `model` needs (stories260K: always, it is the app's). */
export function isCached(model: FormsModel, webgpu: boolean, cached: readonly CachedModel[]): boolean {
  if (model.catalogue === null) return true;
  const files = cached.find((entry) => entry.id === model.id)?.files ?? [];
  return modelFiles(modelDtype(model, webgpu)).every((file) => files.includes(file));
}

/** What `engine.load` needs for `model`, besides progress and cancellation (`here` makes app URLs absolute). */
export function modelLoadOptions(model: FormsModel, webgpu: boolean, hub: string, here: (path: string) => string): EngineLoadOptions {
  const common = { dtype: modelDtype(model, webgpu), kernel: here('/kernel.wasm'), wasmPaths: here('/ort/') };
  if (model.catalogue === null) return { ...common, model: '/models/stories260K', vocab: here('/vocab/stories260k.vocab') };
  const tokenizer = model.catalogue.tokenizer;
  return { ...common, model: model.id, hub, ...(PREBUILT_VOCABS.has(tokenizer) ? { vocab: here(`/vocab/${tokenizer}.vocab`) } : {}) };
}

/** The chat template's options a structured answer wants (`enable_thinking: false` for Qwen3). */
export function templateOptions(model: FormsModel): Readonly<Record<string, unknown>> {
  return model.catalogue?.templateOptions ?? {};
}
