/**
 * Conformance runners: JSON-Schema-Test-Suite and MaskBench. Every instance is serialized
 * (compactly, and the way Python's json.dumps writes it), tokenized with the tokenizer's own
 * encoder and fed token by token to an engine (Sieve's kernel matcher, or a peer): a valid
 * instance must have every token allowed and end in an accepting state; an invalid one must
 * be refused at some token or at the end.
 */
import { pythonJson } from '@sieve/grammar';
import { loadKernel } from '@sieve/kernel';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MaskBenchTally, outcomeOf, sieveGrammarEngine, type GrammarEngine, type MaskBenchCase, type MaskBenchResult, type Outcome } from '@sieve/bench';
import { loadCliTokenizer, type CliTokenizer } from './tokenizer.ts';

export type { EngineGrammar, MaskBenchResult, Outcome } from '@sieve/bench';

/** Sieve: the JSON Schema compiler and the kernel matcher, on `tokenizer`'s vocab index. */
export async function sieveEngine(tokenizer: CliTokenizer): Promise<GrammarEngine> {
  const kernel = await loadKernel();
  const vocab = kernel.loadVocab(tokenizer.vocab.file);
  return {
    ...sieveGrammarEngine(kernel, vocab, tokenizer.vocab.meta.eos_token_ids),
    dispose: () => kernel.dispose(),
  };
}

/** The tokens of each serialization of an instance: compact, and as Python's json.dumps writes it. */
export function serializations(tokenizer: CliTokenizer, data: unknown): number[][] {
  return [...new Set([JSON.stringify(data), pythonJson(data)])].map((text) => tokenizer.encode(text));
}

/** Summary of a JSON-Schema-Test-Suite run (the DESIGN.md shape) plus per-test outcomes. */
export interface SuiteResult {
  readonly tests: number;
  readonly passed: number;
  readonly failed_valid_rejected: number;
  readonly failed_invalid_accepted: number;
  readonly skipped_unsupported: number;
  readonly outcomes: Record<string, Outcome>;
}

/** The suite's test files: draft 2020-12, required and optional/format. */
export function suiteFiles(dir: string): string[] {
  const base = join(dir, 'tests', 'draft2020-12');
  const required = readdirSync(base)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(base, f));
  const formats = readdirSync(join(base, 'optional', 'format'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(base, 'optional', 'format', f));
  return [...required, ...formats];
}

/**
 * Runs the JSON-Schema-Test-Suite: the required tests read `format` as the suite's default
 * vocabulary does (an annotation), optional/format asserts it, as validators run them.
 */
export async function runSuite(dir: string, tokenizerName = 'llama3.1'): Promise<SuiteResult> {
  const tokenizer = loadCliTokenizer(tokenizerName);
  const engine = await sieveEngine(tokenizer);
  const outcomes: Record<string, Outcome> = {};
  const base = join(dir, 'tests', 'draft2020-12');
  try {
    for (const file of suiteFiles(dir)) {
      const name = file.slice(base.length + 1);
      const groups = JSON.parse(readFileSync(file, 'utf8')) as {
        description: string;
        schema: unknown;
        tests: { description: string; data: unknown; valid: boolean }[];
      }[];
      for (const group of groups) {
        const compiled = await engine.compile(group.schema, { formats: name.startsWith('optional/format/') ? 'assert' : 'annotate' });
        for (const test of group.tests) {
          const id = `${name} | ${group.description} | ${test.description}`;
          if ('error' in compiled) outcomes[id] = compiled.error.startsWith('invalid_schema') ? 'skipped_invalid_schema' : 'skipped_unsupported';
          else outcomes[id] = await outcomeOf(compiled, serializations(tokenizer, test.data), test.valid);
        }
        if (!('error' in compiled)) compiled.dispose();
      }
    }
  } finally {
    engine.dispose();
  }
  const count = (o: Outcome): number => Object.values(outcomes).filter((x) => x === o).length;
  return {
    tests: Object.keys(outcomes).length,
    passed: count('passed'),
    failed_valid_rejected: count('valid_rejected'),
    failed_invalid_accepted: count('invalid_accepted'),
    skipped_unsupported: count('skipped_unsupported') + count('skipped_invalid_schema'),
    outcomes,
  };
}

/** MaskBench files in a stable order; `sample` takes every n-th so a subset spans all sources. */
export function maskBenchFiles(dir: string, limit?: number): string[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (limit === undefined || limit >= files.length) return files;
  const step = files.length / limit;
  return Array.from({ length: limit }, (_, i) => files[Math.floor(i * step)]!);
}

/** The MaskBench files of `dir` (all, or an evenly spread sample of `limit`), tokenized one by one. */
export function* maskBenchCases(dir: string, tokenizer: CliTokenizer, limit?: number): Generator<MaskBenchCase> {
  for (const file of maskBenchFiles(dir, limit)) {
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { schema: unknown; tests: { data: unknown; valid: boolean }[] };
    yield { file, schema: data.schema, tests: data.tests.map((test) => ({ valid: test.valid, serializations: serializations(tokenizer, test.data) })) };
  }
}

/**
 * A MaskBench file ready to run: its schema as UTF-8 JSON, and every instance's tokens in one
 * array (both outside the JS heap, so thousands of cases add nothing for a GC to mark or move).
 */
export interface PackedMaskBenchCase {
  readonly file: string;
  readonly schema: Uint8Array;
  /** Tests, then per test: valid (0/1), serializations, then per serialization: length, tokens. */
  readonly tokens: Int32Array;
}

export function packMaskBenchCase(c: MaskBenchCase): PackedMaskBenchCase {
  const tokens: number[] = [c.tests.length];
  for (const test of c.tests) {
    tokens.push(test.valid ? 1 : 0, test.serializations.length);
    for (const serialization of test.serializations) tokens.push(serialization.length, ...serialization);
  }
  return { file: c.file, schema: new TextEncoder().encode(JSON.stringify(c.schema)), tokens: Int32Array.from(tokens) };
}

export function unpackMaskBenchCase(packed: PackedMaskBenchCase): MaskBenchCase {
  const t = packed.tokens;
  let at = 0;
  const tests = Array.from({ length: t[at++]! }, () => {
    const valid = t[at++] === 1;
    const serializations = Array.from({ length: t[at++]! }, () => {
      const length = t[at++]!;
      at += length;
      return Array.from(t.subarray(at - length, at));
    });
    return { valid, serializations };
  });
  return { file: packed.file, schema: JSON.parse(new TextDecoder().decode(packed.schema)) as unknown, tests };
}

/**
 * MaskBench's cases over `dir` (all files, or an evenly spread sample of `limit`), tokenized
 * and packed, and the engine (default: Sieve) on `tokenizer`. The tokenizer is not kept: its
 * encoder is some 100 MB of JS objects, and alive it would make each major GC of the timed
 * thread pause for about as many milliseconds, landing in some token's mask time. (Packed,
 * the cases are a few thousand objects.)
 */
export async function prepareMaskBench(
  dir: string,
  tokenizer: string,
  limit?: number,
  makeEngine: (tokenizer: CliTokenizer) => Promise<GrammarEngine> = sieveEngine,
): Promise<{ cases: PackedMaskBenchCase[]; engine: GrammarEngine }> {
  const loaded = loadCliTokenizer(tokenizer);
  const cases = Array.from(maskBenchCases(dir, loaded, limit), packMaskBenchCase);
  return { cases, engine: await makeEngine(loaded) };
}

/**
 * Runs MaskBench (see `prepareMaskBench`). With `timed: false` masks are not computed
 * (commit only: same outcomes, much faster).
 */
export async function runMaskBench(
  dir: string,
  tokenizer: string,
  limit?: number,
  timed = true,
  makeEngine?: (tokenizer: CliTokenizer) => Promise<GrammarEngine>,
): Promise<MaskBenchResult> {
  const { cases, engine } = await prepareMaskBench(dir, tokenizer, limit, makeEngine);
  return tallyMaskBench(cases, engine, tokenizer, timed);
}

/** Runs packed MaskBench cases on `engine` (disposed at the end). */
export async function tallyMaskBench(cases: readonly PackedMaskBenchCase[], engine: GrammarEngine, tokenizer: string, timed = true): Promise<MaskBenchResult> {
  const tally = new MaskBenchTally(engine, timed);
  try {
    for (const c of cases) await tally.add(unpackMaskBenchCase(c));
  } finally {
    engine.dispose();
  }
  return tally.result(tokenizer);
}
