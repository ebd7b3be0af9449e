// Objects whose member names must be distinct (src/matcher/unique-items.ts, `distinctKeys`):
// where members no name tracks count toward a minProperties of 2 or more, or witness a `not`,
// a name written twice would leave a parser one member of two (`{"a": "x", "a": "y"}` is one
// member to JSON.parse), so the matchers refuse a repeated name. Masks are walked token by
// token against an oracle that shares no code with the check: the schema's grammar without it
// (the same schema where no name is counted) and a scanner for repeated names.
import { loadKernel, type Kernel } from '@sieve/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelGrammar, KernelMatcher, Matcher } from '../src/index.ts';
import { UniqueItems, withoutRepeatedItems } from '../src/matcher/unique-items.ts';
import { nearInstances } from './support/json-instances.ts';
import { accepts, ajvValidator, compileSchema, jsonTexts, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { bitsetIds } from './support/oracle.ts';
import { walkAgainstOracle } from './support/unique-walks.ts';
import { vocab } from './support/vocabs.ts';

let kernel: Kernel;
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

const counted = { type: 'object', minProperties: 2, additionalProperties: { type: 'object', minProperties: 2, additionalProperties: { type: 'integer' } } };
const witnessed = { type: 'object', properties: { a: { type: 'integer' } }, not: { additionalProperties: { type: 'string' } } };
const patterned = {
  type: 'object',
  properties: { a: { type: 'integer' } },
  patternProperties: { '^x': { type: 'integer' } },
  additionalProperties: false,
  minProperties: 3,
};

describe('objects whose member names must be distinct', () => {
  it('commit refuses a name written before in the same object, however spelled (kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const grammar = compileSchema(counted);
    for (const [written, refused, allowed] of [
      ['{"a":{"x":1,"y":2},', '"a"', '"b":{"x":1,"y":2}}'],
      ['{"/":{"x":1,"y":2},', '"\\/"', '"\\u000a":{"x":1,"y":2}}'],
      ['{"\\n":{"x":1,"y":2},', '"\\u000A"', '"/":{"x":1,"y":2}}'],
      ['{"a":{"x":1,', '"x"', '"y":2},"b":{"x":1,"y":2}}'],
      // (Names are distinct per object: the inner ones may be the outer ones.)
      ['{"a":{"a":1,', '"a"', '"b":2},"b":{"a":1,"b":2}}'],
    ] as const) {
      for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
        expect(matcher.commitBytes(bytes(written)), written).toBe(true);
        expect(matcher.commitBytes(bytes(refused)), `${written}${refused}`).toBe(false);
        expect(matcher.commitBytes(bytes(allowed)), `${written}${allowed}`).toBe(true);
        expect(matcher.isAccepting()).toBe(true);
      }
    }
  });

  it.each([
    [
      'members counted toward minProperties',
      counted,
      (path: readonly (string | number)[]) => path.length <= 1,
      ['{"a":{"x":1,"x', '{"":{"x":1,"y":2},"', '{"a":{"":1,"'],
    ],
    ['members named by a pattern that never closes', patterned, () => true, ['{"x":1,"x', '{"a":1,"xy":2,"x', '{"x":1,"a":2,"']],
    // (`{"x": 1, "x": "s"}` reads as `{"x": "s"}`: no member that is not a string.)
    ['a member witnessing a not', witnessed, () => true, ['{"x":1,"x', '{"a":1,"b":[],"b', '{"":{},"']],
  ] as const)(
    '%s: masks equal the oracle (stories260k, every token)',
    (_, schema, names, starts) => {
      const masked = walkAgainstOracle(schema, () => false, starts, { kernel, walks: 6, steps: 40, vocab: 'stories260k', names });
      expect(masked.repeated).toBeGreaterThan(0);
    },
    120_000,
  );

  it('masks equal the oracle with llama3.1, whose tokens close one name and write another', () => {
    const masked = walkAgainstOracle(counted, () => false, ['{"a":{"x":1,"x', '{"":{"x":1,"y":2},"'], {
      kernel,
      walks: 3,
      steps: 20,
      vocab: 'llama3.1',
      names: (path) => path.length <= 1,
    });
    expect(masked.repeated).toBeGreaterThan(0);
  }, 120_000);

  it('a witness is not undone by its name written again (kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const grammar = compileSchema(witnessed);
    for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
      expect(matcher.commitBytes(bytes('{"x":1,'))).toBe(true);
      expect(matcher.commitBytes(bytes('"x"'))).toBe(false);
      expect(matcher.commitBytes(bytes('"y":"s"}'))).toBe(true);
      expect(matcher.isAccepting()).toBe(true);
    }
  });

  it('a witness among names that may run out is refused (a name written again would undo it); endless propertyNames keep names distinct', () => {
    // {"x":1,"x":"s"} is {"x":"s"} to JSON.parse: no member witnesses the not.
    const runsOut = { ...witnessed, propertyNames: { enum: ['a', 'x', 'y'] } };
    expect(schemaErrorOf(runsOut)).toMatchObject({ code: 'unsupported', keyword: 'not' });
    expect(schemaErrorOf({ ...witnessed, propertyNames: { pattern: '^....$' } })).toMatchObject({ code: 'unsupported', keyword: 'not' });
    // An object whose names may run out but whose complements speak of named members only compiles.
    const other = { propertyNames: { maxLength: 2 }, not: { required: ['zz'] } };
    expect(schemaErrorOf({ properties: { p: witnessed, q: other } })).toBeUndefined();
    // Names of endlessly many completions (a pattern that repeats): kept distinct, as without propertyNames.
    const endless = { ...witnessed, propertyNames: { pattern: '^(?:[a-z][0-9])+$' } };
    const grammar = compileSchema(endless);
    expect(grammar.ir.uniqueArrays).toBeDefined();
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
      expect(matcher.commitBytes(bytes('{"x1":1,'))).toBe(true);
      expect(matcher.commitBytes(bytes('"x1"'))).toBe(false);
      expect(matcher.commitBytes(bytes('"y2":"s"}'))).toBe(true);
      expect(matcher.isAccepting()).toBe(true);
    }
  });

  it('where an object holds one member at most, no name can be written twice: a witness among names that may run out compiles, exact against ajv', () => {
    // (Handwritten MaskBench shapes: a complement of patternProperties witnessed by the one member.)
    const one = (schema: object): object => ({ ...schema, maxProperties: 1 });
    const names4 = { type: 'object', propertyNames: { pattern: '^....$' }, not: { patternProperties: { a: { not: { type: 'string', pattern: 'A' } } } } };
    const names4Enum = { ...witnessed, propertyNames: { enum: ['a', 'x', 'y'] } };
    for (const schema of [names4, names4Enum]) {
      expect(schemaErrorOf(schema)).toMatchObject({ code: 'unsupported', keyword: 'not' });
      const grammar = compileSchema(one(schema));
      // (The object itself; objects inside its values are any objects, kept distinct as ever.)
      expect(grammar.ir.uniqueArrays?.states[0]!.distinctKeys ?? false).toBe(false);
      expectAgreement(one(schema), nearInstances([{ xaxx: 'A' }, { abcd: 'zAz' }, { bbbb: 'A' }, { x: 'a' }, { a: 1, x: 's' }, { y: 'A' }, {}]), {
        numRuns: 300,
        seed: 7,
        texts: (value) => jsonTexts(value, false),
      });
    }
  });

  it('a complement witnessed by a name alone (`not: {propertyNames}`) needs no distinct names: a name written again stays, exact against ajv', () => {
    const named = {
      type: 'object',
      propertyNames: { pattern: '^..$' },
      maxProperties: 2,
      allOf: [{ not: { propertyNames: { not: { pattern: 'a' } } } }, { not: { propertyNames: { not: { pattern: 'b' } } } }],
    };
    const grammar = compileSchema(named);
    expect(grammar.ir.uniqueArrays?.states[0]!.distinctKeys ?? false).toBe(false);
    expectAgreement(named, nearInstances([{ ab: 1 }, { ax: 1, xb: 2 }, { ax: 1 }, { xy: 1, zb: 2 }, {}]), {
      numRuns: 300,
      seed: 5,
      texts: (value) => jsonTexts(value, false),
    });
    // Written twice, a name is still there (JSON.parse keeps its last value).
    const validate = ajvValidator(named);
    for (const text of ['{"ab": 1, "ab": 2}', '{"ax": 1, "ax": 2}', '{"ax": 1, "xb": 2, "ax": 3}']) {
      expect(accepts(grammar, text), text).toBe(text.split(',').length <= 2 && validate(JSON.parse(text)));
    }
  });

  it('witnesses by name alone keep no names distinct anywhere: names a combination restricts cannot run into a dead end', () => {
    // (Names were kept distinct where the object's own names looked endless, while a `oneOf`
    // sibling's complement, an `if` condition's negation or a `not` of a `not` allowed only
    // one-character names: after `{"b":1,"b` nothing could follow.)
    const index = vocab('stories260k');
    for (const schema of [
      { oneOf: [{ not: { propertyNames: { maxLength: 1 } } }, { not: { propertyNames: { pattern: 'a' } } }] },
      { if: { not: { propertyNames: { maxLength: 1 } } }, then: { propertyNames: { pattern: '^a' } } },
      { allOf: [{ not: { not: { propertyNames: { maxLength: 1 } } } }], not: { propertyNames: { pattern: 'a' } } },
    ]) {
      const grammar = compileSchema(schema);
      expect(grammar.ir.uniqueArrays).toBeUndefined();
      const matcher = new Matcher(grammar, index);
      expect(matcher.commitBytes(new TextEncoder().encode('{"b":1,"b'))).toBe(true);
      expect(matcher.shortestCompletion()).not.toBeNull();
      const validate = ajvValidator(schema);
      for (const text of ['{"b":1,"b":2}', '{"b":1,"bb":2}', '{"a":1,"a":2}', '{"ab":1}'])
        expect(accepts(grammar, text), text).toBe(validate(JSON.parse(text)));
    }
  });

  it('names a combination restricts where a witness by value is: refused where they may run out, kept distinct where they cannot', () => {
    // (Names were kept distinct where the object's own names looked endless, while a `oneOf`
    // sibling's complement, a `not` of a `not` or a pattern of schema false allowed only "a":
    // after `{"a":"s",` nothing could follow.)
    const byValue = { additionalProperties: { type: 'string' }, not: { additionalProperties: { const: 1 } } };
    for (const schema of [
      { ...byValue, propertyNames: { pattern: '^a' }, oneOf: [{}, { not: { propertyNames: { enum: ['a', 'x'] } } }] },
      { ...byValue, allOf: [{ not: { not: { propertyNames: { pattern: '^a$' } } } }] },
      { ...byValue, propertyNames: { pattern: '^a' }, patternProperties: { '^a[\\s\\S]': false } },
    ])
      expect(schemaErrorOf(schema), JSON.stringify(schema)).toMatchObject({ code: 'unsupported', keyword: 'not' });
    // A name restriction complemented is a witness (`not: {propertyNames}`), and a pattern of
    // schema false may leave names endless: kept distinct, exact against ajv.
    const index = vocab('stories260k');
    for (const schema of [
      { ...byValue, not: { anyOf: [byValue.not, { propertyNames: { maxLength: 1 } }] } },
      { ...byValue, propertyNames: { pattern: '^a' }, patternProperties: { '^ab': false } },
      // (Each branch's own names are in its candidates; a sibling's, complemented, is a witness.)
      { ...byValue, oneOf: [{ propertyNames: { pattern: '^a' } }, { propertyNames: { pattern: '^.b' } }] },
    ]) {
      const grammar = compileSchema(schema);
      expect(grammar.ir.uniqueArrays?.states[0]!.distinctKeys).toBe(true);
      const matcher = new Matcher(grammar, index);
      expect(matcher.commitBytes(new TextEncoder().encode('{"aa":"s",'))).toBe(true);
      expect(matcher.shortestCompletion()).not.toBeNull();
      expectAgreement(schema, nearInstances([{ aa: 's' }, { a: 's', ac: 'x' }, { ab: 's' }, { a: 1 }, {}]), {
        numRuns: 300,
        seed: 3,
        texts: (value) => jsonTexts(value, false),
      });
    }
  });

  it('the mask filter looks at every token that could write a name again (a made-up vocabulary)', () => {
    // In a string value, a token closes it and writes a name in one go with three quotes;
    // between members, with two.
    const tokens = ['","x"', '","y"', '"}', 'b', '",', '"x"'].map((t) => new TextEncoder().encode(t));
    const cursor = new UniqueItems(compileSchema({ type: 'object', minProperties: 2, additionalProperties: { type: 'string' } }).ir.uniqueArrays!);
    for (const [written, kept] of [
      ['{"x":"a', ['","y"', '"}', 'b', '",', '"x"']],
      ['{"x":"a",', ['","x"', '","y"', '"}', 'b', '",']],
    ] as const) {
      const here = cursor.copy();
      expect(here.feed(new TextEncoder().encode(written))).toBe(true);
      const bits = new Uint32Array(1).fill(0x3f);
      withoutRepeatedItems(here, bits, {}, tokens.length, (id) => tokens[id]!);
      expect(
        bitsetIds(bits, tokens.length).map((id) => new TextDecoder().decode(tokens[id])),
        written,
      ).toEqual(kept);
    }
  });

  it('is refused where such names may run out, and not needed where no name is counted', () => {
    // (Names `^[ab]$` alone are finitely many: declared names then, see pattern-names.ts.)
    const closed = { type: 'object', patternProperties: { '^[ab]$': {}, '^x': {} }, additionalProperties: false, minProperties: 2 };
    expect(schemaErrorOf(closed)).toMatchObject({ code: 'unsupported', keyword: 'minProperties' });
    expect(schemaErrorOf({ ...closed, patternProperties: { '^[ab]': {} } })).toBeUndefined();
    for (const schema of [
      { type: 'object', minProperties: 1 },
      { type: 'object', properties: { a: {}, b: {} }, additionalProperties: false, minProperties: 2 },
      { type: 'object', patternProperties: { '^[ab]$': {} }, additionalProperties: false, minProperties: 2 },
    ]) {
      expect(compileSchema(schema).ir.uniqueArrays).toBeUndefined();
    }
  });
});
