// Repetition caps (`repetition` in JsonSchemaOptions, and of any-JSON): arrays, objects and
// strings the schema leaves unbounded get at most the cap; a smaller bound of the schema wins,
// and a cap never drops below what the schema requires.
import { describe, expect, it } from 'vitest';
import { compileGrammar, jsonGrammar, type JsonRepetition } from '../src/index.ts';
import { accepts, compileSchema } from './support/json-schema-oracle.ts';

const caps: JsonRepetition = { maxItems: 3, maxProperties: 2, maxStringLength: 4 };
const array = (n: number): string => JSON.stringify(Array.from({ length: n }, (_, i) => i));
const object = (n: number): string => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));

describe('repetition caps', () => {
  it('cap unbounded arrays, objects and strings of a schema', () => {
    const grammar = compileSchema(
      { type: 'object', properties: { list: { type: 'array', items: { type: 'integer' } }, name: { type: 'string' }, extra: { type: 'object' } } },
      { repetition: caps },
    );
    expect(accepts(grammar, `{"list":${array(3)}}`)).toBe(true);
    expect(accepts(grammar, `{"list":${array(4)}}`)).toBe(false);
    expect(accepts(grammar, '{"name":"abcd"}')).toBe(true);
    expect(accepts(grammar, '{"name":"abcde"}')).toBe(false);
    expect(accepts(grammar, `{"extra":${object(2)}}`)).toBe(true);
    expect(accepts(grammar, `{"extra":${object(3)}}`)).toBe(false);
    // Keys of undeclared members are strings too.
    expect(accepts(grammar, '{"extra":{"abcd":1}}')).toBe(true);
    expect(accepts(grammar, '{"extra":{"abcde":1}}')).toBe(false);
    // Without caps, the schema's language.
    const open = compileSchema({ type: 'array', items: { type: 'string' } });
    expect(accepts(open, JSON.stringify(Array.from({ length: 50 }, () => 'a long string, longer than four')))).toBe(true);
  });

  it('leave smaller bounds of the schema alone and never go below what it requires', () => {
    const grammar = compileSchema(
      {
        type: 'object',
        properties: {
          short: { type: 'array', maxItems: 2 },
          long: { type: 'array', minItems: 5, items: { type: 'integer' } },
          word: { type: 'string', minLength: 6, pattern: '^[a-z]+$' },
          many: { type: 'object', required: ['a', 'b', 'c'] },
        },
      },
      { repetition: caps },
    );
    expect(accepts(grammar, `{"short":${array(2)}}`)).toBe(true);
    expect(accepts(grammar, `{"short":${array(3)}}`)).toBe(false);
    expect(accepts(grammar, `{"long":${array(5)}}`)).toBe(true);
    expect(accepts(grammar, `{"long":${array(6)}}`)).toBe(false);
    expect(accepts(grammar, '{"word":"abcdef"}')).toBe(true);
    expect(accepts(grammar, '{"word":"abcdefg"}')).toBe(false);
    expect(accepts(grammar, '{"many":{"a":1,"b":2,"c":3}}')).toBe(true);
    expect(accepts(grammar, '{"many":{"a":1,"b":2,"c":3,"d":4}}')).toBe(false);
  });

  it('cap any JSON at every level, and any value inside a schema', () => {
    const any = compileGrammar(jsonGrammar({}, caps));
    expect(accepts(any, '[[1,2,3],{"a":"abcd","b":[]},"x"]')).toBe(true);
    expect(accepts(any, '[[1,2,3,4]]')).toBe(false);
    expect(accepts(any, '{"a":{"b":1,"c":2,"d":3}}')).toBe(false);
    expect(accepts(any, '["abcde"]')).toBe(false);
    const inside = compileSchema({ type: 'object', properties: { data: true } }, { repetition: caps });
    expect(accepts(inside, '{"data":[1,2,3]}')).toBe(true);
    expect(accepts(inside, '{"data":[1,2,3,4]}')).toBe(false);
  });

  it('refuse caps that are not non-negative integers', () => {
    expect(() => compileSchema({ type: 'array' }, { repetition: { maxItems: -1 } })).toThrow(RangeError);
    expect(() => jsonGrammar({}, { maxStringLength: 1.5 })).toThrow(/repetition.maxStringLength/);
  });
});
