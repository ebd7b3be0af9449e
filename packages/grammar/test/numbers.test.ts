// Numeric regexes of the JSON Schema compiler against JavaScript's own number comparison, on
// plain-decimal spellings around every bound (the forms these regexes promise to be exact on).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalBounds, multipleOfRegex, plainDecimal, type Bound } from '../src/frontends/json-schema/numbers.ts';
import { accepts, compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';

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

describe('numbers other than constants (`not` of numeric constants)', () => {
  // Values and their texts: plain, with zeros, in normalized exponent forms, in others that are
  // the value in disguise, and ones a double reads as the value.
  const values = [5, 0, 0.25, -3, 0.1, 1e15, 123.456, -0.001, 50, 0.5, 7e-300];
  const texts = [
    ...values.flatMap((v) => {
      const plain = plainDecimal(v);
      const decimal = `${plain.negative ? '-' : ''}${plain.int}${plain.fraction === '' ? '' : `.${plain.fraction}`}`;
      const [mantissa, exponent] = v.toExponential().split('e') as [string, string];
      return [
        decimal,
        `${decimal}${plain.fraction === '' ? '.0' : '00'}`,
        v.toExponential(),
        `${mantissa}E${exponent}`,
        `${mantissa}${mantissa.includes('.') ? '0' : '.00'}e${Number(exponent) < 0 ? exponent : `+0${exponent.replace('+', '')}`}`,
        `${decimal}e0`,
        `${decimal}0e-1`,
        `${v < 0 ? '-' : ''}0.${decimal.replace(/^-?/, '').replace('.', '')}e${String(plain.int === '0' ? 0 : plain.int.length)}`,
      ];
    }),
    '4.99999999999999999999e0',
    '5.00000000000000000001',
    '4.99999999999999999999',
    '5e400',
    '4e-400',
    '-0',
    '-0.0e1',
    '5.5',
    '6e0',
    '2.5e-1',
    '1.23456e2',
    '1.234567890123456e2',
  ];
  const PLAIN_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;
  // Exponent forms a double tells apart: one digit before the point, at most 15 significant
  // digits, an exponent of at most 307.
  const safeExponent = (text: string): boolean => {
    const match = /^-?([1-9])(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(text);
    return match !== null && (match[1]! + (match[2] ?? '')).replace(/0+$/, '').length <= 15 && Math.abs(Number(match[3])) <= 307;
  };
  // A literal's exact value as digits and a power of ten (1 and 1.0e0 alike).
  const exact = (literal: string): string => {
    const [, sign, whole, fraction = '', power = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
    let digits = `${whole}${fraction}`.replace(/^0+/, '');
    let exponent = BigInt(power) - BigInt(fraction.length);
    if (digits === '') return '0';
    while (digits.endsWith('0')) [digits, exponent] = [digits.slice(0, -1), exponent + 1n];
    return `${sign}${digits}e${exponent}`;
  };

  it.each([[[5]], [[0]], [[0.25, -3]], [[0.1, 1e15, 123.456]], [[-0.001, 50, 0.5]], [[7e-300]]])(
    'never accepts a constant, read exactly or as a double; accepts every plain decimal not within a double of one, and every other safe exponent form (%j)',
    (constants) => {
      const grammar = compileSchema({ type: 'number', not: { enum: constants } });
      const wrong: string[] = [];
      for (const text of new Set(texts)) {
        const exactly = constants.some((c) => exact(text) === exact(JSON.stringify(c)));
        const asDouble = constants.includes(Number(text));
        const accepted = accepts(grammar, text);
        if (accepted && (exactly || asDouble)) wrong.push(`${text} accepted`);
        // (Within a double of a constant: one ulp, at most |c|·ε, or the least subnormal.)
        const near = constants.some((c) => Math.abs(Number(text) - c) <= Math.max(Math.abs(c) * Number.EPSILON, Number.MIN_VALUE));
        if (!accepted && PLAIN_TEXT.test(text) && !near) wrong.push(`${text} refused`);
        if (!accepted && safeExponent(text) && !asDouble) wrong.push(`${text} refused`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it('refuses exponent forms a double cannot tell, and others that are a constant in disguise', () => {
    const grammar = compileSchema({ type: 'number', not: { const: 5 } });
    for (const text of ['4.99999999999999999999e0', '50e-1', '0.5e1', '5e400', '1.234567890123456e2', '5.00000000000000000001', '4.9999999999999999'])
      expect(accepts(grammar, text), text).toBe(false);
    for (const text of ['5.5', '6e0', '5e1', '5.000000000000001', '4.999999999999999', '-5', '0.0']) expect(accepts(grammar, text), text).toBe(true);
    expect(schemaErrorOf({ type: 'number', not: { const: 1e21 } })).toMatchObject({ code: 'unsupported', keyword: 'not' });
  });
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

describe('bounds past 2^53', () => {
  // A bound past 2^53 stands for every number its double does: moved inward by half the gap
  // to the next double, what it allows every one of them allows (9223372036854775807 reads
  // as 2^63, whose double stands for 2^63 - 512 to 2^63 + 1024).
  it('integers: int64 and uint64 bounds, and numbers within half a double of them refused', () => {
    // (Schemas arrive as JSON text: JSON.parse reads the bounds as doubles.)
    const int64 = compileSchema(JSON.parse('{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}'));
    for (const text of ['0', '-1', '123456789012345678', '9223372036854775296', '-9223372036854775296', '9223372036854775296.0'])
      expect(accepts(int64, text), text).toBe(true);
    for (const text of ['9223372036854775297', '9223372036854775807', '9223372036854775808', '-9223372036854775297', '99999999999999999999'])
      expect(accepts(int64, text), text).toBe(false);
    const uint64 = compileSchema(JSON.parse('{"type": "integer", "minimum": 0, "maximum": 18446744073709551615}'));
    for (const text of ['0', '18446744073709550592']) expect(accepts(uint64, text), text).toBe(true);
    for (const text of ['18446744073709550593', '18446744073709551615', '-1']) expect(accepts(uint64, text), text).toBe(false);
  });

  it('numbers: the largest double as a maximum, and 1e25 as an exclusive minimum', () => {
    const wide = compileSchema({ type: 'number', maximum: 1.7976931348623157e308 });
    for (const text of ['0', '-5', '123.5', `1${'0'.repeat(300)}`, '1e-5']) expect(accepts(wide, text), text).toBe(true);
    for (const text of [`1${'0'.repeat(309)}`, `17976931348623157${'0'.repeat(292)}`]) expect(accepts(wide, text), text).toBe(false);
    const above = compileSchema({ type: 'number', exclusiveMinimum: 1e25 });
    // 1e25 reads as 10000000000000000905969664, the next double is 2^31 above it.
    for (const text of ['10000000000000001979711489', '1000000000000000000000000000', '10000000000000001979711488.5'])
      expect(accepts(above, text), text).toBe(true);
    for (const text of ['10000000000000001979711488', '10000000000000000000000001', '5', '-1e30']) expect(accepts(above, text), text).toBe(false);
  });

  it('the largest double as a lower bound, or its negation as an upper one: numbers past the doubles (no next double to halve the gap to)', () => {
    const past = (1n << 1024n).toString(); // halfway past the largest double reads as Infinity
    const least = compileSchema({ type: 'number', minimum: 1.7976931348623157e308 });
    expect([past, `${past}.5`, '1', BigInt(Number.MAX_VALUE).toString()].map((text) => accepts(least, text))).toEqual([true, true, false, false]);
    const most = compileSchema({ type: 'integer', exclusiveMaximum: -1.7976931348623157e308 });
    expect([`-${past}`, '-1', past].map((text) => accepts(most, text))).toEqual([true, false, false]);
  });

  it('agree with ajv away from the bounds', () => {
    for (const schema of [
      '{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}',
      '{"type": "number", "exclusiveMaximum": 18446744073709551615, "minimum": -1}',
    ].map((text) => JSON.parse(text) as unknown))
      expectAgreement(schema, fc.oneof(fc.integer(), fc.double({ min: -1e19, max: 1e19, noNaN: true }), fc.constantFrom(-2, 1.5, 1e18, 2e19, -1e20)), {
        numRuns: 200,
        seed: 4,
      });
  });
});
