/**
 * Zod schemas wherever a JSON Schema is accepted: `jsonSchemaOf(schema)` passes a JSON Schema
 * through and converts a zod 4 schema with zod's own JSON Schema export, so that the grammar
 * accepts only JSON texts whose parsed value the zod schema's `safeParse` accepts.
 *
 * zod's export describes the *input* side (`io: 'input'`: what `parse` is given, so optional
 * and defaulted fields may be left out) and drops what JSON Schema cannot say. Everything it
 * would drop silently is refused here with a `SchemaError` whose pointer is the place in the
 * exported JSON Schema: refinements (`.refine`, `.superRefine`, `.check`), value rewrites
 * (`.trim`, `.toLowerCase`, …), transforms, pipes, preprocess and codecs, regex flags, and
 * string formats that check more than their pattern (`z.url`, `z.jwt`, …). What zod cannot
 * export at all (`z.date`, `z.bigint`, `z.map`, …) is refused with zod's own message.
 *
 * Two differences of meaning are corrected rather than refused. A regex without the `u` flag
 * (a user's `.regex(/…/)`, a template literal) matches UTF-16 code units, a JSON Schema
 * pattern code points: such strings are limited to the Basic Multilingual Plane, where the two
 * agree. And a zod format is exactly its pattern, so the `format` zod writes beside it (which
 * Sieve would enforce by its own definition) is removed. (String lengths need nothing: zod
 * 4.6 counts code points, as JSON Schema does.)
 *
 * One is left: a JSON number beyond ±1.8e308 parses to ±Infinity, which `z.number()` refuses,
 * while the grammar (like JSON Schema) takes it as a number.
 */
import { pointerJoin, SchemaError, UnsupportedSchemaError } from './schema-error.ts';

// Why no import of zod: the caller's schema converts itself with the `toJSONSchema` method
// of the zod copy that built it, so the grammar package (and the browser bundles built from
// it) carry no zod code, and no second zod copy disagrees with the caller's about its own
// internals. Detection is structural: every zod 4 schema carries its definition in `_zod.def`,
// the documented surface for libraries built on zod ("zod/v4/core"). zod is a dev dependency
// (the tests) and an optional peer dependency: the version range whose export API this uses.

/** A zod 4 schema, as far as `isZodSchema` can tell. */
export interface ZodSchemaLike {
  readonly _zod: { readonly def: { readonly type: string } };
}

/** Whether `value` is a zod 4 schema (as opposed to a JSON Schema document). */
export function isZodSchema(value: unknown): value is ZodSchemaLike {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return false;
  const internals = value._zod;
  return typeof internals === 'object' && internals !== null && 'def' in internals;
}

/**
 * The JSON Schema to compile for `schema`: a zod schema converted by `schemaFromZod`, anything
 * else returned as it is (a JSON Schema document). Throws `SchemaError` for zod schemas that
 * cannot be converted exactly.
 */
export function jsonSchemaOf(schema: unknown): unknown {
  if (isZodSchema(schema)) return schemaFromZod(schema);
  // A zod 3 schema is an object too; compiled as a JSON Schema its unknown keys would allow anything.
  if (typeof schema === 'object' && schema !== null && '_def' in schema && 'safeParse' in schema) {
    throw new UnsupportedSchemaError('', 'zod', 'zod 3 schemas have no JSON Schema export: use zod 4');
  }
  return schema;
}

/**
 * Converts a zod 4 schema (built with `zod`, not `zod/mini`) to a draft 2020-12 JSON Schema of
 * its input type. Throws `SchemaError` (`unsupported`, pointer into the exported schema) for
 * constructs whose meaning the export would lose.
 */
export function schemaFromZod(schema: ZodSchemaLike): Record<string, unknown> {
  const exporter = schema as Partial<JsonSchemaExporter>;
  if (typeof exporter.toJSONSchema !== 'function') {
    throw new UnsupportedSchemaError('', 'zod', 'this zod schema has no toJSONSchema method: build it with zod 4.6 or later from "zod" (not "zod/mini")');
  }
  let inspected = 0;
  let exported: Record<string, unknown>;
  try {
    exported = exporter.toJSONSchema({
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: ({ zodSchema, path, message }) => {
        throw new UnsupportedSchemaError(pointerOf(path), zodSchema._zod.def.type, message);
      },
      override: ({ zodSchema, jsonSchema, path }) => {
        inspected++;
        inspect(zodSchema, jsonSchema, pointerOf(path));
      },
    });
  } catch (error) {
    if (error instanceof SchemaError) throw error;
    throw new UnsupportedSchemaError('', 'zod', `zod cannot export this schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  // An older zod that ignores `override` would export refinements away unnoticed.
  if (inspected === 0)
    throw new UnsupportedSchemaError('', 'zod', 'this zod version does not report its schemas to toJSONSchema overrides: use zod 4.6 or later');
  // The spread drops the non-enumerable `~standard` zod attaches to the result.
  return { ...exported };
}

// What this module reads of a zod 4 schema and of its checks (see "zod/v4/core").
interface ZodNode {
  readonly _zod: {
    readonly def: {
      readonly type: string;
      readonly checks?: readonly ZodCheck[];
      readonly in?: ZodNode;
      readonly out?: ZodNode;
    };
    readonly traits: ReadonlySet<string>;
  };
}
interface ZodCheck {
  readonly _zod: {
    readonly def: { readonly check: string; readonly format?: string; readonly pattern?: RegExp };
    readonly traits: ReadonlySet<string>;
  };
}
interface JsonSchemaExporter {
  toJSONSchema(params: {
    target: 'draft-2020-12';
    io: 'input';
    unrepresentable: (ctx: { zodSchema: ZodNode; path: readonly (string | number)[]; message: string }) => never;
    override: (ctx: { zodSchema: ZodNode; jsonSchema: Record<string, unknown>; path: readonly (string | number)[] }) => void;
  }): Record<string, unknown>;
}

// Checks whose JSON Schema form means exactly what zod checks (string lengths up to UTF-16, below).
const EXACT_CHECKS = new Set(['greater_than', 'less_than', 'multiple_of', 'number_format', 'min_length', 'max_length', 'length_equals', 'string_format']);
// String formats zod checks with more than the pattern it exports (URL parsing, checksums, JSON
// decoding); `z.stringFormat` custom formats are recognised by their trait.
const FORMATS_BEYOND_PATTERN = new Set(['url', 'ipv6', 'cidrv6', 'credit_card', 'iban', 'jwt']);
// zod types with a JSON Schema export that no JSON value satisfies at parse time.
const NOT_FROM_JSON = new Set(['file', 'promise']);
// Regex flags that do not change what `test` matches (zod resets `lastIndex`); `u` is the
// flag JSON Schema patterns are compiled with.
const NEUTRAL_FLAGS = new Set(['g', 'd', 'u']);
// Strings where UTF-16 units and code points are one and the same.
const BASIC_PLANE_PATTERN = '^[\\u0000-\\uffff]*$';

// Refuses what the export lost at one zod schema and corrects its JSON Schema in place.
function inspect(node: ZodNode, json: Record<string, unknown>, pointer: string): void {
  const { def, traits } = node._zod;
  if (def.type === 'pipe' || def.type === 'transform') {
    const keyword = traits.has('$ZodCodec')
      ? 'codec'
      : def.in?._zod.def.type === 'transform'
        ? 'preprocess'
        : def.out?._zod.def.type === 'transform'
          ? 'transform'
          : 'pipe';
    throw new UnsupportedSchemaError(
      pointer,
      keyword,
      `zod runs ${keyword} code on the parsed value, which a grammar cannot enforce: parse with a schema without it, then apply it`,
    );
  }
  if (NOT_FROM_JSON.has(def.type)) throw new UnsupportedSchemaError(pointer, def.type, `z.${def.type}() accepts no JSON value`);
  // A format schema (z.email() …) is its own first check.
  const checks = traits.has('$ZodCheck') ? [node as unknown as ZodCheck, ...(def.checks ?? [])] : (def.checks ?? []);
  let countsUtf16 = def.type === 'template_literal';
  let hasFormat = false;
  for (const check of checks) {
    const { check: kind, format, pattern } = check._zod.def;
    if (kind === 'custom') throw new UnsupportedSchemaError(pointer, 'refine', 'refinements (.refine, .superRefine, .check) run code a grammar cannot enforce');
    if (kind === 'overwrite')
      throw new UnsupportedSchemaError(
        pointer,
        'overwrite',
        'value rewrites (.trim, .toLowerCase, .toUpperCase, .normalize) change the string before zod checks it',
      );
    if (!EXACT_CHECKS.has(kind)) throw new UnsupportedSchemaError(pointer, kind, `the zod check ${kind} has no JSON Schema form`);
    if (kind !== 'string_format') continue;
    hasFormat = true;
    if (FORMATS_BEYOND_PATTERN.has(format ?? '') || check._zod.traits.has('$ZodCustomStringFormat') || pattern === undefined) {
      throw new UnsupportedSchemaError(pointer, 'format', `zod checks the ${format ?? 'custom'} format with more than a pattern`);
    }
    const dropped = [...pattern.flags].filter((flag) => !NEUTRAL_FLAGS.has(flag));
    if (dropped.length > 0)
      throw new UnsupportedSchemaError(
        pointer,
        'pattern',
        `a JSON Schema pattern has no flags: /${pattern.source}/${pattern.flags} would lose ${dropped.join('')}`,
      );
    if (format === 'regex' && !pattern.flags.includes('u')) countsUtf16 = true;
  }
  if (hasFormat) delete json.format;
  if (countsUtf16) json.allOf = [...(Array.isArray(json.allOf) ? (json.allOf as unknown[]) : []), { pattern: BASIC_PLANE_PATTERN }];
}

function pointerOf(path: readonly (string | number)[]): string {
  return path.reduce<string>((pointer, key) => pointerJoin(pointer, key), '');
}
