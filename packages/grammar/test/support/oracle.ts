// The exactness oracle: a token is allowed iff feeding its bytes to the byte-level
// recognizer (a forked matcher) succeeds; EOS iff the output is complete.
import type { Matcher } from '../../src/index.ts';

/** Token ids the oracle allows in the matcher's current state (all, or those in `ids`). */
export function oracleAllowed(matcher: Matcher, ids?: Iterable<number>): number[] {
  const vocab = matcher.vocab!;
  const allowed: number[] = [];
  const eos = new Set(vocab.meta.eos_token_ids);
  const accepting = matcher.isAccepting();
  for (const id of ids ?? Array.from({ length: vocab.tokenCount }, (_, i) => i)) {
    if (eos.has(id)) {
      if (accepting) allowed.push(id);
    } else if (vocab.isTextToken(id) && matcher.fork().commitBytes(vocab.tokenBytes(id))) {
      allowed.push(id);
    }
  }
  return allowed;
}

/** Allowed ids of a packed bitset. */
export function bitsetIds(bits: Uint32Array, size: number): number[] {
  const ids: number[] = [];
  for (let id = 0; id < size; id++) if ((bits[id >>> 5]! >>> (id & 31)) & 1) ids.push(id);
  return ids;
}
