/**
 * The OpenAI-compatible facade, `engine.chat.completions.create(request)`: a chat request
 * becomes `generate` calls (one per choice, `n`), the `response_format` a constraint, and the
 * result OpenAI's shape — or, with `stream: true`, an async iterable of OpenAI's chunks. Both
 * engines use this one implementation over their own `generate` and `stream` (a worker
 * engine runs it on the page, its generations in the worker).
 */
import { toolCallStart, type ToolCallFormat } from '@sieve/grammar/inputs';
import { ToolCalls, Triggered, type ConstraintInput } from './constraint-specs.ts';
import type { ChatMessage, GenerateRequest, GenerateResult, ModelInfo } from './engine.ts';
import { InvalidRequestError } from './errors.ts';
import {
  arrayOf,
  boolean,
  chatMessage,
  either,
  fields,
  integer,
  integerIn,
  nonEmptyString,
  number,
  oneOf,
  record,
  signal,
  string,
  type Check,
} from './request-checks.ts';
import type { StreamRequest, TokenStream } from './streams.ts';

/** OpenAI-style `response_format`. */
export type ResponseFormat =
  | { readonly type: 'text' }
  /** A JSON object; web-llm's `schema` (a JSON Schema or its JSON text) makes it `json_schema`. */
  | { readonly type: 'json_object'; readonly schema?: unknown }
  /** web-llm's: an EBNF grammar (XGrammar's dialect, Sieve's `Ebnf`). */
  | { readonly type: 'grammar'; readonly grammar: string }
  | {
      readonly type: 'json_schema';
      readonly json_schema: { readonly name?: string; readonly description?: string; readonly schema: unknown; readonly strict?: boolean };
    };

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
  /** web-llm's: `enable_thinking` for the chat template (as `chat_template_kwargs` says it). */
  readonly extra_body?: { readonly enable_thinking?: boolean };
  /** Tools the model may call (handed to the chat template as `tools`; see `tool_choice`). */
  readonly tools?: readonly ChatTool[];
  /**
   * `auto` (the default with tools): free text, or tool calls the model starts (constrained
   * from their opening on); `required`: only tool calls; a named function: one call of it;
   * `none`: text, never parsed as calls.
   */
  readonly tool_choice?: ToolChoice;
  /** Several calls in one answer (default true). */
  readonly parallel_tool_calls?: boolean;
  /** Each choice's tokens with their log probabilities (`TokenLogprob`: under the masked distribution). */
  readonly logprobs?: boolean;
  /** With `logprobs`: this many most likely alternatives per token (0–20). */
  readonly top_logprobs?: number;
}

/** A token's log probability in OpenAI's shape. */
export interface ChatTokenLogprob {
  readonly token: string;
  readonly logprob: number;
  readonly bytes: readonly number[];
  readonly top_logprobs: readonly { readonly token: string; readonly logprob: number; readonly bytes: readonly number[] }[];
}

/** A function the model may call; `parameters` is its arguments' JSON Schema (none: no arguments). */
export interface ChatTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown; readonly strict?: boolean };
}

/** OpenAI's `tool_choice`. */
export type ToolChoice = 'none' | 'auto' | 'required' | { readonly type: 'function'; readonly function: { readonly name: string } };

/** A call the model made: `arguments` is JSON valid against the tool's `parameters`. */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** Why a choice ended. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

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
    /**
     * `content`: the text (before the tool calls; null when there is none and calls are);
     * `parsed`: with a `json_schema` response format, the JSON's value (null when it did not
     * finish); `tool_calls`: the calls made, when any.
     */
    readonly message: { readonly role: 'assistant'; readonly content: string | null; readonly parsed?: unknown; readonly tool_calls?: readonly ToolCall[] };
    readonly finish_reason: FinishReason;
    /** With `logprobs`: per token of the choice (null otherwise). */
    readonly logprobs: { readonly content: readonly ChatTokenLogprob[] } | null;
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
    /** Tool calls come whole, in one chunk after the text (each with its `index`). */
    readonly delta: { readonly role?: 'assistant'; readonly content?: string; readonly tool_calls?: readonly (ToolCall & { readonly index: number })[] };
    readonly finish_reason: FinishReason | null;
    /** With `logprobs`: on a choice's last chunk, every token's (not spread over the chunks). */
    readonly logprobs?: { readonly content: readonly ChatTokenLogprob[] } | null;
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
  /** The loaded model (throws when none is loaded). */
  model(): ModelInfo;
}

/** Checks a chat completion request (the OpenAI fields Sieve implements; `model` is ignored). */
export const checkChatRequest: Check = fields(
  {
    model: string,
    messages: arrayOf(chatMessage),
    response_format: (value, path) => {
      record(value, path);
      const type = (value as { type?: unknown }).type;
      if (type === 'json_schema')
        return fields(
          {
            type: string,
            json_schema: fields(
              { name: string, schema: either('a JSON Schema (an object or a boolean)', record, boolean), strict: boolean, description: string },
              ['schema'],
            ),
          },
          ['json_schema'],
        )(value, path);
      oneOf('text', 'json_object', 'json_schema', 'grammar')(type, `${path}.type`);
      // web-llm's shapes: a JSON object with its schema (often a JSON string), an EBNF grammar.
      if (type === 'json_object') return fields({ type: string, schema: either('a JSON Schema, or its JSON text', record, string) })(value, path);
      if (type === 'grammar') return fields({ type: string, grammar: string }, ['grammar'])(value, path);
      fields({ type: string })(value, path);
    },
    max_tokens: integer(1),
    max_completion_tokens: integer(1),
    temperature: number,
    top_p: number,
    seed: number,
    stop: either('a string or an array of strings', string, arrayOf(string)),
    n: integerIn(1, 64),
    stream: boolean,
    stream_options: fields({ include_usage: boolean }),
    signal,
    chatTemplate: string,
    chat_template_kwargs: record,
    extra_body: fields({ enable_thinking: boolean }),
    tools: arrayOf(
      fields(
        {
          type: oneOf('function'),
          function: fields(
            { name: nonEmptyString, description: string, parameters: either('a JSON Schema (an object or a boolean)', record, boolean), strict: boolean },
            ['name'],
          ),
        },
        ['type', 'function'],
      ),
      128,
    ),
    tool_choice: (value, path) =>
      typeof value === 'string'
        ? oneOf('none', 'auto', 'required')(value, path)
        : fields({ type: oneOf('function'), function: fields({ name: nonEmptyString }, ['name']) }, ['type', 'function'])(value, path),
    parallel_tool_calls: boolean,
    logprobs: boolean,
    top_logprobs: integerIn(0, 20),
  },
  ['messages'],
);

/** The facade over `engine`. */
export function chatCompletions(engine: ChatBackend): ChatCompletions {
  async function create(request: ChatCompletionRequest): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>> {
    checkChatRequest(request, 'request');
    const model = engine.model();
    const head = { id: `chatcmpl-${Math.random().toString(36).slice(2)}`, created: Math.floor(Date.now() / 1000), model: model.id };
    const plan = answerPlan(request, model.toolCallFormat);
    const choices = Array.from({ length: request.n ?? 1 }, (_, index) => generateRequest(request, plan, index));
    if (request.stream === true) return chunks(engine, head, choices, request, plan);
    const results: GenerateResult[] = [];
    for (const choice of choices) results.push(await engine.generate(choice));
    const completion = results.reduce((n, r) => n + r.tokens.length, 0);
    const prompt = results[0]!.stats.promptTokens;
    return {
      ...head,
      object: 'chat.completion',
      choices: results.map((result, index) => {
        const answer = readAnswer(result, plan);
        const parsed = plan.parsed && answer.calls.length === 0 ? { parsed: result.complete === true ? (JSON.parse(result.text) as unknown) : null } : {};
        const message = { role: 'assistant' as const, content: answer.content, ...parsed, ...(answer.calls.length > 0 ? { tool_calls: answer.calls } : {}) };
        return { index, message, finish_reason: answer.finish, logprobs: logprobsOf(result) };
      }),
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }
  return { create } as ChatCompletions;
}

/**
 * What a request's answer may be: text under its response format, and where tools are in
 * play, calls in the model's format — only calls (`required`, a named function), or calls
 * that free text may start with `trigger` (`auto`).
 */
interface AnswerPlan {
  readonly constraint: ConstraintInput | undefined;
  /** The text is JSON under a schema (`json_schema`, or web-llm's `json_object` with one): `message.parsed` holds it. */
  readonly parsed: boolean;
  readonly calls: { readonly format: ToolCallFormat; readonly trigger: string | null } | null;
}

function answerPlan(request: ChatCompletionRequest, format: ToolCallFormat): AnswerPlan {
  const text = textConstraint(request.response_format);
  const choice = request.tool_choice ?? 'auto';
  // A call asked for needs a tool to call (OpenAI refuses it too), and a name calls one tool.
  if ((request.tools ?? []).length === 0 && choice !== 'none' && choice !== 'auto')
    throw new InvalidRequestError('request.tool_choice', 'asks for a call, and request.tools has no tool');
  const seen = new Set<string>();
  (request.tools ?? []).forEach((tool, i) => {
    if (seen.has(tool.function.name))
      throw new InvalidRequestError(`request.tools[${i}].function.name`, `${JSON.stringify(tool.function.name)} names an earlier tool too`);
    seen.add(tool.function.name);
  });
  if (request.tools === undefined || request.tools.length === 0 || choice === 'none')
    return { constraint: text, parsed: isSchemaFormat(request.response_format), calls: null };
  const named = typeof choice === 'object' ? choice.function.name : null;
  const tools = request.tools
    .filter((tool) => named === null || tool.function.name === named)
    .map((tool) => ({ name: tool.function.name, parameters: tool.function.parameters ?? { type: 'object', properties: {}, additionalProperties: false } }));
  if (tools.length === 0) throw new InvalidRequestError('request.tool_choice.function.name', `names no tool in request.tools: ${JSON.stringify(named)}`);
  // The answer is calls (or free text and calls): a response format for its text has no place.
  if (text !== undefined)
    throw new InvalidRequestError(
      'request.response_format',
      'with tools the answer is calls (or free text and calls): leave response_format text, or set tool_choice none',
    );
  const parallel = named === null && request.parallel_tool_calls !== false;
  if (choice !== 'auto') return { constraint: ToolCalls(tools, format, { parallel }), parsed: false, calls: { format, trigger: null } };
  // The shortest opening the model writes of its own accord: its call marker, or the start of the object.
  const trigger = format.open.trim() !== '' ? format.open.trimEnd() : '{"name"';
  const calls = ToolCalls(tools, format, { parallel, after: trigger });
  return { constraint: Triggered(trigger, calls), parsed: false, calls: { format, trigger } };
}

function isSchemaFormat(format: ResponseFormat | undefined): boolean {
  return format?.type === 'json_schema' || (format?.type === 'json_object' && format.schema !== undefined);
}

function textConstraint(format: ResponseFormat | undefined): ConstraintInput | undefined {
  if (format?.type === 'json_schema')
    return { type: 'json-schema', schema: format.json_schema.schema, options: { strict: format.json_schema.strict ?? false } };
  if (format?.type === 'json_object') {
    if (format.schema === undefined) return { type: 'json-schema', schema: { type: 'object' } };
    return { type: 'json-schema', schema: typeof format.schema === 'string' ? parseSchemaText(format.schema) : format.schema };
  }
  if (format?.type === 'grammar') return { type: 'ebnf', grammar: format.grammar };
  return undefined;
}

function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidRequestError('request.response_format.schema', `is not JSON: ${(error as Error).message}`);
  }
}

// Choice `index`'s generation.
function generateRequest(request: ChatCompletionRequest, plan: AnswerPlan, index: number): GenerateRequest {
  const sampling = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.top_p === undefined ? {} : { topP: request.top_p }),
    ...(request.seed === undefined ? {} : { seed: request.seed + index }),
  };
  const thinking = request.extra_body?.enable_thinking;
  const templateOptions =
    request.chat_template_kwargs === undefined && request.tools === undefined && thinking === undefined
      ? undefined
      : {
          ...(thinking === undefined ? {} : { enable_thinking: thinking }),
          ...request.chat_template_kwargs,
          ...(request.tools === undefined ? {} : { tools: request.tools }),
        };
  return {
    messages: request.messages,
    ...(request.chatTemplate === undefined ? {} : { chatTemplate: request.chatTemplate }),
    ...(plan.constraint === undefined ? {} : { constraint: plan.constraint }),
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? 256,
    sampling,
    ...(templateOptions === undefined ? {} : { templateOptions }),
    ...(request.logprobs === true ? { logprobs: request.top_logprobs ?? 0 } : {}),
    // (Stop strings end free text, not calls: a call cut short would be no call. An answer
    // that is calls only has none; in `auto`, none after a call starts.)
    stop: plan.calls !== null && plan.calls.trigger === null ? [] : stops(request),
    ...(plan.calls?.trigger == null ? {} : { stopBefore: plan.calls.trigger }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  };
}

function logprobsOf(result: GenerateResult): { content: ChatTokenLogprob[] } | null {
  if (result.logprobs === undefined) return null;
  return {
    content: result.logprobs.map(({ text, bytes, logprob, top }) => ({
      token: text,
      logprob,
      bytes: [...bytes],
      top_logprobs: top.map((t) => ({ token: t.text, logprob: t.logprob, bytes: [...t.bytes] })),
    })),
  };
}

function stops(request: ChatCompletionRequest): readonly string[] {
  return request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
}

/** How the model writes tool calls, from its chat template: Hermes/Qwen markers when it uses them, Llama 3's bare object when it asks for `parameters`, else the markers. */
export function toolCallFormatOf(template: unknown): ToolCallFormat {
  const text = typeof template === 'string' ? template : JSON.stringify(template ?? '');
  if (!text.includes('<tool_call>') && text.includes('"parameters"')) return { open: '', close: '', between: '; ', argumentsKey: 'parameters' };
  return { open: '<tool_call>\n', close: '\n</tool_call>', between: '\n', argumentsKey: 'arguments' };
}

// A generation's answer: its text, its calls (whole ones), and why it ended.
function readAnswer(result: GenerateResult, plan: AnswerPlan): { content: string | null; calls: ToolCall[]; finish: FinishReason } {
  const cut: FinishReason = result.stopReason === 'length' ? 'length' : 'stop';
  if (plan.calls === null) return { content: result.text, calls: [], finish: cut };
  const { format, trigger } = plan.calls;
  const at = trigger === null ? 0 : result.text.indexOf(trigger);
  if (at < 0) return { content: result.text, calls: [], finish: cut };
  const calls = parseCalls(result.text.slice(at), format);
  const content = result.text.slice(0, at).trimEnd();
  return { content: content === '' && calls.length > 0 ? null : content, calls, finish: calls.length > 0 && cut === 'stop' ? 'tool_calls' : cut };
}

// The whole calls at the start of `text` (written under the tool calls grammar, so well formed
// up to where the output may have been cut).
function parseCalls(text: string, format: ToolCallFormat): ToolCall[] {
  const calls: ToolCall[] = [];
  const start = toolCallStart(format).slice(0, -'{"name": '.length);
  for (let at = 0; text.startsWith(start, at);) {
    const end = objectEnd(text, at + start.length);
    if (end < 0 || !text.startsWith(format.close, end)) break;
    const object = text.slice(at + start.length, end);
    const name = (JSON.parse(object) as Record<string, unknown>)['name'] as string;
    // The arguments as the model wrote them (the grammar spells what comes before them):
    // read and written again, a number such as 1e999 or 1.00000000000000000001 would change.
    const before = `{"name": ${JSON.stringify(name)}, ${JSON.stringify(format.argumentsKey)}: `;
    if (!object.startsWith(before)) throw new Error(`internal: a tool call not written as its grammar says: ${object}`);
    calls.push({
      id: `call_${Math.random().toString(36).slice(2, 14)}`,
      type: 'function',
      function: { name, arguments: object.slice(before.length, -1).trim() },
    });
    at = end + format.close.length;
    if (!text.startsWith(format.between, at)) break;
    at += format.between.length;
  }
  return calls;
}

// Where the JSON object starting at `from` ends (just past its `}`), or -1 if the text ends first.
function objectEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

// The choices' chunks, one choice after the other: the role first, then the text as it comes
// (held back where a stop string or the tool calls' trigger may be starting: no chunk ever
// holds text past them), the tool calls whole, the finish reason last; the usage after all
// of them when asked for.
async function* chunks(
  engine: ChatBackend,
  head: { id: string; created: number; model: string },
  choices: readonly GenerateRequest[],
  request: ChatCompletionRequest,
  plan: AnswerPlan,
): AsyncGenerator<ChatCompletionChunk> {
  const chunk = (index: number, delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null): ChatCompletionChunk => ({
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index, delta, finish_reason: finish }],
  });
  const ends = [...stops(request), ...(plan.calls?.trigger == null ? [] : [plan.calls.trigger])];
  const holdBack = Math.max(0, ...ends.map((s) => s.length - 1));
  const textOnly = plan.calls === null || plan.calls.trigger !== null;
  let prompt = 0;
  let completion = 0;
  for (const [index, choice] of choices.entries()) {
    yield chunk(index, { role: 'assistant', content: '' }, null);
    const stream = engine.stream(choice);
    let text = '';
    let sent = 0;
    for await (const event of stream) {
      if (!textOnly) continue;
      text += event.delta;
      let safe = text.length - holdBack;
      for (const end of ends) {
        const at = text.indexOf(end);
        if (at >= 0) safe = Math.min(safe, at);
      }
      // Before calls the content ends at its last non-space character (as `readAnswer` trims
      // it): spaces wait for what follows them.
      if (plan.calls?.trigger != null) safe = Math.min(safe, text.slice(0, Math.max(0, safe)).trimEnd().length);
      if (safe > sent) {
        yield chunk(index, { content: text.slice(sent, safe) }, null);
        sent = safe;
      }
    }
    const result = await stream.result;
    const answer = readAnswer(result, plan);
    const content = answer.content ?? '';
    if (textOnly && content.length > sent) yield chunk(index, { content: content.slice(sent) }, null);
    if (answer.calls.length > 0) yield chunk(index, { tool_calls: answer.calls.map((call, i) => ({ index: i, ...call })) }, null);
    const last = chunk(index, {}, answer.finish);
    yield request.logprobs === true ? { ...last, choices: [{ ...last.choices[0]!, logprobs: logprobsOf(result) }] } : last;
    prompt = result.stats.promptTokens;
    completion += result.tokens.length;
  }
  if (request.stream_options?.include_usage === true)
    yield {
      ...head,
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
}
