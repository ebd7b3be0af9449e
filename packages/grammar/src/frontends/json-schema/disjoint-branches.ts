/**
 * `oneOf` as a union: an instance must satisfy exactly one branch, which a grammar can only
 * enforce when the branches that may accept it are provably disjoint. Disjointness is proven
 * kind by kind (null, boolean, object, array, string, number) from types, constants, number
 * ranges and required properties; what cannot be proven goes the general way (each branch
 * less the others, `negate-schema.ts`).
 */
import { ownName } from '../../own-names.ts';
import { matchesSomething } from '../../lexer/lexer-dfa.ts';
import type { Bound } from './numbers.ts';
import { jsonEqual, mergeSchemas } from './merge-schemas.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import {
  allowedTypes,
  isAssertion,
  KIND_KEYWORDS,
  KIND_SPECIFIC,
  lowerBound,
  upperBound,
  type JsonType,
  type Schema,
  type SchemaObject,
} from './schema-keywords.ts';
import { SchemaError } from './schema-error.ts';
import { stringRegex } from './string-schema.ts';
import { standardSchema, validatesValue } from './value-validation.ts';

// The kinds of JSON value `oneOf` is decided on ('number' includes integers).
const KINDS: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'string', 'number'];

// How deep into required properties' schemas a proof of disjointness looks.
const MAX_PROOF_DEPTH = 8;

/**
 * The branches of a `oneOf`, each restricted to the kinds it keeps: kind by kind, an
 * instance of a kind that two branches accept whole is in neither; otherwise the branches
 * that constrain the kind must be provably disjoint on it. Null when they are not (the
 * compiler then intersects each branch with the others' complements).
 */
export function exclusiveBranches(compiler: SchemaCompiler, branches: readonly SchemaObject[], pointer: string): SchemaObject[] | null {
  const kept = branches.map(() => new Set<JsonType>());
  for (const kind of KINDS) {
    const statuses = branches.map((b) => kindStatus(b, kind, pointer));
    const whole = statuses.filter((s) => s === 'all').length;
    const partial = statuses.flatMap((s, i) => (s === 'some' ? [i] : []));
    if (whole >= 2) continue; // every instance of this kind is in two branches
    const overlap =
      whole === 1
        ? partial.length > 0
        : partial.length > 1 &&
          !pairwiseDisjoint(
            compiler,
            partial.map((i) => branches[i]!),
            kind,
            pointer,
          );
    if (overlap) return null;
    statuses.forEach((s, i) => s !== 'none' && kept[i]!.add(kind));
  }
  const out: SchemaObject[] = [];
  branches.forEach((b, i) => {
    if (kept[i]!.size === 0) return;
    const restricted = kept[i]!.size === KINDS.length ? b : restrictTo(compiler, b, [...kept[i]!], pointer);
    if (restricted !== false) out.push(restricted);
  });
  return out;
}

function restrictTo(compiler: SchemaCompiler, schema: SchemaObject, types: JsonType[], pointer: string): SchemaObject | false {
  return mergeSchemas(schema, { type: types }, pointer, (p, k, m) => compiler.unsupported(p, k, m));
}

// Whether a (merged) schema accepts no, all or some instances of a kind.
function kindStatus(schema: SchemaObject, kind: JsonType, pointer: string): 'none' | 'all' | 'some' {
  const types = allowedTypes(schema, pointer);
  if (!types.includes(kind) && !(kind === 'number' && types.includes('integer'))) return 'none';
  if (kind === 'number' && !types.includes('number')) return 'some'; // integers only
  const own = KIND_KEYWORDS[kind] ?? [];
  const constrains = Object.keys(schema).some((k) => isAssertion(k) && k !== 'type' && (own.includes(k) || !KIND_SPECIFIC.has(k)));
  return constrains ? 'some' : 'all';
}

/**
 * Whether no instance (of the `kinds` given, all by default) satisfies both schemas (merged
 * ones), proven kind by kind: false means "not proven". A oneOf branch needs no complement of
 * a branch it is disjoint from.
 */
export function provablyDisjoint(compiler: SchemaCompiler, a: SchemaObject, b: SchemaObject, pointer: string, kinds = KINDS): boolean {
  return kinds.every(
    (kind) => kindStatus(a, kind, pointer) === 'none' || kindStatus(b, kind, pointer) === 'none' || pairwiseDisjoint(compiler, [a, b], kind, pointer),
  );
}

// Most cases a oneOf is split into by a discriminating member's values.
const MAX_DISCRIMINATOR_CASES = 64;

/**
 * Cases that split the instances of a oneOf whose branches overlap so that within each, fewer
 * branches do: a member that at least two branches declare with an enum or const (a
 * "discriminator"; values its own schema refuses left out), its values grouped by the
 * branches that allow each; one case per group (objects with the member, its value in the
 * group), and one for every other instance (objects without it or with another value, and
 * all that are not objects). Null when no member does this. The member taken is the one that
 * leaves the fewest pairs of branches possible together, summed over its cases.
 */
export function discriminatorCases(compiler: SchemaCompiler, branches: readonly SchemaObject[], pointer: string): SchemaObject[] | null {
  let best: { name: string; groups: unknown[][]; pairs: number } | null = null;
  const names = new Set(branches.flatMap((b) => Object.keys((b.properties ?? {}) as object)));
  for (const name of names) {
    const valueSets = branches.flatMap((b) => {
      const member = ownName(b.properties as Record<string, Schema> | undefined, name);
      const flat = member === undefined || typeof member === 'boolean' ? false : compiler.flatten(member, pointer);
      if (flat === false) return [];
      const values = flat.const !== undefined ? [flat.const] : Array.isArray(flat.enum) ? flat.enum : null;
      if (values === null) return [];
      const own = standardSchema(flat, compiler.draft);
      return [values.filter((v) => validatesValue(compiler, own, v, pointer, false))];
    });
    if (valueSets.length < 2) continue;
    // Values grouped by which value sets hold them.
    const groups = new Map<string, unknown[]>();
    const seen: unknown[] = [];
    for (const value of valueSets.flat()) {
      if (seen.some((v) => jsonEqual(v, value))) continue;
      seen.push(value);
      const signature = valueSets.map((set) => (set.some((v) => jsonEqual(v, value)) ? 1 : 0)).join('');
      groups.set(signature, [...(groups.get(signature) ?? []), value]);
    }
    if (groups.size < 2 || groups.size >= MAX_DISCRIMINATOR_CASES) continue;
    // Per case, the branches possible there: those whose values hold the group and those
    // without values for the member; in the last case, those that do not require it.
    const open = branches.length - valueSets.length;
    const rest = branches.filter((b) => !(Array.isArray(b.required) && b.required.includes(name))).length;
    const pairs = [...groups.keys()].reduce((sum, signature) => sum + (signature.split('1').length - 1 + open) ** 2, rest ** 2);
    if (best === null || pairs < best.pairs) best = { name, groups: [...groups.values()], pairs };
  }
  if (best === null) return null;
  const { name, groups } = best;
  return [
    ...groups.map((values) => ({ type: 'object', required: [name], properties: { [name]: { enum: values } } })),
    { properties: { [name]: { not: { enum: groups.flat() } } } },
  ];
}

// Whether the schemas, restricted to one kind, are pairwise disjoint.
function pairwiseDisjoint(compiler: SchemaCompiler, schemas: readonly SchemaObject[], kind: JsonType, pointer: string): boolean {
  const restricted = schemas.map((s) => restrictTo(compiler, s, [kind], pointer));
  return restricted.every((a, i) => a === false || restricted.slice(i + 1).every((b) => b === false || disjoint(compiler, a, b, pointer)));
}

// Whether no instance satisfies both schemas, proven from: their types; the values of an
// enum / const (each checked against the other schema); a `not` of what the other schema
// says itself; a property one requires whose schema is disjoint from the other's schema for
// it; disjoint number ranges. False means "not proven".
function disjoint(compiler: SchemaCompiler, a: SchemaObject, b: SchemaObject, pointer: string, depth = 0): boolean {
  if (depth > MAX_PROOF_DEPTH) return false;
  const tb = typesOf(b, pointer);
  const shared = [...typesOf(a, pointer)].filter((t) => tb.has(t));
  if (shared.length === 0) return true;
  if (refutes(a, b, pointer) || refutes(b, a, pointer)) return true;
  if (everyBranchDisjoint(compiler, a, b, pointer, depth) || everyBranchDisjoint(compiler, b, a, pointer, depth)) return true;
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    const values = x.const !== undefined ? [x.const] : Array.isArray(x.enum) ? x.enum : null;
    if (values === null) continue;
    const own = standardSchema(x, compiler.draft);
    // (Values that may hold are taken to: a proof of disjointness must not miss one.)
    const both = values.filter((v) => validatesValue(compiler, own, v, pointer, true));
    const other = standardSchema(y, compiler.draft);
    return !both.some((v) => validatesValue(compiler, other, v, pointer, true));
  }
  if (shared.length === 1 && shared[0] === 'string' && noStringInBoth(compiler, a, b, pointer)) return true;
  if (shared.every((t) => t === 'number' || t === 'integer')) {
    const [la, ha, lb, hb] = [lowerBound(a, pointer), upperBound(a, pointer), lowerBound(b, pointer), upperBound(b, pointer)];
    if (below(ha, lb) || below(hb, la)) return true;
  }
  if (shared.length === 1 && shared[0] === 'object') {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      for (const name of requiredNames(x)) {
        const px = propertySchema(x, name);
        const py = propertySchema(y, name);
        if (py === false) return true;
        // x requires the property; wherever y holds too, it satisfies y's schema for it.
        if (px === undefined || py === undefined || typeof px === 'boolean' || typeof py === 'boolean') continue;
        const fx = compiler.flatten(px, pointer);
        const fy = compiler.flatten(py, pointer);
        if (fx === false || fy === false || disjoint(compiler, fx, fy, pointer, depth + 1)) return true;
      }
    }
  }
  return false;
}

// Whether `x` is an anyOf or oneOf (beside other keywords) each of whose branches, with
// those keywords, is disjoint from `y`.
function everyBranchDisjoint(compiler: SchemaCompiler, x: SchemaObject, y: SchemaObject, pointer: string, depth: number): boolean {
  const keyword = Array.isArray(x.anyOf) ? 'anyOf' : Array.isArray(x.oneOf) ? 'oneOf' : null;
  if (keyword === null) return false;
  const rest: Record<string, unknown> = { ...x };
  delete rest[keyword];
  return (x[keyword] as Schema[]).every((branch) => {
    const flat = branch === false ? false : compiler.flatten(branch === true ? {} : branch, pointer);
    const both = flat === false ? false : mergeSchemas(rest, flat, pointer, () => {});
    return both === false || disjoint(compiler, both, y, pointer, depth + 1);
  });
}

// Whether `x` says `not: N` (one of its nots) where `y` says everything N says: its types
// among N's, and each other keyword of N with the same value (properties and required: N's
// among y's).
function refutes(x: SchemaObject, y: SchemaObject, pointer: string): boolean {
  if (x.not === undefined || typeof x.not === 'boolean') return x.not === true;
  const nots =
    (x.not as SchemaObject).anyOf !== undefined && Object.keys(x.not as object).length === 1 ? ((x.not as SchemaObject).anyOf as Schema[]) : [x.not as Schema];
  return nots.some((n) => n === true || (typeof n === 'object' && implies(y, n, pointer)));
}

// Most automaton states a proof that two string schemas share no string may build.
const MAX_STRING_PROOF_STATES = 20_000;

// Whether no string satisfies both schemas' string keywords (lengths, patterns, formats):
// their intersection's automaton, built and pruned, accepts nothing. Only where both say
// something of strings beyond a type; false when not proven (or the automaton is too large).
function noStringInBoth(compiler: SchemaCompiler, a: SchemaObject, b: SchemaObject, pointer: string): boolean {
  const speaks = (s: SchemaObject): boolean => (KIND_KEYWORDS.string ?? []).some((k) => s[k] !== undefined);
  if (!speaks(a) || !speaks(b)) return false;
  const both = mergeSchemas(a, b, pointer, () => {});
  if (both === false) return true;
  try {
    return matchesSomething(stringRegex(compiler, both, pointer, []), MAX_STRING_PROOF_STATES) === false;
  } catch (error) {
    if (error instanceof SchemaError) return false; // a keyword the compiler refuses: said where it is built
    throw error;
  }
}

// Keywords read together: where `n` has one, `y` must have each as `n` has it.
const KEYWORD_GROUPS: readonly (readonly string[])[] = [
  ['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', '__memberSides'],
  ['prefixItems', 'items', 'additionalItems', 'unevaluatedItems'],
  ['contains', 'minContains', 'maxContains'],
  ['if', 'then', 'else'],
  ['minimum', 'exclusiveMinimum'],
  ['maximum', 'exclusiveMaximum'],
];

// Whether every instance of `y` satisfies `n`, read keyword by keyword (false: not proven).
function implies(y: SchemaObject, n: SchemaObject, pointer: string): boolean {
  const alike = (k: string): boolean => jsonEqual(y[k], n[k]);
  for (const group of KEYWORD_GROUPS) {
    // Properties alone speak of each name apart (below); with the others they are read together.
    const together = group[0] === 'properties' ? group.slice(1).some((k) => n[k] !== undefined) : group.some((k) => n[k] !== undefined);
    if (together && !group.every(alike)) return false;
  }
  return Object.entries(n).every(([k, v]) => {
    if (!isAssertion(k)) return true;
    if (k === 'type') {
      if (y.type === undefined) return false;
      const allowed = typesOf(n, pointer);
      return allowed.size > 0 && allowedTypes(y, pointer).every((t) => allowed.has(t));
    }
    if (k === 'required') return Array.isArray(v) && (v as string[]).every((name) => requiredNames(y).includes(name));
    if (k === 'properties') {
      const mine = (y.properties ?? {}) as Record<string, unknown>;
      return Object.entries(v as Record<string, unknown>).every(
        ([name, schema]) => schema === true || (Object.hasOwn(mine, name) && jsonEqual(mine[name], schema)),
      );
    }
    return Object.hasOwn(y, k) && jsonEqual(y[k], v);
  });
}

// The types a schema allows, integers counted among numbers.
function typesOf(schema: SchemaObject, pointer: string): Set<JsonType> {
  const set = new Set(allowedTypes(schema, pointer));
  if (set.has('number')) set.add('integer');
  return set;
}

// Whether every number up to `hi` is below every number from `lo`.
function below(hi: Bound, lo: Bound): boolean {
  return hi.value < lo.value || (hi.value === lo.value && !(hi.inclusive && lo.inclusive));
}

function requiredNames(schema: SchemaObject): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

// The schema of property `name`: declared, or the additional one when no pattern may apply
// (undefined: not known).
function propertySchema(schema: SchemaObject, name: string): Schema | undefined {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  if (Object.hasOwn(props, name)) return props[name];
  if (schema.patternProperties !== undefined || schema.__memberSides !== undefined) return undefined;
  return schema.additionalProperties as Schema | undefined;
}
