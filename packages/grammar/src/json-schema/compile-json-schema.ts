/**
 * JSON Schema (draft 2020-12, with the draft-4..7 spellings real schemas still use) to the
 * Grammar IR. The grammar accepts exactly the JSON texts, in the configured whitespace and
 * separator style, of the instances the schema accepts — or compilation fails with a
 * `SchemaError` naming the pointer and keyword. Nothing is relaxed silently: `lenient: true`
 * turns unsupported keywords into warnings the caller reads.
 *
 * How: schemas are normalized (`$ref` resolved, `allOf` and sibling keywords merged into one
 * schema, `anyOf`/`oneOf` distributed over their siblings), then each allowed type becomes
 * grammar: objects and arrays as rules (properties in `properties` order, optional ones may
 * be left out), strings and numbers as single lexemes built by regex intersection (pattern ∧
 * length ∧ format), enums as literal alternatives filtered by the rest of the schema.
 */
import { rx, type ByteRegex } from '../byte-regex.ts';
import { ANY } from '../code-point-sets.ts';
import { compileGrammar } from '../compile.ts';
import { GrammarError } from '../errors.ts';
import { JsonGrammarParts, jsonRegex, type JsonWhitespace } from '../frontends/json.ts';
import { regexToByteRegex } from '../frontends/regex.ts';
import { GrammarBuilder, expr, type Expr, type GrammarIR } from '../ir.ts';
import { recognize } from '../matcher.ts';
import { FORMAT_PATTERNS, HOSTNAME_MAX_LENGTH, UNSUPPORTED_FORMATS } from './formats.ts';
import { jsonChars, jsonString } from './json-strings.ts';
import { decimalRange, intRange, type Bound } from './numbers.ts';
import { pointerJoin, SchemaError, type SchemaWarning } from './schema-error.ts';

/** How to compile a schema. */
export interface JsonSchemaOptions {
  /** Treat a missing `additionalProperties` as `false`, as hosted strict modes do. */
  readonly strict?: boolean;
  /** Whitespace between tokens (default: any JSON whitespace, at most 20 in a row). */
  readonly whitespace?: JsonWhitespace;
  /** Downgrade unsupported keywords to warnings (the keyword is then not enforced). */
  readonly lenient?: boolean;
}

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

/** Compiles a JSON Schema to the Grammar IR (throws `SchemaError`). */
export function jsonSchemaGrammar(schema: unknown, options: JsonSchemaOptions = {}): JsonSchemaGrammar {
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
  // Rules of merged schemas by their JSON text: a recursive schema reached again through an
  // inlined $ref becomes a recursive rule instead of an endless expansion.
  readonly #mergedRules = new Map<string, string>();
  readonly #ruleCount = new Map<string, number>();
  #depth = 0;

  constructor(
    readonly root: unknown,
    readonly options: JsonSchemaOptions,
  ) {
    if (typeof root !== 'boolean' && (typeof root !== 'object' || root === null || Array.isArray(root))) {
      throw new SchemaError('invalid_schema', '', '', 'a schema must be an object or a boolean');
    }
    this.parts = new JsonGrammarParts(new GrammarBuilder(), { style: 'any', maxRun: 20, ...options.whitespace });
  }

  // ----- entry: any schema -------------------------------------------------------------

  schemaExpr(schema: Schema, pointer: string): Expr {
    if (++this.#depth > 200) throw new SchemaError('unsupported', pointer, '$ref', 'schema nesting deeper than 200 levels');
    try {
      if (schema === true) return this.parts.anyValue();
      if (schema === false) return expr.alt([]);
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new SchemaError('invalid_schema', pointer, '', 'a schema must be an object or a boolean');
      if (typeof schema.$ref === 'string' && this.#onlyRef(schema)) return this.#refExpr(schema.$ref, pointer);
      const merged = this.#flatten(schema, pointer);
      if (merged === false) return expr.alt([]);
      return schema.$ref !== undefined || schema.allOf !== undefined ? this.#mergedRule(merged, pointer) : this.#branches(merged, pointer);
    } finally {
      this.#depth--;
    }
  }

  #onlyRef(schema: SchemaObject): boolean {
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
    if (!ref.startsWith('#')) throw new SchemaError('unsupported', pointer, '$ref', `only local references ("#…") are supported, not ${JSON.stringify(ref)}`);
    const path = ref.slice(1);
    if (path !== '' && !path.startsWith('/')) {
      // "#name": an $anchor.
      const found = findAnchor(this.root, path.slice(0), '');
      if (found === null) throw new SchemaError('invalid_schema', pointer, '$ref', `no $anchor named ${JSON.stringify(path)}`);
      return found;
    }
    let node: unknown = this.root;
    for (const raw of path === '' ? [] : path.slice(1).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) throw new SchemaError('invalid_schema', pointer, '$ref', `${JSON.stringify(ref)} points nowhere`);
      node = (node as Record<string, unknown>)[key];
    }
    if (typeof node !== 'boolean' && (typeof node !== 'object' || node === null)) throw new SchemaError('invalid_schema', pointer, '$ref', `${JSON.stringify(ref)} is not a schema`);
    return { schema: node as Schema, pointer: path };
  }

  #ruleName(base: string): string {
    const n = (this.#ruleCount.get(base) ?? 0) + 1;
    this.#ruleCount.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  #unsupported(pointer: string, keyword: string, message: string): void {
    if (!this.options.lenient) throw new SchemaError('unsupported', pointer, keyword, message);
    this.warnings.push({ pointer, keyword, message });
  }

  // ----- normalization -------------------------------------------------------------------

  // Resolves `$ref` and `allOf` into one merged schema (false when it can match nothing).
  #flatten(schema: SchemaObject, pointer: string, depth = 0): SchemaObject | false {
    if (depth > 50) throw new SchemaError('unsupported', pointer, '$ref', 'references with sibling keywords nest more than 50 levels (a cycle?)');
    let result: SchemaObject = {};
    const own: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) if (k !== 'allOf' && k !== '$ref') own[k] = v;
    const parts: [Schema, string][] = [[own, pointer]];
    if (typeof schema.$ref === 'string') {
      const target = this.#resolve(schema.$ref, pointer);
      parts.push([target.schema, target.pointer]);
    }
    if (schema.allOf !== undefined) {
      if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) throw new SchemaError('invalid_schema', pointer, 'allOf', 'allOf must be a non-empty array');
      schema.allOf.forEach((s, i) => parts.push([s as Schema, pointerJoin(pointerJoin(pointer, 'allOf'), i)]));
    }
    for (const [part, at] of parts) {
      if (part === true) continue;
      if (part === false) return false;
      if (typeof part !== 'object' || part === null || Array.isArray(part)) throw new SchemaError('invalid_schema', at, '', 'a schema must be an object or a boolean');
      const flat = part === own ? own : this.#flatten(part, at, depth + 1);
      if (flat === false) return false;
      const merged = mergeSchemas(result, flat, at, (p, k, m) => this.#unsupported(p, k, m));
      if (merged === false) return false;
      result = merged;
    }
    return result;
  }

  // anyOf / oneOf distribute over their siblings; then enum / const; then types.
  #branches(schema: SchemaObject, pointer: string): Expr {
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (branches === undefined) continue;
      if (!Array.isArray(branches) || branches.length === 0) throw new SchemaError('invalid_schema', pointer, keyword, `${keyword} must be a non-empty array`);
      const rest: Record<string, unknown> = { ...schema };
      delete rest[keyword];
      const merged: SchemaObject[] = [];
      branches.forEach((branch, i) => {
        const at = pointerJoin(pointerJoin(pointer, keyword), i);
        const flat = branch === true ? {} : branch === false ? false : this.#flatten(branch as SchemaObject, at);
        const both = flat === false ? false : mergeSchemas(rest, flat, at, (p, k, m) => this.#unsupported(p, k, m));
        if (both !== false) merged.push(both);
      });
      if (keyword === 'oneOf' && !pairwiseDisjoint(merged)) {
        this.#unsupported(pointer, 'oneOf', 'oneOf branches that may overlap cannot be enforced exactly (only provably disjoint branches are)');
      }
      return expr.alt(merged.map((b) => this.#mergedRule(b, pointer)));
    }
    if (schema.not !== undefined) return this.#withNot(schema, pointer);
    if (schema.enum !== undefined || schema.const !== undefined) return this.#enumExpr(schema, pointer);
    this.#checkUnsupported(schema, pointer);
    const types = allowedTypes(schema, pointer);
    const alternatives: Expr[] = [];
    for (const type of types) {
      if (type === 'integer' && types.includes('number')) continue;
      alternatives.push(this.#typeExpr(type, schema, pointer));
    }
    return expr.alt(alternatives);
  }

  #mergedRule(schema: SchemaObject, pointer: string): Expr {
    const key = JSON.stringify(schema);
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
      ['dependentRequired', 'dependentRequired is not supported'],
      ['dependentSchemas', 'dependentSchemas is not supported'],
      ['dependencies', 'dependencies is not supported'],
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

  // enum / const: the literal values, kept only if the rest of the schema accepts them.
  #enumExpr(schema: SchemaObject, pointer: string): Expr {
    let values: unknown[];
    if (schema.const !== undefined) values = [schema.const];
    else if (Array.isArray(schema.enum)) values = schema.enum;
    else throw new SchemaError('invalid_schema', pointer, 'enum', 'enum must be an array');
    if (schema.const !== undefined && Array.isArray(schema.enum)) values = values.filter((v) => (schema.enum as unknown[]).some((e) => jsonEqual(e, v)));
    const rest: Record<string, unknown> = { ...schema };
    delete rest.enum;
    delete rest.const;
    const constrained = Object.keys(rest).some((k) => KNOWN.has(k) || k === '__notValues');
    if (constrained) {
      const check = compileGrammar(jsonSchemaGrammar(this.#standalone(rest), { ...this.options, whitespace: { style: 'compact' } }).grammar);
      const encoder = new TextEncoder();
      values = values.filter((v) => {
        const r = recognize(check, encoder.encode(JSON.stringify(v)));
        return r.accepted && r.complete;
      });
    }
    const unique: unknown[] = [];
    for (const v of values) if (!unique.some((u) => jsonEqual(u, v))) unique.push(v);
    return expr.alt(unique.map((v) => this.#valueExpr(v)));
  }

  // A sub-schema compiled on its own must still resolve $refs against the root.
  #standalone(schema: SchemaObject): SchemaObject {
    const root = this.root;
    if (typeof root !== 'object' || root === null) return schema;
    const defs: Record<string, unknown> = {};
    for (const key of ['$defs', 'definitions']) if (Object.hasOwn(root, key)) defs[key] = (root as Record<string, unknown>)[key];
    return { ...defs, ...schema };
  }

  // The JSON text of one value: literals for scalars, structure (with whitespace) otherwise.
  #valueExpr(value: unknown): Expr {
    const parts = this.parts;
    if (value === null || typeof value === 'boolean') return parts.token(String(value));
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return expr.alt([]);
      // 1 and 1.0 are the same number; Python writes floats with ".0".
      const regex = Number.isInteger(value) ? regexToByteRegex(`${JSON.stringify(value)}(?:\\.0+)?`) : rx.literal(JSON.stringify(value));
      return parts.lexeme(JSON.stringify(value), regex);
    }
    if (typeof value === 'string') return parts.lexeme(JSON.stringify(value), rx.literal(JSON.stringify(value)));
    if (Array.isArray(value)) {
      if (value.length === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
      const items: Expr[] = [];
      value.forEach((v, i) => {
        if (i > 0) items.push(parts.ws(), parts.token(','), parts.ws());
        items.push(this.#valueExpr(v));
      });
      return expr.seq([parts.token('['), parts.ws(), ...items, parts.ws(), parts.token(']')]);
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return expr.seq([parts.token('{'), parts.ws(), parts.token('}')]);
    const items: Expr[] = [];
    entries.forEach(([k, v], i) => {
      if (i > 0) items.push(parts.ws(), parts.token(','), parts.ws());
      items.push(parts.lexeme(JSON.stringify(k), rx.literal(JSON.stringify(k))), parts.ws(), parts.token(':'), parts.ws(), this.#valueExpr(v));
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
        return this.parts.lexeme('STRING', this.#stringRegex(schema, pointer, excluded));
      case 'integer':
      case 'number':
        if (excluded.some((v) => typeof v === 'number')) this.#unsupported(pointer, 'not', '`not` of numeric constants is not supported');
        return this.parts.lexeme(type === 'integer' ? 'INTEGER' : 'NUMBER', this.#numberRegex(type, schema, pointer));
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
    const maxLength = nonNegativeInt(schema.maxLength, pointer, 'maxLength') ?? Infinity;
    parts.push(rx.repeat(jsonChars(ANY), minLength, maxLength));
    for (const pattern of schema.pattern === undefined ? [] : [schema.pattern].flat()) {
      if (typeof pattern !== 'string') throw new SchemaError('invalid_schema', pointer, 'pattern', 'pattern must be a string');
      parts.push(this.#pattern(pattern, 'search', pointerJoin(pointer, 'pattern'), 'pattern'));
    }
    if (schema.format !== undefined) {
      const format = String(schema.format);
      const source = FORMAT_PATTERNS[format];
      if (source !== undefined) {
        parts.push(this.#pattern(source, 'match', pointerJoin(pointer, 'format'), 'format'));
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
        if (error.code === 'invalid_regex') throw new SchemaError('invalid_schema', pointer, keyword, `invalid regex: ${error.message}`);
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
    return rx.and([content, rx.not(rx.alt(notStrings.map((s) => rx.literal(JSON.stringify(s)))))]);
  }

  #numberRegex(type: 'integer' | 'number', schema: SchemaObject, pointer: string): ByteRegex {
    const lo = lowerBound(schema, pointer);
    const hi = upperBound(schema, pointer);
    if (schema.multipleOf !== undefined) {
      const m = schema.multipleOf;
      if (typeof m !== 'number' || !(m > 0)) throw new SchemaError('invalid_schema', pointer, 'multipleOf', 'multipleOf must be a positive number');
      if (!(type === 'integer' && Number.isInteger(m) && m === 1)) this.#unsupported(pointer, 'multipleOf', 'multipleOf is not supported (except multipleOf: 1 on integers)');
    }
    const bounded = lo.value !== -Infinity || hi.value !== Infinity;
    if (type === 'integer' || (schema.multipleOf === 1 && Number.isInteger(schema.multipleOf))) {
      // Integers: an exact digit pattern for [lo, hi]; Python may write 3.0 for 3.
      const low = lo.value === -Infinity ? -Infinity : lo.inclusive ? Math.ceil(lo.value) : Math.floor(lo.value) + 1;
      const high = hi.value === Infinity ? Infinity : hi.inclusive ? Math.floor(hi.value) : Math.ceil(hi.value) - 1;
      if (bounded && (Math.abs(low) > Number.MAX_SAFE_INTEGER && low !== -Infinity || Math.abs(high) > Number.MAX_SAFE_INTEGER && high !== Infinity)) {
        this.#unsupported(pointer, 'minimum', 'integer bounds beyond 2^53 are not supported');
      }
      const range = bounded ? intRange(low, high) : '-?(?:0|[1-9]\\d*)';
      return range === null ? rx.nothing : regexToByteRegex(`(?:${range})(?:\\.0+)?`);
    }
    if (!bounded) return jsonRegex.number();
    if (!isIntegerOrInfinite(lo.value) || !isIntegerOrInfinite(hi.value)) {
      this.#unsupported(pointer, 'minimum', 'number bounds that are not whole numbers are not supported');
      return jsonRegex.number();
    }
    const range = decimalRange(lo, hi);
    return range === null ? rx.nothing : regexToByteRegex(range);
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
    let maxItems = nonNegativeInt(schema.maxItems, pointer, 'maxItems') ?? Infinity;
    if (rest === false) maxItems = Math.min(maxItems, prefix.length);
    if (minItems > maxItems) return expr.alt([]);
    if (schema.uniqueItems === true && maxItems > 1) {
      this.#unsupported(pointer, 'uniqueItems', 'uniqueItems cannot be enforced by a grammar (except with maxItems ≤ 1)');
    }
    const item = (i: number): Expr => (i < prefix.length ? this.schemaExpr(prefix[i]!, pointerJoin(prefixPointer, i)) : this.schemaExpr(rest, restPointer));
    const sep = expr.seq([parts.ws(), parts.token(','), parts.ws()]);
    // Elements from position i on, given i already written.
    const from = (i: number): Expr => {
      if (i >= maxItems) return expr.empty;
      if (i >= prefix.length) {
        const lo = Math.max(0, minItems - i);
        const hi = maxItems - i;
        const one = i === 0 ? item(i) : expr.seq([sep, item(i)]);
        if (hi === 0) return expr.empty;
        if (i === 0) return lo === 0 ? expr.repeat(expr.seq([one, expr.repeat(expr.seq([sep, item(i)]), 0, hi - 1)]), 0, 1) : expr.seq([one, expr.repeat(expr.seq([sep, item(i)]), lo - 1, hi - 1)]);
        return expr.repeat(expr.seq([sep, item(i)]), lo, hi);
      }
      const here = expr.seq([...(i > 0 ? [sep] : []), item(i), from(i + 1)]);
      return i >= minItems ? expr.alt([here, expr.empty]) : here;
    };
    return expr.seq([parts.token('['), parts.ws(), from(0), parts.ws(), parts.token(']')]);
  }

  // ----- objects -------------------------------------------------------------------------

  #objectExpr(schema: SchemaObject, pointer: string): Expr {
    const parts = this.parts;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (typeof properties !== 'object' || Array.isArray(properties)) throw new SchemaError('invalid_schema', pointer, 'properties', 'properties must be an object');
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const additional: Schema = schema.additionalProperties !== undefined ? (schema.additionalProperties as Schema) : this.options.strict ? false : true;
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>);
    const minProperties = nonNegativeInt(schema.minProperties, pointer, 'minProperties') ?? 0;
    const maxProperties = nonNegativeInt(schema.maxProperties, pointer, 'maxProperties') ?? Infinity;

    // Declared members, in order; required names not declared use the additional schema.
    const names = Object.keys(properties);
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) {
        if (additional === false && !patterns.some(([p]) => safeTest(p, name))) return expr.alt([]);
        if (patterns.length > 0) this.#unsupported(pointer, 'required', 'required properties matched by patternProperties are not supported');
        names.push(name);
      }
    }
    const declaredSchema = (name: string): Schema => (Object.hasOwn(properties, name) ? properties[name]! : additional);
    for (const name of names) {
      if (patterns.some(([p]) => safeTest(p, name))) this.#unsupported(pointer, 'patternProperties', `property ${JSON.stringify(name)} is also matched by patternProperties`);
    }
    const keyRegex = this.#keyRegex(schema, pointer);
    const member = (name: string): Expr => {
      const key = rx.literal(JSON.stringify(name));
      const keyOk = keyRegex === null ? key : rx.and([key, keyRegex]);
      return expr.seq([parts.lexeme(JSON.stringify(name), keyOk), parts.ws(), parts.token(':'), parts.ws(), this.schemaExpr(declaredSchema(name), pointerJoin(pointerJoin(pointer, 'properties'), name))]);
    };

    // Other members: keys not declared, matched by a pattern or else the additional schema.
    const others: Expr[] = [];
    const notDeclared = names.length === 0 ? null : rx.not(rx.alt(names.map((n) => rx.literal(JSON.stringify(n)))));
    const keyParts = (extra: ByteRegex | null): ByteRegex => rx.and([jsonRegex.string(), ...(notDeclared ? [notDeclared] : []), ...(keyRegex ? [keyRegex] : []), ...(extra ? [extra] : [])]);
    const patternRegexes = patterns.map(([p], i) => jsonString(this.#pattern(p, 'search', pointerJoin(pointerJoin(pointer, 'patternProperties'), i), 'patternProperties')));
    if (patterns.length > 1) this.#unsupported(pointer, 'patternProperties', 'more than one pattern in patternProperties is not supported');
    patterns.forEach(([p, s], i) => {
      others.push(expr.seq([parts.lexeme(`/${p}/`, keyParts(patternRegexes[i]!)), parts.ws(), parts.token(':'), parts.ws(), this.schemaExpr(s, pointerJoin(pointerJoin(pointer, 'patternProperties'), p))]));
    });
    if (additional !== false) {
      const unmatched = patternRegexes.length === 0 ? null : rx.not(rx.alt(patternRegexes));
      others.push(expr.seq([parts.lexeme('KEY', keyParts(unmatched)), parts.ws(), parts.token(':'), parts.ws(), this.schemaExpr(additional, pointerJoin(pointer, 'additionalProperties'))]));
    }
    const other = others.length === 0 ? null : expr.alt(others);

    // Rule (i, count): members from declared property i on, given `count` written (count
    // saturates at cap; at least 1, which decides whether a separator comes first).
    const cap = maxProperties === Infinity ? Math.max(minProperties, 1) : maxProperties + 1;
    const base = this.#ruleName(`object:${pointer}`);
    const ruleName = (i: number, count: number): string => `${base}@${i},${count}`;
    const sep = expr.seq([parts.token(','), parts.ws()]);
    const next = (count: number): number => Math.min(count + 1, cap);
    const body = (i: number, count: number): Expr => {
      if (i === names.length) {
        // Additional members: between min and max in total.
        const lo = Math.max(0, minProperties - count);
        const hi = maxProperties - count;
        if (hi < 0) return expr.alt([]);
        if (other === null || hi === 0) return lo === 0 ? expr.empty : expr.alt([]);
        const one = expr.seq([other, parts.ws()]);
        const more = expr.seq([sep, other, parts.ws()]);
        if (count === 0) {
          const list = expr.seq([one, expr.repeat(more, Math.max(0, lo - 1), hi - 1)]);
          return lo === 0 ? expr.alt([list, expr.empty]) : list;
        }
        return expr.repeat(more, lo, hi);
      }
      const name = names[i]!;
      const present = expr.seq([...(count > 0 ? [sep] : []), member(name), parts.ws(), expr.ref(ruleName(i + 1, next(count)))]);
      return required.has(name) ? present : expr.alt([present, expr.ref(ruleName(i + 1, count))]);
    };
    // Built from the last property back, so no recursion grows with the property count.
    for (let i = names.length; i >= 0; i--) {
      for (let count = 0; count <= cap; count++) parts.builder.rules.set(ruleName(i, count), body(i, count));
    }
    return expr.seq([parts.token('{'), parts.ws(), expr.ref(ruleName(0, 0)), parts.token('}')]);
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
    const stringKeywords = new Set(['type', 'minLength', 'maxLength', 'pattern', 'format', 'enum', 'const']);
    if (keys.some((k) => !stringKeywords.has(k)) || (flat.type !== undefined && !typeList(flat.type, at).includes('string'))) {
      this.#unsupported(at, 'propertyNames', 'propertyNames must be a string schema (type, length, pattern, format, enum, const)');
      return null;
    }
    const content = jsonString(this.#stringContent(flat, at));
    if (flat.enum === undefined && flat.const === undefined) return content;
    const values = (flat.const !== undefined ? [flat.const] : (flat.enum as unknown[])).filter((v): v is string => typeof v === 'string');
    return rx.and([content, rx.alt(values.map((v) => rx.literal(JSON.stringify(v))))]);
  }
}

// ----- helpers ----------------------------------------------------------------------------

function typeList(type: unknown, pointer: string): JsonType[] {
  const list = Array.isArray(type) ? type : [type];
  for (const t of list) if (!ALL_TYPES.includes(t as JsonType)) throw new SchemaError('invalid_schema', pointer, 'type', `unknown type ${JSON.stringify(t)}`);
  return list as JsonType[];
}

function allowedTypes(schema: SchemaObject, pointer: string): JsonType[] {
  return schema.type === undefined ? [...ALL_TYPES] : typeList(schema.type, pointer);
}

function nonNegativeInt(value: unknown, pointer: string, keyword: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || value < 0 || !Number.isInteger(value)) throw new SchemaError('invalid_schema', pointer, keyword, `${keyword} must be a non-negative integer`);
  return value;
}

function isIntegerOrInfinite(n: number): boolean {
  return !Number.isFinite(n) || Number.isInteger(n);
}

// minimum / exclusiveMinimum (a number in 2020-12, a boolean flag in draft 4).
function lowerBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: -Infinity, inclusive: true };
  if (schema.minimum !== undefined) {
    if (typeof schema.minimum !== 'number') throw new SchemaError('invalid_schema', pointer, 'minimum', 'minimum must be a number');
    bound = { value: schema.minimum, inclusive: schema.exclusiveMinimum !== true };
  }
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= bound.value) bound = { value: schema.exclusiveMinimum, inclusive: false };
  return bound;
}

function upperBound(schema: SchemaObject, pointer: string): Bound {
  let bound: Bound = { value: Infinity, inclusive: true };
  if (schema.maximum !== undefined) {
    if (typeof schema.maximum !== 'number') throw new SchemaError('invalid_schema', pointer, 'maximum', 'maximum must be a number');
    bound = { value: schema.maximum, inclusive: schema.exclusiveMaximum !== true };
  }
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= bound.value) bound = { value: schema.exclusiveMaximum, inclusive: false };
  return bound;
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
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

// Branches are provably disjoint when their types differ, or a required property has
// disjoint constant values in both.
function pairwiseDisjoint(branches: readonly SchemaObject[]): boolean {
  const types = (s: SchemaObject): Set<string> => {
    const list = s.type === undefined ? ALL_TYPES : (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    const set = new Set(list);
    if (set.has('number')) set.add('integer');
    if (s.const !== undefined || Array.isArray(s.enum)) {
      const values = s.const !== undefined ? [s.const] : (s.enum as unknown[]);
      return new Set(values.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)).flatMap((t) => (t === 'integer' ? ['integer', 'number'] : [t])));
    }
    return set;
  };
  const constants = (s: SchemaObject): Map<string, unknown[]> => {
    const out = new Map<string, unknown[]>();
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    for (const [k, v] of Object.entries(props)) {
      if (!required.has(k) || typeof v !== 'object' || v === null) continue;
      const p = v as SchemaObject;
      if (p.const !== undefined) out.set(k, [p.const]);
      else if (Array.isArray(p.enum)) out.set(k, p.enum);
    }
    return out;
  };
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      const a = branches[i]!;
      const b = branches[j]!;
      const ta = types(a);
      if (![...types(b)].some((t) => ta.has(t))) continue;
      const ca = constants(a);
      const cb = constants(b);
      const discriminated = [...ca].some(([k, va]) => cb.has(k) && !va.some((x) => cb.get(k)!.some((y) => jsonEqual(x, y))));
      if (!discriminated) return false;
    }
  }
  return true;
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
    if ((a.patternProperties !== undefined || b.patternProperties !== undefined) && (a.properties !== undefined || b.properties !== undefined) && !jsonEqual(a.patternProperties, b.patternProperties)) {
      unsupported(pointer, 'patternProperties', 'patternProperties in an intersection with other properties are not supported');
    }
    out.properties = crossProperties(a, b);
    b = { ...b, properties: crossProperties(b, a) };
  }
  if (Array.isArray(a.prefixItems) || Array.isArray(b.prefixItems) || Array.isArray(a.items) || Array.isArray(b.items)) {
    const [pa, ra] = tuple(a);
    const [pb, rb] = tuple(b);
    const length = Math.max(pa.length, pb.length);
    const at = (p: unknown[], r: unknown, i: number): unknown => (i < p.length ? p[i] : r);
    out.prefixItems = Array.from({ length }, (_, i) => ({ allOf: [at(pa, ra, i), at(pb, rb, i)] }));
    out.items = { allOf: [ra, rb] };
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
          merged[name] = Object.hasOwn(merged, name) ? { allOf: [merged[name], schema] } : schema;
        }
        out.properties = merged;
        break;
      }
      case 'items':
      case 'additionalProperties':
      case 'propertyNames':
      case 'additionalItems':
        out[k] = mine === true ? v : v === true ? mine : { allOf: [mine, v] };
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
// additionalProperties (and so must satisfy it too).
function crossProperties(self: SchemaObject, other: SchemaObject): Record<string, unknown> {
  const mine = (self.properties ?? {}) as Record<string, unknown>;
  const theirs = (other.properties ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...mine };
  const additional = self.additionalProperties;
  for (const name of Object.keys(theirs)) {
    if (!Object.hasOwn(out, name) && additional !== undefined && additional !== true) out[name] = additional;
  }
  return out;
}

// An array schema as (prefix item schemas, schema of the rest), in either draft's spelling.
function tuple(s: SchemaObject): [unknown[], unknown] {
  if (Array.isArray(s.items)) return [s.items, s.additionalItems ?? true];
  return [Array.isArray(s.prefixItems) ? s.prefixItems : [], s.items ?? true];
}
