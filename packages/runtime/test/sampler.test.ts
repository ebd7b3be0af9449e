import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argmax, penalizeRepetition, Rng, sampleToken, samplingDistribution } from '../src/sampler.ts';
import { chiSquareCritical } from './support/chi-square.ts';

describe('Rng', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const draw = (seed: number): number[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 8 }, () => rng.next());
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('is uniform on [0, 1) (chi-square over 20 bins)', () => {
    const rng = new Rng(12345);
    const bins = new Array<number>(20).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      bins[Math.floor(u * 20)]!++;
    }
    const expected = n / 20;
    const chi = bins.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(chiSquareCritical(19, 0.001));
  });
});

const logitsArbitrary = fc
  .array(fc.oneof(fc.float({ min: -20, max: 20, noNaN: true }), fc.constant(-Infinity)), { minLength: 1, maxLength: 64 })
  .map((values) => Float32Array.from(values));

describe('samplingDistribution', () => {
  it('keeps only allowed tokens, sorted by probability, summing to 1, within top-k / top-p / min-p', () => {
    fc.assert(
      fc.property(
        logitsArbitrary,
        fc.record({ temperature: fc.double({ min: 0.05, max: 3, noNaN: true }), topK: fc.nat(10), topP: fc.double({ min: 0.05, max: 1, noNaN: true }), minP: fc.double({ min: 0, max: 0.9, noNaN: true }) }),
        (logits, options) => {
          const { ids, probs } = samplingDistribution(logits, options);
          const allowed = logits.filter((l) => l !== -Infinity).length;
          if (allowed === 0) {
            expect(ids.length).toBe(0);
            return;
          }
          expect(ids.length).toBeGreaterThan(0);
          if (options.topK > 0) expect(ids.length).toBeLessThanOrEqual(options.topK);
          for (const id of ids) expect(logits[id]).not.toBe(-Infinity);
          expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
          for (let j = 1; j < probs.length; j++) expect(probs[j]).toBeLessThanOrEqual(probs[j - 1]! + 1e-12);
          // The most likely allowed token always survives the filters.
          expect(logits[ids[0]!]).toBe(logits[argmax(logits)]);
        },
      ),
    );
  });

  it('top-p keeps the smallest prefix reaching p, min-p drops tokens below minP × the best', () => {
    const logits = Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);
    expect(Array.from(samplingDistribution(logits, { topP: 0.8 }).ids)).toEqual([0, 1]);
    expect(Array.from(samplingDistribution(logits, { topP: 0.81 }).ids)).toEqual([0, 1, 2]);
    expect(Array.from(samplingDistribution(logits, { minP: 0.35 }).ids)).toEqual([0, 1]);
    expect(Array.from(samplingDistribution(logits, { topK: 3, temperature: 1 }).ids)).toEqual([0, 1, 2]);
  });

  it('temperature 0 is the argmax, ties to the lowest id', () => {
    const logits = Float32Array.from([1, 3, -Infinity, 3]);
    expect(sampleToken(logits, { temperature: 0 }, new Rng(1))).toBe(1);
    expect(sampleToken(Float32Array.from([-Infinity, -Infinity]), { temperature: 0 }, new Rng(1))).toBe(-1);
  });

  it('draws with the distribution it reports (chi-square)', () => {
    const logits = Float32Array.from([0.5, -1, 2, -Infinity, 0, 1.2, -Infinity, -0.3]);
    const { ids, probs } = samplingDistribution(logits, { temperature: 0.9 });
    const rng = new Rng(99);
    const counts = new Map<number, number>();
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      const t = sampleToken(logits, { temperature: 0.9 }, rng);
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    expect(counts.has(3) || counts.has(6)).toBe(false);
    let chi = 0;
    ids.forEach((id, j) => (chi += ((counts.get(id) ?? 0) - n * probs[j]!) ** 2 / (n * probs[j]!)));
    expect(chi).toBeLessThan(chiSquareCritical(ids.length - 1, 0.001));
  });
});

describe('penalizeRepetition', () => {
  it("divides seen tokens' positive logits, multiplies negative ones, leaves masked and unseen ones", () => {
    const logits = Float32Array.of(2, -2, -Infinity, 3);
    penalizeRepetition(logits, new Set([0, 1, 2]), 2);
    expect(Array.from(logits)).toEqual([1, -4, -Infinity, 3]);
  });
});
