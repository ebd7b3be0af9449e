import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brleAllows, brleFromBitset, bitsetAdd, bitsetWords } from '@sieve/format';
import {
  allowedMass,
  allowedRanges,
  applyMask,
  argmax,
  Draws,
  penalizeRepetition,
  Rng,
  sampleToken,
  samplingDistribution,
  topCandidates,
} from '../src/sampler.ts';
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
        fc.record({
          temperature: fc.double({ min: 0.05, max: 3, noNaN: true }),
          topK: fc.nat(10),
          topP: fc.double({ min: 0.05, max: 1, noNaN: true }),
          minP: fc.double({ min: 0, max: 0.9, noNaN: true }),
        }),
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

// The distribution as defined: every allowed token sorted (by logit, then id), then top-k,
// min-p and top-p over that list — the oracle for the samplers, which never sort it all.
function referenceDistribution(
  logits: Float32Array,
  options: { temperature: number; topK: number; topP: number; minP: number },
): { ids: number[]; probs: number[] } {
  const { temperature, topK, topP, minP } = options;
  const ids = [...logits.keys()].filter((i) => logits[i] !== -Infinity).sort((a, b) => logits[b]! - logits[a]! || a - b);
  if (ids.length === 0) return { ids: [], probs: [] };
  let keep = topK > 0 ? Math.min(topK, ids.length) : ids.length;
  const top = logits[ids[0]!]! / temperature;
  const weights = ids.slice(0, keep).map((id) => Math.exp(logits[id]! / temperature - top));
  const total = weights.reduce((a, b) => a + b, 0);
  while (minP > 0 && keep > 1 && weights[keep - 1]! < minP * weights[0]!) keep--;
  if (topP < 1) {
    let cumulative = 0;
    for (let j = 0; j < keep; j++) {
      cumulative += weights[j]! / total;
      if (cumulative >= topP) {
        keep = j + 1;
        break;
      }
    }
  }
  const sum = weights.slice(0, keep).reduce((a, b) => a + b, 0);
  return { ids: ids.slice(0, keep), probs: weights.slice(0, keep).map((w) => w / sum) };
}

// Logits with ties (a few distinct values), some -Infinity, and a mask over them.
const maskedLogits = fc.integer({ min: 1, max: 700 }).chain((n) =>
  fc.record({
    logits: fc
      .array(
        fc.oneof(
          fc.integer({ min: -6, max: 6 }).map((v) => v / 2),
          fc.constant(-Infinity),
        ),
        { minLength: n, maxLength: n },
      )
      .map((values) => Float32Array.from(values)),
    allowed: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);
const filters = fc.record({
  temperature: fc.double({ min: 0.1, max: 3, noNaN: true }),
  topK: fc.oneof(fc.constant(0), fc.nat(100)),
  topP: fc.oneof(fc.constant(1), fc.double({ min: 0.05, max: 0.999, noNaN: true })),
  minP: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 0.9, noNaN: true })),
});

describe('sampling inside the allowed ranges of a mask', () => {
  const maskOf = (allowed: readonly boolean[]): Uint32Array => {
    const bits = new Uint32Array(bitsetWords(allowed.length));
    allowed.forEach((yes, id) => yes && bitsetAdd(bits, id));
    return brleFromBitset(bits, allowed.length);
  };
  const withMask = (logits: Float32Array, allowed: readonly boolean[]): Float32Array => logits.map((l, i) => (allowed[i] ? l : -Infinity));

  it('allowedRanges are the allowed runs of the mask, cut at the logits there are', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 300 }), fc.nat(300), (allowed, cut) => {
        const mask = maskOf(allowed);
        const ranges = allowedRanges(mask, cut);
        const inRanges = (id: number): boolean => {
          for (let r = 0; r < ranges.length; r += 2) if (id >= ranges[r]! && id < ranges[r + 1]!) return true;
          return false;
        };
        for (let id = 0; id < allowed.length + 5; id++) expect(inRanges(id)).toBe(id < cut && id < allowed.length && brleAllows(mask, id));
        for (let r = 2; r < ranges.length; r += 2) expect(ranges[r]!).toBeGreaterThan(ranges[r - 1]!);
      }),
    );
    expect(Array.from(allowedRanges(new Uint32Array(0), 9))).toEqual([0, 9]);
  });

  it('gives the distribution of the full sort over the allowed tokens, with top-k, top-p and min-p (ties by id)', () => {
    fc.assert(
      fc.property(maskedLogits, filters, ({ logits, allowed }, options) => {
        const { ids, probs } = samplingDistribution(logits, options, allowedRanges(maskOf(allowed), logits.length));
        const expected = referenceDistribution(withMask(logits, allowed), options);
        expect(Array.from(ids)).toEqual(expected.ids);
        probs.forEach((p, j) => expect(p).toBeCloseTo(expected.probs[j]!, 9));
      }),
      { numRuns: 300 },
    );
  });

  it('top-p past the 64 most likely tokens looks further (a flat distribution over 5,000)', () => {
    const logits = Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i) * 0.01);
    for (const options of [
      { temperature: 1, topK: 0, topP: 0.9, minP: 0 },
      { temperature: 1, topK: 0, topP: 0.5, minP: 0.99 },
    ]) {
      const { ids } = samplingDistribution(logits, options);
      expect(Array.from(ids)).toEqual(referenceDistribution(logits, options).ids);
    }
    expect(samplingDistribution(logits, { topP: 0.9 }).ids.length).toBeGreaterThan(4000);
  });

  it('draws the same token from the ranges as from logits masked with -Infinity (same seed)', () => {
    fc.assert(
      fc.property(maskedLogits, filters, fc.nat(), ({ logits, allowed }, options, seed) => {
        const ranges = allowedRanges(maskOf(allowed), logits.length);
        expect(sampleToken(logits, options, new Rng(seed), ranges)).toBe(sampleToken(withMask(logits, allowed), options, new Rng(seed)));
        expect(argmax(logits, ranges)).toBe(argmax(withMask(logits, allowed)));
      }),
      { numRuns: 300 },
    );
  });

  it('applyMask: the same draws as the ranges of the mask, whether it writes the mask into the logits or not', () => {
    // Masks of every density: the dense ones (most tokens allowed) are written into the logits.
    const densities = fc.integer({ min: 1, max: 400 }).chain((n) =>
      fc.record({
        logits: fc
          .array(
            fc.integer({ min: -6, max: 6 }).map((v) => v / 2),
            { minLength: n, maxLength: n },
          )
          .map((v) => Float32Array.from(v)),
        allowed: fc.double({ min: 0, max: 1, noNaN: true }).chain((p) =>
          fc.array(
            fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x < p),
            { minLength: n, maxLength: n },
          ),
        ),
        cut: fc.nat(n),
      }),
    );
    fc.assert(
      fc.property(densities, filters, fc.nat(), ({ logits, allowed, cut }, options, seed) => {
        const mask = maskOf(allowed);
        const applied = logits.slice();
        const ranges = applyMask(applied, mask, cut);
        const written = ranges.length === 2 && ranges[0] === 0 && ranges[1] === cut && allowed.slice(0, cut).some((yes) => !yes);
        // Written: the disallowed ids below the cut are -Infinity, the rest untouched; else nothing written.
        for (let id = 0; id < logits.length; id++) expect(applied[id]).toBe(written && id < cut && !allowed[id] ? -Infinity : logits[id]);
        const reference = allowedRanges(mask, cut);
        expect(sampleToken(applied, options, new Rng(seed), ranges)).toBe(sampleToken(logits, options, new Rng(seed), reference));
      }),
      { numRuns: 400 },
    );
  });

  it('draws after a refusal as from the logits with the refused at -Infinity (same seed), never a refused token', () => {
    fc.assert(
      fc.property(maskedLogits, filters, fc.nat(), fc.integer({ min: 1, max: 8 }), ({ logits, allowed }, options, seed, refusals) => {
        // The reference finds the distribution again at every draw (before the draws below:
        // a draw in between would take their weights' buffer).
        const reference = withMask(logits, allowed);
        const rng = new Rng(seed);
        const expected: number[] = [];
        for (let k = 0; k < refusals; k++) {
          const token = sampleToken(reference, options, rng);
          expected.push(token);
          if (token < 0) break;
          reference[token] = -Infinity;
        }
        const draws = new Draws(logits.slice(), options, new Rng(seed), allowedRanges(maskOf(allowed), logits.length));
        const drawn: number[] = [];
        for (let k = 0; k < expected.length; k++) {
          const token = draws.next();
          drawn.push(token);
          if (token < 0) break;
          expect(drawn.indexOf(token)).toBe(k); // never a refused token
          draws.refuse(token);
        }
        expect(drawn).toEqual(expected);
        // The same with another draw between each two (it takes the buffer: the weights are found again).
        const again = new Draws(logits.slice(), options, new Rng(seed), allowedRanges(maskOf(allowed), logits.length));
        for (const token of expected) {
          expect(again.next()).toBe(token);
          sampleToken(logits, options, new Rng(seed));
          if (token >= 0) again.refuse(token);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('reports the top candidates and the mass inside the ranges', () => {
    const logits = Float32Array.from([Math.log(0.4), Math.log(0.3), Math.log(0.2), Math.log(0.1)]);
    const ranges = Int32Array.of(1, 2, 3, 4);
    expect(allowedMass(logits, ranges)).toBeCloseTo(0.4, 6);
    expect(topCandidates(logits, 5, ranges).map((c) => [c.id, Number(c.p.toFixed(6))])).toEqual([
      [1, 0.75],
      [3, 0.25],
    ]);
    expect(topCandidates(logits, 2).map((c) => c.id)).toEqual([0, 1]);
  });
});

describe('penalizeRepetition', () => {
  it("divides seen tokens' positive logits, multiplies negative ones, leaves masked and unseen ones", () => {
    const logits = Float32Array.of(2, -2, -Infinity, 3);
    penalizeRepetition(logits, new Set([0, 1, 2]), 2);
    expect(Array.from(logits)).toEqual([1, -4, -Infinity, 3]);
  });
});
