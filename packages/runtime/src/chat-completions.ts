/**
 * The OpenAI-compatible facade, `engine.chat.completions.create(request)`: a chat request
 * becomes `generate` calls (one per choice, `n`), the `response_format` a constraint, and the
 * result OpenAI's shape — or, with `stream: true`, an async iterable of OpenAI's chunks. Both
 * engines use this one implementation over their own `generate` and `stream` (a worker
 * engine runs it on the page, its generations in the worker).
 */
import type { ConstraintInput } from './constraint-specs.ts';
import type { ChatMessage, GenerateRequest, GenerateResult } from './engine.ts';
import { checkChatRequest } from './requests.ts';
import type { StreamRequest, TokenStream } from './streams.ts';

/** OpenAI-style `response_format`. */
export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | { readonly type: 'json_schema'; readonly json_schema: { readonly name?: string; readonly description?: string; readonly schema: unknown; readonly strict?: boolean } };

/** OpenAI-style chat completion request (the fields Sieve reads). */
export interface ChatCompletionRequest {
  /** Ignored (the loaded model answers); accepted so OpenAI-style requests pass as they are. */
  readonly model?: string;
  readonly messages: readonly ChatMessage[];
  /**
   * `json_schema`: output valid against the schema (`message.parsed` holds its value);
   * `json_object`: a JSON object (any members); `text` (default): unconstrained.
   */
  readonly response_format?: ResponseFormat;
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: number;
  /** Choice `i` samples with seed `seed + i`. */
  readonly seed?: number;
  readonly stop?: string | readonly string[];
  /** How many choices (each its own generation, one after the other); default 1. */
  readonly n?: number;
  /** An async iterable of `chat.completion.chunk`s instead of one completion. */
  readonly stream?: boolean;
  /** With `stream`: `include_usage` adds a last chunk with the usage and no choices. */
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly signal?: AbortSignal;
  /** Not OpenAI's: a Jinja chat template for tokenizers without one. */
  readonly chatTemplate?: string;
  /** Variables for the chat template (vLLM's name): `{ enable_thinking: false }` for Qwen3. */
  readonly chat_template_kwargs?: Readonly<Record<string, unknown>>;
  /** Tool definitions, handed to the chat template as `tools`. */
  readonly tools?: readonly Readonly<Record<string, unknown>>[];
}

/** Why a choice ended. */
export type FinishReason = 'stop' | 'length';

interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** OpenAI-style chat completion. */
export interface ChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    /** `parsed`: with a `json_schema` response format, the JSON's value (null when it did not finish). */
    readonly message: { readonly role: 'assistant'; readonly content: string; readonly parsed?: unknown };
    readonly finish_reason: FinishReason;
  }[];
  /** Over all choices (the prompt counted once). */
  readonly usage: Usage;
}

/** One chunk of a streamed chat completion (OpenAI's `chat.completion.chunk`). */
export interface ChatCompletionChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly delta: { readonly role?: 'assistant'; readonly content?: string };
    readonly finish_reason: FinishReason | null;
  }[];
  /** On the last chunk only, with `stream_options.include_usage` (its `choices` empty). */
  readonly usage?: Usage;
}

/** `chat.completions`: OpenAI's `create`, streaming or not. */
export interface ChatCompletions {
  create(request: ChatCompletionRequest & { readonly stream: true }): Promise<AsyncIterable<ChatCompletionChunk>>;
  create(request: ChatCompletionRequest & { readonly stream?: false }): Promise<ChatCompletion>;
  create(request: ChatCompletionRequest): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;
}

/** What the facade needs of an engine. */
export interface ChatBackend {
  generate(request: GenerateRequest): Promise<GenerateResult>;
  stream(request: StreamRequest): TokenStream;
  /** The loaded model's id (throws when none is loaded). */
  modelId(): string;
}

/** The facade over `engine`. */
export function chatCompletions(engine: ChatBackend): ChatCompletions {
  async function create(request: ChatCompletionRequest): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>> {
    checkChatRequest(request, 'request');
    const head = { id: `chatcmpl-${Math.random().toString(36).slice(2)}`, created: Math.floor(Date.now() / 1000), model: engine.modelId() };
    const choices = Array.from({ length: request.n ?? 1 }, (_, index) => generateRequest(request, index));
    if (request.stream === true) return chunks(engine, head, choices, request);
    const results: GenerateResult[] = [];
    for (const choice of choices) results.push(await engine.generate(choice));
    const completion = results.reduce((n, r) => n + r.tokens.length, 0);
    const prompt = results[0]!.stats.promptTokens;
    return {
      ...head,
      object: 'chat.completion',
      choices: results.map((result, index) => ({ index, message: message(result, request.response_format), finish_reason: finishReason(result) })),
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }
  return { create } as ChatCompletions;
}

// Choice `index`'s generation.
function generateRequest(request: ChatCompletionRequest, index: number): GenerateRequest {
  const format = request.response_format ?? { type: 'text' };
  const constraint: ConstraintInput | undefined =
    format.type === 'json_schema'
      ? { type: 'json-schema', schema: format.json_schema.schema, options: { strict: format.json_schema.strict ?? false } }
      : format.type === 'json_object'
        ? { type: 'json-schema', schema: { type: 'object' } }
        : undefined;
  const sampling = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.top_p === undefined ? {} : { topP: request.top_p }),
    ...(request.seed === undefined ? {} : { seed: request.seed + index }),
  };
  const templateOptions = request.chat_template_kwargs === undefined && request.tools === undefined ? undefined : { ...request.chat_template_kwargs, ...(request.tools === undefined ? {} : { tools: request.tools }) };
  return {
    messages: request.messages,
    ...(request.chatTemplate === undefined ? {} : { chatTemplate: request.chatTemplate }),
    ...(constraint === undefined ? {} : { constraint }),
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? 256,
    sampling,
    ...(templateOptions === undefined ? {} : { templateOptions }),
    stop: stops(request),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  };
}

function stops(request: ChatCompletionRequest): readonly string[] {
  return request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
}

function finishReason(result: GenerateResult): FinishReason {
  return result.stopReason === 'length' ? 'length' : 'stop';
}

function message(result: GenerateResult, format: ResponseFormat | undefined): ChatCompletion['choices'][number]['message'] {
  if (format?.type !== 'json_schema') return { role: 'assistant', content: result.text };
  return { role: 'assistant', content: result.text, parsed: result.complete === true ? (JSON.parse(result.text) as unknown) : null };
}

// The choices' chunks, one choice after the other: the role first, then the text as it comes
// (held back where a stop string may be starting: no chunk ever holds text past a stop), the
// finish reason last; the usage after all of them when asked for.
async function* chunks(engine: ChatBackend, head: { id: string; created: number; model: string }, choices: readonly GenerateRequest[], request: ChatCompletionRequest): AsyncGenerator<ChatCompletionChunk> {
  const chunk = (index: number, delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null): ChatCompletionChunk => ({ ...head, object: 'chat.completion.chunk', choices: [{ index, delta, finish_reason: finish }] });
  const stopList = stops(request);
  const holdBack = Math.max(0, ...stopList.map((s) => s.length - 1));
  let prompt = 0;
  let completion = 0;
  for (const [index, choice] of choices.entries()) {
    yield chunk(index, { role: 'assistant', content: '' }, null);
    const stream = engine.stream(choice);
    let text = '';
    let sent = 0;
    for await (const event of stream) {
      text += event.delta;
      let safe = text.length - holdBack;
      for (const s of stopList) {
        const at = text.indexOf(s);
        if (at >= 0) safe = Math.min(safe, at);
      }
      if (safe > sent) {
        yield chunk(index, { content: text.slice(sent, safe) }, null);
        sent = safe;
      }
    }
    const result = await stream.result;
    if (result.text.length > sent) yield chunk(index, { content: result.text.slice(sent) }, null);
    yield chunk(index, {}, finishReason(result));
    prompt = result.stats.promptTokens;
    completion += result.tokens.length;
  }
  if (request.stream_options?.include_usage === true) yield { ...head, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}
