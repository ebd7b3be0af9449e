// Upper quantiles of the standard normal distribution for the significance levels used here.
const Z: Record<number, number> = { 0.01: 2.326348, 0.001: 3.090232 };

/**
 * The chi-square critical value for `df` degrees of freedom at significance `alpha` (Wilson–
 * Hilferty: within 1% of the exact value for df ≥ 3 at these levels).
 */
export function chiSquareCritical(df: number, alpha: 0.01 | 0.001): number {
  const z = Z[alpha]!;
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/**
 * Pearson's statistic for `observed` counts against `expected` probabilities (summing to 1),
 * pooling categories expected fewer than 5 times into one; also the degrees of freedom.
 */
export function chiSquare(observed: readonly number[], expected: readonly number[]): { statistic: number; df: number } {
  const n = observed.reduce((a, b) => a + b, 0);
  let statistic = 0;
  let categories = 0;
  let pooledObserved = 0;
  let pooledExpected = 0;
  observed.forEach((o, i) => {
    const e = n * expected[i]!;
    if (e < 5) {
      pooledObserved += o;
      pooledExpected += e;
      return;
    }
    statistic += (o - e) ** 2 / e;
    categories++;
  });
  if (pooledExpected > 0) {
    statistic += (pooledObserved - pooledExpected) ** 2 / pooledExpected;
    categories++;
  }
  return { statistic, df: categories - 1 };
}
