// JSON Schema details where a shortcut would read the schema wrong: leap seconds in times,
// identity escapes in patterns, additionalProperties across an allOf. ajv (with ajv-formats)
// and the JSON-Schema-Test-Suite are the oracles.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leapSecondTimes } from '../src/frontends/json-schema/string-formats.ts';
import { GrammarError, regexToByteRegex, type ByteRegex } from '../src/index.ts';
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

  // The oracle: a time's UTC hour and minute by arithmetic on the offset's sign and value.
  const isUtc2359 = (local: number, sign: number, offset: number): boolean => (((local - sign * offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;

  it('the leap-second automaton: every local time with every offset (and Z), against arithmetic', () => {
    const { automaton } = leapSecondTimes() as Extract<ByteRegex, { kind: 'automaton' }>;
    // The state after `text` from `state` (-1: none).
    const step = (state: number, text: string): number => {
      for (let i = 0; i < text.length && state >= 0; i++) {
        const byte = text.charCodeAt(i);
        const edges = automaton.edges[state]!;
        state = -1;
        for (let e = 0; e < edges.length; e += 3) if (edges[e]! <= byte && byte <= edges[e + 1]!) state = edges[e + 2]!;
      }
      return state;
    };
    const accepts = (state: number): boolean => state >= 0 && automaton.accepting[state]!;
    let valid = 0;
    let tried = 0;
    for (let local = 0; local < 1440; local++) {
      for (const fraction of local % 7 === 0 ? ['', '.0', '.59'] : ['']) {
        const time = `${clock(local)}:60${fraction}`;
        const second = step(0, time);
        for (const zone of ['Z', 'z']) {
          const expected = isUtc2359(local, 1, 0);
          if (expected) valid++;
          expect(accepts(step(second, zone)), `${time}${zone}`).toBe(expected);
        }
        // Every offset, its hours read once.
        for (const sign of [1, -1]) {
          for (let hour = 0; hour < 24; hour++) {
            const zoneHour = step(second, `${sign > 0 ? '+' : '-'}${pad(hour)}:`);
            for (let minute = 0; minute < 60; minute++) {
              const expected = isUtc2359(local, sign, hour * 60 + minute);
              tried++;
              if (expected) valid++;
              if (accepts(step(zoneHour, pad(minute))) !== expected)
                expect(`${time}${sign > 0 ? '+' : '-'}${pad(hour)}:${pad(minute)}`).toBe(expected ? 'accepted' : 'refused');
            }
          }
        }
      }
      // Seconds other than 60, a fraction without digits, an offset without minutes: refused.
      expect(accepts(step(0, `${clock(local)}:59Z`))).toBe(false);
      expect(accepts(step(0, `${clock(local)}:60.+${clock((local + 1) % 1440)}`))).toBe(false);
      expect(accepts(step(0, `${clock(local)}:60+${pad(Math.floor(((local + 1) % 1440) / 60))}`))).toBe(false);
    }
    // One offset of each sign per local time and fraction (+00:00 and -00:00 both at 23:59),
    // and Z, z at 23:59 (no fraction there).
    const times = 1440 + 2 * Math.ceil(1440 / 7);
    expect(tried).toBe(times * 2 * 1440);
    expect(valid).toBe(2 * times + 2);
  });

  // Generated times: every field in and just out of range, leap seconds with the offset that
  // makes them 23:59:60 UTC or one near it.
  const times = fc
    .record({
      hour: fc.oneof(fc.integer({ min: 0, max: 23 }), fc.constantFrom(24, 29)),
      minute: fc.oneof(fc.integer({ min: 0, max: 59 }), fc.constant(60)),
      second: fc.constantFrom(0, 59, 60, 60, 60, 61),
      fraction: fc.constantFrom('', '', '.5', '.000', '.'),
      zone: fc.oneof(
        fc.constantFrom('Z', 'z', '+00:00', '-00:00', '+24:00', ''),
        fc.record({ sign: fc.constantFrom(1, -1), near: fc.constantFrom(0, 0, 0, 1, -1, 60, 720) }),
      ),
    })
    .map(({ hour, minute, second, fraction, zone }) => {
      const local = hour * 60 + minute;
      const offset = (sign: number, near: number): string => {
        // The offset that makes it 23:59 UTC, moved by `near` minutes (kept within ±23:59).
        const exact = sign > 0 ? (local + 1) % 1440 : (((1439 - local) % 1440) + 1440) % 1440;
        return `${sign > 0 ? '+' : '-'}${clock((((exact + near) % 1440) + 1440) % 1440)}`;
      };
      return `${pad(hour)}:${pad(minute)}:${pad(second)}${fraction}${typeof zone === 'string' ? zone : offset(zone.sign, zone.near)}`;
    });
  // The oracle: RFC 3339's partial-time and time-offset read field by field, and a leap
  // second valid where JavaScript's Date puts the same time at :59 on 23:59:59 UTC.
  const isTime = (text: string): boolean => {
    const match = /^(\d\d):(\d\d):(\d\d)(?:\.\d+)?([zZ]|[+-](\d\d):(\d\d))$/.exec(text);
    if (match === null) return false;
    const [, hour, minute, second, zone, zoneHour = '0', zoneMinute = '0'] = match as unknown as string[];
    if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60 || Number(zoneHour) > 23 || Number(zoneMinute) > 59) return false;
    if (Number(second) < 60) return true;
    const date = new Date(`2016-12-31T${hour}:${minute}:59${/^[zZ]$/.test(zone!) ? 'Z' : zone}`);
    return date.getUTCHours() === 23 && date.getUTCMinutes() === 59;
  };

  it.each([
    ['time', { type: 'string', format: 'time' }, ''],
    ['date-time', { type: 'string', format: 'date-time' }, '2016-12-31T'],
    ['date-time beside a pattern', { type: 'string', format: 'date-time', pattern: '^20' }, '2016-12-31T'],
    ['time beside a length', { type: 'string', format: 'time', maxLength: 20 }, ''],
  ])('%s: generated times against a field-by-field oracle and ajv-formats', (_, schema, datePart) => {
    const grammar = compileSchema(schema);
    const validate = ajvValidator(schema);
    let leap = 0;
    let valid = 0;
    fc.assert(
      fc.property(times, (time) => {
        const text = `${datePart}${time}`;
        const expected = isTime(time) && text.length <= ((schema as { maxLength?: number }).maxLength ?? Infinity);
        if (expected) valid++;
        if (expected && time.slice(6, 8) === '60') leap++;
        expect(accepts(grammar, JSON.stringify(text)), text).toBe(expected);
        // ajv-formats agrees where the local time is in range (it takes 24:60:00+01:01 for
        // a leap second: its check is on the UTC sum alone).
        if (Number(time.slice(0, 2)) <= 23 && Number(time.slice(3, 5)) <= 59) expect(validate(text), `ajv on ${text}`).toBe(expected);
      }),
      { numRuns: 1500, seed: 20261126 },
    );
    expect(leap, 'valid leap seconds generated').toBeGreaterThan(30);
    expect(valid - leap, 'other valid times generated').toBeGreaterThan(30);
  });
});

describe('identity escapes and lone brackets in patterns (ECMAScript Annex B, Python)', () => {
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
    // A `]`, `}` or `{` that opens or closes nothing is itself; a count stays a count.
    ['^[[a-z]*[-]?[a-z]*]*$', ['ab', 'a-b]]', '[x', ']', 'A', ''], true],
    ['^PUBMED:\\{d}', ['PUBMED:{d}', 'PUBMED:{d}1', 'PUBMED:d', 'PUBMED:{dd}'], true],
    ['^.*\\{\\{.+}}.*$', ['{{a}}', 'x{{ab}}y', '{a}', '{{}}'], true],
    // (`{,3}` is refused: text here, a count from 0 to Python.)
    ['^a{2}{x}b{3c{1,}$', ['aa{x}b{3c', 'aa{x}b{3ccc', 'a{x}b{3c', 'aa{x}bbbc'], true],
    ['^[]a]$', [']a]', 'a', ']'], true],
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
      regexToByteRegex('\\"\\-(?<=a)', { flags: 'u', mode: 'search', annexB: true, offset: 10 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as GrammarError).span).toEqual({ start: 14, end: 20 });
    // Without the option, the u flag refuses them as JavaScript does.
    expect(() => regexToByteRegex('[^\\"]', { flags: 'u' })).toThrow(/Invalid escape/);
    expect(() => regexToByteRegex('a]', { flags: 'u' })).toThrow(/Lone quantifier/);
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
