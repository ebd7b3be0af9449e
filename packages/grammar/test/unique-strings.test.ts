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
import { compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { bitsetIds } from './support/oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { seeded, vocab } from './support/vocabs.ts';

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

// The strings each array the schema checks closes, in the output so far: a scanner over the
// JSON text (containers, member names, string literals decoded by JSON.parse).
function repeats(text: string, checked: (path: readonly (string | number)[]) => boolean): boolean {
  const path: (string | number)[] = [];
  const frames: { array: boolean; items: number; key: string | null; seen: Set<string> }[] = [];
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
        if (checked(path) && top.seen.has(value)) return true;
        top.seen.add(value);
        top.items++;
      }
    } else if (c === '[' || c === '{') {
      if (top !== undefined) path.push(top.array ? top.items++ : top.key!);
      frames.push({ array: c === '[', items: 0, key: null, seen: new Set() });
      afterKey = false;
    } else if (c === ']' || c === '}') {
      frames.pop();
      path.pop();
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
let kernelVocab: KernelVocab;
const index = vocab('stories260k');
beforeAll(async () => {
  kernel = await loadKernel();
  kernelVocab = kernel.loadVocab(index.file);
});
afterAll(() => kernel.dispose());

describe('uniqueItems over strings, kept while matching', () => {
  it.each(SCHEMAS)('$name: accepted iff ajv accepts (repeats, escaped spellings)', ({ schema }) => {
    const word = fc.constantFrom('a', 'b', 'é', 'a b', '');
    const strings = fc.array(word, { maxLength: 4 });
    const instances =
      schema.type === 'array' ? strings : fc.record({ tags: strings, other: strings, groups: fc.array(fc.record({ tags: strings }), { maxLength: 2 }) });
    expectAgreement(schema, instances, { numRuns: 150, seed: 3 });
  });

  it.each(SCHEMAS)('$name: masks equal the oracle along walks that repeat strings', ({ schema, checked, starts }) => {
    const grammar = compileSchema(schema, {}, { maxMaskMs: 600_000 });
    const relaxed = compileSchema(withoutUnique(schema), {}, { maxMaskMs: 600_000 });
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const eos = index.meta.eos_token_ids;
    const random = seeded(11);
    const decoder = new TextDecoder();
    let masked = 0;
    for (let walk = 0; walk < 6; walk++) {
      const matcher = new KernelMatcher(kernelGrammar, kernelVocab, { eosTokenIds: eos });
      const reference = new Matcher(grammar, index);
      const oracle = new Matcher(relaxed, index);
      let text = starts[walk % starts.length]!;
      const start = new TextEncoder().encode(text);
      for (const m of [matcher, reference, oracle]) expect(m.commitBytes(start)).toBe(true);
      for (let step = 0; step < 60 && !matcher.isFinished; step++) {
        const allowed = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
        expect(bitsetIds(reference.computeMaskBitset(), index.tokenCount)).toEqual(allowed);
        const expected: number[] = [];
        for (let id = 0; id < index.tokenCount; id++) {
          if (eos.includes(id)) {
            if (oracle.isAccepting()) expected.push(id);
          } else if (index.isTextToken(id) && oracle.fork().commitBytes(index.tokenBytes(id))) {
            if (!repeats(text + decoder.decode(index.tokenBytes(id)), checked)) expected.push(id);
            else masked++;
          }
        }
        expect(allowed, `after ${JSON.stringify(text)}`).toEqual(expected);
        // Short strings, so that items repeat: a quote is taken whenever it may come.
        const quote = allowed.find((id) => decoder.decode(index.tokenBytes(id)) === '"');
        const token = quote !== undefined && random() < 0.6 ? quote : allowed[Math.floor(random() * allowed.length)]!;
        expect(matcher.commitToken(token)).toBe(true);
        expect(reference.commitToken(token)).toBe(true);
        if (!eos.includes(token)) {
          oracle.commitToken(token);
          text += decoder.decode(index.tokenBytes(token));
        }
      }
      matcher.dispose();
    }
    // The walks met repeats to refuse (else they proved nothing).
    expect(masked).toBeGreaterThan(0);
  });

  it('a repeated item is refused by commit, and rollback and fork keep the items written', () => {
    const grammar = compileSchema(tags);
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab, { eosTokenIds: [] });
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    expect(matcher.commitBytes(bytes('["a","b",'))).toBe(true);
    const fork = matcher.fork();
    expect(matcher.commitBytes(bytes('"a"'))).toBe(false);
    expect(matcher.completes(bytes('"\\u0062"]'))).toBe(false);
    expect(matcher.completes(bytes('"c"]'))).toBe(true);
    expect(fork.commitBytes(bytes('"b"'))).toBe(false);
    fork.dispose();
    matcher.dispose();
  });

  it('is refused where a branch allows an array of repeated items beside it', () => {
    const error = schemaErrorOf({ anyOf: [tags, { type: 'array', items: { type: 'string', minLength: 2 } }] });
    expect(error?.keyword).toBe('uniqueItems');
    expect(error?.message).toMatch(/another branch allows an array with repeated items/);
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
    for (const items of [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, { pattern: '^pkg:' }, { minLength: 2, pattern: 'x' }]) {
      expect(schemaErrorOf({ ...tags, items: { type: 'string', ...items } }), JSON.stringify(items)).toBeUndefined();
    }
  });
});
