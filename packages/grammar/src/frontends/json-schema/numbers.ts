/**
 * Numeric ranges as regular expressions over JSON number text (ECMAScript regex source), and
 * multiples as regexes or, for any other positive multiple, a remainder automaton.
 * Integers are exact for any bounds (past 2^53, for every number a bound's double stands for:
 * `exactBound`); numbers with decimal bounds and multiples are exact in plain decimal notation. Of the exponent forms, bounds accept those whose sign or
 * size class settles them (see `decimalBounds`); multiples accept none.
 */
import type { ByteAutomaton } from '../../ir/byte-regex.ts';

// Decimal strings of the same length from a to b (inclusive), no sign: after the digits they
// share, one alternative per digit where a string leaves a's or b's digits (flat, so a bound
// of hundreds of digits nests no deeper than one of two).
function sameLength(a: string, b: string): string {
  if (a === b) return a;
  let i = 0;
  while (a[i] === b[i]) i++;
  const n = a.length;
  const any = (j: number): string => (j === n - 1 ? '' : `\\d{${n - j - 1}}`);
  const digits = (lo: number, hi: number): string => (lo === hi ? `${lo}` : `[${lo}-${hi}]`);
  const parts: string[] = [];
  // a's digit at i, then at least a's rest (all of them when that rest is zeros).
  let lo = Number(a[i]);
  if (!/^0*$/.test(a.slice(i + 1))) {
    parts.push(a.slice(i));
    for (let j = i + 1; j < n; j++) if (a[j] !== '9') parts.push(`${a.slice(i, j)}${digits(Number(a[j]) + 1, 9)}${any(j)}`);
    lo++;
  }
  // b's digit at i, then at most b's rest (all of them when that rest is nines).
  let hi = Number(b[i]);
  const upper: string[] = [];
  if (!/^9*$/.test(b.slice(i + 1))) {
    upper.push(b.slice(i));
    for (let j = i + 1; j < n; j++) if (b[j] !== '0') upper.push(`${b.slice(i, j)}${digits(0, Number(b[j]) - 1)}${any(j)}`);
    hi--;
  }
  if (lo <= hi) parts.push(`${digits(lo, hi)}${any(i)}`);
  return `${a.slice(0, i)}(?:${[...parts, ...upper].join('|')})`;
}

/** Regex for unsigned integers n, lo <= n <= hi (null: no upper bound), no leading zeros. */
export function uintRange(lo: bigint, hi: bigint | null): string | null {
  if (hi !== null && lo > hi) return null;
  const parts: string[] = [];
  const loLength = lo.toString().length;
  const hiLength = hi === null ? loLength : hi.toString().length;
  for (let length = loLength; length <= hiLength; length++) {
    const a = length === loLength ? lo.toString() : `1${'0'.repeat(length - 1)}`;
    const b = length === hiLength && hi !== null ? hi.toString() : '9'.repeat(length);
    parts.push(sameLength(a, b));
  }
  if (hi === null) parts.push(`[1-9]\\d{${loLength},}`);
  return parts.join('|');
}

/** Regex for integers lo <= n <= hi (null: no bound on that side). */
export function intRange(lo: bigint | null, hi: bigint | null): string | null {
  const parts: string[] = [];
  if (hi === null || hi >= 0n) {
    const positive = uintRange(lo === null || lo < 0n ? 0n : lo, hi);
    if (positive !== null) parts.push(positive);
  }
  if (lo === null || lo < 0n) {
    const negative = uintRange(hi === null || -hi < 1n ? 1n : -hi, lo === null ? null : -lo);
    if (negative !== null) parts.push(`-(?:${negative})`);
  }
  return parts.length === 0 ? null : parts.map((p) => `(?:${p})`).join('|');
}

/** A bound on a number: value and whether it is included. */
export interface Bound {
  readonly value: number;
  readonly inclusive: boolean;
  /** Past 2^53 in magnitude: the integer the bound stands for (see `exactBound`). */
  readonly exact?: bigint;
}

/**
 * A bound past 2^53 in magnitude stands for every number its double does (the bound as
 * written may have been any of them: 9223372036854775807 reads as 2^63): it is moved inward
 * by half the distance to the next double on that side, so that what it allows, every one of
 * those numbers allows too (numbers within that half of the double are refused). Smaller
 * bounds are kept as read.
 */
export function exactBound(bound: Bound, side: 'lower' | 'upper'): Bound {
  if (!Number.isFinite(bound.value) || Math.abs(bound.value) <= Number.MAX_SAFE_INTEGER) return bound;
  const at = BigInt(bound.value);
  // (Past the largest double, the next would be 2^1024: numbers from halfway there read as Infinity.)
  const beyond = nextDouble(bound.value, side === 'lower' ? 1 : -1);
  const next = Number.isFinite(beyond) ? BigInt(beyond) : beyond > 0 ? 1n << 1024n : -(1n << 1024n);
  return { ...bound, exact: at + (next - at) / 2n };
}

// A bound's number as plain decimal digits (exact past 2^53).
function boundDigits(bound: Bound): { negative: boolean; int: string; fraction: string } {
  if (bound.exact === undefined) return plainDecimal(bound.value);
  return { negative: bound.exact < 0n, int: (bound.exact < 0n ? -bound.exact : bound.exact).toString(), fraction: '' };
}

/** A finite number as plain decimal digits: integer part and fraction (no trailing zeros). */
export function plainDecimal(value: number): { negative: boolean; int: string; fraction: string } {
  const [mantissa, exponentText] = Math.abs(value).toString().split('e');
  const exponent = Number(exponentText ?? 0);
  const [intText, fractionText = ''] = mantissa!.split('.');
  let digits = intText! + fractionText;
  let point = intText!.length + exponent;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const int = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  return { negative: value < 0, int, fraction: digits.slice(point).replace(/0+$/, '') };
}

/**
 * Exponent forms whose value a double keeps apart from every other such form's: a mantissa of
 * one digit 1-9 before the point and at most 15 significant digits (any two decimals of 15
 * digits are two doubles), an exponent of at most 307 (no underflow to 0, no overflow).
 */
export const SAFE_EXPONENT_FORMS = '-?[1-9](?:\\.(?:\\d{0,13}[1-9]0*|0+))?[eE][+-]?0*(?:\\d{1,2}|[12]\\d\\d|30[0-7])';

/** The double next to a finite `value` upward (1) or downward (-1). */
export function nextDouble(value: number, direction: 1 | -1): number {
  if (value === 0) return direction * Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, value > 0 === direction > 0 ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

/** The texts among `SAFE_EXPONENT_FORMS` of a finite number but 0 (which has none): its digits, its exponent. */
export function safeExponentForms(value: number): string {
  const { negative, int, fraction } = plainDecimal(value);
  const all = int + fraction;
  const first = all.search(/[1-9]/);
  const digits = all.slice(first).replace(/0+$/, '');
  const exponent = int.length - 1 - first;
  const mantissa = digits.length === 1 ? `${digits}(?:\\.0+)?` : `${digits[0]}\\.${digits.slice(1)}0*`;
  const power = exponent === 0 ? '[+-]?0+' : exponent > 0 ? `\\+?0*${exponent}` : `-0*${-exponent}`;
  return `${negative ? '-' : ''}${mantissa}[eE]${power}`;
}

const UNSIGNED = '(?:0|[1-9]\\d*)(?:\\.\\d+)?';
const POSITIVE = '(?:[1-9]\\d*(?:\\.\\d+)?|0\\.\\d*[1-9]\\d*)';
const NEGATIVE_ZERO = '-0(?:\\.0+)?';

// Fractions (the digits after ".", "" for none) greater than / equal to 0.F.
function fractionAbove(f: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < f.length; i++) if (f[i] !== '9') parts.push(`\\.${f.slice(0, i)}[${Number(f[i]) + 1}-9]\\d*`);
  parts.push(`\\.${f}\\d*[1-9]\\d*`);
  return parts;
}
function fractionBelow(f: string): string[] {
  if (f === '') return [];
  const parts = ['']; // no fraction at all: .0 < .F
  for (let i = 0; i < f.length; i++) {
    if (f[i] !== '0') parts.push(`\\.${f.slice(0, i)}[0-${Number(f[i]) - 1}]\\d*`);
    // (A proper prefix of F, zeros included: F has a digit above 0 further on.)
    if (i > 0) parts.push(`\\.${f.slice(0, i)}`);
  }
  return parts;
}
const fractionEqual = (f: string): string => (f === '' ? '(?:\\.0+)?' : `\\.${f}0*`);

// Unsigned decimals m with m > A (or >= when inclusive).
function magnitudeAbove(a: { int: string; fraction: string }, inclusive: boolean): string {
  const same = [...fractionAbove(a.fraction), ...(inclusive ? [fractionEqual(a.fraction)] : [])];
  return `(?:${uintRange(BigInt(a.int) + 1n, null)})(?:\\.\\d+)?|${a.int}(?:${same.join('|')})`;
}
// Unsigned decimals m with m < B (or <= when inclusive); null when none.
function magnitudeBelow(b: { int: string; fraction: string }, inclusive: boolean): string | null {
  const n = BigInt(b.int);
  const parts = n > 0n ? [`(?:${uintRange(0n, n - 1n)})(?:\\.\\d+)?`] : [];
  const same = [...fractionBelow(b.fraction), ...(inclusive ? [fractionEqual(b.fraction)] : [])];
  if (same.length > 0) parts.push(`${b.int}(?:${same.join('|')})`);
  return parts.length === 0 ? null : parts.join('|');
}

// Exponent forms: any mantissa; a zero mantissa; a mantissa from 1 with an exponent from
// -307 (never rounds to 0 as a double); a one-digit mantissa with a negative exponent
// (magnitude below 1, as Python writes small numbers: 1e-06; it may round to 1).
const EXPONENT = '[eE][+-]?\\d+';
const EXP_ANY = `${UNSIGNED}${EXPONENT}`;
const EXP_ZERO = `0(?:\\.0+)?${EXPONENT}`;
const EXP_NONZERO = `[1-9]\\d*(?:\\.\\d+)?[eE](?:\\+?\\d+|-0*(?:\\d{1,2}|[12]\\d\\d|30[0-7]))`;
const EXP_BELOW_ONE = `\\d(?:\\.\\d+)?[eE]-0*[1-9]\\d*`;

// Exponent forms m with m > lo (or >= when inclusive) that the bound's sign or size decides,
// read as doubles the way validators read them: non-negative ones when lo < 0 or lo is 0
// inclusive, positive ones that stay positive when lo is 0 exclusive, and negative ones of
// magnitude below 1 (at most 1 once rounded) when lo < -1 or lo is -1 inclusive.
function exponentAbove(lo: Bound): string[] {
  if (lo.value > 0) return [];
  const out = lo.value < 0 || lo.inclusive ? [EXP_ANY, `-${EXP_ZERO}`] : [EXP_NONZERO];
  if (lo.value < -1 || (lo.value === -1 && lo.inclusive)) out.push(`-${EXP_BELOW_ONE}`);
  return out;
}
// The mirror image for upper bounds.
function exponentBelow(hi: Bound): string[] {
  if (hi.value < 0) return [];
  const out = hi.value > 0 || hi.inclusive ? [`-${EXP_ANY}`, EXP_ZERO] : [`-${EXP_NONZERO}`];
  if (hi.value > 1 || (hi.value === 1 && hi.inclusive)) out.push(EXP_BELOW_ONE);
  return out;
}

/**
 * Regexes (to intersect) for JSON numbers above `lo` and below `hi`, for any finite decimal
 * bounds (past 2^53, as `exactBound` moves them): exact in plain decimal notation; exponent forms are
 * accepted where the bound's sign settles them, or, for bounds beyond ±1, where the number's
 * magnitude is below 1 (so 1e-06 meets `minimum: 0` and `maximum: 5`), and refused otherwise.
 */
export function decimalBounds(lo: Bound, hi: Bound): string[] {
  const out: string[] = [];
  const alt = (parts: (string | null)[]): string =>
    parts
      .filter((p) => p !== null)
      .map((p) => `(?:${p})`)
      .join('|');
  if (lo.value !== -Infinity) {
    const a = boundDigits(lo);
    const below = a.negative ? magnitudeBelow(a, lo.inclusive) : null;
    const plain = a.negative
      ? [UNSIGNED, below === null ? null : `-(?:${below})`]
      : [magnitudeAbove(a, lo.inclusive), lo.value === 0 && lo.inclusive ? NEGATIVE_ZERO : null];
    out.push(alt([...plain, ...exponentAbove(lo)]));
  }
  if (hi.value !== Infinity) {
    const b = boundDigits(hi);
    const below = b.negative ? null : magnitudeBelow(b, hi.inclusive);
    const plain = b.negative ? [`-(?:${magnitudeAbove(b, hi.inclusive)})`] : [`-${POSITIVE}`, below, hi.value > 0 || hi.inclusive ? NEGATIVE_ZERO : null];
    out.push(alt([...plain, ...exponentBelow(hi)]));
  }
  return out;
}

/** Most states a remainder automaton (`multiplesAutomaton`) may have. */
export const MAX_MULTIPLE_STATES = 100_000;

/** The remainder automaton of the plain decimals that are multiples of `m` (any positive number). */
export const multipleOfAutomaton = (m: number): ByteAutomaton | null => multiplesAutomaton([m], (isMultiple) => isMultiple(m));

/**
 * An automaton for the plain decimals x for which `holds` is true, told which of `multiples`
 * (positive numbers) x is a multiple of. With every m = p_m / 10^d (p_m an integer, d the
 * most fraction digits among them) and p the least common multiple of the p_m, it reads the
 * digits left to right keeping N mod p, N the number read so far times 10^d (fraction digits
 * counted up to d; past d, zeros keep it, and any other digit makes x a multiple of none).
 * Null when p is not a safe integer or the states exceed `MAX_MULTIPLE_STATES`.
 */
export function multiplesAutomaton(multiples: readonly number[], holds: (isMultiple: (m: number) => boolean) => boolean): ByteAutomaton | null {
  const decimals = multiples.map((m) => plainDecimal(m));
  const d = Math.max(0, ...decimals.map(({ fraction }) => fraction.length));
  const scaled = new Map(multiples.map((m, i) => [m, Number(decimals[i]!.int + decimals[i]!.fraction) * 10 ** (d - decimals[i]!.fraction.length)]));
  const depth = Math.max(d, 1);
  const nonIntegral = holds(() => false); // past d fraction digits, x is a multiple of none
  const stateCount = (modulus: number): number => 3 + modulus * (2 + depth) + (nonIntegral ? 1 : 0);
  let p = 1;
  for (const q of scaled.values()) {
    if (!Number.isSafeInteger(q) || q === 0) return null;
    p = (p / gcd(p, q)) * q;
    if (!Number.isSafeInteger(p) || stateCount(p) > MAX_MULTIPLE_STATES) return null;
  }
  // Whether x with N ≡ r (mod p) holds (decided once per residue).
  const verdicts = new Map<number, boolean>();
  const accepts = (r: number): boolean => {
    let verdict = verdicts.get(r);
    if (verdict === undefined) verdicts.set(r, (verdict = holds((m) => r % scaled.get(m)! === 0)));
    return verdict;
  };
  // 10^k mod p.
  const shifted = (r: number, k: number): number => {
    for (let i = 0; i < k; i++) r = (r * 10) % p;
    return r;
  };
  const [START, MINUS, ZERO, PAST] = [0, 1, 2, 3 + p * (2 + depth)];
  const integer = (r: number): number => 3 + r;
  const point = (r: number): number => 3 + p + r;
  const fractional = (r: number, j: number): number => 3 + 2 * p + (j - 1) * p + r;
  const edges: number[][] = Array.from({ length: stateCount(p) }, () => []);
  const accepting: boolean[] = edges.map(() => false);
  const digits = (from: number, to: (digit: number) => number, first = 0, last = 9): void => {
    for (let digit = first; digit <= last; digit++) edges[from]!.push(0x30 + digit, 0x30 + digit, to(digit));
  };
  // Past d fraction digits, a digit other than 0 (to PAST, where x is a multiple of none,
  // there where that holds).
  const past = (from: number): void => {
    if (nonIntegral) digits(from, () => PAST, 1);
  };
  edges[START]!.push(0x2d, 0x2d, MINUS);
  for (const from of [START, MINUS]) {
    digits(from, () => ZERO, 0, 0);
    for (let digit = 1; digit <= 9; digit++) edges[from]!.push(0x30 + digit, 0x30 + digit, integer(digit % p));
  }
  edges[ZERO]!.push(0x2e, 0x2e, point(0));
  accepting[ZERO] = accepts(0);
  if (nonIntegral) {
    digits(PAST, () => PAST);
    accepting[PAST] = true;
  }
  for (let r = 0; r < p; r++) {
    digits(integer(r), (digit) => integer((r * 10 + digit) % p));
    edges[integer(r)]!.push(0x2e, 0x2e, point(r));
    accepting[integer(r)] = accepts(shifted(r, d));
    if (d >= 1) digits(point(r), (digit) => fractional((r * 10 + digit) % p, 1));
    else {
      digits(point(r), () => fractional(r, 1), 0, 0);
      past(point(r));
    }
    for (let j = 1; j <= depth; j++) {
      if (j < d) digits(fractional(r, j), (digit) => fractional((r * 10 + digit) % p, j + 1));
      else {
        digits(fractional(r, j), () => fractional(r, j), 0, 0);
        past(fractional(r, j));
      }
      accepting[fractional(r, j)] = accepts(shifted(r, Math.max(0, d - j)));
    }
  }
  return { edges, accepting };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * Regex for plain decimals that are multiples of `m`, or null when that is not expressible
 * here: m = 10^-d (0.01, 0.1: at most d significant fraction digits), 1, or an integer m =
 * 2^a·5^b such as 10 or 25 (multiples decided by the last digits).
 */
export function multipleOfRegex(m: number): string | null {
  const { int, fraction } = plainDecimal(m);
  if (int === '0' && /^0*1$/.test(fraction)) return `-?(?:0|[1-9]\\d*)(?:\\.\\d{1,${fraction.length}}0*)?`;
  if (fraction !== '') return null;
  if (int === '1') return '-?(?:0|[1-9]\\d*)(?:\\.0+)?';
  let p = m;
  let a = 0;
  let b = 0;
  for (; p % 2 === 0; a++) p /= 2;
  for (; p % 5 === 0; b++) p /= 5;
  const length = Math.max(a, b);
  if (p !== 1 || 10 ** length / m > 1000) return null;
  // The last `length` digits (zero-padded) decide: multiples with fewer digits are listed
  // whole, then those with exactly `length` digits, then longer ones by their suffix.
  const suffixes: string[] = [];
  for (let k = 0; k < 10 ** length; k += m) suffixes.push(String(k).padStart(length, '0'));
  const short = [...new Set(suffixes.map((s) => s.replace(/^0+(?=\d)/, '')).filter((s) => s.length < length))];
  const full = suffixes.filter((s) => s[0] !== '0' || s === '0');
  return `-?(?:${[...short, ...full, `[1-9]\\d*(?:${suffixes.join('|')})`].join('|')})(?:\\.0+)?`;
}

/**
 * Regex for numbers that are not integers, in the spellings whose value is certain: plain
 * decimals with a nonzero fraction digit and at most 15 significant digits (a double keeps
 * them, so none rounds to an integer), and such mantissas with an exponent from -1 to -300
 * (magnitudes below 1 that stay above 0). Longer spellings (`0.30000000000000004`) and
 * exponents that leave the magnitude above 1 (`1.25e1`) are refused.
 */
export function nonIntegerRegex(): string {
  const fraction = (room: number): string => `\\.\\d{0,${room - 1}}[1-9]0*`;
  const plain = ['0\\.0{0,300}[1-9](?:\\d{0,13}[1-9])?0*'];
  for (let length = 1; length <= 14; length++) plain.push(`[1-9]\\d{${length - 1}}${fraction(15 - length)}`);
  const exponent = `[1-9](?:${fraction(14)}|\\.0+)?[eE]-0*(?:[1-9]\\d?|[12]\\d\\d|300)`;
  return `-?(?:${[...plain, exponent].join('|')})`;
}
