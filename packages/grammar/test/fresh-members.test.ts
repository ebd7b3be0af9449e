// Objects that always take one more member of a fresh name (src/frontends/json-schema/
// fresh-members.ts), which lets the matcher keep a unique array's object items distinct by
// refusing only the `}` that would repeat one. The claim is checked against ajv: every object
// ajv accepts, from names and values the schema speaks of, is still accepted with a fresh
// member; and where the analysis says no, a listed object shows why. Then the arrays: their
// masks against the oracle of unique-walks, and the schemas whose items could get stuck
// (found by a check of the branches one by one before) refused.
import { loadKernel, type Kernel } from '@sieve/kernel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesFreshMember } from '../src/frontends/json-schema/fresh-members.ts';
import { SchemaCompiler } from '../src/frontends/json-schema/schema-compiler.ts';
import { Matcher } from '../src/index.ts';
import { ajvValidator, compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { walkAgainstOracle } from './support/unique-walks.ts';

const takes = (schema: Record<string, unknown>, options = {}): boolean => takesFreshMember(new SchemaCompiler(schema, options, 50_000), schema, '');

// Objects from the names the schemas use and a few values.
const NAMES = ['a', 'b', 'f', 'r', 'x-1', 'webpack'];
const objects = fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom<unknown>(1, 'x', false, null, [], {}), { maxKeys: 4 });

// Each with its objects that lose their validity with a fresh member, where there are some,
// and the fresh name to try (one no pattern matches, or one a pattern the analysis picks does).
const CASES: { name: string; schema: Record<string, unknown>; takes: boolean; losing?: Record<string, unknown>; fresh?: string }[] = [
  {
    name: 'declared members, required ones, minProperties',
    schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], minProperties: 1 },
    takes: true,
  },
  {
    name: 'a condition a fresh name settles (propertyNames of a list) with then: false',
    schema: {
      type: 'object',
      allOf: [
        {
          if: { propertyNames: { enum: ['f', 'r'] }, minProperties: 2 },
          then: false,
          else: { oneOf: [{ required: ['f'] }, { required: ['r'] }] },
        },
      ],
    },
    takes: true,
  },
  {
    name: 'a condition on a declared member (not of a const), then a declared member',
    schema: { type: 'object', if: { not: { properties: { webpack: { enum: [false] } } } }, then: { properties: { b: { type: 'string' } } } },
    takes: true,
  },
  {
    name: 'patterns that leave names free, anyOf of required',
    schema: { patternProperties: { '^x-': { type: 'integer' } }, anyOf: [{ required: ['a'] }, { required: ['b'] }] },
    takes: true,
  },
  { name: 'not of a maximum count (a minimum)', schema: { not: { maxProperties: 1 } }, takes: true },
  {
    name: 'oneOf whose branch a member completes',
    schema: { oneOf: [{ required: ['a'], minProperties: 1 }, { minProperties: 2 }] },
    takes: false,
    losing: { a: 1 },
  },
  { name: 'a condition on the count', schema: { if: { minProperties: 2 }, then: false }, takes: false, losing: { a: 1 } },
  { name: 'maxProperties', schema: { maxProperties: 1 }, takes: false, losing: { a: 1 } },
  { name: 'not of minProperties', schema: { not: { minProperties: 2 } }, takes: false, losing: { a: 1 } },
  { name: 'closed', schema: { properties: { a: {} }, additionalProperties: false }, takes: false, losing: { a: 1 } },
  { name: 'names from a list', schema: { propertyNames: { enum: ['a', 'b'] } }, takes: false, losing: { a: 1 } },
  { name: 'no name at all', schema: { propertyNames: false }, takes: false, losing: {} },
  { name: 'any name', schema: { propertyNames: true, required: ['a'] }, takes: true },
  { name: 'a constant object', schema: { enum: [{ a: 1 }, 3] }, takes: false, losing: { a: 1 } },
  { name: 'patterns that take every name, none allowed', schema: { patternProperties: { '': false } }, takes: false, losing: {} },
  { name: 'a pattern that leaves names free, none allowed', schema: { patternProperties: { '^x-': false } }, takes: true },
  { name: 'additional members of a schema some value passes', schema: { additionalProperties: { type: 'string' } }, takes: true },
  {
    name: 'additional members of schemas no value passes together',
    schema: { allOf: [{ additionalProperties: { type: 'string' } }, { additionalProperties: { type: 'number' } }] },
    takes: false,
    losing: {},
  },
  {
    name: 'additional members of a schema no value passes',
    schema: { additionalProperties: { type: 'string', minLength: 3, maxLength: 2 } },
    takes: false,
    losing: {},
  },
  {
    name: 'a branch that speaks of strings only holds for every object (conjure: UpperCase or a closed object)',
    schema: { anyOf: [{ pattern: '^[A-Z]+$' }, { type: 'object', properties: { a: {} }, additionalProperties: false }] },
    takes: true,
  },
  {
    name: 'closed but for a pattern (compose-spec: x- names)',
    schema: { properties: { a: {} }, additionalProperties: false, patternProperties: { '^x-': {} } },
    takes: true,
    fresh: 'x-fresh',
  },
  {
    name: 'closed but for a pattern of strings, and one inside it of none',
    schema: { additionalProperties: false, patternProperties: { '^x-': { type: 'string' }, '^x-y': false } },
    takes: true,
    fresh: 'x-fresh',
  },
  { name: 'closed but for a pattern of none', schema: { additionalProperties: false, patternProperties: { '^x-': false } }, takes: false, losing: {} },
  {
    name: 'closed but for a pattern every name also matches one of none',
    schema: { additionalProperties: false, patternProperties: { '^x-': {}, '': false } },
    takes: false,
    losing: {},
  },
  {
    name: 'closed but for a pattern, beside a schema closed to it',
    schema: { allOf: [{ patternProperties: { '^x-': {} }, additionalProperties: false }, { additionalProperties: false }] },
    takes: false,
    losing: {},
    fresh: 'x-fresh',
  },
];

describe('objects that take a member of a fresh name', () => {
  it.each(CASES)('$name: the analysis says $takes', ({ schema, takes: expected }) => {
    expect(takes(schema)).toBe(expected);
  });

  it.each(CASES.filter((c) => c.takes))('$name: every object ajv accepts is accepted with a fresh member', ({ schema, fresh = 'fresh name' }) => {
    const validate = ajvValidator(schema);
    let valid = 0;
    fc.assert(
      fc.property(objects, (object) => {
        if (!validate(object)) return;
        valid++;
        // Any value, or some value where additionalProperties schemas are met.
        const values: unknown[] = [1, 'y', null, { z: [] }];
        const kept = (value: unknown): boolean => validate({ ...object, [fresh]: value });
        expect(JSON.stringify(schema).includes('additionalProperties') ? values.some(kept) : values.every(kept), JSON.stringify(object)).toBe(true);
      }),
      { numRuns: 400, seed: 3 },
    );
    expect(valid).toBeGreaterThan(20);
  });

  it.each(CASES.filter((c) => c.losing !== undefined))(
    '$name: $losing is accepted, and refused with a fresh member',
    ({ schema, losing, fresh = 'fresh name' }) => {
      const validate = ajvValidator(schema);
      expect(validate(losing)).toBe(true);
      expect(validate({ ...losing, [fresh]: 'x' })).toBe(false);
    },
  );

  it('under strict, a schema without additionalProperties is closed', () => {
    expect(takes({ type: 'object', properties: { a: {} } }, { strict: true })).toBe(false);
    expect(takes({ type: 'object', properties: { a: {} }, additionalProperties: true }, { strict: true })).toBe(true);
    expect(takes({ anyOf: [{ pattern: '^[A-Z]+$' }, { type: 'object', additionalProperties: false }] }, { strict: true })).toBe(false);
  });
});

let kernel: Kernel;
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

describe('unique arrays of such objects', () => {
  const array = (items: Record<string, unknown>): Record<string, unknown> => ({ type: 'array', uniqueItems: true, items });
  const top = (path: readonly (string | number)[]): boolean => path.length === 0;

  it('compile, and their masks equal the oracle (stories260k, every token)', () => {
    const schema = array({ type: 'object', properties: { f: { type: 'integer' }, r: { type: 'integer' } }, ...CASES[1]!.schema });
    const masked = walkAgainstOracle(schema, top, ['[{"f":1},{"f":1', '[{"r":2,"a":[]},{"a":[],"r":2'], {
      kernel,
      walks: 6,
      steps: 40,
      vocab: 'stories260k',
      // (Names counted toward the condition's minProperties are kept distinct.)
      names: (path) => path.length === 1,
    });
    expect(masked.repeated).toBeGreaterThan(0);
  }, 120_000);

  it('an item never gets stuck: after a repeat so far, a fresh member still ends it', () => {
    const grammar = compileSchema(array({ type: 'object', ...CASES[1]!.schema }));
    const matcher = new Matcher(grammar);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    expect(matcher.commitBytes(bytes('[{"f":1},{"f":1'))).toBe(true);
    expect(matcher.fork().commitBytes(bytes('}'))).toBe(false);
    expect(matcher.commitBytes(bytes(',"g":0}]'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });

  it('closed objects that take names of a pattern: a repeat so far still ends anew with such a member (compose-spec ports)', () => {
    const schema = array({ oneOf: [{ type: 'number' }, { type: 'string' }, { type: 'object', ...CASES.find((c) => c.fresh === 'x-fresh')!.schema }] });
    const masked = walkAgainstOracle(schema, top, ['[{"a":1},{"a":1', '[{"x-1":[]},{"x-1":[]'], { kernel, walks: 6, steps: 40, vocab: 'stories260k' });
    expect(masked.repeated).toBeGreaterThan(0);
    const matcher = new Matcher(compileSchema(schema));
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    expect(matcher.commitBytes(bytes('[{"a":1},{"a":1'))).toBe(true);
    expect(matcher.fork().commitBytes(bytes('}'))).toBe(false);
    expect(matcher.fork().commitBytes(bytes(',"b":0}'))).toBe(false);
    expect(matcher.commitBytes(bytes(',"x-b":0}]'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  }, 120_000);

  it('are refused where items could get stuck: objects a member may fail, strings of a oneOf of endless patterns (one string: "a")', () => {
    for (const items of [
      { type: 'object', oneOf: [{ required: ['a'], minProperties: 1 }, { minProperties: 2 }] },
      { type: 'object', if: { minProperties: 2 }, then: false },
      // (Only {}: this threw a TypeError before it was refused.)
      { type: 'object', propertyNames: false },
      { type: 'string', oneOf: [{ pattern: '^a' }, { pattern: '^a.' }] },
    ])
      expect(schemaErrorOf(array(items))?.keyword, JSON.stringify(items)).toBe('uniqueItems');
  });
});
