// contains with minContains and maxContains (2019-09 on): the items that satisfy `contains`
// are counted (up to the bound that decides), exactly, against ajv on generated arrays; and
// their complements, enum values checked against them, and the drafts that have no counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Matcher } from '../src/index.ts';
import { accepts, ajvValidator, compileSchema } from './support/json-schema-oracle.ts';
import { bitsetIds } from './support/oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { vocab } from './support/vocabs.ts';

const item = fc.constantFrom<unknown>(0, 1, 2, 5, 7, 1.5, 'a', 'b', '', true, null, [], [1], { a: 1 });
const arrays = fc.array(item, { maxLength: 6 });

const CASES: [string, Record<string, unknown>][] = [
  ['minContains 2', { type: 'array', contains: { type: 'integer' }, minContains: 2 }],
  ['maxContains 2', { type: 'array', contains: { const: 1 }, maxContains: 2 }],
  ['both, with items', { type: 'array', items: { type: ['string', 'integer'] }, contains: { type: 'string' }, minContains: 2, maxContains: 3 }],
  ['minContains 0, maxContains 1', { contains: { minimum: 5 }, minContains: 0, maxContains: 1 }],
  ['maxContains 0 (no item may hold)', { type: 'array', contains: { type: 'string' }, maxContains: 0, minContains: 0 }],
  ['negated minContains 2 (at most one)', { not: { type: 'array', contains: { type: 'integer' }, minContains: 2 } }],
  ['negated maxContains 1 (none, or two or more)', { type: 'array', not: { contains: { type: 'string' }, maxContains: 1 } }],
  [
    'two counted contains in an allOf',
    {
      allOf: [
        { contains: { type: 'integer' }, minContains: 2 },
        { contains: { type: 'integer' }, maxContains: 3 },
      ],
    },
  ],
  // (minItems 1: ajv 8 takes [] for any contains beside prefixItems.)
  ['with prefixItems', { type: 'array', minItems: 1, prefixItems: [{ type: 'string' }], contains: { type: 'string' }, minContains: 2 }],
  [
    'unique, from finitely many values',
    { type: 'array', uniqueItems: true, items: { enum: [1, 2, 'a', 'b', 'c'] }, contains: { type: 'string' }, minContains: 2, maxContains: 2 },
  ],
  ['maxContains below minContains', { type: 'array', contains: { type: 'integer' }, minContains: 3, maxContains: 2 }],
];

describe('contains with minContains and maxContains', () => {
  it.each(CASES)('%s: accepted iff ajv accepts', (_, schema) => {
    // Unique arrays from the enum's values, repeats and another value among them.
    const instances = schema.uniqueItems === true ? fc.array(fc.constantFrom<unknown>(1, 2, 'a', 'b', 'c', 'd'), { maxLength: 5 }) : arrays;
    const counts = expectAgreement(schema, instances, { numRuns: 400, seed: 3, minEach: schema.minContains === 3 ? 0 : 5 });
    expect(counts.valid + counts.invalid).toBe(400);
  });

  it('enum values are checked against the counts', () => {
    const schema = { enum: [[1, 1], [1], [1, 1, 1], ['x', 1, 1]], contains: { const: 1 }, minContains: 2, maxContains: 2 };
    const grammar = compileSchema(schema);
    const validate = ajvValidator(schema);
    for (const value of schema.enum) expect(accepts(grammar, JSON.stringify(value)), JSON.stringify(value)).toBe(validate(value));
  });

  it('unique items, a contains that needs more items than its schema has values: no array, and no mask leads into one', () => {
    const index = vocab('stories260k');
    const firstMask = (schema: object): number[] => bitsetIds(new Matcher(compileSchema(schema), index).computeMaskBitset(), index.tokenCount);
    const never = [
      { type: 'array', uniqueItems: true, contains: { const: 1 }, minContains: 2 },
      { type: 'array', uniqueItems: true, contains: { type: 'boolean' }, minContains: 3 },
      { type: 'array', uniqueItems: true, contains: { type: 'string', pattern: '^a$' }, minContains: 2 },
      { type: 'array', uniqueItems: true, contains: { type: 'number', minimum: 1, maximum: 1 }, minContains: 2 },
      { type: 'array', uniqueItems: true, contains: { type: 'array', maxItems: 0 }, minContains: 2 },
      {
        type: 'array',
        uniqueItems: true,
        contains: { type: 'object', properties: { a: { const: 1 }, b: { enum: [true] } }, required: ['a'], additionalProperties: false },
        minContains: 3,
      },
      { type: 'array', minItems: 1, items: { type: 'array', uniqueItems: true, contains: { const: 'a' }, minContains: 2 } },
    ];
    for (const schema of never) expect(firstMask(schema), JSON.stringify(schema)).toEqual([]);
    // With as many values as it needs, the array is there; ajv agrees either way.
    const enough = { type: 'array', uniqueItems: true, contains: { enum: [1, 2] }, minContains: 2 };
    expect(firstMask(enough).length).toBeGreaterThan(0);
    const objects = { type: 'object', properties: { a: { const: 1 }, b: { enum: [true] }, c: true }, required: ['a'], additionalProperties: false };
    expect(firstMask({ type: 'array', uniqueItems: true, contains: objects, minContains: 3 }).length).toBeGreaterThan(0);
    const instances = fc.array(fc.constantFrom<unknown>(1, 2, 1.0, 'a', true, false), { maxLength: 4 });
    expectAgreement(enough, instances, { numRuns: 200, seed: 3 });
    expectAgreement(never[1]!, instances, { numRuns: 100, seed: 3, minEach: 0 });
  });

  it('before 2019-09 minContains and maxContains are unknown keywords: contains asks for one item', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', contains: { type: 'integer' }, minContains: 2, maxContains: 0 };
    const grammar = compileSchema(schema);
    expect(accepts(grammar, '[1]')).toBe(true);
    expect(accepts(grammar, '["a"]')).toBe(false);
    // Draft 4 has no contains at all.
    expect(accepts(compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'array', contains: { type: 'integer' } }), '["a"]')).toBe(true);
  });
});
