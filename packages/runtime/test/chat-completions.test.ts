// The OpenAI-style facade's tool calls: on stories260K (`required`, a named function, `none`:
// the calls' arguments checked by ajv against each tool's parameters), and over a stand-in
// engine whose outputs are given (how an answer with text and calls is read and streamed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { chatCompletions, toolCallFormatOf, type ChatBackend, type ChatCompletionChunk, type ChatTool } from '../src/chat-completions.ts';
import type { GenerateRequest, GenerateResult, ModelInfo } from '../src/engine.ts';
import { AllOf, JsonSchema, Regex, ToolCalls, Triggered } from '../src/constraint-specs.ts';
import { InvalidRequestError } from '../src/errors.ts';
import type { InThreadEngine } from '../src/engine.ts';
import { tokenStream } from '../src/streams.ts';
import { storiesEngine } from './support/engine.ts';

const TOOLS: ChatTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', maxLength: 12 }, unit: { enum: ['c', 'f'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'add',
      parameters: {
        type: 'object',
        properties: { a: { type: 'integer', minimum: 0, maximum: 99 }, b: { type: 'integer', minimum: 0, maximum: 99 } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
    },
  },
];
const PARAMETERS = new Map(TOOLS.map((tool) => [tool.function.name, tool.function.parameters]));
const TEMPLATE = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}';
const MESSAGES = [{ role: 'user', content: 'What is the weather in Paris, and what is 2 + 3?' }] as const;

describe('tool calls on stories260K', () => {
  let engine: InThreadEngine;
  beforeAll(async () => {
    engine = await storiesEngine();
  });
  afterAll(() => engine.dispose());

  it.each([1, 2, 3])('required (seed %i): calls only, each valid against its tool', async (seed) => {
    const completion = await engine.chat.completions.create({
      messages: MESSAGES,
      chatTemplate: TEMPLATE,
      tools: TOOLS,
      tool_choice: 'required',
      seed,
      max_tokens: 120,
    });
    const { message, finish_reason } = completion.choices[0]!;
    expect(finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls!.length).toBeGreaterThan(0);
    for (const call of message.tool_calls!) {
      expect(call.type).toBe('function');
      expect(call.id).toMatch(/^call_/);
      expect(ajvValidator(PARAMETERS.get(call.function.name))(JSON.parse(call.function.arguments))).toBe(true);
    }
  });

  it('a named function: one call of it', async () => {
    const completion = await engine.chat.completions.create({
      messages: MESSAGES,
      chatTemplate: TEMPLATE,
      tools: TOOLS,
      tool_choice: { type: 'function', function: { name: 'add' } },
      seed: 4,
      max_tokens: 80,
    });
    const calls = completion.choices[0]!.message.tool_calls!;
    expect(calls.map((c) => c.function.name)).toEqual(['add']);
    expect(ajvValidator(PARAMETERS.get('add'))(JSON.parse(calls[0]!.function.arguments))).toBe(true);
  });

  it('auto: free text, complete as it is, until the trigger; from it a valid call (Triggered)', async () => {
    const format = toolCallFormatOf('<tool_call>');
    const tools = TOOLS.map((t) => ({ name: t.function.name, parameters: t.function.parameters }));
    const calls = Triggered('<tool_call>', ToolCalls(tools, format, { after: '<tool_call>', parallel: false }));
    // A regex makes the model write the trigger; from there the tool calls grammar leads.
    for (const seed of [1, 2]) {
      // (Stop strings end the text before the call only: the call's quotes and braces do not cut it.)
      const result = await engine.generate({
        prompt: 'Lily',
        constraint: AllOf(calls, Regex('Hi <tool_call>[\\s\\S]*')),
        sampling: { seed },
        maxTokens: 120,
        stop: ['"', '}'],
        stopBefore: '<tool_call>',
      });
      // (Two grammars in AllOf: the end is the grammar's, `complete` cannot be told.)
      expect(result.stopReason).toBe('grammar');
      const body = result.text.slice('Hi <tool_call>\n'.length, result.text.indexOf('\n</tool_call>'));
      const call = JSON.parse(body) as { name: string; arguments: unknown };
      expect(ajvValidator(PARAMETERS.get(call.name))(call.arguments)).toBe(true);
    }
    // Before the trigger the output is complete: EOS may end it.
    const plain = await engine.generate({ prompt: 'Lily', constraint: AllOf(calls, Regex('Hi[.!]?')), sampling: { seed: 1 }, maxTokens: 10 });
    expect(plain.text).toMatch(/^Hi[.!]?$/);
    expect(['eos', 'grammar']).toContain(plain.stopReason);
  });

  it('logprobs: per token under the masked distribution (forced tokens 0), alternatives most likely first', async () => {
    const greedy = await engine.generate({
      prompt: 'Lily',
      constraint: JsonSchema(PARAMETERS.get('get_weather')),
      sampling: { temperature: 0 },
      maxTokens: 40,
      logprobs: 3,
    });
    expect(greedy.logprobs!.length).toBe(greedy.tokens.length);
    greedy.logprobs!.forEach((lp, i) => {
      expect(lp.logprob).toBeLessThanOrEqual(0);
      expect(new TextDecoder().decode(lp.bytes)).toBe(lp.text);
      // Greedy takes the most likely allowed token; the alternatives are in order.
      expect(lp.top[0]!.id).toBe(greedy.tokens[i]);
      expect(lp.top.every((t, j) => j === 0 || t.logprob <= lp.top[j - 1]!.logprob)).toBe(true);
    });
    expect(greedy.logprobs!.filter((lp) => lp.logprob === 0).length).toBeGreaterThanOrEqual(greedy.forcedTokens);
    const completion = await engine.chat.completions.create({
      messages: MESSAGES,
      chatTemplate: TEMPLATE,
      seed: 2,
      max_tokens: 12,
      logprobs: true,
      top_logprobs: 2,
    });
    const content = completion.choices[0]!.logprobs!.content;
    expect(content.length).toBe(completion.usage.completion_tokens);
    expect(content.every((t) => t.top_logprobs.length <= 2 && t.logprob <= 0)).toBe(true);
    expect(content.map((t) => t.token).join('')).toBe(completion.choices[0]!.message.content);
    await expect(engine.generate({ prompt: 'Lily', beams: 2, logprobs: 1 })).rejects.toMatchObject({ path: 'request.logprobs' });
  });

  it('none: text, never calls', async () => {
    const completion = await engine.chat.completions.create({
      messages: MESSAGES,
      chatTemplate: TEMPLATE,
      tools: TOOLS,
      tool_choice: 'none',
      seed: 4,
      max_tokens: 30,
    });
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(typeof completion.choices[0]!.message.content).toBe('string');
  });

  it('refuses a named function that is not among the tools, and malformed tools', async () => {
    await expect(
      engine.chat.completions.create({ messages: MESSAGES, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'sub' } } }),
    ).rejects.toMatchObject({ path: 'request.tool_choice.function.name' });
    await expect(engine.chat.completions.create({ messages: MESSAGES, tools: [{ name: 'add' }] as never })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(engine.chat.completions.create({ messages: MESSAGES, tools: TOOLS, tool_choice: 'sometimes' as never })).rejects.toMatchObject({
      path: 'request.tool_choice',
    });
    for (const tool_choice of ['auto', 'required'] as const) {
      const request = { messages: MESSAGES, tools: TOOLS, tool_choice, response_format: { type: 'json_object' } } as const;
      await expect(engine.chat.completions.create(request)).rejects.toMatchObject({ path: 'request.response_format' });
    }
    // A call asked for with no tool; two tools of one name (a call could take either schema); no tokens.
    for (const tools of [undefined, []])
      for (const tool_choice of ['required', { type: 'function', function: { name: 'add' } }] as const)
        await expect(engine.chat.completions.create({ messages: MESSAGES, ...(tools && { tools }), tool_choice })).rejects.toMatchObject({
          path: 'request.tool_choice',
        });
    await expect(engine.chat.completions.create({ messages: MESSAGES, tools: [...TOOLS, TOOLS[0]!] })).rejects.toMatchObject({
      path: `request.tools[${TOOLS.length}].function.name`,
    });
    await expect(engine.chat.completions.create({ messages: MESSAGES, max_tokens: 0 })).rejects.toMatchObject({ path: 'request.max_tokens' });
  });
});

// An engine whose generations write the given texts.
function scripted(texts: string[], template = '{{ "<tool_call>" }}'): ChatBackend {
  const result = (text: string, stopReason: GenerateResult['stopReason']): GenerateResult => ({
    text,
    tokens: [...text].map((_, i) => i),
    forcedTokens: 0,
    stopReason,
    complete: true,
    healed: '',
    stats: { promptTokens: 5 } as GenerateResult['stats'],
  });
  const next = (request: GenerateRequest): { text: string; stop: GenerateResult['stopReason'] } => {
    void request;
    const text = texts.shift()!;
    return { text, stop: text.endsWith('…') ? 'length' : 'eos' };
  };
  return {
    generate: async (request) => {
      const { text, stop } = next(request);
      return result(text.replace('…', ''), stop);
    },
    stream: (request) =>
      tokenStream(request.signal, async ({ onToken }) => {
        const { text, stop } = next(request);
        const written = text.replace('…', '');
        // Three characters a token.
        for (let i = 0; i < written.length; i += 3)
          onToken({ index: i / 3, token: i, text: written.slice(i, i + 3), delta: written.slice(i, i + 3), forced: false, forwardMs: 0 });
        return result(written, stop);
      }),
    model: () => ({ id: 'scripted', toolCallFormat: toolCallFormatOf(template) }) as ModelInfo,
  };
}

describe('reading an answer with tool calls', () => {
  const call = (name: string, args: object): string =>
    `<tool_call>\n${JSON.stringify({ name, arguments: args }).replace('","arguments":', '", "arguments": ').replace('{"name":', '{"name": ')}\n</tool_call>`;

  it('auto: the text before the calls is the content; the calls parsed', async () => {
    const text = `Let me check.\n${call('get_weather', { city: 'Paris', unit: 'c' })}\n${call('add', { a: 2, b: 3 })}`;
    const completion = await chatCompletions(scripted([text])).create({ messages: MESSAGES, tools: TOOLS });
    const { message, finish_reason } = completion.choices[0]!;
    expect(finish_reason).toBe('tool_calls');
    expect(message.content).toBe('Let me check.');
    expect(message.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_weather', { city: 'Paris', unit: 'c' }],
      ['add', { a: 2, b: 3 }],
    ]);
  });

  it('the arguments are the JSON the model wrote, not read and written again', async () => {
    // (Read, 1e999 was Infinity and came back as null; 1.00000000000000000001 as 1.)
    const args = '{"a": 1e999, "b": 1.00000000000000000001}';
    const text = `<tool_call>\n{"name": "add", "arguments": ${args}}\n</tool_call>`;
    const completion = await chatCompletions(scripted([text])).create({ messages: MESSAGES, tools: TOOLS, tool_choice: 'required' });
    expect(completion.choices[0]!.message.tool_calls!.map((c) => c.function.arguments)).toEqual([args]);
  });

  it('an answer that is calls only is not cut by stop strings, nor a call in auto', async () => {
    const requests: GenerateRequest[] = [];
    const backend = scripted([call('add', { a: 1, b: 2 }), 'Sunny.']);
    const generate = backend.generate;
    backend.generate = (request) => (requests.push(request), generate(request));
    await chatCompletions(backend).create({ messages: MESSAGES, tools: TOOLS, tool_choice: 'required', stop: ['}'] });
    await chatCompletions(backend).create({ messages: MESSAGES, tools: TOOLS, stop: ['}'] });
    expect(requests.map((r) => [r.stop, r.stopBefore])).toEqual([
      [[], undefined],
      [['}'], '<tool_call>'],
    ]);
  });

  it('auto without a call: text and stop; cut short in a call: the whole calls, and length', async () => {
    const [plain, cut] = await Promise.all([
      chatCompletions(scripted(['Sunny.'])).create({ messages: MESSAGES, tools: TOOLS }),
      chatCompletions(scripted([`${call('add', { a: 1, b: 2 })}\n<tool_call>\n{"name": "add", "argu…`])).create({ messages: MESSAGES, tools: TOOLS }),
    ]);
    expect(plain.choices[0]).toMatchObject({ message: { content: 'Sunny.' }, finish_reason: 'stop' });
    expect(plain.choices[0]!.message.tool_calls).toBeUndefined();
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.choices[0]!.message.tool_calls!.map((c) => c.function.name)).toEqual(['add']);
  });

  it('streamed: the text before the trigger in chunks (never the trigger), then the calls whole', async () => {
    const text = `Checking the weather now.\n${call('get_weather', { city: 'Oslo', unit: 'f' })}`;
    const stream = await chatCompletions(scripted([text])).create({ messages: MESSAGES, tools: TOOLS, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    // (The same content as without streaming: the spaces before the calls are not in it.)
    expect(content).toBe('Checking the weather now.');
    expect(content).not.toContain('<');
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls.map((c) => [c.index, c.function.name])).toEqual([[0, 'get_weather']]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('the format follows the chat template: markers, or Llama 3 bare objects with parameters', () => {
    expect(toolCallFormatOf('... <tool_call> ...')).toMatchObject({ open: '<tool_call>\n', argumentsKey: 'arguments' });
    expect(toolCallFormatOf('Respond in the format {"name": function name, "parameters": dictionary}')).toMatchObject({ open: '', argumentsKey: 'parameters' });
    expect(toolCallFormatOf(undefined)).toMatchObject({ open: '<tool_call>\n' });
  });
});
