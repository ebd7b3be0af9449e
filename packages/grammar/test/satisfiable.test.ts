// Whether a schema is known to allow some value (src/frontends/json-schema/satisfiable.ts):
// where the proof says yes, ajv accepts the witness listed; where it cannot tell, it says no.
import { describe, expect, it } from 'vitest';
import { knownSatisfiable } from '../src/frontends/json-schema/satisfiable.ts';
import { SchemaCompiler } from '../src/frontends/json-schema/schema-compiler.ts';
import { ajvValidator } from './support/json-schema-oracle.ts';

const known = (schema: Record<string, unknown> | boolean): boolean =>
  knownSatisfiable(new SchemaCompiler(typeof schema === 'boolean' ? {} : schema, {}, 50_000), schema, '');

// Schemas some value passes, each with one.
const SOME: { schema: Record<string, unknown>; witness: unknown }[] = [
  { schema: {}, witness: 1 },
  { schema: { type: 'string', minLength: 1, pattern: '^a' }, witness: 'a' },
  { schema: { type: 'integer', minimum: 4.5 }, witness: 5 },
  { schema: { type: 'number', maximum: -3, multipleOf: 2 }, witness: 'not needed' },
  { schema: { type: 'integer', multipleOf: 0.75 }, witness: 0 },
  { schema: { type: 'array', items: false }, witness: [] },
  { schema: { type: 'object', properties: { a: false }, additionalProperties: false }, witness: {} },
  { schema: { enum: [1, 'a'], type: 'string' }, witness: 'a' },
  { schema: { type: 'array', minItems: 2, items: { type: 'integer', minimum: 3 } }, witness: [3, 3] },
  { schema: { type: 'object', required: ['a'], anyOf: [{ required: ['b'] }, { required: ['c'] }] }, witness: { a: 1, c: 1 } },
  { schema: { type: 'object', oneOf: [{ required: ['b'] }, { required: ['c'] }] }, witness: { b: 1 } },
  {
    schema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string', minLength: 2 } }, additionalProperties: { type: 'null' } },
    witness: { a: 'aa', b: null },
  },
  { schema: { anyOf: [{ type: 'string', maxLength: 0 }, { type: 'null' }] }, witness: null },
  { schema: { $ref: '#/$defs/d', $defs: { d: { type: 'boolean' } } }, witness: true },
  // (A format alone, however large its automaton: every format allows some string.)
  { schema: { type: 'string', format: 'date-time' }, witness: '2026-11-27T18:00:00Z' },
  // (Dependency lists met by the required members alone.)
  { schema: { type: 'object', required: ['a', 'b'], dependencies: { a: ['b'], c: ['d'] } }, witness: { a: 1, b: 1 } },
  { schema: { type: 'object', required: ['a'], dependentRequired: { b: ['c'] } }, witness: { a: 1 } },
];

// Schemas the proof does not settle (some allow nothing; some do, by reasons it does not look into).
const UNKNOWN: Record<string, unknown>[] = [
  { type: 'string', minLength: 3, maxLength: 2 },
  { allOf: [{ type: 'string' }, { type: 'number' }] },
  { enum: [1], type: 'string' },
  { type: 'object', required: ['a'], properties: { a: { type: 'string', maxLength: 0, minLength: 1 } } },
  { type: 'object', required: ['a', 'b'], maxProperties: 1 },
  { type: 'object', required: ['a'], additionalProperties: false },
  { type: 'object', required: ['a'], propertyNames: { maxLength: 0 } },
  { type: 'array', minItems: 1, items: { type: 'string', minLength: 3, maxLength: 2 } },
  { type: 'array', minItems: 2, uniqueItems: true },
  { type: 'array', minItems: 2, maxItems: 1 },
  { type: 'array', minItems: 1, contains: { type: 'null' } },
  { type: 'integer', minimum: 1, maximum: 2 },
  { not: {} },
  { oneOf: [{ type: 'object' }, { type: 'object', maxProperties: 3 }] },
  { type: 'object', required: ['b', 'c'], oneOf: [{ required: ['b'] }, { required: ['c'] }] },
  // (A required member that needs one not required; a dependency that is a schema.)
  { type: 'object', required: ['a'], dependencies: { a: ['b'] } },
  { type: 'object', required: ['a'], dependentRequired: { a: ['b'] } },
  { type: 'object', required: ['a'], dependencies: { a: { required: ['b'] } } },
];

describe('schemas known to allow some value', () => {
  it.each(SOME.filter((c) => c.witness !== 'not needed'))('$schema: known, and ajv accepts $witness', ({ schema, witness }) => {
    expect(known(schema)).toBe(true);
    expect(ajvValidator(schema)(witness)).toBe(true);
  });

  it('a number below an upper bound is known too', () => {
    expect(known({ type: 'number', maximum: -3 })).toBe(true);
    expect(known(SOME[3]!.schema)).toBe(false);
  });

  it.each(UNKNOWN)('%j: not known', (schema) => {
    expect(known(schema)).toBe(false);
  });

  it('true is known, false is not', () => {
    expect(known(true)).toBe(true);
    expect(known(false)).toBe(false);
  });
});
