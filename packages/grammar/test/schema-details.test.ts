// JSON Schema details where a shortcut would read the schema wrong: leap seconds in times,
// identity escapes in patterns, additionalProperties across an allOf. ajv (with ajv-formats)
// and the JSON-Schema-Test-Suite are the oracles.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GrammarError, regexToByteRegex } from '../src/index.ts';
import { accepts, ajvValidator, compileSchema } from './support/json-schema-oracle.ts';

const SUITE = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpora', 'json-schema-test-suite', 'tests', 'draft2020-12');
const pad = (n: number): string => String(n).padStart(2, '0');
const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`;

describe('leap seconds: 23:59:60 in UTC, whatever the offset', () => {
  it.each(['time', 'date-time'])("the test suite's optional/format/%s.json cases", (format) => {
    const groups = JSON.parse(readFileSync(join(SUITE, 'optional', 'format', `${format}.json`), 'utf8')) as {
      schema: object;
      tests: { description: string; data: unknown; valid: boolean }[];
    }[];
    const grammar = compileSchema({ type: 'string', format });
    let leap = 0;
    for (const { tests } of groups) {
      for (const { description, data, valid } of tests) {
        if (typeof data !== 'string') continue;
        if (data.includes(':60')) leap++;
        expect(accepts(grammar, JSON.stringify(data)), `${description}: ${data}`).toBe(valid);
      }
    }
    expect(leap).toBeGreaterThan(4);
  });

  it('every local time with the offsets around its leap second, against ajv-formats', () => {
    const time = compileSchema({ type: 'string', format: 'time' });
    const dateTime = compileSchema({ type: 'string', format: 'date-time' });
    const ajvTime = ajvValidator({ type: 'string', format: 'time' });
    const ajvDateTime = ajvValidator({ type: 'string', format: 'date-time' });
    let valid = 0;
    for (let local = 0; local < 1440; local++) {
      // The offsets that make it 23:59 UTC (+local+1min, -(23:59-local)), their neighbours, zero.
      const plus = (local + 1) % 1440;
      const minus = 1439 - local;
      const zones = new Set([
        'Z',
        '+00:00',
        '-00:00',
        `+${clock(plus)}`,
        `-${clock(minus)}`,
        `+${clock(plus + 1)}`,
        `-${clock(minus + 1)}`,
        `+${clock(plus + 60)}`,
      ]);
      for (const zone of zones) {
        for (const fraction of local % 97 === 0 ? ['', '.5'] : ['']) {
          const text = `${clock(local)}:60${fraction}${zone}`;
          const expected = ajvTime(text);
          if (expected) valid++;
          expect(accepts(time, JSON.stringify(text)), text).toBe(expected);
          if (local % 31 === 0) {
            const stamp = `2016-12-31T${text}`;
            expect(accepts(dateTime, JSON.stringify(stamp)), stamp).toBe(ajvDateTime(stamp));
          }
        }
      }
    }
    // Each local time has exactly one valid offset of each sign (23:59 has Z too); 15 of them
    // are also tried with a fraction.
    expect(valid).toBe(2 * 1440 + 1 + 2 * 15);
  });
});

describe('identity escapes in patterns (ECMAScript Annex B, Python)', () => {
  // The oracle: the pattern as JavaScript reads it without the u flag, where these escapes
  // are valid; the strings are BMP text, where the two modes agree.
  const cases = [
    ['[^\\"]*', ['', 'abc', 'a"b', '"'], true],
    ['^[^\\"]*$', ['', 'abc', 'a"b', '"', 'x y'], true],
    ["^\\'\\-\\_\\ \\:\\<\\>\\@\\#\\%\\&\\,\\;\\=\\!\\~\\`$", ["'-_ :<>@#%&,;=!~`", "'-_ :<>@#%&,;=!~", 'x'], true],
    ['^[\\!-\\~]+$', ['!', '~', 'abc', 'a b', '', 'é'], true],
    ['^[a\\-z]+$', ['a-z', 'b', '-'], true],
    ['^a\\-b$', ['a-b', 'ab'], true],
    ['^\\"\\d+\\"$', ['"12"', '12', '"x"'], true],
  ] as const;
  it.each(cases)('%s', (pattern, texts) => {
    const grammar = compileSchema({ type: 'string', pattern });
    const oracle = new RegExp(pattern);
    for (const text of texts) expect(accepts(grammar, JSON.stringify(text)), text).toBe(oracle.test(text));
  });

  it('letters and digits keep their u-mode meaning, and unknown ones stay invalid', () => {
    const grammar = compileSchema({ type: 'string', pattern: '^\\"\\p{Lu}\\u{e9}$' });
    expect(accepts(grammar, JSON.stringify('"Aé'))).toBe(true);
    expect(accepts(grammar, JSON.stringify('"aé'))).toBe(false);
    expect(() => compileSchema({ type: 'string', pattern: '\\"\\q' })).toThrow(/invalid regex/);
  });

  it('errors after a spelled escape point into the pattern as written', () => {
    let error: unknown;
    try {
      regexToByteRegex('\\"\\-(?<=a)', { flags: 'u', mode: 'search', identityEscapes: true, offset: 10 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as GrammarError).span).toEqual({ start: 14, end: 20 });
    // Without the option, the u flag refuses them as JavaScript does.
    expect(() => regexToByteRegex('[^\\"]', { flags: 'u' })).toThrow(/Invalid escape/);
  });
});

describe("allOf: additionalProperties sees only its own branch's properties and patterns", () => {
  const instances = [{ foo: 'bar' }, { foo: 1 }, { fa: 1 }, { fa: 'x' }, { bar: 1 }, {}, { foo: 'bar', fa: 'x' }, { foo: 'bar', bar: 1 }];
  const closed = { properties: { foo: {} }, additionalProperties: false };
  it.each([
    [{ allOf: [closed, { patternProperties: { '^f': {} } }] }],
    [{ allOf: [{ patternProperties: { '^f': {} } }, closed] }],
    [{ allOf: [closed, { patternProperties: { '^f': { type: 'string' } } }] }],
    [{ allOf: [closed, { properties: { bar: {} }, patternProperties: { '^f': { type: 'string' } } }] }],
    [{ allOf: [{ properties: { foo: {} } }, { patternProperties: { '^f': { type: 'string' } }, additionalProperties: false }] }],
    [{ allOf: [{ properties: { bar: {} }, additionalProperties: { type: 'number' } }, { patternProperties: { '^f': {} } }] }],
    [{ properties: { foo: { type: 'string' } }, additionalProperties: false, allOf: [{ patternProperties: { '^f': { minLength: 2 } } }] }],
  ])('%j', (schema) => {
    const grammar = compileSchema(schema);
    const validate = ajvValidator(schema);
    for (const instance of instances) expect(accepts(grammar, JSON.stringify(instance)), JSON.stringify(instance)).toBe(validate(instance));
    expect(accepts(grammar, '{"foo": "bar"}')).toBe(validate({ foo: 'bar' }));
  });

  it('is refused where one patternProperties cannot say it: a declared name beside an additionalProperties schema', () => {
    const schema = { allOf: [{ properties: { foo: { type: 'string' } }, additionalProperties: { type: 'number' } }, { patternProperties: { '^f': {} } }] };
    expect(() => compileSchema(schema)).toThrow(/patternProperties.*"foo"/);
  });
});
