/**
 * Builds the flat token trie of the vocab index (layout in `@sieve/format`'s
 * `vocab-layout.ts`): preorder nodes, children sorted by byte, subtree sizes for skipping.
 */
import { bitsetWords, TOKEN_SLICES, tokenInSlice, utf8CharCount, utf8Lead, vocabLayout as L } from '@sieve/format';

/** The trie words and the (token, primary) pairs of tokens with identical bytes. */
export interface TokenTrie {
  readonly trie: Uint32Array;
  readonly duplicates: Uint32Array;
}

/** Thrown when a vocabulary does not fit the trie's packed fields. */
export class TrieLimitError extends Error {
  override readonly name = 'TrieLimitError';
}

/**
 * Builds the trie over every token whose flags allow grammar text to produce it. When
 * several tokens share the same bytes, the trie carries one primary (a regular token rather
 * than a byte-fallback piece, then the lowest id) and the others are listed as duplicates.
 */
export function buildTokenTrie(tokens: readonly Uint8Array[], flags: Uint8Array): TokenTrie {
  const ids: number[] = [];
  for (let id = 0; id < tokens.length; id++) {
    if ((flags[id]! & (L.TOKEN_SPECIAL | L.TOKEN_EMPTY)) !== 0) continue;
    if (tokens[id]!.length > L.TRIE_MAX_DEPTH)
      throw new TrieLimitError(`token ${id} has ${tokens[id]!.length} bytes; the trie holds at most ${L.TRIE_MAX_DEPTH}`);
    ids.push(id);
  }
  const isFallback = (id: number): number => flags[id]! & L.TOKEN_BYTE_FALLBACK;
  ids.sort((a, b) => compareBytes(tokens[a]!, tokens[b]!) || isFallback(a) - isFallback(b) || a - b);

  const words: number[] = [0, 0]; // the root
  const duplicates: [number, number][] = [];
  // path[d] = index of the node at depth d on the current path (path[0] is the root).
  const path: number[] = [0];
  let previous: Uint8Array = new Uint8Array(0);
  let previousId = -1;
  const close = (depth: number): void => {
    while (path.length - 1 > depth) {
      const node = path.pop()!;
      words[node * 2 + 1] = (words.length / 2 - node) | (path.length << L.TRIE_DEPTH_SHIFT);
    }
  };
  for (const id of ids) {
    const bytes = tokens[id]!;
    const common = commonPrefix(previous, bytes);
    if (common === bytes.length && common === previous.length) {
      duplicates.push([id, previousId]);
      continue;
    }
    close(common);
    for (let d = common; d < bytes.length; d++) {
      path.push(words.length / 2);
      words.push(bytes[d]!, 0);
    }
    const leaf = path[path.length - 1]!;
    words[leaf * 2] = bytes[bytes.length - 1]! | ((id + 1) << L.TRIE_TOKEN_SHIFT);
    previous = bytes;
    previousId = id;
  }
  close(0);
  const nodeCount = words.length / 2;
  if (nodeCount > L.TRIE_MAX_NODES) throw new TrieLimitError(`the trie needs ${nodeCount} nodes; at most ${L.TRIE_MAX_NODES} fit`);
  words[1] = nodeCount;
  duplicates.sort((a, b) => a[0] - b[0]);
  return { trie: Uint32Array.from(words), duplicates: Uint32Array.from(duplicates.flat()) };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** The token slices of a vocabulary (layout in `@sieve/format`'s `vocab-layout.ts`). */
export interface TokenSliceSections {
  readonly sliceNodes: Uint8Array;
  readonly sliceTokens: Uint32Array;
  readonly sliceLengths: Uint32Array;
}

/**
 * Which tokens belong to each of `TOKEN_SLICES`, and per trie node the slices that hold
 * every token of its subtree (a subtree is a contiguous range of preorder nodes).
 */
export function buildTokenSlices(tokens: readonly Uint8Array[], flags: Uint8Array, trie: Uint32Array): TokenSliceSections {
  const words = bitsetWords(tokens.length);
  const sliceTokens = new Uint32Array(TOKEN_SLICES.length * words);
  const membership = new Uint8Array(tokens.length);
  for (let id = 0; id < tokens.length; id++) {
    if ((flags[id]! & (L.TOKEN_SPECIAL | L.TOKEN_EMPTY)) !== 0) continue;
    TOKEN_SLICES.forEach((slice, i) => {
      if (!tokenInSlice(tokens[id]!, slice)) return;
      membership[id]! |= 1 << i;
      sliceTokens[i * words + (id >>> 5)]! |= 1 << (id & 31);
    });
  }
  const nodeCount = trie.length / L.TRIE_NODE_WORDS;
  // own[n]: the slices node n's own token is in (every slice when it ends no token).
  const allSlices = (1 << TOKEN_SLICES.length) - 1;
  const own = new Uint8Array(nodeCount);
  for (let node = 0; node < nodeCount; node++) {
    const token = trie[node * 2]! >>> L.TRIE_TOKEN_SHIFT;
    own[node] = token === 0 ? allSlices : membership[token - 1]!;
  }
  // A node's subtree is nodes [node, node + size); children are folded in before parents.
  const sliceNodes = own.slice();
  for (let node = nodeCount - 1; node >= 0; node--) {
    const end = node + (trie[node * 2 + 1]! & L.TRIE_SUBTREE_MASK);
    for (let child = node + 1; child < end; child += trie[child * 2 + 1]! & L.TRIE_SUBTREE_MASK) sliceNodes[node]! &= sliceNodes[child]!;
  }
  sliceNodes[0] = 0; // the root is never skipped
  // Character boundaries: dueAt[d] = continuation bytes still due after the path's first d
  // bytes (-1 once they cannot be UTF-8), along the preorder path.
  const dueAt = [0];
  for (let node = 1; node < nodeCount; node++) {
    const depth = trie[node * 2 + 1]! >>> L.TRIE_DEPTH_SHIFT;
    const byte = trie[node * 2]! & L.TRIE_BYTE_MASK;
    const before = dueAt[depth - 1]!;
    const continuation = byte >= 0x80 && byte <= 0xbf;
    const due = before < 0 ? -1 : before > 0 ? (continuation ? before - 1 : -1) : byte < 0x80 ? 0 : continuation ? -1 : utf8Lead(byte)[0] - 1;
    dueAt[depth] = due;
    if (due === 0) sliceNodes[node]! |= L.SLICE_NODE_BOUNDARY;
  }
  return { sliceNodes, sliceTokens, sliceLengths: sliceLengths(tokens, membership) };
}

// Slice 0's tokens ordered by character count, with the starts of each count before them
// (layout in `vocab-layout.ts`).
function sliceLengths(tokens: readonly Uint8Array[], membership: Uint8Array): Uint32Array {
  const chars = tokens.map((token, id) => ((membership[id]! & 1) === 0 ? 0 : utf8CharCount(token)));
  let most = 0;
  let members = 0;
  for (const c of chars) {
    most = Math.max(most, c);
    if (c > 0) members++;
  }
  const lengths = new Uint32Array(most + 3 + members);
  lengths[0] = most;
  // Counting sort: the starts first, then each id at its count's next free place.
  const starts = lengths.subarray(1, most + 3);
  for (const c of chars) if (c > 0) starts[c + 1]!++;
  for (let c = 1; c <= most + 1; c++) starts[c]! += starts[c - 1]!;
  const next = starts.slice();
  chars.forEach((c, id) => {
    if (c > 0) lengths[most + 3 + next[c]!++] = id;
  });
  return lengths;
}
