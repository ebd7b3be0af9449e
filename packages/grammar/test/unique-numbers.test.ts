// uniqueItems over numbers that may run out of values (bounds, multiples, constants a `not`
// excludes), kept while matching (src/matcher/number-values.ts): ajv agreement, and masks
// walked token by token against an oracle that shares no code with the check: the schema's
// grammar without uniqueItems, the repeats a scanner finds (support/unique-walks.ts), and
// for the item being written (or the one a comma asks for) a search of its completions
// among every value the item may take and other endings, each spelled as the relaxed grammar
// takes it and compared by value.
import { loadKernel, type Kernel } from '@sieve/kernel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelGrammar, KernelMatcher, Matcher, recognize } from '../src/index.ts';
import { compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { vocab } from './support/vocabs.ts';
import { numberKey, walkAgainstOracle, withoutUnique } from './support/unique-walks.ts';

let kernel: Kernel;
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

const unique = (items: Record<string, unknown>): Record<string, unknown> => ({ type: 'array', uniqueItems: true, items });
const range = (from: number, to: number, step = 1): number[] => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

// Items, every value they may take where those are few enough to list (the rest are found by
// endings added to what is written), and walks' starts: after items that leave a prefix one
// value, or a comma none.
const CASES: { name: string; items: Record<string, unknown>; values: readonly number[]; starts: string[] }[] = [
  {
    name: 'integers from 0 to 120 (12 may be 12 or 120)',
    items: { type: 'integer', minimum: 0, maximum: 120 },
    values: range(0, 120),
    starts: ['[12,120,', '[11,110,111,112,113,114,115,116,117,118,119,', '[0,', '[7,70,'],
  },
  {
    name: 'multiples of 0.5 from 0 to 20 (1.5 is 1.50)',
    items: { type: 'number', multipleOf: 0.5, minimum: 0, maximum: 20 },
    values: range(0, 20, 0.5),
    starts: ['[0.5,5,', '[20,2,', '[1.5,15,', `[${range(0, 19.5, 0.5).join(',')},`],
  },
  {
    name: 'numbers from -1 to 100 (100 is 100.0, and 1e-1 is 0.1)',
    items: { type: 'number', minimum: -1, maximum: 100 },
    values: [],
    starts: ['[100,', '[100,10', '[-1,-1', '[0,-0.', '[0.1,1e-1', '[0.5,0.50'],
  },
  {
    name: 'multiples of 3 above -10 (a minus sign leaves four values)',
    items: { type: 'integer', multipleOf: 3, exclusiveMinimum: -10 },
    values: range(-9, 30, 3),
    starts: ['[-9,-6,-3,0,', '[-3,-', '[3,'],
  },
  {
    name: 'integers from 0 to 40 but 5 and 7',
    items: { type: 'integer', minimum: 0, maximum: 40, not: { enum: [5, 7] } },
    values: range(0, 40).filter((v) => v !== 5 && v !== 7),
    starts: ['[4,40,', '[1,10,11,12,13,14,15,16,17,18,19,', '[6,'],
  },
];

// Endings tried after what is written (besides the listed values): more of the mantissa, then
// an exponent or more of one.
const ENDINGS = ['', '0', '1', '2', '5', '9', '00', '.', '.0', '.5', '.05', '.25'].flatMap((more) =>
  ['', '0', '1', '5', '-1', '-2', 'e-1', 'e-2', 'E-1', '5e-1'].map((exponent) => more + exponent),
);

// Whether the output so far, a top-level array of such numbers, has a number being written,
// or a comma, that no completion can end as a value no earlier item has.
function stuckAmong(values: readonly number[], spelled: (text: string) => boolean): (text: string) => boolean {
  const listed = values.flatMap((v) => [String(v), `${v}${Number.isInteger(v) ? '.0' : '0'}`]);
  return (text) => {
    const trimmed = text.trimEnd();
    if (trimmed.endsWith(']') || (trimmed !== text && !trimmed.endsWith(','))) return false;
    const literals = trimmed.slice(trimmed.indexOf('[') + 1).split(/[\s,]+/);
    const last = trimmed.endsWith(',') ? '' : literals.pop()!;
    const seen = new Set(literals.filter((l) => l !== '').map(numberKey));
    const candidates = [...listed.filter((v) => v.startsWith(last)), ...ENDINGS.map((ending) => last + ending)];
    return !candidates.some((c) => c !== '' && spelled(c) && !seen.has(numberKey(c)));
  };
}

// Whether the grammar without uniqueItems takes `[text]` (so `text` is one item's spelling).
function spelledBy(schema: unknown): (text: string) => boolean {
  const relaxed = compileSchema(withoutUnique(schema));
  const known = new Map<string, boolean>();
  return (text) => {
    let ok = known.get(text);
    if (ok === undefined) {
      const result = recognize(relaxed, new TextEncoder().encode(`[${text}]`));
      known.set(text, (ok = result.accepted && result.complete));
    }
    return ok;
  };
}

describe('uniqueItems over numbers that may run out of values, kept while matching', () => {
  it.each(CASES)('$name: accepted iff ajv accepts', ({ items, values }) => {
    const pool = values.length > 0 ? [...values.slice(0, 6), ...values.slice(-4), -1, 0.25, 121] : [-1, 0, 0.1, 1, 10, 100, 100.5, -2];
    expectAgreement(unique(items), fc.array(fc.constantFrom(...pool), { maxLength: 5 }), {
      numRuns: 200,
      seed: 5,
      texts: (value) => [JSON.stringify(value), `[${(value as number[]).map((v) => (Number.isInteger(v) ? `${v}.0` : `${v}0`)).join(', ')}]`],
    });
  });

  it.each(CASES)(
    '$name: masks equal the oracle (stories260k, every token)',
    ({ items, values, starts }) => {
      const schema = unique(items);
      const stuckItems = stuckAmong(values, spelledBy(schema));
      const masked = walkAgainstOracle(schema, (path) => path.length === 0, starts, { kernel, walks: 8, steps: 30, vocab: 'stories260k', stuckItems });
      expect(masked.repeated).toBeGreaterThan(0);
      expect(masked.stuck).toBeGreaterThan(0);
    },
    120_000,
  );

  it('refuses a prefix whose every completion is an earlier value, and a comma when no value is left (commit, kernel and reference)', () => {
    const index = vocab('stories260k');
    const loaded = kernel.loadVocab(index.file);
    const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
    const halves = `[${range(0, 19.5, 0.5).join(',')},`;
    for (const [items, written, refused, allowed] of [
      [CASES[0]!.items, '[12,120,', '12', '11'],
      [CASES[1]!.items, halves, '1', '20.0'],
      [CASES[1]!.items, `${halves}20`, ',', ']'],
      [CASES[2]!.items, '[100,', '100', '10'],
      [CASES[3]!.items, '[-9,-6,-3,0,', '-', '3'],
    ] as const) {
      const grammar = compileSchema(unique(items));
      for (const matcher of [new KernelMatcher(new KernelGrammar(kernel, grammar), loaded, { eosTokenIds: [] }), new Matcher(grammar, index)]) {
        expect(matcher.commitBytes(bytes(written)), written).toBe(true);
        expect(matcher.fork().commitBytes(bytes(refused)), `${written} ${refused}`).toBe(false);
        expect(matcher.commitBytes(bytes(allowed)), `${written} ${allowed}`).toBe(true);
      }
    }
  });

  it('refuses numbers that may not be integers less numeric constants (their automaton near 0 is too large to search)', () => {
    for (const items of [
      { type: 'number', minimum: 0, maximum: 100, not: { enum: [0] } },
      { type: 'number', minimum: -10, maximum: 23, not: { const: 0.5 } },
    ])
      expect(schemaErrorOf(unique(items))?.keyword, JSON.stringify(items)).toBe('uniqueItems');
    expect(
      schemaErrorOf(unique({ type: 'object', properties: { r: { type: 'number', maximum: 1, not: { const: 0 } } }, additionalProperties: false }))?.keyword,
    ).toBe('uniqueItems');
  });
});
