// Several patternProperties on one object, and intersections whose sides have different
// ones: a key takes the schemas of every pattern it matches (the grammar tells keys apart by
// the set of patterns they match), else the additional schema. Checked against ajv on random
// objects whose keys often match one, several or none of the patterns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PATTERN_PROPERTIES, MAX_PATTERN_SETS } from '../src/frontends/json-schema/object-schema.ts';
import { schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';

const KEYS = ['a', 'ab', 'b', 'xb', 'x', 'x1', 'a1', 'q', 'name', 'x-a'];
const VALUES = [0, 3, 2.5, -1, 'x', 'long string', true, null, [], {}];
const objects = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 4 });

const CASES: { name: string; schema: unknown; instances?: fc.Arbitrary<unknown> }[] = [
  {
    name: 'three overlapping patterns, closed',
    schema: { type: 'object', patternProperties: { '^a': { type: 'integer' }, b$: { minimum: 3 }, '^x': { type: 'string' } }, additionalProperties: false },
  },
  {
    name: 'patterns with a declared property they match and an additional schema',
    schema: {
      type: 'object',
      properties: { ab: { type: 'number' } },
      patternProperties: { '^a': { maximum: 10 }, '\\d$': { type: 'string' } },
      additionalProperties: { type: 'boolean' },
    },
  },
  {
    name: 'an intersection of objects with different patterns (no additionalProperties)',
    schema: {
      allOf: [{ type: 'object', patternProperties: { '^a': { type: 'integer' } } }, { patternProperties: { '^x': { maxLength: 2 }, '^a': { minimum: 0 } } }],
    },
  },
  {
    // Keys matching one side's patterns only fall under the other side's additionalProperties.
    name: 'an intersection of objects with different patterns, one side closed',
    schema: {
      allOf: [{ patternProperties: { '^a': {} }, additionalProperties: false }, { patternProperties: { '^x': { type: 'string' }, b$: { type: 'integer' } } }],
    },
  },
  {
    name: 'an intersection of objects with different patterns and additional schemas, and declared names',
    schema: {
      required: ['x1'],
      allOf: [
        { type: 'object', properties: { q: { type: 'integer' } }, patternProperties: { '^a': { type: 'integer' } }, additionalProperties: { type: 'string' } },
        { properties: { name: {} }, patternProperties: { '^x': { maxLength: 2 }, '\\d$': { minimum: 0 } }, additionalProperties: { not: { type: 'string' } } },
      ],
    },
    // (x1 is required, not declared: its schemas come from each side's patterns.)
    instances: fc.tuple(objects, fc.constantFrom('x', 'long string', 3)).map(([o, x1]) => ({ ...o, x1 })),
  },
  {
    // Three sides, each of its own patterns; one of them open.
    name: 'an intersection of three objects with different patterns',
    schema: {
      type: 'object',
      allOf: [
        { patternProperties: { a: { type: 'number' } }, additionalProperties: { type: ['string', 'null'] } },
        { patternProperties: { b: { minimum: 0 }, '^x': true } },
        { patternProperties: { '1$': { type: 'string' }, '^n': false }, additionalProperties: { not: { const: 'x' } } },
        // (A name declared after the sides: its schemas come from each of them.)
        { properties: { q: {} } },
      ],
    },
  },
  {
    // Constants are checked against the sides as written (`standardSchema`).
    name: 'an intersection of objects with different patterns, one side with constants',
    schema: {
      allOf: [
        { patternProperties: { '^a': { type: 'integer' } }, additionalProperties: false },
        { patternProperties: { '^x': {} }, additionalProperties: { minimum: 5 }, enum: [{ a: 1 }, { a: 7 }, { x: 1 }, { ab: 'x' }, { a1: 7, q: 3 }, {}] },
      ],
    },
    // (Plain objects: ajv's enum tells an object without a prototype from one with.)
    instances: fc.oneof(
      fc.constantFrom({ a: 1 }, { a: 7 }, { x: 1 }, { ab: 'x' }, { a1: 7, q: 3 }, {}),
      objects.map((o) => ({ ...o })),
    ),
  },
  {
    // Like a real schema's metadata fields: many patterns, few of them overlapping.
    name: 'twelve patterns, two of them overlapping others',
    schema: {
      type: 'object',
      patternProperties: {
        ...Object.fromEntries(
          ['a', 'b', 'q', 'name', 'x', 'x1', 'a1', 'ab', 'xb', 'x-a'].map((k, i) => [`^${k}$`, i % 2 === 0 ? { type: 'integer' } : { type: 'string' }]),
        ),
        '^x': { maxLength: 4 },
        '\\d$': { type: 'number' },
      },
      additionalProperties: false,
    },
  },
  {
    // Finitely many names (anchored patterns): they become properties, tracked by name.
    name: 'a closed object whose patterns name finitely many members, some two patterns match, beside a declared one',
    schema: {
      type: 'object',
      properties: { q: { type: 'string' }, a: { maximum: 2 } },
      patternProperties: { '^(a|ab|b)$': { type: 'integer' }, '^(a|ab|a1)$': { minimum: 0 }, '^x1?$': true },
      additionalProperties: false,
      minProperties: 2,
    },
    instances: fc.oneof(objects, fc.constantFrom({ a: 3, x: 1 }, { a: 1, x: 1 }, { ab: -1, x1: 2 }, { a: 2, q: 'x' }, { b: -1, a1: 0 }, { a: 1 })),
  },
  {
    // Names that may run out where minProperties counts them: distinct only as tracked names.
    name: 'five one-letter names by a pattern, with dependencies, a required one and minProperties 2',
    schema: {
      type: 'object',
      patternProperties: { '^[a-e]$': true },
      additionalProperties: false,
      required: ['d'],
      dependencies: { a: { anyOf: [{ required: ['b'] }, { required: ['c'] }] }, b: { not: { required: ['a'] } } },
      minProperties: 2,
    },
    instances: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'x'), fc.constantFrom(...VALUES), { maxKeys: 4 }),
  },
];

describe('patternProperties', () => {
  it.each(CASES)('$name: accepted iff ajv accepts', ({ schema, instances }) => {
    expectAgreement(schema, instances ?? objects, { numRuns: 300, seed: 3 });
  });

  it(`more than ${MAX_PATTERN_PROPERTIES} patterns, and keys matching them in more than ${MAX_PATTERN_SETS} combinations (on one side or across sides), are refused`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_PATTERN_PROPERTIES + 1 }, (_, i) => [`^p${i}$`, { type: 'integer' }]));
    expect(schemaErrorOf({ type: 'object', patternProperties: many })).toMatchObject({ code: 'unsupported', keyword: 'patternProperties' });
    // As many patterns, none overlapping: one key lexeme each.
    const disjoint = Object.fromEntries(Array.from({ length: MAX_PATTERN_PROPERTIES }, (_, i) => [`^p${i}$`, { type: 'integer' }]));
    expect(schemaErrorOf({ type: 'object', patternProperties: disjoint })).toBeUndefined();
    // Seven letters a key may contain all at once: 127 combinations.
    const overlapping = Object.fromEntries(Array.from('abcdefg', (c) => [c, { type: 'integer' }]));
    expect(schemaErrorOf({ type: 'object', patternProperties: overlapping })).toMatchObject({
      code: 'unsupported',
      keyword: 'patternProperties',
      message: expect.stringContaining('combinations'),
    });
    // Sides of four and four letters, each side's keys matching up to 15 sets: 225 combinations.
    const side = (letters: string): unknown => ({
      patternProperties: Object.fromEntries(Array.from(letters, (c) => [c, { type: 'integer' }])),
      additionalProperties: false,
    });
    expect(schemaErrorOf({ allOf: [side('abcd'), side('efgh')] })).toMatchObject({ code: 'unsupported', keyword: 'patternProperties' });
    expect(schemaErrorOf({ allOf: [side('ab'), side('cd')] })).toBeUndefined();
  });
});
