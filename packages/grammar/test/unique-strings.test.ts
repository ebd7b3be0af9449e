// uniqueItems over strings no grammar over sets can say, kept while matching
// (src/matcher/unique-items.ts, src/frontends/json-schema/unique-paths.ts): ajv agreement on
// arrays with repeats and other spellings of equal strings, and masks walked token by token
// against an oracle that shares no code with the check: the schema's grammar without
// uniqueItems, and the repeats of the output's closed strings found by a scanner here and
// decoded by JSON.parse.
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelGrammar, KernelMatcher, Matcher } from '../src/index.ts';
import { accepts, compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { bitsetIds } from './support/oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { seeded, tokensByBytes, vocab } from './support/vocabs.ts';
import { UniqueItems } from '../src/matcher/unique-items.ts';

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

// A value as JSON with its members sorted (equal values, equal texts).
const sorted = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(sorted).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${sorted((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

// Whether an array the schema checks repeats an item (a string, or an object compared as
// JSON.parse reads it) in the output so far: a scanner over the JSON text (containers, member
// names, string literals decoded by JSON.parse).
function repeats(text: string, checked: (path: readonly (string | number)[]) => boolean): boolean {
  const path: (string | number)[] = [];
  const frames: { array: boolean; items: number; key: string | null; seen: Set<string>; from: number }[] = [];
  let afterKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const top = frames.at(-1);
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return false; // an open string repeats nothing yet
      const value = JSON.parse(text.slice(i, j + 1)) as string;
      i = j;
      if (top !== undefined && !top.array && !afterKey) {
        top.key = value;
        continue;
      }
      afterKey = false;
      if (top?.array === true) {
        if (checked(path) && top.seen.has(JSON.stringify(value))) return true;
        top.seen.add(JSON.stringify(value));
        top.items++;
      }
    } else if (c === '[' || c === '{') {
      if (top !== undefined) path.push(top.array ? top.items++ : top.key!);
      frames.push({ array: c === '[', items: 0, key: null, seen: new Set(), from: i });
      afterKey = false;
    } else if (c === ']' || c === '}') {
      const closed = frames.pop()!;
      path.pop();
      const parent = frames.at(-1);
      if (c === '}' && parent?.array === true && checked(path)) {
        const item = sorted(JSON.parse(text.slice(closed.from, i + 1)));
        if (parent.seen.has(item)) return true;
        parent.seen.add(item);
      }
    } else if (c === ':') {
      afterKey = true;
    } else if (c === ',' && top !== undefined && !top.array) {
      afterKey = false;
    } else if (top?.array === true && /[-\d]/.test(c)) {
      // A number item, compared by value once it has ended.
      let j = i;
      while (j < text.length && /[-+.eE\d]/.test(text[j]!)) j++;
      if (j >= text.length) return false;
      const value = numberKey(text.slice(i, j));
      i = j - 1;
      if (checked(path) && top.seen.has(value)) return true;
      top.seen.add(value);
      top.items++;
    }
  }
  return false;
}

// A JSON number literal's value as a key: its significant digits and power of ten.
function numberKey(literal: string): string {
  const [, sign, whole, fraction = '', power = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let exponent = BigInt(power) - BigInt(fraction.length);
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  return `${sign}${digits}e${exponent}`;
}

// Whether the output so far, a top-level array of numbers (or integers) whose items must be
// distinct, ends in a number every completion of which is an earlier item: tried with
// completions that give other values wherever the prefix leaves them open.
function numberStuck(text: string, integer: boolean): boolean {
  const valid = integer ? /^-?(?:0|[1-9]\d*)(?:\.0+)?$/ : /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
  const literals = text.slice(text.indexOf('[') + 1).split(/[\s,]+/);
  const last = literals.pop()!;
  if (last === '' || text.endsWith(']')) return false;
  const seen = new Set(literals.filter((l) => l !== '').map(numberKey));
  const suffixes = ['', '0', '1', '2', '3', '5', '00', '.0', '.05', '.1', '.2', '.5', '1.5', '5.5', '1e1', 'e1', 'e2'];
  return !suffixes.some((suffix) => valid.test(last + suffix) && !seen.has(numberKey(last + suffix)));
}

const withoutUnique = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === 'uniqueItems' ? undefined : value));

let kernel: Kernel;
const kernelVocabs = new Map<string, KernelVocab>();
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

// Every JSON spelling of a string's content: `/` raw or escaped, control characters as short
// escapes or \u00XX in either case, `"` and `` escaped.
function spellings(value: string): string[] {
  let texts = [''];
  for (const c of value) {
    const code = c.charCodeAt(0);
    const hex = code.toString(16).padStart(2, '0');
    const ways =
      c === '"' || c === '\\'
        ? [`\\${c}`]
        : c === '/'
          ? ['/', '\\/']
          : code < 0x20
            ? [...(JSON.stringify(c).length === 4 ? [JSON.stringify(c).slice(1, -1)] : []), `\\u00${hex}`, `\\u00${hex.toUpperCase()}`]
            : [c];
    texts = texts.flatMap((t) => ways.map((w) => t + w));
  }
  return [...new Set(texts)];
}

// The values of a closed item schema for the oracle: listed, or strings of some letters up to
// a length (too many to list).
type Values = readonly string[] | { readonly letters: string; readonly maxLength: number };

// Bytes as a string of one character each (so a character cut between tokens stays cut).
const byteString = (bytes: Uint8Array): string => String.fromCharCode(...bytes);
const utf8 = (text: string): string => byteString(new TextEncoder().encode(text));

// Whether a value not in `seen` is spelled by a text whose UTF-8 bytes begin with `spelled`
// (a byte string).
function newValueBegins(spelled: string, values: Values, seen: ReadonlySet<string>): boolean {
  if (Array.isArray(values)) return values.some((v) => !seen.has(v) && spellings(v).some((s) => utf8(s).startsWith(spelled)));
  const { letters, maxLength } = values as { letters: string; maxLength: number };
  const stack = [spelled];
  while (stack.length > 0) {
    const text = stack.pop()!;
    if (text.length > 0 && !seen.has(text)) return true;
    if (text.length < maxLength) for (const c of letters) stack.push(text + c);
  }
  return false;
}

// Whether the output so far, a top-level array of strings whose items must be distinct and
// come from `values`, has an item, or an item a comma asks for, that cannot end as a value
// not written yet: an enumeration of the values left and their spellings, over the bytes
// written (an item may end inside a character).
function stuck(bytes: Uint8Array, values: Values): boolean {
  const text = byteString(bytes);
  const seen = new Set<string>();
  let at = text.indexOf('[') + 1;
  const space = (): void => {
    while (at < text.length && ' \n\r\t'.includes(text[at]!)) at++;
  };
  for (;;) {
    space();
    if (at >= text.length || text[at] === ']') return false;
    if (text[at] === ',') {
      at++;
      space();
      if (at >= text.length) return !newValueBegins('', values, seen);
      continue;
    }
    let end = at + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) return !newValueBegins(text.slice(at + 1), values, seen);
    seen.add(JSON.parse(new TextDecoder().decode(bytes.subarray(at, end + 1))) as string);
    at = end + 1;
  }
}

// Walks that commit a schema's matchers (kernel and reference) token by token, each mask
// compared with the oracle's: the relaxed grammar accepts the token and `repeats` finds no
// repeated item (nor `stuck` an item that cannot end anew, given the `closed` values). With
// llama3.1, the oracle looks at every token with a quote, a comma or a backslash, those made
// of the values' bytes, and a sample of the rest. Returns how many tokens the oracle refused
// for a repeat and how many for a dead end.
function walkAgainstOracle(
  schema: unknown,
  checked: (path: readonly (string | number)[]) => boolean,
  starts: readonly string[],
  {
    walks,
    steps,
    vocab: preset,
    closed,
    numbers,
  }: { walks: number; steps: number; vocab: 'stories260k' | 'llama3.1'; closed?: Values; numbers?: 'number' | 'integer' },
): { repeated: number; stuck: number } {
  const index = vocab(preset);
  let kernelVocab = kernelVocabs.get(preset);
  if (kernelVocab === undefined) kernelVocabs.set(preset, (kernelVocab = kernel.loadVocab(index.file)));
  const grammar = compileSchema(schema, {}, { maxMaskMs: 600_000 });
  const relaxed = compileSchema(withoutUnique(schema), {}, { maxMaskMs: 600_000 });
  const kernelGrammar = new KernelGrammar(kernel, grammar);
  const eos = index.meta.eos_token_ids;
  const random = seeded(11);
  const decoder = new TextDecoder();
  const valueBytes = new Set(
    new TextEncoder().encode(
      `${Array.isArray(closed) ? closed.flatMap(spellings).join('') : ((closed as { letters?: string } | undefined)?.letters ?? '')} \n]`,
    ),
  );
  const ids = Array.from({ length: index.tokenCount }, (_, id) => id).filter((id) => {
    const bytes = index.tokenBytes(id);
    if (preset === 'stories260k' || eos.includes(id) || random() < 0.01) return true;
    return bytes.includes(0x22) || (closed !== undefined && (bytes.includes(0x2c) || bytes.includes(0x5c) || bytes.every((b) => valueBytes.has(b))));
  });
  const masked = { repeated: 0, stuck: 0 };
  for (let walk = 0; walk < walks; walk++) {
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab, { eosTokenIds: eos });
    const reference = preset === 'stories260k' ? new Matcher(grammar, index) : null;
    const oracle = new Matcher(relaxed, index);
    const bytes = [...new TextEncoder().encode(starts[walk % starts.length]!)];
    for (const m of [matcher, reference, oracle]) expect(m?.commitBytes(Uint8Array.from(bytes)) ?? true).toBe(true);
    for (let step = 0; step < steps && !matcher.isFinished; step++) {
      const mask = matcher.computeMaskBitset();
      if (reference !== null) expect(bitsetIds(reference.computeMaskBitset(), index.tokenCount)).toEqual(bitsetIds(mask, index.tokenCount));
      const allowed = ids.filter((id) => (mask[id >>> 5]! >>> (id & 31)) & 1);
      const expected: number[] = [];
      for (const id of ids) {
        if (eos.includes(id)) {
          if (oracle.isAccepting()) expected.push(id);
        } else if (index.isTextToken(id) && oracle.fork().commitBytes(index.tokenBytes(id))) {
          const written = Uint8Array.from([...bytes, ...index.tokenBytes(id)]);
          const text = decoder.decode(written);
          if (repeats(text, checked)) masked.repeated++;
          else if ((closed !== undefined && stuck(written, closed)) || (numbers !== undefined && numberStuck(text, numbers === 'integer'))) masked.stuck++;
          else expected.push(id);
        }
      }
      expect(allowed, `after ${JSON.stringify(decoder.decode(Uint8Array.from(bytes)))}`).toEqual(expected);
      // Short strings, so that items repeat: a token that closes one is taken when it may come.
      const closing = allowed.filter((id) => index.tokenBytes(id).includes(0x22));
      const pool = closing.length > 0 && random() < 0.6 ? closing : allowed;
      const token = pool[Math.floor(random() * pool.length)]!;
      expect(matcher.commitToken(token)).toBe(true);
      if (reference !== null) expect(reference.commitToken(token)).toBe(true);
      if (!eos.includes(token)) {
        oracle.commitToken(token);
        bytes.push(...index.tokenBytes(token));
      }
    }
    matcher.dispose();
  }
  return masked;
}

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
      const masked = walkAgainstOracle(schema, checked, starts, { walks: 6, steps: 60, vocab: 'stories260k' });
      // The walks met repeats to refuse (else they proved nothing).
      expect(masked.repeated).toBeGreaterThan(0);
    },
    // Walks compare masks, not times: a loaded machine must not turn them into failures.
    120_000,
  );

  it('masks equal the oracle with llama3.1, whose tokens close and open several strings at once', () => {
    const { schema, checked, starts } = SCHEMAS.find((s) => s.name.startsWith('tags beside'))!;
    // Every token with a quote (only those can repeat an item), and a sample of the others.
    const masked = walkAgainstOracle(schema, checked, starts, { walks: 3, steps: 25, vocab: 'llama3.1' });
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
    let loaded = kernelVocabs.get('llama3.1');
    if (loaded === undefined) kernelVocabs.set('llama3.1', (loaded = kernel.loadVocab(index.file)));
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
    // Objects that cannot always take one more member of a fresh name stay refused.
    for (const items of [{ additionalProperties: false }, { maxProperties: 3 }, { propertyNames: { maxLength: 2 } }, { patternProperties: { x: {} } }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'object', ...items } })?.keyword, JSON.stringify(items)).toBe('uniqueItems');
    }
    for (const items of [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, { pattern: '^pkg:' }, { minLength: 2, pattern: 'x' }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'string', ...items } }), JSON.stringify(items)).toBeUndefined();
    }
  });
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
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { walks: 8, steps: 40, vocab: 'stories260k', closed: values });
      expect(masked.repeated).toBeGreaterThan(0);
      // The walks met items that could only end as earlier ones (else they proved nothing).
      expect(masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('masks equal the oracle with llama3.1 (tokens that hold several items, or a value whole)', () => {
    const { schema, values, starts } = CLOSED[0]!;
    const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { walks: 3, steps: 20, vocab: 'llama3.1', closed: values });
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
      { type: 'array', uniqueItems: true, items: { anyOf: [items, { type: 'integer' }] } },
      { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 2, not: { const: 'a' } } },
    ]) {
      expect(schemaErrorOf(schema)?.keyword, JSON.stringify(schema)).toBe('uniqueItems');
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
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { walks: 8, steps: 40, vocab: 'stories260k', numbers });
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

describe('uniqueItems over numbers: refusals', () => {
  it('is refused where arrays of any numbers and of integers meet, or numbers are bounded', () => {
    const numbers = { type: 'array', uniqueItems: true, items: { type: 'number' } };
    const integers = { type: 'array', uniqueItems: true, items: { type: 'integer' } };
    expect(schemaErrorOf({ anyOf: [numbers, { ...integers, minItems: 2 }] })?.message).toMatch(/any numbers and of integers/);
    expect(schemaErrorOf({ ...integers, items: { type: 'integer', maximum: 100 } })?.keyword).toBe('uniqueItems');
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
  ];

  it('miss no token that a check of every allowed token refuses (llama3.1, items cut inside a character or an escape)', () => {
    const index = vocab('llama3.1');
    let loaded = kernelVocabs.get('llama3.1');
    if (loaded === undefined) kernelVocabs.set('llama3.1', (loaded = kernel.loadVocab(index.file)));
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
});
