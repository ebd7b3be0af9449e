/**
 * Errors are values with a code and a location: a source span for text grammars, a JSON
 * pointer for schemas. `renderError` draws the caret excerpt.
 */

/** A half-open range of UTF-16 offsets into the grammar source. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Codes of grammar errors (documented in the package README). */
export type GrammarErrorCode =
  | 'syntax'
  | 'unknown_rule'
  | 'duplicate_rule'
  | 'no_start_rule'
  | 'unsupported'
  | 'empty_language'
  | 'invalid_regex'
  | 'invalid_range'
  | 'limit_exceeded'
  | 'invalid_schema';

/** A grammar that cannot be compiled, with where and why. */
export class GrammarError extends Error {
  override readonly name: string = 'GrammarError';
  constructor(
    readonly code: GrammarErrorCode,
    message: string,
    readonly span?: Span,
  ) {
    super(message);
  }
}

/** Which limit was hit (see `GrammarLimits`). */
export type LimitName = 'maxLexerStates' | 'maxNfaStates' | 'maxGrammarSymbols' | 'maxParserItems' | 'maxChartItems' | 'maxMaskMs' | 'maxSchemaRules';

/** A configured limit was exceeded: the grammar or the step is too large, never a hang. */
export class GrammarLimitError extends GrammarError {
  override readonly name = 'GrammarLimitError';
  constructor(
    readonly limit: LimitName,
    readonly value: number,
    message: string,
    span?: Span,
    /** The lexeme being built when the limit was hit, and where it comes from, if known. */
    readonly lexeme?: { readonly name: string; readonly origin?: string },
  ) {
    super('limit_exceeded', message, span);
  }
}

/** `line:col` (1-based) of a UTF-16 offset. */
export function lineCol(source: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

/**
 * Renders `at line(col): message` followed by the source line and a caret under the span:
 *
 *     at 2(9): unknown rule "valeu"
 *       root ::= valeu
 *                ^^^^^
 */
export function renderError(source: string, error: GrammarError): string {
  if (error.span === undefined) return error.message;
  const { line, col } = lineCol(source, error.span.start);
  const lineStart = source.lastIndexOf('\n', error.span.start - 1) + 1;
  const lineEnd = source.indexOf('\n', lineStart) === -1 ? source.length : source.indexOf('\n', lineStart);
  const text = source.slice(lineStart, lineEnd);
  const width = Math.max(1, Math.min(error.span.end, lineEnd) - error.span.start);
  return `at ${line}(${col}): ${error.message}\n  ${text}\n  ${' '.repeat(col - 1)}${'^'.repeat(width)}`;
}
