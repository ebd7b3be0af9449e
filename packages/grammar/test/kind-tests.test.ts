// Boolean combinations of one kind's keywords, taken whole (src/frontends/json-schema/
// kind-tests.ts): `not`s of `anyOf`s of `not`s of patterns and lengths become one string
// regex, `oneOf`s and `not`s of multiples one remainder automaton, where distributing them
// made a lexeme per branch (each a product of patterns or remainder automata) past
// maxNfaStates. Checked against ajv on generated instances, strings built from the patterns'
// own fragments so that both sides are met.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multiplesAutomaton } from '../src/frontends/json-schema/numbers.ts';
import { compileSchema, jsonTexts, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';

const FRAGMENTS = ['a', 'b', 'c', '1', '2', 'z', 'Z', 'A', 'ab1', 'b12', 'bc1', 'c12', 'a2', '_', ' ', 'é', '"'];
const strings = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 9 }).map((parts) => parts.join(''));
const values = fc.oneof(strings, strings, strings, fc.constantFrom(null, 3, true, [], {}));

// `not` of any of: an `anyOf` it negates (a pattern, a length), each string schema of their own.
const nested = (patterns: readonly string[]): unknown => ({ not: { anyOf: patterns.map((pattern) => ({ pattern })) } });

const STRING_CASES: { name: string; schema: unknown }[] = [
  {
    name: 'none of: strings that are none of two pattern sets (all not any not any)',
    schema: {
      type: 'string',
      allOf: [
        { not: { anyOf: [nested(['^....$', 'ab1', 'b12']), nested(['^....$', 'bc1', 'c12'])] } },
        { pattern: '[aA][12].*[zZ]' },
        { minLength: 4 },
        { maxLength: 14 },
      ],
    },
  },
  {
    name: 'not all of: a length, a pattern set, another (all not all not any)',
    schema: { allOf: [{ not: { allOf: [nested(['^\\w*$', '\\d\\d']), { maxLength: 6 }, nested(['a2', 'c'])] } }, { pattern: '[12]' }] },
  },
  { name: 'oneOf of overlapping patterns (no type: other kinds pass both)', schema: { oneOf: [{ pattern: '^a' }, { pattern: '1$' }, { minLength: 8 }] } },
  {
    name: 'oneOf with a type among its branches',
    schema: {
      oneOf: [
        { type: 'string', pattern: 'b' },
        { type: ['null', 'string'], maxLength: 2 },
      ],
    },
  },
  { name: 'not of a oneOf, with a format', schema: { type: 'string', not: { oneOf: [{ pattern: 'ab' }, { format: 'date' }, { not: { minLength: 3 } }] } } },
  {
    name: 'anyOf of conditionals of patterns and lengths',
    schema: {
      anyOf: [
        { if: { pattern: '^a' }, then: { not: { pattern: '1' } }, else: { maxLength: 3 } },
        { if: { minLength: 6 }, then: { pattern: 'z$' } },
      ],
    },
  },
];

describe('tests of strings', () => {
  it.each(STRING_CASES)('$name: accepted iff ajv accepts', ({ schema }) => {
    const examples = fc.constantFrom('2024-02-29', 'ab2024-01-01', 'A1bz', 'a2b12c12Z', 'A1ab1bc1z', 'ab1c12A2z', 'b12a1c12z');
    expectAgreement(schema, fc.oneof(values, examples), { numRuns: 300, seed: 4 });
  });

  it('a combination of nine patterns under three levels of not and anyOf compiles into one string lexeme', () => {
    const schema = {
      type: 'string',
      allOf: [
        { not: { anyOf: [nested(['^....$', 'ab1', 'b12']), nested(['^....$', 'bc1', 'c12']), nested(['^....$', 'ca1', 'a12'])] } },
        { not: { anyOf: [nested(['^\\w*$', '\\d\\d', '[a|b]']), nested(['^\\w*$', '\\d\\d', '[b|c]']), nested(['^\\w*$', '\\d\\d', '[c|a]'])] } },
        { pattern: '[aA][12].*[zZ]' },
        { minLength: 10 },
        { maxLength: 20 },
      ],
    };
    const grammar = compileSchema(schema);
    expect(grammar.ir.lexemes.filter((lexeme) => lexeme.name === 'STRING')).toHaveLength(1);
    expectAgreement(schema, fc.oneof(strings, fc.constantFrom('A1b12 bc1 c12 a ca1Z', 'A1-ab1-bc1-ca1-z', 'a1 b12 c12 a12 ab1z')), {
      numRuns: 200,
      seed: 5,
      minEach: 2,
    });
  });
});

const numbers = fc.oneof(
  fc.integer({ min: -3000, max: 3000 }),
  fc.integer({ min: -3000, max: 3000 }).map((n) => n / 4),
  fc.constantFrom(0, 429, 858, 0.5, 'x', null),
);
// The serializers' texts, and the number with zeros appended to its fraction.
const spellings = (value: unknown): string[] =>
  typeof value === 'number' ? [...jsonTexts(value, false), Number.isInteger(value) ? `${value}.000` : `${value}00`] : jsonTexts(value, false);

const NUMBER_CASES: { name: string; schema: unknown }[] = [
  { name: 'exactly one of three overlapping multiples', schema: { type: 'number', oneOf: [{ multipleOf: 3 }, { multipleOf: 4 }, { multipleOf: 10 }] } },
  {
    name: 'oneOf, anyOf and not of multiples together (one automaton modulo their lcm)',
    schema: {
      type: 'number',
      allOf: [
        { oneOf: [{ multipleOf: 3 }, { multipleOf: 4 }, { allOf: [{ not: { multipleOf: 2 } }, { not: { multipleOf: 7 } }] }] },
        { anyOf: [{ not: { multipleOf: 11 } }, { multipleOf: 13 }] },
      ],
    },
  },
  {
    name: 'integers: not any of several multiples, oneOf beside',
    schema: { type: 'integer', not: { anyOf: [{ multipleOf: 6 }, { multipleOf: 15 }] }, oneOf: [{ multipleOf: 2 }, { multipleOf: 5 }] },
  },
  { name: 'no type: other kinds pass a not of multiples', schema: { not: { oneOf: [{ multipleOf: 2 }, { multipleOf: 2.5 }] } } },
];

describe('tests of multiples', () => {
  it.each(NUMBER_CASES)('$name: accepted iff ajv accepts', ({ schema }) => {
    expectAgreement(schema, numbers, { numRuns: 400, seed: 9, texts: spellings });
  });

  it('the automaton reads N mod the least common multiple; past it a combination is refused with the cap named', () => {
    // Multiples of 33, 12, 77, 6, 7, 44, 11, 13 and 8: residues modulo 24,024.
    expect(multiplesAutomaton([33, 12, 77, 6, 7, 44, 11, 13, 8], () => true)?.edges.length).toBe(3 + 24_024 * 3 + 1);
    expect(
      schemaErrorOf({ type: 'number', not: { anyOf: [{ multipleOf: 2 }, { multipleOf: 6.5 }, { multipleOf: 7 }, { multipleOf: 11 }, { multipleOf: 37 }] } }),
    ).toMatchObject({
      code: 'unsupported',
      keyword: 'multipleOf',
      message: expect.stringContaining('100000 states'),
    });
  });
});
