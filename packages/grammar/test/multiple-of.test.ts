// multipleOf of any positive number (src/frontends/json-schema/numbers.ts:
// multipleOfAutomaton, a remainder automaton over the digits when no regex of last digits
// decides), with bounds, in intersections (several multiples) and negated. Checked against
// ajv on quarters and integers written plainly and with trailing zeros (the multiples
// here are exact in binary, so ajv's float division agrees with decimal arithmetic).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multipleOfAutomaton } from '../src/frontends/json-schema/numbers.ts';
import { jsonTexts, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';

const numbers = fc.oneof(
  fc.integer({ min: -3000, max: 3000 }),
  fc.integer({ min: -3000, max: 3000 }).map((n) => n / 4),
  fc.constantFrom(0, 7, 77, 6.75, 13.5, 2.5, 1001, 'x', null),
);
// The serializers' texts, and the number with zeros appended to its fraction.
const spellings = (value: unknown): string[] =>
  typeof value === 'number' ? [...jsonTexts(value, false), Number.isInteger(value) ? `${value}.000` : `${value}00`] : jsonTexts(value, false);

const CASES: { name: string; schema: unknown }[] = [
  { name: 'integers, multiples of 7', schema: { type: 'integer', multipleOf: 7 } },
  { name: 'numbers, multiples of 11 within bounds', schema: { type: 'number', multipleOf: 11, minimum: -500, exclusiveMaximum: 2000 } },
  { name: 'multiples of 6.75 (27/4)', schema: { type: 'number', multipleOf: 6.75 } },
  { name: 'multiples of 2.5 and of 3 (an intersection)', schema: { allOf: [{ multipleOf: 2.5 }, { multipleOf: 3 }], type: 'number' } },
  { name: 'multiples of 0.75 that are not multiples of 1.5', schema: { type: 'number', multipleOf: 0.75, not: { multipleOf: 1.5 } } },
  { name: 'integers that are not multiples of 3 or 5', schema: { type: 'integer', not: { anyOf: [{ multipleOf: 3 }, { multipleOf: 5 }] }, minimum: 0 } },
];

describe('multipleOf', () => {
  it.each(CASES)('$name: accepted iff ajv accepts', ({ schema }) => {
    expectAgreement(schema, numbers, { numRuns: 400, seed: 9, texts: spellings });
  });

  it('a multiple with a remainder automaton too large is refused with the cap named', () => {
    expect(multipleOfAutomaton(7)?.edges.length).toBe(3 + 7 * 3);
    expect(schemaErrorOf({ type: 'number', multipleOf: 12345.678 })).toMatchObject({
      code: 'unsupported',
      keyword: 'multipleOf',
      message: expect.stringContaining('100000 states'),
    });
  });
});
