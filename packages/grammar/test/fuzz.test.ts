// Fuzzing every front-end (fast-check, seeded): random and mutated regexes, GBNF, Lark and EBNF
// grammars and JSON Schemas (mutations of the corpora's). Each input must end as a compiled
// grammar whose masks work along a random walk, or a typed error with its place (a span for
// text grammars, a pointer for schemas) or a typed limit — never another exception or a trap.
// `pnpm test` runs a bounded budget; `pnpm fuzz` a larger one (SIEVE_FUZZ_RUNS per front-end,
// SIEVE_FUZZ_SEED, SIEVE_FUZZ_REPORT=file for the outcome counts as JSON).
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import fc from 'fast-check';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileGrammar,
  GrammarError,
  GrammarLimitError,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  parseGrammar,
  SchemaError,
  type CompiledGrammar,
  type GrammarFormat,
} from '../src/index.ts';
import { loadCases } from './support/cases.ts';
import { bitsetIds } from './support/oracle.ts';
import { vocab } from './support/vocabs.ts';

const RUNS = Number(process.env['SIEVE_FUZZ_RUNS'] ?? 300);
const SEED = Number(process.env['SIEVE_FUZZ_SEED'] ?? 20261122);
const WALK_TOKENS = 12;
const CORPORA = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpora');

let kernel: Kernel;
let kernelVocab: KernelVocab;
const eos = vocab('stories260k').meta.eos_token_ids;
const tokenCount = vocab('stories260k').tokenCount;
beforeAll(async () => {
  kernel = await loadKernel();
  kernelVocab = kernel.loadVocab(vocab('stories260k').file);
});

// Outcome counts per front-end, printed (and written to SIEVE_FUZZ_REPORT) at the end.
const report: Record<string, Record<string, number>> = {};
afterAll(() => {
  kernelVocab?.dispose();
  kernel?.dispose();
  const summary = { seed: SEED, runsPerProperty: RUNS, outcomes: report };
  console.log(`fuzz: ${JSON.stringify(summary, null, 1)}`);
  const file = process.env['SIEVE_FUZZ_REPORT'];
  if (file !== undefined) writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
});
const count = (frontEnd: string, outcome: string): void => {
  const counts = (report[frontEnd] ??= {});
  counts[outcome] = (counts[outcome] ?? 0) + 1;
};

/** Text that is not JSON: the caller's JSON.parse refuses it before any schema compiler sees it. */
class NotJson extends Error {}

/** The outcome of a thrown value, or a rethrow when it is not a typed error with its place. */
function typedOutcome(error: unknown, place: 'span' | 'pointer'): string {
  if (error instanceof NotJson) return 'not JSON (refused by JSON.parse)';
  if (error instanceof GrammarLimitError) return `limit ${error.limit}`;
  if (error instanceof SchemaError) {
    expect(typeof error.pointer, `${error.message}: no pointer`).toBe('string');
    return `${error.name} (${error.code})`;
  }
  if (error instanceof GrammarError) {
    if (place === 'span' && error.code !== 'empty_language') expect(error.span, `${error.code}: ${error.message}: no span`).toBeDefined();
    return `GrammarError (${error.code})`;
  }
  throw error;
}

/** Compiles, then walks up to WALK_TOKENS random allowed tokens computing every mask. */
function run(frontEnd: string, place: 'span' | 'pointer', compile: () => CompiledGrammar, seed: number): void {
  let compiled: CompiledGrammar;
  try {
    compiled = compile();
  } catch (error) {
    return count(frontEnd, typedOutcome(error, place));
  }
  const grammar = new KernelGrammar(kernel, compiled);
  const matcher = new KernelMatcher(grammar, kernelVocab, { eosTokenIds: eos });
  try {
    let random = seed >>> 0;
    for (let step = 0; step < WALK_TOKENS && !matcher.isFinished; step++) {
      const text = bitsetIds(matcher.computeMaskBitset(), tokenCount).filter((id) => !eos.includes(id));
      if (text.length === 0) break;
      random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
      expect(matcher.commitToken(text[random % text.length]!), 'a token the mask allowed was refused').toBe(true);
    }
    count(frontEnd, 'compiled, masks walked');
  } catch (error) {
    count(frontEnd, `compiled, walk: ${typedOutcome(error, place)}`);
  } finally {
    matcher.dispose();
    grammar.dispose();
  }
}

// ------------------------------------------------------------------------------------------
// Inputs: seeds from the project's cases and the corpora, and edits applied to them.

const NASTY = [
  '\0',
  '\uD800',
  '\uDFFF',
  '\u{10FFFF}',
  '\uFFFE',
  '99999999999999999999',
  '1e309',
  '-0',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '"',
  "'",
  '\\',
  '|',
  '*',
  '+',
  '?',
  '{1,100000}',
  '::=',
  ':',
  ';',
  '=',
  '/',
  '%ignore',
  '\n',
  '(?=',
  '\\u{',
  '\\p{L}',
];
const piece = fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 }));
const edit = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  length: fc.nat(12),
  kind: fc.constantFrom('delete', 'insert', 'duplicate', 'replace'),
  text: piece,
});

/** Applies edits to a text at relative positions (so they fit any length). */
function applyEdits(text: string, edits: readonly { at: number; length: number; kind: string; text: string }[]): string {
  let out = text;
  for (const { at, length, kind, text: inserted } of edits) {
    const i = Math.floor(at * out.length);
    const j = Math.min(out.length, i + length);
    if (kind === 'delete') out = out.slice(0, i) + out.slice(j);
    else if (kind === 'insert') out = out.slice(0, i) + inserted + out.slice(i);
    else if (kind === 'duplicate') out = out.slice(0, j) + out.slice(i, j) + out.slice(j);
    else out = out.slice(0, i) + inserted + out.slice(i + 1);
  }
  return out;
}
const mutated = (seeds: readonly string[]) =>
  fc.tuple(fc.constantFrom(...seeds), fc.array(edit, { maxLength: 6 })).map(([text, edits]) => applyEdits(text, edits));

// A sample of the corpora's schemas (every 40th MaskBench file, and the test suite's).
function corpusSchemas(): unknown[] {
  const bench = join(CORPORA, 'maskbench-dev');
  const files = readdirSync(bench)
    .sort()
    .filter((_, i) => i % 40 === 0);
  const fromBench = files.map((f) => (JSON.parse(readFileSync(join(bench, f), 'utf8')) as { schema: unknown }).schema);
  const suite = join(CORPORA, 'json-schema-test-suite', 'tests', 'draft2020-12');
  const fromSuite = readdirSync(suite)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(readFileSync(join(suite, f), 'utf8')) as { schema: unknown }[]).map((g) => g.schema));
  return [...fromBench, ...fromSuite];
}
const schemas = corpusSchemas();

function patterns(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => patterns(v, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'pattern' && typeof v === 'string') out.push(v);
      else patterns(v, out);
    }
  }
  return out;
}

// Schema mutations on the value: a node (object or array) picked anywhere, changed in one of
// the ways real mistakes and attacks look.
const HUGE = [1e308, -1e308, 2 ** 53 + 1, 1e-320, -0, 1.2345678901234568e29];
const wrongValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom<unknown>(...HUGE, '\0', '\uD800x', null, [], {}, true, -1));
const REFS = [
  '#',
  '#/',
  '#/$defs/missing',
  '#/definitions/%ZZ',
  '#/properties/~2',
  'http://example.com/nowhere.json',
  'other.json#/a',
  '#/$defs/a',
  '#/$defs/b',
  '#anchor',
  '#/items/0/../..',
  '',
];
const KEYWORDS = [
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'items',
  'prefixItems',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'format',
  '$ref',
  '$defs',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'contains',
  'uniqueItems',
];
const schemaEdit = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  kind: fc.constantFrom('set', 'delete', 'ref', 'cycle', 'nest', 'self'),
  keyword: fc.constantFrom(...KEYWORDS),
  value: wrongValue,
  ref: fc.constantFrom(...REFS),
  depth: fc.integer({ min: 1, max: 300 }),
});

function nodes(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (typeof value === 'object' && value !== null) {
    if (!Array.isArray(value)) out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) nodes(v, out);
  }
  return out;
}

function mutateSchema(schema: unknown, edits: readonly { at: number; kind: string; keyword: string; value: unknown; ref: string; depth: number }[]): unknown {
  const root = structuredClone(typeof schema === 'object' && schema !== null ? schema : { not: schema });
  for (const e of edits) {
    const all = nodes(root);
    const node = all[Math.min(all.length - 1, Math.floor(e.at * all.length))]!;
    switch (e.kind) {
      case 'set':
        node[e.keyword] = e.value;
        break;
      case 'delete':
        delete node[Object.keys(node)[Math.floor(e.at * 997) % Math.max(1, Object.keys(node).length)] ?? e.keyword];
        break;
      case 'ref':
        node['$ref'] = e.ref;
        break;
      case 'cycle':
        (root as Record<string, unknown>)['$defs'] = { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }] } };
        node['$ref'] = '#/$defs/a';
        break;
      case 'nest': {
        let nested: unknown = { ...node };
        for (let i = 0; i < e.depth; i++) nested = i % 2 === 0 ? { type: 'array', items: nested } : { anyOf: [nested, { type: 'null' }] };
        node[e.keyword] = nested;
        break;
      }
      default:
        node['items'] = { $ref: '#' };
    }
  }
  return root;
}

// ------------------------------------------------------------------------------------------

const cases = loadCases();
const casesOf = (format: GrammarFormat): string[] => cases.filter((c) => c.format === format).map((c) => c.grammar);
const REGEX_ALPHABET = [...'ab01.^$|()[]{}*+?\\-,:=!<>dDwWsSbBnrtu^'];
const regexSeeds = [...casesOf('regex'), ...new Set(schemas.flatMap((s) => patterns(s)))];

const property = (frontEnd: string, place: 'span' | 'pointer', input: fc.Arbitrary<unknown>, compile: (value: never) => CompiledGrammar) =>
  it(`${frontEnd}: every input compiles with working masks or fails with a typed error`, { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(input, fc.nat(), (value, walkSeed) => run(frontEnd, place, () => compile(value as never), walkSeed)),
      { seed: SEED, numRuns: RUNS },
    );
    // The inputs reach both sides: grammars that compile (their masks walked) and typed errors.
    const outcomes = Object.keys(report[frontEnd] ?? {});
    expect(
      outcomes.some((o) => o.startsWith('compiled')),
      `${frontEnd}: nothing compiled`,
    ).toBe(true);
    expect(
      outcomes.some((o) => !o.startsWith('compiled')),
      `${frontEnd}: no input failed`,
    ).toBe(true);
  });

describe('fuzzing the front-ends', () => {
  property(
    'regex (random)',
    'span',
    fc.array(fc.constantFrom(...REGEX_ALPHABET), { maxLength: 24 }).map((c) => c.join('')),
    (source: string) => compileGrammar(parseGrammar('regex', source)),
  );
  property('regex (mutated corpus patterns)', 'span', mutated(regexSeeds), (source: string) => compileGrammar(parseGrammar('regex', source)));
  for (const format of ['gbnf', 'lark', 'ebnf'] as const) {
    property(`${format} (mutated cases)`, 'span', mutated(casesOf(format)), (source: string) => compileGrammar(parseGrammar(format, source)));
  }
  property(
    'json-schema (mutated corpus schemas)',
    'pointer',
    fc.tuple(fc.constantFrom(...schemas), fc.array(schemaEdit, { minLength: 1, maxLength: 4 })).map(([s, edits]) => mutateSchema(s, edits)),
    (schema: unknown) => compileGrammar(jsonSchemaGrammar(schema).grammar),
  );
  // Text edits (deleted braces, stray bytes): what does not parse as JSON is the caller's
  // JSON.parse error and never reaches the compiler; what parses must compile or fail typed.
  property('json-schema (mutated corpus text)', 'pointer', mutated(schemas.map((s) => JSON.stringify(s))), (text: string) => {
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch {
      throw new NotJson();
    }
    return compileGrammar(jsonSchemaGrammar(schema).grammar);
  });
});
