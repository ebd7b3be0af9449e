/**
 * The JSON Schema vocabulary as the compiler reads it: which keywords assert and which are
 * annotations, which constrain one kind of value only, and readers of keyword values
 * (types, counts, numeric bounds, patternProperties) that refuse a value of the wrong kind
 * with an `InvalidSchemaError` at its place.
 */
import { defineName, ownName } from '../../own-names.ts';
import type { Bound } from './numbers.ts';
import { InvalidSchemaError } from './schema-error.ts';

export type Schema = boolean | SchemaObject;
export interface SchemaObject {
  readonly [keyword: string]: unknown;
}
export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';
export const ALL_TYPES: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

// Keywords with no effect on validity (annotations, metadata, vendor extensions are ignored
// because they are unknown; these are listed so merges can drop them).
export const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  'id',
  '$anchor',
  '$comment',
  '$defs',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'example',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$vocabulary',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
]);
/**
 * The compiler's own keywords, which merged and negated schemas use: `__notValues` (constants
 * excluded), `__notPatterns`, `__notFormats` and `__notMultipleOf` (patterns and formats a
 * string must not match, multiples a number must not be), `__conditions` (the
 * `[if, then, else]` triples of an intersection), `__contains` (`Witness`es), `__fraction`
 * (numbers that are not integers), `__someMember` (`MemberWitness`es) and `__otherWitness`
 * (witnesses among the members no name tracks, a distinct member each), `__oneOf` (more
 * `oneOf` lists an intersection holds), `__memberSides` (`MemberSide`s).
 */
export const INTERNAL = new Set([
  '__notValues',
  '__notPatterns',
  '__notFormats',
  '__notMultipleOf',
  '__stringTests',
  '__multipleTests',
  '__conditions',
  '__contains',
  '__fraction',
  '__someMember',
  '__otherWitness',
  '__oneOf',
  '__memberSides',
]);

/**
 * `__contains`: some item from position `from` on satisfies `schema` (`contains` is from 0);
 * with counts (`minContains`, `maxContains`, from 0 only), at least `min` (default 1) and at
 * most `max` (default any number) of them do.
 */
export interface Witness {
  readonly schema: Schema;
  readonly from: number;
  readonly min?: number;
  readonly max?: number;
}

/** Keywords about the members of an object that no name of `properties` tracks. */
export const OTHER_MEMBER_KEYWORDS: readonly string[] = ['additionalProperties', 'patternProperties', 'propertyNames', 'unevaluatedProperties'];

/** A witness's counts: at least `min`, at most `max` items satisfy its schema. */
export const witnessCounts = (w: Witness): { min: number; max: number } => ({ min: w.min ?? 1, max: w.max ?? Infinity });

/**
 * `__someMember`: some member whose key is none of `names`, matches none of `patterns`,
 * every one of `matches` and satisfies every one of `keys` (string schemas of the keywords
 * `KEY_KEYWORDS` reads) has a value satisfying `schema`.
 */
export interface MemberWitness {
  readonly names: readonly string[];
  readonly patterns: readonly string[];
  readonly matches: readonly string[];
  readonly keys: readonly SchemaObject[];
  readonly schema: Schema;
}

/**
 * `__memberSides`: more pairs of `patternProperties` and `additionalProperties` that members
 * not among the schema's `properties` satisfy, each as if it were the schema's own (a
 * member's value satisfies the side's patterns its name matches, else its
 * additionalProperties, when it has one): an intersection of objects whose patterns differ,
 * where keys matching one side's patterns only fall under the other's additionalProperties.
 */
export interface MemberSide {
  readonly patternProperties: Readonly<Record<string, unknown>>;
  readonly additionalProperties?: unknown;
}

/** A schema's member sides (`__memberSides`), none when it has none. */
export const memberSides = (schema: SchemaObject): readonly MemberSide[] => (schema.__memberSides ?? []) as MemberSide[];

/** Keywords that assert something. */
export const isAssertion = (k: string): boolean => KNOWN.has(k) || INTERNAL.has(k);

/** Keywords that constrain instances of one kind only. */
export const KIND_KEYWORDS: Partial<Record<JsonType, readonly string[]>> = {
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
    'dependentRequired',
    'dependentSchemas',
    'dependencies',
    'unevaluatedProperties',
    '__someMember',
    '__otherWitness',
    '__memberSides',
  ],
  array: [
    'items',
    'prefixItems',
    'additionalItems',
    'minItems',
    'maxItems',
    'uniqueItems',
    'contains',
    'minContains',
    'maxContains',
    'unevaluatedItems',
    '__contains',
  ],
  string: ['minLength', 'maxLength', 'pattern', 'format', '__notPatterns', '__notFormats', '__stringTests'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', '__fraction', '__notMultipleOf', '__multipleTests'],
};
export const KIND_SPECIFIC = new Set(Object.values(KIND_KEYWORDS).flat());

// Assertion keywords this compiler understands: those of every kind, and of one.
export const KNOWN = new Set([
  ...['type', 'enum', 'const', '$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$dynamicRef', '$recursiveRef'],
  ...[...KIND_SPECIFIC].filter((k) => !INTERNAL.has(k)),
]);

/** Keywords a `propertyNames` schema may use (it must be a string schema). */
const PROPERTY_NAME_KEYWORDS = new Set(['type', 'enum', 'const', ...KIND_KEYWORDS.string!]);

/** Keywords a key's string schema may use: those of `propertyNames`, and constants excluded. */
export const KEY_KEYWORDS = new Set([...PROPERTY_NAME_KEYWORDS, '__notValues']);

export function typeList(type: unknown, pointer: string): JsonType[] {
  const list = Array.isArray(type) ? type : [type];
  for (const t of list) {
    if (!ALL_TYPES.includes(t as JsonType)) throw new InvalidSchemaError(pointer, 'type', `unknown type ${JSON.stringify(t)}`);
  }
  return list as JsonType[];
}

export function allowedTypes(schema: SchemaObject, pointer: string): JsonType[] {
  return schema.type === undefined ? [...ALL_TYPES] : typeList(schema.type, pointer);
}

export function nonNegativeInt(value: unknown, pointer: string, keyword: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || value < 0 || !Number.isInteger(value)) {
    throw new InvalidSchemaError(pointer, keyword, `${keyword} must be a non-negative integer`);
  }
  return value;
}

/** The schema's own maximum, or the repetition cap when smaller — never below what the schema requires. */
export function capped(own: number | undefined, cap: number, required: number): number {
  return Math.min(own ?? Infinity, Math.max(cap, required));
}

/** minimum / exclusiveMinimum (a number in 2020-12, a boolean flag in draft 4). */
export function lowerBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: -Infinity, inclusive: true };
  if (schema.minimum !== undefined) {
    if (typeof schema.minimum !== 'number') throw new InvalidSchemaError(pointer, 'minimum', 'minimum must be a number');
    bound = { value: schema.minimum, inclusive: schema.exclusiveMinimum !== true };
  }
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= bound.value) {
    bound = { value: schema.exclusiveMinimum, inclusive: false };
  }
  return bound;
}

/** maximum / exclusiveMaximum (a number in 2020-12, a boolean flag in draft 4). */
export function upperBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: Infinity, inclusive: true };
  if (schema.maximum !== undefined) {
    if (typeof schema.maximum !== 'number') throw new InvalidSchemaError(pointer, 'maximum', 'maximum must be a number');
    bound = { value: schema.maximum, inclusive: schema.exclusiveMaximum !== true };
  }
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= bound.value) {
    bound = { value: schema.exclusiveMaximum, inclusive: false };
  }
  return bound;
}

// Patterns compiled once (null: not a valid ECMAScript regex; the grammar reports those).
const compiledPatterns = new Map<string, RegExp | null>();

/** Whether `text` matches the ECMAScript `pattern` (false when the pattern is invalid). */
export function safeTest(pattern: string, text: string): boolean {
  let regex = compiledPatterns.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, 'u');
    } catch {
      regex = null;
    }
    compiledPatterns.set(pattern, regex);
  }
  return regex?.test(text) ?? false;
}

/** The patternProperties schemas that apply to property `name`. */
export function matchingSchemas(patterns: readonly (readonly [string, unknown])[], name: string): unknown[] {
  return patterns.filter(([p]) => safeTest(p, name)).map(([, schema]) => schema);
}

/** The lists of an anyOf or oneOf whose every branch is a `required` list alone, or undefined. */
export function requiredLists(branches: unknown): string[][] | undefined {
  if (!Array.isArray(branches)) return undefined;
  const lists = branches.map((b) =>
    typeof b === 'object' && b !== null && Object.keys(b).every((k) => !isAssertion(k) || k === 'required') && Array.isArray((b as SchemaObject).required)
      ? ((b as SchemaObject).required as string[])
      : undefined,
  );
  return lists.every((l) => l !== undefined) ? lists : undefined;
}

/**
 * The members each member needs beside it (`dependentRequired`, and `dependencies` whose
 * values are all lists), or undefined where a dependency is a schema.
 */
export function memberNeeds(schema: SchemaObject): Record<string, string[]> | undefined {
  const all = [schema.dependentRequired, schema.dependencies].filter((d) => d !== undefined) as Record<string, unknown>[];
  const out: Record<string, string[]> = {};
  for (const [name, needed] of all.flatMap((d) => Object.entries(d))) {
    if (!Array.isArray(needed)) return undefined;
    defineName(out, name, [...(ownName(out, name) ?? []), ...(needed as string[])]);
  }
  return out;
}
