/** A part of a generation's sampled steps' time, in µs (see `GenerationStats.stepUs`). */
export interface StepTiming {
  readonly mean: number;
  readonly p99: number;
  /** Every sampled step's, in order. */
  readonly values: readonly number[];
}

/**
 * The mean and 99th percentile (nearest rank) of `values`, each rounded to 0.1 µs, with the
 * values (zeros when there are none). Several generations' timings pool into one by their
 * `values`: `stepTiming(results.flatMap((r) => r.stats.stepUs.total.values))`.
 */
export function stepTiming(values: readonly number[]): StepTiming {
  const round = (x: number): number => Math.round(x * 10) / 10;
  if (values.length === 0) return { mean: 0, p99: 0, values: [] };
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
  return { mean: round(mean), p99: round(p99), values: values.map(round) };
}
