// The JSON Schema compiler, data-driven: test/json-schema-cases/*.json hold schemas with
// instances they must accept and reject. ajv (draft 2020-12 with ajv-formats) checks every
// expectation first, so a wrong table entry fails loudly. Each instance is written with
// JSON.stringify, as Python's json.dumps writes it, and (default whitespace) indented, and fed
// byte by byte to the recognizer: accepted and complete iff valid. Options, warnings and
// errors follow as tables; fast-check properties cover property order, whitespace and random
// instances near the table's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGrammar, jsonSchemaGrammar, pythonJson, recognize, SchemaError, type CompiledGrammar, type JsonSchemaOptions } from '../src/index.ts';
import { accepts, ajvValidator, compileSchema, jsonTexts, longestWhitespaceRun } from './support/json-schema-oracle.ts';
import { nearInstances } from './support/json-instances.ts';

interface SchemaCase {
  readonly description: string;
  readonly schema: unknown;
  readonly options?: JsonSchemaOptions;
  /** Instances, written by the serializers. */
  readonly valid?: readonly unknown[];
  readonly invalid?: readonly unknown[];
  /** Exact JSON texts (number spellings, escapes, texts that are not JSON at all). */
  readonly validTexts?: readonly string[];
  readonly invalidTexts?: readonly string[];
}

const casesDir = join(import.meta.dirname, 'json-schema-cases');
const files: [string, SchemaCase[]][] = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as SchemaCase[]]);
const allCases = files.flatMap(([, cases]) => cases);

const grammars = new Map<SchemaCase, CompiledGrammar>();
function grammarOf(c: SchemaCase): CompiledGrammar {
  let grammar = grammars.get(c);
  if (grammar === undefined) grammars.set(c, (grammar = compileSchema(c.schema, c.options)));
  return grammar;
}

// What ajv says about a text: invalid when it is not JSON at all.
function ajvAccepts(schema: unknown, text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return ajvValidator(schema)(value);
}

// Texts of a value the grammar must treat alike. Indented text only with default whitespace,
// and only while its indentation fits the default cap of 20 (beyond, see the whitespace tests).
function textsOf(c: SchemaCase, value: unknown): string[] {
  const indented = c.options?.whitespace === undefined && longestWhitespaceRun(JSON.stringify(value, null, 2)) <= 20;
  return jsonTexts(value, indented);
}

// Texts whose acceptance differs from `valid`, as readable lines.
function mismatches(c: SchemaCase, valid: boolean): string[] {
  const texts = [...(valid ? (c.valid ?? []) : (c.invalid ?? [])).flatMap((v) => textsOf(c, v)), ...((valid ? c.validTexts : c.invalidTexts) ?? [])];
  const grammar = grammarOf(c);
  return texts.filter((text) => accepts(grammar, text) !== valid).map((text) => `${valid ? 'rejected' : 'accepted'} ${text}`);
}

describe.each(files)('%s', (_, cases) => {
  describe.each(cases.map((c) => [c.description, c] as const))('%s', (_, c) => {
    it('the table agrees with ajv', () => {
      const validate = ajvValidator(c.schema);
      const wrong = [
        ...(c.valid ?? []).filter((v) => !validate(v)).map((v) => `valid? ${JSON.stringify(v)}`),
        ...(c.invalid ?? []).filter((v) => validate(v)).map((v) => `invalid? ${JSON.stringify(v)}`),
        ...(c.validTexts ?? []).filter((t) => !ajvAccepts(c.schema, t)).map((t) => `valid? ${t}`),
        ...(c.invalidTexts ?? []).filter((t) => ajvAccepts(c.schema, t)).map((t) => `invalid? ${t}`),
      ];
      expect(wrong).toEqual([]);
      expect((c.valid?.length ?? 0) + (c.invalid?.length ?? 0), 'a case without instances').toBeGreaterThan(0);
    });

    it('accepts every valid instance', () => {
      expect(mismatches(c, true)).toEqual([]);
    });

    it('rejects every invalid instance', () => {
      expect(mismatches(c, false)).toEqual([]);
    });
  });
});

// ----- random instances near the table's, against ajv ---------------------------------------

describe('random instances near the table agree with ajv', () => {
  // Formats are left out: Sieve's format grammars are deliberately not ajv-formats' regexes.
  const comparable = allCases.filter((c) => c.options === undefined && !JSON.stringify(c.schema).includes('"format"'));

  const instance = (c: SchemaCase): fc.Arbitrary<unknown> => nearInstances([...(c.valid ?? []), ...(c.invalid ?? [])]);
  it.each(comparable.map((c) => [c.description, c] as const))('%s (both serializations)', (_, c) => {
    const validate = ajvValidator(c.schema);
    const grammar = grammarOf(c);
    fc.assert(
      fc.property(instance(c), (value) => {
        const valid = validate(value);
        for (const text of jsonTexts(value, false)) expect(accepts(grammar, text), text).toBe(valid);
      }),
      { numRuns: 40, seed: 20240601 },
    );
  });
});

// ----- property order ------------------------------------------------------------------------

describe('declared properties', () => {
  it('may appear in any order, each at most once, however many are declared', () => {
    const names = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const arb = fc.record({
      count: fc.integer({ min: 1, max: 40 }),
      required: fc.subarray(names),
      closed: fc.boolean(),
      bounds: fc.option(fc.tuple(fc.nat(6), fc.nat(6)), { nil: undefined }),
      // The instance: a shuffled choice of declared names, perhaps an undeclared one.
      order: fc.shuffledSubarray(names),
      extra: fc.boolean(),
      wrongType: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ count, required, closed, bounds, order, extra, wrongType }) => {
        const declared = names.slice(0, count);
        const schema = {
          type: 'object',
          properties: Object.fromEntries(declared.map((n) => [n, Number(n.slice(1)) % 2 === 0 ? { type: 'integer' } : { type: 'string' }])),
          required: required.filter((n) => declared.includes(n)),
          ...(closed ? { additionalProperties: false } : {}),
          ...(bounds ? { minProperties: Math.min(...bounds), maxProperties: Math.max(...bounds) } : {}),
        };
        const instance: Record<string, unknown> = {};
        for (const n of order) instance[n] = Number(n.slice(1)) % 2 === 0 ? 1 : 's';
        if (extra) instance.other = 0;
        if (wrongType && order.length > 0) instance[order[0]!] = null;
        const valid = ajvValidator(schema)(instance);
        const grammar = compileSchema(schema);
        for (const text of jsonTexts(instance, true)) expect(accepts(grammar, text), `${JSON.stringify(schema)}: ${text}`).toBe(valid);
      }),
      { numRuns: 150, seed: 42 },
    );
  }, 60_000);

  it('may not repeat', () => {
    const grammar = compileSchema({ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } });
    expect(accepts(grammar, '{"a":1,"b":2}')).toBe(true);
    expect(accepts(grammar, '{"a":1,"a":2}')).toBe(false);
    expect(accepts(grammar, '{"a":1,"b":2,"a":3}')).toBe(false);
  });

  it('object constants take their members in any order, each once (JSON.parse would keep the last of two)', () => {
    const grammar = compileSchema({ const: { a: 1, b: [true, { c: null, d: 'x' }] } });
    expect(accepts(grammar, '{"b": [true, {"d": "x", "c": null}], "a": 1}')).toBe(true);
    expect(recognize(grammar, new TextEncoder().encode('{"a":1,"a"')).rejectedAt).toBe('{"a":1,"'.length);
    expect(recognize(grammar, new TextEncoder().encode('{"a":1,"b":[true,{"c":null,"c"')).rejectedAt).toBe('{"a":1,"b":[true,{"c":null,"'.length);
    expect(accepts(grammar, '{"b": [{"c": null, "d": "x"}, true], "a": 1}')).toBe(false);
  });

  it('other keys are any string but a declared name, refused where the name closes (no dead end)', () => {
    // Other keys exclude the declared names' lexemes (no product is built): the lexer must
    // still refuse the closing quote of a repeated name itself, or a mask would allow a
    // token that nothing can follow.
    const grammar = compileSchema({ type: 'object', properties: { shape: { type: 'integer' }, size: { type: 'integer' } } });
    expect(accepts(grammar, '{"shape":1,"shap":2,"shapes":3,"":4,"sizes":5}')).toBe(true);
    const bytes = new TextEncoder().encode('{"shape":1,"shape":2}');
    expect(recognize(grammar, bytes).rejectedAt).toBe('{"shape":1,"shape'.length);
    expect(recognize(grammar, new TextEncoder().encode('{"x":1,"size":2,"size"')).rejectedAt).toBe('{"x":1,"size":2,"size'.length);
    // Keys are spelled as string values are (control characters, `"`, `\` and `/` escaped
    // any JSON way, the rest raw): a declared name is never another key, whatever its spelling.
    const slash = compileSchema({ type: 'object', properties: { 'a/b': { type: 'integer' } } });
    expect(accepts(slash, '{"a\\/b":1}')).toBe(true);
    expect(accepts(slash, '{"a\\/b":"x"}')).toBe(false);
    expect(accepts(grammar, '{"shape":1,"sh\\u0061pe":2}')).toBe(false);
    expect(accepts(grammar, '{"tab\\u0009":1,"x\\t":2}')).toBe(true);
  });

  it('may not repeat in an object of 40 declared properties either', () => {
    const grammar = compileSchema({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 'integer' }])),
      required: ['p39'],
    });
    expect(accepts(grammar, '{"p39":1,"p0":2,"p35":3}')).toBe(true);
    expect(accepts(grammar, '{"p39":1,"p0":2,"p39":3}')).toBe(false);
    expect(accepts(grammar, '{"p0":2,"p35":3}')).toBe(false);
  });
});

// ----- options -------------------------------------------------------------------------------

// `schema` with additionalProperties: false wherever an object schema leaves it out.
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' || k === 'const' ? v : closeObjects(v);
  const s = schema as Record<string, unknown>;
  if ((s.type === 'object' || s.properties !== undefined) && s.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

describe('strict: true', () => {
  const cases: { schema: unknown; instances: unknown[] }[] = [
    { schema: { type: 'object', properties: { a: { type: 'integer' } } }, instances: [{}, { a: 1 }, { b: 1 }, { a: 1, b: 2 }] },
    {
      schema: { type: 'object', properties: { p: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }, required: ['p'] },
      instances: [{ p: { q: 's' } }, { p: { q: 's', r: 1 } }, { p: { q: 's' }, x: 0 }],
    },
    { schema: { type: 'array', items: { type: 'object', properties: { a: {} } } }, instances: [[], [{ a: 1 }], [{ a: 1 }, { b: 1 }]] },
    { schema: { $defs: { o: { type: 'object', properties: { a: { type: 'null' } } } }, $ref: '#/$defs/o' }, instances: [{ a: null }, { a: null, b: null }] },
    // An explicit additionalProperties keeps its meaning.
    { schema: { type: 'object', properties: { a: {} }, additionalProperties: true }, instances: [{ a: 1, b: 2 }] },
    { schema: { type: 'object', properties: { a: {} }, additionalProperties: { type: 'integer' } }, instances: [{ a: 1, b: 2 }, { b: 'x' }] },
  ];
  it.each(cases)('$schema', ({ schema, instances }) => {
    const closed = ajvValidator(closeObjects(schema));
    const open = ajvValidator(schema);
    const grammar = compileSchema(schema, { strict: true });
    // The instances must tell strict from non-strict at least once per table, or the table is weak.
    for (const value of instances) {
      for (const text of jsonTexts(value, true)) expect(accepts(grammar, text), text).toBe(closed(value));
    }
    if (JSON.stringify(closeObjects(schema)) !== JSON.stringify(schema)) expect(instances.some((v) => closed(v) !== open(v))).toBe(true);
  });
});

// Places between the tokens of a JSON text (outside strings).
function tokenBoundaries(text: string): number[] {
  const at = new Set([0, text.length]);
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        at.add(i + 1);
      }
    } else if (c === '"') {
      inString = true;
      at.add(i);
    } else if ('{}[],:'.includes(c)) {
      at.add(i);
      at.add(i + 1);
    }
  }
  return [...at].sort((a, b) => a - b);
}

describe('whitespace', () => {
  const schema = { type: 'object', properties: { a: { type: 'array', items: { type: 'integer' } }, b: { type: 'string' } }, required: ['a'] };
  const values = [{ a: [] }, { a: [1, 2, 3], b: 'x y' }, { b: '  spaced  ', a: [0] }];
  const grammarFor = (whitespace: JsonSchemaOptions['whitespace']): CompiledGrammar => compileSchema(schema, whitespace === undefined ? {} : { whitespace });
  const defaultGrammar = grammarFor(undefined);
  const compactGrammar = grammarFor({ style: 'compact' });

  it('exact separators allow exactly that spelling', () => {
    const python = grammarFor({ separators: { item: ', ', key: ': ' } });
    for (const value of values) {
      expect(accepts(python, pythonJson(value))).toBe(true);
      expect(accepts(python, JSON.stringify(value)), JSON.stringify(value)).toBe(JSON.stringify(value) === pythonJson(value));
    }
    expect(accepts(python, '{"a": [1,2]}')).toBe(false);
    expect(accepts(python, '{ "a": []}')).toBe(false);
    const compact = grammarFor({ separators: { item: ',', key: ':' } });
    expect(values.every((v) => accepts(compact, JSON.stringify(v)))).toBe(true);
    expect(accepts(compact, '{"a": []}')).toBe(false);
  });

  it('bad separators and caps are refused', () => {
    expect(() => grammarFor({ separators: { item: ';', key: ':' } })).toThrow(RangeError);
    expect(() => grammarFor({ separators: { item: ',', key: ' := ' } })).toThrow(RangeError);
    expect(() => grammarFor({ maxRun: 0 })).toThrow(RangeError);
  });

  // Whitespace runs of length 0..25 from " \n\t\r" inserted at distinct token boundaries.
  const withWhitespace = fc
    .tuple(fc.constantFrom(...values), fc.array(fc.tuple(fc.nat(), fc.array(fc.constantFrom(' ', '\n', '\t', '\r'), { maxLength: 25 })), { maxLength: 4 }))
    .map(([value, insertions]) => {
      const text = JSON.stringify(value);
      const boundaries = tokenBoundaries(text);
      const runs = new Map<number, string>();
      for (const [n, chars] of insertions) runs.set(boundaries[n % boundaries.length]!, chars.join(''));
      let out = '';
      for (let i = 0; i <= text.length; i++) out += (runs.get(i) ?? '') + (text[i] ?? '');
      return { text: out, longest: Math.max(0, ...[...runs.values()].map((r) => r.length)) };
    });

  it('default: any JSON whitespace between tokens, at most 20 in a row', () => {
    fc.assert(
      fc.property(withWhitespace, ({ text, longest }) => {
        expect(accepts(defaultGrammar, text), JSON.stringify(text)).toBe(longest <= 20);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('compact: no whitespace at all between tokens', () => {
    fc.assert(
      fc.property(withWhitespace, ({ text, longest }) => {
        expect(accepts(compactGrammar, text), JSON.stringify(text)).toBe(longest === 0);
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it('default: indented JSON (JSON.stringify(x, null, 2)) and Python separators', () => {
    for (const value of values) {
      expect(accepts(defaultGrammar, JSON.stringify(value, null, 2))).toBe(true);
      expect(accepts(defaultGrammar, JSON.stringify(value, null, '\t'))).toBe(true);
      expect(accepts(defaultGrammar, pythonJson(value))).toBe(true);
    }
  });

  it('compact: JSON.stringify only; not indented, not Python separators', () => {
    for (const value of values) {
      expect(accepts(compactGrammar, JSON.stringify(value))).toBe(true);
      expect(accepts(compactGrammar, JSON.stringify(value, null, 2))).toBe(false);
      expect(accepts(compactGrammar, pythonJson(value))).toBe(false);
      expect(accepts(compactGrammar, ` ${JSON.stringify(value)}`)).toBe(false);
    }
  });

  it('default: indentation deeper than the cap is refused', () => {
    const grammar = compileSchema({});
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    // Depth 9: a newline and 18 spaces; depth 10: a newline and 20 spaces (21 in a row).
    expect(longestWhitespaceRun(JSON.stringify(nested(9), null, 2))).toBe(19);
    expect(accepts(grammar, JSON.stringify(nested(9), null, 2))).toBe(true);
    expect(accepts(grammar, JSON.stringify(nested(10), null, 2))).toBe(false);
  });

  it('a maxRun of its own', () => {
    const grammar = grammarFor({ maxRun: 2 });
    expect(accepts(grammar, '{ "a" :  [ ] }')).toBe(true);
    expect(accepts(grammar, '{ "a" :   [ ] }')).toBe(false);
  });

  it('inside strings is content, not capped', () => {
    const text = JSON.stringify({ a: [], b: ' '.repeat(50) });
    expect(accepts(compactGrammar, text)).toBe(true);
    expect(accepts(defaultGrammar, text)).toBe(true);
  });
});

// ----- unsupported keywords and invalid schemas -------------------------------------------------

function schemaError(schema: unknown, options: JsonSchemaOptions = {}): SchemaError {
  try {
    jsonSchemaGrammar(schema, options);
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error(`expected a SchemaError for ${JSON.stringify(schema)}`);
}

// [schema, pointer of the schema object at fault, keyword]
const UNSUPPORTED: [unknown, string, string][] = [
  [{ properties: { a: { if: { type: 'string', format: 'regex' }, else: { minLength: 1 } } } }, '/properties/a', 'if'],
  [{ type: 'array', uniqueItems: true, minItems: 2, items: { type: 'integer', maximum: 100 } }, '', 'uniqueItems'],
  [{ type: 'array', items: { type: 'array', uniqueItems: true, items: { type: ['number', 'string'], maximum: 1, maxLength: 1 } } }, '/items', 'uniqueItems'],
  // Counts of four contains on arrays of up to 40 items: 41 × 4 × 3^3 rules.
  [
    {
      type: 'array',
      maxItems: 40,
      contains: { type: 'integer' },
      minContains: 3,
      allOf: [1, 2, 3].map((n) => ({ contains: { const: n }, minContains: 2 })),
    },
    '',
    'contains',
  ],
  [
    { properties: { a: { type: 'object', dependentSchemas: { c: { properties: { b: {} } } }, unevaluatedProperties: false } } },
    '/properties/a',
    'unevaluatedProperties',
  ],
  [{ type: 'object', allOf: [{ patternProperties: { '^b': {} } }], unevaluatedProperties: false }, '', 'unevaluatedProperties'],
  [{ oneOf: [{ type: 'string' }, { format: 'regex' }] }, '', 'oneOf'],
  [{ type: 'number', multipleOf: 12345.678 }, '', 'multipleOf'],
  [{ type: 'string', format: 'idn-email' }, '', 'format'],
  [{ not: { type: 'object', propertyNames: { not: { if: { pattern: 'a' }, then: { maxLength: 2 }, else: { const: 'bb' } } } } }, '', 'not'],
  [{ type: 'object', properties: { s: { type: 'string', pattern: '(?<=a)b' } } }, '/properties/s', 'pattern'],
];

// [schema, pointer, keyword]
const INVALID: [unknown, string, string][] = [
  [{ type: 'string', minLength: -1 }, '', 'minLength'],
  [{ type: 'array', maxItems: 1.5 }, '', 'maxItems'],
  [{ type: 'foo' }, '', 'type'],
  [{ properties: { a: { type: 'foo' } } }, '/properties/a', 'type'],
  [{ items: { properties: { a: { type: ['string', 'bar'] } } } }, '/items/properties/a', 'type'],
  [{ $ref: '#/$defs/missing' }, '', '$ref'],
  [{ properties: { a: { $ref: '#/definitions/nope' } } }, '/properties/a', '$ref'],
  [{ type: 'string', pattern: '(' }, '', 'pattern'],
  [{ properties: { x: { type: 'string', pattern: '[a-' } } }, '/properties/x', 'pattern'],
  [{ type: 'object', patternProperties: { '(': {} } }, '', 'patternProperties'],
  [{ enum: 3 }, '', 'enum'],
  [{ allOf: [] }, '', 'allOf'],
  [{ type: 'integer', minimum: '3' }, '', 'minimum'],
  [{ type: 'number', multipleOf: 0 }, '', 'multipleOf'],
  [5, '', ''],
];

describe('unsupported keywords', () => {
  it.each(UNSUPPORTED)('%j: unsupported at %j (%s)', (schema, pointer, keyword) => {
    const error = schemaError(schema);
    expect({ code: error.code, pointer: error.pointer, keyword: error.keyword }).toEqual({ code: 'unsupported', pointer, keyword });
  });

  it.each(UNSUPPORTED)('%j: lenient turns it into a warning at %j (%s)', (schema, pointer, keyword) => {
    const { warnings } = jsonSchemaGrammar(schema, { lenient: true });
    expect(warnings.map((w) => ({ pointer: w.pointer, keyword: w.keyword }))).toContainEqual({ pointer, keyword });
    expect(warnings.every((w) => w.message.length > 0)).toBe(true);
  });

  it('lenient leaves the keyword unenforced and the rest enforced', () => {
    const { grammar, warnings } = jsonSchemaGrammar(
      { type: 'array', items: { type: 'integer', minimum: 0, maximum: 1000 }, uniqueItems: true, minItems: 2, maxItems: 3 },
      { lenient: true },
    );
    expect(warnings).toHaveLength(1);
    const compiled = compileGrammar(grammar);
    expect(accepts(compiled, '[1,1]')).toBe(true);
    expect(accepts(compiled, '[1,"a"]')).toBe(false);
    expect(accepts(compiled, '[1]')).toBe(false);
    expect(accepts(compiled, '[1,2,3,4]')).toBe(false);
  });

  it('no warnings for a supported schema', () => {
    expect(jsonSchemaGrammar({ type: 'object', properties: { a: { type: 'string', format: 'date' } } }, { lenient: true }).warnings).toEqual([]);
  });
});

describe('invalid schemas', () => {
  it.each(INVALID)('%j: invalid_schema at %j (%s)', (schema, pointer, keyword) => {
    const error = schemaError(schema);
    expect({ code: error.code, pointer: error.pointer, keyword: error.keyword }).toEqual({ code: 'invalid_schema', pointer, keyword });
  });

  it.each(INVALID)('%j: still an error when lenient', (schema) => {
    expect(schemaError(schema, { lenient: true }).code).toBe('invalid_schema');
  });

  it('names the pointer in the message', () => {
    expect(schemaError({ properties: { a: { type: 'foo' } } }).message).toContain('/properties/a');
  });
});

describe('size', () => {
  // Each level refers to the next twice: written out, the schema doubles 23 times.
  const doubling = (levels: number, sibling: (i: number) => Record<string, unknown>): unknown => ({
    $defs: Object.fromEntries(
      Array.from({ length: levels }, (_, i) => [
        `l${i}`,
        i === levels - 1 ? { type: 'integer' } : { ...sibling(i), allOf: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] },
      ]),
    ),
    $ref: '#/$defs/l0',
    minimum: 0,
  });

  it('schemas shared through many references are expanded once', () => {
    const grammar = compileSchema(doubling(24, () => ({})));
    expect(['0', '7'].filter((t) => !accepts(grammar, t))).toEqual([]);
    expect(['-1', '1.5', '"0"'].filter((t) => accepts(grammar, t))).toEqual([]);
  });

  it('an intersection met again through recursive definitions shares its rule, however its allOfs nest', () => {
    // T ∧ U: U refines T's array type (UArr = Arr ∧ {items: U}), so the items of a merged array
    // type are T ∧ (T ∧ U), then T ∧ (T ∧ (T ∧ U)), …: nested ever deeper, one meaning. Written
    // out, every level multiplied the rules (and the anyOf branches) of the one before.
    const schema = {
      $defs: {
        T: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/Arr' }, { type: 'array', items: { $ref: '#/$defs/T' } }] },
        Arr: {
          type: 'object',
          properties: { type: { const: 'array' }, items: { $ref: '#/$defs/T', description: 'the item type' } },
          required: ['type', 'items'],
        },
        U: { anyOf: [{ type: 'string', maxLength: 3 }, { $ref: '#/$defs/UArr' }, { type: 'array', items: { $ref: '#/$defs/U' } }] },
        UArr: { allOf: [{ $ref: '#/$defs/Arr' }, { type: 'object', properties: { items: { $ref: '#/$defs/U' } } }] },
      },
      type: 'object',
      properties: { type: { allOf: [{ $ref: '#/$defs/T' }, { $ref: '#/$defs/U' }] } },
    };
    const { grammar } = jsonSchemaGrammar(schema, { maxRules: 20 });
    expect(grammar.rules.size).toBeLessThanOrEqual(20);
    // Deep instances against ajv (more in json-schema-cases/refs.json).
    const compiled = compileGrammar(grammar);
    const validate = ajvValidator(schema);
    const nested = (depth: number, leaf: string): unknown =>
      depth === 0 ? leaf : { type: 'array', items: depth % 2 === 0 ? nested(depth - 1, leaf) : [nested(depth - 1, leaf)] };
    const instances = [8, 12].flatMap((depth) => [nested(depth, 'abc'), nested(depth, 'abcd')]).map((type) => ({ type }));
    expect(instances.map((v) => validate(v))).toEqual([true, false, true, false]);
    expect(instances.flatMap((v) => jsonTexts(v, false).filter((text) => accepts(compiled, text) !== validate(v)))).toEqual([]);
  });

  it('a recursive oneOf of overlapping objects converges: a schema beside its own complement is nothing', () => {
    // Text resources (a real schema's shape): a string, or one of several selector objects whose
    // members are resources again. `{"ref": …}` is both a reference and a locale selector (`ref`
    // is three letters), so each branch is built beside the others' complements, and those of
    // its members' resources; merged again at every level, members came out as `R ∧ ¬R`, which
    // holds for nothing but was built on, every level a new rule (past 400,000 rules).
    const schema = {
      $defs: {
        R: { oneOf: [{ type: 'string' }, { $ref: '#/$defs/S' }] },
        S: {
          oneOf: [
            {
              type: 'object',
              properties: { ios: { $ref: '#/$defs/R' }, android: { $ref: '#/$defs/R' } },
              required: ['ios', 'android'],
              additionalProperties: false,
            },
            { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'], additionalProperties: false },
            { type: 'object', properties: { inherit: { const: true } }, required: ['inherit'], additionalProperties: false },
            { type: 'object', patternProperties: { '^([0-9]\\.?[0-9]*)x$': { $ref: '#/$defs/R' } }, additionalProperties: false, minProperties: 1 },
            {
              type: 'object',
              patternProperties: { '^[a-z]{2,3}$': { $ref: '#/$defs/R' } },
              additionalProperties: false,
              minProperties: 1,
              not: { required: ['ios'] },
            },
          ],
        },
      },
      $ref: '#/$defs/R',
    };
    const { grammar } = jsonSchemaGrammar(schema, { maxRules: 2_000 });
    const compiled = compileGrammar(grammar);
    const validate = ajvValidator(schema);
    const bases = [
      { ref: 'x' },
      { ref: { en: 'a' } },
      { ios: 'a', android: { '2x': 'b', '1.5x': { de: 'c' } } },
      { en: 'a', fr: { ref: 'b' } },
      { ios: 'a' },
      'text',
    ];
    expect(bases.map((v) => validate(v))).toEqual([false, true, true, false, false, true]);
    const wrong: string[] = [];
    let valid = 0;
    fc.assert(
      fc.property(nearInstances(bases), (value) => {
        if (validate(value)) valid++;
        for (const text of jsonTexts(value, false)) if (accepts(compiled, text) !== validate(value)) wrong.push(text);
      }),
      { numRuns: 300, seed: 5 },
    );
    expect(wrong).toEqual([]);
    expect(valid).toBeGreaterThan(20);
  });

  it('conditionals on one required member (a discriminator) make a branch per value, not per subset', () => {
    // 30 `if`s that each test `kind`: both ways of each would be 2^30 branches; an intersection
    // of two discriminator values allows no `kind`, so it is cut where it is merged (what is
    // left grows with the square of the count: each value's branch meets every other else).
    const kinds = 30;
    const schema = {
      type: 'object',
      properties: { kind: { type: 'string' } },
      required: ['kind'],
      allOf: Array.from({ length: kinds }, (_, i) => ({
        if: { properties: { kind: { const: `k${i}` } } },
        then: { properties: { [`p${i}`]: { type: 'integer' } }, required: [`p${i}`] },
        else: { not: { required: [`p${i}`] } },
      })),
    };
    const { grammar } = jsonSchemaGrammar(schema, { maxRules: 2_000 });
    const compiled = compileGrammar(grammar);
    const validate = ajvValidator(schema);
    const instances = [
      { kind: 'k7', p7: 1 },
      { kind: 'k7' },
      { kind: 'k7', p7: 1, p8: 2 },
      { kind: 'other' },
      { kind: 'other', p0: 1 },
      { kind: 'k29', p29: 'x' },
      { p3: 1 },
    ];
    expect(instances.map((v) => validate(v))).toEqual([true, false, false, true, false, false, false]);
    expect(instances.flatMap((v) => jsonTexts(v, false).filter((text) => accepts(compiled, text) !== validate(v)))).toEqual([]);
  });

  it('a string bound too large for the lexer automaton is a limit error naming the schema pointer', () => {
    // The length is counted; the pattern's own large count (one the length could reach), in
    // the same intersection, is copied.
    const ir = jsonSchemaGrammar({ type: 'object', properties: { a: { type: 'string', pattern: '^(xy|z){1,30000}$', maxLength: 40_000 } } }).grammar;
    expect(() => compileGrammar(ir)).toThrow(
      expect.objectContaining({ code: 'limit_exceeded', limit: 'maxNfaStates', lexeme: { name: 'STRING', origin: '/properties/a' } }),
    );
  });

  it('a schema that expands to more than maxRules rules is a limit error', () => {
    const schema = { type: 'array', prefixItems: Array.from({ length: 40 }, (_, i) => ({ type: 'object', properties: { [`p${i}`]: { type: 'string' } } })) };
    expect(() => jsonSchemaGrammar(schema)).not.toThrow();
    expect(() => jsonSchemaGrammar(schema, { maxRules: 20 })).toThrow(expect.objectContaining({ code: 'limit_exceeded', limit: 'maxSchemaRules', value: 20 }));
  });
});

// Documented limits of exactness (packages/grammar/README.md, "JSON Schema"): each is a
// refusal — a valid text rejected or an unsupported error — never an invalid text accepted.
describe('documented limitations', () => {
  it('bounded numbers take exponent forms only where the sign or size class settles the bound; multiples take none', () => {
    const grammar = compileSchema({ type: 'number', minimum: 0, maximum: 1 });
    expect(['0', '0.5', '1', '1.0', '0.00001', '0e5', '1e-5', '1E-7'].filter((t) => !accepts(grammar, t))).toEqual([]);
    // 5e-1 is in [0, 1] but is refused: the bound settles only one-digit mantissas with a negative exponent.
    expect(['1.5', '-1e-7', '1ee2', '2e0', '5e-1x', '0.5e0'].filter((t) => accepts(grammar, t))).toEqual([]);
    const wide = compileSchema({ type: 'number', minimum: 0, maximum: 5 });
    expect(['1e-06', '2.5E-3', '0e0'].filter((t) => !accepts(wide, t))).toEqual([]);
    expect(['1e1', '-1e-06', '5.5e0'].filter((t) => accepts(wide, t))).toEqual([]);
    expect(accepts(compileSchema({ type: 'number', multipleOf: 0.1 }), '1e0')).toBe(false);
  });

  it('format "regex" takes only patterns ECMAScript reads with the u flag (random strings of regex characters)', () => {
    const grammar = compileSchema({ type: 'string', format: 'regex' });
    const chars = [...'ab09^$\\.*+?()[]{}|/-,:dwsxuBnéz&~=!<'];
    let taken = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 10 }), (list) => {
        const pattern = list.join('');
        if (!accepts(grammar, JSON.stringify(pattern))) return;
        taken++;
        expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      }),
      { numRuns: 20_000, seed: 8 },
    );
    expect(taken).toBeGreaterThan(500);
  });

  it('format "regex" refuses valid patterns some engine does not read (Python, or ECMAScript with the u flag), or nested deeper than 4 groups', () => {
    const grammar = compileSchema({ type: 'string', format: 'regex' });
    const validate = ajvValidator({ format: 'regex' });
    const refused = [
      '(?<n>a)\\k<n>',
      '(a)\\1',
      '(?=a)',
      '(?<=a)b',
      '(((((a)))))',
      '[!-~]',
      'x{100,150}',
      '\\p{L}',
      '[^^]',
      '\\cJ',
      '\\q',
      '{',
      ']',
      'a{,5}',
      '\\Z',
    ];
    expect(refused.filter((pattern) => !validate(pattern))).toEqual([]);
    expect(refused.filter((pattern) => accepts(grammar, JSON.stringify(pattern)))).toEqual([]);
  });

  it('numbers JavaScript writes with an exponent are accepted in that spelling and in plain decimals', () => {
    const grammar = compileSchema({ const: 1e21 });
    expect(['1e+21', '1000000000000000000000', '1000000000000000000000.0'].filter((t) => !accepts(grammar, t))).toEqual([]);
    expect(['1ee21', '1e21x', '2e+21', '100000000000000000000'].filter((t) => accepts(grammar, t))).toEqual([]);
  });
});

describe('the ajv oracle (support/json-schema-oracle.ts)', () => {
  it('reads the names of properties and definitions as names, not keywords of a later draft', () => {
    // (`dependencies` became `dependentSchemas`, and under draft 4 `if` was dropped, inside
    // `properties` too: a walk that wrote such a member was judged invalid.)
    const draft4 = 'http://json-schema.org/draft-04/schema#';
    for (const [schema, value] of [
      [{ type: 'object', additionalProperties: false, properties: { dependencies: { type: 'object' } } }, { dependencies: {} }],
      [{ $schema: draft4, type: 'object', additionalProperties: false, properties: { if: { type: 'string' } } }, { if: 'x' }],
      [{ type: 'object', properties: { a: { $ref: '#/definitions/dependencies' } }, definitions: { dependencies: { type: 'string' } } }, { a: 'x' }],
    ] as const) {
      expect(ajvValidator(schema)(value), JSON.stringify(schema)).toBe(true);
      expect(accepts(compileSchema(schema), JSON.stringify(value))).toBe(true);
    }
  });
});

describe('keywords beside $ref in drafts 4 to 7', () => {
  it('are ignored, as those drafts say, and each place is said in a warning', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { hook: { type: 'object', properties: { id: { type: 'string' } } }, s: { type: 'string' } },
      type: 'object',
      properties: {
        hooks: { type: 'array', items: { $ref: '#/definitions/hook', required: ['entry'] } },
        url: { allOf: [{ $ref: '#/definitions/s', pattern: '^https?://' }] },
      },
    };
    const { grammar, warnings } = jsonSchemaGrammar(draft7);
    expect(warnings.map((w) => [w.pointer, w.keyword, w.message.startsWith(w.pointer.endsWith('0') ? 'pattern' : 'required')])).toEqual([
      ['/properties/hooks/items', '$ref', true],
      ['/properties/url/allOf/0', '$ref', true],
    ]);
    expect(accepts(compileGrammar(grammar), '{"hooks": [{"id": "x"}], "url": "ftp://x"}')).toBe(true);
    // From 2019-09 on they are read, and nothing is said.
    const current = Object.fromEntries(Object.entries(draft7).filter(([keyword]) => keyword !== '$schema'));
    const read = jsonSchemaGrammar(current);
    expect(read.warnings).toEqual([]);
    expect(accepts(compileGrammar(read.grammar), '{"hooks": [{"id": "x"}]}')).toBe(false);
  });
});

describe('formats JSON Schema does not define', () => {
  it('are annotations, each said in a warning with its pointer (OpenAPI int32 and byte, url)', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'byte' },
        b: { type: 'integer', format: 'int32' },
        c: { format: 'url' },
        d: { type: 'string', format: 'date' },
      },
    };
    const { grammar, warnings } = jsonSchemaGrammar(schema);
    expect(warnings.map((w) => [w.pointer, w.keyword, w.message.includes('annotation')])).toEqual([
      ['/properties/a', 'format', true],
      ['/properties/b', 'format', true],
      ['/properties/c', 'format', true],
    ]);
    expect(accepts(compileGrammar(grammar), '{"a": "not base64!", "b": 3000000000, "c": "x", "d": "2020-01-01"}')).toBe(true);
    // Read as annotations on purpose, they are not warned about.
    expect(jsonSchemaGrammar(schema, { formats: 'annotate' }).warnings).toEqual([]);
  });
});

describe('formats read as annotations (formats: "annotate", JSON Schema\'s default vocabulary)', () => {
  // ajv without format validation: a format asserts nothing.
  it.each([
    [{ type: 'string', format: 'email' }, ['"x"', '"a@b.c"', '1'], [true, true, false]],
    [{ format: 'idn-hostname' }, ['"x"', '{}'], [true, true]],
    [{ type: 'array', items: { format: 'date-time' }, uniqueItems: true }, ['["x","y"]', '["x","x"]'], [true, false]],
    [{ not: { format: 'hostname' } }, ['"a"', '1'], [false, false]],
    [{ type: 'object', propertyNames: { format: 'uuid' } }, ['{"x":1}'], [true]],
  ] as const)('%j', (schema, texts, expected) => {
    const grammar = compileGrammar(jsonSchemaGrammar(schema, { formats: 'annotate' }).grammar);
    texts.forEach((text, i) => expect(accepts(grammar, text), text).toBe(expected[i]));
    // Asserted (the default), the same texts follow the formats.
    expect(accepts(compileGrammar(jsonSchemaGrammar({ type: 'string', format: 'email' }).grammar), '"x"')).toBe(false);
  });
});
