// Layouts of the kernel's records in linear memory: every struct the kernel reads by offset
// rather than through an `@unmanaged` class (those are laid out by their fields). Integer
// constants only, like the vocab layout (../../format/src/vocab-layout.ts), which describes
// the vocab index the kernel reads.
//
// Sizes are in bytes (`*_BYTES`, with `*_SHIFT` = log2 where entries are indexed by a
// shift) or in i32 words (`*_WORDS`, for records kept in a `Vec`). Field offsets are byte
// offsets, read with `load<T>(entry, FIELD)`, except the history's (HISTORY_*), which are
// word indices read with `vecGet(history, at + FIELD)`.

// ---------------------------------------------------------------------------------------
// Lexer DFA mirror (grammar.ts).

/** A lexer row: a state's 256 transitions, one i32 per byte (UNKNOWN, DEAD or the next state). */
export const LEXER_ROW_BYTES = 1024;
/**
 * Not known yet: a transition or lexer state the host has not given (it fills it in after a
 * need status), a slice entry, a canonical set id not computed.
 */
export const UNKNOWN = -1;
/** The dead lexer state: no lexeme continues with this byte. */
export const DEAD = 0;

/**
 * A lexer state's slice entry (an i32 per state, UNKNOWN until the host says): the
 * slices it accepts whole in the low byte; then, when it has a length bound on slice 0, the
 * characters below which its slices hold slice 0's tokens already (bits 8..15), and the
 * bound plus one (bits 16.., 0: no bound).
 */
export const SLICE_ENTRY_SLICES_MASK = 0xff;
export const SLICE_ENTRY_ABOVE_SHIFT = 8;
export const SLICE_ENTRY_ABOVE_MASK = 0xff;
export const SLICE_ENTRY_BOUND_SHIFT = 16;

/**
 * A slot of the lexer start-state table (open addressing by expected-lexeme list): the
 * list's hash (u32), where the list is in `startLists` (i32 word index: its length, then
 * its lexemes; -1: empty slot) and the start state (i32).
 */
export const START_SLOT_BYTES = 12;
export const START_SLOT_HASH = 0;
export const START_SLOT_LIST = 4;
export const START_SLOT_STATE = 8;

// ---------------------------------------------------------------------------------------
// Earley sets (earley.ts).

/**
 * An Earley item as one u64 key (the closure's dedupe table, and canonical sets): the dotted
 * rule in the high word, the origin (a set index, or a canonical set id + 1) in the low.
 */
export const ITEM_DOT_SHIFT = 32;

/** The closure's dedupe table: per slot an item key (u64) and a generation stamp (i32). */
export const ITEM_HASH_KEY_SHIFT = 3;
export const ITEM_HASH_GEN_SHIFT = 2;

// ---------------------------------------------------------------------------------------
// Commit history (commit.ts).

/** The matcher's state before each committed byte, in `Matcher.history` (a Vec). */
export const HISTORY_WORDS = 3;
export const HISTORY_LEX = 0;
export const HISTORY_LEX_LEN = 1;
export const HISTORY_CHART_LEN = 2;

/** `matcherStateKey`'s output: three i32s. */
export const STATE_KEY_TOP = 0;
export const STATE_KEY_LEX = 4;
export const STATE_KEY_EPOCH = 8;

// ---------------------------------------------------------------------------------------
// Mask walk (mask-walk.ts).

/**
 * An entry of the walk's path (one per trie depth, the root's first, in `Matcher.walkPath`,
 * TRIE_MAX_DEPTH + 1 of them): the matcher state after the node's bytes, and the memo of
 * ending its lexeme (END_* below).
 */
export const PATH_ENTRY_BYTES = 16;
export const PATH_ENTRY_SHIFT = 4;
export const PATH_LEX = 0;
export const PATH_LEX_LEN = 4;
export const PATH_CHART_LEN = 8;
export const PATH_END = 12;

/** The memo of ending a path state's lexeme (PATH_END, END_MEMO_VALUE). */
export const END_UNKNOWN = 0;
export const END_REJECTED = 1;
export const END_IGNORED = 2;
/** Plus the serial of the parser set it built. */
export const END_SET = 3;

/**
 * The memo of ending a lexeme per chart level above the root's (END_LEVELS entries in
 * `Matcher.endMemo`): the walk stamp it is valid for, the serial of the top set, the lexer
 * state, and the END_* value.
 */
export const END_LEVELS = 32;
export const END_MEMO_BYTES = 16;
export const END_MEMO_SHIFT = 4;
export const END_MEMO_STAMP = 0;
export const END_MEMO_TOP_SERIAL = 4;
export const END_MEMO_LEX = 8;
export const END_MEMO_VALUE = 12;

/**
 * A frontier pair (`Matcher.walkFrontier`, a Vec, and in a lexical entry): a trie node where
 * a lexeme ends below a pure node, and its parent's lexer state.
 */
export const FRONTIER_PAIR_WORDS = 2;
export const FRONTIER_PAIR_BYTES = 8;
export const FRONTIER_PAIR_SHIFT = 3;
export const FRONTIER_NODE = 0;
export const FRONTIER_PARENT_LEX = 4;

/**
 * A lexical entry's block in the mask store: the tokens accepted before any lexeme ends (a
 * bitset of `words` u32s), then the frontier: its pair count (u32, at the bitset's end) and
 * the pairs, sorted by parent lexer state.
 */
export const LEXICAL_COUNT_BYTES = 4;

/** A trie node of the vocab index: TRIE_NODE_WORDS (vocab layout) u32s, so 1 << 3 bytes. */
export const TRIE_NODE_SHIFT = 3;
export const TRIE_NODE_WORD0 = 0;
export const TRIE_NODE_WORD1 = 4;

// ---------------------------------------------------------------------------------------
// Mask store (state-cache.ts).

/** A mask store slot: the key (two i32s), the block pointer (u32, 0: empty slot), the flag. */
export const MASK_SLOT_BYTES = 16;
export const MASK_SLOT_KEY0 = 0;
export const MASK_SLOT_KEY1 = 4;
export const MASK_SLOT_BLOCK = 8;
export const MASK_SLOT_FLAG = 12;
