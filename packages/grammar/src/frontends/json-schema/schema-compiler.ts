/**
 * The state of one schema compilation and its dispatch: a schema becomes a `$ref` rule, or is
 * flattened (`flatten-schema.ts`) and split into branches — enum / const, then `anyOf` /
 * `oneOf` distributed over their siblings, then `not`, then one alternative per allowed type,
 * each built by its emitter (`string-schema.ts`, `number-schema.ts`, `array-schema.ts`,
 * `object-schema.ts`, `enum-schema.ts`). Grammar is shared by meaning (`SchemaIds`): a schema
 * reached again, or one that means the same, reuses its rule.
 */
import { GrammarLimitError } from '../../grammar-error.ts';
import { GrammarBuilder, MAX_NESTING, expr, type Expr } from '../../ir/grammar-ir.ts';
import { JsonGrammarParts } from '../json.ts';
import { arrayExpr } from './array-schema.ts';
import type { JsonSchemaOptions } from './compile-json-schema.ts';
import { exclusiveBranches } from './disjoint-branches.ts';
import { enumExpr } from './enum-schema.ts';
import { SchemaFlattener } from './flatten-schema.ts';
import { checkKeywordShapes } from './keyword-shapes.ts';
import { mergeSchemas } from './merge-schemas.ts';
import { numberRegex } from './number-schema.ts';
import { objectExpr } from './object-schema.ts';
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError, type SchemaWarning } from './schema-error.ts';
import { SchemaIds } from './schema-ids.ts';
import { allowedTypes, ANNOTATIONS, isAssertion, KNOWN, typeList, type JsonType, type Schema, type SchemaObject } from './schema-keywords.ts';
import { containsKeyword, isOnlyRef, resolveRef, schemaDraft, type ResolvedSchema, type SchemaDraft } from './schema-refs.ts';
import { stringRegex } from './string-schema.ts';

// Keywords the grammar cannot enforce (outside enum / const, which validate their values).
const UNSUPPORTED_KEYWORDS: readonly (readonly [string, string])[] = [
  ['if', 'if/then/else is not supported'],
  ['unevaluatedProperties', 'unevaluatedProperties is not supported'],
  ['unevaluatedItems', 'unevaluatedItems is not supported'],
  ['$dynamicRef', '$dynamicRef is not supported'],
  ['$recursiveRef', '$recursiveRef is not supported'],
  ['contains', 'contains is not supported'],
];

export class SchemaCompiler {
  readonly parts: JsonGrammarParts;
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
      if (typeof schema.$ref === 'string' && this.onlyRef(schema)) return this.#refExpr(schema.$ref, pointer);
      // A schema reached again (an array's item schema in every position, say), or one that
      // means the same (the same intersection, nested or ordered otherwise), reuses its grammar
      // instead of building a copy.
      const id = this.ids.of(schema);
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

  /** Whether a schema is its `$ref` alone (see `isOnlyRef`). */
  onlyRef(schema: SchemaObject): boolean {
    return isOnlyRef(schema, this.draft);
  }

  /** The schema a local `$ref` met at `pointer` points to. */
  resolve(ref: string, pointer: string): ResolvedSchema {
    return resolveRef(this.root, ref, pointer);
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
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (schema[keyword] !== undefined) return this.#distributed(schema, keyword, pointer);
    }
    if (schema.not !== undefined) return this.#withNot(schema, pointer);
    for (const [keyword, message] of UNSUPPORTED_KEYWORDS) if (schema[keyword] !== undefined) this.unsupported(pointer, keyword, message);
    const types = allowedTypes(schema, pointer);
    const alternatives: Expr[] = [];
    for (const type of types) {
      if (type === 'integer' && types.includes('number')) continue;
      alternatives.push(this.#typeExpr(type, schema, pointer));
    }
    return expr.alt(alternatives);
  }

  // anyOf / oneOf: each branch merged with the schema's other keywords, one rule each; a
  // oneOf's branches restricted to where they are provably disjoint.
  #distributed(schema: SchemaObject, keyword: 'anyOf' | 'oneOf', pointer: string): Expr {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) throw new InvalidSchemaError(pointer, keyword, `${keyword} must be a non-empty array`);
    const rest: Record<string, unknown> = { ...schema };
    delete rest[keyword];
    const merged: SchemaObject[] = [];
    branches.forEach((branch, i) => {
      const at = pointerJoin(pointerJoin(pointer, keyword), i);
      const flat = branch === true ? {} : branch === false ? false : this.flatten(branch as SchemaObject, at);
      const both = flat === false ? false : mergeSchemas(rest, flat, at, (p, k, m) => this.unsupported(p, k, m));
      if (both !== false) merged.push(both);
    });
    const alternatives = keyword === 'oneOf' ? exclusiveBranches(this, merged, pointer) : merged;
    // (Not through schemaExpr: the level is counted here.)
    return expr.alt(alternatives.map((b) => this.#nested(pointer, () => this.#mergedRule(b, pointer))));
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
        this.unsupported(pointer, 'not', 'not {type: integer} of numbers (non-integers only) is not supported');
      }
      return this.#branches({ ...rest, type: kept.length > 0 ? kept : [] }, pointer);
    }
    if (keys.length === 1 && (keys[0] === 'enum' || keys[0] === 'const')) {
      const values = keys[0] === 'const' ? [n.const] : (n.enum as unknown[]);
      return this.#branches({ ...rest, __notValues: values }, pointer);
    }
    this.unsupported(pointer, 'not', 'only `not` of a type or of constants is supported');
    return this.#branches(rest, pointer);
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
        if (excluded.some((v) => typeof v === 'number')) this.unsupported(pointer, 'not', '`not` of numeric constants is not supported');
        return this.parts.lexeme(type === 'integer' ? 'INTEGER' : 'NUMBER', numberRegex(this, type, schema, pointer), pointer);
      case 'array':
        if (excluded.some((v) => Array.isArray(v))) this.unsupported(pointer, 'not', '`not` of array constants is not supported');
        return arrayExpr(this, schema, pointer);
      case 'object':
        if (excluded.some((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) {
          this.unsupported(pointer, 'not', '`not` of object constants is not supported');
        }
        return objectExpr(this, schema, pointer);
    }
  }
}
