// The tokenizer's own implementation (transformers.js's tokenizers, as @lenml/tokenizers)
// is the oracle for every token's bytes; our index derives them independently from the
// tokenizer.json.
import { TokenizerLoader } from '@lenml/tokenizers';
import { bitsetHas, bitsetWords, TOKEN_SLICES, VocabIndex, vocabLayout as L } from '@sieve/format';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildVocabIndex } from '../src/index.ts';
import { loadTokenizer } from '../src/presets.ts';

type Library = ReturnType<typeof TokenizerLoader.fromPreTrained>;
const decodeOptions = { skip_special_tokens: false, clean_up_tokenization_spaces: false };
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

const compare = (a: ArrayLike<number>, b: ArrayLike<number>): number =>
  a.length !== b.length ? 1 : Array.prototype.findIndex.call(a, (x, i) => x !== b[i]) + 1;

describe.each(['stories260k', 'llama3.1', 'qwen3', 'gemma3'])(
  'vocab index for %s',
  (preset) => {
    const tokenizer = loadTokenizer(preset);
    const index = new VocabIndex(buildVocabIndex(tokenizer.json, tokenizer));
    const library: Library = TokenizerLoader.fromPreTrained({
      tokenizerJSON: tokenizer.json as never,
      tokenizerConfig: (tokenizer.tokenizerConfig ?? {}) as never,
    });
    const decode = (ids: number[]): string => library.decode(ids, decodeOptions);
    // A token that decodes to a plain letter in the middle of a sequence: decoding it before
    // another token shows that token's bytes in context (no leading-space stripping).
    const prefixId = [...Array(index.tokenCount).keys()].find((id) => decode([id, id]) === 'EE')!;

    it('stores, for every token id, the bytes the tokenizer decodes it to', () => {
      expect(index.tokenCount).toBe(library.model.vocab.length);
      const mismatches: string[] = [];
      for (let id = 0; id < index.tokenCount; id++) {
        const bytes = index.tokenBytes(id);
        const text = index.isTextToken(id) ? decode([prefixId, id]).slice(1) : decode([id]);
        if (text !== lossy.decode(bytes)) mismatches.push(`${id}: ${JSON.stringify(text)} vs ${JSON.stringify(lossy.decode(bytes))}`);
      }
      expect(mismatches.slice(0, 10)).toEqual([]);
    });

    it('is byte-exact where the text is not UTF-8', () => {
      const byteDecoder = (library.decoder as { byte_decoder?: Record<string, number> }).byte_decoder;
      let checked = 0;
      for (let id = 0; id < index.tokenCount; id++) {
        const bytes = index.tokenBytes(id);
        if (isUtf8(bytes)) continue;
        checked++;
        if (byteDecoder !== undefined) {
          // Byte-level BPE: the library's own character-to-byte table.
          const piece = library.model.vocab[id]!;
          expect(
            Uint8Array.from([...piece], (c) => byteDecoder[c]!),
            `token ${id}`,
          ).toEqual(bytes);
        } else {
          // Byte fallback: the piece must combine with others into the right character.
          expect(index.flags[id]! & L.TOKEN_BYTE_FALLBACK, `token ${id}`).toBeTruthy();
          const byte = bytes[0]!;
          const sequence =
            byte >= 0xc2 && byte <= 0xdf
              ? [byte, 0x80]
              : byte >= 0x80 && byte <= 0xbf
                ? [0xc2, byte]
                : byte >= 0xe1 && byte <= 0xec
                  ? [byte, 0x80, 0x80]
                  : null;
          if (sequence === null) continue;
          const ids = sequence.map((b) => library.model.tokens_to_ids.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)!);
          expect(decode([prefixId, ...ids]).slice(1), `token ${id}`).toBe(lossy.decode(Uint8Array.from(sequence)));
        }
      }
      expect(checked).toBeGreaterThan(0);
    });

    it('flags special tokens and keeps them, and empty tokens, out of the trie', () => {
      const special = library.added_tokens
        .filter((t) => t.special)
        .map((t) => t.id)
        .sort((a, b) => a - b);
      const flagged = [...Array(index.tokenCount).keys()].filter((id) => index.flags[id]! & L.TOKEN_SPECIAL);
      expect(flagged).toEqual(special);
      const inTrie = new Set<number>();
      for (let node = 0; node < index.trieNodeCount; node++) {
        const token = (index.trie[node * L.TRIE_NODE_WORDS]! >>> L.TRIE_TOKEN_SHIFT) - 1;
        if (token >= 0) inTrie.add(token);
      }
      for (let i = 0; i < index.duplicates.length; i += 2) inTrie.add(index.duplicates[i]!);
      for (let id = 0; id < index.tokenCount; id++) expect(inTrie.has(id), `token ${id}`).toBe(index.isTextToken(id));
    });

    it('finds the longest token a text starts with (longestTokenAt), as a search of every token does', () => {
      const texts = [
        '{"name": "Ada Lovelace", "email": "ada@example.org"}',
        'Once upon a time, there was a little girl named Lily.',
        '  über naïve 日本語 🙂\n\t',
        'x',
      ];
      const encoder = new TextEncoder();
      for (const text of texts) {
        const bytes = encoder.encode(text);
        for (let at = 0; at < bytes.length; at++) {
          let best = 0;
          for (let id = 0; id < index.tokenCount; id++) {
            const token = index.tokenBytes(id);
            if (index.isTextToken(id) && token.length > best && at + token.length <= bytes.length && token.every((b, i) => b === bytes[at + i]))
              best = token.length;
          }
          const found = index.longestTokenAt(bytes, at);
          expect(found.length, `${text} at ${at}`).toBe(best);
          if (best > 0) expect(Array.from(index.tokenBytes(found.token))).toEqual(Array.from(bytes.subarray(at, at + best)));
          else expect(found.token).toBe(-1);
        }
      }
    });

    it('has a trie whose paths spell every token and whose subtree sizes skip correctly', () => {
      const spelled = new Map<number, number[]>();
      const path: number[] = [];
      const problems: string[] = [];
      const walk = (node: number): number => {
        const [word0, word1] = [index.trie[node * 2]!, index.trie[node * 2 + 1]!];
        if (node !== 0) path.push(word0 & L.TRIE_BYTE_MASK);
        if (word1 >>> L.TRIE_DEPTH_SHIFT !== path.length) problems.push(`node ${node}: depth ${word1 >>> L.TRIE_DEPTH_SHIFT}, path ${path.length}`);
        const token = (word0 >>> L.TRIE_TOKEN_SHIFT) - 1;
        if (token >= 0) spelled.set(token, path.slice());
        const end = node + (word1 & L.TRIE_SUBTREE_MASK);
        let lastByte = -1;
        for (let child = node + 1; child < end;) {
          const byte = index.trie[child * 2]! & L.TRIE_BYTE_MASK;
          if (byte <= lastByte) problems.push(`node ${child}: children not sorted`);
          lastByte = byte;
          child = walk(child);
        }
        if (node !== 0) path.pop();
        return end;
      };
      expect(walk(0)).toBe(index.trieNodeCount);
      expect(problems.slice(0, 5)).toEqual([]);
      expect(spelled.size + index.duplicates.length / 2).toBe([...Array(index.tokenCount).keys()].filter((id) => index.isTextToken(id)).length);
      for (const [token, bytes] of spelled) if (compare(bytes, index.tokenBytes(token)) !== 0) problems.push(`token ${token} is spelled wrong`);
      for (let i = 0; i < index.duplicates.length; i += 2) {
        if (compare(index.tokenBytes(index.duplicates[i]!), index.tokenBytes(index.duplicates[i + 1]!)) !== 0)
          problems.push(`duplicate ${index.duplicates[i]} differs`);
      }
      expect(problems.slice(0, 5)).toEqual([]);
    });

    it('carries the token slices: their tokens, and the trie subtrees made only of them', () => {
      expect(index.sliceCount).toBe(TOKEN_SLICES.length);
      const words = bitsetWords(index.tokenCount);
      // Independently of tokenInSlice: a strict decoder and a character class.
      const member = TOKEN_SLICES.map((slice) => {
        const excluded = new Set(slice.excludedAscii);
        return (id: number): boolean => {
          if (!index.isTextToken(id) || !isUtf8(index.tokenBytes(id))) return false;
          const chars = [...strict.decode(index.tokenBytes(id))];
          return chars.length > 0 && chars.length <= (slice.maxChars ?? Infinity) && chars.every((c) => !excluded.has(c.codePointAt(0)!));
        };
      });
      const problems: string[] = [];
      member.forEach((inSlice, i) => {
        const bits = index.sliceTokens.subarray(i * words, (i + 1) * words);
        for (let id = 0; id < index.tokenCount; id++) if (bitsetHas(bits, id) !== inSlice(id)) problems.push(`slice ${i}, token ${id}`);
      });
      // Node flags: bit i exactly when every token ending in the subtree is in slice i.
      for (let node = 1; node < index.trieNodeCount; node++) {
        const end = node + (index.trie[node * 2 + 1]! & L.TRIE_SUBTREE_MASK);
        member.forEach((inSlice, i) => {
          let all = true;
          for (let n = node; n < end && all; n++) {
            const token = (index.trie[n * 2]! >>> L.TRIE_TOKEN_SHIFT) - 1;
            if (token >= 0 && !inSlice(token)) all = false;
          }
          if (((index.sliceNodes[node]! >> i) & 1) !== Number(all)) problems.push(`node ${node}, slice ${i}`);
        });
      }
      // The boundary bit: the node's bytes (the path to it) are whole UTF-8 characters.
      const path: number[] = [];
      for (let node = 1; node < index.trieNodeCount; node++) {
        const depth = index.trie[node * 2 + 1]! >>> L.TRIE_DEPTH_SHIFT;
        path.length = depth - 1;
        path.push(index.trie[node * 2]! & L.TRIE_BYTE_MASK);
        if (((index.sliceNodes[node]! & L.SLICE_NODE_BOUNDARY) !== 0) !== isUtf8(Uint8Array.from(path))) problems.push(`node ${node}, boundary`);
      }
      expect(problems.slice(0, 5)).toEqual([]);
      if (preset !== 'stories260k') expect(index.sliceNodes.filter((flags) => flags & 1).length).toBeGreaterThan(index.trieNodeCount / 2);
    });

    it("orders slice 0's tokens by character count", () => {
      const lengths = index.sliceLengths;
      const most = lengths[0]!;
      const byId = new Map<number, number>(); // token → the count it is filed under
      for (let c = 0; c <= most; c++) for (let i = lengths[c + 1]!; i < lengths[c + 2]!; i++) byId.set(lengths[most + 3 + i]!, c);
      const words = bitsetWords(index.tokenCount);
      const problems: string[] = [];
      for (let id = 0; id < index.tokenCount; id++) {
        const inSlice = bitsetHas(index.sliceTokens.subarray(0, words), id);
        const expected = inSlice ? [...strict.decode(index.tokenBytes(id))].length : undefined;
        if (byId.get(id) !== expected) problems.push(`token ${id}: filed under ${byId.get(id)}, has ${expected}`);
      }
      expect(problems.slice(0, 5)).toEqual([]);
      expect(lengths.length).toBe(most + 3 + byId.size);
    });

    it('round-trips random Unicode text: encode with the tokenizer, concatenate stored bytes', () => {
      const normalizer = JSON.stringify(tokenizer.json.normalizer ?? null);
      const prependsSpace = normalizer.includes('"Prepend"');
      const nfc = normalizer.includes('"NFC"');
      // SentencePiece tokenizers write spaces as ▁, so a literal ▁ cannot survive a round trip.
      const piece = fc.oneof(
        fc.string({ unit: fc.constantFrom('a', ' ', '  ', '\n', '{', '"', '1', 'é', '中', '🙂') }),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'binary' }),
      );
      const text = fc
        .array(piece, { maxLength: 6 })
        .map((parts) => parts.join(''))
        .filter((s) => !s.includes('▁'));
      fc.assert(
        fc.property(text, (input) => {
          const ids = library.encode(input, { add_special_tokens: false });
          const parts = ids.map((id) => index.tokenBytes(id));
          const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          parts.reduce((at, p) => (joined.set(p, at), at + p.length), 0);
          const expected = (prependsSpace && input.length > 0 ? ' ' : '') + (nfc ? input.normalize('NFC') : input);
          expect(strict.decode(joined)).toBe(expected.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
        }),
        { numRuns: 300, seed: 7 },
      );
    });
  },
  300_000,
);
