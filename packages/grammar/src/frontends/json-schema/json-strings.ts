/**
 * Characters as they are written inside a JSON string, the way JSON.stringify and Python's
 * json.dumps(ensure_ascii=False) write them: `"` and `\` escaped, control characters as
 * `\n`-style or `\u00XX` escapes (either hex case), `/` raw or as `\/`, everything else raw
 * UTF-8. Patterns, lengths and formats apply to the decoded string, so they are built over
 * these encodings.
 */
import { encodeUtf8, MAX_CODE_POINT, memoized, normalizeRanges, rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { contains, subtract } from '../../ir/code-point-sets.ts';

const SHORT_ESCAPES = new Map([
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0c, 'f'],
  [0x0d, 'r'],
]);
const SPECIAL = normalizeRanges([
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
]);
// The bytes that spell any of `digits` (0 to 15) as a hex digit, in either case.
const hexDigits = (digits: readonly number[]): ByteRegex =>
  rx.byteRanges(
    normalizeRanges(
      digits.flatMap((digit) => {
        const lower = digit.toString(16).charCodeAt(0);
        const upper = digit.toString(16).toUpperCase().charCodeAt(0);
        return [
          [lower, lower],
          [upper, upper],
        ];
      }),
    ),
  );

// The control characters `codes` (below 0x20) as `\u00XX`, hex digits in either case: one
// automaton sharing the `\u00` and the first digit, not one branch per character (a `.`
// would otherwise take 31 branches of six states to every character it reads).
const controlEscapes = (codes: readonly number[]): ByteRegex =>
  rx.seq([
    rx.literal('\\u00'),
    rx.alt(
      [0, 1]
        .map((high) => codes.filter((c) => c >> 4 === high).map((c) => c & 15))
        .flatMap((lows, high) => (lows.length === 0 ? [] : [rx.seq([hexDigits([high]), hexDigits(lows)])])),
    ),
  ]);

/** One character of `ranges` (code points) in JSON string encoding. */
export const jsonChars = memoized(
  (ranges: readonly number[]) => ranges.join(),
  (ranges) => {
    const alternatives: ByteRegex[] = [rx.codePoints(subtract(ranges, SPECIAL))];
    if (contains(ranges, 0x22)) alternatives.push(rx.literal('\\"'));
    if (contains(ranges, 0x5c)) alternatives.push(rx.literal('\\\\'));
    if (contains(ranges, 0x2f)) alternatives.push(rx.literal('\\/'));
    const controls = Array.from({ length: 0x20 }, (_, c) => c).filter((c) => contains(ranges, c));
    for (const c of controls) {
      const short = SHORT_ESCAPES.get(c);
      if (short) alternatives.push(rx.literal(`\\${short}`));
    }
    if (controls.length > 0) alternatives.push(controlEscapes(controls));
    return rx.alt(alternatives);
  },
);

/** A JSON string literal whose decoded content matches `content` (built with `jsonChars`). */
export function jsonString(content: ByteRegex): ByteRegex {
  return rx.seq([rx.literal('"'), content, rx.literal('"')]);
}

/** Every JSON spelling (as `jsonChars` writes characters) of one string value, quotes included. */
export function jsonStringSpellings(value: string): ByteRegex {
  return jsonString(jsonContentSpellings(value));
}

/** Every JSON spelling of one string value's content (inside the quotes). */
export function jsonContentSpellings(value: string): ByteRegex {
  // Runs of characters with one spelling (all but `"`, `\`, `/`, controls and lone
  // surrogates, which have no UTF-8 spelling) are literals.
  const parts: ByteRegex[] = [];
  let run = '';
  for (const c of value) {
    const code = c.codePointAt(0)!;
    if (code >= 0x20 && c !== '"' && c !== '\\' && c !== '/' && (code < 0xd800 || code > 0xdfff)) {
      run += c;
      continue;
    }
    if (run !== '') parts.push(rx.literal(run));
    run = '';
    parts.push(jsonChars([code, code]));
  }
  if (run !== '') parts.push(rx.literal(run));
  return rx.seq(parts);
}

/**
 * One JSON spelling of a string value, quotes included, as `jsonChars` writes characters
 * (`"`, `\` and control characters escaped, everything else raw UTF-8, lone surrogates too):
 * a regex built with `jsonChars` over decoded content matches every spelling of a value or none.
 */
export function jsonStringBytes(value: string): Uint8Array {
  const out: number[] = [0x22];
  for (const c of value) {
    const code = c.codePointAt(0)!;
    if (code === 0x22 || code === 0x5c) out.push(0x5c, code);
    else if (code < 0x20) out.push(...Array.from(`\\u00${code.toString(16).padStart(2, '0')}`, (ch) => ch.charCodeAt(0)));
    else out.push(...encodeUtf8(code));
  }
  out.push(0x22);
  return Uint8Array.from(out);
}

// Every control character as `\u00XX` with lowercase hex digits.
const LOWERCASE_CONTROL_ESCAPES = rx.seq([rx.literal('\\u00'), rx.byteRanges([0x30, 0x31]), rx.byteRanges([0x30, 0x39, 0x61, 0x66])]);

/**
 * The content of every string value spelled once, as `jsonStringBytes` spells it (control
 * characters as lowercase `\u00XX`, `/` raw): intersected with content built with
 * `jsonChars`, it has as many strings as that has values.
 */
export const CANONICAL_CONTENT: ByteRegex = rx.repeat(
  rx.alt([rx.codePoints(subtract([0, MAX_CODE_POINT], SPECIAL)), rx.literal('\\"'), rx.literal('\\\\'), LOWERCASE_CONTROL_ESCAPES]),
  0,
  Infinity,
);
