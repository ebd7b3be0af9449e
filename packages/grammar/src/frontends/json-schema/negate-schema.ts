/**
 * Schema-level negation: the complement of a schema within JSON values, as a union of
 * schemas the compiler can build. A schema is an intersection of keywords, each constraining
 * one kind of value (or every kind), so a value fails it iff it has a type the schema does
 * not allow, or fails one keyword: the complement is one branch per keyword, each restricted
 * to the kinds the keyword speaks of (`minLength: 3` fails only on strings shorter than 3).
 * Where a keyword holds a subschema, its branch pushes `not` inward (`properties: {a: S}`
 * fails on objects with an `a` that is `not: S`), which the compiler negates again when it
 * builds that member. `anyOf` negates to the product of its branches' complements (pruned of
 * empty intersections, capped at `MAX_NEGATION_BRANCHES`). Keywords without an exact finite
 * complement here (`uniqueItems`, a format enforced only in part or not at all, …) throw a
 * `NotNegatable` naming the keyword; the caller refuses the schema with its pointer.
 */
import { defineName, ownName } from '../../own-names.ts';
import { discriminatorCases, provablyDisjoint } from './disjoint-branches.ts';
import { constantsOf, jsonEqual, mergeSchemas, type ReportUnsupported } from './merge-schemas.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import {
  allowedTypes,
  isAssertion,
  KEY_KEYWORDS,
  lowerBound,
  upperBound,
  type JsonType,
  type Schema,
  type SchemaObject,
  type Witness,
  witnessCounts,
} from './schema-keywords.ts';
import { COMPLEMENTED_FORMATS, FORMAT_PATTERNS, UNSUPPORTED_FORMATS } from './string-formats.ts';
import { validatesValue } from './value-validation.ts';

/**
 * Most branches one complement (or one product of complements) may have: 64 at first, where
 * past it a `oneOf` is taken case by case and large products are pruned (smaller grammars),
 * then this many for a union refused at 64 (`withMoreBranches`).
 */
const MAX_NEGATION_BRANCHES = 128;
const FIRST_NEGATION_BRANCHES = 64;
// The cap a compilation builds complements with now (FIRST_NEGATION_BRANCHES when unset).
const branchCaps = new WeakMap<SchemaCompiler, number>();
const branchCap = (compiler: SchemaCompiler): number => branchCaps.get(compiler) ?? FIRST_NEGATION_BRANCHES;

/**
 * `build()`, and where it needs complements past the first cap, `build()` again with up to
 * `MAX_NEGATION_BRANCHES` (and the merges the first try spent pruning given back).
 */
export function withMoreBranches<T>(compiler: SchemaCompiler, build: () => T): T {
  const budget = subsumptionBudgets.get(compiler);
  try {
    return build();
  } catch (error) {
    if (!(error instanceof TooManyBranches) || error.cap >= MAX_NEGATION_BRANCHES) throw error;
    if (budget !== undefined) subsumptionBudgets.set(compiler, budget);
    else subsumptionBudgets.delete(compiler);
    branchCaps.set(compiler, MAX_NEGATION_BRANCHES);
    try {
      return build();
    } finally {
      branchCaps.delete(compiler);
    }
  }
}

// Most `anyOf`s and `not`s within one another that a name's schema is taken apart through.
const MAX_KEY_NESTING = 8;

/** A keyword whose complement is not supported (or a complement past the cap). */
export class NotNegatable extends Error {
  constructor(
    readonly keyword: string,
    why?: string,
  ) {
    super(`the complement of ${keyword} is not supported${why === undefined ? '' : ` (${why})`}`);
  }
}

// A complement (or product) past the cap `cap`.
class TooManyBranches extends NotNegatable {
  constructor(readonly cap: number) {
    super('branches');
    this.message = `a complement of more than ${cap} branches`;
  }
}

// Throws `TooManyBranches` where `count` branches pass the compilation's cap.
function checkBranches(compiler: SchemaCompiler, count: number): void {
  const cap = branchCap(compiler);
  if (count > cap) throw new TooManyBranches(cap);
}

// Count bounds: the kind each speaks of, and its opposite.
const COUNT_BOUNDS: Record<string, readonly ['string' | 'object' | 'array', string]> = {
  minLength: ['string', 'maxLength'],
  maxLength: ['string', 'minLength'],
  minProperties: ['object', 'maxProperties'],
  maxProperties: ['object', 'minProperties'],
  minItems: ['array', 'maxItems'],
  maxItems: ['array', 'minItems'],
};

// Kinds named by the type keyword, numbers as one kind (integers a part of it).
const OTHER_KINDS: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'string'];

/**
 * The complement of `schema` within JSON values, as a list of schemas whose union it is
 * (empty: every value satisfies `schema`). Throws `NotNegatable`.
 */
export function negateSchema(compiler: SchemaCompiler, schema: Schema, pointer: string): SchemaObject[] {
  if (schema === true) return [];
  if (schema === false) return [{}];
  const flat = compiler.flatten(schema, pointer);
  if (flat === false) return [{}];
  // A complement found past the cap once is not looked for again (a shared definition is
  // negated wherever it is used).
  let refused = refusals.get(compiler);
  if (refused === undefined) refusals.set(compiler, (refused = new Map()));
  const id = compiler.ids.of(flat, true);
  const known = refused.get(id);
  if (known !== undefined && !(known instanceof TooManyBranches && known.cap < branchCap(compiler))) throw known;
  // A complement asked for again while it is being built: a reference cycle through
  // complements (`oneOf: [A, {$ref: "#"}]`), which has no complement to build.
  let open = underway.get(compiler);
  if (open === undefined) underway.set(compiler, (open = new Set()));
  if (open.has(id)) throw new NotNegatable('$ref', 'a reference cycle runs through the complement');
  open.add(id);
  try {
    return new Negation(compiler, flat, pointer).branches();
  } catch (error) {
    if (error instanceof NotNegatable) refused.set(id, error);
    throw error;
  } finally {
    open.delete(id);
  }
}
const refusals = new WeakMap<SchemaCompiler, Map<number, NotNegatable>>();
const underway = new WeakMap<SchemaCompiler, Set<number>>();

/**
 * The intersection of unions: every way of picking one branch of each, merged, the ones
 * provably empty dropped. Throws `NotNegatable` past the cap (see `MAX_NEGATION_BRANCHES`).
 */
export function productOfUnions(compiler: SchemaCompiler, seed: SchemaObject, unions: readonly (readonly SchemaObject[])[], pointer: string): SchemaObject[] {
  const unsupported: ReportUnsupported = (p, k, m) => compiler.unsupported(p, k, m);
  // Terms are compared by meaning (`SchemaIds`: annotations, allOf nesting and order aside),
  // each numbered once.
  const known = new Map<SchemaObject, number>();
  const idOf = (term: SchemaObject): number => {
    let id = known.get(term);
    if (id === undefined) known.set(term, (id = compiler.ids.of(term, true)));
    return id;
  };
  let product: SchemaObject[] = [foldConstants(compiler, seed, pointer)];
  for (const union of unions) {
    const next: SchemaObject[] = [];
    const seen = new Set<number>();
    for (const left of product) {
      const merged: SchemaObject[] = [];
      for (const right of union) {
        if (provablyDisjoint(compiler, left, right, pointer)) continue;
        const both = mergeSchemas(left, right, pointer, unsupported);
        if (both !== false) merged.push(foldConstants(compiler, both, pointer));
      }
      // A branch `left` already implies makes the others redundant (they are within it).
      const leftId = idOf(left);
      const within = merged.find((both) => idOf(both) === leftId);
      for (const both of within === undefined ? merged : [within]) {
        const id = idOf(both);
        if (seen.has(id)) continue;
        seen.add(id);
        next.push(both);
      }
    }
    // (Looked for only past the cap: a pass compares every two terms, and big terms cost.)
    product = next.length > branchCap(compiler) ? withoutSubsumed(compiler, next, idOf, pointer) : next;
    checkBranches(compiler, product.length);
  }
  return product;
}

// `schema` with each member whose values are finitely many by its constants spelled as the
// values its whole schema allows (`{enum: [...]}`, checked by the exact validator; false
// when none): picking complement branches stacks `not`s on a member (`{enum: [a]}` and not
// b, and not c, …), and spelled as values, terms that hold the same values mean the same.
function foldConstants(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): SchemaObject {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return schema;
  let folded: Record<string, unknown> | undefined;
  for (const [name, member] of Object.entries(properties as Record<string, unknown>)) {
    // (Only members merges made: `allOf`s, where `not`s stack.)
    const values = typeof member === 'object' && member !== null && Array.isArray((member as SchemaObject).allOf) ? constantsOf(member) : null;
    if (values === null) continue;
    const kept = values.filter((value) => validatesValue(compiler, member as SchemaObject, value, `${pointer}/properties/${name}`, false));
    const spelled = kept.length === 0 ? false : { enum: kept };
    if (jsonEqual(spelled, member)) continue;
    folded ??= { ...(properties as Record<string, unknown>) };
    defineName(folded, name, spelled);
  }
  return folded === undefined ? schema : { ...schema, properties: folded };
}

// A union without its terms that lie within another term (of two that mean the same, the
// first stays): a term is within another when their merge means the term itself. A `oneOf`
// branch less each of the others repeats terms so: one that names a member, and the same
// with more members added. A merge that cannot be exact tells nothing (the term stays).
function withoutSubsumed(compiler: SchemaCompiler, terms: readonly SchemaObject[], idOf: (term: SchemaObject) => number, pointer: string): SchemaObject[] {
  const ids = terms.map(idOf);
  const inexact = (): never => {
    throw NOT_EXACT;
  };
  const within = (i: number, j: number): boolean => {
    try {
      const both = mergeSchemas(terms[i]!, terms[j]!, pointer, inexact);
      return both !== false && compiler.ids.of(foldConstants(compiler, both, pointer), true) === ids[i];
    } catch (error) {
      if (error === NOT_EXACT) return false;
      throw error;
    }
  };
  // (A term within another requires what it requires and has no other type: a cheap test first.)
  const required = terms.map((term) => new Set(Array.isArray(term.required) ? (term.required as string[]) : []));
  const types = terms.map((term) => (term.type === undefined ? undefined : new Set([term.type].flat() as string[])));
  const mayBeWithin = (i: number, j: number): boolean =>
    [...required[j]!].every((name) => required[i]!.has(name)) &&
    (types[j] === undefined || (types[i] !== undefined && [...types[i]!].every((t) => types[j]!.has(t) || (t === 'integer' && types[j]!.has('number')))));
  // The merges left to this compilation (each compares two terms by meaning, and costs).
  let budget = subsumptionBudgets.get(compiler) ?? MAX_SUBSUMPTION_CHECKS;
  const contains = (i: number, j: number): boolean => mayBeWithin(i, j) && --budget >= 0 && within(i, j);
  const kept: SchemaObject[] = [];
  try {
    for (let i = 0; i < terms.length; i++) {
      if (!terms.some((_, j) => j !== i && contains(i, j) && (j < i || !contains(j, i)))) kept.push(terms[i]!);
      // Past the cap or the budget the product is refused anyway: stop comparing.
      if (kept.length > branchCap(compiler) || budget < 0) return [...terms];
    }
    return kept;
  } finally {
    subsumptionBudgets.set(compiler, Math.max(0, budget));
  }
}
// Most merges the passes of `withoutSubsumed` make in one compilation.
const MAX_SUBSUMPTION_CHECKS = 8_192;
const subsumptionBudgets = new WeakMap<SchemaCompiler, number>();
const NOT_EXACT = new Error('not an exact merge');

// The complement of one flattened schema.
class Negation {
  readonly #out: SchemaObject[] = [];
  readonly #types: JsonType[];
  readonly #numbers: 'number' | 'integer' | null;
  readonly #required: ReadonlySet<string>;

  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly schema: SchemaObject,
    private readonly pointer: string,
  ) {
    this.#types = allowedTypes(schema, pointer);
    this.#numbers = this.#types.includes('number') ? 'number' : this.#types.includes('integer') ? 'integer' : null;
    this.#required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  }

  branches(): SchemaObject[] {
    const schema = this.schema;
    if (schema.type !== undefined) this.#outsideTypes();
    let bounds = false;
    let items = false;
    for (const [keyword, value] of Object.entries(schema)) {
      if (!isAssertion(keyword) || keyword === 'type') continue;
      if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(keyword)) {
        if (!bounds) this.#bounds();
        bounds = true;
      } else if (['prefixItems', 'items', 'additionalItems'].includes(keyword)) {
        if (!items) this.#items();
        items = true;
      } else {
        this.#keyword(keyword, value);
      }
      checkBranches(this.compiler, this.#out.length);
    }
    return this.#out;
  }

  // Values of types the schema does not allow.
  #outsideTypes(): void {
    const others: JsonType[] = OTHER_KINDS.filter((t) => !this.#types.includes(t));
    if (this.#numbers === null) others.push('number');
    if (others.length > 0) this.#out.push({ type: others });
    // Numbers that are not integers (the compiler refuses them where numbers are allowed).
    if (this.#numbers === 'integer') this.#out.push({ type: 'number', not: { type: 'integer' } });
  }

  // The schema of a name in `properties` (undefined: not declared there).
  #declared(name: string): Schema | undefined {
    return ownName(this.schema.properties as Record<string, Schema> | undefined, name);
  }

  // The schema's own types (a branch for a keyword that constrains every kind).
  #anyKind(): SchemaObject {
    return this.schema.type === undefined ? {} : { type: this.#types };
  }

  // The type of one kind within the schema's types, or null when it allows none.
  #kind(kind: 'string' | 'object' | 'array' | 'number'): JsonType | null {
    if (kind === 'number') return this.#numbers;
    return this.#types.includes(kind) ? kind : null;
  }

  // A branch of `kind` values (none when the schema allows no such values).
  #add(kind: 'string' | 'object' | 'array' | 'number', keywords: Record<string, unknown>): void {
    const type = this.#kind(kind);
    if (type !== null) this.#out.push({ type, ...keywords });
  }

  #keyword(keyword: string, value: unknown): void {
    const count = (): number => value as number;
    switch (keyword) {
      case 'enum':
        this.#out.push({ ...this.#anyKind(), __notValues: value });
        return;
      case 'const':
        this.#out.push({ ...this.#anyKind(), __notValues: [value] });
        return;
      case '__notValues':
        this.#out.push({ ...this.#anyKind(), enum: value });
        return;
      case 'not':
        this.#both(value as Schema);
        return;
      case 'anyOf':
        this.#out.push(...this.#allFail(value as Schema[]));
        return;
      case 'oneOf':
      case '__oneOf':
        // None holds, or two do (for each list; two that are provably disjoint never do).
        for (const branches of keyword === 'oneOf' ? [value as Schema[]] : (value as Schema[][])) {
          this.#out.push(...this.#allFail(branches));
          const flat = branches.map((b) => (typeof b === 'boolean' ? b : this.compiler.flatten(b, this.pointer)));
          const apart = (i: number, j: number): boolean => {
            const [a, b] = [flat[i], flat[j]];
            return a === false || b === false || (typeof a === 'object' && typeof b === 'object' && provablyDisjoint(this.compiler, a, b, this.pointer));
          };
          branches.forEach((a, i) => branches.forEach((b, j) => j > i && !apart(i, j) && this.#both(a, b)));
        }
        return;
      case '__conditions':
        // For each conditional: (if ∧ ¬then) ∪ (¬if ∧ ¬else).
        for (const [condition, then, otherwise] of value as Schema[][]) {
          if (then !== true) this.#both(condition!, { not: then });
          if (otherwise !== true) this.#out.push({ ...this.#anyKind(), not: { anyOf: [condition, otherwise] } });
        }
        return;
      case 'pattern':
        for (const pattern of [value].flat()) this.#add('string', { __notPatterns: [pattern] });
        return;
      case '__notPatterns':
        for (const pattern of value as string[]) this.#add('string', { pattern });
        return;
      case 'format': {
        // Strings the format does not match; a format that is an annotation always holds.
        const format = String(value);
        if (COMPLEMENTED_FORMATS.has(format)) this.#add('string', { __notFormats: [format] });
        else if (FORMAT_PATTERNS[format] !== undefined) throw new NotNegatable('format', `format ${JSON.stringify(format)} is enforced only in part`);
        else if (UNSUPPORTED_FORMATS.has(format)) throw new NotNegatable('format', `format ${JSON.stringify(format)} is not supported`);
        return;
      }
      case '__notFormats':
        for (const format of value as string[]) this.#add('string', { format });
        return;
      case 'minLength':
      case 'maxLength':
      case 'minProperties':
      case 'maxProperties':
      case 'minItems':
      case 'maxItems': {
        // A count bound fails where the opposite bound, one past it, holds.
        const [kind, opposite] = COUNT_BOUNDS[keyword]!;
        const bound = keyword.startsWith('min') ? count() - 1 : count() + 1;
        if (bound >= 0) this.#add(kind, { [opposite]: bound });
        return;
      }
      case 'required':
        // A required name missing; one `properties` also speaks of fails there in one branch.
        if (Array.isArray(value))
          for (const name of value as string[]) if (this.#declared(name) === undefined) this.#add('object', { properties: { [name]: false } });
        return;
      case 'properties':
        // A member that fails its schema: missing, or there and failing, for a required name.
        for (const [name, member] of Object.entries(value as Record<string, Schema>)) {
          const required = this.#required.has(name);
          if (member === true) {
            if (required) this.#add('object', { properties: { [name]: false } });
          } else {
            this.#add('object', { ...(!required && { required: [name] }), properties: { [name]: { not: member } } });
          }
        }
        return;
      case 'multipleOf':
        for (const m of [value].flat()) this.#add('number', { __notMultipleOf: [m] });
        return;
      case '__notMultipleOf':
        for (const m of value as unknown[]) this.#add('number', { multipleOf: m });
        return;
      case '__stringTests':
      case '__multipleTests':
        // A string (number) that fails one of the tests.
        for (const test of value as Schema[]) this.#add(keyword === '__stringTests' ? 'string' : 'number', { [keyword]: [{ not: test }] });
        return;
      case '__fraction':
        if (this.#numbers !== null) this.#out.push({ type: 'integer' });
        return;
      case '__contains':
        for (const witness of value as Witness[]) {
          const { schema, from } = witness;
          const { min, max } = witnessCounts(witness);
          // Fewer than min items from `from` on hold (min 1: none does), or more than max.
          if (min === 1) this.#add('array', { prefixItems: Array<Schema>(from).fill(true), items: { not: schema } });
          else if (min > 1) this.#add('array', { __contains: [{ schema, from, min: 0, max: min - 1 }] });
          if (max < Infinity) this.#add('array', { __contains: [{ schema, from, min: max + 1 }] });
        }
        return;
      case 'dependentRequired':
      case 'dependentSchemas':
      case 'dependencies':
        for (const [name, dependent] of Object.entries(value as Record<string, unknown>)) {
          if (Array.isArray(dependent)) {
            for (const needed of dependent as string[]) if (needed !== name) this.#add('object', { required: [name], properties: { [needed]: false } });
          } else if (dependent !== true) {
            this.#add('object', { required: [name], not: dependent });
          }
        }
        return;
      case 'additionalProperties':
      case 'patternProperties':
      case 'propertyNames':
      case 'uniqueItems':
      case 'unevaluatedProperties':
      case 'unevaluatedItems':
        if (keyword === 'uniqueItems' ? value !== true : value === true) return;
        // A keyword of a kind the schema's type leaves out fails nothing.
        if (this.#kind(keyword === 'uniqueItems' || keyword === 'unevaluatedItems' ? 'array' : 'object') === null) return;
        if (keyword === 'additionalProperties') {
          // Some member neither declared nor matched has a value that fails it.
          const names = Object.keys((this.schema.properties ?? {}) as object);
          const patterns = Object.keys((this.schema.patternProperties ?? {}) as object);
          this.#add('object', { __someMember: [{ names, patterns, matches: [], keys: [], schema: value === false ? true : { not: value } }] });
          return;
        }
        if (keyword === 'patternProperties') {
          // Some member a pattern matches has a value that fails its schema.
          for (const [match, schema] of Object.entries(value as Record<string, Schema>)) {
            if (schema !== true) this.#add('object', { __someMember: [{ names: [], patterns: [], matches: [match], keys: [], schema: { not: schema } }] });
          }
          return;
        }
        if (keyword === 'propertyNames') {
          this.#propertyNames(value as Schema);
          return;
        }
        throw new NotNegatable(keyword);
      default:
        throw new NotNegatable(keyword);
    }
  }

  // Objects with a member whose name fails `names`: for each branch of its complement among
  // strings, a witness member whose key satisfies it (a branch of any string: some member).
  #propertyNames(names: Schema): void {
    for (const failing of negateSchema(this.compiler, names, this.pointer)) {
      for (const key of this.#keySchemas(failing, 0)) {
        if (Object.keys(key).some((k) => isAssertion(k) && k !== 'type')) {
          this.#add('object', { __someMember: [{ names: [], patterns: [], matches: [], keys: [key], schema: true }] });
        } else {
          this.#add('object', { minProperties: 1 });
        }
        checkBranches(this.compiler, this.#out.length);
      }
    }
  }

  // A schema of names within strings as a union of string schemas a key's regex spells
  // (`KEY_KEYWORDS`): an `anyOf` distributed over the rest, a `not` as the rest less it (the
  // rest with each branch of its complement). Anything else (a oneOf, a conditional) is not
  // negatable here.
  #keySchemas(schema: SchemaObject, depth: number): SchemaObject[] {
    const unsupported: ReportUnsupported = (p, k, m) => this.compiler.unsupported(p, k, m);
    const key = mergeSchemas(schema, { type: 'string' }, this.pointer, unsupported);
    if (key === false) return [];
    const other = Object.keys(key).find((k) => isAssertion(k) && !KEY_KEYWORDS.has(k));
    if (other === undefined) return [key];
    if ((other !== 'anyOf' && other !== 'not') || depth >= MAX_KEY_NESTING) {
      throw new NotNegatable('propertyNames', `a name that fails it is no string schema (${other})`);
    }
    const rest: Record<string, unknown> = { ...key };
    delete rest[other];
    const parts =
      other === 'not'
        ? productOfUnions(this.compiler, rest, [negateSchema(this.compiler, key.not as Schema, this.pointer)], this.pointer)
        : (key.anyOf as Schema[]).flatMap((branch) => {
            const flat = branch === true ? {} : branch === false ? false : this.compiler.flatten(branch, this.pointer);
            const both = flat === false ? false : mergeSchemas(rest, flat, this.pointer, unsupported);
            return both === false ? [] : [both];
          });
    const keys = parts.flatMap((part) => this.#keySchemas(part, depth + 1));
    checkBranches(this.compiler, keys.length);
    return keys;
  }

  // A branch where all of `schemas` hold (flattened: branches never hold an allOf).
  #both(...schemas: Schema[]): void {
    const flat = this.compiler.flatten({ allOf: [this.#anyKind(), ...schemas] }, this.pointer);
    if (flat !== false) this.#out.push(flat);
  }

  // Every branch fails: the product of their complements, within the schema's types; past
  // the cap, the same case by case when a member tells branches apart by its values (within a
  // case, only the branches that case leaves possible).
  #allFail(branches: readonly Schema[]): SchemaObject[] {
    const unions = branches.map((b) => negateSchema(this.compiler, b, this.pointer));
    try {
      return productOfUnions(this.compiler, this.#anyKind(), unions, this.pointer);
    } catch (error) {
      const flat = branches.map((b) => (b === true ? {} : b === false ? false : this.compiler.flatten(b, this.pointer)));
      const possible = flat.filter((b) => b !== false);
      const cases = error instanceof NotNegatable ? discriminatorCases(this.compiler, possible, this.pointer) : null;
      if (cases === null) throw error;
      const unsupported: ReportUnsupported = (p, k, m) => this.compiler.unsupported(p, k, m);
      return cases.flatMap((c) => {
        const seed = mergeSchemas(this.#anyKind(), c, this.pointer, unsupported);
        if (seed === false) return [];
        const open = unions.filter((_, j) => flat[j] !== false && !provablyDisjoint(this.compiler, seed, flat[j] as SchemaObject, this.pointer));
        return productOfUnions(this.compiler, seed, open, this.pointer);
      });
    }
  }

  // Numbers below the lower bound or above the upper one.
  #bounds(): void {
    const lo = lowerBound(this.schema, this.pointer);
    const hi = upperBound(this.schema, this.pointer);
    if (lo.value !== -Infinity) this.#add('number', lo.inclusive ? { exclusiveMaximum: lo.value } : { maximum: lo.value });
    if (hi.value !== Infinity) this.#add('number', hi.inclusive ? { exclusiveMinimum: hi.value } : { minimum: hi.value });
  }

  // Arrays with an item that fails its position's schema: a prefix position, or one of the
  // rest's (a witness of `not` the rest's schema, from the first position past the prefix).
  #items(): void {
    const schema = this.schema;
    const [prefix, rest] = Array.isArray(schema.items)
      ? [schema.items as Schema[], (schema.additionalItems ?? true) as Schema]
      : [(schema.prefixItems ?? []) as Schema[], (schema.items ?? true) as Schema];
    prefix.forEach((item, i) => item !== true && this.#add('array', { minItems: i + 1, prefixItems: [...Array<Schema>(i).fill(true), { not: item }] }));
    if (rest === false) this.#add('array', { minItems: prefix.length + 1 });
    else if (rest !== true) this.#add('array', { __contains: [{ schema: { not: rest }, from: prefix.length }] });
  }
}
