/**
 * Layout of the Sieve vocab index (`.vocab`), the build-time token index for one tokenizer.
 * This file is the single source of truth for the format: the TypeScript reader/writer and
 * the AssemblyScript kernel both import it, so it holds integer constants only (a subset
 * of TypeScript that AssemblyScript compiles as-is).
 *
 * All integers are little-endian. The file is a sequence of sections, each starting at a
 * multiple of 8 bytes:
 *
 *   header     VOCAB_HEADER_WORDS × u32, word indices VH_* below
 *   offsets    (tokenCount + 1) × u32: token `t` has bytes [offsets[t], offsets[t + 1])
 *   flags      tokenCount × u8, bits TOKEN_* below
 *   bytes      the concatenated token byte strings
 *   trie       trieNodeCount × TRIE_NODE_WORDS × u32, preorder (see below)
 *   duplicates duplicateCount × 2 × u32: pairs (token, primary) of tokens whose bytes equal
 *              those of an earlier-chosen primary token that the trie carries; sorted by token
 *   slice nodes  trieNodeCount × u8: bit `i` (below 7) is set when every token in the node's
 *              subtree (itself included) belongs to token slice `i`; bit 7
 *              (SLICE_NODE_BOUNDARY) when the node's bytes end on a UTF-8 character boundary
 *   slice tokens sliceCount × ceil(tokenCount / 32) × u32: per slice, the packed bitset of
 *              its tokens (duplicates included; special and empty tokens never)
 *   slice lengths  u32s: slice 0's tokens by character count. Word 0 is the most characters
 *              `m` of one of them, words 1 … m + 2 are `starts[0 … m + 1]`, and the token ids
 *              follow: those of `c` characters are entries starts[c] to starts[c + 1] of
 *              the ids (every token of slice 0 once, duplicates included)
 *   meta       UTF-8 JSON: { name, source, decoder, bos_token_id, eos_token_ids, build_ms }
 *
 * Trie: node 0 is the root (the empty string). Nodes are stored in depth-first preorder
 * with children sorted by byte, so a node's first child is the next node and its next
 * sibling is `node + subtreeSize`. Word 0 of a node packs its byte (bits 0..7) and
 * `token id + 1` of the token that ends there (bits 8..31, 0 = none). Word 1 packs the
 * number of nodes in its subtree, itself included (bits 0..21) and its depth (bits 22..31),
 * which equals the length of its byte string. Tokens flagged TOKEN_SPECIAL or TOKEN_EMPTY
 * are not in the trie: no grammar text can ever produce them.
 *
 * Token slices are fixed token subsets (defined in `token-slices.ts`, bit `i` is slice `i`
 * there), such as "plain JSON string content". When the lexer state at the root of a mask
 * walk accepts every token of a slice without ending its lexeme, the mask adds the slice
 * wholesale and the walk skips every subtree the slice covers. Deeper, at a node on a
 * character boundary whose subtree a slice covers, the subtree's tokens are added without
 * stepping the lexer when the state there accepts the slice.
 *
 * A lexer state inside a string of bounded length (`maxLength`) accepts no unbounded slice,
 * but exactly the tokens of slice 0 with at most as many characters as it has left: the
 * mask then adds those from the slice lengths section and skips every subtree slice 0
 * covers, walking only the subtrees of tokens that end the string.
 */

/** "SVOC" read as a little-endian u32. */
export const VOCAB_MAGIC = 0x434f5653;
/** Bumped on every incompatible layout change. */
export const VOCAB_VERSION = 3;
export const VOCAB_HEADER_WORDS = 20;
/** Every section starts at a multiple of this many bytes. */
export const VOCAB_SECTION_ALIGN = 8;

// Header word indices.
export const VH_MAGIC = 0;
export const VH_VERSION = 1;
export const VH_TOKEN_COUNT = 2;
export const VH_TRIE_NODE_COUNT = 3;
export const VH_DUPLICATE_COUNT = 4;
export const VH_MAX_TOKEN_BYTES = 5;
export const VH_OFFSETS_AT = 6;
export const VH_FLAGS_AT = 7;
export const VH_BYTES_AT = 8;
export const VH_BYTES_LENGTH = 9;
export const VH_TRIE_AT = 10;
export const VH_DUPLICATES_AT = 11;
export const VH_META_AT = 12;
export const VH_META_LENGTH = 13;
export const VH_FILE_LENGTH = 14;
export const VH_SLICE_COUNT = 15;
export const VH_SLICE_NODES_AT = 16;
export const VH_SLICE_TOKENS_AT = 17;
export const VH_SLICE_LENGTHS_AT = 18;
/** Length of the slice lengths section, in u32 words. */
export const VH_SLICE_LENGTHS_WORDS = 19;

/** Most token slices a vocab index can carry (one bit each in a slice node byte). */
export const MAX_TOKEN_SLICES = 7;
/** Slice node bit: the node's bytes are whole UTF-8 characters. */
export const SLICE_NODE_BOUNDARY = 0x80;

// Token flags (one byte per token).
/** A special/control token (BOS, EOS, chat markers): grammar text never produces it. */
export const TOKEN_SPECIAL = 1;
/** A SentencePiece byte-fallback piece `<0xHH>`. */
export const TOKEN_BYTE_FALLBACK = 2;
/** Decodes to no bytes at all (or the id is unused): never allowed by a grammar. */
export const TOKEN_EMPTY = 4;
/** A non-special added token (it is matched by grammar text like any other token). */
export const TOKEN_ADDED = 8;

// Trie node packing.
export const TRIE_NODE_WORDS = 2;
export const TRIE_BYTE_MASK = 0xff;
export const TRIE_TOKEN_SHIFT = 8;
export const TRIE_SUBTREE_MASK = 0x3fffff;
export const TRIE_DEPTH_SHIFT = 22;
/** Longest token byte string the trie can hold (depth has 10 bits). */
export const TRIE_MAX_DEPTH = 1023;
/** Most trie nodes the subtree field can count. */
export const TRIE_MAX_NODES = 0x3fffff;
