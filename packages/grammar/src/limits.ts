/**
 * Every budget the compiler and the matcher enforce, with its default. Exceeding one gives a
 * `GrammarLimitError` naming it — never a hang or an out-of-memory. `docs` in the package
 * README says what each costs.
 */
export interface GrammarLimits {
  /** NFA states over all lexemes (grows with regex size and counted repetitions). */
  readonly maxNfaStates: number;
  /**
   * Lexer DFA states built lazily during matching (each keeps its NFA state set and a few
   * dozen bytes; its transitions are cached within `lexerCacheBytes`).
   */
  readonly maxLexerStates: number;
  /** Rules plus symbols after lowering to BNF (counted repetitions expand). */
  readonly maxGrammarSymbols: number;
  /** Earley items in one parser set. */
  readonly maxParserItems: number;
  /** Earley items in the whole parse of the output (16 bytes of kernel memory each). */
  readonly maxChartItems: number;
  /** Wall time one mask computation, or one commit (of a token or of bytes), may take, in milliseconds. */
  readonly maxMaskMs: number;
  /**
   * Bytes of kernel memory for cached masks (0: no cache). A budget, not an error: when it
   * is full the cache starts over.
   */
  readonly maskCacheBytes: number;
  /**
   * Bytes for the lexer's transition rows: 1 KB per state in the kernel and 1 KB in the
   * compiled grammar, so rows of `lexerCacheBytes / 2048` states are kept. A budget, not an
   * error: past it the oldest rows are dropped and computed again when needed.
   */
  readonly lexerCacheBytes: number;
}

export const DEFAULT_LIMITS: GrammarLimits = {
  maxNfaStates: 200_000,
  maxLexerStates: 200_000,
  maxGrammarSymbols: 500_000,
  maxParserItems: 100_000,
  maxChartItems: 8_000_000,
  maxMaskMs: 2_000,
  maskCacheBytes: 16 * 1024 * 1024,
  lexerCacheBytes: 32 * 1024 * 1024,
};

/** The lexer rows `limits` keep resident (on each side: kernel and compiled grammar). */
export function lexerRows(limits: GrammarLimits): number {
  return Math.max(16, Math.floor(limits.lexerCacheBytes / 2048));
}
