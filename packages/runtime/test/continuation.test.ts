// The continuation encoder: the tokenizer's answers are kept, so the same bytes (fast-forward's
// forced text, the budget's completions) are encoded once, and callers get arrays of their own.
import { VocabIndex } from '@sieve/format';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { continuationEncoder, tokenLookup } from '../src/continuation.ts';
import { STORIES_VOCAB } from './support/engine.ts';

describe('continuationEncoder', () => {
  const vocab = new VocabIndex(new Uint8Array(readFileSync(STORIES_VOCAB)));
  const tokenOf = tokenLookup(vocab);
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

  it('asks the tokenizer once per distinct bytes and hands out copies', () => {
    const asked: string[] = [];
    // A byte-level stand-in for the tokenizer: one token per byte.
    const encode = continuationEncoder(vocab, (text) => {
      asked.push(text);
      return Array.from(bytes(text), (b) => tokenOf(Uint8Array.of(b))!);
    });
    const first = encode(bytes('", "name": "'));
    expect(first).toEqual(Array.from(bytes('", "name": "'), (b) => tokenOf(Uint8Array.of(b))));
    first.pop();
    const again = encode(bytes('", "name": "'));
    expect(again).toHaveLength(12);
    expect(again).not.toBe(first);
    expect(encode(bytes('}'))).toEqual([tokenOf(bytes('}'))]);
    expect(asked).toEqual(['", "name": "', '}']);
  });
});
