/**
 * Normalising: a schema with `$ref`s beside other keywords and `allOf`s becomes one merged
 * schema (`mergeSchemas`) of everything it intersects, each part once by meaning
 * (`SchemaIds`), so an intersection merges the same parts however its `allOf`s nest and
 * repeat; a closed object's patterns that name finitely many members become those names
 * (`namedPatterns`).
 */
import { defineName } from '../../own-names.ts';
import { checkKeywordShapes } from './keyword-shapes.ts';
import { kindTest } from './kind-tests.ts';
import { mergeSchemas } from './merge-schemas.ts';
import { namedPatterns } from './pattern-names.ts';
import { dependentConditions } from './object-dependencies.ts';
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { INTERNAL, nonNegativeInt, type Schema, type SchemaObject } from './schema-keywords.ts';
import { FORMAT_PATTERNS, UNSUPPORTED_FORMATS } from './string-formats.ts';

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
    return namedPatterns(result);
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
      if (target !== null && compiler.onlyRef(schema, pointer)) {
        if (!this.#conjuncts(target.schema, target.pointer, depth + 1, seen, parts)) return false;
        seen.schemas.add(id);
        return true;
      }
      const own: Record<string, unknown> = {};
      // (A written keyword named like one of the compiler's own is an annotation: dropped.)
      const written = compiler.written(schema);
      for (const [k, v] of Object.entries(schema)) if (!['allOf', '$ref', 'if', 'then', 'else'].includes(k) && !(written && INTERNAL.has(k))) own[k] = v;
      localUnevaluated(own, schema);
      // A conditional (and a dependent schema, one too) as one conjunct of a list, so
      // intersections keep every one (`then` and `else` without `if` assert nothing). (Keywords
      // a document's draft does not have are gone: `inDeclaredDraft`.)
      let condition: Schema[] | undefined =
        schema.if !== undefined ? [schema.if as Schema, (schema.then ?? true) as Schema, (schema.else ?? true) as Schema] : undefined;
      if (own.unevaluatedProperties !== undefined) condition = distributeUnevaluated(compiler, own, schema, condition, pointer);
      const conditions = [...(condition !== undefined ? [condition] : []), ...dependentConditions(own)];
      if (conditions.length > 0) own.__conditions = conditions;
      // (A format read as an annotation asserts nothing; one Sieve does not know, such as
      // OpenAPI's int32 or byte, is one, and said so.)
      if (compiler.options.formats === 'annotate') delete own.format;
      else if (typeof own.format === 'string' && FORMAT_PATTERNS[own.format] === undefined && !UNSUPPORTED_FORMATS.has(own.format))
        compiler.warn(pointer, 'format', `format ${JSON.stringify(own.format)} is not one JSON Schema defines: an annotation, not checked`);
      // `contains` as a witness of a list too.
      if (schema.contains !== undefined) {
        const min = nonNegativeInt(schema.minContains, pointer, 'minContains') ?? 1;
        const max = nonNegativeInt(schema.maxContains, pointer, 'maxContains') ?? Infinity;
        // (minContains 0 and no maxContains: every array holds.)
        if (min > 0 || max < Infinity) own.__contains = [{ schema: schema.contains, from: 0, ...(min !== 1 && { min }), ...(max < Infinity && { max }) }];
      }
      delete own.contains;
      delete own.minContains;
      delete own.maxContains;
      // A `not`, `anyOf` or `oneOf` that combines one kind's keywords: one test of that kind.
      const tests: SchemaObject[] = [];
      for (const keyword of ['not', 'anyOf', 'oneOf']) {
        const test = own[keyword] === undefined ? null : kindTest(compiler, { [keyword]: own[keyword] }, pointer);
        if (test === null) continue;
        delete own[keyword];
        tests.push(test);
      }
      for (const part of [own, ...tests]) {
        const partId = compiler.ids.of(part);
        if (seen.parts.has(partId)) continue;
        seen.parts.add(partId);
        parts.push([part, pointer]);
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

// unevaluatedProperties of a schema whose in-place keywords are `allOf` and `$ref`, and at
// most one of `oneOf`, `anyOf` (of up to MAX_UNEVALUATED_BRANCHES) or `if`: the names its
// subschemas evaluate are known (`evaluatedNames`), so it becomes additionalProperties beside
// them (`onlyEvaluated`), spread over the cases: a `oneOf` as each branch less the others,
// each with the names it adds; an `anyOf` as each set of branches that hold (and the others
// not); `if` with the names of `if` and `then` when it holds and of `else` when not (the
// condition returned, else the one given). Left as it is (and refused) otherwise: a
// subschema that evaluates names conditionally, by patterns, or by its own unevaluated*.
function distributeUnevaluated(
  compiler: SchemaCompiler,
  own: Record<string, unknown>,
  schema: SchemaObject,
  condition: Schema[] | undefined,
  pointer: string,
): Schema[] | undefined {
  const branching = ['oneOf', 'anyOf', 'if'].filter((k) => schema[k] !== undefined);
  if (branching.length > 1 || IN_PLACE.some((k) => !['allOf', '$ref', 'oneOf', 'anyOf', 'if', 'then', 'else'].includes(k) && schema[k] !== undefined))
    return condition;
  const base = evaluatedNames(compiler, { ...schema, unevaluatedProperties: undefined, oneOf: undefined, anyOf: undefined, if: undefined }, pointer, new Set());
  if (base === undefined) return condition;
  const unevaluated = own.unevaluatedProperties as Schema;
  const namesOf = (subschemas: readonly Schema[]): Set<string> | 'all' | undefined => {
    let names: Set<string> | 'all' = base;
    for (const s of subschemas) {
      const more = evaluatedNames(compiler, s, pointer, new Set());
      if (more === undefined) return undefined;
      names = names === 'all' || more === 'all' ? 'all' : new Set([...names, ...more]);
    }
    return names;
  };
  if (branching.length === 0) {
    if (base !== 'all') {
      // Its own properties keep their schemas; the others' names are `true` beside them.
      const properties: Record<string, unknown> = { ...((own.properties ?? {}) as Record<string, unknown>) };
      for (const name of base) if (!Object.hasOwn(properties, name)) defineName(properties, name, true);
      own.properties = properties;
      own.additionalProperties = unevaluated;
    }
    delete own.unevaluatedProperties;
    return condition;
  }
  if (branching[0] === 'if') {
    const [test, then, otherwise] = condition!;
    const held = namesOf([test!, then!]);
    const failed = namesOf([otherwise!]);
    if (held === undefined || failed === undefined) return condition;
    delete own.unevaluatedProperties;
    return [test!, withOnly(then!, held, unevaluated), withOnly(otherwise!, failed, unevaluated)];
  }
  const branches = schema[branching[0]!] as Schema[];
  if (!Array.isArray(branches) || (branching[0] === 'anyOf' && branches.length > MAX_UNEVALUATED_BRANCHES)) return condition;
  // Per case: the branches that hold (the others do not).
  const cases = branching[0] === 'oneOf' ? branches.map((_, i) => [i]) : subsetsOf(branches.length);
  const spread: Schema[] = [];
  for (const holding of cases) {
    const names = namesOf(holding.map((i) => branches[i]!));
    if (names === undefined) return condition;
    const others = branches.flatMap((b, i) => (holding.includes(i) ? [] : [{ not: b }]));
    spread.push({ allOf: [...holding.map((i) => branches[i]!), ...others, ...(names === 'all' ? [] : [onlyEvaluated(names, unevaluated)])] });
  }
  delete own.oneOf;
  delete own.unevaluatedProperties;
  own.anyOf = spread;
  return condition;
}

// Most anyOf branches spread over their subsets for unevaluatedProperties (2^4 - 1 cases).
const MAX_UNEVALUATED_BRANCHES = 4;

// The nonempty subsets of 0 … n - 1.
const subsetsOf = (n: number): number[][] =>
  Array.from({ length: 2 ** n - 1 }, (_, mask) => Array.from({ length: n }, (_, i) => i).filter((i) => ((mask + 1) >> i) & 1));

// A schema that holds what `unevaluated` says of every member but `names`.
const onlyEvaluated = (names: ReadonlySet<string>, unevaluated: Schema): SchemaObject => ({
  properties: Object.fromEntries([...names].map((name) => [name, true])),
  additionalProperties: unevaluated,
});

// `schema` and, unless every name is evaluated, `onlyEvaluated`.
const withOnly = (schema: Schema, names: ReadonlySet<string> | 'all', unevaluated: Schema): Schema =>
  names === 'all' ? schema : { allOf: [schema, onlyEvaluated(names, unevaluated)] };

// The names a schema evaluates in place, through `$ref`s and `allOf`s: its properties', or
// 'all' when it has additionalProperties; undefined when it evaluates names by patterns or
// by subschemas that may not apply (anyOf, oneOf, if, dependentSchemas, dynamic references,
// an unevaluatedProperties of its own).
function evaluatedNames(compiler: SchemaCompiler, schema: Schema, pointer: string, seen: Set<SchemaObject>): Set<string> | 'all' | undefined {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return new Set();
  seen.add(schema);
  const conditional = [
    'anyOf',
    'oneOf',
    'if',
    'dependentSchemas',
    '$dynamicRef',
    '$recursiveRef',
    'patternProperties',
    'unevaluatedProperties',
    '__memberSides',
  ];
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
// past the prefix (nothing when those are set). (Before 2019-09 they are unknown keywords,
// gone from the document: `inDeclaredDraft`.)
function localUnevaluated(own: Record<string, unknown>, schema: SchemaObject): void {
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
