/**
 * Numeric ranges as regular expressions over JSON number text (ECMAScript regex source).
 * Integers are exact for any bounds up to 2^53; numbers with integer bounds are exact in
 * plain decimal notation (no exponent).
 */

const digits = (n: number): string => String(n);

// Decimal strings of the same length from a to b (inclusive), no sign.
function sameLength(a: string, b: string): string {
  if (a === b) return a;
  let i = 0;
  while (a[i] === b[i]) i++;
  const prefix = a.slice(0, i);
  const restLength = a.length - i - 1;
  const da = Number(a[i]);
  const db = Number(b[i]);
  if (restLength === 0) return `${prefix}[${da}-${db}]`;
  const parts: string[] = [];
  const aRest = a.slice(i + 1);
  const bRest = b.slice(i + 1);
  const allNines = '9'.repeat(restLength);
  const allZeros = '0'.repeat(restLength);
  // First digit da with suffix >= aRest; when aRest is all zeros it joins the middle.
  let lo = da;
  if (aRest !== allZeros) {
    parts.push(`${da}(?:${sameLength(aRest, allNines)})`);
    lo = da + 1;
  }
  let hi = db;
  const tail = bRest !== allNines ? `${db}(?:${sameLength(allZeros, bRest)})` : null;
  if (tail !== null) hi = db - 1;
  if (lo <= hi) parts.push(`${lo === hi ? lo : `[${lo}-${hi}]`}\\d{${restLength}}`);
  if (tail !== null) parts.push(tail);
  return `${prefix}(?:${parts.join('|')})`;
}

/** Regex for unsigned integers n, lo <= n <= hi (hi may be Infinity), no leading zeros. */
export function uintRange(lo: number, hi: number): string | null {
  if (lo > hi) return null;
  const parts: string[] = [];
  const loLength = digits(lo).length;
  const hiLength = hi === Infinity ? loLength : digits(hi).length;
  for (let length = loLength; length <= hiLength; length++) {
    const first = length === 1 ? 0 : 10 ** (length - 1);
    const last = 10 ** length - 1;
    const a = Math.max(lo, first);
    const b = hi === Infinity ? last : Math.min(hi, last);
    if (a <= b) parts.push(sameLength(digits(a), digits(b)));
  }
  if (hi === Infinity) parts.push(`[1-9]\\d{${loLength},}`);
  return parts.join('|');
}

/** Regex for integers lo <= n <= hi (either may be infinite). */
export function intRange(lo: number, hi: number): string | null {
  const parts: string[] = [];
  if (hi >= 0) {
    const positive = uintRange(Math.max(lo, 0), hi);
    if (positive !== null) parts.push(positive);
  }
  if (lo < 0) {
    const negative = uintRange(Math.max(1, -hi), -lo);
    if (negative !== null) parts.push(`-(?:${negative})`);
  }
  return parts.length === 0 ? null : parts.map((p) => `(?:${p})`).join('|');
}

/** A bound on a number: value and whether it is included. */
export interface Bound {
  readonly value: number;
  readonly inclusive: boolean;
}

// Unsigned decimals m = I(.F)? with A <(=) m <(=) B, for integer A <= B (B may be Infinity).
function magnitudeRange(a: Bound, b: Bound): string | null {
  const parts: string[] = [];
  const anyFraction = '(?:\\.\\d+)?';
  const core = uintRange(a.inclusive ? a.value : a.value + 1, b.value === Infinity ? Infinity : b.value - 1);
  if (core !== null) parts.push(`(?:${core})${anyFraction}`);
  if (!a.inclusive && a.value < b.value) parts.push(`${digits(a.value)}\\.\\d*[1-9]\\d*`);
  if (b.value !== Infinity && b.inclusive && (a.value < b.value || a.inclusive)) parts.push(`${digits(b.value)}(?:\\.0+)?`);
  return parts.length === 0 ? null : parts.map((p) => `(?:${p})`).join('|');
}

/**
 * Regex for JSON numbers in plain decimal notation within [lo, hi] (integer bounds, either
 * may be infinite and exclusive), or null when none.
 */
export function decimalRange(lo: Bound, hi: Bound): string | null {
  const parts: string[] = [];
  // v >= 0
  if (hi.value > 0 || (hi.value === 0 && hi.inclusive)) {
    const from: Bound = lo.value < 0 ? { value: 0, inclusive: true } : lo;
    const positive = magnitudeRange(from, hi);
    if (positive !== null) parts.push(positive);
  }
  // v < 0: "-m" with m > 0
  if (lo.value < 0) {
    const from: Bound = hi.value < 0 ? { value: -hi.value, inclusive: hi.inclusive } : { value: 0, inclusive: false };
    const negative = magnitudeRange(from, { value: -lo.value, inclusive: lo.inclusive });
    if (negative !== null) parts.push(`-(?:${negative})`);
  }
  return parts.length === 0 ? null : parts.map((p) => `(?:${p})`).join('|');
}
