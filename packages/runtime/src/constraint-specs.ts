/**
 * What users write to constrain generation, as plain data: `JsonSchema(schema)`, `Regex('…')`,
 * `AllOf(…)` build specs that cross a worker boundary as they are; `Constraint` is the
 * interface for custom masks. Nothing here loads the compiler.
 */
import type { GrammarFormat, JsonRepetition, JsonSchemaOptions, JsonWhitespace, ToolCallFormat, ToolDefinition } from '@sieve/grammar';
import type { Grammar } from './constraints.ts';

/** The extension point: the mask for the next position, given the tokens accepted since the last call. */
export interface Constraint {
  /** `accepted` is empty on the first call. Returns a BRLE over the vocabulary; empty = no restriction. */
  step(accepted: readonly number[]): Uint32Array;
}

/**
 * A mask index built ahead of time for a grammar (`sieve index build`, or a `?sieve` import
 * with the Vite plugin): its bytes, or the URL of its `.sieve` file (fetched once).
 */
export type MaskIndexSource = Uint8Array | string;

/**
 * A grammar to compile: JSON Schema, any JSON, or a text grammar. With `index`, masks come
 * from the precomputed mask index wherever it reaches (it must have been built for this
 * grammar and the loaded tokenizer: `MaskIndexMismatchError` otherwise).
 */
export type GrammarSpec = (
  | { readonly type: 'json-schema'; readonly schema: unknown; readonly options?: JsonSchemaOptions }
  | { readonly type: 'json'; readonly whitespace?: JsonWhitespace; readonly repetition?: JsonRepetition }
  | { readonly type: Exclude<GrammarFormat, 'regex'>; readonly grammar: string }
  /** `flags`: ECMAScript flags `i`, `s`, `u`, `v` (`g`, `y`, `d` change nothing; `m` is refused). */
  | { readonly type: 'regex'; readonly grammar: string; readonly flags?: string }
  | {
      readonly type: 'tool-calls';
      readonly tools: readonly ToolDefinition[];
      readonly format: ToolCallFormat;
      readonly parallel?: boolean;
      readonly after?: string;
    }
) & { readonly index?: MaskIndexSource };

/** Built-in constraints, as plain data (structured-cloneable). */
export type ConstraintSpec =
  | GrammarSpec
  | { readonly type: 'ban-tokens'; readonly tokens: readonly number[] }
  | { readonly type: 'logit-bias'; readonly bias: Readonly<Record<number, number>> }
  | { readonly type: 'all-of'; readonly constraints: readonly ConstraintInput[] }
  | { readonly type: 'think'; readonly trigger: string; readonly then: ConstraintInput; readonly optional?: boolean }
  | { readonly type: 'grammar'; readonly id: number };

/** Anything `generate` takes as a constraint. */
export type ConstraintInput = ConstraintSpec | Constraint | Grammar;

/**
 * Whitespace JSON constraints use unless told otherwise: Python's `json.dumps` separators
 * (`", "` and `": "`), nothing else. Small models wander into whitespace when allowed any.
 */
export const GENERATION_JSON_WHITESPACE: JsonWhitespace = { separators: { item: ', ', key: ': ' } };

/** Output must be JSON valid against `schema` (draft 2020-12; a Zod schema works too in-thread). */
export const JsonSchema = (schema: unknown, options?: JsonSchemaOptions): ConstraintSpec => ({
  type: 'json-schema',
  schema,
  ...(options === undefined ? {} : { options }),
});
/** Output must be one JSON value (`repetition` caps arrays, objects and strings). */
export const AnyJson = (whitespace?: JsonWhitespace, repetition?: JsonRepetition): ConstraintSpec => ({
  type: 'json',
  ...(whitespace === undefined ? {} : { whitespace }),
  ...(repetition === undefined ? {} : { repetition }),
});
/** Output must match the ECMAScript regex, whole (`flags` as a RegExp takes them: `'u'` for `\p{L}` or astral characters). */
export const Regex = (pattern: string, flags?: string): ConstraintSpec => ({ type: 'regex', grammar: pattern, ...(flags === undefined ? {} : { flags }) });
/** Output must match the GBNF grammar (llama.cpp dialect; start rule `root`). */
export const Gbnf = (grammar: string): ConstraintSpec => ({ type: 'gbnf', grammar });
/** Output must match the Lark grammar (start rule `start`). */
export const Lark = (grammar: string): ConstraintSpec => ({ type: 'lark', grammar });
/** Output must match the W3C-style EBNF grammar. */
export const Ebnf = (grammar: string): ConstraintSpec => ({ type: 'ebnf', grammar });
/** These token ids are never sampled. */
export const BanTokens = (tokens: readonly number[]): ConstraintSpec => ({ type: 'ban-tokens', tokens });
/** Adds a bias to these tokens' logits (restricts nothing; -Infinity bans). */
export const LogitBias = (bias: Readonly<Record<number, number>>): ConstraintSpec => ({ type: 'logit-bias', bias });
/** Every constraint applies: the mask is the AND of theirs. */
export const AllOf = (...constraints: ConstraintInput[]): ConstraintSpec => ({ type: 'all-of', constraints });
/** Free text until the output contains `trigger`; from the byte after it, `then` applies. */
export const ThinkThen = (trigger: string, then: ConstraintInput): ConstraintSpec => ({ type: 'think', trigger, then });
/**
 * Free text, complete as it is (the output may end there), until it contains `trigger`; from
 * the byte after it, `then` applies and must be completed: a tool call the model decides on
 * (llguidance's lazy grammars, XGrammar's structural tags).
 */
export const Triggered = (trigger: string, then: ConstraintInput): ConstraintSpec => ({ type: 'think', trigger, then, optional: true });
/** Output must be tool calls of `tools` in `format` (`toolCallsGrammar` in @sieve/grammar). */
export const ToolCalls = (
  tools: readonly ToolDefinition[],
  format: ToolCallFormat,
  options: { readonly parallel?: boolean; readonly after?: string } = {},
): ConstraintSpec => ({ type: 'tool-calls', tools, format, ...options });
