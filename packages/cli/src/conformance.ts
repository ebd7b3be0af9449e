/**
 * Conformance runners: JSON-Schema-Test-Suite and MaskBench. Every instance is serialized
 * (compactly, and the way Python's json.dumps writes it), tokenized with the tokenizer's own
 * encoder and fed token by token to the kernel matcher: a valid instance must have every
 * token allowed and end in an accepting state; an invalid one must be refused at some token
 * or at the end.
 */
import { brleAllows } from '@sieve/format';
import { compileGrammar, GrammarError, jsonSchemaGrammar, KernelGrammar, KernelMatcher, SchemaError, type CompiledGrammar } from '@sieve/grammar';
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCliTokenizer, type CliTokenizer } from './tokenizer.ts';

/** What happened to one test instance. */
export type Outcome = 'passed' | 'valid_rejected' | 'invalid_accepted' | 'skipped_unsupported' | 'skipped_invalid_schema';

/** JSON text the way Python's json.dumps(x) writes it (separators ", " and ": "). */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

interface Checker {
  readonly tokenizer: CliTokenizer;
  readonly kernel: Kernel;
  readonly vocab: KernelVocab;
  /** Per-token mask+commit times (µs), when timing. */
  readonly maskUs: number[];
}

async function makeChecker(tokenizer: string): Promise<Checker> {
  const loaded = loadCliTokenizer(tokenizer);
  const kernel = await loadKernel();
  return { tokenizer: loaded, kernel, vocab: kernel.loadVocab(loaded.vocab.file), maskUs: [] };
}

// Feeds one text; returns whether every token was allowed and the end is accepting.
function feed(checker: Checker, grammar: KernelGrammar, text: string, timed: boolean): boolean {
  const matcher = new KernelMatcher(grammar, checker.vocab, { eosTokenIds: checker.tokenizer.vocab.meta.eos_token_ids });
  try {
    for (const id of checker.tokenizer.encode(text)) {
      const started = timed ? performance.now() : 0;
      let allowed: boolean;
      if (timed) {
        const mask = matcher.computeMask();
        allowed = brleAllows(mask, id) && matcher.commitToken(id);
        checker.maskUs.push((performance.now() - started) * 1000);
      } else {
        allowed = matcher.commitToken(id);
      }
      if (!allowed) return false;
    }
    return matcher.isAccepting();
  } finally {
    matcher.dispose();
  }
}

function outcomeOf(checker: Checker, grammar: KernelGrammar, data: unknown, valid: boolean, timed = false): Outcome {
  const serializations = [...new Set([JSON.stringify(data), pythonJson(data)])];
  for (const text of serializations) {
    const accepted = feed(checker, grammar, text, timed);
    if (accepted !== valid) return valid ? 'valid_rejected' : 'invalid_accepted';
  }
  return 'passed';
}

function compileSchema(schema: unknown): { grammar: CompiledGrammar; ms: number } | { error: GrammarError } {
  const started = performance.now();
  try {
    const grammar = compileGrammar(jsonSchemaGrammar(schema).grammar);
    return { grammar, ms: performance.now() - started };
  } catch (error) {
    if (error instanceof GrammarError) return { error };
    throw error;
  }
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
  const required = readdirSync(base).filter((f) => f.endsWith('.json')).sort().map((f) => join(base, f));
  const formats = readdirSync(join(base, 'optional', 'format')).filter((f) => f.endsWith('.json')).sort().map((f) => join(base, 'optional', 'format', f));
  return [...required, ...formats];
}

/** Runs the JSON-Schema-Test-Suite. */
export async function runSuite(dir: string, tokenizer = 'llama3.1'): Promise<SuiteResult> {
  const checker = await makeChecker(tokenizer);
  const outcomes: Record<string, Outcome> = {};
  const base = join(dir, 'tests', 'draft2020-12');
  try {
    for (const file of suiteFiles(dir)) {
      const name = file.slice(base.length + 1);
      const groups = JSON.parse(readFileSync(file, 'utf8')) as { description: string; schema: unknown; tests: { description: string; data: unknown; valid: boolean }[] }[];
      for (const group of groups) {
        const compiled = compileSchema(group.schema);
        const grammar = 'grammar' in compiled ? new KernelGrammar(checker.kernel, compiled.grammar) : null;
        for (const test of group.tests) {
          const id = `${name} | ${group.description} | ${test.description}`;
          if (grammar === null) {
            const error = (compiled as { error: GrammarError }).error;
            outcomes[id] = error instanceof SchemaError && error.code === 'invalid_schema' ? 'skipped_invalid_schema' : 'skipped_unsupported';
          } else {
            outcomes[id] = outcomeOf(checker, grammar, test.data, test.valid);
          }
        }
        grammar?.dispose();
      }
    }
  } finally {
    checker.kernel.dispose();
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

/** Summary of a MaskBench run (the DESIGN.md shape) plus per-file outcomes. */
export interface MaskBenchResult {
  readonly engine: 'sieve';
  readonly tokenizer: string;
  readonly cases: number;
  readonly schemas_compiled: number;
  readonly compile_errors: number;
  readonly unsupported_by_keyword: Record<string, number>;
  readonly valid_tested: number;
  readonly valid_rejected: number;
  readonly invalid_tested: number;
  readonly invalid_accepted: number;
  readonly tokens: number;
  readonly mask_us: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  readonly compile_ms: { p50: number; p90: number; p99: number; max: number };
  readonly outcomes: Record<string, string>;
}

/** MaskBench files in a stable order; `sample` takes every n-th so a subset spans all sources. */
export function maskBenchFiles(dir: string, limit?: number): string[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (limit === undefined || limit >= files.length) return files;
  const step = files.length / limit;
  return Array.from({ length: limit }, (_, i) => files[Math.floor(i * step)]!);
}

/**
 * Runs MaskBench over `dir` (all files, or an evenly spread sample of `limit`). With
 * `timed: false` masks are not computed (commit only: same outcomes, much faster).
 */
export async function runMaskBench(dir: string, tokenizer: string, limit?: number, timed = true): Promise<MaskBenchResult> {
  const checker = await makeChecker(tokenizer);
  const outcomes: Record<string, string> = {};
  const unsupported: Record<string, number> = {};
  const compileMs: number[] = [];
  let compiled = 0;
  let validTested = 0;
  let validRejected = 0;
  let invalidTested = 0;
  let invalidAccepted = 0;
  const files = maskBenchFiles(dir, limit);
  try {
    for (const file of files) {
      const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { schema: unknown; tests: { data: unknown; valid: boolean }[] };
      const started = performance.now();
      const result = compileSchema(data.schema);
      if ('error' in result) {
        const keyword = result.error instanceof SchemaError ? result.error.keyword || result.error.code : result.error.code;
        const key = result.error instanceof SchemaError && result.error.code === 'invalid_schema' ? `invalid_schema:${keyword}` : keyword;
        unsupported[key] = (unsupported[key] ?? 0) + 1;
        outcomes[file] = `error:${key}`;
        continue;
      }
      compiled++;
      const grammar = new KernelGrammar(checker.kernel, result.grammar);
      // Compile time includes the first mask ("time to first mask").
      const first = new KernelMatcher(grammar, checker.vocab, { eosTokenIds: checker.tokenizer.vocab.meta.eos_token_ids });
      first.computeMask();
      first.dispose();
      compileMs.push(performance.now() - started);
      const results: string[] = [];
      for (const test of data.tests) {
        const outcome = outcomeOf(checker, grammar, test.data, test.valid, timed);
        if (test.valid) {
          validTested++;
          if (outcome !== 'passed') validRejected++;
        } else {
          invalidTested++;
          if (outcome !== 'passed') invalidAccepted++;
        }
        results.push(outcome === 'passed' ? 'p' : outcome === 'valid_rejected' ? 'R' : 'A');
      }
      outcomes[file] = `ok:${results.join('')}`;
      grammar.dispose();
    }
  } finally {
    checker.kernel.dispose();
  }
  return {
    engine: 'sieve',
    tokenizer,
    cases: files.length,
    schemas_compiled: compiled,
    compile_errors: files.length - compiled,
    unsupported_by_keyword: Object.fromEntries(Object.entries(unsupported).sort((a, b) => b[1] - a[1])),
    valid_tested: validTested,
    valid_rejected: validRejected,
    invalid_tested: invalidTested,
    invalid_accepted: invalidAccepted,
    tokens: checker.maskUs.length,
    mask_us: { mean: round(mean(checker.maskUs)), p50: round(quantile(checker.maskUs, 0.5)), p90: round(quantile(checker.maskUs, 0.9)), p99: round(quantile(checker.maskUs, 0.99)), p999: round(quantile(checker.maskUs, 0.999)), max: round(quantile(checker.maskUs, 1)) },
    compile_ms: { p50: round(quantile(compileMs, 0.5)), p90: round(quantile(compileMs, 0.9)), p99: round(quantile(compileMs, 0.99)), max: round(quantile(compileMs, 1)) },
    outcomes,
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
