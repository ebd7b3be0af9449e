import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedPerCell, maskLayout } from '../src/mask-view.ts';

// A BRLE from a list of allowed flags, and the count per cell done token by token.
function brleOf(allowed: readonly boolean[]): Uint32Array {
  const runs: number[] = [0];
  for (const flag of allowed) {
    if ((runs.length % 2 === 0) !== flag) runs.push(0);
    runs[runs.length - 1]!++;
  }
  return Uint32Array.from(runs);
}

function countedOneByOne(allowed: readonly boolean[], tokensPerCell: number): number[] {
  const counts = new Array<number>(Math.ceil(allowed.length / tokensPerCell)).fill(0);
  allowed.forEach((flag, token) => (counts[Math.floor(token / tokensPerCell)]! += flag ? 1 : 0));
  return counts;
}

describe('maskLayout', () => {
  it("keeps stories260K's 512 tokens as 16-pixel cells, one token each", () => {
    expect(maskLayout(512, 512)).toEqual({ cell: 16, columns: 32, rows: 16, tokensPerCell: 1 });
  });

  it('fits large vocabularies in the 2:1 canvas with several tokens per pixel', () => {
    expect(maskLayout(262_145, 512)).toEqual({ cell: 1, columns: 512, rows: 171, tokensPerCell: 3 });
    expect(maskLayout(151_669, 512)).toMatchObject({ cell: 1, tokensPerCell: 2 });
    expect(maskLayout(128_256, 512)).toMatchObject({ cell: 1, tokensPerCell: 1, rows: 251 });
  });

  it('always has a cell for every token and never more rows than the canvas holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400_000 }), (vocabSize) => {
        const { cell, columns, rows, tokensPerCell } = maskLayout(vocabSize, 512);
        expect(columns * rows * tokensPerCell).toBeGreaterThanOrEqual(vocabSize);
        expect(rows * cell).toBeLessThanOrEqual(256);
      }),
    );
  });
});

describe('allowedPerCell', () => {
  it('counts what a token-by-token count gives, for any mask and cell size', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 7 }), (allowed, tokensPerCell) => {
        const counts = new Uint32Array(Math.ceil(allowed.length / tokensPerCell) + 3).fill(9);
        allowedPerCell(brleOf(allowed), allowed.length, tokensPerCell, counts);
        expect([...counts]).toEqual([...countedOneByOne(allowed, tokensPerCell), 0, 0, 0]);
      }),
    );
  });

  it('reads an empty mask as all allowed', () => {
    const counts = new Uint32Array(4);
    allowedPerCell(new Uint32Array(0), 10, 3, counts);
    expect([...counts]).toEqual([3, 3, 3, 1]);
  });
});
