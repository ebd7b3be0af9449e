/**
 * The schemas a schema may stand for where it applies, for questions asked of every schema
 * that may describe a value (`unique-paths.ts`, `array-schema.ts`): flattened, with its
 * `anyOf`/`oneOf` branches apart (each with its siblings), `if` as `then` and as `else`
 * (flattened conditionals as the condition with `then`, and its negation with `else`), and
 * `dependentSchemas` each apart too. A superset of what holds: an answer true of all of them
 * is true of the value.
 */
import { provablyDisjoint } from './disjoint-branches.ts';
import { mergeSchemas } from './merge-schemas.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { isAssertion, type JsonType, type MemberWitness, type Schema, type SchemaObject } from './schema-keywords.ts';

// The kinds but objects (`candidatesExact`).
const NOT_OBJECTS: readonly JsonType[] = ['null', 'boolean', 'array', 'string', 'number'];

// How deep branches are expanded within branches.
const MAX_EXPANSION_DEPTH = 16;

/** The schemas `schema` may stand for (see above); `pointer` names it in errors. */
export function candidates(compiler: SchemaCompiler, schema: Schema, pointer: string, depth = 0): SchemaObject[] {
  if (schema === false) return [];
  const flat = compiler.flatten(schema === true ? {} : schema, pointer);
  if (flat === false) return [];
  if (depth >= MAX_EXPANSION_DEPTH)
    compiler.unsupported(pointer, 'uniqueItems', `uniqueItems checked while matching, beside branches nested more than ${MAX_EXPANSION_DEPTH} deep`);
  const within = (rest: SchemaObject, branch: Schema): SchemaObject[] => {
    const both = branch === true ? rest : branch === false ? false : compiler.flatten(branch, pointer);
    const merged = both === false ? false : both === rest ? rest : mergeSchemas(rest, both, pointer, () => {});
    return merged === false ? [] : candidates(compiler, merged, pointer, depth + 1);
  };
  const without = (...keywords: string[]): SchemaObject => {
    const rest: Record<string, unknown> = { ...flat };
    for (const k of keywords) delete rest[k];
    return rest;
  };
  // An anyOf with a branch that asserts nothing holds for every value: its siblings alone.
  // (Where unevaluatedProperties counts what its branches evaluate, flattening has spread it
  // over them, each branch with the names it evaluates; left beside them, it is refused.)
  if (Array.isArray(flat.anyOf) && (flat.anyOf as Schema[]).some((branch) => assertsNothing(compiler, branch, pointer)))
    return candidates(compiler, without('anyOf'), pointer, depth + 1);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(flat[keyword])) return (flat[keyword] as Schema[]).flatMap((branch) => within(without(keyword), branch));
  }
  if (Array.isArray(flat.__oneOf)) {
    const [next, ...more] = flat.__oneOf as Schema[][];
    const rest: Record<string, unknown> = { ...without('__oneOf'), ...(more.length > 0 && { __oneOf: more }) };
    return next!.flatMap((branch) => within(rest, branch));
  }
  if (flat.if !== undefined || flat.then !== undefined || flat.else !== undefined) {
    const rest = without('if', 'then', 'else');
    return [...within(rest, (flat.then ?? true) as Schema), ...within(rest, (flat.else ?? true) as Schema)];
  }
  // (Flattened conditionals, one at a time: the condition with `then`, its negation with
  // `else`, which keeps what the condition counts in view: `unique-paths.ts`.)
  if (Array.isArray(flat.__conditions)) {
    const [[condition, then, otherwise], ...more] = flat.__conditions as Schema[][];
    const rest: Record<string, unknown> = { ...without('__conditions'), ...(more.length > 0 && { __conditions: more }) };
    return [...within(rest, { allOf: [condition!, then!] }), ...within(rest, { allOf: [{ not: condition! }, otherwise!] })];
  }
  const dependents = Object.values({ ...((flat.dependentSchemas ?? {}) as object), ...((flat.dependencies ?? {}) as object) }).filter(
    (d): d is Schema => !Array.isArray(d),
  );
  if (dependents.length > 0) {
    const rest = without('dependentSchemas', 'dependencies');
    return [...candidates(compiler, rest, pointer, depth + 1), ...dependents.flatMap((d) => within(rest, d))];
  }
  return [flat];
}

/**
 * Whether a restriction of member names may hide from the candidates of `schema`: one under a
 * `not` (where it holds: under an even number of them), in a `oneOf` branch's siblings (each
 * candidate stands without their complements) or in an `if` condition (left out beside its
 * `then`). A name restriction is a `propertyNames`, an `additionalProperties` or
 * `unevaluatedProperties` of false, a pattern whose schema is false, or member sides.
 */
export function hidesNames(compiler: SchemaCompiler, schema: Schema, pointer: string, negated = false, hidden = false, depth = 0): boolean {
  if (typeof schema !== 'object') return false;
  const flat = compiler.flatten(schema, pointer);
  if (flat === false) return false;
  if (hidden && !negated && restrictsNames(compiler, flat, pointer)) return true;
  if (depth >= MAX_EXPANSION_DEPTH) return true;
  const parts = (...keywords: string[]): Schema[] => keywords.flatMap((k) => [flat[k] ?? []].flat() as Schema[]);
  const within = (sub: Schema, subNegated: boolean, subHidden: boolean): boolean => hidesNames(compiler, sub, pointer, subNegated, subHidden, depth + 1);
  // A `oneOf` branch is kept in its candidates and complemented in its siblings'.
  const oneOfs = [flat.oneOf ?? [], ...((flat.__oneOf ?? []) as unknown[])] as Schema[][];
  const branches = (list: Schema[]): boolean => list.some((sub) => within(sub, negated, hidden) || (list.length > 1 && within(sub, !negated, true)));
  // A condition: beside its `then` left out (`if`) or kept (`__conditions`), beside its `else`
  // complemented; neither where that side allows nothing.
  const conditions = [
    ...(flat.if === undefined ? [] : [[flat.if, flat.then ?? true, flat.else ?? true, true]]),
    ...((flat.__conditions ?? []) as Schema[][]).map(([condition, then, otherwise]) => [condition, then, otherwise, hidden]),
  ] as [Schema, Schema, Schema, boolean][];
  const condition = ([sub, then, otherwise, leftOut]: [Schema, Schema, Schema, boolean]): boolean =>
    (!allowsNothing(compiler, then, pointer) && within(sub, negated, leftOut)) || (!allowsNothing(compiler, otherwise, pointer) && within(sub, !negated, true));
  const dependents = Object.values({ ...((flat.dependentSchemas ?? {}) as object), ...((flat.dependencies ?? {}) as object) });
  return (
    parts('not').some((sub) => within(sub, !negated, true)) ||
    parts('anyOf', 'allOf', 'then', 'else').some((sub) => within(sub, negated, hidden)) ||
    ((flat.__conditions ?? []) as Schema[][]).some(([, then, otherwise]) => within(then!, negated, hidden) || within(otherwise!, negated, hidden)) ||
    oneOfs.some(branches) ||
    conditions.some(condition) ||
    dependents.some((d) => !Array.isArray(d) && within(d as Schema, negated, hidden))
  );
}

// Whether a flattened schema itself restricts member names (see `hidesNames`).
function restrictsNames(compiler: SchemaCompiler, flat: SchemaObject, pointer: string): boolean {
  const nothing = (v: unknown): boolean => allowsNothing(compiler, v, pointer);
  return (
    (flat.propertyNames !== undefined && !assertsNothing(compiler, flat.propertyNames as Schema, pointer)) ||
    nothing(flat.additionalProperties) ||
    nothing(flat.unevaluatedProperties) ||
    Object.values((flat.patternProperties ?? {}) as object).some(nothing) ||
    flat.__memberSides !== undefined
  );
}

/**
 * Whether some member no name tracks witnesses a complement in `schema` by its value
 * (`__otherWitness` with a schema that asserts something): a name written again with another
 * value would undo it. (One witnessed by its name alone, `not: {propertyNames: …}`, stays.)
 */
export function witnessedByValue(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): boolean {
  return ((schema.__otherWitness ?? []) as MemberWitness[]).some((w) => !assertsNothing(compiler, w.schema, pointer));
}

/** Whether `schema` (a schema or a keyword's value) holds for no value: false, or one that flattens to false. */
export function allowsNothing(compiler: SchemaCompiler, schema: unknown, pointer: string): boolean {
  return (
    schema === false || (typeof schema === 'object' && schema !== null && !Array.isArray(schema) && compiler.flatten(schema as SchemaObject, pointer) === false)
  );
}

/** Whether `branch` holds for every value: true, or a schema of annotations only. */
export function assertsNothing(compiler: SchemaCompiler, branch: Schema, pointer: string): boolean {
  if (typeof branch === 'boolean') return branch;
  const flat = compiler.flatten(branch, pointer);
  return flat !== false && Object.keys(flat).every((k) => !isAssertion(k));
}

/**
 * Whether the candidates of `schema` allow no value but objects that it does not allow: its
 * `oneOf` branches (at every level) provably disjoint but for objects, and no `if` with a
 * `then` or `else`. (Branches of a `dependentSchemas` stand for more objects, and only
 * objects; objects are judged whole, see `fresh-members.ts`.) A property
 * true of each candidate's every value is then true of the schema's, such as endless
 * completions of each prefix.
 */
export function candidatesExact(compiler: SchemaCompiler, schema: Schema, pointer: string, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  const flat = compiler.flatten(schema, pointer);
  if (flat === false) return true;
  if (depth >= MAX_EXPANSION_DEPTH || flat.__oneOf !== undefined) return false;
  if (flat.if !== undefined && (flat.then !== undefined || flat.else !== undefined)) return false;
  // (A conditional's `else` stands for values its condition holds for: other kinds too, but
  // where the schema allows objects only.)
  const objectsOnly = [flat.type].flat().length === 1 && [flat.type].flat()[0] === 'object';
  if (!objectsOnly && Array.isArray(flat.__conditions) && (flat.__conditions as Schema[][]).some(([, then, otherwise]) => then !== true || otherwise !== true))
    return false;
  const rest: Record<string, unknown> = { ...flat };
  for (const k of ['anyOf', 'oneOf', 'if', 'then', 'else', 'dependentSchemas', 'dependencies']) delete rest[k];
  const merged = (branch: Schema): Schema => {
    const both = branch === true ? rest : branch === false ? false : compiler.flatten(branch, pointer);
    return both === false ? false : mergeSchemas(rest, both, pointer, () => {});
  };
  const branches = (keyword: string): Schema[] => ((flat[keyword] ?? []) as Schema[]).map(merged);
  const anyOf = branches('anyOf');
  const oneOf = branches('oneOf');
  if (![...anyOf, ...oneOf].every((b) => candidatesExact(compiler, b, pointer, depth + 1))) return false;
  const each = oneOf.map((b) => candidates(compiler, b, pointer, depth + 1));
  return each.every((a, i) => each.slice(i + 1).every((b) => a.every((x) => b.every((y) => provablyDisjoint(compiler, x, y, pointer, NOT_OBJECTS)))));
}
