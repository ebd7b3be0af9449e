/**
 * The JSON documents `pnpm bench` prints, one shape per benchmark, declared once: the pages
 * and scripts that write them and `sieve bench report` (which renders docs/benchmarks.md from
 * them) import these. Fields marked optional are missing from older reports.
 */
import type { MaskBenchResult } from './maskbench-core.ts';

/** A MaskBench run's summary: the result without its per-file outcomes. */
export type MaskBenchSummary = Omit<MaskBenchResult, 'outcomes'>;

/** `packages/kernel/bench/vocab.bench.ts`: kernel size and start-up, vocab index per tokenizer. */
export interface VocabReport {
  readonly bench: 'vocab';
  readonly kernel_wasm_bytes: number;
  readonly kernel_instantiate_ms: number;
  readonly tokenizers: Readonly<Record<string, { readonly file_bytes: number; readonly load_ms: number; readonly memory_bytes: number }>>;
}

/** Median and p99 of one BRLE operation, µs. */
export interface BrleStats {
  readonly median_us: number;
  readonly p99_us: number;
}

/** `packages/kernel/bench/brle.bench.ts`: BRLE operations, kernel against TypeScript. */
export interface BrleReport {
  readonly bench: 'brle';
  readonly vocab_size: number;
  readonly results: Readonly<Record<string, { readonly kernel: BrleStats; readonly typescript: BrleStats; readonly speedup_median: number }>>;
}

/** The parts a sampled decode step's time is split into. */
export type StepPart = 'mask' | 'apply' | 'sample' | 'commit' | 'other';
export const STEP_PARTS: readonly StepPart[] = ['mask', 'apply', 'sample', 'commit', 'other'];

/** A part of the sampled steps' time, µs. */
export interface StepTimes {
  readonly mean: number;
  readonly p99: number;
  /** Sampled steps pooled (missing from older reports). */
  readonly steps?: number;
}

/** One side (constrained or unconstrained) of a generation benchmark schema: medians over the runs. */
export interface GenerationSide {
  readonly tokens: number;
  readonly tokens_per_s: number;
  readonly forward_ms_per_pass: number;
  readonly forward_passes: number;
  readonly mask_us_per_step: number;
  readonly sample_us_per_step: number;
  readonly forced_fraction: number;
  /**
   * Per sampled step, µs: mean and p99 over the sampled steps of every run (`steps` of them;
   * older reports: the mean over the runs' means, and the worst run's p99).
   */
  readonly step_us?: Readonly<Record<StepPart, StepTimes>>;
  /** The same of each step's sum of the parts (a p99 of sums, not a sum of p99s). */
  readonly step_total_us?: StepTimes;
}

/** A model load in the generation benchmark: its total, and its parts. */
export interface GenerationLoad {
  readonly ms: number;
  readonly model_ms?: number;
  readonly vocab_ms?: number;
  readonly vocab: string;
}

/** One schema of the generation benchmark. */
export interface GenerationSchemaResult {
  readonly schema: string;
  readonly compile_ms?: number;
  /**
   * The first constrained run after compile (and its rehearsal), not among `constrained`'s
   * runs: it builds what the rehearsal did not. Its sampled steps' totals (as
   * `step_total_us`): how many, mean, max, and their sum in ms.
   */
  readonly first_run?: { readonly steps: number; readonly mean: number; readonly max: number; readonly ms: number };
  readonly constrained: GenerationSide;
  readonly unconstrained: GenerationSide;
  readonly speed_ratio: number;
  readonly complete: number;
  readonly runs: number;
}

/** `apps/demo/bench.html` (driven by `e2e/bench/generation.bench.ts`): a model in the engine's Web Worker. */
export interface GenerationReport {
  readonly bench: 'generation';
  readonly model: string;
  /** Tokens in the vocabulary. */
  readonly tokens?: number;
  readonly device: string;
  readonly runs: number;
  /** Hub models only: the first load, and a second one from the cache. */
  readonly first_load?: GenerationLoad;
  readonly cached_load?: GenerationLoad | null;
  readonly user_agent: string;
  readonly hardware_concurrency?: number;
  readonly cross_origin_isolated?: boolean;
  readonly schemas: readonly GenerationSchemaResult[];
}

/** `e2e/bench/maskbench.bench.ts`: the same MaskBench cases in Node and in a Chromium Web Worker. */
export interface BrowserMaskBenchReport {
  readonly bench: 'maskbench-browser';
  readonly tokenizer: string;
  readonly cases: number;
  readonly user_agent: string;
  readonly outcomes_equal: boolean;
  readonly node: MaskBenchSummary;
  readonly browser: MaskBenchSummary;
  readonly browser_over_node: {
    readonly mask_mean: number;
    readonly mask_p50: number;
    readonly mask_p99: number;
    readonly compile_p50: number;
    readonly compile_p99: number;
  };
}
