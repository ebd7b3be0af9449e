/**
 * Whether a schema is known to allow some value: a constant that passes the rest of it, or a
 * value of one type it leaves open enough to name one (`null`, a boolean, a number under one
 * kind of bound, a string its content automaton matches, `[]`, `{}`). The proofs are kept
 * simple, so false means "not known", never "allows nothing". Branches are looked into where
 * they allow no other values (`candidatesExact`); objects only in a schema without branches
 * (the candidates of a oneOf may stand for more objects than it allows).
 */
import { ownName } from '../../own-names.ts';
import { matchesSomething } from '../../lexer/lexer-dfa.ts';
import { enumValues } from './enum-schema.ts';
import { candidates, candidatesExact } from './schema-candidates.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { allowedTypes, isAssertion, KIND_KEYWORDS, KIND_SPECIFIC, memberNeeds, requiredLists, type Schema, type SchemaObject } from './schema-keywords.ts';
import { stringContent } from './string-schema.ts';

// Most DFA states the proof that a string schema matches something may build.
const MAX_STRING_STATES = 5_000;

// Keywords that leave one value of each kind allowed: any string their content matches (the
// keywords `stringContent` builds exactly), `[]` (or copies of an item), `{}` (or the
// required members).
const STRING_OPEN = new Set(KIND_KEYWORDS.string);
const ARRAY_OPEN = new Set(['items', 'prefixItems', 'additionalItems', 'uniqueItems', 'maxItems', 'unevaluatedItems']);
const OBJECT_OPEN = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'unevaluatedProperties',
  'dependentRequired',
]);
// Keywords whose candidates may stand for more objects than the schema allows (an anyOf's
// are exactly its branches; a oneOf of required lists is looked at below).
const OVER_OBJECTS = ['oneOf', '__oneOf', 'if', 'then', 'else', '__conditions', 'dependentSchemas', 'dependencies', 'not'];

// Bounds of one side (an integer past any lower bound, or below any upper one), or multiples alone (0).
const NUMBER_OPEN = [new Set(['minimum', 'exclusiveMinimum']), new Set(['maximum', 'exclusiveMaximum']), new Set(['multipleOf'])];

// Deepest nesting of required members looked into (a schema may refer to itself).
const MAX_DEPTH = 8;

/** Whether `schema` is known to allow some value (see above). */
export function knownSatisfiable(compiler: SchemaCompiler, schema: Schema, pointer: string, depth = 0): boolean {
  if (typeof schema === 'boolean') return schema;
  const flat = compiler.flatten(schema, pointer);
  if (flat === false || depth > MAX_DEPTH || !candidatesExact(compiler, flat, pointer)) return false;
  // (A oneOf of required lists: the object of a branch's required members alone passes it
  // when it holds no other branch's list whole.)
  const lists = requiredLists(flat.oneOf);
  const plain = OVER_OBJECTS.every(
    (k) => flat[k] === undefined || (k === 'oneOf' && lists !== undefined) || (k === 'dependencies' && memberNeeds(flat) !== undefined),
  );
  const one = (c: SchemaObject): boolean => {
    const required = Array.isArray(c.required) ? (c.required as string[]) : [];
    return lists === undefined || lists.filter((list) => list.every((name) => required.includes(name))).length === 1;
  };
  return candidates(compiler, flat, pointer).some((c) => allowsSome(compiler, c, pointer, plain && one(c), depth));
}

// Whether one candidate (no branches left) allows some value; `objects`: whether objects may count.
function allowsSome(compiler: SchemaCompiler, s: SchemaObject, pointer: string, objects: boolean, depth: number): boolean {
  if (s.enum !== undefined || s.const !== undefined) return enumValues(compiler, s, pointer).length > 0;
  return allowedTypes(s, pointer).some((type) => {
    const kind = type === 'integer' ? 'number' : type;
    // The keywords that speak of this type: its own, and those of every type but `type`.
    const own = Object.keys(s).filter((k) => isAssertion(k) && k !== 'type' && (!KIND_SPECIFIC.has(k) || (KIND_KEYWORDS[kind] ?? []).includes(k)));
    switch (kind) {
      case 'null':
      case 'boolean':
        return own.length === 0;
      case 'number':
        return NUMBER_OPEN.some((open) => own.every((k) => open.has(k)));
      case 'string':
        // (A format alone: every format allows some string, though its automaton may be large.)
        return (
          own.every((k) => STRING_OPEN.has(k)) &&
          (own.every((k) => k === 'format') || matchesSomething(stringContent(compiler, s, pointer), MAX_STRING_STATES) === true)
        );
      case 'array':
        return own.every((k) => ARRAY_OPEN.has(k)) || someItems(compiler, s, own, pointer, depth);
      case 'object':
        return objects && own.every((k) => OBJECT_OPEN.has(k) || k === 'required' || k === 'dependencies') && requiredMembers(compiler, s, pointer, depth);
      default:
        return false;
    }
  });
}

// Whether an object of the required members only, each of a value its declared schema is
// known to allow, passes the object keywords of `s` (those of `OBJECT_OPEN`, `required` and
// dependency lists): none required, or no keyword that speaks of their names beside their
// declarations and the members they need, all required.
function requiredMembers(compiler: SchemaCompiler, s: SchemaObject, pointer: string, depth: number): boolean {
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  if (required.length === 0) return true;
  if (s.patternProperties !== undefined || s.propertyNames !== undefined) return false;
  const needs = memberNeeds(s);
  if (needs === undefined || required.some((name) => (ownName(needs, name) ?? []).some((needed) => !required.includes(needed)))) return false;
  if (typeof s.maxProperties === 'number' && s.maxProperties < new Set(required).size) return false;
  const declared = (s.properties ?? {}) as Record<string, Schema>;
  return required.every((name) =>
    knownSatisfiable(compiler, Object.hasOwn(declared, name) ? declared[name]! : ((s.additionalProperties ?? true) as Schema), pointer, depth + 1),
  );
}

// Whether arrays of `minItems` copies of one item pass `s` (`own`: its array keywords): items
// of one schema known to allow some value, as many as maxItems allows, unique only if one.
function someItems(compiler: SchemaCompiler, s: SchemaObject, own: readonly string[], pointer: string, depth: number): boolean {
  const min = typeof s.minItems === 'number' ? s.minItems : 0;
  if (!own.every((k) => k === 'minItems' || k === 'items' || k === 'maxItems' || k === 'uniqueItems')) return false;
  if (Array.isArray(s.items) || (typeof s.maxItems === 'number' && s.maxItems < min) || (s.uniqueItems === true && min > 1)) return false;
  return knownSatisfiable(compiler, (s.items ?? true) as Schema, pointer, depth + 1);
}
