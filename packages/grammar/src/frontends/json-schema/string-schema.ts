/**
 * Strings: one lexeme, built by regex intersection of what the string keywords allow
 * (length ∧ every pattern ∧ format), less the patterns and constants a `not` excludes.
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { ANY } from '../../ir/code-point-sets.ts';
import { GrammarError } from '../../grammar-error.ts';
import { regexToByteRegex } from '../regex.ts';
import { jsonChars, jsonString, jsonStringSpellings } from './json-strings.ts';
import { InvalidSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { capped, nonNegativeInt, type SchemaObject } from './schema-keywords.ts';
import { FORMAT_PATTERNS, HOSTNAME_MAX_LENGTH, leapSecondTimes, TIME_FORMATS, UNSUPPORTED_FORMATS } from './string-formats.ts';

/** A JSON string (quotes included) the string keywords allow, none of the `excluded` strings. */
export function stringRegex(compiler: SchemaCompiler, schema: SchemaObject, pointer: string, excluded: readonly unknown[]): ByteRegex {
  const content = jsonString(stringContent(compiler, schema, pointer));
  const notStrings = excluded.filter((v): v is string => typeof v === 'string');
  if (notStrings.length === 0) return content;
  return rx.and([content, rx.not(rx.alt(notStrings.map((s) => jsonStringSpellings(s))))]);
}

/** The content of a string (inside the quotes) that the string keywords allow. */
export function stringContent(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): ByteRegex {
  const parts: ByteRegex[] = [];
  const minLength = nonNegativeInt(schema.minLength, pointer, 'minLength') ?? 0;
  const maxLength = capped(nonNegativeInt(schema.maxLength, pointer, 'maxLength'), compiler.parts.caps.maxStringLength, minLength);
  const length = rx.repeat(jsonChars(ANY), minLength, maxLength);
  for (const pattern of schema.pattern === undefined ? [] : [schema.pattern].flat()) {
    if (typeof pattern !== 'string') throw new InvalidSchemaError(pointer, 'pattern', 'pattern must be a string');
    parts.push(schemaPattern(compiler, pattern, 'search', pointer, 'pattern'));
  }
  // Patterns a `not` excludes (see `negate-schema.ts`).
  for (const pattern of (schema.__notPatterns ?? []) as string[]) parts.push(rx.not(schemaPattern(compiler, pattern, 'search', pointer, 'pattern')));
  if (schema.format !== undefined) {
    const format = String(schema.format);
    const source = FORMAT_PATTERNS[format];
    if (TIME_FORMATS.has(format)) {
      // The pattern's time, or a leap second: the date part again, then one.
      const date = format === 'date-time' ? [schemaPattern(compiler, `${FORMAT_PATTERNS.date}[Tt]`, 'match', pointer, 'format')] : [];
      parts.push(rx.alt([schemaPattern(compiler, source!, 'match', pointer, 'format'), rx.seq([...date, leapSecondTimes()])]));
    } else if (source !== undefined) {
      parts.push(schemaPattern(compiler, source, 'match', pointer, 'format'));
      if (format === 'hostname') parts.push(rx.repeat(jsonChars(ANY), 1, HOSTNAME_MAX_LENGTH));
    } else if (UNSUPPORTED_FORMATS.has(format)) {
      compiler.unsupported(pointer, 'format', `format ${JSON.stringify(format)} is not supported`);
    }
    // Unknown formats are annotations (2020-12): they do not constrain.
  }
  // Patterns and formats match JSON string content only, so a length that allows any is no
  // constraint beside them (and an intersection is a product automaton to build); a pattern's
  // complement matches any bytes (a quote too), so beside one the length keeps content JSON's.
  const contentOnly = parts.length > 0 && parts.every((part) => part.kind !== 'not');
  if (!contentOnly || minLength > 0 || maxLength < Infinity) parts.unshift(length);
  return rx.and(parts);
}

/**
 * A schema's ECMAScript regex (`pattern`, a format's pattern, a patternProperties key) over
 * string content as JSON spells it. An invalid one is an `InvalidSchemaError`; one using
 * what the regex front-end does not support is unsupported (lenient: any content).
 */
export function schemaPattern(compiler: SchemaCompiler, source: string, mode: 'match' | 'search', pointer: string, keyword: string): ByteRegex {
  try {
    return regexToByteRegex(source, { mode, flags: 'u', encodeChars: jsonChars, identityEscapes: true });
  } catch (error) {
    if (error instanceof GrammarError) {
      if (error.code === 'invalid_regex') throw new InvalidSchemaError(pointer, keyword, `invalid regex: ${error.message}`);
      compiler.unsupported(pointer, keyword, error.message);
      return rx.repeat(jsonChars(ANY), 0, Infinity);
    }
    throw error;
  }
}
