/**
 * Conformance runners: JSON-Schema-Test-Suite and MaskBench. Every instance is serialized
 * (compactly, and the way Python's json.dumps writes it), tokenized with the tokenizer's own
 * encoder and fed token by token to an engine (Sieve's kernel matcher, or a peer): a valid
 * instance must have every token allowed and end in an accepting state; an invalid one must
 * be refused at some token or at the end.
 */
import { bitsetHas } from '@sieve/format';
import { compileGrammar, GrammarError, jsonSchemaGrammar, KernelGrammar, KernelMatcher, pythonJson, SchemaError, type CompiledGrammar } from '@sieve/grammar';
import { loadKernel } from '@sieve/kernel';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCliTokenizer, type CliTokenizer } from './tokenizer.ts';

/** What happened to one test instance. */
export type Outcome = 'passed' | 'valid_rejected' | 'invalid_accepted' | 'skipped_unsupported' | 'skipped_invalid_schema';

/**
 * A constrained-decoding engine as the runners drive it: Sieve, or a peer measured the same
 * way in the same process (`xgrammar-engine.ts`).
 */
export interface BenchEngine {
  readonly name: 'sieve' | 'xgrammar';
  readonly tokenizer: CliTokenizer;
  /** A schema's grammar, or the key its compile error is counted under. */
  compile(schema: unknown): Promise<EngineGrammar | { readonly error: string }>;
  dispose(): void;
}

/** A compiled schema. */
export interface EngineGrammar {
  /** Computes the first mask of a fresh matcher ("time to first mask" ends here). */
  firstMask(): Promise<void>;
  /**
   * Feeds `tokens` one by one: whether every token was allowed and the end is complete. When
   * `maskUs` is given, each token's mask + commit time (µs) is pushed to it.
   */
  feed(tokens: readonly number[], maskUs?: number[]): Promise<boolean>;
  dispose(): void;
}

/** Sieve: the JSON Schema compiler and the kernel matcher. */
export async function sieveEngine(tokenizer: string): Promise<BenchEngine> {
  const loaded = loadCliTokenizer(tokenizer);
  const kernel = await loadKernel();
  const vocab = kernel.loadVocab(loaded.vocab.file);
  const eosTokenIds = loaded.vocab.meta.eos_token_ids;
  return {
    name: 'sieve',
    tokenizer: loaded,
    async compile(schema) {
      let compiled: CompiledGrammar;
      try {
        compiled = compileGrammar(jsonSchemaGrammar(schema).grammar);
      } catch (error) {
        if (!(error instanceof GrammarError)) throw error;
        const keyword = error instanceof SchemaError ? error.keyword || error.code : error.code;
        return { error: error instanceof SchemaError && error.code === 'invalid_schema' ? `invalid_schema:${keyword}` : keyword };
      }
      const grammar = new KernelGrammar(kernel, compiled);
      const matcher = (): KernelMatcher => new KernelMatcher(grammar, vocab, { eosTokenIds });
      return {
        async firstMask() {
          const first = matcher();
          first.computeMask();
          first.dispose();
        },
        async feed(tokens, maskUs) {
          const m = matcher();
          try {
            for (const id of tokens) {
              if (maskUs === undefined) {
                if (!m.commitToken(id)) return false;
                continue;
              }
              const started = performance.now();
              // The mask as a packed bitset, the form XGrammar returns too (here a view of
              // kernel memory, as a decode loop reads it; BRLE encoding is measured on its own
              // by the BRLE benchmark).
              const allowed = bitsetHas(m.computeMaskView(), id) && m.commitToken(id);
              maskUs.push((performance.now() - started) * 1000);
              if (!allowed) return false;
            }
            return m.isAccepting();
          } finally {
            m.dispose();
          }
        },
        dispose: () => grammar.dispose(),
      };
    },
    dispose: () => kernel.dispose(),
  };
}

// Every serialization of an instance must be accepted (valid) or refused (invalid).
async function outcomeOf(engine: BenchEngine, grammar: EngineGrammar, data: unknown, valid: boolean, maskUs?: number[]): Promise<Outcome> {
  const serializations = [...new Set([JSON.stringify(data), pythonJson(data)])];
  for (const text of serializations) {
    const accepted = await grammar.feed(engine.tokenizer.encode(text), maskUs);
    if (accepted !== valid) return valid ? 'valid_rejected' : 'invalid_accepted';
  }
  return 'passed';
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
  const engine = await sieveEngine(tokenizer);
  const outcomes: Record<string, Outcome> = {};
  const base = join(dir, 'tests', 'draft2020-12');
  try {
    for (const file of suiteFiles(dir)) {
      const name = file.slice(base.length + 1);
      const groups = JSON.parse(readFileSync(file, 'utf8')) as { description: string; schema: unknown; tests: { description: string; data: unknown; valid: boolean }[] }[];
      for (const group of groups) {
        const compiled = await engine.compile(group.schema);
        for (const test of group.tests) {
          const id = `${name} | ${group.description} | ${test.description}`;
          if ('error' in compiled) outcomes[id] = compiled.error.startsWith('invalid_schema') ? 'skipped_invalid_schema' : 'skipped_unsupported';
          else outcomes[id] = await outcomeOf(engine, compiled, test.data, test.valid);
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

/** Summary of a MaskBench run (the DESIGN.md shape) plus per-file outcomes. */
export interface MaskBenchResult {
  readonly engine: BenchEngine['name'];
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
 * Runs MaskBench over `dir` (all files, or an evenly spread sample of `limit`) with `engine`
 * (default: Sieve on `tokenizer`). With `timed: false` masks are not computed (commit only:
 * same outcomes, much faster).
 */
export async function runMaskBench(dir: string, tokenizer: string, limit?: number, timed = true, makeEngine: (tokenizer: string) => Promise<BenchEngine> = sieveEngine): Promise<MaskBenchResult> {
  const engine = await makeEngine(tokenizer);
  const outcomes: Record<string, string> = {};
  const unsupported: Record<string, number> = {};
  const compileMs: number[] = [];
  const maskUs: number[] = [];
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
      const grammar = await engine.compile(data.schema);
      if ('error' in grammar) {
        unsupported[grammar.error] = (unsupported[grammar.error] ?? 0) + 1;
        outcomes[file] = `error:${grammar.error}`;
        continue;
      }
      compiled++;
      // Compile time includes the first mask ("time to first mask").
      await grammar.firstMask();
      compileMs.push(performance.now() - started);
      const results: string[] = [];
      for (const test of data.tests) {
        const outcome = await outcomeOf(engine, grammar, test.data, test.valid, timed ? maskUs : undefined);
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
    engine.dispose();
  }
  return {
    engine: engine.name,
    tokenizer,
    cases: files.length,
    schemas_compiled: compiled,
    compile_errors: files.length - compiled,
    unsupported_by_keyword: Object.fromEntries(Object.entries(unsupported).sort((a, b) => b[1] - a[1])),
    valid_tested: validTested,
    valid_rejected: validRejected,
    invalid_tested: invalidTested,
    invalid_accepted: invalidAccepted,
    tokens: maskUs.length,
    mask_us: { mean: round(mean(maskUs)), p50: round(quantile(maskUs, 0.5)), p90: round(quantile(maskUs, 0.9)), p99: round(quantile(maskUs, 0.99)), p999: round(quantile(maskUs, 0.999)), max: round(quantile(maskUs, 1)) },
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
