/**
 * enum / const: the literal values the rest of the schema accepts. With a finite set of
 * candidates every keyword can be decided exactly by validating each value, so here even
 * keywords the grammar cannot express (if/then, uniqueItems, not, oneOf, …) are supported.
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { expr, MAX_PERMUTATION_MEMBERS, type Expr } from '../../ir/grammar-ir.ts';
import type { JsonGrammarParts } from '../json.ts';
import { regexToByteRegex } from '../regex.ts';
import { jsonStringSpellings } from './json-strings.ts';
import { jsonEqual } from './merge-schemas.ts';
import { plainDecimal } from './numbers.ts';
import { InvalidSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { allowedTypes, isAssertion, type Schema, type SchemaObject } from './schema-keywords.ts';
import { standardSchema, validatesValue } from './value-validation.ts';

/** The grammar of the enum / const values of `schema` that the rest of it accepts. */
export function enumExpr(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): Expr {
  const whole = wholeNumbersOnly(compiler, schema, pointer);
  return expr.alt(enumValues(compiler, schema, pointer).map((v) => jsonValueExpr(compiler, v, whole)));
}

/**
 * Whether the numbers a schema allows are integers written without a fraction: where its
 * types have `integer` and not `number`, and `1.0` is no integer (a draft-4 document, or
 * `integerFractions: false`, which generation uses). Its constants are written so too.
 */
export function wholeNumbersOnly(compiler: SchemaCompiler, schema: Schema, pointer: string): boolean {
  if (compiler.draft !== '4' && compiler.options.integerFractions !== false) return false;
  const flat = typeof schema === 'object' ? compiler.flatten(schema, pointer) : false;
  if (flat === false) return false;
  const types = allowedTypes(flat, pointer);
  return types.includes('integer') && !types.includes('number');
}

/** The enum / const values of `schema` that the rest of it accepts, each once. */
export function enumValues(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): unknown[] {
  let values: unknown[];
  if (schema.const !== undefined) values = [schema.const];
  else if (Array.isArray(schema.enum)) values = schema.enum;
  else throw new InvalidSchemaError(pointer, 'enum', 'enum must be an array');
  if (schema.const !== undefined && Array.isArray(schema.enum)) {
    const allowed = schema.enum as unknown[];
    values = values.filter((v) => allowed.some((e) => jsonEqual(e, v)));
  }
  const rest: Record<string, unknown> = { ...schema };
  delete rest.enum;
  delete rest.const;
  if (Object.keys(rest).some(isAssertion)) {
    if (compiler.hasDynamicRef()) compiler.unsupported(pointer, '$dynamicRef', '$dynamicRef is not supported');
    const check = standardSchema(rest, compiler.draft);
    values = values.filter((v) => validatesValue(compiler, check, v, pointer, false));
  }
  const unique: unknown[] = [];
  for (const v of values) if (!unique.some((u) => jsonEqual(u, v))) unique.push(v);
  return unique;
}

/**
 * The JSON text of one value: literals for scalars, structure (with whitespace) otherwise. An
 * object's members may come in any order (JSON's objects are unordered: `{"b":2,"a":1}` is the
 * constant `{"a":1,"b":2}`), a permutation the parser lowers lazily; past
 * `MAX_PERMUTATION_MEMBERS` members, in the order written.
 */
export function jsonValueExpr(compiler: SchemaCompiler, value: unknown, whole = false): Expr {
  const parts = compiler.parts;
  if (value === null || typeof value === 'boolean') return parts.token(String(value));
  if (typeof value === 'number') return numberLiteral(parts, value, whole);
  if (typeof value === 'string') return parts.lexeme(JSON.stringify(value), jsonStringSpellings(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
    const items: Expr[] = [];
    value.forEach((v, i) => {
      if (i > 0) items.push(parts.itemSeparator());
      items.push(jsonValueExpr(compiler, v));
    });
    return expr.seq([parts.token('['), parts.ws(), ...items, parts.ws(), parts.token(']')]);
  }
  const members = Object.entries(value as Record<string, unknown>).map(([k, v]) =>
    expr.seq([parts.lexeme(JSON.stringify(k), jsonStringSpellings(k)), parts.keySeparator(), jsonValueExpr(compiler, v)]),
  );
  if (members.length === 0) return expr.seq([parts.token('{'), parts.ws(), parts.token('}')]);
  if (members.length === 1 || members.length > MAX_PERMUTATION_MEMBERS) {
    const items = members.flatMap((member, i) => (i > 0 ? [parts.itemSeparator(), member] : [member]));
    return expr.seq([parts.token('{'), parts.ws(), ...items, parts.ws(), parts.token('}')]);
  }
  const rule = compiler.ruleName('constant-object');
  parts.builder.permutations.set(rule, {
    members,
    required: members.map((_, i) => i),
    other: null,
    min: 0,
    max: Infinity,
    separator: parts.itemSeparator(),
    close: parts.ws(),
  });
  return expr.seq([parts.token('{'), parts.ws(), expr.ref(rule), parts.token('}')]);
}

// A number literal (see `numberLiteralRegex`).
function numberLiteral(parts: JsonGrammarParts, value: number, whole: boolean): Expr {
  if (!Number.isFinite(value)) return expr.alt([]);
  return parts.lexeme(JSON.stringify(value), numberLiteralRegex(value, whole));
}

/**
 * The texts of a finite number: in plain decimal notation (1 and 1.0 are the same number;
 * Python writes floats with ".0"; `whole`: an integer without a fraction only), or as
 * JSON.stringify writes it when that has an exponent.
 */
export function numberLiteralRegex(value: number, whole = false): ByteRegex {
  const { negative, int, fraction } = plainDecimal(value);
  const sign = negative ? '-' : value === 0 ? '-?' : '';
  const plain = regexToByteRegex(`${sign}${int}${fraction === '' ? (whole ? '' : '(?:\\.0+)?') : `\\.${fraction}0*`}`);
  const text = JSON.stringify(value);
  return text.includes('e') ? rx.alt([plain, rx.literal(text)]) : plain;
}
