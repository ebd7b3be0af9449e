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
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { ANY } from '../../ir/code-point-sets.ts';
import { GrammarError, GrammarLimitError } from '../../grammar-error.ts';
import { JsonGrammarParts, jsonRegex, type JsonRepetition, type JsonWhitespace } from '../json.ts';
import { regexToByteRegex } from '../regex.ts';
import { GrammarBuilder, MAX_NESTING, MAX_PERMUTATION_MEMBERS, expr, type Expr, type GrammarIR } from '../../ir/grammar-ir.ts';
import { FORMAT_PATTERNS, HOSTNAME_MAX_LENGTH, UNSUPPORTED_FORMATS } from './string-formats.ts';
import { jsonChars, jsonString, jsonStringSpellings } from './json-strings.ts';
import { jsonSchemaOf } from './zod.ts';
import { decimalBounds, intRange, multipleOfRegex, plainDecimal, type Bound } from './numbers.ts';
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError, type SchemaWarning } from './schema-error.ts';
import { SchemaIds } from './schema-ids.ts';
import { validate as validateInstance, type Schema as CfSchema } from '@cfworker/json-schema';

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

type Schema = boolean | SchemaObject;
interface SchemaObject {
  readonly [keyword: string]: unknown;
}
type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';
const ALL_TYPES: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

// Keywords with no effect on validity (annotations, metadata, vendor extensions are ignored
// because they are unknown; these are listed so merges can drop them).
const ANNOTATIONS = new Set(['$schema', '$id', 'id', '$anchor', '$comment', '$defs', 'definitions', 'title', 'description', 'default', 'examples', 'example', 'readOnly', 'writeOnly', 'deprecated', '$vocabulary', 'contentEncoding', 'contentMediaType', 'contentSchema']);
// Assertion keywords this compiler understands.
const KNOWN = new Set([
  'type', 'enum', 'const', '$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef', '$recursiveRef',
]);

/**
 * Compiles a JSON Schema (or a zod 4 schema, through zod's own JSON Schema export) to the
 * Grammar IR. Throws `UnsupportedSchemaError` or `InvalidSchemaError` (both `SchemaError`).
 */
export function jsonSchemaGrammar(schemaOrZod: unknown, options: JsonSchemaOptions = {}): JsonSchemaGrammar {
  const schema = jsonSchemaOf(schemaOrZod);
  checkDocumentDepth(schema);
  const compiler = new SchemaCompiler(schema, options);
  const root = compiler.schemaExpr(schema as Schema, '');
  compiler.parts.builder.rules.set('start', expr.seq([compiler.parts.ws(), root, compiler.parts.ws()]));
  // A schema no instance satisfies is valid: its grammar rejects everything.
  return { grammar: { ...compiler.parts.builder.build('start'), allowEmpty: true }, warnings: compiler.warnings };
}

class SchemaCompiler {
  readonly parts: JsonGrammarParts;
  readonly warnings: SchemaWarning[] = [];
  readonly #refRules = new Map<string, string>();
  // Rules of merged schemas by meaning (`SchemaIds`): a recursive schema reached again through
  // an inlined $ref becomes a recursive rule instead of an endless expansion.
  readonly #mergedRules = new Map<number, string>();
  readonly #ids = new SchemaIds({
    asserts: isAssertion,
    onlyRef: (schema) => this.#onlyRef(schema),
    wellFormed: (schema) => {
      try {
        checkKeywordShapes(schema, '');
        return true;
      } catch {
        return false;
      }
    },
  });
  readonly #ruleCount = new Map<string, number>();
  // Grammar of each schema by meaning (`SchemaIds`).
  readonly #built = new Map<number, Expr>();
  readonly #flattened = new WeakMap<SchemaObject, SchemaObject | false>();
  #hasDynamicRef: boolean | undefined;
  // The draft the validator of enum values reads the schema in.
  readonly #draft: ValidatorDraft;
  #depth = 0;

  constructor(
    readonly root: unknown,
    readonly options: JsonSchemaOptions,
  ) {
    if (typeof root !== 'boolean' && (typeof root !== 'object' || root === null || Array.isArray(root))) {
      throw new InvalidSchemaError('', '', 'a schema must be an object or a boolean');
    }
    this.parts = new JsonGrammarParts(new GrammarBuilder(), { style: 'any', maxRun: 20, ...options.whitespace }, options.repetition);
    this.#draft = validatorDraft(root);
  }

  // ----- entry: any schema -------------------------------------------------------------

  schemaExpr(schema: Schema, pointer: string): Expr {
    const maxRules = this.options.maxRules ?? MAX_SCHEMA_RULES;
    if (this.parts.builder.rules.size > maxRules) throw new GrammarLimitError('maxSchemaRules', maxRules, `the schema expands to more than ${maxRules} grammar rules (maxRules)`);
    return this.#nested(pointer, () => {
      if (schema === true) return this.parts.anyValue();
      if (schema === false) return expr.alt([]);
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new InvalidSchemaError(pointer, '', 'a schema must be an object or a boolean');
      if (typeof schema.$ref === 'string' && this.#onlyRef(schema)) return this.#refExpr(schema.$ref, pointer);
      // A schema reached again (an array's item schema in every position, say), or one that
      // means the same (the same intersection, nested or ordered otherwise), reuses its grammar
      // instead of building a copy.
      const id = this.#ids.of(schema);
      let built = this.#built.get(id);
      if (built === undefined) {
        const merged = this.#flatten(schema, pointer);
        built = merged === false ? expr.alt([]) : schema.$ref !== undefined || schema.allOf !== undefined ? this.#mergedRule(merged, pointer) : this.#branches(merged, pointer);
        this.#built.set(id, built);
      }
      return built;
    });
  }

  // One level deeper into the schema: MAX_NESTING levels at most (a reference cycle through
  // merged schemas, which keeps producing new ones, ends here too, not in a stack overflow).
  #nested<T>(pointer: string, build: () => T): T {
    if (++this.#depth > MAX_NESTING) throw new UnsupportedSchemaError(pointer, '$ref', `schema nesting deeper than ${MAX_NESTING} levels`);
    try {
      return build();
    } finally {
      this.#depth--;
    }
  }

  // Whether a schema is its `$ref` alone: nothing else constrains it, or the draft (4 to 7)
  // says keywords beside a `$ref` are ignored.
  #onlyRef(schema: SchemaObject): boolean {
    if (this.#draft === '4' || this.#draft === '7') return true;
    return Object.keys(schema).every((k) => k === '$ref' || ANNOTATIONS.has(k) || !KNOWN.has(k));
  }

  // A `$ref` becomes a rule of its own, so recursive schemas are recursive rules.
  #refExpr(ref: string, pointer: string): Expr {
    const target = this.#resolve(ref, pointer);
    let name = this.#refRules.get(target.pointer);
    if (name === undefined) {
      name = this.#ruleName(`ref:${target.pointer}`);
      this.#refRules.set(target.pointer, name);
      this.parts.builder.rules.set(name, expr.empty); // reserved for recursion
      this.parts.builder.rules.set(name, this.schemaExpr(target.schema, target.pointer));
    }
    return expr.ref(name);
  }

  #resolve(ref: string, pointer: string): { schema: Schema; pointer: string } {
    if (!ref.startsWith('#')) throw new UnsupportedSchemaError(pointer, '$ref', `only local references ("#…") are supported, not ${JSON.stringify(ref)}`);
    const path = ref.slice(1);
    if (path !== '' && !path.startsWith('/')) {
      // "#name": an $anchor.
      const found = findAnchor(this.root, path.slice(0), '');
      if (found === null) throw new InvalidSchemaError(pointer, '$ref', `no $anchor named ${JSON.stringify(path)}`);
      return found;
    }
    let node: unknown = this.root;
    for (const raw of path === '' ? [] : path.slice(1).split('/')) {
      let key: string;
      try {
        key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is not a valid URI fragment (bad percent-encoding)`);
      }
      if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} points nowhere`);
      node = (node as Record<string, unknown>)[key];
    }
    if (typeof node !== 'boolean' && (typeof node !== 'object' || node === null)) throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is not a schema`);
    return { schema: node as Schema, pointer: path };
  }

  #ruleName(base: string): string {
    const n = (this.#ruleCount.get(base) ?? 0) + 1;
    this.#ruleCount.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  // A keyword met more than once (a $ref used twice, a merged allOf) is reported once.
  #unsupported(pointer: string, keyword: string, message: string): void {
    if (!this.options.lenient) throw new UnsupportedSchemaError(pointer, keyword, message);
    if (!this.warnings.some((w) => w.pointer === pointer && w.keyword === keyword && w.message === message)) this.warnings.push({ pointer, keyword, message });
  }

  // ----- normalization -------------------------------------------------------------------

  // Resolves `$ref` and `allOf` into one merged schema (false when it can match nothing).
  // A schema object reached again (through many `$ref`s, say) is flattened once.
  #flatten(schema: SchemaObject, pointer: string): SchemaObject | false {
    let flat = this.#flattened.get(schema);
    if (flat === undefined) this.#flattened.set(schema, (flat = this.#flattenOnce(schema, pointer)));
    return flat;
  }

  #flattenOnce(schema: SchemaObject, pointer: string): SchemaObject | false {
    const parts: [SchemaObject, string][] = [];
    if (!this.#conjuncts(schema, pointer, 0, { schemas: new Set(), parts: new Set(), path: new Set() }, parts)) return false;
    let result: SchemaObject = {};
    for (const [part, at] of parts) {
      const merged = mergeSchemas(result, part, at, (p, k, m) => this.#unsupported(p, k, m));
      if (merged === false) return false;
      result = merged;
    }
    return result;
  }

  // Collects what a schema intersects into `parts`: its own keywords, then the conjuncts of
  // its `$ref`'s target and of its `allOf` members, each schema once by meaning (`SchemaIds`),
  // so an intersection merges the same parts however its `allOf`s nest and repeat. False when
  // one of them is `false`.
  #conjuncts(schema: Schema, pointer: string, depth: number, seen: ConjunctsSeen, parts: [SchemaObject, string][]): boolean {
    if (schema === true) return true;
    if (schema === false) return false;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new InvalidSchemaError(pointer, '', 'a schema must be an object or a boolean');
    if (depth > 50 || seen.path.has(schema)) throw new UnsupportedSchemaError(pointer, '$ref', 'references with sibling keywords nest more than 50 levels (a cycle?)');
    const id = this.#ids.of(schema);
    if (seen.schemas.has(id)) return true;
    checkKeywordShapes(schema, pointer);
    seen.path.add(schema);
    try {
      const target = typeof schema.$ref === 'string' ? this.#resolve(schema.$ref, pointer) : null;
      if (target !== null && this.#onlyRef(schema)) {
        if (!this.#conjuncts(target.schema, target.pointer, depth + 1, seen, parts)) return false;
        seen.schemas.add(id);
        return true;
      }
      const own: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema)) if (k !== 'allOf' && k !== '$ref') own[k] = v;
      const ownId = this.#ids.of(own);
      if (!seen.parts.has(ownId)) {
        seen.parts.add(ownId);
        parts.push([own, pointer]);
      }
      if (target !== null && !this.#conjuncts(target.schema, target.pointer, depth + 1, seen, parts)) return false;
      if (schema.allOf !== undefined) {
        if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) throw new InvalidSchemaError(pointer, 'allOf', 'allOf must be a non-empty array');
        const at = pointerJoin(pointer, 'allOf');
        if (!schema.allOf.every((member, i) => this.#conjuncts(member as Schema, pointerJoin(at, i), depth + 1, seen, parts))) return false;
      }
      // (Marked when done: a member may mean what the whole does, as in `allOf: [{$ref: …}]`.)
      seen.schemas.add(id);
      return true;
    } finally {
      seen.path.delete(schema);
    }
  }

  // enum / const (a finite language: each value checked against everything else); else
  // anyOf / oneOf distribute over their siblings; then `not`; then types.
  #branches(schema: SchemaObject, pointer: string): Expr {
    if (schema.enum !== undefined || schema.const !== undefined) return this.#enumExpr(schema, pointer);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (branches === undefined) continue;
      if (!Array.isArray(branches) || branches.length === 0) throw new InvalidSchemaError(pointer, keyword, `${keyword} must be a non-empty array`);
      const rest: Record<string, unknown> = { ...schema };
      delete rest[keyword];
      const merged: SchemaObject[] = [];
      branches.forEach((branch, i) => {
        const at = pointerJoin(pointerJoin(pointer, keyword), i);
        const flat = branch === true ? {} : branch === false ? false : this.#flatten(branch as SchemaObject, at);
        const both = flat === false ? false : mergeSchemas(rest, flat, at, (p, k, m) => this.#unsupported(p, k, m));
        if (both !== false) merged.push(both);
      });
      const alternatives = keyword === 'oneOf' ? this.#exclusiveBranches(merged, pointer) : merged;
      // (Not through schemaExpr: the level is counted here.)
      return expr.alt(alternatives.map((b) => this.#nested(pointer, () => this.#mergedRule(b, pointer))));
    }
    if (schema.not !== undefined) return this.#withNot(schema, pointer);
    this.#checkUnsupported(schema, pointer);
    const types = allowedTypes(schema, pointer);
    const alternatives: Expr[] = [];
    for (const type of types) {
      if (type === 'integer' && types.includes('number')) continue;
      alternatives.push(this.#typeExpr(type, schema, pointer));
    }
    return expr.alt(alternatives);
  }

  // oneOf as a union: kind by kind (null, boolean, object, array, string, number), an
  // instance of a kind that two branches accept whole is in neither; otherwise the branches
  // that constrain the kind must be provably disjoint on it. Returns each branch restricted
  // to the kinds it keeps.
  #exclusiveBranches(branches: readonly SchemaObject[], pointer: string): SchemaObject[] {
    const kept = branches.map(() => new Set<JsonType>());
    for (const kind of KINDS) {
      const statuses = branches.map((b) => kindStatus(b, kind, pointer));
      const whole = statuses.filter((s) => s === 'all').length;
      const partial = statuses.flatMap((s, i) => (s === 'some' ? [i] : []));
      if (whole >= 2) continue; // every instance of this kind is in two branches
      const overlap = whole === 1 ? partial.length > 0 : partial.length > 1 && !this.#pairwiseDisjoint(partial.map((i) => branches[i]!), kind, pointer);
      if (overlap) this.#unsupported(pointer, 'oneOf', `oneOf branches that may overlap on ${kind}s cannot be enforced exactly (only provably disjoint branches are)`);
      statuses.forEach((s, i) => s !== 'none' && kept[i]!.add(kind));
    }
    const out: SchemaObject[] = [];
    branches.forEach((b, i) => {
      if (kept[i]!.size === 0) return;
      const restricted = kept[i]!.size === KINDS.length ? b : mergeSchemas(b, { type: [...kept[i]!] }, pointer, (p, k, m) => this.#unsupported(p, k, m));
      if (restricted !== false) out.push(restricted);
    });
    return out;
  }

  // Whether the schemas, restricted to one kind, are pairwise disjoint.
  #pairwiseDisjoint(schemas: readonly SchemaObject[], kind: JsonType, pointer: string): boolean {
    const restricted = schemas.map((s) => mergeSchemas(s, { type: [kind] }, pointer, (p, k, m) => this.#unsupported(p, k, m)));
    return restricted.every((a, i) => a === false || restricted.slice(i + 1).every((b) => b === false || this.#disjoint(a, b, pointer)));
  }

  // Whether no instance satisfies both schemas, proven from: their types; the values of an
  // enum / const (each checked against the other schema); a property both require whose
  // schemas are disjoint; a property one requires that the other forbids; disjoint number
  // ranges. False means "not proven".
  #disjoint(a: SchemaObject, b: SchemaObject, pointer: string, depth = 0): boolean {
    if (depth > 8) return false;
    const typesOf = (s: SchemaObject): Set<JsonType> => {
      const set = new Set(allowedTypes(s, pointer));
      if (set.has('number')) set.add('integer');
      return set;
    };
    const ta = typesOf(a);
    const tb = typesOf(b);
    const shared = [...ta].filter((t) => tb.has(t));
    if (shared.length === 0) return true;
    for (const [x, y] of [[a, b], [b, a]] as const) {
      const values = x.const !== undefined ? [x.const] : Array.isArray(x.enum) ? x.enum : null;
      if (values === null) continue;
      const own = standardSchema(x);
      const both = values.filter((v) => this.#validates(own, v, pointer));
      const other = standardSchema(y);
      return !both.some((v) => this.#validates(other, v, pointer));
    }
    const numeric = (t: JsonType): boolean => t === 'number' || t === 'integer';
    if (shared.every(numeric)) {
      const [la, ha, lb, hb] = [lowerBound(a, pointer), upperBound(a, pointer), lowerBound(b, pointer), upperBound(b, pointer)];
      const below = (hi: Bound, lo: Bound): boolean => hi.value < lo.value || (hi.value === lo.value && !(hi.inclusive && lo.inclusive));
      if (below(ha, lb) || below(hb, la)) return true;
    }
    if (shared.length === 1 && shared[0] === 'object') {
      const required = (s: SchemaObject): string[] => (Array.isArray(s.required) ? (s.required as string[]) : []);
      const property = (s: SchemaObject, name: string): Schema | undefined => {
        const props = (s.properties ?? {}) as Record<string, Schema>;
        if (Object.hasOwn(props, name)) return props[name];
        if (s.patternProperties !== undefined) return undefined;
        return s.additionalProperties as Schema | undefined;
      };
      for (const [x, y] of [[a, b], [b, a]] as const) {
        for (const name of required(x)) {
          const px = property(x, name);
          const py = property(y, name);
          if (py === false) return true;
          if (!required(y).includes(name) || px === undefined || py === undefined || typeof px === 'boolean' || typeof py === 'boolean') continue;
          const fx = this.#flatten(px, pointer);
          const fy = this.#flatten(py, pointer);
          if (fx === false || fy === false || this.#disjoint(fx, fy, pointer, depth + 1)) return true;
        }
      }
    }
    return false;
  }

  #mergedRule(schema: SchemaObject, pointer: string): Expr {
    const key = this.#ids.of(schema, true);
    let name = this.#mergedRules.get(key);
    if (name === undefined) {
      name = this.#ruleName(`merged:${pointer}`);
      this.#mergedRules.set(key, name);
      this.parts.builder.rules.set(name, expr.empty); // reserved for recursion
      this.parts.builder.rules.set(name, this.#branches(schema, pointer));
    }
    return expr.ref(name);
  }

  #checkUnsupported(schema: SchemaObject, pointer: string): void {
    const unsupported: [string, string][] = [
      ['if', 'if/then/else is not supported'],
      ['unevaluatedProperties', 'unevaluatedProperties is not supported'],
      ['unevaluatedItems', 'unevaluatedItems is not supported'],
      ['$dynamicRef', '$dynamicRef is not supported'],
      ['$recursiveRef', '$recursiveRef is not supported'],
      ['contains', 'contains is not supported'],
    ];
    for (const [keyword, message] of unsupported) if (schema[keyword] !== undefined) this.#unsupported(pointer, keyword, message);
  }

  // `not` of a type list or of constants: removes types or values; anything else unsupported.
  #withNot(schema: SchemaObject, pointer: string): Expr {
    const rest: Record<string, unknown> = { ...schema };
    const not = schema.not;
    delete rest.not;
    const at = pointerJoin(pointer, 'not');
    if (not === true) return expr.alt([]);
    if (not === false) return this.#branches(rest, pointer);
    const n = not as SchemaObject;
    const keys = Object.keys(n).filter((k) => !ANNOTATIONS.has(k) && KNOWN.has(k));
    if (keys.length === 1 && keys[0] === 'type') {
      const excluded = new Set(typeList(n.type, at));
      if (excluded.has('number')) excluded.add('integer');
      const kept = allowedTypes(rest, pointer).filter((t) => !excluded.has(t));
      if (excluded.has('integer') && !excluded.has('number') && kept.includes('number')) {
        this.#unsupported(pointer, 'not', 'not {type: integer} of numbers (non-integers only) is not supported');
      }
      return this.#branches({ ...rest, type: kept.length > 0 ? kept : [] }, pointer);
    }
    if (keys.length === 1 && (keys[0] === 'enum' || keys[0] === 'const')) {
      const values = keys[0] === 'const' ? [n.const] : (n.enum as unknown[]);
      return this.#branches({ ...rest, __notValues: values }, pointer);
    }
    this.#unsupported(pointer, 'not', 'only `not` of a type or of constants is supported');
    return this.#branches(rest, pointer);
  }

  // enum / const: the literal values the rest of the schema accepts. With a finite set of
  // candidates every keyword can be decided exactly by validating each value, so here even
  // keywords the grammar cannot express (if/then, uniqueItems, not, oneOf, …) are supported.
  #enumExpr(schema: SchemaObject, pointer: string): Expr {
    let values: unknown[];
    if (schema.const !== undefined) values = [schema.const];
    else if (Array.isArray(schema.enum)) values = schema.enum;
    else throw new InvalidSchemaError(pointer, 'enum', 'enum must be an array');
    if (schema.const !== undefined && Array.isArray(schema.enum)) values = values.filter((v) => (schema.enum as unknown[]).some((e) => jsonEqual(e, v)));
    const rest: Record<string, unknown> = { ...schema };
    delete rest.enum;
    delete rest.const;
    if (Object.keys(rest).some(isAssertion)) {
      if ((this.#hasDynamicRef ??= containsKeyword(this.root, '$dynamicRef'))) this.#unsupported(pointer, '$dynamicRef', '$dynamicRef is not supported');
      const check = standardSchema(rest);
      values = values.filter((v) => this.#validates(check, v, pointer));
    }
    const unique: unknown[] = [];
    for (const v of values) if (!unique.some((u) => jsonEqual(u, v))) unique.push(v);
    return expr.alt(unique.map((v) => this.#valueExpr(v)));
  }

  // Whether a concrete value satisfies a schema (an exact validator; local $refs resolve
  // against the root document).
  #validates(schema: SchemaObject, value: unknown, pointer: string): boolean {
    // Local `$ref`s resolve as the compiler resolves them (a dangling one is an error here).
    const lookup = new Proxy({} as Record<string, CfSchema>, {
      get: (_, key) => (typeof key === 'string' && key.startsWith('#') ? (this.#resolve(key, pointer).schema as CfSchema) : undefined),
    });
    try {
      return validateInstance(value, schema as CfSchema, this.#draft, lookup, true).valid;
    } catch (error) {
      if (error instanceof GrammarError) throw error;
      throw new InvalidSchemaError(pointer, 'enum', `cannot check the enum values: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  // The JSON text of one value: literals for scalars, structure (with whitespace) otherwise.
  #valueExpr(value: unknown): Expr {
    const parts = this.parts;
    if (value === null || typeof value === 'boolean') return parts.token(String(value));
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return expr.alt([]);
      // A number literal in plain decimal notation (1 and 1.0 are the same number; Python
      // writes floats with ".0").
      const { negative, int, fraction } = plainDecimal(value);
      const plain = regexToByteRegex(`${negative ? '-' : value === 0 ? '-?' : ''}${int}${fraction === '' ? '(?:\\.0+)?' : `\\.${fraction}0*`}`);
      const text = JSON.stringify(value);
      return parts.lexeme(text, text.includes('e') ? rx.alt([plain, rx.literal(text)]) : plain);
    }
    if (typeof value === 'string') return parts.lexeme(JSON.stringify(value), jsonStringSpellings(value));
    if (Array.isArray(value)) {
      if (value.length === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
      const items: Expr[] = [];
      value.forEach((v, i) => {
        if (i > 0) items.push(parts.itemSeparator());
        items.push(this.#valueExpr(v));
      });
      return expr.seq([parts.token('['), parts.ws(), ...items, parts.ws(), parts.token(']')]);
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return expr.seq([parts.token('{'), parts.ws(), parts.token('}')]);
    const items: Expr[] = [];
    entries.forEach(([k, v], i) => {
      if (i > 0) items.push(parts.itemSeparator());
      items.push(parts.lexeme(JSON.stringify(k), jsonStringSpellings(k)), parts.keySeparator(), this.#valueExpr(v));
    });
    return expr.seq([parts.token('{'), parts.ws(), ...items, parts.ws(), parts.token('}')]);
  }

  // ----- types ---------------------------------------------------------------------------

  #typeExpr(type: JsonType, schema: SchemaObject, pointer: string): Expr {
    const excluded = (schema.__notValues as unknown[] | undefined) ?? [];
    switch (type) {
      case 'null':
        return excluded.some((v) => v === null) ? expr.alt([]) : this.parts.token('null');
      case 'boolean':
        return expr.alt([true, false].filter((b) => !excluded.some((v) => v === b)).map((b) => this.parts.token(String(b))));
      case 'string':
        return this.parts.lexeme('STRING', this.#stringRegex(schema, pointer, excluded), pointer);
      case 'integer':
      case 'number':
        if (excluded.some((v) => typeof v === 'number')) this.#unsupported(pointer, 'not', '`not` of numeric constants is not supported');
        return this.parts.lexeme(type === 'integer' ? 'INTEGER' : 'NUMBER', this.#numberRegex(type, schema, pointer), pointer);
      case 'array':
        if (excluded.some((v) => Array.isArray(v))) this.#unsupported(pointer, 'not', '`not` of array constants is not supported');
        return this.#arrayExpr(schema, pointer);
      case 'object':
        if (excluded.some((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) this.#unsupported(pointer, 'not', '`not` of object constants is not supported');
        return this.#objectExpr(schema, pointer);
    }
  }

  /** The content of a string (inside the quotes) that the string keywords allow. */
  #stringContent(schema: SchemaObject, pointer: string): ByteRegex {
    const parts: ByteRegex[] = [];
    const minLength = nonNegativeInt(schema.minLength, pointer, 'minLength') ?? 0;
    const maxLength = capped(nonNegativeInt(schema.maxLength, pointer, 'maxLength'), this.parts.caps.maxStringLength, minLength);
    parts.push(rx.repeat(jsonChars(ANY), minLength, maxLength));
    for (const pattern of schema.pattern === undefined ? [] : [schema.pattern].flat()) {
      if (typeof pattern !== 'string') throw new InvalidSchemaError(pointer, 'pattern', 'pattern must be a string');
      parts.push(this.#pattern(pattern, 'search', pointer, 'pattern'));
    }
    if (schema.format !== undefined) {
      const format = String(schema.format);
      const source = FORMAT_PATTERNS[format];
      if (source !== undefined) {
        parts.push(this.#pattern(source, 'match', pointer, 'format'));
        if (format === 'hostname') parts.push(rx.repeat(jsonChars(ANY), 1, HOSTNAME_MAX_LENGTH));
      } else if (UNSUPPORTED_FORMATS.has(format)) {
        this.#unsupported(pointer, 'format', `format ${JSON.stringify(format)} is not supported`);
      }
      // Unknown formats are annotations (2020-12): they do not constrain.
    }
    return rx.and(parts);
  }

  #pattern(source: string, mode: 'match' | 'search', pointer: string, keyword: string): ByteRegex {
    try {
      return regexToByteRegex(source, { mode, flags: 'u', encodeChars: jsonChars });
    } catch (error) {
      if (error instanceof GrammarError) {
        if (error.code === 'invalid_regex') throw new InvalidSchemaError(pointer, keyword, `invalid regex: ${error.message}`);
        this.#unsupported(pointer, keyword, error.message);
        return rx.repeat(jsonChars(ANY), 0, Infinity);
      }
      throw error;
    }
  }

  #stringRegex(schema: SchemaObject, pointer: string, excluded: readonly unknown[]): ByteRegex {
    const content = jsonString(this.#stringContent(schema, pointer));
    const notStrings = excluded.filter((v): v is string => typeof v === 'string');
    if (notStrings.length === 0) return content;
    return rx.and([content, rx.not(rx.alt(notStrings.map((s) => jsonStringSpellings(s))))]);
  }

  #numberRegex(type: 'integer' | 'number', schema: SchemaObject, pointer: string): ByteRegex {
    const lo = lowerBound(schema, pointer);
    const hi = upperBound(schema, pointer);
    for (const [bound, keyword] of [[lo, 'minimum'], [hi, 'maximum']] as const) {
      if (Number.isFinite(bound.value) && Math.abs(bound.value) > Number.MAX_SAFE_INTEGER) {
        this.#unsupported(pointer, keyword, 'numeric bounds beyond 2^53 in magnitude are not supported');
      }
    }
    const parts: ByteRegex[] = [];
    if (schema.multipleOf !== undefined) {
      const m = schema.multipleOf;
      if (typeof m !== 'number' || !(m > 0)) throw new InvalidSchemaError(pointer, 'multipleOf', 'multipleOf must be a positive number');
      const multiples = multipleOfRegex(m);
      if (multiples === null) this.#unsupported(pointer, 'multipleOf', `multipleOf ${m} is not supported (powers of ten such as 0.01 or 100, and integers 2^a·5^b such as 2, 5, 25 are)`);
      else parts.push(regexToByteRegex(multiples));
    }
    const bounded = lo.value !== -Infinity || hi.value !== Infinity;
    if (type === 'integer') {
      // Integers: an exact digit pattern for [lo, hi]; from draft 6 on, 3.0 is 3 too.
      const low = lo.value === -Infinity ? -Infinity : lo.inclusive ? Math.ceil(lo.value) : Math.floor(lo.value) + 1;
      const high = hi.value === Infinity ? Infinity : hi.inclusive ? Math.floor(hi.value) : Math.ceil(hi.value) - 1;
      const range = bounded ? intRange(low, high) : '-?(?:0|[1-9]\\d*)';
      if (range === null) return rx.nothing;
      const fractions = this.options.integerFractions !== false && this.#draft !== '4';
      parts.push(regexToByteRegex(fractions ? `(?:${range})(?:\\.0+)?` : range));
    } else if (bounded || parts.length > 0) {
      // Bounded numbers and multiples are exact in plain decimal notation (no exponent).
      parts.push(jsonRegex.number(), ...decimalBounds(lo, hi).map((bound) => regexToByteRegex(bound)));
    } else {
      return jsonRegex.number();
    }
    return parts.length === 1 ? parts[0]! : rx.and(parts);
  }

  // ----- arrays --------------------------------------------------------------------------

  #arrayExpr(schema: SchemaObject, pointer: string): Expr {
    const parts = this.parts;
    // 2020-12: prefixItems + items; drafts 4-7: items (array) + additionalItems.
    let prefix: Schema[] = [];
    let rest: Schema = true;
    let prefixPointer = pointerJoin(pointer, 'prefixItems');
    let restPointer = pointerJoin(pointer, 'items');
    if (Array.isArray(schema.prefixItems)) prefix = schema.prefixItems as Schema[];
    if (Array.isArray(schema.items)) {
      prefix = schema.items as Schema[];
      prefixPointer = pointerJoin(pointer, 'items');
      restPointer = pointerJoin(pointer, 'additionalItems');
      if (schema.additionalItems !== undefined) rest = schema.additionalItems as Schema;
    } else if (schema.items !== undefined) {
      rest = schema.items as Schema;
    }
    const minItems = nonNegativeInt(schema.minItems, pointer, 'minItems') ?? 0;
    let maxItems = capped(nonNegativeInt(schema.maxItems, pointer, 'maxItems'), this.parts.caps.maxItems, minItems);
    if (rest === false) maxItems = Math.min(maxItems, prefix.length);
    if (minItems > maxItems) return expr.alt([]);
    if (schema.uniqueItems === true && maxItems > 1) {
      this.#unsupported(pointer, 'uniqueItems', 'uniqueItems cannot be enforced by a grammar (except with maxItems ≤ 1)');
    }
    // Each distinct item schema is built once (schemaExpr reuses it).
    const item = (i: number): Expr => (i < prefix.length ? this.schemaExpr(prefix[i]!, pointerJoin(prefixPointer, i)) : this.schemaExpr(rest, restPointer));
    const sep = parts.itemSeparator();
    // Items from position i on, at least `min` of them in all, given i already written.
    const from = (i: number, min: number): Expr => {
      if (i >= maxItems) return expr.empty;
      const first = i === 0 ? item(i) : expr.seq([sep, item(i)]);
      if (i >= prefix.length) {
        // The rest: one schema repeated up to maxItems in all.
        const more = expr.repeat(expr.seq([sep, item(i)]), Math.max(0, min - i - 1), maxItems - i - 1);
        const list = expr.seq([first, more]);
        return i >= min ? expr.alt([list, expr.empty]) : list;
      }
      const here = expr.seq([first, from(i + 1, min)]);
      return i >= min ? expr.alt([here, expr.empty]) : here;
    };
    if (maxItems === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
    // `[ ws (items ws)? ]`: whitespace before `]` only after an item, so runs never double.
    const items = expr.seq([from(0, Math.max(1, minItems)), parts.ws()]);
    return expr.seq([parts.token('['), parts.ws(), minItems === 0 ? expr.alt([items, expr.empty]) : items, parts.token(']')]);
  }

  // ----- objects -------------------------------------------------------------------------

  #objectExpr(schema: SchemaObject, pointer: string): Expr {
    const parts = this.parts;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (typeof properties !== 'object' || Array.isArray(properties)) throw new InvalidSchemaError(pointer, 'properties', 'properties must be an object');
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const additional: Schema = schema.additionalProperties !== undefined ? (schema.additionalProperties as Schema) : this.options.strict ? false : true;
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>);
    const minProperties = nonNegativeInt(schema.minProperties, pointer, 'minProperties') ?? 0;
    const maxProperties = capped(nonNegativeInt(schema.maxProperties, pointer, 'maxProperties'), this.parts.caps.maxProperties, Math.max(minProperties, required.size));

    // Declared members, in order; required names not declared are members too.
    const names = Object.keys(properties);
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) {
        if (additional === false && !patterns.some(([p]) => safeTest(p, name))) return expr.alt([]);
        names.push(name);
      }
    }
    // dependentRequired (and the array form of draft 4-7 `dependencies`): names it mentions
    // are members too, so the parser knows when they are written.
    const { dependencies, exclusive } = this.#dependentRequired(schema, pointer);
    if ((dependencies.size > 0 || exclusive.length > 0) && (minProperties > 0 || maxProperties !== Infinity)) {
      this.#unsupported(pointer, 'dependentRequired', 'dependentRequired together with minProperties/maxProperties is not supported');
      dependencies.clear(); // lenient: left unenforced
      exclusive.length = 0;
    }
    const named = new Set(names);
    for (const n of [...dependencies].flatMap(([name, needs]) => [name, ...needs]).concat(exclusive.flat())) {
      if (!named.has(n)) {
        named.add(n);
        names.push(n);
      }
    }
    // A member's value satisfies its `properties` schema and every pattern its name matches;
    // a name neither declared nor matched takes the additional schema.
    const declaredSchema = (name: string): Schema => {
      const matched = matchingSchemas(patterns, name) as Schema[];
      const all = Object.hasOwn(properties, name) ? [properties[name]!, ...matched] : matched.length > 0 ? matched : [additional];
      return all.length === 1 ? all[0]! : { allOf: all };
    };
    const keyRegex = this.#keyRegex(schema, pointer);
    const base = this.#ruleName(`object:${pointer}`);
    // Each member is a rule of its own, built once and referenced from every place it may go.
    const spellings = new Map(names.map((name) => [name, jsonStringSpellings(name)]));
    const keyLexeme = (name: string): Expr => {
      const key = spellings.get(name)!;
      return parts.lexeme(JSON.stringify(name), keyRegex === null ? key : rx.and([key, keyRegex]));
    };
    const memberRules = new Map<string, Expr>();
    const member = (name: string): Expr => {
      let ref = memberRules.get(name);
      if (ref === undefined) {
        const rule = `${base}.${memberRules.size}`;
        parts.builder.rules.set(rule, expr.seq([keyLexeme(name), parts.keySeparator(), this.schemaExpr(declaredSchema(name), pointerJoin(pointerJoin(pointer, 'properties'), name))]));
        memberRules.set(name, (ref = expr.ref(rule)));
      }
      return ref;
    };

    // Other members: keys not declared, matched by a pattern or else the additional schema.
    // Any string but the declared names (no pattern, no propertyNames, no length cap) is a
    // string lexeme that excludes the names' lexemes (`LexemeDef.excludes`: exact there, as
    // every unfinished string still has endings that are no name); otherwise the key is the
    // intersection with the names' complement, built as one automaton.
    const others: Expr[] = [];
    const excluding = names.length > 0 && patterns.length === 0 && keyRegex === null && this.parts.caps.maxStringLength === Infinity;
    const declared = excluding ? names.map(keyLexeme) : undefined;
    const notDeclared = names.length === 0 || excluding ? null : rx.not(rx.alt([...spellings.values()]));
    // (Spelled as the names are, `jsonChars`: a key that decodes to a declared name is one of
    // its spellings, so it is that member's, never another key.)
    const keyParts = (extra: ByteRegex | null): ByteRegex => rx.and([jsonString(rx.repeat(jsonChars(ANY), 0, this.parts.caps.maxStringLength)), ...(notDeclared ? [notDeclared] : []), ...(keyRegex ? [keyRegex] : []), ...(extra ? [extra] : [])]);
    const patternRegexes = patterns.map(([p]) => jsonString(this.#pattern(p, 'search', pointer, 'patternProperties')));
    if (patterns.length > 1) this.#unsupported(pointer, 'patternProperties', 'more than one pattern in patternProperties is not supported');
    patterns.forEach(([p, s], i) => {
      others.push(expr.seq([parts.lexeme(`/${p}/`, keyParts(patternRegexes[i]!)), parts.keySeparator(), this.schemaExpr(s, pointerJoin(pointerJoin(pointer, 'patternProperties'), p))]));
    });
    if (additional !== false) {
      const unmatched = patternRegexes.length === 0 ? null : rx.not(rx.alt(patternRegexes));
      others.push(expr.seq([parts.lexeme('KEY', keyParts(unmatched), undefined, declared), parts.keySeparator(), this.schemaExpr(additional, pointerJoin(pointer, 'additionalProperties'))]));
    }
    let other: Expr | null = null;
    if (others.length > 0) {
      parts.builder.rules.set(`${base}.other`, expr.alt(others));
      other = expr.ref(`${base}.other`);
    }

    const object = (body: Expr): Expr => expr.seq([parts.token('{'), parts.ws(), body, parts.token('}')]);
    if (names.length <= MAX_PERMUTATION_MEMBERS) {
      // Declared properties in any order, each at most once; other members anywhere. The
      // parser builds the states (which are written, how many) a parse reaches, lazily.
      const rule = `${base}@`;
      const index = new Map(names.map((name, i) => [name, i]));
      parts.builder.permutations.set(rule, {
        members: names.map(member),
        required: names.flatMap((name, i) => (required.has(name) ? [i] : [])),
        other,
        min: minProperties,
        max: maxProperties,
        separator: parts.itemSeparator(),
        // Whitespace before `}` only after a member, so runs never double up.
        close: parts.ws(),
        ...(dependencies.size > 0 && { dependencies: new Map([...dependencies].map(([name, needs]) => [index.get(name)!, needs.map((n) => index.get(n)!)])) }),
        ...(exclusive.length > 0 && { exclusive: exclusive.map((set) => set.map((n) => index.get(n)!)) }),
      });
      return object(expr.ref(rule));
    }
    if (dependencies.size > 0 || exclusive.length > 0) this.#unsupported(pointer, 'dependentRequired', `dependentRequired on an object of more than ${MAX_PERMUTATION_MEMBERS} properties is not supported`);
    // Very many declared properties: in `properties` order (optional ones may be left out),
    // then other members. Members written so far are counted up to `cap` (at least 1, which
    // decides whether a separator comes first).
    const cap = maxProperties === Infinity ? Math.max(minProperties, 1) : maxProperties + 1;
    const next = (count: number): number => Math.min(count + 1, cap);
    const sep = parts.itemSeparator();
    const after = (count: number, item: Expr): Expr => (count > 0 ? expr.seq([sep, item]) : item);
    const close = (count: number): Expr => (count > 0 ? parts.ws() : expr.empty);
    const ruleName = (i: number, count: number): string => `${base}@${i},${count}`;
    const body = (i: number, count: number): Expr => {
      if (i === names.length) {
        // Other members: between min and max in total.
        const lo = Math.max(0, minProperties - count);
        const hi = maxProperties - count;
        if (hi < 0 || (lo > 0 && (other === null || hi === 0))) return expr.alt([]);
        if (other === null || hi === 0) return close(count);
        const more = expr.seq([sep, other]);
        if (count > 0) return expr.seq([expr.repeat(more, lo, hi), parts.ws()]);
        const list = expr.seq([other, expr.repeat(more, Math.max(0, lo - 1), hi - 1), parts.ws()]);
        return lo === 0 ? expr.alt([list, expr.empty]) : list;
      }
      const name = names[i]!;
      const present = expr.seq([after(count, member(name)), expr.ref(ruleName(i + 1, next(count)))]);
      return required.has(name) ? present : expr.alt([present, expr.ref(ruleName(i + 1, count))]);
    };
    // Built from the last property back, so no recursion grows with the property count.
    for (let i = names.length; i >= 0; i--) {
      for (let count = 0; count <= cap; count++) parts.builder.rules.set(ruleName(i, count), body(i, count));
    }
    return object(expr.ref(ruleName(0, 0)));
  }

  // dependentRequired, and draft 4-7 `dependencies` whose values are arrays, as name → names
  // it requires; `dependencies`/`dependentSchemas` of the form `{not: {required: [...]}}` as
  // sets of names that may not all be present. Other dependent schemas are unsupported.
  #dependentRequired(schema: SchemaObject, pointer: string): { dependencies: Map<string, string[]>; exclusive: string[][] } {
    const result = new Map<string, string[]>();
    const exclusive: string[][] = [];
    const exclusiveSet = (name: string, dependent: unknown): string[] | null => {
      if (typeof dependent !== 'object' || dependent === null) return null;
      const keys = Object.keys(dependent).filter((k) => KNOWN.has(k));
      const not = (dependent as SchemaObject).not as SchemaObject | undefined;
      if (keys.length !== 1 || keys[0] !== 'not' || typeof not !== 'object' || not === null) return null;
      const notKeys = Object.keys(not).filter((k) => KNOWN.has(k));
      if (notKeys.length !== 1 || notKeys[0] !== 'required' || !Array.isArray(not.required) || not.required.some((n) => typeof n !== 'string')) return null;
      return [...new Set([name, ...(not.required as string[])])];
    };
    if (schema.dependentSchemas !== undefined && typeof schema.dependentSchemas === 'object' && schema.dependentSchemas !== null) {
      const entries = Object.entries(schema.dependentSchemas);
      const sets = entries.map(([name, dependent]) => exclusiveSet(name, dependent));
      if (sets.every((set) => set !== null)) exclusive.push(...(sets as string[][]));
      else this.#unsupported(pointer, 'dependentSchemas', 'dependentSchemas is only supported as {not: {required: [...]}}');
    }
    for (const keyword of ['dependentRequired', 'dependencies'] as const) {
      const value = schema[keyword];
      if (value === undefined) continue;
      const at = pointerJoin(pointer, keyword);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidSchemaError(pointer, keyword, `${keyword} must be an object`);
      for (const [name, needs] of Object.entries(value)) {
        if (!Array.isArray(needs)) {
          if (keyword === 'dependentRequired') throw new InvalidSchemaError(at, keyword, 'dependentRequired values must be arrays of property names');
          const set = exclusiveSet(name, needs);
          if (set !== null) exclusive.push(set);
          else this.#unsupported(pointer, keyword, 'dependencies with a schema is only supported as {not: {required: [...]}}');
          continue;
        }
        if (needs.some((n) => typeof n !== 'string')) throw new InvalidSchemaError(at, keyword, `${keyword} lists must hold property names`);
        result.set(name, [...new Set([...(result.get(name) ?? []), ...(needs as string[]).filter((n) => n !== name)])]);
      }
    }
    return { dependencies: result, exclusive };
  }

  // propertyNames as a key regex (string schemas only), or null.
  #keyRegex(schema: SchemaObject, pointer: string): ByteRegex | null {
    const names = schema.propertyNames;
    if (names === undefined || names === true) return null;
    if (names === false) return rx.nothing;
    const at = pointerJoin(pointer, 'propertyNames');
    const flat = this.#flatten(names as SchemaObject, at);
    if (flat === false) return rx.nothing;
    const keys = Object.keys(flat).filter((k) => KNOWN.has(k));
    if (keys.some((k) => !PROPERTY_NAME_KEYWORDS.has(k)) || (flat.type !== undefined && !typeList(flat.type, at).includes('string'))) {
      this.#unsupported(at, 'propertyNames', 'propertyNames must be a string schema (type, length, pattern, format, enum, const)');
      return null;
    }
    const content = jsonString(this.#stringContent(flat, at));
    if (flat.enum === undefined && flat.const === undefined) return content;
    const values = (flat.const !== undefined ? [flat.const] : (flat.enum as unknown[])).filter((v): v is string => typeof v === 'string');
    return rx.and([content, rx.alt(values.map((v) => jsonStringSpellings(v)))]);
  }
}

// ----- helpers ----------------------------------------------------------------------------

// What collecting an intersection's conjuncts has met: schemas and own keyword sets by
// meaning, and the schemas being expanded (one met again inside itself is a cycle).
interface ConjunctsSeen {
  readonly schemas: Set<number>;
  readonly parts: Set<number>;
  readonly path: Set<SchemaObject>;
}

/** The schema's own maximum, or the repetition cap when smaller — never below what the schema requires. */
function capped(own: number | undefined, cap: number, required: number): number {
  return Math.min(own ?? Infinity, Math.max(cap, required));
}

function typeList(type: unknown, pointer: string): JsonType[] {
  const list = Array.isArray(type) ? type : [type];
  for (const t of list) if (!ALL_TYPES.includes(t as JsonType)) throw new InvalidSchemaError(pointer, 'type', `unknown type ${JSON.stringify(t)}`);
  return list as JsonType[];
}

function allowedTypes(schema: SchemaObject, pointer: string): JsonType[] {
  return schema.type === undefined ? [...ALL_TYPES] : typeList(schema.type, pointer);
}

function nonNegativeInt(value: unknown, pointer: string, keyword: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || value < 0 || !Number.isInteger(value)) throw new InvalidSchemaError(pointer, keyword, `${keyword} must be a non-negative integer`);
  return value;
}

// minimum / exclusiveMinimum (a number in 2020-12, a boolean flag in draft 4).
function lowerBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: -Infinity, inclusive: true };
  if (schema.minimum !== undefined) {
    if (typeof schema.minimum !== 'number') throw new InvalidSchemaError(pointer, 'minimum', 'minimum must be a number');
    bound = { value: schema.minimum, inclusive: schema.exclusiveMinimum !== true };
  }
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= bound.value) bound = { value: schema.exclusiveMinimum, inclusive: false };
  return bound;
}

function upperBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: Infinity, inclusive: true };
  if (schema.maximum !== undefined) {
    if (typeof schema.maximum !== 'number') throw new InvalidSchemaError(pointer, 'maximum', 'maximum must be a number');
    bound = { value: schema.maximum, inclusive: schema.exclusiveMaximum !== true };
  }
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= bound.value) bound = { value: schema.exclusiveMaximum, inclusive: false };
  return bound;
}

// Patterns compiled once (null: not a valid ECMAScript regex; the grammar reports those).
const compiledPatterns = new Map<string, RegExp | null>();
function safeTest(pattern: string, text: string): boolean {
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

// The patternProperties schemas that apply to property `name`.
function matchingSchemas(patterns: readonly (readonly [string, unknown])[], name: string): unknown[] {
  return patterns.filter(([p]) => safeTest(p, name)).map(([, schema]) => schema);
}

type ValidatorDraft = '4' | '7' | '2019-09' | '2020-12';

// The validator's draft, from `$schema` (draft-4 spells exclusiveMinimum as a boolean).
function validatorDraft(root: unknown): ValidatorDraft {
  const declared = typeof root === 'object' && root !== null ? String((root as SchemaObject).$schema ?? '') : '';
  if (/draft-0[34]/.test(declared)) return '4';
  if (/draft-0[67]/.test(declared)) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

// The kinds of JSON value `oneOf` is decided on ('number' includes integers).
const KINDS: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'string', 'number'];
// Keywords that constrain instances of one kind only.
const KIND_KEYWORDS: Partial<Record<JsonType, readonly string[]>> = {
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'unevaluatedProperties'],
  array: ['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
};
const KIND_SPECIFIC = new Set(Object.values(KIND_KEYWORDS).flat());

// Keywords a `propertyNames` schema may use (it must be a string schema).
const PROPERTY_NAME_KEYWORDS = new Set(['type', 'enum', 'const', ...KIND_KEYWORDS.string!]);
// Keywords that assert something (merging marks excluded values as `__notValues`).
const isAssertion = (k: string): boolean => KNOWN.has(k) || k === '__notValues';

// Whether a (merged) schema accepts no, all or some instances of a kind.
function kindStatus(schema: SchemaObject, kind: JsonType, pointer: string): 'none' | 'all' | 'some' {
  const types = allowedTypes(schema, pointer);
  if (!types.includes(kind) && !(kind === 'number' && types.includes('integer'))) return 'none';
  if (kind === 'number' && !types.includes('number')) return 'some'; // integers only
  const own = KIND_KEYWORDS[kind] ?? [];
  const constrains = Object.keys(schema).some((k) => isAssertion(k) && k !== 'type' && (own.includes(k) || !KIND_SPECIFIC.has(k)));
  return constrains ? 'some' : 'all';
}

// Merged schemas encode two things their own way: several patterns as a list, and excluded
// constants (`__notValues`). This spells them as standard keywords for the validator.
function standardSchema(merged: SchemaObject): SchemaObject {
  const out: Record<string, unknown> = { ...merged };
  const extra: SchemaObject[] = [];
  if (Array.isArray(out.pattern)) {
    extra.push(...(out.pattern as unknown[]).map((pattern) => ({ pattern })));
    delete out.pattern;
  }
  if (out.__notValues !== undefined) {
    extra.push({ not: { enum: out.__notValues } });
    delete out.__notValues;
  }
  if (extra.length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...extra];
  return out;
}

// Walks the document without recursion, each object again only when reached deeper (shared
// objects stay cheap, a cyclic one ends at the limit).
function checkDocumentDepth(document: unknown): void {
  const deepest = new Map<object, number>();
  const stack: [unknown, string, number][] = [[document, '', 0]];
  while (stack.length > 0) {
    const [node, pointer, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null || (deepest.get(node) ?? -1) >= depth) continue;
    if (depth >= MAX_DOCUMENT_DEPTH) throw new UnsupportedSchemaError(pointer, '', `objects and arrays nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    deepest.set(node, depth);
    for (const [key, value] of Object.entries(node)) stack.push([value, pointerJoin(pointer, key), depth + 1]);
  }
}

function containsKeyword(node: unknown, keyword: string): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (!Array.isArray(node) && Object.hasOwn(node, keyword)) return true;
  return Object.values(node).some((v) => containsKeyword(v, keyword));
}

function findAnchor(node: unknown, anchor: string, pointer: string): { schema: Schema; pointer: string } | null {
  if (typeof node !== 'object' || node === null) return null;
  if (!Array.isArray(node) && (node as Record<string, unknown>).$anchor === anchor) return { schema: node as Schema, pointer };
  for (const [k, v] of Object.entries(node)) {
    const found = findAnchor(v, anchor, pointerJoin(pointer, k));
    if (found) return found;
  }
  return null;
}

/** Deep equality of JSON values (numbers by value, objects regardless of key order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => k in (b as object) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The intersection of two schemas as one schema, keyword by keyword (false when nothing can
 * match). Keywords that cannot be merged exactly are reported through `unsupported`.
 */
export function mergeSchemas(a: SchemaObject, b: SchemaObject, pointer: string, unsupported: (pointer: string, keyword: string, message: string) => void): SchemaObject | false {
  const out: Record<string, unknown> = { ...a };
  // additionalProperties and items only see their own schema's properties / prefixItems:
  // bring each side's into the other first, so the merged keywords mean the same.
  if (a.additionalProperties !== undefined || b.additionalProperties !== undefined || a.patternProperties !== undefined || b.patternProperties !== undefined) {
    const patternsA = (a.patternProperties ?? {}) as Record<string, unknown>;
    const patternsB = (b.patternProperties ?? {}) as Record<string, unknown>;
    const both = Object.keys(patternsA).length > 0 && Object.keys(patternsB).length > 0;
    if (both && !jsonEqual(patternsA, patternsB)) {
      unsupported(pointer, 'patternProperties', 'different patternProperties on both sides of an intersection are not supported');
    }
    out.properties = crossProperties(a, b);
    b = { ...b, properties: crossProperties(b, a) };
    // Keys matching one side's patterns fall under the other side's additionalProperties.
    if (!both) {
      const [patterns, otherAdditional] = Object.keys(patternsA).length > 0 ? [patternsA, b.additionalProperties] : [patternsB, a.additionalProperties];
      if (Object.keys(patterns).length > 0) {
        out.patternProperties = Object.fromEntries(Object.entries(patterns).map(([p, schema]) => [p, intersection(schema, otherAdditional)]));
        b = Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'patternProperties'));
      }
    }
  }
  if (Array.isArray(a.prefixItems) || Array.isArray(b.prefixItems) || Array.isArray(a.items) || Array.isArray(b.items)) {
    const [pa, ra] = tuple(a);
    const [pb, rb] = tuple(b);
    const length = Math.max(pa.length, pb.length);
    const at = (p: unknown[], r: unknown, i: number): unknown => (i < p.length ? p[i] : r);
    out.prefixItems = Array.from({ length }, (_, i) => intersection(at(pa, ra, i), at(pb, rb, i)));
    out.items = intersection(ra, rb);
    delete out.additionalItems;
    const restB: Record<string, unknown> = { ...b };
    for (const k of ['prefixItems', 'items', 'additionalItems']) delete restB[k];
    b = restB;
  }
  for (const [k, v] of Object.entries(b)) {
    if (ANNOTATIONS.has(k) || !(k in out)) {
      if (!ANNOTATIONS.has(k)) out[k] = v;
      continue;
    }
    const mine = out[k];
    if (jsonEqual(mine, v)) continue;
    switch (k) {
      case 'type': {
        const ta = typeList(mine, pointer);
        const tb = typeList(v, pointer);
        const both = ta.filter((t) => tb.includes(t) || (t === 'integer' && tb.includes('number')));
        for (const t of tb) if (t === 'integer' && ta.includes('number') && !both.includes('integer')) both.push('integer');
        if (both.length === 0) return false;
        out.type = both;
        break;
      }
      case 'required':
        out.required = [...new Set([...(mine as string[]), ...(v as string[])])];
        break;
      case 'properties': {
        const merged: Record<string, unknown> = { ...(mine as object) };
        for (const [name, schema] of Object.entries(v as Record<string, unknown>)) {
          merged[name] = Object.hasOwn(merged, name) ? intersection(merged[name], schema) : schema;
        }
        out.properties = merged;
        break;
      }
      case 'items':
      case 'additionalProperties':
      case 'propertyNames':
      case 'additionalItems':
        out[k] = intersection(mine, v);
        break;
      case 'enum': {
        const values = (mine as unknown[]).filter((x) => (v as unknown[]).some((y) => jsonEqual(x, y)));
        if (values.length === 0) return false;
        out.enum = values;
        break;
      }
      case 'const':
        return false;
      case 'minimum':
      case 'minLength':
      case 'minItems':
      case 'minProperties':
      case 'exclusiveMinimum':
        out[k] = typeof mine === 'number' && typeof v === 'number' ? Math.max(mine, v) : mine === true || v === true;
        break;
      case 'maximum':
      case 'maxLength':
      case 'maxItems':
      case 'maxProperties':
      case 'exclusiveMaximum':
        out[k] = typeof mine === 'number' && typeof v === 'number' ? Math.min(mine, v) : mine === true || v === true;
        break;
      case 'uniqueItems':
        out.uniqueItems = mine === true || v === true;
        break;
      case 'pattern':
        // Both must match: the string keywords intersect every pattern in the list.
        out.pattern = [...[mine].flat(), ...[v].flat()];
        break;
      case 'anyOf':
      case 'oneOf':
        out[k] = (mine as unknown[]).flatMap((x) => (v as unknown[]).map((y) => ({ allOf: [x, y] })));
        if (k === 'oneOf') unsupported(pointer, 'oneOf', 'two oneOf lists on one schema are not supported');
        break;
      case 'not':
        out.not = { anyOf: [mine, v] };
        break;
      default:
        // Unknown keywords are annotations: nothing to merge.
        if (KNOWN.has(k)) unsupported(pointer, k, `${k} appears twice in an intersection and cannot be merged`);
    }
  }
  return out;
}

// The properties of `self`, plus those only `other` declares, which in `self` fall under its
// matching patternProperties, or else its additionalProperties (and must satisfy them too).
function crossProperties(self: SchemaObject, other: SchemaObject): Record<string, unknown> {
  const mine = (self.properties ?? {}) as Record<string, unknown>;
  const theirs = (other.properties ?? {}) as Record<string, unknown>;
  const patterns = Object.entries((self.patternProperties ?? {}) as Record<string, unknown>);
  const out: Record<string, unknown> = { ...mine };
  const additional = self.additionalProperties;
  for (const name of Object.keys(theirs)) {
    if (Object.hasOwn(out, name)) continue;
    const matching = matchingSchemas(patterns, name);
    if (matching.length > 0) out[name] = matching.length === 1 ? matching[0] : { allOf: matching };
    else if (additional !== undefined && additional !== true) out[name] = additional;
  }
  return out;
}

// An array schema as (prefix item schemas, schema of the rest), in either draft's spelling.
const isSchema = (value: unknown): boolean => typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
const SUBSCHEMA = ['not', 'additionalProperties', 'additionalItems', 'propertyNames', 'contains', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

// Keywords must hold values of their shape (schemas where schemas go, strings where names
// go): checked before any is used, so a wrong value is an InvalidSchemaError at its place,
// not a failure deep in the compiler. Numbers are checked where they are read.
function checkKeywordShapes(schema: SchemaObject, pointer: string): void {
  const wrong = (keyword: string, what: string): never => {
    throw new InvalidSchemaError(pointer, keyword, `${keyword} must be ${what}`);
  };
  for (const keyword of SUBSCHEMA) if (schema[keyword] !== undefined && !isSchema(schema[keyword])) wrong(keyword, 'a schema (an object or a boolean)');
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = schema[keyword];
    if (list !== undefined && !(Array.isArray(list) && list.length > 0 && list.every(isSchema))) wrong(keyword, 'a non-empty array of schemas');
  }
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = schema[keyword];
    if (map !== undefined && !(isSchema(map) && typeof map === 'object' && Object.values(map as object).every(isSchema))) wrong(keyword, 'an object whose values are schemas');
  }
  const items = schema.items;
  if (items !== undefined && !isSchema(items) && !(Array.isArray(items) && items.every(isSchema))) wrong('items', 'a schema (or, before draft 2020-12, an array of schemas)');
  const strings = (value: unknown): boolean => Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (schema.required !== undefined && !strings(schema.required) && typeof schema.required !== 'boolean') wrong('required', 'an array of property names');
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) wrong('enum', 'an array');
  for (const keyword of ['pattern', 'format', '$ref']) if (schema[keyword] !== undefined && typeof schema[keyword] !== 'string') wrong(keyword, 'a string');
  const dependent = schema.dependentRequired;
  if (dependent !== undefined && !(isSchema(dependent) && typeof dependent === 'object' && Object.values(dependent as object).every(strings))) wrong('dependentRequired', 'an object whose values are arrays of property names');
}

// Two schemas that must both hold, as one: without wrapping when one is `true` (or absent)
// or both are equal, so merging again with the same schemas gives the same result.
function intersection(x: unknown, y: unknown): unknown {
  if (x === undefined || x === true) return y ?? true;
  if (y === undefined || y === true || jsonEqual(x, y)) return x;
  return { allOf: [x, y] };
}

function tuple(s: SchemaObject): [unknown[], unknown] {
  if (Array.isArray(s.items)) return [s.items, s.additionalItems ?? true];
  return [Array.isArray(s.prefixItems) ? s.prefixItems : [], s.items ?? true];
}
