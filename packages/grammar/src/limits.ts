/**
 * Every budget the compiler and the matcher enforce, with its default. Exceeding one gives a
 * `GrammarLimitError` naming it — never a hang or an out-of-memory. `docs` in the package
 * README says what each costs.
 */
export interface GrammarLimits {
  /** NFA states over all lexemes (grows with regex size and counted repetitions). */
  readonly maxNfaStates: number;
  /** Lexer DFA states built lazily during matching (each costs 1 KB of transitions in the kernel and 1 KB here). */
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
}

export const DEFAULT_LIMITS: GrammarLimits = {
  maxNfaStates: 200_000,
  maxLexerStates: 20_000,
  maxGrammarSymbols: 500_000,
  maxParserItems: 100_000,
  maxChartItems: 8_000_000,
  maxMaskMs: 2_000,
  maskCacheBytes: 16 * 1024 * 1024,
};
