/**
 * Loading a causal language model and its tokenizer with transformers.js (onnxruntime-web in
 * a browser, onnxruntime-node in Node), and running it one forward pass at a time with a KV
 * cache: the decode loop is ours, not `model.generate()`.
 */
import { AutoModelForCausalLM, AutoTokenizer, DynamicCache, env, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import type { DataType } from '@huggingface/transformers';
import { LoadAbortedError, ModelLoadError } from './errors.ts';
import type { SamplingOptions } from './sampler.ts';
import { ORT_WASM } from './ort-build.ts';

/** Where a model runs. `auto`: WebGPU when the browser has an adapter, else WASM (CPU in Node). */
export type DeviceChoice = 'auto' | 'webgpu' | 'wasm' | 'cpu';

/** A step of loading, for a progress bar. */
export interface LoadProgress {
  /** `file` events are per file; `total` sums every file seen so far. */
  readonly kind: 'file' | 'total' | 'ready';
  readonly file?: string;
  readonly loadedBytes: number;
  readonly totalBytes: number;
}

/** How to load a model. */
export interface LoadModelOptions {
  /**
   * A Hugging Face hub id (`onnx-community/Qwen2.5-0.5B-Instruct`), or a local folder in the
   * transformers.js layout: a path starting with `/` or `.` (a file path in Node, a URL path
   * on the page's origin in a browser).
   */
  readonly model: string;
  /** Weights' data type (`fp32`, `fp16`, `q8`, `q4`, …); default: the model's own default. */
  readonly dtype?: DataType;
  /** Default `auto`. A WebGPU failure falls back to WASM; `LoadedModel.fallbackReason` says why. */
  readonly device?: DeviceChoice;
  /** Keep downloaded files in the Cache API so the next load works offline (browser; default true). */
  readonly cache?: boolean;
  /**
   * The folder (URL) serving onnxruntime-web's `ort-wasm-simd-threaded.asyncify.{mjs,wasm}`
   * (`sieveApp()` serves them at `/ort/`, `scripts/copy-runtime-assets.js` copies them; default: transformers.js's CDN).
   */
  readonly wasmPaths?: string;
  /** Called as files load. */
  readonly onProgress?: (progress: LoadProgress) => void;
  /** Where hub ids are downloaded from: the Hugging Face hub (default `https://huggingface.co/`) or a mirror with its layout (`{id}/resolve/main/{file}`). */
  readonly hub?: string;
  /** Stops the downloads; the load then rejects with `LoadAbortedError`. */
  readonly signal?: AbortSignal;
}

/** A loaded model: tokenizer, vocabulary facts and sequences to decode. */
export interface LoadedModel {
  readonly id: string;
  readonly device: Exclude<DeviceChoice, 'auto'>;
  /** Why `device` is not the one asked for (`auto` counts as asking for WebGPU in a browser). */
  readonly fallbackReason: string | null;
  /** Logits per position (can exceed the tokenizer's vocabulary: padded embedding rows). */
  readonly vocabSize: number;
  readonly eosTokenIds: readonly number[];
  readonly bosTokenId: number | null;
  /** Sampling the model's `generation_config.json` asks for (`do_sample: false`: greedy). */
  readonly samplingDefaults: SamplingOptions;
  readonly tokenizer: PreTrainedTokenizer;
  /** A fresh sequence with an empty KV cache. */
  startSequence(): ModelSequence;
  dispose(): Promise<void>;
}

/** One sequence being decoded: its tokens live in the KV cache. */
export interface ModelSequence {
  /** Tokens fed so far. */
  readonly length: number;
  /** Those tokens. */
  readonly tokens: readonly number[];
  /**
   * An independent sequence holding the first `length` tokens of this one (its KV cache cut
   * there: a shared prompt prefix is not fed again), or null where the cache cannot be cut
   * (on the GPU).
   */
  prefix(length: number): ModelSequence | null;
  /** Feeds `tokens` in one forward pass; the logits after the last one (the caller's to change: no other holder). */
  forward(tokens: readonly number[]): Promise<Float32Array>;
  /** An independent copy (beam search): shares the KV cache on the CPU, replays it otherwise. */
  fork(): Promise<ModelSequence>;
  dispose(): Promise<void>;
}

// The onnxruntime-web build transformers.js uses in browsers (WASM and WebGPU in one binary).

// Read through globalThis: this module is browser code and names no Node global.
const IS_NODE = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';

const HUB = 'https://huggingface.co/';
const platformFetch = env.fetch;

/**
 * Loads tokenizer and model. Throws `ModelLoadError` with the cause when neither device
 * works, `LoadAbortedError` when `signal` aborts it.
 */
export async function loadModel(options: LoadModelOptions): Promise<LoadedModel> {
  const { signal } = options;
  if (signal?.aborted) throw new LoadAbortedError(`loading ${options.model} was aborted`);
  env.remoteHost = options.hub === undefined ? HUB : options.hub.endsWith('/') ? options.hub : `${options.hub}/`;
  env.fetch = signal === undefined ? platformFetch : (input, init) => platformFetch(input, { ...init, signal });
  try {
    return await loadFiles(options);
  } catch (error) {
    if (signal?.aborted) throw new LoadAbortedError(`loading ${options.model} was aborted`, { cause: error });
    throw error;
  } finally {
    env.fetch = platformFetch;
  }
}

async function loadFiles(options: LoadModelOptions): Promise<LoadedModel> {
  const local = /^[./]/.test(options.model);
  const slash = options.model.replace(/\/+$/, '').lastIndexOf('/');
  const id = local ? options.model.replace(/\/+$/, '').slice(slash + 1) : options.model;
  env.allowLocalModels = local;
  env.allowRemoteModels = !local;
  if (local) env.localModelPath = options.model.slice(0, slash + 1);
  env.useBrowserCache = !IS_NODE && (options.cache ?? true);
  if (options.wasmPaths !== undefined && env.backends.onnx.wasm) {
    const folder = options.wasmPaths.endsWith('/') ? options.wasmPaths : `${options.wasmPaths}/`;
    env.backends.onnx.wasm.wasmPaths = { mjs: `${folder}${ORT_WASM}.mjs`, wasm: `${folder}${ORT_WASM}.wasm` };
    // Otherwise transformers.js imports the glue module from a blob: URL, which a strict
    // Content-Security-Policy forbids; the files come from the app's origin (and its cache).
    env.useWasmCache = false;
  }

  const files = new Map<string, { loaded: number; total: number }>();
  const progress_callback = (info: { status: string; file?: string; loaded?: number; total?: number }): void => {
    if (options.onProgress === undefined || info.file === undefined) return;
    if (info.status !== 'progress' && info.status !== 'done') return;
    const known = files.get(info.file) ?? { loaded: 0, total: 0 };
    const file = { loaded: info.loaded ?? known.total, total: info.total ?? known.total };
    files.set(info.file, file);
    options.onProgress({ kind: 'file', file: info.file, loadedBytes: file.loaded, totalBytes: file.total });
    let loadedBytes = 0;
    let totalBytes = 0;
    for (const f of files.values()) {
      loadedBytes += f.loaded;
      totalBytes += f.total;
    }
    options.onProgress({ kind: 'total', loadedBytes, totalBytes });
  };

  const tokenizer = await AutoTokenizer.from_pretrained(id, { progress_callback });
  const wanted = options.device ?? 'auto';
  let device: Exclude<DeviceChoice, 'auto'> = wanted === 'auto' ? (IS_NODE ? 'cpu' : 'webgpu') : wanted;
  let fallbackReason: string | null = null;
  if (device === 'webgpu') {
    const reason = await webGpuUnavailable();
    if (reason !== null) {
      device = 'wasm';
      fallbackReason = reason;
    }
  }
  const load = (on: Exclude<DeviceChoice, 'auto'>): Promise<PreTrainedModel> =>
    AutoModelForCausalLM.from_pretrained(id, { device: on, progress_callback, ...(options.dtype === undefined ? {} : { dtype: options.dtype }) });
  let model: PreTrainedModel;
  try {
    model = await load(device);
  } catch (error) {
    if (device !== 'webgpu') throw new ModelLoadError(`could not load ${options.model} on ${device}: ${message(error)}`, { cause: error });
    fallbackReason = `WebGPU failed: ${message(error)}`;
    device = 'wasm';
    model = await load(device).catch((again: unknown) => {
      throw new ModelLoadError(`could not load ${options.model} on WebGPU (${message(error)}) nor on WASM (${message(again)})`, { cause: again });
    });
  }
  options.onProgress?.({ kind: 'ready', loadedBytes: 0, totalBytes: 0 });

  const config = model.config as unknown as { vocab_size?: number; eos_token_id?: number | number[]; bos_token_id?: number };
  const generation = (model as unknown as { generation_config?: GenerationConfig }).generation_config;
  const eos = new Set<number>([config.eos_token_id ?? [], generation?.eos_token_id ?? []].flat());
  return {
    id: options.model,
    device,
    fallbackReason,
    vocabSize: config.vocab_size ?? Object.keys(tokenizer.get_vocab()).length,
    eosTokenIds: [...eos],
    bosTokenId: config.bos_token_id ?? null,
    samplingDefaults: samplingDefaults(generation),
    tokenizer,
    startSequence: () => new TransformersSequence(model),
    dispose: async () => {
      await model.dispose();
    },
  };
}

class TransformersSequence implements ModelSequence {
  readonly #model: PreTrainedModel;
  readonly #cache: DynamicCache;
  #tokens: number[] = [];

  constructor(model: PreTrainedModel, cache = new DynamicCache()) {
    this.#model = model;
    this.#cache = cache;
  }

  get length(): number {
    return this.#tokens.length;
  }

  get tokens(): readonly number[] {
    return this.#tokens;
  }

  prefix(length: number): ModelSequence | null {
    if (!(Number.isInteger(length) && length >= 0 && length <= this.#tokens.length))
      throw new RangeError(`a prefix of 0 to ${this.#tokens.length} tokens, not ${length}`);
    const entries = Object.entries(this.#cache) as [string, Tensor][];
    if (!entries.every(([, tensor]) => tensor.location === 'cpu')) return null;
    // Caches are [batch, heads, tokens, head size]: cut on the tokens.
    const cut = Object.fromEntries(entries.map(([name, tensor]) => [name, tensor.slice(null, null, [0, length], null)]));
    const copy = new TransformersSequence(this.#model, new DynamicCache(cut));
    copy.#tokens = this.#tokens.slice(0, length);
    return copy;
  }

  async forward(tokens: readonly number[]): Promise<Float32Array> {
    if (tokens.length === 0) throw new RangeError('forward needs at least one token');
    const total = this.#tokens.length + tokens.length;
    const inputIds = new Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]);
    const attentionMask = new Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]);
    const outputs = (await (this.#model as unknown as (inputs: object) => Promise<Record<string, Tensor>>)({
      input_ids: inputIds,
      attention_mask: attentionMask,
      past_key_values: this.#cache,
      // Logits for the last position only (sessions without this input ignore it).
      num_logits_to_keep: new Tensor('int64', BigInt64Array.of(1n), []),
    })) as Record<string, Tensor>;
    const present: Record<string, Tensor> = {};
    for (const name in outputs) if (name.startsWith('present')) present[name.replace('present', 'past_key_values')] = outputs[name]!;
    this.#cache.update(present);
    for (const token of tokens) this.#tokens.push(token);
    const logits = outputs['logits']!;
    const vocab = logits.dims[logits.dims.length - 1]!;
    const data = logits.data as Float32Array | Uint16Array;
    const last = data.subarray(data.length - vocab);
    // fp16 and q4f16 exports give float16 logits (their bits, where JS has no Float16Array).
    // (Float32 ones are a view of this pass's own output, which nothing else holds: a copy of
    // a vocabulary's logits at every step would double what the collector sweeps.)
    return logits.type === 'float16' ? halfToFloat(last) : (last as Float32Array);
  }

  async fork(): Promise<ModelSequence> {
    const entries = Object.entries(this.#cache) as [string, Tensor][];
    // CPU tensors are never changed in place (an update replaces them), so copies can share
    // them; GPU buffers are disposed when replaced, so a copy on the GPU replays the tokens.
    if (entries.every(([, tensor]) => tensor.location === 'cpu')) {
      const copy = new TransformersSequence(this.#model, new DynamicCache(Object.fromEntries(entries)));
      copy.#tokens = [...this.#tokens];
      return copy;
    }
    const copy = new TransformersSequence(this.#model);
    if (this.#tokens.length > 0) await copy.forward(this.#tokens);
    return copy;
  }

  async dispose(): Promise<void> {
    await this.#cache.dispose();
  }
}

// The generation_config.json fields read here.
interface GenerationConfig {
  readonly eos_token_id?: number | number[];
  readonly do_sample?: boolean;
  readonly temperature?: number;
  readonly top_k?: number;
  readonly top_p?: number;
  readonly min_p?: number;
  readonly repetition_penalty?: number;
}

// The sampling a generation config asks for; fields it does not set (or transformers.js's
// defaults where it has none: do_sample false, temperature 1, top_k 50) are left out.
function samplingDefaults(config: GenerationConfig | undefined): SamplingOptions {
  if (config === undefined) return {};
  const own = (key: keyof GenerationConfig): boolean => Object.prototype.hasOwnProperty.call(config, key) && config[key] !== null;
  if (own('do_sample') && config.do_sample === false) return { temperature: 0 };
  return {
    ...(own('temperature') && { temperature: config.temperature! }),
    ...(own('top_k') && { topK: config.top_k! }),
    ...(own('top_p') && { topP: config.top_p! }),
    ...(own('min_p') && { minP: config.min_p! }),
    ...(own('repetition_penalty') && { repetitionPenalty: config.repetition_penalty! }),
  };
}

async function webGpuUnavailable(): Promise<string | null> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)?.gpu;
  if (gpu === undefined) return 'this environment has no WebGPU (navigator.gpu is missing)';
  try {
    return (await gpu.requestAdapter()) === null ? 'no WebGPU adapter (requestAdapter returned null)' : null;
  } catch (error) {
    return `requestAdapter failed: ${message(error)}`;
  }
}

// Float32 values of float16 logits: bits in a Uint16Array (through a table of all 65,536
// values, built on first use), or a Float16Array's values.
function halfToFloat(half: Uint16Array | Float32Array): Float32Array {
  if (!(half instanceof Uint16Array)) return Float32Array.from(half);
  halfTable ??= buildHalfTable();
  const out = new Float32Array(half.length);
  for (let i = 0; i < half.length; i++) out[i] = halfTable[half[i]!]!;
  return out;
}

let halfTable: Float32Array | undefined;

function buildHalfTable(): Float32Array {
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const exponent = (h >>> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    const magnitude = exponent === 0 ? mantissa * 2 ** -24 : exponent === 31 ? (mantissa === 0 ? Infinity : NaN) : (1024 + mantissa) * 2 ** (exponent - 25);
    table[h] = h & 0x8000 ? -magnitude : magnitude;
  }
  return table;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
