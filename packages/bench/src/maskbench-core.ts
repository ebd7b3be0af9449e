/**
 * The MaskBench runner's core, with nothing Node-only in it: instances come tokenized, an
 * engine compiles each schema and feeds the tokens, and a tally gives the summary. The CLI
 * (`conformance.ts`, in Node) and the browser bench page (`apps/demo`, in a Web Worker) run
 * this same code, so their figures compare.
 */
import { bitsetHas } from '@sieve/format';
import {
  compileGrammar,
  GrammarError,
  GrammarLimitError,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  SchemaError,
  type CompiledGrammar,
} from '@sieve/grammar';
import type { Kernel, KernelVocab } from '@sieve/kernel';

/** What happened to one test instance. */
export type Outcome = 'passed' | 'valid_rejected' | 'invalid_accepted' | 'skipped_unsupported' | 'skipped_invalid_schema';

/** A constrained-decoding engine as the runners drive it: Sieve, or a peer measured the same way. */
export interface GrammarEngine {
  readonly name: 'sieve' | 'xgrammar';
  /**
   * A schema's grammar, or the key its compile error is counted under (`formats`: how Sieve
   * reads `format`, as `JsonSchemaOptions.formats`; other engines keep their own reading).
   */
  compile(schema: unknown, options?: { readonly formats?: 'assert' | 'annotate' }): Promise<EngineGrammar | { readonly error: string }>;
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
  feed(tokens: readonly number[], maskUs?: Samples): Promise<boolean>;
  dispose(): void;
}

/** Sieve: the JSON Schema compiler and the kernel matcher, on a loaded kernel and vocab. */
export function sieveGrammarEngine(kernel: Kernel, vocab: KernelVocab, eosTokenIds: readonly number[]): GrammarEngine {
  return {
    name: 'sieve',
    async compile(schema, options = {}) {
      let compiled: CompiledGrammar;
      try {
        compiled = compileGrammar(jsonSchemaGrammar(schema, options).grammar);
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
    dispose: () => undefined,
  };
}

/** Every serialization of an instance (its tokens) must be accepted (valid) or refused (invalid). */
export async function outcomeOf(grammar: EngineGrammar, serializations: readonly (readonly number[])[], valid: boolean, maskUs?: Samples): Promise<Outcome> {
  for (const tokens of serializations) {
    const accepted = await grammar.feed(tokens, maskUs);
    if (accepted !== valid) return valid ? 'valid_rejected' : 'invalid_accepted';
  }
  return 'passed';
}

/** One MaskBench file, its instances tokenized (each serialization's tokens). */
export interface MaskBenchCase {
  readonly file: string;
  readonly schema: unknown;
  readonly tests: readonly { readonly valid: boolean; readonly serializations: readonly (readonly number[])[] }[];
}

/** Summary of a MaskBench run (the DESIGN.md shape) plus per-file outcomes. */
export interface MaskBenchResult {
  readonly engine: GrammarEngine['name'];
  readonly tokenizer: string;
  readonly cases: number;
  readonly schemas_compiled: number;
  readonly compile_errors: number;
  readonly unsupported_by_keyword: Record<string, number>;
  /**
   * Files whose schema compiled and that then failed while masking or committing (a limit
   * hit mid-stream), by error code: each counts against its file, and the run goes on.
   */
  readonly errors_after_compile: Record<string, number>;
  readonly valid_tested: number;
  readonly valid_rejected: number;
  readonly invalid_tested: number;
  readonly invalid_accepted: number;
  readonly tokens: number;
  readonly mask_us: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  /** Where the slowest mask was: the file, and which of its timed tokens (0: the first). */
  readonly slowest_mask?: { readonly file: string; readonly token: number; readonly us: number };
  readonly compile_ms: { p50: number; p90: number; p99: number; max: number };
  readonly outcomes: Record<string, string>;
}

/** Runs cases one by one and sums them up. With `timed: false` masks are not computed (commit only). */
export class MaskBenchTally {
  readonly #outcomes: Record<string, string> = {};
  readonly #unsupported: Record<string, number> = {};
  readonly #afterCompile: Record<string, number> = {};
  readonly #compileMs: number[] = [];
  readonly #maskUs = new Samples();
  #cases = 0;
  #compiled = 0;
  #validTested = 0;
  #validRejected = 0;
  #invalidTested = 0;
  #invalidAccepted = 0;
  #slowest: { file: string; token: number; us: number } | undefined;

  constructor(
    readonly engine: GrammarEngine,
    readonly timed = true,
  ) {}

  async add(c: MaskBenchCase): Promise<void> {
    this.#cases++;
    const started = performance.now();
    const grammar = await this.engine.compile(c.schema);
    if ('error' in grammar) {
      this.#unsupported[grammar.error] = (this.#unsupported[grammar.error] ?? 0) + 1;
      this.#outcomes[c.file] = `error:${grammar.error}`;
      return;
    }
    this.#compiled++;
    const results: string[] = [];
    const firstToken = this.#maskUs.length;
    try {
      // Compile time includes the first mask ("time to first mask").
      await grammar.firstMask();
      this.#compileMs.push(performance.now() - started);
      for (const test of c.tests) {
        const outcome = await outcomeOf(grammar, test.serializations, test.valid, this.timed ? this.#maskUs : undefined);
        if (test.valid) {
          this.#validTested++;
          if (outcome !== 'passed') this.#validRejected++;
        } else {
          this.#invalidTested++;
          if (outcome !== 'passed') this.#invalidAccepted++;
        }
        results.push(outcome === 'passed' ? 'p' : outcome === 'valid_rejected' ? 'R' : 'A');
      }
      this.#outcomes[c.file] = `ok:${results.join('')}`;
    } catch (error) {
      if (!(error instanceof GrammarError)) throw error;
      // The instances tested so far keep their outcomes; the file is marked by the error.
      const key = error instanceof GrammarLimitError ? `${error.code}:${error.limit}` : error.code;
      this.#afterCompile[key] = (this.#afterCompile[key] ?? 0) + 1;
      this.#outcomes[c.file] = `failed:${key}:${results.join('')}`;
    } finally {
      grammar.dispose();
    }
    const slowest = this.#maskUs.slowestSince(firstToken);
    if (slowest !== undefined && slowest.us > (this.#slowest?.us ?? -1)) this.#slowest = { file: c.file, token: slowest.at - firstToken, us: slowest.us };
  }

  result(tokenizer: string): MaskBenchResult {
    const mask = this.#maskUs.sorted();
    const compile = Float64Array.from(this.#compileMs).sort();
    return {
      engine: this.engine.name,
      tokenizer,
      cases: this.#cases,
      schemas_compiled: this.#compiled,
      compile_errors: this.#cases - this.#compiled,
      unsupported_by_keyword: Object.fromEntries(Object.entries(this.#unsupported).sort((a, b) => b[1] - a[1])),
      errors_after_compile: { ...this.#afterCompile },
      valid_tested: this.#validTested,
      valid_rejected: this.#validRejected,
      invalid_tested: this.#invalidTested,
      invalid_accepted: this.#invalidAccepted,
      tokens: mask.length,
      mask_us: {
        mean: round(mean(mask)),
        p50: round(quantile(mask, 0.5)),
        p90: round(quantile(mask, 0.9)),
        p99: round(quantile(mask, 0.99)),
        p999: round(quantile(mask, 0.999)),
        max: round(quantile(mask, 1)),
      },
      ...(this.#slowest !== undefined && { slowest_mask: { ...this.#slowest, us: round(this.#slowest.us) } }),
      compile_ms: {
        p50: round(quantile(compile, 0.5)),
        p90: round(quantile(compile, 0.9)),
        p99: round(quantile(compile, 0.99)),
        max: round(quantile(compile, 1)),
      },
      outcomes: this.#outcomes,
    };
  }
}

/**
 * Timings recorded in fixed chunks: millions of samples neither copy a growing array nor
 * leave the GC a larger one to move at each growth while the timed loop runs.
 */
export class Samples {
  readonly #chunks: Float64Array[] = [];
  #chunk = new Float64Array(0);
  #used = 0;

  push(value: number): void {
    if (this.#used === this.#chunk.length) {
      this.#chunk = new Float64Array(SAMPLES_PER_CHUNK);
      this.#chunks.push(this.#chunk);
      this.#used = 0;
    }
    this.#chunk[this.#used++] = value;
  }

  get length(): number {
    return this.#chunks.length === 0 ? 0 : (this.#chunks.length - 1) * SAMPLES_PER_CHUNK + this.#used;
  }

  /** The largest sample from index `start` on, and its index (undefined when there are none). */
  slowestSince(start: number): { at: number; us: number } | undefined {
    let slowest: { at: number; us: number } | undefined;
    for (let at = start; at < this.length; at++) {
      const us = this.#chunks[Math.floor(at / SAMPLES_PER_CHUNK)]![at % SAMPLES_PER_CHUNK]!;
      if (us > (slowest?.us ?? -1)) slowest = { at, us };
    }
    return slowest;
  }

  /** Every sample, in increasing order. */
  sorted(): Float64Array {
    const all = new Float64Array(this.length);
    this.#chunks.forEach((chunk, i) => all.set(i === this.#chunks.length - 1 ? chunk.subarray(0, this.#used) : chunk, i * SAMPLES_PER_CHUNK));
    return all.sort();
  }
}
const SAMPLES_PER_CHUNK = 1 << 16;

function mean(values: Float64Array): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

// The q-quantile of `sorted` (increasing).
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
