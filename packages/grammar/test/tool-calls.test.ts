// Tool calls as a grammar: the calls a model may write, exactly — the markers, the tool names,
// and each tool's arguments against its own JSON Schema (embedded, not relaxed).
import { describe, expect, it } from 'vitest';
import { compileGrammar, recognize, toolCallsGrammar, type ToolCallFormat } from '../src/index.ts';

const HERMES: ToolCallFormat = { open: '<tool_call>\n', close: '\n</tool_call>', between: '\n', argumentsKey: 'arguments' };
const TOOLS = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 20 }, unit: { enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'add',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'], additionalProperties: false },
  },
];
const whole = (text: string, grammar: ReturnType<typeof compileGrammar>): boolean => {
  const r = recognize(grammar, new TextEncoder().encode(text));
  return r.accepted && r.complete;
};
const call = (name: string, args: string, format = HERMES): string =>
  `${format.open}{"name": ${JSON.stringify(name)}, ${JSON.stringify(format.argumentsKey)}: ${args}}${format.close}`;

describe('tool calls grammar', () => {
  const parallel = compileGrammar(toolCallsGrammar(TOOLS, HERMES, { schemaOptions: { whitespace: { separators: { item: ', ', key: ': ' } } } }));

  it.each([
    ['one call', call('get_weather', '{"city": "Paris"}'), true],
    ['all arguments', call('get_weather', '{"city": "Oslo", "unit": "c"}'), true],
    ['parallel calls', call('add', '{"a": 1, "b": 2}') + '\n' + call('get_weather', '{"city": "Rome"}'), true],
    ['an unknown tool', call('sub', '{"a": 1, "b": 2}'), false],
    ['arguments of the other tool', call('add', '{"city": "Paris"}'), false],
    ['a missing required argument', call('add', '{"a": 1}'), false],
    ['a fraction for an integer', call('add', '{"a": 1.5, "b": 2}'), false],
    ['an enum value out of it', call('get_weather', '{"city": "Paris", "unit": "k"}'), false],
    ['too long a string', call('get_weather', `{"city": "${'x'.repeat(21)}"}`), false],
    ['no markers', '{"name": "add", "arguments": {"a": 1, "b": 2}}', false],
    ['nothing', '', false],
  ])('%s', (_, text, accepted) => {
    expect(whole(text, parallel)).toBe(accepted);
  });

  it('one call only unless parallel', () => {
    const single = compileGrammar(toolCallsGrammar(TOOLS, HERMES, { parallel: false }));
    expect(whole(call('add', '{"a":1,"b":2}'), single)).toBe(true);
    expect(whole(call('add', '{"a":1,"b":2}') + '\n' + call('add', '{"a":1,"b":2}'), single)).toBe(false);
  });

  it('after a trigger: what follows text that already opened the first call', () => {
    const after = compileGrammar(toolCallsGrammar(TOOLS, HERMES, { after: '<tool_call>' }));
    const text = call('add', '{"a":1,"b":2}');
    expect(whole(text.slice('<tool_call>'.length), after)).toBe(true);
    expect(whole(text, after)).toBe(false);
    expect(() => toolCallsGrammar(TOOLS, HERMES, { after: '<tool' + 'x' })).toThrow(RangeError);
  });

  it('a bare JSON format with another arguments key (Llama 3)', () => {
    const llama: ToolCallFormat = { open: '', close: '', between: '; ', argumentsKey: 'parameters' };
    const grammar = compileGrammar(toolCallsGrammar(TOOLS, llama, { after: '{"name": ' }));
    expect(whole('"add", "parameters": {"a":1,"b":2}}; {"name": "add", "parameters": {"a":3,"b":4}}', grammar)).toBe(true);
    expect(whole('"add", "arguments": {"a":1,"b":2}}', grammar)).toBe(false);
  });
});
