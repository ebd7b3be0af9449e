// Vocab indexes of real tokenizers, built once per test file, and helpers over them.
import { VocabIndex } from '@sieve/format';
import { buildVocabIndex } from '@sieve/vocab';
import { loadTokenizer } from '@sieve/vocab/presets';

const cache = new Map<string, VocabIndex>();

export function vocab(preset: 'stories260k' | 'llama3.1'): VocabIndex {
  let index = cache.get(preset);
  if (index === undefined) {
    const tokenizer = loadTokenizer(preset);
    index = new VocabIndex(buildVocabIndex(tokenizer.json, tokenizer));
    cache.set(preset, index);
  }
  return index;
}

/** Text tokens by their bytes (hex key). */
export function tokensByBytes(index: VocabIndex): Map<string, number> {
  const map = new Map<string, number>();
  for (let id = 0; id < index.tokenCount; id++) {
    if (!index.isTextToken(id)) continue;
    const key = Buffer.from(index.tokenBytes(id)).toString('hex');
    if (!map.has(key)) map.set(key, id);
  }
  return map;
}

/**
 * Splits `bytes` into tokens at random: pieces are taken up to `maxPiece` bytes long when a
 * token has exactly those bytes, else shorter ones; every single byte is a token in the
 * tokenizers used here (byte-level BPE, or SentencePiece with byte fallback).
 */
export function randomSplit(bytes: Uint8Array, byBytes: Map<string, number>, random: () => number, maxPiece = 8): number[] {
  const ids: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    for (let length = 1 + Math.floor(random() * Math.min(maxPiece, bytes.length - at)); length >= 1; length--) {
      const id = byBytes.get(Buffer.from(bytes.subarray(at, at + length)).toString('hex'));
      if (id !== undefined) {
        ids.push(id);
        at += length;
        break;
      }
      if (length === 1) throw new Error(`byte ${bytes[at]} is not a token`);
    }
  }
  return ids;
}

/** A small seeded PRNG (mulberry32). */
export function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
