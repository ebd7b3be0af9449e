/**
 * Grammar compiler and matcher: regex, GBNF, Lark, EBNF and JSON Schema (or zod) to exact token masks.
 * Code that compiles nothing imports `@sieve/grammar/errors` and `@sieve/grammar/inputs` instead.
 *
 * @module @sieve/grammar
 */
export { MAX_CODE_POINT, normalizeRanges, rx } from './ir/byte-regex.ts';
export type { ByteRegex } from './ir/byte-regex.ts';
export { compileGrammar } from './parser/compile-grammar.ts';
export type { CompiledGrammar } from './parser/compile-grammar.ts';
export { GrammarError, GrammarLimitError, lineCol, renderError } from './grammar-error.ts';
export type { GrammarErrorCode, LimitName, Span } from './grammar-error.ts';
export { compileRegexGrammar, regexToByteRegex } from './frontends/regex.ts';
export type { RegexOptions } from './frontends/regex.ts';
export { expr, GrammarBuilder, MAX_EXPR_DEPTH, MAX_NESTING, MAX_PERMUTATION_MEMBERS } from './ir/grammar-ir.ts';
export type { Expr, GrammarIR, LexemeDef, PermutationDef } from './ir/grammar-ir.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export type { GrammarLimits } from './limits.ts';
export { forcedTokensOf, Matcher, recognize } from './matcher/reference-matcher.ts';
export type { ForcedContinuation, MatcherOptions, Recognition, TokenMatcher } from './matcher/reference-matcher.ts';
export { parseBnf } from './frontends/bnf.ts';
export type { BnfDialect } from './frontends/bnf.ts';
export { jsonGrammar, JsonGrammarParts, jsonRegex, pythonJson } from './frontends/json.ts';
export type { JsonRepetition, JsonWhitespace } from './frontends/json.ts';
export { parseLark } from './frontends/lark.ts';
export { GRAMMAR_FORMATS } from './frontends/grammar-formats.ts';
export { parseGrammar } from './frontends/parse-grammar.ts';
export type { GrammarFormat } from './frontends/grammar-formats.ts';
export { KernelGrammar, KernelMatcher } from './matcher/kernel-matcher.ts';
export { buildMaskIndex, checkMaskIndex, grammarFingerprint, IndexedMatcher } from './mask-index/build-mask-index.ts';
export { MaskIndexMismatchError } from './mask-index/mask-index-mismatch-error.ts';
export type { BuiltMaskIndex, MaskIndexBuildOptions } from './mask-index/build-mask-index.ts';
export type { KernelMatcherOptions } from './matcher/kernel-matcher.ts';
export { jsonSchemaGrammar, MAX_SCHEMA_RULES } from './frontends/json-schema/compile-json-schema.ts';
export { jsonEqual, mergeSchemas } from './frontends/json-schema/merge-schemas.ts';
export type { JsonSchemaGrammar, JsonSchemaOptions } from './frontends/json-schema/compile-json-schema.ts';
export { InvalidSchemaError, SchemaError, UnsupportedSchemaError } from './frontends/json-schema/schema-error.ts';
export type { SchemaWarning } from './frontends/json-schema/schema-error.ts';
export { isZodSchema, jsonSchemaOf, schemaFromZod } from './frontends/json-schema/zod.ts';
export type { ZodSchemaLike } from './frontends/json-schema/zod.ts';
export { embedGrammar } from './ir/embed-grammar.ts';
export { toolCallsGrammar } from './frontends/tool-calls.ts';
export type { ToolCallsOptions, ToolDefinition } from './frontends/tool-calls.ts';
export { toolCallStart } from './frontends/tool-call-format.ts';
export type { ToolCallFormat } from './frontends/tool-call-format.ts';
