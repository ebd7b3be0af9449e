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
    }
  }
  return false;
}

const withoutUnique = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === 'uniqueItems' ? undefined : value));

let kernel: Kernel;
const kernelVocabs = new Map<string, KernelVocab>();
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

// Walks that commit a schema's matchers (kernel and reference) token by token, each mask
// compared with the oracle's: the relaxed grammar accepts the token and `repeats` finds no
// repeated item. With llama3.1, the oracle looks at every token with a quote and a sample of
// the rest. Returns how many tokens the oracle refused for a repeat.
function walkAgainstOracle(
  schema: unknown,
  checked: (path: readonly (string | number)[]) => boolean,
  starts: readonly string[],
  { walks, steps, vocab: preset }: { walks: number; steps: number; vocab: 'stories260k' | 'llama3.1' },
): number {
  const index = vocab(preset);
  let kernelVocab = kernelVocabs.get(preset);
  if (kernelVocab === undefined) kernelVocabs.set(preset, (kernelVocab = kernel.loadVocab(index.file)));
  const grammar = compileSchema(schema, {}, { maxMaskMs: 600_000 });
  const relaxed = compileSchema(withoutUnique(schema), {}, { maxMaskMs: 600_000 });
  const kernelGrammar = new KernelGrammar(kernel, grammar);
  const eos = index.meta.eos_token_ids;
  const random = seeded(11);
  const decoder = new TextDecoder();
  const ids = Array.from({ length: index.tokenCount }, (_, id) => id).filter(
    (id) => preset === 'stories260k' || index.tokenBytes(id).includes(0x22) || eos.includes(id) || random() < 0.01,
  );
  let masked = 0;
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
          if (!repeats(decoder.decode(Uint8Array.from([...bytes, ...index.tokenBytes(id)])), checked)) expected.push(id);
          else masked++;
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
    const objects = fc.array(fc.constantFrom({ a: 1 }, { a: 1, b: 'x' }, { b: 'x', a: 1 }, { a: 2 }, { a: 1, c: [] }, { b: 'y' }), { maxLength: 4 });
    const instances =
      schema.type !== 'array'
        ? fc.record({ tags: strings, other: strings, groups: fc.array(fc.record({ tags: strings }), { maxLength: 2 }) })
        : (schema.items as { type: string }).type === 'object'
          ? objects
          : strings;
    expectAgreement(schema, instances, { numRuns: 150, seed: 3 });
  });

  it.each(SCHEMAS)(
    '$name: masks equal the oracle along walks that repeat strings (stories260k, every token)',
    ({ schema, checked, starts }) => {
      const masked = walkAgainstOracle(schema, checked, starts, { walks: 6, steps: 60, vocab: 'stories260k' });
      // The walks met repeats to refuse (else they proved nothing).
      expect(masked).toBeGreaterThan(0);
    },
    // Walks compare masks, not times: a loaded machine must not turn them into failures.
    120_000,
  );

  it('masks equal the oracle with llama3.1, whose tokens close and open several strings at once', () => {
    const { schema, checked, starts } = SCHEMAS[3]!;
    // Every token with a quote (only those can repeat an item), and a sample of the others.
    const masked = walkAgainstOracle(schema, checked, starts, { walks: 3, steps: 25, vocab: 'llama3.1' });
    expect(masked).toBeGreaterThan(0);
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
    // Strings whose prefixes may run out of completions stay refused: a length cap, a pattern
    // or format that closes; one that never closes is kept while matching.
    for (const items of [{ maxLength: 3 }, { pattern: '^[a-z]{2}$' }, { format: 'date' }, { pattern: '^(any|[0-9]+)$' }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'string', ...items } })?.keyword, JSON.stringify(items)).toBe('uniqueItems');
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
