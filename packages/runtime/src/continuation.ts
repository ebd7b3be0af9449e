/**
 * Canonical tokens for text that continues earlier output, from a tokenizer's own encoder:
 * what fast-forward appends, so the model sees the splits it was trained on.
 */
import type { VocabIndex } from '@sieve/format';

/**
 * Wraps `encode` (text → ids, no special tokens) into an encoder of continuation bytes.
 * SentencePiece tokenizers prepend a space to the whole input; text that continues earlier
 * output has none, so a leading space the input did not have is taken off the first token.
 * Bytes that end inside a UTF-8 character are encoded up to the last whole character.
 */
export function continuationEncoder(vocab: VocabIndex, encode: (text: string) => number[]): (bytes: Uint8Array) => number[] {
  const tokenOf = tokenLookup(vocab);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // The same bytes come back often — fast-forward's forced text and the budget's completions,
  // step after step and generation after generation — and the tokenizer's encoder costs
  // hundreds of µs at 262k tokens: its answers are kept (the encoder is deterministic).
  const known = new Map<string, readonly number[]>();
  return (bytes) => {
    const id = key(bytes);
    const hit = known.get(id);
    if (hit !== undefined) return hit.slice();
    const ids = encodeBytes(bytes);
    if (known.size >= MAX_KEPT_ENCODINGS) known.clear();
    known.set(id, ids.slice());
    return ids;
  };

  function encodeBytes(bytes: Uint8Array): number[] {
    const text = wholeCharacters(decoder, bytes);
    if (text.length === 0) return [];
    const ids = encode(text);
    const first = ids.length > 0 ? vocab.tokenBytes(ids[0]!) : null;
    if (first !== null && first[0] === 0x20 && !text.startsWith(' ')) {
      const rest = first.subarray(1);
      const whole = tokenOf(rest);
      const split = rest.length === 0 ? [] : whole !== undefined ? [whole] : Array.from(rest, (b) => tokenOf(Uint8Array.of(b)));
      if (split.some((id) => id === undefined)) return [];
      ids.splice(0, 1, ...(split as number[]));
    }
    return ids;
  }
}

// Encodings a continuation encoder keeps (all dropped when full).
const MAX_KEPT_ENCODINGS = 4096;

/** The text token spelled exactly `bytes` (the lowest id among duplicates), if any. */
export function tokenLookup(vocab: VocabIndex): (bytes: Uint8Array) => number | undefined {
  const byBytes = new Map<string, number>();
  for (let id = vocab.tokenCount - 1; id >= 0; id--) if (vocab.isTextToken(id)) byBytes.set(key(vocab.tokenBytes(id)), id);
  return (bytes) => byBytes.get(key(bytes));
}

function wholeCharacters(decoder: TextDecoder, bytes: Uint8Array): string {
  // A UTF-8 character is at most 4 bytes: some cut within the last 3 decodes.
  for (let cut = bytes.length; cut >= Math.max(0, bytes.length - 3); cut--) {
    try {
      return decoder.decode(bytes.subarray(0, cut));
    } catch {
      // not valid up to here
    }
  }
  return '';
}

function key(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}
