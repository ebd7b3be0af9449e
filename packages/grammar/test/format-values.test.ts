// Formats enforced only in part (hostname and email, whose A-labels are valid when their
// Punycode is; regex; the idn- formats) never let an invalid value through: a constant is
// checked against them three ways (in, out, not known: then kept only where either answer
// is safe), and their complements exclude only strings surely outside them.
import { describe, expect, it } from 'vitest';
import { formatSuiteCases } from './support/format-suite.ts';
import { accepts, ajvValidator, compileSchema } from './support/json-schema-oracle.ts';

const text = (value: unknown): string => JSON.stringify(value);

describe('constants under formats enforced in part', () => {
  const cases = formatSuiteCases();

  it('has the format tests (idn-hostname and A-labels among them)', () => {
    expect(cases.length).toBeGreaterThan(600);
    expect(cases.some((c) => c.format === 'idn-hostname')).toBe(true);
  });

  it('accepts no constant the format (or its complement) rejects', () => {
    const wrong: string[] = [];
    let accepted = 0;
    for (const c of cases) {
      for (const negated of [false, true]) {
        const schema = { const: c.data, ...(negated ? { not: { format: c.format } } : { format: c.format }) };
        if (!accepts(compileSchema(schema), text(c.data))) continue;
        accepted++;
        if (c.valid === negated) wrong.push(`${JSON.stringify(schema)}: ${c.description}`);
      }
    }
    expect(wrong).toEqual([]);
    // (Most are decided: a check that accepted nothing would prove nothing.)
    expect(accepted).toBeGreaterThan(cases.length * 0.8);
  }, 60_000);

  it.each([
    // A valid A-label (münchen): a host name, so the `not`, the second oneOf branch and the `then` fail.
    [{ const: 'xn--mnchen-3ya', not: { format: 'hostname' } }, 'xn--mnchen-3ya', false],
    [{ enum: ['xn--mnchen-3ya', 'ab'], oneOf: [{ format: 'hostname' }, { const: 'xn--mnchen-3ya' }] }, 'xn--mnchen-3ya', false],
    [{ enum: ['xn--mnchen-3ya', 'ab'], oneOf: [{ format: 'hostname' }, { const: 'xn--mnchen-3ya' }] }, 'ab', true],
    [{ enum: ['xn--mnchen-3ya', 'ab'], if: { format: 'hostname' }, then: false }, 'xn--mnchen-3ya', false],
    [{ const: 'a@xn--mnchen-3ya.de', not: { format: 'email' } }, 'a@xn--mnchen-3ya.de', false],
    [{ const: { h: 'xn--mnchen-3ya' }, not: { properties: { h: { format: 'hostname' } } } }, { h: 'xn--mnchen-3ya' }, false],
    [{ type: 'array', items: { enum: ['xn--mnchen-3ya', 'x'] }, contains: { not: { format: 'hostname' } } }, ['xn--mnchen-3ya'], false],
    // Regexes ECMAScript reads with and without the u flag are regexes (the grammar writes fewer).
    [{ const: '(?<n>a)', not: { format: 'regex' } }, '(?<n>a)', false],
    [{ const: '(?<n>a)', format: 'regex' }, '(?<n>a)', true],
    [{ const: '(', not: { format: 'regex' } }, '(', true],
    // Formats 2020-12 does not define are annotations, whatever the validator knows of them.
    [{ const: 'garbage', not: { format: 'url' } }, 'garbage', false],
    [{ const: 'x', not: { format: 'hasOwnProperty' } }, 'x', false],
    [{ const: 'x', format: 'hasOwnProperty' }, 'x', true],
    [{ type: 'string', format: 'constructor' }, 'x', true],
    [{ type: 'string', not: { format: 'toString' } }, 'x', false],
    // An ASCII host name is an idn-hostname.
    [{ const: 'example.com', format: 'idn-hostname' }, 'example.com', true],
    [{ const: 'example.com', not: { format: 'idn-hostname' } }, 'example.com', false],
  ])('%j on %j: %s', (schema, value, expected) => {
    expect(accepts(compileSchema(schema), text(value))).toBe(expected);
  });

  it('reads every format as an annotation under formats: annotate', () => {
    expect(accepts(compileSchema({ const: 'x', not: { format: 'email' } }, { formats: 'annotate' }), '"x"')).toBe(false);
    expect(accepts(compileSchema({ const: 'x', format: 'email' }, { formats: 'annotate' }), '"x"')).toBe(true);
  });
});

describe('complements of hostname and email: strings surely outside them', () => {
  const valid = (format: string): string[] => formatSuiteCases().flatMap((c) => (c.format === format && c.valid && typeof c.data === 'string' ? [c.data] : []));

  it.each(['hostname', 'email'])('not %s refuses every valid one of the suite, A-labels too', (format) => {
    const strings = valid(format);
    expect(strings.length).toBeGreaterThanOrEqual(8);
    const grammar = compileSchema({ not: { format } });
    expect(strings.filter((s) => accepts(grammar, text(s)))).toEqual([]);
  });

  // (Not `example.`: ajv takes a trailing dot, the suite does not.)
  it('oneOf hostname or ipv4 agrees with ajv where no label may be an A-label', () => {
    const schema = { type: 'string', oneOf: [{ format: 'hostname' }, { format: 'ipv4' }] };
    const grammar = compileSchema(schema);
    const validate = ajvValidator(schema);
    const strings = ['example.com', '1.2.3.4', '256.1.1.1', 'a b', '-a', 'a-', 'a..b', '', 'a'.repeat(64), `${'a.'.repeat(126)}ab`, 'ab'];
    for (const s of strings) expect(accepts(grammar, text(s)), s).toBe(validate(s));
    // An A-label (valid or not) is undecided, in neither side's complement; a label with `--`
    // where an A-label's would be, or a hyphen at either end, is surely no host name.
    const complement = compileSchema({ not: { format: 'hostname' } });
    for (const s of ['xn--mnchen-3ya', 'XN--abc', 'a.xn--zz', 'xn--']) expect(accepts(complement, text(s)), s).toBe(false);
    for (const s of ['ab--cd', '-a', 'a-', 'a.-b', `xn--${'a'.repeat(60)}`]) expect(accepts(complement, text(s)), s).toBe(true);
  });
});
