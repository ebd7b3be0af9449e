/**
 * The compiler's errors without the compiler: for code that catches or rethrows them but
 * compiles nothing (a page whose grammars compile in a worker). Imports none of the compiler.
 *
 * @module @sieve/grammar/errors
 */
export { GrammarError, GrammarLimitError, lineCol, renderError } from './grammar-error.ts';
export type { GrammarErrorCode, LimitName, Span } from './grammar-error.ts';
export { InvalidSchemaError, SchemaError, UnsupportedSchemaError } from './frontends/json-schema/schema-error.ts';
export { MaskIndexMismatchError } from './mask-index/mask-index-mismatch-error.ts';
