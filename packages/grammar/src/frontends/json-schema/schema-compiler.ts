/**
 * The state of one schema compilation and its dispatch: a schema becomes a `$ref` rule, or is
 * flattened (`flatten-schema.ts`) and split into branches — enum / const, then `anyOf` /
 * `oneOf` distributed over their siblings, then `not`, then one alternative per allowed type,
 * each built by its emitter (`string-schema.ts`, `number-schema.ts`, `array-schema.ts`,
 * `object-schema.ts`, `enum-schema.ts`). Grammar is shared by meaning (`SchemaIds`): a schema
 * reached again, or one that means the same, reuses its rule.
 */
import { GrammarLimitError } from '../../grammar-error.ts';
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { GrammarBuilder, MAX_NESTING, expr, type ClosedObjectItems, type Expr } from '../../ir/grammar-ir.ts';
import { JsonGrammarParts } from '../json.ts';
import { arrayExpr } from './array-schema.ts';
import type { JsonSchemaOptions } from './compile-json-schema.ts';
import { discriminatorCases, exclusiveBranches, provablyDisjoint } from './disjoint-branches.ts';
import { enumExpr, numberLiteralRegex } from './enum-schema.ts';
import { SchemaFlattener } from './flatten-schema.ts';
import { checkKeywordShapes } from './keyword-shapes.ts';
import { mergeSchemas, type ReportUnsupported } from './merge-schemas.ts';
import { dependenciesAsConditions } from './object-dependencies.ts';
import { negateSchema, NotNegatable, productOfUnions, withMoreBranches } from './negate-schema.ts';
import { numberRegex, numbersOtherThan } from './number-schema.ts';
import { keyHolds, objectExpr, trackedNames } from './object-schema.ts';
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError, type SchemaWarning } from './schema-error.ts';
import { SchemaIds } from './schema-ids.ts';
import {
  allowedTypes,
  isAssertion,
  lowerBound,
  safeTest,
  typeList,
  upperBound,
  type MemberWitness,
  type JsonType,
  type Schema,
  type SchemaObject,
} from './schema-keywords.ts';
import { besideRef, containsKeyword, isOnlyRef, resolveRef, schemaDraft, type ResolvedSchema, type SchemaDraft } from './schema-refs.ts';
import { stringRegex } from './string-schema.ts';

// Keywords the grammar cannot enforce (outside enum / const, which validate their values).
const UNSUPPORTED_KEYWORDS: readonly (readonly [string, string])[] = [
  ['unevaluatedProperties', 'unevaluatedProperties is not supported'],
  ['unevaluatedItems', 'unevaluatedItems is not supported'],
  ['$dynamicRef', '$dynamicRef is not supported'],
  ['$recursiveRef', '$recursiveRef is not supported'],
];

// Most times a oneOf is split into cases by discriminating members, one within another.
const MAX_CASE_DEPTH = 3;

export class SchemaCompiler {
  readonly parts: JsonGrammarParts;
  /** Arrays whose items are left to the matcher to keep distinct (`unique-paths.ts`): their pointers by `arrayShape`. */
  readonly uniqueLeftToMatcher = new Map<string, string>();
  /** Those of them whose items are strings that may run out of completions: the item content by `arrayShape`. */
  readonly closedUniqueItems = new Map<string, ByteRegex>();
  /** Those of them whose items may be numbers: 'number', or 'integer' where only integers may, by `arrayShape`. */
  readonly uniqueNumberItems = new Map<string, 'number' | 'integer'>();
  /** Those of them whose items are numbers that may run out of values: their lexeme's language by `arrayShape`. */
  readonly closedNumberItems = new Map<string, ByteRegex>();
  /** Those of them whose items are objects of named members only: the members by `arrayShape`. */
  readonly closedObjectItems = new Map<string, ClosedObjectItems>();
  /** Those of them whose items of the other kinds than those that may run out are open (`arrayShape`s). */
  readonly uniqueOpenBeside = new Set<string>();
  /** Whether members no name tracks count toward a minProperties of 2 or more somewhere (`unique-paths.ts` keeps their names distinct). */
  otherKeysCounted = false;
  /** Whether a member no name tracks witnesses a `not` by its value somewhere (its name must not come again with another value). */
  otherKeysWitnessed = false;
  readonly warnings: SchemaWarning[] = [];
  /** The draft the document is read in (enum values are validated in it too). */
  readonly draft: SchemaDraft;
  /** Schemas numbered by meaning. */
  readonly ids = new SchemaIds({
    asserts: isAssertion,
    onlyRef: (schema) => this.onlyRef(schema),
    wellFormed: (schema) => {
      try {
        checkKeywordShapes(schema, '');
        return true;
      } catch {
        return false;
      }
    },
  });
  readonly #flattener = new SchemaFlattener(this);
  readonly #refRules = new Map<string, string>();
  // Rules of merged schemas by meaning (`SchemaIds`): a recursive schema reached again through
  // an inlined $ref becomes a recursive rule instead of an endless expansion.
  readonly #mergedRules = new Map<number, string>();
  readonly #ruleCount = new Map<string, number>();
  // Grammar of each schema by meaning (`SchemaIds`).
  readonly #built = new Map<number, Expr>();
  #hasDynamicRef: boolean | undefined;
  // Every object and array of the document.
  readonly #documentObjects = new WeakSet<object>();
  #depth = 0;

  constructor(
    readonly root: unknown,
    readonly options: JsonSchemaOptions,
    readonly maxRules: number,
  ) {
    if (typeof root !== 'boolean' && (typeof root !== 'object' || root === null || Array.isArray(root))) {
      throw new InvalidSchemaError('', '', 'a schema must be an object or a boolean');
    }
    const whitespace = { style: 'any', maxRun: 20, ...options.whitespace } as const;
    this.parts = new JsonGrammarParts(new GrammarBuilder(), whitespace, options.repetition);
    this.draft = schemaDraft(root);
    const mark = (value: unknown): void => {
      if (typeof value !== 'object' || value === null || this.#documentObjects.has(value)) return;
      this.#documentObjects.add(value);
      Object.values(value).forEach(mark);
    };
    mark(root);
  }

  /**
   * Whether `schema` is written in the document (not made by the compiler): there a keyword
   * named like one of the compiler's own (`INTERNAL`, `__notPatterns`) is unknown, an
   * annotation like any other.
   */
  written(schema: SchemaObject): boolean {
    return this.#documentObjects.has(schema);
  }

  /** The grammar of any schema at `pointer`. */
  schemaExpr(schema: Schema, pointer: string): Expr {
    if (this.parts.builder.rules.size > this.maxRules) {
      throw new GrammarLimitError('maxSchemaRules', this.maxRules, `the schema expands to more than ${this.maxRules} grammar rules (maxRules)`);
    }
    return this.#nested(pointer, () => {
      if (schema === true) return this.parts.anyValue();
      if (schema === false) return expr.alt([]);
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new InvalidSchemaError(pointer, '', 'a schema must be an object or a boolean');
      }
      if (typeof schema.$ref === 'string' && this.onlyRef(schema, pointer)) return this.#refExpr(schema.$ref, pointer);
      // A schema reached again (an array's item schema in every position, say), or one that
      // means the same (the same intersection, nested or ordered otherwise), reuses its grammar
      // instead of building a copy.
      const id = this.ids.of(schema);
      if (id === this.ids.of(false)) return expr.alt([]);
      let built = this.#built.get(id);
      if (built === undefined) {
        const merged = this.flatten(schema, pointer);
        if (merged === false) built = expr.alt([]);
        else if (schema.$ref !== undefined || schema.allOf !== undefined) built = this.#mergedRule(merged, pointer);
        else built = this.#branches(merged, pointer);
        this.#built.set(id, built);
      }
      return built;
    });
  }

  /**
   * Whether a schema is its `$ref` alone (see `isOnlyRef`); met at `pointer`, keywords its
   * draft ignores beside the `$ref` are said in a warning.
   */
  onlyRef(schema: SchemaObject, pointer?: string): boolean {
    if (!isOnlyRef(schema, this.draft)) return false;
    const ignored = besideRef(schema);
    if (pointer !== undefined && ignored.length > 0) {
      const drafts = this.draft === '4' ? 'draft 4 says' : 'drafts 6 and 7 say';
      this.warn(pointer, '$ref', `${ignored.join(', ')} beside $ref ignored, as ${drafts} (2019-09 on reads them)`);
    }
    return true;
  }

  /** The schema a local `$ref` met at `pointer` points to. */
  resolve(ref: string, pointer: string): ResolvedSchema {
    return resolveRef(this.root, ref, pointer, this.draft);
  }

  /** `$ref` and `allOf` resolved into one merged schema (false when it can match nothing). */
  flatten(schema: SchemaObject, pointer: string): SchemaObject | false {
    return this.#flattener.flatten(schema, pointer);
  }

  /** A fresh rule name from `base`. */
  ruleName(base: string): string {
    const n = (this.#ruleCount.get(base) ?? 0) + 1;
    this.#ruleCount.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  /**
   * Reports a keyword the grammar cannot enforce: an `UnsupportedSchemaError`, or under
   * `lenient` a warning. A keyword met more than once (a $ref used twice, a merged allOf) is
   * reported once.
   */
  unsupported(pointer: string, keyword: string, message: string): void {
    if (!this.options.lenient) throw new UnsupportedSchemaError(pointer, keyword, message);
    this.warn(pointer, keyword, message);
  }

  /** Reports a keyword that is not enforced, as the schema's draft means it (an unknown format), as a warning (once). */
  warn(pointer: string, keyword: string, message: string): void {
    if (!this.warnings.some((w) => w.pointer === pointer && w.keyword === keyword && w.message === message)) {
      this.warnings.push({ pointer, keyword, message });
    }
  }

  /** Whether the document uses `$dynamicRef` anywhere (which enum validation cannot follow). */
  hasDynamicRef(): boolean {
    return (this.#hasDynamicRef ??= containsKeyword(this.root, '$dynamicRef'));
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

  // A `$ref` becomes a rule of its own, so recursive schemas are recursive rules.
  #refExpr(ref: string, pointer: string): Expr {
    const target = this.resolve(ref, pointer);
    let name = this.#refRules.get(target.pointer);
    if (name === undefined) {
      checkRefChain(this, target, pointer);
      name = this.ruleName(`ref:${target.pointer}`);
      this.#refRules.set(target.pointer, name);
      this.parts.builder.rules.set(name, expr.empty); // reserved for recursion
      this.parts.builder.rules.set(name, this.schemaExpr(target.schema, target.pointer));
    }
    return expr.ref(name);
  }

  // A merged schema as a rule of its own, one per meaning.
  #mergedRule(schema: SchemaObject, pointer: string): Expr {
    const key = this.ids.of(schema, true);
    if (key === this.ids.of(false)) return expr.alt([]);
    let name = this.#mergedRules.get(key);
    if (name === undefined) {
      name = this.ruleName(`merged:${pointer}`);
      this.#mergedRules.set(key, name);
      this.parts.builder.rules.set(name, expr.empty); // reserved for recursion
      this.parts.builder.rules.set(name, this.#branches(schema, pointer));
    }
    return expr.ref(name);
  }

  // enum / const (a finite language: each value checked against everything else); else
  // anyOf / oneOf distribute over their siblings; then `not`; then types.
  #branches(schema: SchemaObject, pointer: string): Expr {
    if (schema.enum !== undefined || schema.const !== undefined) return enumExpr(this, schema, pointer);
    const counted = schema.minProperties !== undefined || schema.maxProperties !== undefined || this.parts.caps.maxProperties !== Infinity;
    const conditions = counted ? dependenciesAsConditions(schema) : null;
    if (conditions !== null) return this.#conditional(conditions, pointer);
    if (schema.__conditions !== undefined) return this.#conditional(schema, pointer);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (schema[keyword] !== undefined) return this.#distributed(schema, keyword, pointer);
    }
    if (schema.__oneOf !== undefined) {
      // The next oneOf list of an intersection.
      const [next, ...more] = schema.__oneOf as unknown[];
      const rest: Record<string, unknown> = { ...schema, oneOf: next };
      if (more.length > 0) rest.__oneOf = more;
      else delete rest.__oneOf;
      return this.#distributed(rest, 'oneOf', pointer);
    }
    if (schema.not !== undefined) return this.#withNot(schema, pointer);
    if (schema.__someMember !== undefined) return this.#someMember(schema, pointer);
    for (const [keyword, message] of UNSUPPORTED_KEYWORDS) if (schema[keyword] !== undefined) this.unsupported(pointer, keyword, message);
    const types = allowedTypes(schema, pointer);
    const alternatives: Expr[] = [];
    for (const type of types) {
      if (type === 'integer' && types.includes('number')) continue;
      alternatives.push(this.#typeExpr(type, schema, pointer));
    }
    return expr.alt(alternatives);
  }

  // if / then / else (the first of the conditionals an intersection holds): (if ∧ then) ∪
  // (¬if ∧ else), each merged with the other keywords.
  #conditional(schema: SchemaObject, pointer: string): Expr {
    const rest: Record<string, unknown> = { ...schema };
    const [[condition, then, otherwise], ...more] = schema.__conditions as Schema[][];
    if (more.length > 0) rest.__conditions = more;
    else delete rest.__conditions;
    if (then === true && otherwise === true) return this.#branches(rest, pointer);
    const cases = (): SchemaObject[] => {
      const holds = this.flatten({ allOf: [condition!, then!] }, pointer);
      const fails = this.flatten({ allOf: [otherwise!] }, pointer);
      const complement = fails === false ? [] : productOfUnions(this, fails, [negateSchema(this, condition!, pointerJoin(pointer, 'if'))], pointer);
      return [...(holds === false ? [] : [holds]), ...complement];
    };
    return this.#union(rest, cases, pointer, 'if', () => this.#branches(rest, pointer));
  }

  // anyOf / oneOf: each branch merged with the schema's other keywords, one rule each; a
  // oneOf's branches restricted to where they are provably disjoint, or else each branch
  // intersected with the complements of the others.
  #distributed(schema: SchemaObject, keyword: 'anyOf' | 'oneOf', pointer: string): Expr {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) throw new InvalidSchemaError(pointer, keyword, `${keyword} must be a non-empty array`);
    const rest: Record<string, unknown> = { ...schema };
    delete rest[keyword];
    const merged: (SchemaObject | false)[] = branches.map((branch, i) => {
      const at = pointerJoin(pointerJoin(pointer, keyword), i);
      const flat = branch === true ? {} : branch === false ? false : this.flatten(branch as SchemaObject, at);
      return flat === false ? false : mergeSchemas(rest, flat, at, (p, k, m) => this.unsupported(p, k, m));
    });
    const possible = merged.filter((b) => b !== false);
    if (keyword === 'anyOf') return this.#rules(possible, pointer);
    const disjoint = exclusiveBranches(this, possible, pointer);
    if (disjoint !== null) return this.#rules(disjoint, pointer);
    // Overlapping branches: branch i where no other branch holds (a branch it is provably
    // disjoint from needs no complement; each complement is made once, when first needed).
    // Past the cap, the same case by case when a member tells branches apart by its values.
    const complements: SchemaObject[][] = [];
    const complement = (j: number): SchemaObject[] =>
      (complements[j] ??= negateSchema(this, branches[j] as Schema, pointerJoin(pointerJoin(pointer, keyword), j)));
    const exclusive = (within: readonly (SchemaObject | false)[]): SchemaObject[] =>
      within.flatMap((b, i) => {
        if (b === false) return [];
        const overlapping = within.flatMap((c, j) => (j === i || c === false || provablyDisjoint(this, b, c, pointer) ? [] : [j]));
        return productOfUnions(this, b, overlapping.map(complement), pointer);
      });
    const unsupported: ReportUnsupported = (p, k, m) => this.unsupported(p, k, m);
    const byCases = (within: readonly (SchemaObject | false)[], depth: number): SchemaObject[] => {
      try {
        return exclusive(within);
      } catch (error) {
        const possibleHere = within.filter((b) => b !== false);
        const cases = error instanceof NotNegatable && depth < MAX_CASE_DEPTH ? discriminatorCases(this, possibleHere, pointer) : null;
        if (cases === null) throw error;
        return cases.flatMap((c) =>
          byCases(
            within.map((b) => b && mergeSchemas(b, c, pointer, unsupported)),
            depth + 1,
          ),
        );
      }
    };
    return this.#union(
      {},
      () => byCases(merged, 0),
      pointer,
      'oneOf',
      () => this.#rules(possible, pointer),
    );
  }

  // `not` of a type list or of constants removes types or values; any other `not` is the
  // union of the complement's branches (`negate-schema.ts`), each intersected with the rest.
  #withNot(schema: SchemaObject, pointer: string): Expr {
    const rest: Record<string, unknown> = { ...schema };
    const not = schema.not;
    delete rest.not;
    const at = pointerJoin(pointer, 'not');
    if (not === true) return expr.alt([]);
    if (not === false) return this.#branches(rest, pointer);
    const n = not as SchemaObject;
    const keys = Object.keys(n).filter(isAssertion);
    if (keys.length === 1 && keys[0] === 'type') {
      const excluded = new Set(typeList(n.type, at));
      if (excluded.has('number')) excluded.add('integer');
      const kept = allowedTypes(rest, pointer).filter((t) => !excluded.has(t));
      // Numbers but not integers: fractions (see `nonIntegerRegex`).
      const fraction = excluded.has('integer') && !excluded.has('number') && kept.includes('number');
      // (No type left: nothing, whatever else the schema says of one.)
      if (kept.length === 0) return expr.alt([]);
      return this.#branches({ ...rest, type: kept, ...(fraction && { __fraction: true }) }, pointer);
    }
    if (keys.length === 1 && (keys[0] === 'enum' || keys[0] === 'const')) {
      const values = keys[0] === 'const' ? [n.const] : (n.enum as unknown[]);
      return this.#branches({ ...rest, __notValues: [...((rest.__notValues as unknown[] | undefined) ?? []), ...values] }, pointer);
    }
    return this.#union(
      rest,
      () => negateSchema(this, n, at),
      pointer,
      'not',
      () => this.#branches(rest, pointer),
    );
  }

  // The schema intersected with a union of branches computed by `branches` (a complement,
  // or a oneOf's exclusive parts); one that needs an unsupported complement is refused as
  // `keyword` (lenient: `fallback`, the keyword not enforced).
  #union(rest: SchemaObject, branches: () => SchemaObject[], pointer: string, keyword: string, fallback: () => Expr): Expr {
    let union: SchemaObject[];
    try {
      union = withMoreBranches(this, branches);
    } catch (error) {
      if (!(error instanceof NotNegatable)) throw error;
      this.unsupported(pointer, keyword, `${keyword} needs the complement of a schema, and ${error.message}`);
      return fallback();
    }
    const merged = union.flatMap((b) => {
      const both = mergeSchemas(rest, b, pointerJoin(pointer, keyword), (p, k, m) => this.unsupported(p, k, m));
      return both === false ? [] : [both];
    });
    return this.#rules(merged, pointer);
  }

  // Alternatives of merged schemas, a rule each. (Not through schemaExpr: the level is
  // counted here.)
  #rules(schemas: readonly SchemaObject[], pointer: string): Expr {
    return expr.alt(schemas.map((b) => this.#nested(pointer, () => this.#mergedRule(b, pointer))));
  }

  // Objects with some member a witness (`MemberWitness`) speaks of: one of the names the
  // object tracks (declared, required, in dependencies) that the witness allows, written with
  // the witness's schema too; or else a member no name tracks (`__otherWitness`).
  #someMember(schema: SchemaObject, pointer: string): Expr {
    // (Witnesses come with objects: where no object is allowed, nothing is.)
    if (!allowedTypes(schema, pointer).includes('object')) return expr.alt([]);
    const [witness, ...more] = schema.__someMember as MemberWitness[];
    const rest: Record<string, unknown> = { ...schema, type: 'object' };
    if (more.length > 0) rest.__someMember = more;
    else delete rest.__someMember;
    const unsupported: ReportUnsupported = (p, k, m) => this.unsupported(p, k, m);
    const w = witness!;
    const speaksOf = (name: string): boolean =>
      !w.names.includes(name) &&
      !w.patterns.some((p) => safeTest(p, name)) &&
      w.matches.every((p) => safeTest(p, name)) &&
      w.keys.every((key) => keyHolds(this, key, name, pointer));
    const named = trackedNames(rest).filter(speaksOf);
    // Among the other members: a member of its own, or one that is another witness's too.
    const others = (rest.__otherWitness ?? []) as MemberWitness[];
    const both = (v: MemberWitness): MemberWitness => ({
      names: [...v.names, ...w.names],
      patterns: [...v.patterns, ...w.patterns],
      matches: [...v.matches, ...w.matches],
      keys: [...v.keys, ...w.keys],
      schema: { allOf: [v.schema, w.schema] },
    });
    const branches = [
      ...named.map((name) => mergeSchemas(rest, { required: [name], properties: { [name]: w.schema } }, pointer, unsupported)),
      { ...rest, __otherWitness: [...others, w] },
      ...others.map((v, i) => ({ ...rest, __otherWitness: others.map((u, j) => (j === i ? both(v) : u)) })),
    ];
    return this.#rules(
      branches.filter((b) => b !== false),
      pointer,
    );
  }

  // One allowed type of a (merged) schema, less the constants a `not` excluded.
  #typeExpr(type: JsonType, schema: SchemaObject, pointer: string): Expr {
    const excluded = (schema.__notValues as unknown[] | undefined) ?? [];
    switch (type) {
      case 'null':
        return excluded.some((v) => v === null) ? expr.alt([]) : this.parts.token('null');
      case 'boolean': {
        const kept = [true, false].filter((b) => !excluded.some((v) => v === b));
        return expr.alt(kept.map((b) => this.parts.token(String(b))));
      }
      case 'string':
        return this.parts.lexeme('STRING', stringRegex(this, schema, pointer, excluded), pointer);
      case 'integer':
      case 'number':
        if (type === 'integer' && schema.__fraction === true) return expr.alt([]);
        return this.parts.lexeme(type === 'integer' ? 'INTEGER' : 'NUMBER', this.numberContent(type, schema, pointer), pointer);
      case 'array':
      case 'object': {
        // Structured constants are excluded by their shapes' complements.
        const constants = excluded.filter((v) => typeof v === 'object' && v !== null && Array.isArray(v) === (type === 'array'));
        if (constants.length > 0) return this.#withoutConstants(type, schema, constants, pointer);
        return type === 'array' ? arrayExpr(this, schema, pointer) : objectExpr(this, schema, pointer);
      }
    }
  }

  // Arrays or objects less constants: the product of the complements of their shapes.
  #withoutConstants(type: 'array' | 'object', schema: SchemaObject, constants: readonly unknown[], pointer: string): Expr {
    const rest: Record<string, unknown> = { ...schema, type };
    delete rest.__notValues;
    const complements = (): SchemaObject[] =>
      productOfUnions(
        this,
        { type },
        constants.map((c) => negateSchema(this, constantShape(c), pointer)),
        pointer,
      );
    return this.#union(rest, complements, pointer, 'not', () => (type === 'array' ? arrayExpr(this, rest, pointer) : objectExpr(this, rest, pointer)));
  }

  /** The numbers (or integers) a schema allows, less the constants a `not` excludes: its lexeme's language. */
  numberContent(type: 'integer' | 'number', schema: SchemaObject, pointer: string): ByteRegex {
    return this.#numberExpr(type, schema, pointer, (schema.__notValues as unknown[] | undefined) ?? []);
  }

  // Numbers less excluded constants: integers are written in plain decimals only, so an
  // excluded value's texts are known; numbers may take exponent forms, of which those a double
  // tells apart are kept (`numbersOtherThan`).
  #numberExpr(type: 'integer' | 'number', schema: SchemaObject, pointer: string, excluded: readonly unknown[]): ByteRegex {
    const regex = numberRegex(this, type, schema, pointer);
    const [lo, hi] = [lowerBound(schema, pointer), upperBound(schema, pointer)];
    const inside = (v: number): boolean =>
      (v > lo.value || (v === lo.value && lo.inclusive)) && (v < hi.value || (v === hi.value && hi.inclusive)) && (type === 'number' || Number.isInteger(v));
    const numbers = excluded.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && inside(v));
    if (numbers.length === 0) return regex;
    if (type === 'integer') return rx.and([regex, rx.not(rx.alt(numbers.map((v) => numberLiteralRegex(v))))]);
    if (numbers.some((v) => Math.abs(v) > Number.MAX_SAFE_INTEGER)) {
      this.unsupported(pointer, 'not', '`not` of numeric constants beyond 2^53 in magnitude (of a non-integer number) is not supported');
      return regex;
    }
    return rx.and([regex, numbersOtherThan(numbers)]);
  }
}

// The schema whose only instance is `value` (JSON equality: members in any order, 1 and 1.0 alike).
function constantShape(value: unknown): SchemaObject {
  if (Array.isArray(value))
    return value.length === 0 ? { type: 'array', maxItems: 0 } : { type: 'array', prefixItems: value.map(constantShape), items: false, minItems: value.length };
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([k, v]) => [k, constantShape(v)])),
      required: entries.map(([k]) => k),
      additionalProperties: false,
    };
  }
  return { const: value };
}

// A chain of schemas that are each their `$ref` alone, coming back to one of them, means no
// schema at all (a validator following it never ends): an invalid schema.
function checkRefChain(compiler: SchemaCompiler, target: ResolvedSchema, pointer: string): void {
  const chain = [target.pointer];
  for (let at = target; typeof at.schema === 'object' && typeof at.schema.$ref === 'string' && compiler.onlyRef(at.schema);) {
    at = compiler.resolve(at.schema.$ref, at.pointer);
    if (chain.includes(at.pointer))
      throw new InvalidSchemaError(pointer, '$ref', `a $ref cycle with no way out: ${[...chain, at.pointer].map((p) => `#${p}`).join(' → ')}`);
    chain.push(at.pointer);
  }
}
