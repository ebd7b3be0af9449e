// Zod schemas through their JSON Schema export: for each schema, zod's own `safeParse` is the
// oracle, and the grammar must accept the JSON text (compact and indented) of exactly the
// values it accepts. What the export cannot carry must fail with a SchemaError instead.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isZodSchema, jsonSchemaOf, SchemaError, schemaFromZod, type CompiledGrammar } from '../src/index.ts';
import { accepts, compileSchema } from './support/json-schema-oracle.ts';

// Numbers as a model writes them. (JSON.stringify of a tiny double uses an exponent, which the
// compiler's bounded number ranges do not take yet.)
const decimal = fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 100);

// A zod schema's grammar, through zod's own JSON Schema export.
const compileZod = (schema: z.ZodType): CompiledGrammar => compileSchema(jsonSchemaOf(schema));

// Asserts the grammar agrees with safeParse on `value`, written compact and indented.
function expectAgrees(grammar: CompiledGrammar, schema: z.ZodType, value: unknown): void {
  const valid = schema.safeParse(value).success;
  for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
    expect(accepts(grammar, text), `${text} (zod: ${valid ? 'valid' : 'invalid'})`).toBe(valid);
  }
}

interface Case {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
  /** Random values near the schema, checked against safeParse. */
  readonly near?: fc.Arbitrary<unknown>;
}

const cases: readonly Case[] = [
  {
    name: 'object with optional and defaulted fields',
    schema: z.object({ name: z.string(), age: z.number().int().optional(), nick: z.string().default('x') }),
    valid: [{ name: 'a' }, { name: 'a', age: 3 }, { name: '', age: -1, nick: 'n' }, { name: 'a', extra: [1] }],
    invalid: [{}, { age: 3 }, { name: 'a', age: 3.5 }, { name: 'a', nick: null }, { name: 1 }, [], 'a', null],
    near: fc.record(
      { name: fc.oneof(fc.string(), fc.integer()), age: fc.oneof(fc.integer(), decimal, fc.constant(null)), nick: fc.oneof(fc.string(), fc.constant(null)) },
      { requiredKeys: [] },
    ),
  },
  {
    name: 'strict object',
    schema: z.strictObject({ on: z.boolean() }),
    valid: [{ on: true }, { on: false }],
    invalid: [{ on: true, off: false }, {}, { on: 'true' }, true],
  },
  {
    name: 'enum',
    schema: z.enum(['red', 'green', 'blue']),
    valid: ['red', 'green', 'blue'],
    invalid: ['Red', 'gree', 'redd', '', 0, null, ['red']],
    near: fc.constantFrom('red', 'green', 'blue', 'Red', 're', 'reds', 'gren', ''),
  },
  {
    name: 'union of a short string, a non-negative number and null',
    schema: z.union([z.string().min(2), z.number().nonnegative(), z.null()]),
    valid: ['ab', 'abc', 0, 0.5, 12, null],
    invalid: ['a', '', -1, -0.5, true, {}, []],
    near: fc.oneof(fc.string({ maxLength: 3 }), decimal, fc.integer(), fc.constant(null), fc.boolean()),
  },
  {
    name: 'discriminated union',
    schema: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('circle'), r: z.number().positive() }),
      z.object({ kind: z.literal('square'), side: z.number() }),
    ]),
    valid: [
      { kind: 'circle', r: 1 },
      { kind: 'square', side: -2 },
      { kind: 'square', side: 0.5 },
    ],
    invalid: [{ kind: 'circle', r: 0 }, { kind: 'circle', side: 1 }, { kind: 'triangle', r: 1 }, { r: 1 }],
  },
  {
    name: 'array with min and max',
    schema: z.array(z.number().int()).min(2).max(4),
    valid: [
      [1, 2],
      [0, -1, 2],
      [1, 2, 3, 4],
    ],
    invalid: [[], [1], [1, 2, 3, 4, 5], [1, 2.5], [1, '2'], { 0: 1, 1: 2 }],
    near: fc.array(fc.oneof(fc.integer(), decimal), { maxLength: 6 }),
  },
  {
    name: 'string regex',
    schema: z.string().regex(/^[a-z]+-\d{2}$/),
    valid: ['ab-12', 'z-00'],
    invalid: ['ab-1', 'ab-123', 'AB-12', '-12', 'ab12', 'ab-12\n', 12],
    near: fc.stringMatching(/^[a-zA-Z]{0,2}-?\d{1,3}$/),
  },
  {
    name: 'integer range',
    schema: z.int().gte(-5).lt(100),
    valid: [-5, 0, 42, 99],
    invalid: [-6, 100, 1000, 3.5, -5.5, '7', null],
    near: fc.oneof(fc.integer({ min: -20, max: 120 }), decimal),
  },
  {
    name: 'nested objects, formats, records, tuples',
    schema: z.object({
      user: z.object({ id: z.uuid(), email: z.email(), tags: z.array(z.enum(['a', 'b'])).max(2) }),
      scores: z.record(z.string(), z.number().min(0).max(1)),
      at: z.tuple([z.number(), z.number()]).nullable(),
    }),
    valid: [
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: [] }, scores: {}, at: null },
      { user: { id: '123E4567-E89B-42D3-A456-426614174000', email: 'a.b@c.io', tags: ['a', 'b'] }, scores: { x: 0, y: 1, z: 0.25 }, at: [1, -2.5] },
    ],
    invalid: [
      { user: { id: 'not-a-uuid', email: 'ann@example.com', tags: [] }, scores: {}, at: null },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@', tags: [] }, scores: {}, at: null },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: ['a', 'b', 'a'] }, scores: {}, at: null },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: ['c'] }, scores: {}, at: null },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: [] }, scores: { x: 2 }, at: null },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: [] }, scores: {}, at: [1] },
      { user: { id: '123e4567-e89b-12d3-a456-426614174000', email: 'ann@example.com', tags: [] }, scores: {} },
    ],
  },
  {
    name: 'recursive (z.lazy)',
    schema: (() => {
      const tree: z.ZodType<unknown> = z.object({ v: z.int(), kids: z.array(z.lazy(() => tree)) });
      return tree;
    })(),
    valid: [
      { v: 1, kids: [] },
      { v: 1, kids: [{ v: 2, kids: [{ v: 3, kids: [] }] }] },
    ],
    invalid: [{ v: 1 }, { v: 1, kids: [{ v: 2 }] }, { v: 1, kids: [{ v: 2.5, kids: [] }] }],
  },
  {
    name: 'string lengths in code points (as zod 4.6 counts them)',
    schema: z.string().min(2).max(4),
    valid: ['ab', 'abcd', '日本語', '😀😀', 'é😀x'],
    invalid: ['a', 'abcde', '😀', '😀😀😀😀😀', ''],
    near: fc.string({ unit: fc.constantFrom('a', 'é', '日', '😀'), maxLength: 5 }),
  },
];

describe.each(cases)('$name', ({ schema, valid, invalid }) => {
  const grammar = compileZod(schema);

  it('zod agrees with the listed verdicts', () => {
    for (const value of valid) expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true);
    for (const value of invalid) expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(false);
  });

  it('accepts the JSON of what zod accepts and rejects the rest', () => {
    for (const value of [...valid, ...invalid]) expectAgrees(grammar, schema, value);
  });
});

describe.each(cases.filter((c) => c.near !== undefined))('$name', ({ schema, near }) => {
  it('agrees with safeParse on random nearby values', () => {
    const grammar = compileZod(schema);
    fc.assert(
      fc.property(near!, (value) => expectAgrees(grammar, schema, value)),
      { seed: 1, numRuns: 200 },
    );
  });
});

describe('where zod and JSON Schema read a string differently, the grammar stays inside zod', () => {
  it('limits a regex without the u flag to the Basic Multilingual Plane (zod matches it by UTF-16 unit)', () => {
    const schema = z.string().regex(/^.$/);
    const grammar = compileZod(schema);
    expect(schema.safeParse('😀').success).toBe(false);
    expect(accepts(grammar, '"😀"')).toBe(false);
    expect(accepts(grammar, '"é"')).toBe(true);
    const unicode = z.string().regex(/^.$/u);
    expect(unicode.safeParse('😀').success).toBe(true);
    expect(accepts(compileZod(unicode), '"😀"')).toBe(true);
  });

  it('drops the format zod writes beside its pattern: the pattern is the whole check', () => {
    expect(schemaFromZod(z.email())).not.toHaveProperty('format');
    expect(schemaFromZod(z.string().lowercase())).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', pattern: '^[^A-Z]*$' });
  });
});

describe('zod constructs the grammar cannot enforce', () => {
  const tomorrow = (s: string): boolean => s > '2000';
  it.each([
    ['a date', z.object({ when: z.date() }), '/properties/when', 'date'],
    ['a bigint', z.object({ n: z.bigint() }), '/properties/n', 'bigint'],
    ['a transform', z.object({ n: z.string().transform((s) => s.length) }), '/properties/n', 'transform'],
    ['a preprocess', z.preprocess((v) => String(v), z.string()), '', 'preprocess'],
    ['a pipe', z.array(z.string().pipe(z.string().min(3))), '/items', 'pipe'],
    ['a codec', z.stringbool(), '', 'codec'],
    ['a refinement', z.object({ day: z.string().refine(tomorrow) }), '/properties/day', 'refine'],
    ['a refinement on an object', z.object({ a: z.number(), b: z.number() }).refine((o) => o.a < o.b), '', 'refine'],
    ['a value rewrite', z.string().trim().max(3), '', 'overwrite'],
    ['a regex flag', z.string().regex(/^abc$/i), '', 'pattern'],
    ['a URL (checked by parsing, not by a pattern)', z.url(), '', 'format'],
    ['a custom string format', z.stringFormat('even', (s) => s.length % 2 === 0), '', 'format'],
  ] as const)('refuses %s', (_, schema, pointer, keyword) => {
    let error: unknown;
    try {
      jsonSchemaOf(schema);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SchemaError);
    expect(error).toMatchObject({ code: 'unsupported', pointer, keyword });
  });
});

describe('jsonSchemaOf', () => {
  it('passes JSON Schemas through and recognises zod schemas', () => {
    const schema = { type: 'string' };
    expect(jsonSchemaOf(schema)).toBe(schema);
    expect(isZodSchema(schema)).toBe(false);
    expect(isZodSchema(z.string())).toBe(true);
    expect(jsonSchemaOf(z.string())).toMatchObject({ type: 'string' });
  });

  it('refuses a zod 3 schema rather than compiling it as an empty JSON Schema', () => {
    const zod3Like = { _def: { typeName: 'ZodString' }, safeParse: () => ({ success: true }) };
    expect(() => jsonSchemaOf(zod3Like)).toThrow(SchemaError);
  });
});
