// The request checks the engine runs before any work (in-thread and in its worker).
import { describe, expect, it } from 'vitest';
import { recognize } from '@sieve/grammar';
import { AllOf, JsonSchema, Lark, Regex, ThinkThen } from '../src/constraint-specs.ts';
import { Grammar } from '../src/constraints.ts';
import { InvalidRequestError } from '../src/errors.ts';
import { checkChatRequest } from '../src/chat-completions.ts';
import { checkConstraint, checkGenerateRequest, checkGrammarSpec, checkLoadOptions } from '../src/requests.ts';

function pathOf(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toBeInstanceOf(TypeError);
    return (error as InvalidRequestError).path;
  }
}

describe('request checks', () => {
  it('accept what the README shows', () => {
    expect(
      pathOf(() =>
        checkGenerateRequest({
          prompt: 'x',
          constraint: AllOf(JsonSchema({ type: 'object' }), Regex('a+')),
          sampling: { temperature: 0, seed: 1, logitBias: { 5: -Infinity } },
          maxTokens: 10,
          stop: ['\n'],
          onToken: () => undefined,
          signal: new AbortController().signal,
        }),
      ),
    ).toBe(null);
    expect(
      pathOf(() => checkGenerateRequest({ messages: [{ role: 'user', content: 'hi' }], constraint: ThinkThen('</think>', { type: 'grammar', id: 3 }) })),
    ).toBe(null);
    expect(
      pathOf(() =>
        checkChatRequest(
          {
            model: 'm',
            messages: [{ role: 'user', content: 'hi' }],
            response_format: { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object' }, strict: true } },
            stop: '\n',
          },
          'request',
        ),
      ),
    ).toBe(null);
    expect(
      pathOf(() => checkLoadOptions({ model: '/models/x', device: 'wasm', dtype: 'fp32', vocab: new Uint8Array(4), limits: { maxMaskMs: 100 } }, 'options')),
    ).toBe(null);
    // A custom step() constraint and a compiled grammar object pass as they are.
    expect(pathOf(() => checkConstraint({ step: () => new Uint32Array() }, 'c'))).toBe(null);
  });

  it('name the path of the first wrong value', () => {
    expect(pathOf(() => checkGenerateRequest('hello'))).toBe('request');
    expect(pathOf(() => checkGenerateRequest({ prompt: 'x', maxTokens: 1.5 }))).toBe('request.maxTokens');
    expect(pathOf(() => checkGenerateRequest({ prompt: 'x', stop: ['a', 3] }))).toBe('request.stop[1]');
    expect(pathOf(() => checkGenerateRequest({ messages: [{ role: 'user' }] }))).toBe('request.messages[0].content');
    expect(pathOf(() => checkGenerateRequest({ prompt: 'x', constraint: { type: 'ban-tokens', tokens: [1, -2] } }))).toBe('request.constraint.tokens[1]');
    expect(pathOf(() => checkGenerateRequest({ prompt: 'x', constraint: { type: 'think', trigger: '', then: Regex('a') } }))).toBe(
      'request.constraint.trigger',
    );
    expect(pathOf(() => checkGenerateRequest({ prompt: 'x', constraint: JsonSchema({}, { whitespace: { maxRun: 0 } }) }))).toBe(
      'request.constraint.options.whitespace.maxRun',
    );
    expect(pathOf(() => checkGrammarSpec({ type: 'json-schema', schema: 'not a schema' }, 'spec'))).toBe('spec.schema');
    expect(pathOf(() => checkGrammarSpec({ type: 'regex', grammar: 'a', index: [1, 2] }, 'spec'))).toBe('spec.index');
    expect(pathOf(() => checkGrammarSpec({ type: 'regex', grammar: 'a', flags: 1 }, 'spec'))).toBe('spec.flags');
    expect(pathOf(() => checkGrammarSpec(JsonSchema({ format: 'email' }, { formats: 'annotate' }), 'spec'))).toBeNull();
    expect(pathOf(() => checkGrammarSpec({ type: 'json-schema', schema: {}, options: { formats: 'ignore' } }, 'spec'))).toBe('spec.options.formats');
    expect(pathOf(() => checkGrammarSpec({ type: 'lark', grammar: 'start: "a"', flags: 'u' }, 'spec'))).toBe('spec.flags');
    expect(pathOf(() => checkLoadOptions({ model: '' }, 'options'))).toBe('options.model');
    expect(pathOf(() => checkLoadOptions({ model: 'm', limits: { maxLexerState: 5 } }, 'options'))).toBe('options.limits.maxLexerState');
    expect(pathOf(() => checkChatRequest({ messages: [], response_format: { type: 'json' } }, 'request'))).toBe('request.response_format.type');
    // Tool calls need a tool, and `after` must start a call (both were plain RangeErrors from the compiler).
    const format = { open: '<tool_call>\n', close: '\n</tool_call>', between: '\n', argumentsKey: 'arguments' };
    expect(pathOf(() => checkGrammarSpec({ type: 'tool-calls', tools: [], format }, 'spec'))).toBe('spec.tools');
    expect(pathOf(() => checkGrammarSpec({ type: 'tool-calls', tools: [{ name: 'f', parameters: {} }], format, after: 'zz' }, 'spec'))).toBe('spec.after');
    expect(pathOf(() => checkGrammarSpec({ type: 'tool-calls', tools: [{ name: 'f', parameters: {} }], format, after: '<tool' }, 'spec'))).toBeNull();
  });

  it('refuse constraints nested without end', () => {
    let deep: unknown = Regex('a');
    for (let i = 0; i < 40; i++) deep = ThinkThen('x', deep as never);
    expect(pathOf(() => checkConstraint(deep, 'c'))).toMatch(/^c(\.then)+$/);
  });
});

describe('grammar specs compile as generation reads them', () => {
  const complete = (grammar: Grammar, text: string): boolean => {
    const result = recognize(grammar.compiled, new TextEncoder().encode(text));
    return result.accepted && result.complete;
  };

  it('a regex takes RegExp flags (u for \\p{L} and astral characters)', () => {
    expect(checkGrammarSpec(Regex('\\p{L}+😀', 'u'), 'spec')).toBeUndefined();
    const grammar = new Grammar(Regex('\\p{L}+😀', 'u') as never);
    expect(complete(grammar, 'éa😀')).toBe(true);
    expect(complete(grammar, '1😀')).toBe(false);
    expect(() => new Grammar(Regex('\\p{L}+') as never)).toThrow(/u flag/);
  });

  it("a Lark grammar's %json integers are written without a fraction, so one ends before a '.'", () => {
    const grammar = new Grammar(Lark('start: "n=" %json {"type": "integer"} "."\n') as never);
    expect(complete(grammar, 'n=12.')).toBe(true);
    expect(complete(grammar, 'n=12.0.')).toBe(false);
  });
});
