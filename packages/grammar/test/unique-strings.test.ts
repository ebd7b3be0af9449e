// uniqueItems over strings no grammar over sets can say, kept while matching
// (src/matcher/unique-items.ts, src/frontends/json-schema/unique-paths.ts): ajv agreement on
// arrays with repeats and other spellings of equal strings, and masks walked token by token
// against an oracle that shares no code with the check: the schema's grammar without
// uniqueItems, and the repeats of the output's closed strings found by a scanner
// (support/unique-walks.ts) and decoded by JSON.parse.
import { loadKernel, type Kernel } from '@sieve/kernel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelGrammar, KernelMatcher, Matcher } from '../src/index.ts';
import { accepts, ajvValidator, compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { bitsetIds } from './support/oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { tokensByBytes, vocab } from './support/vocabs.ts';
import { UniqueItems, withoutRepeatedItems } from '../src/matcher/unique-items.ts';
import { loadedVocab, newValueBegins, numberStuck, repeats, walkAgainstOracle, withoutUnique, type Values } from './support/unique-walks.ts';

const tags = { type: 'array', items: { type: 'string' }, uniqueItems: true };
const SCHEMAS: { name: string; schema: Record<string, unknown>; checked: (path: readonly (string | number)[]) => boolean; starts: string[] }[] = [
  { name: 'an array of strings', schema: { ...tags, minItems: 1 }, checked: (path) => path.length === 0, starts: [''] },
  {
    name: 'identifiers (a pattern that never closes)',
    schema: { ...tags, items: { type: 'string', pattern: '^[a-z][a-z0-9]*$' } },
    checked: (path) => path.length === 0,
    starts: ['["a","b","a', '["ab","a'],
  },
  {
    name: 'objects that may always take one more member (compared as values)',
    schema: { type: 'array', uniqueItems: true, items: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a'] } },
    checked: (path) => path.length === 0,
    starts: ['[{"a":1},{"a":1', '[{"a":1,"b":"x"},{"b":"x","a":1', '[{"a":2,"b":""},{"b":"","a":2'],
  },
  {
    name: 'strings and objects in one array',
    schema: { type: 'array', uniqueItems: true, items: { type: ['string', 'object'] } },
    checked: (path) => path.length === 0,
    starts: ['["a",{"a":1},"a', '[{"a":1},"x",{"a":1', '["{}",{},"{'],
  },
  {
    name: 'tags beside an array that may repeat, and in each of a list of objects',
    schema: {
      type: 'object',
      properties: {
        tags,
        other: { type: 'array', items: { type: 'string' } },
        groups: { type: 'array', items: { type: 'object', properties: { tags: { ...tags, items: { type: 'string', minLength: 1 } } } } },
      },
    },
    checked: (path) => path.at(-1) === 'tags',
    // Walks start inside the arrays (a free walk seldom gets there), some in an item that
    // repeats one so far (a newline spelled two ways: JSON escapes control characters only);
    // members named like Object.prototype's are undeclared members like any other.
    starts: [
      '{"tags":["a","b","a',
      '{"constructor":["a","a"],"toString":[],"tags":["a","a',
      '{"other":["a","a"],"groups":[{"tags":["x"]},{"tags":["x","',
      '{"groups":[{"tags":["',
      '{"tags":["\\n","\\u000a',
    ],
  },
];

let kernel: Kernel;
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

describe('uniqueItems over strings, kept while matching', () => {
  it.each(SCHEMAS)('$name: accepted iff ajv accepts (repeats, escaped spellings)', ({ schema }) => {
    const word = fc.constantFrom('a', 'b', 'é', 'a b', '');
    const strings = fc.array(word, { maxLength: 4 });
    const object = fc.constantFrom({ a: 1 }, { a: 1, b: 'x' }, { b: 'x', a: 1 }, { a: 2 }, { a: 1, c: [] }, { b: 'y' });
    const objects = fc.array(object, { maxLength: 4 });
    const type = (schema.items as { type?: unknown } | undefined)?.type;
    const instances =
      schema.type !== 'array'
        ? fc.record({ tags: strings, other: strings, groups: fc.array(fc.record({ tags: strings }), { maxLength: 2 }) })
        : Array.isArray(type)
          ? fc.array(fc.oneof(word, object), { maxLength: 5 })
          : type === 'object'
            ? objects
            : strings;
    expectAgreement(schema, instances, { numRuns: 150, seed: 3 });
  });

  it.each(SCHEMAS)(
    '$name: masks equal the oracle along walks that repeat strings (stories260k, every token)',
    ({ schema, checked, starts }) => {
      const masked = walkAgainstOracle(schema, checked, starts, { kernel, walks: 6, steps: 60, vocab: 'stories260k' });
      // The walks met repeats to refuse (else they proved nothing).
      expect(masked.repeated).toBeGreaterThan(0);
    },
    // Walks compare masks, not times: a loaded machine must not turn them into failures.
    120_000,
  );

  it('masks equal the oracle with llama3.1, whose tokens close and open several strings at once', () => {
    const { schema, checked, starts } = SCHEMAS.find((s) => s.name.startsWith('tags beside'))!;
    // Every token with a quote (only those can repeat an item), and a sample of the others.
    const masked = walkAgainstOracle(schema, checked, starts, { kernel, walks: 3, steps: 25, vocab: 'llama3.1' });
    expect(masked.repeated).toBeGreaterThan(0);
  }, 120_000);

  it('a repeated item is refused by commit, and rollback and fork keep the items written (kernel and reference)', () => {
    const grammar = compileSchema(tags);
    const index = vocab('stories260k');
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const loaded = kernel.loadVocab(index.file);
    const byBytes = tokensByBytes(index);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const token = (s: string): number => byBytes.get(Buffer.from(s).toString('hex'))!;
    for (const matcher of [new KernelMatcher(kernelGrammar, loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
      expect(matcher.commitBytes(bytes('["a","\\n",'))).toBe(true);
      const fork = matcher.fork();
      expect(matcher.commitBytes(bytes('"a"'))).toBe(false);
      // The newline again, spelled otherwise.
      expect(matcher.completes(bytes('"\\u000a"]'))).toBe(false);
      expect(matcher.completes(bytes('"c"]'))).toBe(true);
      expect(fork.commitBytes(bytes('"a"'))).toBe(false);
      for (const t of ['"', 'c', '"']) expect(matcher.commitToken(token(t))).toBe(true);
      expect(matcher.completes(bytes(',"c"]'))).toBe(false);
      matcher.rollback(3);
      expect(matcher.completes(bytes('"c"]'))).toBe(true);
      fork.dispose();
      matcher.dispose();
    }
  });

  it('a token that opens and closes a repeated item between items is masked (llama3.1: "" is one token)', () => {
    const index = vocab('llama3.1');
    const loaded = loadedVocab(kernel, 'llama3.1');
    const empty = tokensByBytes(index).get(Buffer.from('""').toString('hex'))!;
    const kernelGrammar = new KernelGrammar(kernel, compileSchema(tags));
    for (const [written, allowed] of [
      ['["",', false],
      ['["a",', true],
    ] as const) {
      const matcher = new KernelMatcher(kernelGrammar, loaded, { eosTokenIds: [] });
      expect(matcher.commitBytes(new TextEncoder().encode(written))).toBe(true);
      const mask = matcher.computeMaskBitset();
      expect(((mask[empty >>> 5]! >>> (empty & 31)) & 1) === 1, written).toBe(allowed);
      matcher.dispose();
    }
  }, 120_000);

  it('is refused where a branch allows an array of repeated items beside it', () => {
    const error = schemaErrorOf({ anyOf: [tags, { type: 'array', items: { type: 'string', minLength: 2 } }] });
    expect(error?.keyword).toBe('uniqueItems');
    expect(error?.message).toMatch(/another branch allows an array with repeated items/);
    // Lenient, the mix is compiled with a warning, and repeats are allowed there.
    const lenient = compileSchema({ anyOf: [tags, { type: 'array', items: { type: 'string', minLength: 2 } }] }, { lenient: true });
    expect(accepts(lenient, '["a","a"]')).toBe(true);
    // A branch where the member is any value (undeclared) allows repeats there too.
    const undeclared = schemaErrorOf({
      anyOf: [
        { type: 'object', properties: { tags } },
        { type: 'object', properties: { other: {} } },
      ],
    });
    expect(undeclared?.message).toMatch(/another branch allows an array with repeated items/);
    // Strings whose prefixes may run out of completions (a length cap, a pattern or format
    // that closes) are kept while matching too, by a search for a new ending (see below).
    for (const items of [{ maxLength: 3 }, { pattern: '^[a-z]{2}$' }, { format: 'date' }, { pattern: '^(any|[0-9]+)$' }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'string', ...items } }), JSON.stringify(items)).toBeUndefined();
    }
    // Objects that cannot always take one more member of a fresh name stay refused, but for
    // those of named members only (unique-objects.test.ts); patterns that leave endlessly
    // many names out do not stop one (fresh-members.test.ts).
    for (const items of [{ maxProperties: 3 }, { propertyNames: { maxLength: 2 } }, { patternProperties: { '': false } }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'object', ...items } })?.keyword, JSON.stringify(items)).toBe('uniqueItems');
    }
    for (const items of [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, { pattern: '^pkg:' }, { minLength: 2, pattern: 'x' }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'string', ...items } }), JSON.stringify(items)).toBeUndefined();
    }
    expect(schemaErrorOf({ ...tags, items: { type: 'object', patternProperties: { x: {} } } })).toBeUndefined();
  });

  it('an anyOf with a branch that asserts nothing holds for any value: tags below it may repeat (gitlab-ci hidden jobs)', () => {
    const job = { type: 'object', properties: { tags }, additionalProperties: false };
    const schema = { type: 'object', patternProperties: { '^[.]': { anyOf: [job, { description: 'any value' }] } }, additionalProperties: job };
    const jobs = fc.dictionary(
      fc.constantFrom('a', '.a', 'b', '.b'),
      fc.oneof(fc.record({ tags: fc.array(fc.constantFrom('x', 'y'), { maxLength: 3 }) }), fc.constantFrom(1, 'x', { tags: 3 }, { other: [] })),
    );
    expectAgreement(schema, jobs, { numRuns: 150, seed: 3 });
    const masked = walkAgainstOracle(
      schema,
      (path) => path.length === 2 && !String(path[0]).startsWith('.') && path[1] === 'tags',
      ['{"a":{"tags":["x","x', '{".a":{"tags":["x","x"]},"b":{"tags":["y","', '{".b":{"tags":["', '{"b":{"tags":["'],
      { kernel, walks: 6, steps: 60, vocab: 'stories260k' },
    );
    expect(masked.repeated).toBeGreaterThan(0);
    // Beside unevaluatedProperties such a branch evaluates no member (flattening spreads the
    // keyword over the branches): tags are checked.
    const evaluated = { type: 'object', anyOf: [{ properties: { tags } }, { description: 'any value' }], unevaluatedProperties: false };
    const members = fc.record({ tags: fc.array(fc.constantFrom('x', 'y'), { maxLength: 3 }), other: fc.constant(1) }, { requiredKeys: [] });
    expectAgreement(evaluated, members, { numRuns: 100, seed: 3 });
  }, 120_000);

  it('a branch of constants holds only values of their kinds: an enum of strings beside objects with unique tags (conjure)', () => {
    const argument = { type: 'object', properties: { tags }, additionalProperties: false };
    const schema = { type: 'object', additionalProperties: { oneOf: [argument, { enum: ['any', 'string'] }] } };
    const args = fc.dictionary(
      fc.constantFrom('a', 'b'),
      fc.oneof(fc.record({ tags: fc.array(fc.constantFrom('x', 'y'), { maxLength: 3 }) }), fc.constantFrom('any', 'x', 1, { other: [] })),
    );
    expectAgreement(schema, args, { numRuns: 150, seed: 3 });
    const masked = walkAgainstOracle(schema, (path) => path.length === 2 && path[1] === 'tags', ['{"a":{"tags":["x","x', '{"a":"any","b":{"tags":["y","'], {
      kernel,
      walks: 6,
      steps: 60,
      vocab: 'stories260k',
    });
    expect(masked.repeated).toBeGreaterThan(0);
  }, 120_000);

  it('items that are arrays of items that may repeat, or of branches one of which never runs out, are open (specif values)', () => {
    const letters = { type: 'array', items: { enum: ['a', 'b'] } };
    const schema = { type: 'array', uniqueItems: true, items: letters };
    expect(accepts(compileSchema(schema), '[["a"],["a","a"],[]]')).toBe(true);
    expect(accepts(compileSchema(schema), '[["a","b"],["a","b"]]')).toBe(false);
    const top = (path: readonly (string | number)[]): boolean => path.length === 0;
    const masked = walkAgainstOracle(schema, top, ['[["a"],["a', '[[],["b","a"],[', '[["b"],["b"'], { kernel, walks: 4, steps: 25, vocab: 'stories260k' });
    expect(masked.repeated).toBeGreaterThan(0);
    // A member that is a unique array of strings or of such arrays (specif's values).
    const values = { type: 'array', uniqueItems: true, minItems: 1, items: { oneOf: [{ type: 'string' }, letters] } };
    const objects = {
      type: 'array',
      uniqueItems: true,
      items: { type: 'object', properties: { v: values, k: { type: 'boolean' } }, additionalProperties: false },
    };
    expect(schemaErrorOf(objects)).toBeUndefined();
  }, 120_000);

  it('tells members apart by the patterns their names match (compose-spec: x- names beside others)', () => {
    // Names matching ^t are unique tags; others any arrays; a declared name no pattern matches
    // is its own schema's alone.
    const schema = {
      type: 'object',
      properties: { x: {} },
      patternProperties: { '^t': tags, '^t.*-': { maxItems: 3 } },
      additionalProperties: { type: 'array' },
    };
    const grammar = compileSchema(schema);
    expect(accepts(grammar, '{"x":["a","a"],"y":["a","a"],"t-1":["a","b","c"]}')).toBe(true);
    for (const repeat of ['{"t":["a","a"]}', '{"t-1":["a","a"]}', '{"y":[],"tt":["b","b"]}']) expect(accepts(grammar, repeat), repeat).toBe(false);
    const checked = (path: readonly (string | number)[]): boolean => path.length === 1 && String(path[0]).startsWith('t');
    const masked = walkAgainstOracle(schema, checked, ['{"t1":["a",', '{"x":["a",', '{"t":["a","b"],"u":["a",', '{"t-":["a'], {
      kernel,
      walks: 4,
      steps: 25,
      vocab: 'stories260k',
    });
    expect(masked.repeated).toBeGreaterThan(0);
  }, 120_000);
});

// Strings that may run out of completions (constants, a length cap, a pattern that closes),
// each schema with its values listed for the oracle, and walks that start near the end of
// them (the values left few, or an item on the way to earlier ones only).
const SIXTEEN = ['a', 'b', 'c', 'ab', 'ba', 'abc', 'a/b', '/', '\n', 'x y', 'bc', 'ca', 'cab', 'é', 'éa', '日本'];
const upTo2 = ['', ...'ab/'].flatMap((x) => ['', ...'ab/'].map((y) => x + y)).filter((v, i, all) => all.indexOf(v) === i);
const CLOSED: { name: string; schema: Record<string, unknown>; values: Values; starts: string[] }[] = [
  {
    name: 'an enum of sixteen strings, some of several bytes (more sets than a grammar over sets takes)',
    schema: { type: 'array', uniqueItems: true, items: { enum: SIXTEEN } },
    values: SIXTEEN,
    starts: [
      '["a","b","c","ab","ba","abc","/","\\n","x y","bc",',
      '["ab","abc","a',
      '["x y","\\u000',
      '["a\\/b","ca","c',
      '["a/b","\\/',
      '["é","éa",',
      '["日本","',
    ],
  },
  {
    name: 'a pattern that closes',
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[ab]{1,2}$' } },
    values: ['a', 'b', 'aa', 'ab', 'ba', 'bb'],
    starts: ['["a","b","aa","ab",', '["b","ba","bb","', '["a","aa","ab","'],
  },
  {
    name: 'a length cap over a few characters (a slash spelled two ways)',
    schema: { type: 'array', uniqueItems: true, minItems: 1, items: { type: 'string', maxLength: 2, pattern: '^[ab/]*$' } },
    values: upTo2,
    starts: ['["","a","b","/","aa","ab","a/",', '["b/","bb","ba","b', '["//","/","\\/'],
  },
  {
    name: 'a oneOf of constants and a pattern (disjoint branches)',
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', oneOf: [{ enum: ['re', 'red', '#1'] }, { pattern: '^#[0-2]{2}$' }] } },
    values: ['re', 'red', '#1', '#00', '#01', '#02', '#10', '#11', '#12', '#20', '#21', '#22'],
    starts: ['["re","#10","#11","#12","#', '["#00","#01","#02","#10","#11","#12","#20","#21",', '["red","r'],
  },
  {
    name: 'strings too many to list (the item automaton searched)',
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[ab]{1,14}$' } },
    values: { letters: 'ab', maxLength: 14 },
    starts: ['["ababababababa","ababababababaa","ababababababab","abababababab', '["bbbbbbbbbbbbbb","bbbbbbbbbbbbb","bbbbbbbbbbbba","bbbbbbbbbbbb'],
  },
];

describe('uniqueItems over strings that may run out of completions, kept while matching', () => {
  it.each(CLOSED)('$name: accepted iff ajv accepts', ({ schema, values }) => {
    const sample = Array.isArray(values) ? values : ['a', 'b', 'ab', 'ba', 'abababababab', 'aaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaa'];
    expectAgreement(schema, fc.array(fc.constantFrom(...sample, 'zz'), { maxLength: 8 }), { numRuns: 200, seed: 5 });
  });

  it.each(CLOSED)(
    '$name: masks equal the oracle, which enumerates the values left (stories260k, every token)',
    ({ schema, values, starts }) => {
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { kernel, walks: 8, steps: 40, vocab: 'stories260k', closed: values });
      expect(masked.repeated).toBeGreaterThan(0);
      // The walks met items that could only end as earlier ones (else they proved nothing).
      expect(masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('masks equal the oracle with llama3.1 (tokens that hold several items, or a value whole)', () => {
    const { schema, values, starts } = CLOSED[0]!;
    const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { kernel, walks: 3, steps: 20, vocab: 'llama3.1', closed: values });
    expect(masked.stuck).toBeGreaterThan(0);
  }, 120_000);

  it('commit refuses an item that can only end as an earlier one, and a comma when no value is left (kernel and reference)', () => {
    const grammar = compileSchema(CLOSED[1]!.schema);
    const index = vocab('stories260k');
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    for (const matcher of [new KernelMatcher(kernelGrammar, loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
      expect(matcher.commitBytes(bytes('["b","ba",'))).toBe(true);
      expect(matcher.completes(bytes('"bb"]'))).toBe(true);
      expect(matcher.commitBytes(bytes('"bb",'))).toBe(true);
      // "b" can only end as "b", "ba" or "bb"; "a" has a way on.
      expect(matcher.commitBytes(bytes('"b'))).toBe(false);
      expect(matcher.commitBytes(bytes('"a'))).toBe(true);
      expect(matcher.commitBytes(bytes('",'))).toBe(true);
      expect(matcher.completes(bytes('"aa"]'))).toBe(true);
      expect(matcher.commitBytes(bytes('"aa","ab",'))).toBe(false);
      expect(matcher.commitBytes(bytes('"aa","ab"'))).toBe(true);
      // Every value written: a comma would ask for a seventh.
      expect(matcher.commitBytes(bytes(','))).toBe(false);
      expect(matcher.completes(bytes(']'))).toBe(true);
      matcher.dispose?.();
    }
  });

  it('is refused where the matcher would have to count the values left, or an item has other schemas beside', () => {
    const items = { type: 'string', maxLength: 2 };
    for (const schema of [
      { type: 'array', uniqueItems: true, minItems: 2, items },
      { type: 'array', uniqueItems: true, prefixItems: [items], items },
      { type: 'array', uniqueItems: true, items: { anyOf: [items, { type: 'integer', minimum: 0 }] } },
      { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 2, not: { const: 'a' } } },
    ]) {
      expect(schemaErrorOf(schema)?.keyword, JSON.stringify(schema)).toBe('uniqueItems');
    }
  });
});

describe('uniqueItems over strings that may run out, beside open items of other kinds', () => {
  // JSON Schema Store's KSP-AVC: a version string or an object of version numbers.
  const MIXED: { name: string; schema: Record<string, unknown>; values: string[]; starts: string[] }[] = [
    {
      name: 'two strings or any object',
      schema: { type: 'array', uniqueItems: true, items: { anyOf: [{ type: 'string', pattern: '^(any|none)$' }, { type: 'object' }] } },
      values: ['any', 'none'],
      starts: ['["any","none",', '["none",{},"a', '[{"a":1},"any",{"a":1', '["any",{},"'],
    },
    {
      name: 'two strings or any integer',
      schema: { type: 'array', uniqueItems: true, items: { anyOf: [{ enum: ['a', 'b'] }, { type: 'integer' }] } },
      values: ['a', 'b'],
      starts: ['["a","b",', '["a",1,"', '[2,"b",0,', '["b","'],
    },
    {
      // (One schema of two types: each type heeds its own kind's keywords.)
      name: 'two strings or any integer, of one schema of two types',
      schema: { type: 'array', uniqueItems: true, items: { type: ['integer', 'string'], pattern: '^[ab]$' } },
      values: ['a', 'b'],
      starts: ['["a","b",', '["a",1,"', '[2,"b",0,', '["b","'],
    },
  ];
  // Whether the output so far ends in a string item of the top-level array that can only end
  // as an earlier one, or an integer item whose prefix fixes an earlier value (an item a comma
  // asks for may always be of the other kind).
  const itemStuck =
    (values: readonly string[]) =>
    (text: string): boolean => {
      const seen = new Set<string>();
      const numbers: string[] = [];
      let depth = 0;
      let scalar = '';
      for (let i = 0; i < text.length; i++) {
        const c = text[i]!;
        if (depth === 1 && /[-\d.eE+]/.test(c)) {
          scalar += c;
          continue;
        }
        if (scalar !== '') numbers.push(scalar);
        scalar = '';
        if (c === '"') {
          let end = i + 1;
          while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
          if (end >= text.length) return depth === 1 && !newValueBegins(text.slice(i + 1), values, seen);
          if (depth === 1) seen.add(JSON.parse(text.slice(i, end + 1)) as string);
          i = end;
        } else if (c === '[' || c === '{') depth++;
        else if (c === ']' || c === '}') depth--;
      }
      return scalar !== '' && numberStuck(`[${[...numbers, scalar].join(',')}`, true);
    };

  it.each(MIXED)('$name: accepted iff ajv accepts', ({ schema, values }) => {
    expectAgreement(schema, fc.array(fc.constantFrom<unknown>(...values, 'c', {}, { a: 1 }, 1, 2, 1.5), { maxLength: 6 }), { numRuns: 200, seed: 5 });
  });

  it.each(MIXED)(
    '$name: masks equal the oracle (stories260k, every token)',
    ({ schema, values, starts }) => {
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, {
        kernel,
        walks: 8,
        steps: 40,
        vocab: 'stories260k',
        stuckItems: itemStuck(values),
      });
      expect(masked.repeated + masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('after a comma with every string written, an item of the other kind may come (kernel and reference)', () => {
    const grammar = compileSchema(MIXED[0]!.schema);
    const index = vocab('stories260k');
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    for (const matcher of [
      new KernelMatcher(new KernelGrammar(kernel, grammar), kernel.loadVocab(index.file), { eosTokenIds: [] }),
      new Matcher(grammar, index),
    ]) {
      expect(matcher.commitBytes(bytes('["any","none",'))).toBe(true);
      expect(matcher.fork().commitBytes(bytes('"'))).toBe(false);
      expect(matcher.commitBytes(bytes('{},'))).toBe(true);
      expect(matcher.fork().commitBytes(bytes('{}'))).toBe(false);
      expect(matcher.commitBytes(bytes('{"a":[]}]'))).toBe(true);
      expect(matcher.isAccepting()).toBe(true);
    }
  });
});

describe('uniqueItems over numbers, kept while matching', () => {
  const NUMBERS: { name: string; schema: Record<string, unknown>; numbers: 'number' | 'integer'; starts: string[] }[] = [
    {
      name: 'numbers (1, 1.0 and 10e-1 are one)',
      schema: { type: 'array', uniqueItems: true, items: { type: 'number' } },
      numbers: 'number',
      starts: ['[0,1,', '[0,0', '[10,1e', '[0,-0', '[2,0.2e1'],
    },
    {
      name: 'integers (3.0 is 3)',
      schema: { type: 'array', uniqueItems: true, items: { type: 'integer' } },
      numbers: 'integer',
      starts: ['[0,', '[5,1,5', '[-3,0,-', '[12,1'],
    },
  ];

  it.each(NUMBERS)('$name: accepted iff ajv accepts', ({ schema }) => {
    const numbers = fc.array(fc.constantFrom(0, -0, 1, 1.5, 10, 12, -3, 100), { maxLength: 5 });
    expectAgreement(schema, numbers, {
      numRuns: 200,
      seed: 9,
      texts: (value) => [JSON.stringify(value), `[${(value as number[]).map((v) => (Number.isInteger(v) ? `${v}.0` : String(v))).join(',')}]`],
    });
  });

  it.each(NUMBERS)(
    '$name: masks equal the oracle (stories260k, every token)',
    ({ schema, numbers, starts }) => {
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { kernel, walks: 8, steps: 40, vocab: 'stories260k', numbers });
      expect(masked.repeated).toBeGreaterThan(0);
      if (numbers === 'integer') expect(masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('a zero mantissa with an exponent is 0, and an integer with a fraction begun is fixed (commit, kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    for (const [items, written, refused, allowed] of [
      ['number', '[0,', '0e', '0.5'],
      ['number', '[0,', '-0.0E+', '-0.01'],
      ['integer', '[5,', '5.', '50'],
      ['integer', '[0,', '-0', '-1'],
    ] as const) {
      const grammar = compileSchema({ type: 'array', uniqueItems: true, items: { type: items } });
      for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
        expect(matcher.commitBytes(bytes(written))).toBe(true);
        expect(matcher.completes(bytes(`${refused}1]`)), `${written}${refused}`).toBe(false);
        expect(matcher.commitBytes(bytes(refused)), `${written}${refused}`).toBe(false);
        expect(matcher.commitBytes(bytes(allowed)), `${written}${allowed}`).toBe(true);
      }
    }
  });
});

describe('uniqueItems over items of any type, kept while matching', () => {
  // No items schema (JSON Schema Store's `{"type": "array", "uniqueItems": true}`), and the
  // same with the items' types spelled out, arrays among them.
  // Walks start inside items that repeat one so far, or that a first letter or a zero fixes.
  const LITERALS_AND_ARRAYS = ['[true,', '[[1],[1', '[null,false,true,', '[[],"a",[', '["x",[["y"]],[[', '[false,n'];
  const ANY: { name: string; schema: Record<string, unknown>; starts: string[] }[] = [
    { name: 'no items schema', schema: { type: 'array', uniqueItems: true }, starts: [...LITERALS_AND_ARRAYS, '[0,1e', '[{"a":[1]},{"a":[1'] },
    {
      name: 'literals, strings and open arrays',
      schema: { type: 'array', uniqueItems: true, items: { type: ['boolean', 'null', 'string', 'array'] } },
      starts: LITERALS_AND_ARRAYS,
    },
  ];
  const top = (path: readonly (string | number)[]): boolean => path.length === 0;

  // Whether the output ends in a number or literal item of the top-level array every
  // completion of which is an earlier item: completions that give other values are tried,
  // each ended by a comma for the scanner to compare (items inside nested containers and
  // strings are never stuck so).
  const scalarStuck = (text: string): boolean => {
    const last = /[[,]\s*(-?(?:(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][+-]?\d*)?)?|t|tr|tru|true|f|fa|fal|fals|false|n|nu|nul|null)$/.exec(text)?.[1];
    if (last === undefined || last === '') return false;
    const valid = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/;
    const endings = ['', '0', '1', '2', '5', '.5', '1.5', 'e1', 'e2', ...['true', 'false', 'null'].map((l) => l.slice(Math.min(last.length, l.length)))];
    return !endings.some((end) => valid.test(last + end) && !repeats(`${text}${end},`, top));
  };

  it.each(ANY)('$name: accepted iff ajv accepts (repeats in other spellings)', ({ schema }) => {
    const value = fc.constantFrom<unknown>(true, false, null, 0, 1, 1.5, 'a', 'true', '1', [], [1], [1, 'a'], ['a', 1], [[]], { a: 1 }, { a: [1] });
    const texts = (v: unknown): string[] => [JSON.stringify(v), JSON.stringify(v, null, 1), JSON.stringify(v).replace(/(?<![\d.])1(?![\d.])/g, '1.0')];
    expectAgreement(schema, fc.array(value, { maxLength: 5 }), { numRuns: 300, seed: 5, texts });
  });

  it.each(ANY)(
    '$name: masks equal the oracle (stories260k, every token)',
    ({ schema, starts }) => {
      const masked = walkAgainstOracle(schema, top, starts, { kernel, walks: 8, steps: 40, vocab: 'stories260k', stuckItems: scalarStuck });
      expect(masked.repeated).toBeGreaterThan(0);
      expect(masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('masks equal the oracle with llama3.1, whose tokens close arrays and begin literals with other bytes', () => {
    const masked = walkAgainstOracle(ANY[0]!.schema, top, ANY[0]!.starts, {
      kernel,
      walks: 3,
      steps: 20,
      vocab: 'llama3.1',
      stuckItems: scalarStuck,
      alphabet: '[]{}:truefalsn0123456789.e-',
    });
    expect(masked.repeated + masked.stuck).toBeGreaterThan(0);
  }, 120_000);

  it('commit refuses an array item that repeats one, and a literal whose first letter repeats one (kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const grammar = compileSchema(ANY[0]!.schema);
    for (const [written, refused, allowed] of [
      ['[[1,{"a":[]}],', '[1.0,{"a":[]}]', '[1,{"a":[0]}]'],
      ['[true,null,', 'n', 'false'],
      ['[[],', '[]', '[[]]'],
    ] as const) {
      for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
        expect(matcher.commitBytes(bytes(written))).toBe(true);
        expect(matcher.commitBytes(bytes(refused)), `${written}${refused}`).toBe(false);
        expect(matcher.commitBytes(bytes(`${allowed}]`)), `${written}${allowed}`).toBe(true);
        expect(matcher.isAccepting()).toBe(true);
      }
    }
    // Bytes the grammar refuses are refused, whatever the check makes of them first.
    for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
      expect(matcher.commitBytes(bytes('[1,true,'))).toBe(true);
      for (const garbage of ['1e,', 'tru,', '-,', '1.]', 'nul]']) expect(matcher.commitBytes(bytes(garbage)), garbage).toBe(false);
    }
  });

  it('an object item with a name written twice is the object of its last value, as JSON.parse reads it (kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const integers = { type: 'array', uniqueItems: true, items: { type: 'object', additionalProperties: { type: 'integer' } } };
    for (const schema of [ANY[0]!.schema, integers]) {
      const grammar = compileSchema(schema);
      const validate = ajvValidator(schema);
      const texts = [
        '[{"a":1},{"a":2,"a":1}]',
        '[{"a":1},{"a":1,"a":1}]',
        '[[{"a":1}],[{"a":0,"a":1}]]',
        '[{"a":1,"a":2},{"a":2}]',
        '[{"a":1,"b":2},{"b":2,"a":0,"a":1}]',
        '[{"a":1},{"a":1,"a":2}]',
        '[{"a":2,"a":1},{"a":1,"a":2}]',
      ];
      for (const text of texts) {
        if (schema === integers && text.startsWith('[[')) continue;
        const valid = validate(JSON.parse(text));
        expect(accepts(grammar, text), `${JSON.stringify(schema)}: ${text}`).toBe(valid);
        for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)])
          expect(matcher.commitBytes(bytes(text)) && matcher.isAccepting(), text).toBe(valid);
      }
    }
  });

  it('is refused where items of literals alone would need counting, or an array item may run out', () => {
    expect(schemaErrorOf({ type: 'array', uniqueItems: true, items: { type: ['boolean', 'array'], maxItems: 2 } })?.keyword).toBe('uniqueItems');
    expect(schemaErrorOf({ type: 'array', uniqueItems: true, items: { type: ['string', 'array'], items: { enum: [1, 2] }, uniqueItems: true } })?.keyword).toBe(
      'uniqueItems',
    );
  });
});

describe('uniqueItems over numbers: refusals', () => {
  it('is refused where arrays of any numbers and of integers meet, or bounded numbers beside other kinds or with minItems past 1', () => {
    const numbers = { type: 'array', uniqueItems: true, items: { type: 'number' } };
    const integers = { type: 'array', uniqueItems: true, items: { type: 'integer' } };
    expect(schemaErrorOf({ anyOf: [numbers, { ...integers, minItems: 2 }] })?.message).toMatch(/any numbers and of integers/);
    expect(schemaErrorOf({ ...integers, minItems: 2, items: { type: 'integer', maximum: 100 } })?.keyword).toBe('uniqueItems');
    expect(schemaErrorOf({ ...integers, items: { type: ['integer', 'string'], maximum: 100, maxLength: 2 } })?.keyword).toBe('uniqueItems');
    expect(schemaErrorOf({ ...integers, items: { type: 'integer', maximum: 100 } })).toBeUndefined();
    expect(schemaErrorOf({ ...integers, items: { type: 'integer', not: { const: 0 } } })).toBeUndefined();
  });
});

describe('uniqueItems mask filter: the token lists it checks', () => {
  // Prefixes (bytes) of outputs for a schema, some of them cut inside a character or an escape.
  const encode = (s: string): number[] => [...new TextEncoder().encode(s)];
  const CASES: { schema: Record<string, unknown>; prefixes: number[][] }[] = [
    {
      schema: { type: 'array', uniqueItems: true, items: { enum: [...SIXTEEN, '日本語', 'a b c', 'ab"c'] } },
      prefixes: [
        encode('["日本","日本語",'),
        [...encode('["日本","'), 0xe6],
        [...encode('["日本","'), 0xe6, 0x97],
        encode('["a","ab","abc","a b c","ab\\"c","a'),
        encode('["a","ab","abc","a b c","ab\\'),
        encode('["é","éa","'),
        [...encode('["é","'), 0xc3],
      ],
    },
    {
      // Any two characters: many tokens allowed, and the earlier items' remaining bytes looked up.
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 2 } },
      prefixes: [encode('["日本","日'), [...encode('["日本","日'), 0xe6], [...encode('["日本","日'), 0xe6, 0x9c], encode('["ab","a"," a","a')],
    },
    {
      // Items of any type: a token may leave a string item and write a number, a literal or an
      // array that repeats one.
      schema: { type: 'array', uniqueItems: true },
      prefixes: [encode('[1,true,null,false,[],[1],"a'), encode('[1,true,[1],'), encode('[[1],[]'), encode('[0,{"b":[1,"'), encode('["x",[0,"')],
    },
  ];

  it('miss no token that a check of every allowed token refuses (llama3.1, items cut inside a character or an escape)', () => {
    const index = vocab('llama3.1');
    const loaded = loadedVocab(kernel, 'llama3.1');
    let refused = 0;
    for (const { schema, prefixes } of CASES) {
      const grammar = compileSchema(schema);
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      const relaxed = new KernelGrammar(kernel, compileSchema(withoutUnique(schema)));
      for (const prefix of prefixes) {
        const bytes = Uint8Array.from(prefix);
        const matcher = new KernelMatcher(kernelGrammar, loaded, { eosTokenIds: [] });
        const grammarOnly = new KernelMatcher(relaxed, loaded, { eosTokenIds: [] });
        expect(matcher.commitBytes(bytes), JSON.stringify(prefix)).toBe(true);
        expect(grammarOnly.commitBytes(bytes)).toBe(true);
        const cursor = new UniqueItems(grammar.ir.uniqueArrays!);
        expect(cursor.feed(bytes)).toBe(true);
        const relaxedIds = bitsetIds(grammarOnly.computeMaskBitset(), index.tokenCount);
        const expected = relaxedIds.filter((id) => cursor.copy().feed(index.tokenBytes(id)));
        refused += relaxedIds.length - expected.length;
        expect(bitsetIds(matcher.computeMaskBitset(), index.tokenCount), JSON.stringify(prefix)).toEqual(expected);
        matcher.dispose();
        grammarOnly.dispose();
      }
    }
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('miss no token of a made-up vocabulary that leaves a string item and repeats a literal, a number or an array in one go', () => {
    // Tokens no real vocabulary here has (llama3.1 has none that close a string and fix a
    // value), each allowed by the grammar after the prefix; the filter must refuse those that
    // a check of the whole token refuses.
    const tokens = ['",t', '", n', '",1,', '",[],', '",[1]]', '",x', '",2,', '"', '",[2]]', 'a'].map((t) => new TextEncoder().encode(t));
    const grammar = compileSchema({ type: 'array', uniqueItems: true });
    const cursor = new UniqueItems(grammar.ir.uniqueArrays!);
    expect(cursor.feed(new TextEncoder().encode('[true,null,1,[],[1],"a'))).toBe(true);
    const bits = new Uint32Array(1).fill(0x3ff);
    withoutRepeatedItems(cursor, bits, {}, tokens.length, (id) => tokens[id]!);
    const kept = bitsetIds(bits, tokens.length).map((id) => new TextDecoder().decode(tokens[id]));
    expect(kept).toEqual(['",x', '",2,', '"', '",[2]]', 'a']);
  });
});
