// The vocab index as the kernel sees it: the file copied as-is into linear memory, read
// through the header words (layout and constants: @sieve/format vocab-layout.ts).
import {
  MAX_TOKEN_SLICES,
  TRIE_BYTE_MASK,
  TRIE_DEPTH_SHIFT,
  TRIE_NODE_WORDS,
  TRIE_SUBTREE_MASK,
  TRIE_TOKEN_SHIFT,
  VH_BYTES_AT,
  VH_BYTES_LENGTH,
  VH_DUPLICATE_COUNT,
  VH_DUPLICATES_AT,
  VH_FILE_LENGTH,
  VH_FLAGS_AT,
  VH_MAGIC,
  VH_OFFSETS_AT,
  VH_SLICE_COUNT,
  VH_SLICE_NODES_AT,
  VH_SLICE_TOKENS_AT,
  VH_SLICE_LENGTHS_AT,
  VH_SLICE_LENGTHS_WORDS,
  VH_TOKEN_COUNT,
  VH_TRIE_AT,
  VH_TRIE_NODE_COUNT,
  VH_VERSION,
  VOCAB_HEADER_WORDS,
  VOCAB_MAGIC,
  VOCAB_VERSION,
} from '../../format/src/vocab-layout';
import { STATUS_BAD_MAGIC, STATUS_BAD_VERSION, STATUS_OK, STATUS_TRUNCATED } from '../src/abi';

// @ts-expect-error: decorator (AssemblyScript)
@inline
export function headerWord(vocab: usize, index: i32): u32 {
  return load<u32>(vocab + (<usize>index << 2));
}

/** Validates the vocab index of `length` bytes at `vocab` (header and section bounds). */
export function vocabCheck(vocab: usize, length: u32): i32 {
  if (length < <u32>VOCAB_HEADER_WORDS * 4) return STATUS_TRUNCATED;
  if (headerWord(vocab, VH_MAGIC) !== <u32>VOCAB_MAGIC) return STATUS_BAD_MAGIC;
  if (headerWord(vocab, VH_VERSION) !== <u32>VOCAB_VERSION) return STATUS_BAD_VERSION;
  if (headerWord(vocab, VH_FILE_LENGTH) !== length) return STATUS_TRUNCATED;
  const tokens = <u64>headerWord(vocab, VH_TOKEN_COUNT);
  if (!fits(vocab, VH_OFFSETS_AT, (tokens + 1) * 4, length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_FLAGS_AT, tokens, length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_BYTES_AT, <u64>headerWord(vocab, VH_BYTES_LENGTH), length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_TRIE_AT, <u64>headerWord(vocab, VH_TRIE_NODE_COUNT) * TRIE_NODE_WORDS * 4, length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_DUPLICATES_AT, <u64>headerWord(vocab, VH_DUPLICATE_COUNT) * 8, length)) return STATUS_TRUNCATED;
  const slices = headerWord(vocab, VH_SLICE_COUNT);
  if (slices > <u32>MAX_TOKEN_SLICES) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_SLICE_NODES_AT, <u64>headerWord(vocab, VH_TRIE_NODE_COUNT), length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_SLICE_TOKENS_AT, <u64>slices * ((tokens + 31) >> 5) * 4, length)) return STATUS_TRUNCATED;
  if (!fits(vocab, VH_SLICE_LENGTHS_AT, <u64>headerWord(vocab, VH_SLICE_LENGTHS_WORDS) * 4, length)) return STATUS_TRUNCATED;
  if (!sliceLengthsValid(vocab)) return STATUS_TRUNCATED;
  return STATUS_OK;
}

// The slice lengths section (layout in vocab-layout.ts): starts that rise to the number of
// its ids, and ids that are tokens (the mask walk sets their bits unchecked).
function sliceLengthsValid(vocab: usize): bool {
  const words = headerWord(vocab, VH_SLICE_LENGTHS_WORDS);
  const lengths = vocab + headerWord(vocab, VH_SLICE_LENGTHS_AT);
  if (words < 3) return false;
  const most = load<u32>(lengths);
  if (most > words - 3) return false;
  const ids = words - 3 - most;
  if (load<u32>(lengths, 4) !== 0 || load<u32>(lengths + (<usize>(most + 2) << 2)) !== ids) return false;
  for (let c: u32 = 1; c <= most + 1; c++) if (load<u32>(lengths + (<usize>c << 2)) > load<u32>(lengths + (<usize>(c + 1) << 2))) return false;
  const tokens = headerWord(vocab, VH_TOKEN_COUNT);
  for (let i = most + 3; i < words; i++) if (load<u32>(lengths + (<usize>i << 2)) >= tokens) return false;
  return true;
}

function fits(vocab: usize, sectionWord: i32, bytes: u64, length: u32): bool {
  return <u64>headerWord(vocab, sectionWord) + bytes <= <u64>length;
}

/**
 * Sets in `bits` every token whose bytes are a non-empty prefix of the `textLength` bytes
 * at `text`: the exact mask of a constraint that only allows that literal text. One walk of
 * the trie, pruning every subtree whose prefix already disagrees with the text.
 */
export function maskLiteral(vocab: usize, text: usize, textLength: u32, bits: usize): void {
  const trie = vocab + headerWord(vocab, VH_TRIE_AT);
  const nodeCount = headerWord(vocab, VH_TRIE_NODE_COUNT);
  let node: u32 = 1;
  while (node < nodeCount) {
    const at = trie + (<usize>node << 3);
    const word0 = load<u32>(at);
    const word1 = load<u32>(at, 4);
    const position = (word1 >>> TRIE_DEPTH_SHIFT) - 1;
    if (position < textLength && load<u8>(text + position) === <u8>(word0 & TRIE_BYTE_MASK)) {
      const token = word0 >>> TRIE_TOKEN_SHIFT;
      if (token !== 0) setBit(bits, token - 1);
      node++;
    } else {
      node += word1 & TRIE_SUBTREE_MASK;
    }
  }
  copyToDuplicates(vocab, bits);
}

/** Tokens with the same bytes as a trie token get its bit. */
export function copyToDuplicates(vocab: usize, bits: usize): void {
  const pairs = vocab + headerWord(vocab, VH_DUPLICATES_AT);
  const count = headerWord(vocab, VH_DUPLICATE_COUNT);
  for (let i: u32 = 0; i < count; i++) {
    const token = load<u32>(pairs + (<usize>i << 3));
    const primary = load<u32>(pairs + (<usize>i << 3), 4);
    if ((load<u32>(bits + ((primary >>> 5) << 2)) >>> (primary & 31)) & 1) setBit(bits, token);
  }
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
function setBit(bits: usize, id: u32): void {
  const at = bits + ((id >>> 5) << 2);
  store<u32>(at, load<u32>(at) | (<u32>1 << (id & 31)));
}
