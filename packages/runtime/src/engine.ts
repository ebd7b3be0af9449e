/**
 * `SieveEngine`: the one interface apps use, implemented in-thread here and proxied to a Web
 * Worker by `worker-client.ts` (same methods, same results).
 */
import type { VocabIndex } from '@sieve/format';
import { isZodSchema, jsonSchemaOf, type GrammarLimits, type JsonSchemaOptions, type ToolCallFormat } from '@sieve/grammar';
import { loadKernel, type Kernel, type KernelSource, type KernelVocab } from '@sieve/kernel';
import type { TokenizerConfig, TokenizerJson } from '@sieve/vocab';
import type { ConstraintInput, ConstraintSpec, GrammarSpec } from './constraint-specs.ts';
import { activate, Grammar, isCustom, type ActiveConstraint, type ConstraintContext } from './constraints.ts';
import { IncompleteOutputError, LoadAbortedError, ModelLoadError, NotLoadedError } from './errors.ts';
import {
  checkCompileOptions,
  checkGenerateJsonRequest,
  checkGenerateRequest,
  checkGrammarHandle,
  checkGrammarSpec,
  checkLoadOptions,
  checkSchema,
} from './requests.ts';
import { rehearse } from './rehearsal.ts';
import { continuationEncoder, tokenLookup } from './continuation.ts';
import { beamSearch } from './beam-search.ts';
import { decode, type DecodeContext, type DecodeOptions, type GenerationOutput, type TokenEvent } from './decode-loop.ts';
import { loadModel, type LoadedModel, type LoadModelOptions, type ModelSequence } from './model.ts';
import { modelVocab, type VocabOrigin } from './model-vocab.ts';
import type { SamplingOptions } from './sampler.ts';
import { chatCompletions, toolCallFormatOf, type ChatCompletions } from './chat-completions.ts';
import { jsonStream, tokenStream, type JsonTokenEvent, type StreamRequest, type TokenStream } from './streams.ts';

/**
 * A chat message, as chat templates take them: an assistant's `tool_calls` (OpenAI's shape),
 * a tool result's `tool_call_id` and `name`, handed to the template as they are.
 */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  readonly content: string;
  readonly tool_calls?: readonly { readonly id: string; readonly type: 'function'; readonly function: { readonly name: string; readonly arguments: string } }[];
  readonly tool_call_id?: string;
  readonly name?: string;
}

/** How to load an engine: the model, and where the kernel and vocab index come from. */
export interface EngineLoadOptions extends LoadModelOptions {
  /**
   * The model tokenizer's vocab index (`sieve vocab build`), as bytes or a URL to fetch.
   * Default: built from the tokenizer's tokenizer.json at load time (seconds on a 128k vocabulary).
   */
  readonly vocab?: Uint8Array | string;
  /** Where `kernel.wasm` is (default: beside `@sieve/kernel`; in a browser, serve it and pass its URL). */
  readonly kernel?: KernelSource;
  /** Grammar limits for every constraint this engine compiles. */
  readonly limits?: Partial<GrammarLimits>;
}

/** What `load` reports. */
export interface ModelInfo {
  readonly id: string;
  readonly device: LoadedModel['device'];
  readonly fallbackReason: string | null;
  /** Logits per step, and tokens in the vocab index (masks are this long). */
  readonly vocabSize: number;
  readonly tokenCount: number;
  /** The vocab index: the one `load` was given (proved to be the tokenizer's), or built from `tokenizer.json` now or on an earlier load (then read from the Cache API). */
  readonly vocabOrigin: VocabOrigin;
  /** The tokenizer has a chat template (`messages` need one, or a request's `chatTemplate`). */
  readonly hasChatTemplate: boolean;
  /** How the model writes tool calls, read from its chat template (`toolCallFormatOf`). */
  readonly toolCallFormat: ToolCallFormat;
  /** Sampling from the model's generation_config.json, used where a request does not say (`temperature`, `topK`, `topP`, `minP`, `repetitionPenalty`). */
  readonly samplingDefaults: SamplingOptions;
  readonly eosTokenIds: readonly number[];
  readonly loadMs: number;
  /** Where `loadMs` went: the model (download or cache, tokenizer, inference session; the kernel alongside) and the vocab index (checked, read from the cache, or built). */
  readonly loadSteps: { readonly modelMs: number; readonly vocabMs: number };
}

/** One generation request. */
export interface GenerateRequest {
  /** Raw prompt text (the tokenizer adds its special tokens, e.g. BOS). */
  readonly prompt?: string;
  /** Or chat messages, rendered with the tokenizer's chat template (with the assistant turn opened). */
  readonly messages?: readonly ChatMessage[];
  /**
   * Variables for the chat template beside the messages (`{ enable_thinking: false }` for
   * Qwen3, `tools`, `documents`, …).
   */
  readonly templateOptions?: Readonly<Record<string, unknown>>;
  /** A Jinja chat template to use instead of the tokenizer's. */
  readonly chatTemplate?: string;
  readonly constraint?: ConstraintInput;
  readonly sampling?: SamplingOptions;
  /** Default 256. */
  readonly maxTokens?: number;
  /** Stop when the output contains one of these (the output is cut before it). */
  readonly stop?: readonly string[];
  /**
   * Stop strings end only the text before this one: from where it is written on (a tool
   * call's start, in `auto` tool choice) they are not looked for, so no call is cut.
   */
  readonly stopBefore?: string;
  /** Append forced continuations without sampling (default true). */
  readonly fastForward?: boolean;
  /**
   * Let the first token extend the prompt's last token (see README). Default: on for a
   * `prompt`, off for `messages` (a chat template's assistant turn ends on a boundary the
   * model was trained to start after).
   */
  readonly tokenHealing?: boolean;
  /**
   * Beam search with this many beams (default 1: sampling). Deterministic: of the sampling
   * options only the logit bias applies; no fast-forward, token healing or budget-aware ending;
   * tokens are streamed once the best beam is chosen.
   */
  readonly beams?: number;
  /**
   * Reuse the KV cache of the previous generation for the prefix this prompt shares with it
   * (a system prompt, a form's instructions): `stats.reusedPromptTokens` says how many tokens
   * were not fed again. Default true (CPU and WASM; on WebGPU the cache is not cut, so no reuse).
   */
  readonly reusePrefix?: boolean;
  /** Stream events carry the BRLE mask each token was sampled under (default false). */
  readonly includeMask?: boolean;
  /**
   * Log probabilities (`TokenLogprob`) with this many most likely alternatives (0–20) per
   * token: in the result's `logprobs` and each event's `logprob`. Sampling only (not beams).
   */
  readonly logprobs?: number;
  readonly signal?: AbortSignal;
  /** Called per committed token; a promise it returns is awaited before the next step (pause, step-through). */
  readonly onToken?: (event: TokenEvent) => unknown;
  /**
   * Across a worker: wait for each `onToken` call to finish on the page before the next step
   * (a round trip per token), so a promise it returns can pause generation. Default false: the
   * worker streams without waiting (events still arrive before the result).
   */
  readonly backpressure?: boolean;
}

/** What `generate` returns. */
export type GenerateResult = GenerationOutput;

/** The type a schema describes: a zod 4 schema's output type, `unknown` for JSON Schema. */
export type JsonOf<S> = S extends { readonly _zod: { readonly output: infer O } } ? O : unknown;

/** `generateJson`'s result: the parsed value and the generation. */
export interface JsonResult<T> extends GenerateResult {
  readonly value: T;
}

/** How `compile` prepares a grammar. */
export interface CompileOptions {
  /**
   * Time the compile may spend rehearsing the grammar, in ms (default 250; 0: none): one
   * generation's walk through it (at most 256 tokens) on a stand-in model whose tokens are all
   * equally likely, so that what the grammar builds on first use (lexer states, token slices,
   * masks, the completion analysis) is built here and not in the first generation's steps.
   * Needs a loaded model (without one, nothing is rehearsed). Changes no output.
   */
  readonly warmUpMs?: number;
}

// A compile's rehearsal budget by default, ms.
const DEFAULT_WARM_UP_MS = 250;

/** The engine: load a model, then generate under constraints. */
export interface SieveEngine {
  load(options: EngineLoadOptions): Promise<ModelInfo>;
  /**
   * Compiles a grammar once for reuse: pass the returned spec as `constraint` (cheap to copy).
   * With a model loaded, it is rehearsed too (see `CompileOptions.warmUpMs`).
   */
  compile(spec: GrammarSpec, options?: CompileOptions): Promise<{ readonly type: 'grammar'; readonly id: number }>;
  /** Frees a grammar `compile` returned (using it afterwards is an error). */
  release(grammar: { readonly type: 'grammar'; readonly id: number }): Promise<void>;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Generates JSON valid against `schema` (JSON Schema, or zod 4) and parses it. */
  generateJson<S, T = JsonOf<S>>(
    schema: S,
    request: Omit<GenerateRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
  ): Promise<JsonResult<T>>;
  /**
   * A generation as an async iterable of its token events (`for await`); `result` settles
   * with what `generate` returns. `break` stops it; aborting `signal` makes the iteration
   * reject with an `AbortError` (see streams.ts).
   */
  stream(request: StreamRequest): TokenStream;
  /** `stream` for `generateJson`: each event also carries the JSON so far and its partial value. */
  streamJson<S, T = JsonOf<S>>(
    schema: S,
    request: Omit<StreamRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
  ): TokenStream<JsonTokenEvent<T>, JsonResult<T>>;
  /** OpenAI's chat completions API (`chat-completions.ts`), streaming with `stream: true`. */
  readonly chat: { readonly completions: ChatCompletions };
  /** Frees the model, grammars and kernel. */
  dispose(): Promise<void>;
}

interface Loaded {
  readonly model: LoadedModel;
  readonly kernel: Kernel;
  readonly vocab: KernelVocab;
  readonly vocabIndex: VocabIndex;
  readonly context: ConstraintContext;
  readonly tokenOf: (bytes: Uint8Array) => number | undefined;
  readonly info: ModelInfo;
}

const MAX_CACHED_GRAMMARS = 16;

/** The engine, running in the calling thread. */
export class InThreadEngine implements SieveEngine {
  #loaded: Loaded | null = null;
  // The last generation's sequence, whose KV cache the next prompt's shared prefix reuses.
  #kept: ModelSequence | null = null;
  #limits: Partial<GrammarLimits> = {};
  readonly #handles = new Map<number, Grammar>();
  readonly #running = new Set<{ readonly stop: AbortController; readonly done: Promise<void> }>();
  // Grammars compiled from specs, most recently used last.
  readonly #bySpec = new Map<string, Grammar>();
  // Mask index files fetched by URL.
  readonly #indexFiles = new Map<string, Promise<Uint8Array>>();
  #nextHandle = 1;

  readonly chat = {
    completions: chatCompletions({
      generate: (request) => this.generate(request),
      stream: (request) => this.stream(request),
      model: () => this.#require().info,
    }),
  };

  async load(options: EngineLoadOptions): Promise<ModelInfo> {
    checkLoadOptions(options, 'options');
    await this.dispose();
    const started = performance.now();
    const [modelLoad, kernelLoad] = await Promise.allSettled([loadModel(options), loadKernel(options.kernel)]);
    const model = modelLoad.status === 'fulfilled' ? modelLoad.value : null;
    const kernel = kernelLoad.status === 'fulfilled' ? kernelLoad.value : null;
    const modelMs = performance.now() - started;
    let vocab: KernelVocab | null = null;
    try {
      if (model === null) throw (modelLoad as PromiseRejectedResult).reason;
      if (kernel === null) throw (kernelLoad as PromiseRejectedResult).reason;
      const tokenizer = model.tokenizer as unknown as {
        _tokenizerJSON: TokenizerJson;
        _tokenizerConfig: TokenizerConfig;
        encode(text: string, options: object): number[];
      };
      const given = typeof options.vocab === 'string' ? await fetchBytes(options.vocab) : options.vocab;
      const files = { json: tokenizer._tokenizerJSON, config: tokenizer._tokenizerConfig, eosTokenIds: model.eosTokenIds };
      const { index: vocabIndex, origin: vocabOrigin } = await modelVocab(given, files, options.model, options.cache ?? true);
      // Downloads stop the moment the signal aborts; the steps after them (the inference
      // session, the vocab index) when they end: an abort anywhere in the load rejects it.
      if (options.signal?.aborted === true) throw new LoadAbortedError(`loading ${options.model} was aborted`);
      // Tokens past the model's logits may only be special ones (Gemma 3's image token).
      for (let id = model.vocabSize; id < vocabIndex.tokenCount; id++) {
        if (vocabIndex.isTextToken(id))
          throw new RangeError(
            `the vocab index has ${vocabIndex.tokenCount} tokens, text tokens among them, but the model only ${model.vocabSize} logits: it was built for another tokenizer`,
          );
      }
      vocab = kernel.loadVocab(vocabIndex.file);
      const eosTokenIds = [...new Set([...model.eosTokenIds, ...vocabIndex.meta.eos_token_ids])];
      this.#limits = options.limits ?? {};
      const encodeContinuation = continuationEncoder(vocabIndex, (text) => tokenizer.encode(text, { add_special_tokens: false }));
      const context: ConstraintContext = { kernel, vocab, vocabIndex, eosTokenIds, encodeContinuation, grammar: (spec) => this.#grammar(spec) };
      const loadMs = performance.now() - started;
      const info: ModelInfo = {
        id: model.id,
        device: model.device,
        fallbackReason: model.fallbackReason,
        vocabSize: model.vocabSize,
        tokenCount: vocabIndex.tokenCount,
        vocabOrigin,
        hasChatTemplate: (model.tokenizer as { chat_template?: unknown }).chat_template != null,
        toolCallFormat: toolCallFormatOf((model.tokenizer as { chat_template?: unknown }).chat_template),
        samplingDefaults: model.samplingDefaults,
        eosTokenIds,
        loadMs,
        loadSteps: { modelMs, vocabMs: loadMs - modelMs },
      };
      this.#loaded = { model, kernel, vocab, vocabIndex, context, tokenOf: tokenLookup(vocabIndex), info };
      return info;
    } catch (error) {
      // Nothing half-loaded stays behind (on WebGPU a model holds hundreds of MB).
      vocab?.dispose();
      kernel?.dispose();
      await model?.dispose();
      throw error;
    }
  }

  async compile(spec: GrammarSpec, options: CompileOptions = {}): Promise<{ readonly type: 'grammar'; readonly id: number }> {
    checkGrammarSpec(spec, 'spec');
    checkCompileOptions(options, 'options');
    const grammar = new Grammar((await this.#fetchIndexes(spec)) as GrammarSpec, this.#limits);
    const id = this.#nextHandle++;
    this.#handles.set(id, grammar);
    const loaded = this.#loaded;
    const budget = options.warmUpMs ?? DEFAULT_WARM_UP_MS;
    if (loaded !== null && budget > 0) {
      const running = this.#track();
      try {
        const logitCount = Math.min(loaded.model.vocabSize, loaded.vocabIndex.tokenCount);
        await rehearse(grammar, { ...loaded.context, tokenOf: loaded.tokenOf }, logitCount, budget, running.signal);
      } finally {
        running.end();
      }
    }
    return { type: 'grammar', id };
  }

  async release(grammar: { readonly type: 'grammar'; readonly id: number }): Promise<void> {
    checkGrammarHandle(grammar, 'grammar');
    this.#handles.get(grammar.id)?.dispose();
    this.#handles.delete(grammar.id);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    checkGenerateRequest(request);
    const loaded = this.#require();
    const promptTokens = this.#promptTokens(request);
    const running = this.#track();
    const signal = request.signal === undefined ? running.signal : AbortSignal.any([request.signal, running.signal]);
    let constraint: ActiveConstraint | undefined;
    const beams = request.beams ?? 1;
    const sequence = (beams === 1 && request.reusePrefix !== false ? this.#reusable(promptTokens) : null) ?? loaded.model.startSequence();
    const decodeContext: DecodeContext = {
      kernel: loaded.kernel,
      vocabIndex: loaded.vocabIndex,
      eosTokenIds: loaded.context.eosTokenIds,
      tokenOf: loaded.tokenOf,
      encodeContinuation: loaded.context.encodeContinuation,
    };
    const decodeOptions: DecodeOptions = {
      promptTokens,
      // The model's generation_config, unless the request says otherwise.
      sampling: { ...loaded.model.samplingDefaults, ...request.sampling },
      maxTokens: request.maxTokens ?? 256,
      stop: request.stop ?? [],
      stopBefore: request.stopBefore ?? null,
      fastForward: request.fastForward ?? true,
      tokenHealing: request.tokenHealing ?? request.messages === undefined,
      includeMask: request.includeMask ?? false,
      logprobs: request.logprobs ?? null,
      signal,
      onToken: request.onToken,
    };
    try {
      constraint = activate(await this.#fetchIndexes(request.constraint), loaded.context);
      return beams === 1
        ? await decode(sequence, constraint, decodeContext, decodeOptions)
        : await beamSearch(sequence, constraint, decodeContext, { ...decodeOptions, beams });
    } finally {
      constraint?.dispose();
      // The last sequence's KV cache is kept: the next prompt's shared prefix is not fed again.
      if (beams === 1) await this.#keep(sequence);
      else await sequence.dispose();
      running.end();
    }
  }

  // Work `load` and `dispose` stop (through `signal`) and wait for (until `end`) before freeing.
  #track(): { readonly signal: AbortSignal; readonly end: () => void } {
    const stop = new AbortController();
    let finished!: () => void;
    const running = { stop, done: new Promise<void>((resolve) => (finished = resolve)) };
    this.#running.add(running);
    return {
      signal: stop.signal,
      end: () => {
        this.#running.delete(running);
        finished();
      },
    };
  }

  // A sequence holding the longest prefix `prompt` shares with the kept one (two tokens at
  // least are left to feed: token healing may give the last one back), or null.
  #reusable(prompt: readonly number[]): ModelSequence | null {
    const kept = this.#kept;
    if (kept === null) return null;
    const most = Math.min(kept.length, prompt.length - 2);
    let shared = 0;
    while (shared < most && kept.tokens[shared] === prompt[shared]) shared++;
    return shared > 0 ? kept.prefix(shared) : null;
  }

  async #keep(sequence: ModelSequence): Promise<void> {
    const old = this.#kept;
    this.#kept = sequence;
    await old?.dispose();
  }

  async generateJson<S, T = JsonOf<S>>(
    schema: S,
    request: Omit<GenerateRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
  ): Promise<JsonResult<T>> {
    checkSchema(schema, 'schema');
    checkGenerateJsonRequest(request);
    const { schemaOptions, ...rest } = request;
    const result = await this.generate({
      ...rest,
      constraint: { type: 'json-schema', schema: jsonSchemaOf(schema), ...(schemaOptions === undefined ? {} : { options: schemaOptions }) },
    });
    if (result.complete !== true) {
      throw new IncompleteOutputError(
        `the JSON is incomplete: generation stopped (${result.stopReason}) after ${result.tokens.length} tokens; raise maxTokens`,
        result.text,
      );
    }
    const parsed: unknown = JSON.parse(result.text);
    const value = (
      isZodSchema(schema) && typeof (schema as { parse?: unknown }).parse === 'function'
        ? (schema as unknown as { parse(v: unknown): unknown }).parse(parsed)
        : parsed
    ) as T;
    return { ...result, value };
  }

  stream(request: StreamRequest): TokenStream {
    return tokenStream(request.signal, (hooks) => this.generate({ ...request, ...hooks }));
  }

  streamJson<S, T = JsonOf<S>>(
    schema: S,
    request: Omit<StreamRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
  ): TokenStream<JsonTokenEvent<T>, JsonResult<T>> {
    return jsonStream(request.signal, (hooks) => this.generateJson<S, T>(schema, { ...request, ...hooks }));
  }

  async dispose(): Promise<void> {
    const running = [...this.#running];
    for (const { stop } of running) stop.abort();
    await Promise.all(running.map(({ done }) => done));
    for (const grammar of [...this.#handles.values(), ...this.#bySpec.values()]) grammar.dispose();
    this.#handles.clear();
    this.#bySpec.clear();
    this.#indexFiles.clear();
    await this.#kept?.dispose();
    this.#kept = null;
    const loaded = this.#loaded;
    this.#loaded = null;
    if (loaded === null) return;
    loaded.vocab.dispose();
    loaded.kernel.dispose();
    await loaded.model.dispose();
  }

  /** What `load` reported, or null before it. */
  get info(): ModelInfo | null {
    return this.#loaded?.info ?? null;
  }

  #require(): Loaded {
    if (this.#loaded === null) throw new NotLoadedError('load a model first (engine.load)');
    return this.#loaded;
  }

  #grammar(spec: GrammarSpec | { readonly type: 'grammar'; readonly id: number }): Grammar {
    if (spec.type === 'grammar') {
      const grammar = this.#handles.get(spec.id);
      if (grammar === undefined) throw new RangeError(`no compiled grammar ${spec.id} (compile it with this engine; load() clears them)`);
      return grammar;
    }
    const key = specKey(spec);
    let grammar = this.#bySpec.get(key);
    if (grammar !== undefined) {
      this.#bySpec.delete(key);
    } else {
      grammar = new Grammar(spec, this.#limits);
      if (this.#bySpec.size >= MAX_CACHED_GRAMMARS) {
        const [oldest, evicted] = this.#bySpec.entries().next().value as [string, Grammar];
        this.#bySpec.delete(oldest);
        evicted.dispose();
      }
    }
    this.#bySpec.set(key, grammar);
    return grammar;
  }

  // The constraint with every mask index given by URL fetched (once per URL).
  async #fetchIndexes<T extends ConstraintInput | undefined>(input: T): Promise<T> {
    if (input === undefined || input instanceof Grammar || isCustom(input)) return input;
    const spec = input as ConstraintSpec;
    switch (spec.type) {
      case 'all-of':
        return { ...spec, constraints: await Promise.all(spec.constraints.map((part) => this.#fetchIndexes(part))) } as unknown as T;
      case 'think':
        return { ...spec, then: await this.#fetchIndexes(spec.then) } as unknown as T;
      default: {
        const index = (spec as { readonly index?: unknown }).index;
        if (typeof index !== 'string') return input;
        let bytes = this.#indexFiles.get(index);
        if (bytes === undefined) {
          bytes = fetchBytes(index, 'the mask index');
          this.#indexFiles.set(index, bytes);
          bytes.catch(() => this.#indexFiles.delete(index));
        }
        return { ...spec, index: await bytes } as unknown as T;
      }
    }
  }

  #promptTokens(request: GenerateRequest): number[] {
    const tokenizer = this.#require().model.tokenizer as unknown as {
      encode(text: string, options?: object): number[];
      apply_chat_template(messages: readonly ChatMessage[], options: object): number[] | { input_ids: unknown };
    };
    if (request.prompt !== undefined) return tokenizer.encode(request.prompt);
    const ids = tokenizer.apply_chat_template(request.messages!, {
      tokenize: true,
      add_generation_prompt: true,
      return_tensor: false,
      return_dict: false,
      ...request.templateOptions,
      ...(request.chatTemplate === undefined ? {} : { chat_template: request.chatTemplate }),
    });
    return Array.isArray(ids) ? ids.map(Number) : [];
  }
}

async function fetchBytes(url: string, what = 'the vocab index'): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new ModelLoadError(`could not fetch ${what} ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Cache keys of specs: a mask index's bytes stand in by an id per array, not by their content.
const indexIds = new WeakMap<Uint8Array, number>();
let indexIdCount = 0;
function specKey(spec: GrammarSpec): string {
  return JSON.stringify(spec, (key, value: unknown) => {
    if (key !== 'index' || !(value instanceof Uint8Array)) return value;
    let id = indexIds.get(value);
    if (id === undefined) indexIds.set(value, (id = ++indexIdCount));
    return `#${id}`;
  });
}

/** A new in-thread engine (call `load` next). */
export function createEngine(): SieveEngine {
  return new InThreadEngine();
}
