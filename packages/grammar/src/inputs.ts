/**
 * What the compiler takes, without the compiler: the text formats' names, the limits and their
 * defaults, how tool calls are written, zod schemas as JSON Schema. For code that prepares or
 * checks requests but compiles nothing (a page whose grammars compile in a worker). Imports
 * none of the compiler.
 *
 * @module @sieve/grammar/inputs
 */
export { GRAMMAR_FORMATS } from './frontends/grammar-formats.ts';
export type { GrammarFormat } from './frontends/grammar-formats.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export type { GrammarLimits } from './limits.ts';
export { toolCallStart } from './frontends/tool-call-format.ts';
export type { ToolCallFormat } from './frontends/tool-call-format.ts';
export { isZodSchema, jsonSchemaOf, schemaFromZod } from './frontends/json-schema/zod.ts';
export type { ZodSchemaLike } from './frontends/json-schema/zod.ts';
