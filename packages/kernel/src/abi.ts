/**
 * The kernel's ABI: status codes its exports return. Shared verbatim by the AssemblyScript
 * kernel and the TypeScript loader (integer constants only, so both compilers accept it).
 * The kernel never throws across the WASM boundary; the loader turns statuses into errors.
 */

export const STATUS_OK = 0;
/** A BRLE's runs do not add up to the vocabulary size given. */
export const STATUS_LENGTH_MISMATCH = -1;
/** The bytes are not a vocab index (bad magic number). */
export const STATUS_BAD_MAGIC = -2;
/** The vocab index has a version this kernel does not read. */
export const STATUS_BAD_VERSION = -3;
/** The vocab index is shorter than its header says, or a section lies outside it. */
export const STATUS_TRUNCATED = -4;
/** An output buffer is too small. */
export const STATUS_CAPACITY = -5;

// Matcher outcomes (non-negative: not errors).
/**
 * The version of this ABI (exports, their arguments, statuses, layouts): kernel.wasm reports
 * it (`kernelAbiVersion`) and `loadKernel` refuses a build that speaks another one.
 */
export const KERNEL_ABI_VERSION = 6;

/** The token or byte is not allowed; the matcher is unchanged. */
export const STATUS_REJECTED = 1;
/**
 * A lexer transition is not built yet (`matcherNeedState`, `matcherNeedByte`): the host builds
 * the run of bytes around it (`lexerSetRun`; for a counted state, its shape's run, and where the
 * count passes the target shape's highest, the plain state it leads to: `lexerSetConcrete`) and
 * calls again (or resumes).
 */
export const STATUS_NEED_TRANSITION = 2;
/** The lexer start state for a new parser set's expected lexemes is not known yet. */
export const STATUS_NEED_START = 3;
/** A nonterminal's rules are not built yet (a lazily lowered one): the host builds them, grows the tables and calls again. */
export const STATUS_NEED_RULES = 4;
/** Which token slices a lexer state accepts whole (and its length bound on slice 0) is not known yet: the host checks and calls `lexerSetSlices`, then resumes. */
export const STATUS_NEED_SLICES = 5;

// Matcher limits (errors).
/** A parser set grew past the grammar's item limit. */
export const STATUS_LIMIT_ITEMS = -6;
/** A mask took longer than its time budget. */
export const STATUS_LIMIT_TIME = -7;
/** A matcher operation was called on a finished or invalid matcher. */
export const STATUS_INVALID = -8;
/** The parse chart (all parser sets together) grew past the grammar's total item limit. */
export const STATUS_LIMIT_CHART = -9;

// Counted lexer states. A lexer state id with COUNTED_STATE set is a count on a shape:
// `COUNTED_STATE | shape << COUNTED_SHAPE_SHIFT | count`, the shape the number of a lexer state
// (`lexerSetCounted` numbers them from 0) that stands for the states of a counted repetition far
// enough from its bounds that they differ by their count alone (see `LexerDfa` in
// @sieve/grammar). A shape's row holds relative targets:
// a plain state, DEAD, UNKNOWN, or `COUNTED_STATE | shape' << COUNTED_SHAPE_SHIFT | ticks`,
// the count going up by `ticks`; a count past the target shape's highest (`lexerSetCounted`) is
// a plain state the host names (`lexerSetConcrete`).
export const COUNTED_STATE = 0x40000000;
export const COUNTED_SHAPE_SHIFT = 15;
/** Counts (and shapes) take 15 bits each. */
export const COUNTED_FIELD_MASK = 0x7fff;

// Grammar tables the host fills after `grammarNew` (see `grammarTable`).
/** i32 per dotted rule: the symbol after the dot, -1 when complete. */
export const TABLE_DOT_NEXT = 0;
/** i32 per dotted rule: the rule's left-hand side symbol. */
export const TABLE_DOT_LHS = 1;
/** i32 per nonterminal: start of its predictions in TABLE_PREDICT, -1 while its rules are not built. */
export const TABLE_PREDICT_FROM = 2;
/** i32 per prediction: the dotted rule at position 0 of one of the nonterminal's rules. */
export const TABLE_PREDICT = 3;
/** u8 per nonterminal: derives the empty string. */
export const TABLE_NULLABLE = 4;
/** i32 per ignored lexeme, sorted. */
export const TABLE_IGNORE = 5;
/** i32 per nonterminal: end of its predictions in TABLE_PREDICT. */
export const TABLE_PREDICT_TO = 6;
