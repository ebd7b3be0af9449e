import { describe, expect, it } from 'vitest';
import { VocabFormatError, VocabIndex, vocabLayout, writeVocabIndex } from '../src/index.ts';

const meta = { name: 'tiny', source: 'test', decoder: 'byte-level', bos_token_id: null, eos_token_ids: [2], build_ms: 1 };

function tinyIndex(): Uint8Array {
  const tokens = ['a', 'ab', '<eos>'].map((s) => new TextEncoder().encode(s));
  const offsets = Uint32Array.from([0, 1, 3, 8]);
  const bytes = new Uint8Array(8);
  let at = 0;
  for (const t of tokens) {
    bytes.set(t, at);
    at += t.length;
  }
  const trie = Uint32Array.from([0, 3 | (0 << 22), 0x61 | (1 << 8), 2 | (1 << 22), 0x62 | (2 << 8), 1 | (2 << 22)]);
  // Both text tokens are plain string content, in both slices.
  const sliceNodes = Uint8Array.of(0, 0b11, 0b11);
  const sliceTokens = Uint32Array.of(0b011, 0b011);
  // Slice 0 by length: at most 2 characters; starts 0, 0, 1, 2; 'a' (1 character), then 'ab'.
  const sliceLengths = Uint32Array.of(2, 0, 0, 1, 2, 0, 1);
  return writeVocabIndex({
    offsets,
    flags: Uint8Array.of(0, 0, vocabLayout.TOKEN_SPECIAL),
    bytes,
    trie,
    duplicates: new Uint32Array(0),
    sliceNodes,
    sliceTokens,
    sliceLengths,
    meta,
  });
}

describe('vocab index binary', () => {
  it('round-trips every section', () => {
    const index = new VocabIndex(tinyIndex());
    expect(index.tokenCount).toBe(3);
    expect(index.trieNodeCount).toBe(3);
    expect(new TextDecoder().decode(index.tokenBytes(1))).toBe('ab');
    expect(index.isTextToken(1)).toBe(true);
    expect(index.isTextToken(2)).toBe(false);
    expect(index.specialTokenCount).toBe(1);
    expect(index.maxTokenBytes).toBe(5);
    expect(index.meta).toEqual(meta);
    expect(index.sliceCount).toBe(2);
    expect([...index.sliceNodes]).toEqual([0, 0b11, 0b11]);
    expect([...index.sliceTokens]).toEqual([0b011, 0b011]);
    expect([...index.sliceLengths]).toEqual([2, 0, 0, 1, 2, 0, 1]);
    expect(index.file.byteLength % vocabLayout.VOCAB_SECTION_ALIGN).toBe(0);
  });

  it('reads from an unaligned view', () => {
    const file = tinyIndex();
    const shifted = new Uint8Array(file.length + 1);
    shifted.set(file, 1);
    expect(new VocabIndex(shifted.subarray(1)).tokenBytes(0)).toEqual(Uint8Array.of(0x61));
  });

  it.each([
    ['bad_magic', (f: Uint8Array): void => void (f[0] = 0)],
    ['bad_version', (f: Uint8Array): void => void (f[vocabLayout.VH_VERSION * 4] = 99)],
  ] as const)('rejects a file with %s', (code, corrupt) => {
    const file = tinyIndex();
    corrupt(file);
    expect(() => new VocabIndex(file)).toThrow(expect.objectContaining({ code }));
  });

  it('refuses slice sections of the wrong size', () => {
    const sections = new VocabIndex(tinyIndex());
    expect(() => writeVocabIndex({ ...sections, sliceNodes: new Uint8Array(2) })).toThrow(expect.objectContaining({ code: 'bad_section' }));
    expect(() => writeVocabIndex({ ...sections, sliceTokens: new Uint32Array(vocabLayout.MAX_TOKEN_SLICES + 1) })).toThrow(
      expect.objectContaining({ code: 'bad_section' }),
    );
    for (const sliceLengths of [
      Uint32Array.of(2, 0, 0, 1),
      Uint32Array.of(2, 0, 0, 2, 1, 0, 1),
      Uint32Array.of(2, 0, 0, 1, 3, 0, 1),
      Uint32Array.of(2, 0, 0, 1, 2, 0, 7),
    ]) {
      expect(() => writeVocabIndex({ ...sections, sliceLengths })).toThrow(expect.objectContaining({ code: 'bad_section' }));
    }
  });

  it('rejects a truncated file', () => {
    expect(() => new VocabIndex(tinyIndex().subarray(0, 40))).toThrow(VocabFormatError);
    expect(() => new VocabIndex(tinyIndex().subarray(0, 100))).toThrow(expect.objectContaining({ code: 'truncated' }));
  });
});
