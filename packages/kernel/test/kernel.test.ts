// Differential tests: every kernel export against the plain TypeScript implementation in
// @sieve/format, on random masks shaped like real ones.
import { applyBrle, brleAnd, brleFromBitset, brleToBitset, VocabIndex, type Brle } from '@sieve/format';
import { buildVocabIndex } from '@sieve/vocab';
import { loadTokenizer } from '@sieve/vocab/presets';
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultKernelUrl, KernelError, loadKernel, type Kernel } from '../src/index.ts';

let kernel: Kernel;
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

// Bitsets of random size (including multiples of 32 ± 1) mixing long runs and noise.
const bitsetArb = fc.integer({ min: 0, max: 2000 }).chain((vocabSize) =>
  fc
    .array(fc.tuple(fc.constantFrom(0, 0xffffffff, 0, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff })), {
      minLength: (vocabSize + 31) >>> 5,
      maxLength: (vocabSize + 31) >>> 5,
    })
    .map((words) => ({ vocabSize, bits: Uint32Array.from(words, ([run, noise], i) => (i % 3 === 0 ? noise : run)) })),
);
const withPadding = (bits: Uint32Array, vocabSize: number): Uint32Array => brleToBitset(brleFromBitset(bits, vocabSize), vocabSize);

describe('kernel BRLE matches @sieve/format', () => {
  it('encodes like brleFromBitset', () => {
    fc.assert(
      fc.property(bitsetArb, ({ vocabSize, bits }) => {
        expect(Array.from(kernel.brleFromBitset(bits, vocabSize))).toEqual(Array.from(brleFromBitset(bits, vocabSize)));
      }),
      { numRuns: 400 },
    );
  });

  it('decodes like brleToBitset', () => {
    fc.assert(
      fc.property(bitsetArb, ({ vocabSize, bits }) => {
        const brle = brleFromBitset(bits, vocabSize);
        expect(Array.from(kernel.brleToBitset(brle, vocabSize))).toEqual(Array.from(withPadding(bits, vocabSize)));
      }),
      { numRuns: 400 },
    );
    expect(Array.from(kernel.brleToBitset(new Uint32Array(0), 40))).toEqual([0xffffffff, 0xff]);
  });

  it('ANDs like brleAnd, skipping empty masks', () => {
    const masksArb = fc.integer({ min: 1, max: 700 }).chain((vocabSize) =>
      fc
        .array(
          fc.oneof(
            fc.constant(new Uint32Array(0)),
            fc
              .array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: (vocabSize + 31) >>> 5, maxLength: (vocabSize + 31) >>> 5 })
              .map((w) => brleFromBitset(Uint32Array.from(w), vocabSize)),
            fc.array(fc.integer({ min: 1, max: 90 }), { minLength: 1, maxLength: 20 }).map((runs) => runsToLength(runs, vocabSize)),
          ),
          { maxLength: 5 },
        )
        .map((masks) => ({ vocabSize, masks: masks })),
    );
    fc.assert(
      fc.property(masksArb, ({ vocabSize, masks }) => {
        expect(Array.from(kernel.brleAnd(masks, vocabSize))).toEqual(Array.from(brleAnd(masks)));
      }),
      { numRuns: 400 },
    );
  });

  it('applies a mask to logits like applyBrle', () => {
    fc.assert(
      fc.property(bitsetArb, fc.integer({ min: 0, max: 40 }), ({ vocabSize, bits }, padding) => {
        const brle = brleFromBitset(bits, vocabSize);
        const logits = Float32Array.from({ length: vocabSize + padding }, (_, i) => Math.sin(i) * 10);
        const expected = logits.slice();
        applyBrle(expected, brle);
        kernel.applyBrle(logits, brle);
        expect(Array.from(logits)).toEqual(Array.from(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('reports a length mismatch as a typed error, not a trap', () => {
    expect(() => kernel.brleToBitset(Uint32Array.of(3, 4), 10)).toThrow(expect.objectContaining({ code: 'length_mismatch' }));
    expect(() => kernel.brleAnd([Uint32Array.of(10), Uint32Array.of(11)], 10)).toThrow(KernelError);
    expect(() => kernel.applyBrle(new Float32Array(5), Uint32Array.of(3, 4))).toThrow(expect.objectContaining({ code: 'length_mismatch' }));
  });
});

// Runs cycled until they cover exactly `vocabSize` tokens.
function runsToLength(runs: number[], vocabSize: number): Brle {
  const out: number[] = [];
  let total = 0;
  for (let i = 0; total < vocabSize; i++) {
    const run = Math.min(runs[i % runs.length]!, vocabSize - total);
    out.push(run);
    total += run;
  }
  return Uint32Array.from(out);
}

describe.each(['stories260k', 'llama3.1'])(
  'vocab index %s in kernel memory',
  (preset) => {
    const tokenizer = loadTokenizer(preset);
    const file = buildVocabIndex(tokenizer.json, tokenizer);
    const index = new VocabIndex(file);
    const encoder = new TextEncoder();

    // Reference: token t keeps the output a prefix of `text` iff its bytes are a non-empty prefix.
    const literalMask = (text: Uint8Array): number[] => {
      const allowed: number[] = [];
      for (let id = 0; id < index.tokenCount; id++) {
        const bytes = index.tokenBytes(id);
        if (index.isTextToken(id) && bytes.length <= text.length && bytes.every((b, i) => b === text[i])) allowed.push(id);
      }
      return allowed;
    };
    const allowedIds = (brle: Brle): number[] => {
      const bits = brleToBitset(brle, index.tokenCount);
      return [...Array(index.tokenCount).keys()].filter((id) => (bits[id >>> 5]! >>> (id & 31)) & 1);
    };

    it('loads, then masks a literal exactly (trie walk vs. checking every token)', () => {
      const vocab = kernel.loadVocab(file);
      expect(vocab.tokenCount).toBe(index.tokenCount);
      for (const text of ['{"name": "Lily"}', ' the', 'Once upon a time', '\n\n', '<s>', '<|eot_id|>', 'é中🙂', '']) {
        expect(allowedIds(vocab.maskLiteral(encoder.encode(text))), JSON.stringify(text)).toEqual(literalMask(encoder.encode(text)));
      }
      vocab.dispose();
      expect(() => vocab.ptr).toThrow(expect.objectContaining({ code: 'disposed' }));
    });

    it('masks random byte strings exactly', () => {
      const vocab = kernel.loadVocab(file);
      const textArb = fc.oneof(
        fc.integer({ min: 0, max: index.tokenCount - 1 }).map((id) => index.tokenBytes(id)),
        fc.uint8Array({ maxLength: 12 }),
        fc.string({ maxLength: 12 }).map((s) => encoder.encode(s)),
      );
      fc.assert(
        fc.property(textArb, (text) => {
          expect(allowedIds(vocab.maskLiteral(text))).toEqual(literalMask(text));
        }),
        { numRuns: preset === 'stories260k' ? 200 : 25 },
      );
      vocab.dispose();
    });

    it('rejects damaged files with typed errors', () => {
      const bad = file.slice();
      bad[0] = 0;
      expect(() => kernel.loadVocab(bad)).toThrow(expect.objectContaining({ code: 'bad_magic' }));
      expect(() => kernel.loadVocab(file.subarray(0, file.length - 8))).toThrow(expect.objectContaining({ code: 'truncated' }));
    });
  },
  120_000,
);

describe('kernel lifecycle', () => {
  it('refuses calls after dispose and frees vocab memory for reuse', async () => {
    const own = await loadKernel();
    const tokenizer = loadTokenizer('stories260k');
    const file = buildVocabIndex(tokenizer.json, tokenizer);
    for (let i = 0; i < 50; i++) own.loadVocab(file).dispose();
    const afterChurn = own.memoryBytes;
    for (let i = 0; i < 50; i++) own.loadVocab(file).dispose();
    expect(own.memoryBytes).toBe(afterChurn);
    own.loadVocab(file);
    own.dispose();
    expect(() => own.brleFromBitset(new Uint32Array(1), 8)).toThrow(expect.objectContaining({ code: 'disposed' }));
  });

  it('refuses a kernel.wasm that speaks another ABI (a stale build) as bad_version', async () => {
    // An empty module: no kernelAbiVersion export, as builds before the version had none.
    const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    await expect(loadKernel(empty)).rejects.toMatchObject({
      code: 'bad_version',
      message: expect.stringMatching(/speaks ABI 1 or older, this loader \d+: rebuild/),
    });
  });

  it('runs the unit tests on the debug build, whose assertions abort with what and where', async () => {
    // vitest.config.ts (repository root) sets SIEVE_KERNEL=debug.
    expect(defaultKernelUrl().pathname).toMatch(/\/build\/kernel\.debug\.wasm$/);
    const aborts: string[] = [];
    const text = (ptr: number): string => {
      const { buffer } = raw.memory;
      return new TextDecoder('utf-16le').decode(new Uint8Array(buffer, ptr, new DataView(buffer).getUint32(ptr - 4, true)));
    };
    const bytes = await readFile(defaultKernelUrl());
    const { instance } = await WebAssembly.instantiate(bytes, {
      env: {
        now: () => 0,
        abort(message: number, file: number) {
          aborts.push(`${text(message)} in ${text(file)}`);
          throw new Error('abort');
        },
      },
    });
    const raw = instance.exports as unknown as {
      memory: WebAssembly.Memory;
      grammarNew(...args: number[]): number;
      lexerGrow(g: number, n: number): void;
      lexerSetRun(g: number, state: number, from: number, to: number, target: number): void;
    };
    const grammar = raw.grammarNew(1, 1, 2, 1, 0, 0, 100, 1000, 0, 0, 16);
    raw.lexerGrow(grammar, 2);
    raw.lexerSetRun(grammar, 1, 0, 256, 0);
    expect(() => raw.lexerSetRun(grammar, 2, 0, 256, 0)).toThrow('abort');
    expect(aborts).toEqual(['lexer transition out of range in assembly/grammar.ts']);
  });

  it('reports a missing kernel.wasm as load_failed', async () => {
    await expect(loadKernel(new URL('file:///nonexistent/kernel.wasm'))).rejects.toMatchObject({ code: 'load_failed' });
  });
});
