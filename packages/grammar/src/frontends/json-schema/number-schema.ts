/**
 * Numbers and integers: one lexeme, an exact digit pattern for the bounds intersected with
 * the `multipleOf` pattern (and, for numbers that may not be integers, the fractions), in
 * plain decimal notation wherever a bound or multiple applies.
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { jsonRegex } from '../json.ts';
import { regexToByteRegex } from '../regex.ts';
import { decimalBounds, intRange, multipleOfRegex, nonIntegerRegex } from './numbers.ts';
import { InvalidSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { lowerBound, upperBound, type SchemaObject } from './schema-keywords.ts';

/** The JSON numbers of `type` the numeric keywords allow. */
export function numberRegex(compiler: SchemaCompiler, type: 'integer' | 'number', schema: SchemaObject, pointer: string): ByteRegex {
  const lo = lowerBound(schema, pointer);
  const hi = upperBound(schema, pointer);
  for (const [bound, keyword] of [
    [lo, 'minimum'],
    [hi, 'maximum'],
  ] as const) {
    if (Number.isFinite(bound.value) && Math.abs(bound.value) > Number.MAX_SAFE_INTEGER) {
      compiler.unsupported(pointer, keyword, 'numeric bounds beyond 2^53 in magnitude are not supported');
    }
  }
  const parts: ByteRegex[] = [];
  if (schema.multipleOf !== undefined) {
    const m = schema.multipleOf;
    if (typeof m !== 'number' || !(m > 0)) throw new InvalidSchemaError(pointer, 'multipleOf', 'multipleOf must be a positive number');
    const multiples = multipleOfRegex(m);
    if (multiples === null) {
      const supported = 'powers of ten such as 0.01 or 100, and integers 2^a·5^b such as 2, 5, 25 are';
      compiler.unsupported(pointer, 'multipleOf', `multipleOf ${m} is not supported (${supported})`);
    } else {
      parts.push(regexToByteRegex(multiples));
    }
  }
  if (schema.__fraction === true) parts.push(regexToByteRegex(nonIntegerRegex()));
  const bounded = lo.value !== -Infinity || hi.value !== Infinity;
  if (type === 'integer') {
    // Integers: an exact digit pattern for [lo, hi]; from draft 6 on, 3.0 is 3 too.
    const low = lo.value === -Infinity ? -Infinity : lo.inclusive ? Math.ceil(lo.value) : Math.floor(lo.value) + 1;
    const high = hi.value === Infinity ? Infinity : hi.inclusive ? Math.floor(hi.value) : Math.ceil(hi.value) - 1;
    const range = bounded ? intRange(low, high) : '-?(?:0|[1-9]\\d*)';
    if (range === null) return rx.nothing;
    const fractions = compiler.options.integerFractions !== false && compiler.draft !== '4';
    parts.push(regexToByteRegex(fractions ? `(?:${range})(?:\\.0+)?` : range));
  } else if (bounded || parts.length > 0) {
    // Bounded numbers and multiples are exact in plain decimal notation (no exponent).
    parts.push(jsonRegex.number(), ...decimalBounds(lo, hi).map((bound) => regexToByteRegex(bound)));
  } else {
    return jsonRegex.number();
  }
  return parts.length === 1 ? parts[0]! : rx.and(parts);
}
