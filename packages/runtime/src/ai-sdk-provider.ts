/**
 * A Vercel AI SDK language model (the `LanguageModelV4` spec of `@ai-sdk/provider`) over a
 * Sieve engine, so `generateText`, `streamText`, `generateObject`/`streamObject` (an output
 * schema) and tool calls run on a local model with Sieve's exact constraints. It speaks the
 * engine's OpenAI-style facade (`chat-completions.ts`): `responseFormat: json` with a schema
 * is `json_schema` (without one, a JSON object), function tools and `toolChoice` are `tools`
 * and `tool_choice`, and the answer's text and calls come back as content parts (streamed:
 * text deltas as they come, the calls whole).
 *
 * @module @sieve/runtime/ai-sdk
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { ChatCompletionRequest, ChatTool, FinishReason, ToolCall, ToolChoice } from './chat-completions.ts';
import type { ChatMessage, SieveEngine } from './engine.ts';

export interface SieveLanguageModelOptions {
  /** The id the AI SDK reports (default: the loaded model's). */
  readonly modelId?: string;
  /** Variables for the chat template (`{ enable_thinking: false }` for Qwen3). */
  readonly templateOptions?: Readonly<Record<string, unknown>>;
  /** A chat template (Jinja) for a model whose tokenizer has none (a base model). */
  readonly chatTemplate?: string;
}

/** The engine (with a model loaded) as an AI SDK language model. */
export function sieveLanguageModel(engine: Pick<SieveEngine, 'chat'>, options: SieveLanguageModelOptions = {}): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'sieve',
    modelId: options.modelId ?? 'local',
    supportedUrls: {},
    async doGenerate(call): Promise<LanguageModelV4GenerateResult> {
      const { request, warnings } = chatRequest(call, options);
      const completion = await engine.chat.completions.create({ ...request, stream: false });
      const choice = completion.choices[0]!;
      const content: LanguageModelV4Content[] = [];
      if (choice.message.content !== null && choice.message.content !== '') content.push({ type: 'text', text: choice.message.content });
      for (const toolCall of choice.message.tool_calls ?? []) content.push(toolCallPart(toolCall));
      return {
        content,
        finishReason: finishReason(choice.finish_reason),
        usage: usage(completion.usage.prompt_tokens, completion.usage.completion_tokens),
        warnings,
        response: { id: completion.id, timestamp: new Date(completion.created * 1000), modelId: completion.model },
      };
    },
    async doStream(call): Promise<LanguageModelV4StreamResult> {
      const { request, warnings } = chatRequest(call, options);
      const chunks = await engine.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings });
          let textOpen = false;
          let finish: FinishReason = 'stop';
          try {
            for await (const chunk of chunks) {
              if (chunk.usage !== undefined) {
                if (textOpen) controller.enqueue({ type: 'text-end', id: 'text' });
                textOpen = false;
                controller.enqueue({
                  type: 'finish',
                  usage: usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens),
                  finishReason: finishReason(finish),
                });
                continue;
              }
              const choice = chunk.choices[0];
              if (choice === undefined) continue;
              if (choice.delta.role !== undefined)
                controller.enqueue({ type: 'response-metadata', id: chunk.id, timestamp: new Date(chunk.created * 1000), modelId: chunk.model });
              if (choice.delta.content !== undefined && choice.delta.content !== '') {
                if (!textOpen) controller.enqueue({ type: 'text-start', id: 'text' });
                textOpen = true;
                controller.enqueue({ type: 'text-delta', id: 'text', delta: choice.delta.content });
              }
              for (const toolCall of choice.delta.tool_calls ?? []) controller.enqueue(toolCallPart(toolCall));
              if (choice.finish_reason !== null) finish = choice.finish_reason;
            }
          } catch (error) {
            controller.enqueue({ type: 'error', error });
          }
          controller.close();
        },
      });
      return { stream };
    },
  };
}

// The call as a chat completions request, and what of it Sieve does not do.
function chatRequest(call: LanguageModelV4CallOptions, options: SieveLanguageModelOptions): { request: ChatCompletionRequest; warnings: SharedV4Warning[] } {
  const warnings: SharedV4Warning[] = [];
  const unsupported = (feature: string, details?: string): void =>
    void warnings.push({ type: 'unsupported', feature, ...(details === undefined ? {} : { details }) });
  if (call.presencePenalty !== undefined) unsupported('presencePenalty');
  if (call.frequencyPenalty !== undefined) unsupported('frequencyPenalty');
  if (call.topK !== undefined) unsupported('topK', 'set it in the model’s generation_config.json');
  const tools: ChatTool[] = [];
  for (const tool of call.tools ?? []) {
    if (tool.type !== 'function') unsupported(`provider tool ${tool.id}`);
    else
      tools.push({
        type: 'function',
        function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.inputSchema },
      });
  }
  const format = call.responseFormat;
  const request: ChatCompletionRequest = {
    messages: chatMessages(call.prompt),
    ...(call.maxOutputTokens === undefined ? {} : { max_tokens: call.maxOutputTokens }),
    ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
    ...(call.topP === undefined ? {} : { top_p: call.topP }),
    ...(call.seed === undefined ? {} : { seed: call.seed }),
    ...(call.stopSequences === undefined || call.stopSequences.length === 0 ? {} : { stop: call.stopSequences }),
    ...(format?.type === 'json'
      ? {
          response_format:
            format.schema === undefined
              ? { type: 'json_object' }
              : { type: 'json_schema', json_schema: { name: format.name ?? 'output', schema: format.schema } },
        }
      : {}),
    ...(tools.length === 0 ? {} : { tools, tool_choice: toolChoice(call.toolChoice) }),
    ...(call.abortSignal === undefined ? {} : { signal: call.abortSignal }),
    ...(options.templateOptions === undefined ? {} : { chat_template_kwargs: options.templateOptions }),
    ...(options.chatTemplate === undefined ? {} : { chatTemplate: options.chatTemplate }),
  };
  return { request, warnings };
}

function toolChoice(choice: LanguageModelV4CallOptions['toolChoice']): ToolChoice {
  if (choice === undefined || choice.type === 'auto') return 'auto';
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.toolName } };
  return choice.type;
}

// The AI SDK's prompt as chat messages: text parts joined; an assistant's tool calls and the
// tools' results in OpenAI's shape (what chat templates read).
function chatMessages(prompt: LanguageModelV4Prompt): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      messages.push({ role: 'system', content: message.content });
      continue;
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output;
        const content = output.type === 'text' ? output.value : output.type === 'json' ? JSON.stringify(output.value) : JSON.stringify(output);
        messages.push({ role: 'tool', content, tool_call_id: part.toolCallId, name: part.toolName });
      }
      continue;
    }
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    if (message.role === 'user') {
      messages.push({ role: 'user', content: text });
      continue;
    }
    const calls = message.content.flatMap((part) =>
      part.type === 'tool-call'
        ? [
            {
              id: part.toolCallId,
              type: 'function' as const,
              function: { name: part.toolName, arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input) },
            },
          ]
        : [],
    );
    messages.push({ role: 'assistant', content: text, ...(calls.length === 0 ? {} : { tool_calls: calls }) });
  }
  return messages;
}

function toolCallPart(call: ToolCall): LanguageModelV4Content & { type: 'tool-call' } {
  return { type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: call.function.arguments };
}

function finishReason(reason: FinishReason): LanguageModelV4FinishReason {
  return { unified: reason === 'tool_calls' ? 'tool-calls' : reason, raw: reason };
}

function usage(input: number, output: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}
