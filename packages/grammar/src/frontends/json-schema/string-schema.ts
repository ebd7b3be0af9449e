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
import { capped, nonNegativeInt, type Schema, type SchemaObject } from './schema-keywords.ts';
import { FORMAT_PATTERNS, FORMAT_SUPERSETS, HOSTNAME_MAX_LENGTH, leapSecondTimes, TIME_FORMATS, UNSUPPORTED_FORMATS } from './string-formats.ts';

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
    parts.push(schemaPattern(compiler, pattern, 'search', pointer, 'pattern', maxLength));
  }
  // Patterns a `not` excludes (see `negate-schema.ts`).
  for (const pattern of (schema.__notPatterns ?? []) as string[]) parts.push(rx.not(schemaPattern(compiler, pattern, 'search', pointer, 'pattern', maxLength)));
  if (schema.format !== undefined) {
    const format = formatRegex(compiler, String(schema.format), pointer);
    if (format !== null) parts.push(format);
  }
  // Formats a `not` excludes (`COMPLEMENTED_FORMATS`: see `negate-schema.ts`).
  for (const format of (schema.__notFormats ?? []) as string[]) {
    const regex = formatOrSuperset(compiler, format, pointer);
    parts.push(regex === null ? rx.nothing : rx.not(regex));
  }
  // Boolean combinations of string keywords (see `kind-tests.ts`).
  const tests = (schema.__stringTests ?? []) as Schema[];
  for (const test of tests) parts.push(stringTest(compiler, test, false, pointer, maxLength));
  // Patterns and formats match JSON string content only, so a length that allows any is no
  // constraint beside one of them (and an intersection is a product automaton to build); a
  // pattern's or a format's complement (alone, or within a test) matches any bytes (a quote
  // too), so with those the length keeps content JSON's.
  const contentOnly = parts.some((part) => part.kind !== 'not') && tests.length === 0;
  if (!contentOnly || minLength > 0 || maxLength < Infinity) parts.unshift(length);
  return rx.and(parts);
}

// A test's strings (`negated`: the others), complements pushed down to the keywords: a
// length's is a length, a pattern's or a format's a complement of its automaton (over any
// bytes: the caller keeps content JSON's). Patterns are read for texts of `longest`
// characters at most, which the caller's length keeps them to.
function stringTest(compiler: SchemaCompiler, test: Schema, negated: boolean, pointer: string, longest: number): ByteRegex {
  if (typeof test === 'boolean') return test !== negated ? rx.repeat(jsonChars(ANY), 0, Infinity) : rx.nothing;
  const [keyword, value] = Object.entries(test)[0]!;
  const each = (branches: unknown, negate: boolean): ByteRegex[] => (branches as Schema[]).map((b) => stringTest(compiler, b, negate, pointer, longest));
  switch (keyword) {
    case 'not':
      return stringTest(compiler, value as Schema, !negated, pointer, longest);
    case 'allOf':
      return negated ? rx.alt(each(value, true)) : rx.and(each(value, false));
    case 'anyOf':
      return negated ? rx.and(each(value, true)) : rx.alt(each(value, false));
    case 'oneOf': {
      // One holds and the others fail; negated, none holds or two do.
      const [holds, fails] = [each(value, false), each(value, true)];
      if (!negated) return rx.alt(holds.map((held, i) => rx.and([held, ...fails.filter((_, j) => j !== i)])));
      return rx.alt([rx.and(fails), ...holds.flatMap((a, i) => holds.slice(i + 1).map((b) => rx.and([a, b])))]);
    }
    case 'minLength':
    case 'maxLength': {
      const n = nonNegativeInt(value, pointer, keyword)!;
      const atLeast = (keyword === 'minLength') !== negated;
      const bound = keyword === 'minLength' ? n : n + 1; // the first length at or past the bound
      return atLeast ? rx.repeat(jsonChars(ANY), bound, Infinity) : rx.repeat(jsonChars(ANY), 0, bound - 1);
    }
    case 'pattern': {
      const pattern = schemaPattern(compiler, String(value), 'search', pointer, 'pattern', longest);
      return negated ? rx.not(pattern) : pattern;
    }
    case 'format': {
      // (Negated, the strings surely outside it: `formatOrSuperset`.)
      const format = (negated ? formatOrSuperset : formatRegex)(compiler, String(value), pointer);
      if (format === null) return stringTest(compiler, true, negated, pointer, longest);
      return negated ? rx.not(format) : format;
    }
    default:
      throw new Error(`not a string test keyword: ${keyword}`);
  }
}

/**
 * The string content a format allows; null for a format that is an annotation (unknown ones,
 * as 2020-12 has them). One 2020-12 defines that Sieve does not enforce is unsupported.
 */
export function formatRegex(compiler: SchemaCompiler, format: string, pointer: string): ByteRegex | null {
  const source = FORMAT_PATTERNS[format];
  if (TIME_FORMATS.has(format)) {
    // The pattern's time, or a leap second: the date part again, then one.
    const date = format === 'date-time' ? [schemaPattern(compiler, `${FORMAT_PATTERNS.date}[Tt]`, 'match', pointer, 'format')] : [];
    return rx.alt([schemaPattern(compiler, source!, 'match', pointer, 'format'), rx.seq([...date, leapSecondTimes()])]);
  }
  if (source !== undefined) {
    const pattern = schemaPattern(compiler, source, 'match', pointer, 'format');
    return format === 'hostname' ? hostnameLength(pattern) : pattern;
  }
  if (UNSUPPORTED_FORMATS.has(format)) compiler.unsupported(pointer, 'format', `format ${JSON.stringify(format)} is not supported`);
  return null;
}

/**
 * The strings a complement of `format` leaves out: the format's own where it is enforced
 * exactly, else its superset's (`FORMAT_SUPERSETS`: what is outside is surely not in it).
 */
export function formatOrSuperset(compiler: SchemaCompiler, format: string, pointer: string): ByteRegex | null {
  const superset = FORMAT_SUPERSETS[format];
  if (superset === undefined) return formatRegex(compiler, format, pointer);
  const pattern = schemaPattern(compiler, superset, 'match', pointer, 'format');
  return format === 'hostname' ? hostnameLength(pattern) : pattern;
}

// A host name pattern within the longest host name.
const hostnameLength = (pattern: ByteRegex): ByteRegex => rx.and([pattern, rx.repeat(jsonChars(ANY), 1, HOSTNAME_MAX_LENGTH)]);

/**
 * A schema's ECMAScript regex (`pattern`, a format's pattern, a patternProperties key) over
 * string content as JSON spells it. An invalid one is an `InvalidSchemaError`; one using
 * what the regex front-end does not support is unsupported (lenient: any content). With
 * `longest` (a `maxLength` the caller intersects it with), the same on strings of that many
 * characters at most (`RegexOptions.longest`).
 */
export function schemaPattern(
  compiler: SchemaCompiler,
  source: string,
  mode: 'match' | 'search',
  pointer: string,
  keyword: string,
  longest = Infinity,
): ByteRegex {
  try {
    return regexToByteRegex(source, { mode, flags: 'u', encodeChars: jsonChars, annexB: true, longest });
  } catch (error) {
    if (error instanceof GrammarError) {
      if (error.code === 'invalid_regex') throw new InvalidSchemaError(pointer, keyword, `invalid regex: ${error.message}`);
      compiler.unsupported(pointer, keyword, error.message);
      return rx.repeat(jsonChars(ANY), 0, Infinity);
    }
    throw error;
  }
}
