// Numeric regexes of the JSON Schema compiler against JavaScript's own number comparison, on
// plain-decimal spellings around every bound (the forms these regexes promise to be exact on).
import { describe, expect, it } from 'vitest';
import { decimalBounds, multipleOfRegex, plainDecimal, type Bound } from '../src/frontends/json-schema/numbers.ts';
import { accepts, compileSchema } from './support/json-schema-oracle.ts';

const PLAIN = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const samples = [
  ...Array.from({ length: 2401 }, (_, i) => (i - 1200) / 100).flatMap((v) => [String(v), v.toFixed(3), (v / 7).toFixed(4)]),
  ...Array.from({ length: 2401 }, (_, i) => String(i - 1200)),
  '-0',
  '-0.0',
  '0.0',
  '-459.67',
  '-459.670',
  '-459.671',
  '-459.669',
  '0.10',
  '0.09999',
  '99.990',
  '99.9901',
].filter((s) => PLAIN.test(s));
const whole = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`);

describe('plainDecimal', () => {
  it.each([
    [1e-6, { negative: false, int: '0', fraction: '000001' }],
    [-459.67, { negative: true, int: '459', fraction: '67' }],
    [1e21, { negative: false, int: '1000000000000000000000', fraction: '' }],
    [100, { negative: false, int: '100', fraction: '' }],
  ])('%d', (value, expected) => expect(plainDecimal(value)).toEqual(expected));
});

describe('decimalBounds', () => {
  const bounds = [-459.67, -2, -0.5, -0.05, 0, 0.001, 0.05, 0.1, 0.25, 0.5, 1.1, 3, 10.5, 99.99];
  it.each(bounds)('lower bound %d with every upper bound, inclusive or not', (lo) => {
    const wrong: string[] = [];
    for (const hi of [...bounds, Infinity]) {
      for (const [loIn, hiIn] of [
        [true, true],
        [true, false],
        [false, true],
        [false, false],
      ] as const) {
        const low: Bound = { value: lo, inclusive: loIn };
        const high: Bound = { value: hi, inclusive: hiIn };
        const regexes = decimalBounds(low, high).map(whole);
        for (const text of samples) {
          const v = Number(text);
          const want = (loIn ? v >= lo : v > lo) && (hiIn ? v <= hi : v < hi);
          if (regexes.every((r) => r.test(text)) !== want) wrong.push(`${text} in ${loIn ? '[' : '('}${lo}, ${hi}${hiIn ? ']' : ')'}: ${!want}`);
        }
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});

describe('decimalBounds on exponent forms', () => {
  // Read as doubles, as validators do: 4e-400 is 0, 9.99999999999999999999e-1 is 1.
  const forms = [
    '1e-06',
    '-1e-06',
    '2.5e-3',
    '-2.5E-3',
    '1e5',
    '-1e5',
    '0e0',
    '-0e0',
    '0.0e-2',
    '9.99e-1',
    '-9.99e-1',
    '1E+2',
    '-3.5e+1',
    '5e0',
    '1e-0',
    '1e-01',
    '3.2e-10',
    '-7e-5',
    '4E-400',
    '-4e-916560466910',
    '0.001e-306',
    '1e-307',
    '9.99999999999999999999e-1',
    '-9.99999999999999999999e-1',
  ];
  const bounds = [-Infinity, -459.67, -2, -1, -0.5, 0, 0.5, 1, 3, 99.99, Infinity];
  it('never accepts one outside the bounds', () => {
    const wrong: string[] = [];
    for (const lo of bounds.filter((b) => b !== Infinity)) {
      for (const hi of bounds.filter((b) => b !== -Infinity && b >= lo)) {
        for (const [loIn, hiIn] of [
          [true, true],
          [true, false],
          [false, true],
          [false, false],
        ] as const) {
          const regexes = decimalBounds({ value: lo, inclusive: loIn }, { value: hi, inclusive: hiIn }).map(whole);
          for (const text of forms) {
            const v = Number(text);
            const want = (loIn ? v >= lo : v > lo) && (hiIn ? v <= hi : v < hi);
            if (regexes.every((r) => r.test(text)) && !want) wrong.push(`${text} in ${loIn ? '[' : '('}${lo}, ${hi}${hiIn ? ']' : ')'}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    [0, true, Infinity, ['1e-06', '2.5e-3', '1e5', '0e0', '-0e0', '1E+2']],
    [0, false, Infinity, ['1e-06', '1e5', '9.99e-1', '1e-307']],
    [-Infinity, true, 5, ['1e-06', '-1e5', '2.5e-3', '0e0', '9.99e-1', '-3.5e+1']],
    [-2, true, 3, ['1e-06', '-1e-06', '-9.99e-1', '3.2e-10']],
  ] as const)('accepts those whose sign or size settles bounds %d..%d', (lo, loIn, hi, accepted) => {
    const regexes = decimalBounds({ value: lo, inclusive: loIn }, { value: hi, inclusive: true }).map(whole);
    expect(accepted.filter((text) => !regexes.every((r) => r.test(text)))).toEqual([]);
  });
});

describe('multipleOfRegex', () => {
  it.each([0.01, 0.1, 1, 2, 4, 5, 8, 10, 16, 25, 100])('multiples of %d', (m) => {
    const regex = whole(multipleOfRegex(m)!);
    const wrong = samples.filter((text) => {
      const q = Number(text) / m;
      return regex.test(text) !== Math.abs(q - Math.round(q)) < 1e-9;
    });
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it.each([3, 7, 2.5, 0.3])('%d is not expressible', (m) => expect(multipleOfRegex(m)).toBeNull());
});

describe('integer ranges near 2^53', () => {
  it('are spelled digit by digit where 10^16 - 1 is past what a double holds', () => {
    const grammar = compileSchema({ type: 'integer', minimum: 1000000000000001, maximum: 9007199254740991 });
    for (const text of ['1000000000000001', '9007199254740991', '5000000000000000']) expect(accepts(grammar, text), text).toBe(true);
    for (const text of ['1000000000000000', '9007199254740992', '10000000000000000', '999']) expect(accepts(grammar, text), text).toBe(false);
    const above = compileSchema({ type: 'integer', minimum: 1000000000000001 });
    for (const text of ['1000000000000001', '9999999999999999', '99999999999999999999']) expect(accepts(above, text), text).toBe(true);
    expect(accepts(above, '1000000000000000')).toBe(false);
  });
});
