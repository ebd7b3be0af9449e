/**
 * JSON Schema (draft 2020-12, with the draft-4..7 spellings real schemas still use) to the
 * Grammar IR. The grammar accepts exactly the JSON texts, in the configured whitespace and
 * separator style, of the instances the schema accepts — or compilation fails with a
 * `SchemaError` naming the pointer and keyword. Nothing is relaxed silently: `lenient: true`
 * turns unsupported keywords into warnings the caller reads.
 *
 * How: schemas are normalized (`$ref` resolved, `allOf` and sibling keywords merged into one
 * schema, `anyOf`/`oneOf` distributed over their siblings), then each allowed type becomes
 * grammar: objects and arrays as rules (declared properties in any order, each at most once,
 * as a lazily lowered permutation; optional ones may be left out), strings and numbers
 * as single lexemes built by regex intersection (pattern ∧ length ∧ format), enums as literal
 * alternatives kept when an exact validator accepts them against the rest of the schema.
 *
 * Where each step lives: `schema-compiler.ts` (state and dispatch), `schema-refs.ts`
 * (`$ref`), `flatten-schema.ts` and `merge-schemas.ts` (normalising), `disjoint-branches.ts`
 * (`oneOf`), one emitter per kind (`string-schema.ts`, `number-schema.ts`, `array-schema.ts`,
 * `object-schema.ts` with `object-permutation.ts` and `object-dependencies.ts`,
 * `enum-schema.ts`), `schema-keywords.ts` and `keyword-shapes.ts` (reading keywords).
 */
import { expr, type GrammarIR } from '../../ir/grammar-ir.ts';
import type { JsonRepetition, JsonWhitespace } from '../json.ts';
import { pointerJoin, UnsupportedSchemaError, type SchemaWarning } from './schema-error.ts';
import { SchemaCompiler } from './schema-compiler.ts';
import { inDeclaredDraft } from './schema-drafts.ts';
import { rootedRefs } from './schema-refs.ts';
import { uniqueArrayPaths } from './unique-paths.ts';
import type { Schema } from './schema-keywords.ts';
import { jsonSchemaOf } from './zod.ts';

/** How to compile a schema. */
export interface JsonSchemaOptions {
  /** Treat a missing `additionalProperties` as `false`, as hosted strict modes do. */
  readonly strict?: boolean;
  /** Whitespace between tokens (default: any JSON whitespace, at most 20 in a row). */
  readonly whitespace?: JsonWhitespace;
  /** Caps on items, members and string length where the schema sets none (default: none). */
  readonly repetition?: JsonRepetition;
  /** Downgrade unsupported keywords to warnings (the keyword is then not enforced). */
  readonly lenient?: boolean;
  /**
   * Grammar rules the schema may expand to (default `MAX_SCHEMA_RULES`); more throws a
   * `GrammarLimitError` ('maxSchemaRules') instead of running out of time or memory.
   */
  readonly maxRules?: number;
  /**
   * Whether an `integer` may be written with a zero fraction (`3.0`), as drafts 6 and later
   * count it (default true; under draft 4, where `3.0` is not an integer, never). Generation
   * passes false: a model's integers are written without a fraction.
   */
  readonly integerFractions?: boolean;
  /**
   * How `format` is read: `assert` (default) holds strings to the format, as generation
   * wants; `annotate` reads it as JSON Schema's default vocabulary does, an annotation that
   * asserts nothing (any string; `idn-email` and `idn-hostname` are then no refusal either).
   */
  readonly formats?: 'assert' | 'annotate';
}

/** Default `maxRules`: real-world schemas need under 10,000 rules. */
export const MAX_SCHEMA_RULES = 50_000;

// Deepest nesting of objects and arrays in a schema document (enum values included): the
// compiler walks them recursively, so deeper documents are refused before it starts.
const MAX_DOCUMENT_DEPTH = 1000;

/** The grammar of a schema and what `lenient` let through. */
export interface JsonSchemaGrammar {
  readonly grammar: GrammarIR;
  readonly warnings: readonly SchemaWarning[];
}

/**
 * Compiles a JSON Schema (or a zod 4 schema, through zod's own JSON Schema export) to the
 * Grammar IR. Throws `UnsupportedSchemaError` or `InvalidSchemaError` (both `SchemaError`).
 */
export function jsonSchemaGrammar(schemaOrZod: unknown, options: JsonSchemaOptions = {}): JsonSchemaGrammar {
  const written = jsonSchemaOf(schemaOrZod);
  checkDocumentDepth(written);
  const schema = inDeclaredDraft(rootedRefs(written));
  const compiler = new SchemaCompiler(schema, options, options.maxRules ?? MAX_SCHEMA_RULES);
  const root = compiler.schemaExpr(schema as Schema, '');
  const parts = compiler.parts;
  parts.builder.rules.set('start', expr.seq([parts.ws(), root, parts.ws()]));
  const checked = compiler.uniqueLeftToMatcher.size > 0 || compiler.otherKeysCounted || compiler.otherKeysWitnessed;
  const uniqueArrays = checked ? uniqueArrayPaths(compiler, schema as Schema) : null;
  // A schema no instance satisfies is valid: its grammar rejects everything.
  const grammar = { ...parts.builder.build('start'), allowEmpty: true, ...(uniqueArrays !== null && { uniqueArrays }) };
  return { grammar, warnings: compiler.warnings };
}

// Walks the document without recursion, each object again only when reached deeper (shared
// objects stay cheap, a cyclic one ends at the limit).
function checkDocumentDepth(document: unknown): void {
  const deepest = new Map<object, number>();
  const stack: [unknown, string, number][] = [[document, '', 0]];
  while (stack.length > 0) {
    const [node, pointer, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null || (deepest.get(node) ?? -1) >= depth) continue;
    if (depth >= MAX_DOCUMENT_DEPTH) {
      throw new UnsupportedSchemaError(pointer, '', `objects and arrays nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    }
    deepest.set(node, depth);
    for (const [key, value] of Object.entries(node)) stack.push([value, pointerJoin(pointer, key), depth + 1]);
  }
}
