// uniqueItems over items from a finite set of values: the grammar over sets of values used
// (src/frontends/json-schema/unique-items.ts) against ajv, on arrays drawn from the values
// the items allow plus a few they do not, with repeats, in every order, and with other
// spellings of equal values (1 and 1.0 anywhere in an item).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accepts, compileSchema, jsonTexts, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';

// Arrays of up to `max` items from `pool` (repeats likely, as the pool is small).
const arraysOf = (pool: readonly unknown[], max: number): fc.Arbitrary<unknown[]> => fc.array(fc.constantFrom(...pool), { maxLength: max });

// A value's texts: the serializers', and with every integer written with a zero fraction.
function spellings(value: unknown): string[] {
  const spell = (v: unknown): string => {
    if (typeof v === 'number' && Number.isInteger(v)) return `${v}.0`;
    if (Array.isArray(v)) return `[${v.map(spell).join(',')}]`;
    if (v !== null && typeof v === 'object')
      return `{${Object.entries(v)
        .map(([k, x]) => `${JSON.stringify(k)}:${spell(x)}`)
        .join(',')}}`;
    return JSON.stringify(v);
  };
  return [...jsonTexts(value, false), spell(value)];
}

const CASES: { name: string; schema: Record<string, unknown>; pool: unknown[]; max: number }[] = [
  {
    name: 'enum of strings, maxItems 3 (the real case)',
    schema: { type: 'array', items: { enum: ['work', 'home', 'urgent'] }, uniqueItems: true, maxItems: 3 },
    pool: ['work', 'home', 'urgent', 'other'],
    max: 5,
  },
  {
    name: 'enum with minItems, no maxItems',
    schema: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e'] }, uniqueItems: true, minItems: 2 },
    pool: ['a', 'b', 'c', 'd', 'e', 'f'],
    max: 7,
  },
  {
    name: 'booleans and null',
    schema: { type: 'array', items: { type: ['boolean', 'null'] }, uniqueItems: true },
    pool: [true, false, null, 0],
    max: 4,
  },
  {
    name: 'a small integer range (1 and 1.0 are equal)',
    schema: { type: 'array', items: { type: 'integer', minimum: -1, exclusiveMaximum: 4 }, uniqueItems: true, maxItems: 4 },
    pool: [-2, -1, 0, 1, 2, 3, 4, 1.5],
    max: 6,
  },
  {
    name: 'a union of finite sets, one value filtered out by a sibling',
    schema: { type: 'array', items: { anyOf: [{ enum: [1, 2, 'x'] }, { type: 'boolean' }], not: { const: 2 } }, uniqueItems: true },
    pool: [1, 2, 'x', true, false, 'y'],
    max: 6,
  },
  {
    name: 'object and array values compared by value',
    schema: { type: 'array', items: { enum: [{ a: 1, b: [1, 2] }, [1, 2], [2, 1], { a: 1 }] }, uniqueItems: true },
    pool: [{ a: 1, b: [1, 2] }, [1, 2], [2, 1], { a: 1 }, { a: 2 }],
    max: 5,
  },
  {
    name: 'prefixItems then the rest, unique across both',
    schema: { type: 'array', prefixItems: [{ enum: ['x', 'y'] }, { const: 'z' }], items: { enum: ['x', 'y', 'z', 'w'] }, uniqueItems: true },
    pool: ['x', 'y', 'z', 'w', 'v'],
    max: 5,
  },
  {
    name: 'draft-4 items list with additionalItems false',
    schema: { type: 'array', items: [{ type: 'boolean' }, { type: 'boolean' }], additionalItems: false, uniqueItems: true, minItems: 1 },
    pool: [true, false, null],
    max: 3,
  },
];

describe('uniqueItems over finitely many values', () => {
  it.each(CASES)('$name: accepted iff ajv accepts', ({ schema, pool, max }) => {
    expectAgreement(schema, arraysOf(pool, max), { numRuns: 300, seed: 11, texts: spellings });
  });

  it('with compact whitespace too', () => {
    const schema = CASES[0]!.schema;
    expectAgreement(schema, arraysOf(CASES[0]!.pool, 4), {
      numRuns: 100,
      seed: 12,
      options: { whitespace: { style: 'compact' } },
      texts: (v) => [JSON.stringify(v)],
    });
  });

  it('equal values in other spellings are repeats', () => {
    const grammar = compileSchema({ type: 'array', items: { enum: [1, 'a', { p: 1, q: 2 }] }, uniqueItems: true });
    expect(accepts(grammar, '[1, "a", {"p": 1, "q": 2}]')).toBe(true);
    expect(['[1, 1.0]', '[1.00, 1]', '["a", "\\u0061"]', '[{"p": 1, "q": 2}, {"p": 1.0, "q": 2}]'].filter((t) => accepts(grammar, t))).toEqual([]);
  });

  it('more sets than the cap, or infinitely many values, are refused with the cap named (unless strings the matcher keeps distinct)', () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => i);
    for (const schema of [
      { type: 'array', items: { enum: thirteen }, uniqueItems: true },
      { type: 'array', items: { enum: [...thirteen, 'v'] }, uniqueItems: true },
      { type: 'array', items: { type: 'integer', minimum: 0, maximum: 1000 }, uniqueItems: true, minItems: 2 },
    ]) {
      expect(schemaErrorOf(schema)).toMatchObject({ code: 'unsupported', pointer: '', keyword: 'uniqueItems', message: expect.stringContaining('4096 sets') });
    }
    // Thirteen values with maxItems 3 reach few sets: compiled. Strings and numbers past the
    // cap are kept distinct while matching where one item is asked for at most
    // (unique-strings.test.ts, unique-numbers.test.ts).
    expect(schemaErrorOf({ type: 'array', items: { enum: thirteen }, uniqueItems: true, maxItems: 3 })).toBeUndefined();
    for (const items of [{ enum: thirteen.map((i) => `v${i}`) }, { type: 'string', maxLength: 8 }, { type: 'integer', minimum: 0, maximum: 1000 }]) {
      expect(schemaErrorOf({ type: 'array', items, uniqueItems: true }), JSON.stringify(items)).toBeUndefined();
    }
  });
});
