import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyBrle, brleAllowedIds, brleAllows, brleAnd, brleCount, brleFromBitset, brleLength, brleToBitset, bitsetWords, type Brle } from '../src/index.ts';

// The naive reference: a mask is a plain boolean array.
function toBitset(mask: readonly boolean[]): Uint32Array {
  const bits = new Uint32Array(bitsetWords(mask.length));
  mask.forEach((on, i) => {
    if (on) bits[i >>> 5] |= 1 << (i & 31);
  });
  return bits;
}
function fromBrleNaive(brle: Brle): boolean[] {
  const out: boolean[] = [];
  brle.forEach((run, i) => {
    for (let k = 0; k < run; k++) out.push(i % 2 === 1);
  });
  return out;
}
function isCanonical(brle: Brle): boolean {
  for (let i = 1; i < brle.length; i++) if (brle[i] === 0) return false;
  return true;
}

// Masks with long runs (like real grammar masks) as well as noise; sizes not multiples of 32.
const maskArb = (size?: number): fc.Arbitrary<boolean[]> =>
  fc.oneof(
    size === undefined ? fc.array(fc.boolean(), { maxLength: 300 }) : fc.array(fc.boolean(), { minLength: size, maxLength: size }),
    (size === undefined ? fc.integer({ min: 0, max: 300 }) : fc.constant(size)).chain((n) =>
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 70 })), { maxLength: 12 }).map((runs) => {
        const out: boolean[] = [];
        let i = 0;
        while (out.length < n) {
          const [value, length] = runs.length === 0 ? [false, n] : runs[i++ % runs.length]!;
          for (let k = 0; k < length && out.length < n; k++) out.push(value);
        }
        return out;
      }),
    ),
  );

const edgeCases: [string, boolean[]][] = [
  ['empty vocabulary', []],
  ['all allowed', Array(100).fill(true)],
  ['all masked', Array(100).fill(false)],
  ['leading-true run', [true, true, true, false, true]],
  ['size 33', Array.from({ length: 33 }, (_, i) => i % 3 === 0)],
  ['single allowed at the end of a partial word', [...Array(64).fill(false), ...Array(6).fill(false), true]],
];

describe('BRLE against a boolean-array reference', () => {
  it.each(edgeCases)('round-trips: %s', (_, mask) => {
    const brle = brleFromBitset(toBitset(mask), mask.length);
    expect(fromBrleNaive(brle)).toEqual(mask);
    expect(isCanonical(brle)).toBe(true);
    expect(Array.from(brleToBitset(brle, mask.length))).toEqual(Array.from(toBitset(mask)));
  });

  it('leading-true masks start with a zero run', () => {
    expect(Array.from(brleFromBitset(toBitset([true, false]), 2))).toEqual([0, 1, 1]);
    expect(Array.from(brleFromBitset(toBitset([true, true]), 2))).toEqual([0, 2]);
    expect(Array.from(brleFromBitset(toBitset([false, false]), 2))).toEqual([2]);
  });

  it('encode/decode round-trips and is canonical', () => {
    fc.assert(
      fc.property(maskArb(), (mask) => {
        const brle = brleFromBitset(toBitset(mask), mask.length);
        expect(fromBrleNaive(brle)).toEqual(mask);
        expect(isCanonical(brle)).toBe(true);
        expect(brleLength(brle)).toBe(mask.length);
        expect(Array.from(brleToBitset(brle, mask.length))).toEqual(Array.from(toBitset(mask)));
      }),
      { numRuns: 500 },
    );
  });

  it('count, membership and iteration agree with the reference', () => {
    fc.assert(
      fc.property(maskArb(), (mask) => {
        const brle = brleFromBitset(toBitset(mask), mask.length);
        const ids = mask.flatMap((on, i) => (on ? [i] : []));
        expect(brleCount(brle)).toBe(ids.length);
        expect([...brleAllowedIds(brle)]).toEqual(ids);
        mask.forEach((on, i) => expect(brleAllows(brle, i)).toBe(on));
      }),
      { numRuns: 300 },
    );
  });

  it('AND of several masks equals the element-wise AND; empty masks do not restrict', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 200 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(maskArb(n), { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { maxLength: 4 }))),
        ([n, masks, emptyAt]) => {
          const encoded = masks.map((m) => brleFromBitset(toBitset(m), n));
          // Interleave "no restriction" masks at arbitrary places.
          const inputs: Brle[] = [];
          encoded.forEach((b, i) => {
            if (emptyAt[i]) inputs.push(new Uint32Array(0));
            inputs.push(b);
          });
          const expected = Array.from({ length: n }, (_, i) => masks.every((m) => m[i]));
          const result = brleAnd(inputs);
          expect(fromBrleNaive(result)).toEqual(expected);
          expect(isCanonical(result)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('AND of no masks, or only empty ones, is no restriction', () => {
    expect(brleAnd([]).length).toBe(0);
    expect(brleAnd([new Uint32Array(0), new Uint32Array(0)]).length).toBe(0);
    expect(brleCount(new Uint32Array(0), 10)).toBe(10);
    expect([...brleAllowedIds(new Uint32Array(0), 3)]).toEqual([0, 1, 2]);
  });

  it('AND of masks of different vocabulary sizes is an error', () => {
    expect(() => brleAnd([Uint32Array.of(3), Uint32Array.of(4)])).toThrow(/covers 4 tokens, expected 3/);
  });

  it('apply sets exactly the masked logits to -Infinity, padding included', () => {
    fc.assert(
      fc.property(maskArb(), fc.integer({ min: 0, max: 5 }), (mask, padding) => {
        const brle = brleFromBitset(toBitset(mask), mask.length);
        const logits = Float32Array.from({ length: mask.length + padding }, (_, i) => i * 0.5 - 3);
        const original = logits.slice();
        applyBrle(logits, brle);
        for (let i = 0; i < logits.length; i++) {
          expect(logits[i]).toBe(i < mask.length && mask[i] ? original[i] : -Infinity);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('apply with an empty BRLE changes nothing; too few logits is an error', () => {
    const logits = Float32Array.of(1, 2, 3);
    applyBrle(logits, new Uint32Array(0));
    expect(Array.from(logits)).toEqual([1, 2, 3]);
    expect(() => applyBrle(new Float32Array(2), Uint32Array.of(0, 3))).toThrow(/only 2 logits/);
  });
});
