/**
 * Numbers and integers: one lexeme, an exact digit pattern for the bounds intersected with
 * the `multipleOf` pattern (and, for numbers that may not be integers, the fractions), in
 * plain decimal notation wherever a bound or multiple applies.
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { jsonRegex } from '../json.ts';
import { regexToByteRegex } from '../regex.ts';
import {
  decimalBounds,
  exactBound,
  intRange,
  MAX_MULTIPLE_STATES,
  multipleOfAutomaton,
  multipleOfRegex,
  multiplesAutomaton,
  nextDouble,
  nonIntegerRegex,
  SAFE_EXPONENT_FORMS,
  type Bound,
  safeExponentForms,
} from './numbers.ts';
import { InvalidSchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { lowerBound, upperBound, type Schema, type SchemaObject } from './schema-keywords.ts';

/** The JSON numbers of `type` the numeric keywords allow. */
export function numberRegex(compiler: SchemaCompiler, type: 'integer' | 'number', schema: SchemaObject, pointer: string): ByteRegex {
  const lo = exactBound(lowerBound(schema, pointer), 'lower');
  const hi = exactBound(upperBound(schema, pointer), 'upper');
  const parts: ByteRegex[] = [];
  // Multiples (a list when intersections met several), and multiples a `not` excludes: those
  // only in plain decimals, where the automaton decides them.
  for (const m of [schema.multipleOf ?? []].flat()) parts.push(multiplesOf(compiler, m, pointer));
  const excluded = (schema.__notMultipleOf ?? []) as number[];
  if (excluded.length > 0) parts.push(regexToByteRegex(PLAIN_DECIMAL), rx.not(rx.alt(excluded.map((m) => multiplesOf(compiler, m, pointer)))));
  const tests = (schema.__multipleTests ?? []) as Schema[];
  if (tests.length > 0) parts.push(multiplesTested(compiler, tests, pointer));
  if (schema.__fraction === true) parts.push(regexToByteRegex(nonIntegerRegex()));
  const bounded = lo.value !== -Infinity || hi.value !== Infinity;
  if (type === 'integer') {
    // Integers: an exact digit pattern for [lo, hi]; from draft 6 on, 3.0 is 3 too.
    const low = integerBound(lo, 'lower');
    const high = integerBound(hi, 'upper');
    let range = bounded ? intRange(low, high) : '-?(?:0|[1-9]\\d*)';
    if (range === null) return rx.nothing;
    // (-0 is 0.)
    if (bounded && (low === null || low <= 0n) && (high === null || high >= 0n)) range = `${range}|-0`;
    const fractions = compiler.options.integerFractions !== false && compiler.draft !== '4';
    parts.push(regexToByteRegex(fractions ? `(?:${range})(?:\\.0+)?` : range));
  } else if (bounded || parts.length > 0) {
    // Bounded numbers and multiples are exact in plain decimal notation (no exponent).
    parts.push(jsonRegex.number(), ...decimalBounds(readAlike(lo, 'lower'), readAlike(hi, 'upper')).map((bound) => regexToByteRegex(bound)));
  } else {
    return jsonRegex.number();
  }
  return parts.length === 1 ? parts[0]! : rx.and(parts);
}

// An exclusive bound as the inclusive one at the double next to it inward, so that a number
// it allows is allowed read exactly and read as a double alike: `4.9999999999999999` is below
// 5 but reads as 5, which `exclusiveMaximum: 5` refuses (those between the two doubles, of 17
// digits or more, are refused). Inclusive bounds need nothing (a number at most B reads as a
// double at most B); past 2^53 `exactBound` has moved the bound already; beside 0 the doubles
// are 324 digits long, and only a number of as many digits would read as 0.
function readAlike(bound: Bound, side: 'lower' | 'upper'): Bound {
  if (bound.inclusive || bound.exact !== undefined || !Number.isFinite(bound.value) || bound.value === 0) return bound;
  return { value: nextDouble(bound.value, side === 'lower' ? 1 : -1), inclusive: true };
}

// The least (lower) or greatest (upper) integer a bound allows; null where there is none.
function integerBound(bound: Bound, side: 'lower' | 'upper'): bigint | null {
  if (!Number.isFinite(bound.value)) return null;
  const at = bound.exact ?? BigInt(side === 'lower' ? Math.ceil(bound.value) : Math.floor(bound.value));
  const on = bound.exact !== undefined || Number.isInteger(bound.value);
  return on && !bound.inclusive ? at + (side === 'lower' ? 1n : -1n) : at;
}

const PLAIN_DECIMAL = '-?(?:0|[1-9]\\d*)(?:\\.\\d+)?';

/**
 * The JSON numbers other than `values` (finite), read exactly or as doubles: in plain decimal
 * notation, those from the doubles next to each value on (a double reads none of them as the
 * value; of those between, only some with 17 digits or more are other numbers); in exponent
 * notation, those of `SAFE_EXPONENT_FORMS` whose value is not one of them (other exponent
 * forms may be a value in disguise, `50e-1`, or read as one by a double,
 * `4.99999999999999999999e0`: refused).
 */
export function numbersOtherThan(values: readonly number[]): ByteRegex {
  const bounds = (lo: Bound, hi: Bound): ByteRegex => rx.and(decimalBounds(lo, hi).map((bound) => regexToByteRegex(bound)));
  const outside = values.map((v) =>
    rx.alt([
      bounds({ value: -Infinity, inclusive: true }, { value: nextDouble(v, -1), inclusive: true }),
      bounds({ value: nextDouble(v, 1), inclusive: true }, { value: Infinity, inclusive: true }),
    ]),
  );
  return rx.alt([
    rx.and([regexToByteRegex(PLAIN_DECIMAL), ...outside]),
    rx.and([regexToByteRegex(SAFE_EXPONENT_FORMS), rx.not(rx.alt(values.filter((v) => v !== 0).map((v) => regexToByteRegex(safeExponentForms(v)))))]),
  ]);
}

// The plain decimals that pass every one of `tests` (boolean combinations of multiples, see
// `kind-tests.ts`): one remainder automaton over all their multiples (refused past its size).
function multiplesTested(compiler: SchemaCompiler, tests: readonly Schema[], pointer: string): ByteRegex {
  const multiples = new Set<number>();
  const collect = (test: Schema): void => {
    if (typeof test === 'boolean') return;
    const [keyword, value] = Object.entries(test)[0]!;
    if (keyword === 'multipleOf') {
      multiples.add(positiveMultiple(value, pointer));
    } else {
      [value].flat().forEach((t) => collect(t as Schema));
    }
  };
  tests.forEach(collect);
  const holds = (test: Schema, isMultiple: (m: number) => boolean): boolean => {
    if (typeof test === 'boolean') return test;
    const [keyword, value] = Object.entries(test)[0]!;
    const each = (): boolean[] => (value as Schema[]).map((t) => holds(t, isMultiple));
    if (keyword === 'multipleOf') return isMultiple(value as number);
    if (keyword === 'not') return !holds(value as Schema, isMultiple);
    if (keyword === 'allOf') return each().every(Boolean);
    if (keyword === 'anyOf') return each().some(Boolean);
    return each().filter(Boolean).length === 1; // oneOf
  };
  const automaton = multiplesAutomaton([...multiples], (isMultiple) => tests.every((test) => holds(test, isMultiple)));
  if (automaton !== null) return rx.automaton(automaton);
  compiler.unsupported(
    pointer,
    'multipleOf',
    `multipleOf ${[...multiples].join(', ')} combined are not supported (their remainder automaton would exceed ${MAX_MULTIPLE_STATES} states)`,
  );
  return jsonRegex.number();
}

// The plain decimals that are multiples of `m`: a regex where the last digits decide, else
// the remainder automaton (refused past its size).
function multiplesOf(compiler: SchemaCompiler, value: unknown, pointer: string): ByteRegex {
  const m = positiveMultiple(value, pointer);
  const multiples = multipleOfRegex(m);
  if (multiples !== null) return regexToByteRegex(multiples);
  const automaton = multipleOfAutomaton(m);
  if (automaton !== null) return rx.automaton(automaton);
  compiler.unsupported(pointer, 'multipleOf', `multipleOf ${m} is not supported (its remainder automaton would exceed ${MAX_MULTIPLE_STATES} states)`);
  return jsonRegex.number();
}

// A `multipleOf` value, which must be a positive number.
function positiveMultiple(m: unknown, pointer: string): number {
  if (typeof m !== 'number' || !(m > 0)) throw new InvalidSchemaError(pointer, 'multipleOf', 'multipleOf must be a positive number');
  return m;
}
