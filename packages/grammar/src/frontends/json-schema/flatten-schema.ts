/**
 * Normalising: a schema with `$ref`s beside other keywords and `allOf`s becomes one merged
 * schema (`mergeSchemas`) of everything it intersects, each part once by meaning
 * (`SchemaIds`), so an intersection merges the same parts however its `allOf`s nest and
 * repeat.
 */
import { checkKeywordShapes } from './keyword-shapes.ts';
import { mergeSchemas } from './merge-schemas.ts';
import { dependentConditions } from './object-dependencies.ts';
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import type { Schema, SchemaObject } from './schema-keywords.ts';

// Deepest chain of `$ref`s with siblings and `allOf`s followed while collecting conjuncts.
const MAX_CONJUNCT_DEPTH = 50;

// What collecting an intersection's conjuncts has met: schemas and own keyword sets by
// meaning, and the schemas being expanded (one met again inside itself is a cycle).
interface ConjunctsSeen {
  readonly schemas: Set<number>;
  readonly parts: Set<number>;
  readonly path: Set<SchemaObject>;
}

/** Flattens schemas for one compilation; a schema object reached again is flattened once. */
export class SchemaFlattener {
  readonly #flattened = new WeakMap<SchemaObject, SchemaObject | false>();

  constructor(private readonly compiler: SchemaCompiler) {}

  /** `$ref` and `allOf` resolved into one merged schema (false when it can match nothing). */
  flatten(schema: SchemaObject, pointer: string): SchemaObject | false {
    let flat = this.#flattened.get(schema);
    if (flat === undefined) this.#flattened.set(schema, (flat = this.#flattenOnce(schema, pointer)));
    return flat;
  }

  #flattenOnce(schema: SchemaObject, pointer: string): SchemaObject | false {
    const parts: [SchemaObject, string][] = [];
    const seen: ConjunctsSeen = { schemas: new Set(), parts: new Set(), path: new Set() };
    if (!this.#conjuncts(schema, pointer, 0, seen, parts)) return false;
    let result: SchemaObject = {};
    for (const [part, at] of parts) {
      const merged = mergeSchemas(result, part, at, (p, k, m) => this.compiler.unsupported(p, k, m));
      if (merged === false) return false;
      result = merged;
    }
    return result;
  }

  // Collects what a schema intersects into `parts`: its own keywords, then the conjuncts of
  // its `$ref`'s target and of its `allOf` members, each schema once by meaning. False when
  // one of them is `false`.
  #conjuncts(schema: Schema, pointer: string, depth: number, seen: ConjunctsSeen, parts: [SchemaObject, string][]): boolean {
    if (schema === true) return true;
    if (schema === false) return false;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new InvalidSchemaError(pointer, '', 'a schema must be an object or a boolean');
    }
    if (depth > MAX_CONJUNCT_DEPTH || seen.path.has(schema)) {
      throw new UnsupportedSchemaError(pointer, '$ref', `references with sibling keywords nest more than ${MAX_CONJUNCT_DEPTH} levels (a cycle?)`);
    }
    const compiler = this.compiler;
    const id = compiler.ids.of(schema);
    if (seen.schemas.has(id)) return true;
    checkKeywordShapes(schema, pointer);
    seen.path.add(schema);
    try {
      const target = typeof schema.$ref === 'string' ? compiler.resolve(schema.$ref, pointer) : null;
      if (target !== null && compiler.onlyRef(schema)) {
        if (!this.#conjuncts(target.schema, target.pointer, depth + 1, seen, parts)) return false;
        seen.schemas.add(id);
        return true;
      }
      const own: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema)) if (!['allOf', '$ref', 'if', 'then', 'else'].includes(k)) own[k] = v;
      localUnevaluated(own, schema, compiler.draft);
      if (own.unevaluatedProperties !== undefined) unevaluatedThroughAllOf(compiler, own, schema, pointer);
      // A conditional (and a dependent schema, one too) as one conjunct of a list, so
      // intersections keep every one (`then` and `else` without `if` assert nothing).
      // (Draft 4 has no conditionals: there `if` is an unknown keyword.)
      const conditional = schema.if !== undefined && compiler.draft !== '4';
      const conditions = [...(conditional ? [[schema.if, schema.then ?? true, schema.else ?? true]] : []), ...dependentConditions(own)];
      if (conditions.length > 0) own.__conditions = conditions;
      // `contains` as a witness of a list too (from draft 6; with maxContains or a minContains
      // above 1 it stays, refused).
      const minContains = schema.minContains ?? 1;
      if (schema.contains !== undefined && compiler.draft !== '4' && schema.maxContains === undefined && (minContains === 0 || minContains === 1)) {
        if (minContains === 1) own.__contains = [{ schema: schema.contains, from: 0 }];
        delete own.contains;
        delete own.minContains;
      }
      const ownId = compiler.ids.of(own);
      if (!seen.parts.has(ownId)) {
        seen.parts.add(ownId);
        parts.push([own, pointer]);
      }
      if (target !== null && !this.#conjuncts(target.schema, target.pointer, depth + 1, seen, parts)) return false;
      if (schema.allOf !== undefined) {
        if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) {
          throw new InvalidSchemaError(pointer, 'allOf', 'allOf must be a non-empty array');
        }
        const at = pointerJoin(pointer, 'allOf');
        const members = schema.allOf as Schema[];
        if (!members.every((member, i) => this.#conjuncts(member, pointerJoin(at, i), depth + 1, seen, parts))) return false;
      }
      // (Marked when done: a member may mean what the whole does, as in `allOf: [{$ref: …}]`.)
      seen.schemas.add(id);
      return true;
    } finally {
      seen.path.delete(schema);
    }
  }
}

// unevaluatedProperties of a schema whose only in-place keywords are `allOf` and `$ref`: the
// names its subschemas evaluate are known (`evaluatedNames`), so it is additionalProperties
// beside its own properties and those names (each `true` there: no constraint); nothing when
// one of them has additionalProperties (it evaluates every other name). Left as it is (and
// refused) when a subschema evaluates names conditionally or by patterns.
function unevaluatedThroughAllOf(compiler: SchemaCompiler, own: Record<string, unknown>, schema: SchemaObject, pointer: string): void {
  if (IN_PLACE.some((k) => k !== 'allOf' && k !== '$ref' && schema[k] !== undefined)) return;
  const names = evaluatedNames(compiler, { ...schema, unevaluatedProperties: undefined }, pointer, new Set());
  if (names === undefined) return;
  if (names !== 'all') {
    const properties: Record<string, unknown> = { ...((own.properties ?? {}) as Record<string, unknown>) };
    for (const name of names) if (!Object.hasOwn(properties, name)) properties[name] = true;
    own.properties = properties;
    own.additionalProperties = own.unevaluatedProperties;
  }
  delete own.unevaluatedProperties;
}

// The names a schema evaluates in place, through `$ref`s and `allOf`s: its properties', or
// 'all' when it has additionalProperties; undefined when it evaluates names by patterns or
// by subschemas that may not apply (anyOf, oneOf, if, dependentSchemas, dynamic references,
// an unevaluatedProperties of its own).
function evaluatedNames(compiler: SchemaCompiler, schema: Schema, pointer: string, seen: Set<SchemaObject>): Set<string> | 'all' | undefined {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return new Set();
  seen.add(schema);
  const conditional = ['anyOf', 'oneOf', 'if', 'dependentSchemas', '$dynamicRef', '$recursiveRef', 'patternProperties', 'unevaluatedProperties'];
  if (conditional.some((k) => schema[k] !== undefined)) return undefined;
  if (schema.additionalProperties !== undefined) return 'all';
  const names = new Set(Object.keys((schema.properties ?? {}) as Record<string, unknown>));
  const subschemas: [Schema, string][] = [];
  if (typeof schema.$ref === 'string') {
    const target = compiler.resolve(schema.$ref, pointer);
    subschemas.push([target.schema, target.pointer]);
  }
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((member, i) => subschemas.push([member as Schema, pointerJoin(pointerJoin(pointer, 'allOf'), i)]));
  for (const [subschema, at] of subschemas) {
    const more = evaluatedNames(compiler, subschema, at, seen);
    if (more === undefined || more === 'all') return more;
    for (const name of more) names.add(name);
  }
  return names;
}

// Keywords that evaluate members or items of the instance in place, for `unevaluated*`.
const IN_PLACE = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'dependentSchemas', '$ref', '$dynamicRef', '$recursiveRef'];

// unevaluatedProperties / unevaluatedItems of a schema no in-place subschema evaluates
// anything for: what its own properties and items leave, additionalProperties and the items
// past the prefix (nothing when those are set). Before 2019-09 they are unknown keywords.
function localUnevaluated(own: Record<string, unknown>, schema: SchemaObject, draft: string): void {
  if (draft === '4' || draft === '7') {
    delete own.unevaluatedProperties;
    delete own.unevaluatedItems;
    return;
  }
  if (IN_PLACE.some((k) => schema[k] !== undefined)) return;
  if (own.unevaluatedProperties !== undefined) {
    own.additionalProperties ??= own.unevaluatedProperties;
    delete own.unevaluatedProperties;
  }
  if (own.unevaluatedItems !== undefined && own.contains === undefined) {
    if (Array.isArray(own.items)) own.additionalItems ??= own.unevaluatedItems;
    else own.items ??= own.unevaluatedItems;
    delete own.unevaluatedItems;
  }
}
