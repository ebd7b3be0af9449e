// Numeric regexes of the JSON Schema compiler against JavaScript's own number comparison, on
// plain-decimal spellings around every bound (the forms these regexes promise to be exact on).
import { describe, expect, it } from 'vitest';
import { decimalBounds, multipleOfRegex, plainDecimal, type Bound } from '../src/json-schema/numbers.ts';

const PLAIN = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const samples = [
  ...Array.from({ length: 2401 }, (_, i) => (i - 1200) / 100).flatMap((v) => [String(v), v.toFixed(3), (v / 7).toFixed(4)]),
  ...Array.from({ length: 2401 }, (_, i) => String(i - 1200)),
  '-0', '-0.0', '0.0', '-459.67', '-459.670', '-459.671', '-459.669', '0.10', '0.09999', '99.990', '99.9901',
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
  const bounds = [-459.67, -2, -0.5, 0, 0.1, 0.25, 0.5, 1.1, 3, 10.5, 99.99];
  it.each(bounds)('lower bound %d with every upper bound, inclusive or not', (lo) => {
    const wrong: string[] = [];
    for (const hi of [...bounds, Infinity]) {
      for (const [loIn, hiIn] of [[true, true], [true, false], [false, true], [false, false]] as const) {
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
