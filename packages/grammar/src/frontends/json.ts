/**
 * Any JSON value (RFC 8259), built directly in the IR with greedy lexemes: strings, numbers
 * and literals are self-delimiting in JSON, so longest-match lexing never changes the
 * language. The lexemes are exported for the JSON Schema compiler to reuse.
 */
import { normalizeRanges, rx, type ByteRegex } from '../ir/byte-regex.ts';
import { GrammarBuilder, expr, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';

/** Where whitespace may go between JSON tokens, and how much. */
export interface JsonWhitespace {
  /** `compact`: none at all. `any`: any JSON whitespace between tokens (default). */
  readonly style?: 'compact' | 'any';
  /** Longest run of whitespace allowed in one place (default 64); caps runaway output. */
  readonly maxRun?: number;
  /**
   * Exact separators, as Python's `json.dumps(separators=…)` takes them: `{ item: ', ', key:
   * ': ' }` writes `{"a": 1, "b": [1, 2]}`. When set, no other whitespace is allowed and
   * `style` is ignored. Each must be `,` (item) or `:` (key) with JSON whitespace around it.
   */
  readonly separators?: { readonly item: string; readonly key: string };
}

/**
 * Caps on repetition a schema leaves unbounded, so a model cannot write forever: arrays, objects
 * and strings without their own (smaller) `maxItems`, `maxProperties`, `maxLength` get these.
 * Default: none (the schema's language, exactly).
 */
export interface JsonRepetition {
  /** Most items in one array. */
  readonly maxItems?: number;
  /** Most members in one object. */
  readonly maxProperties?: number;
  /** Most characters in one string (keys included). */
  readonly maxStringLength?: number;
}

/** The caps of `repetition`, checked: each a non-negative integer, Infinity when absent. */
export function repetitionCaps(repetition: JsonRepetition = {}): Required<JsonRepetition> {
  const cap = (name: keyof JsonRepetition): number => {
    const value = repetition[name] ?? Infinity;
    if (!(value === Infinity || (Number.isSafeInteger(value) && value >= 0)))
      throw new RangeError(`repetition.${name} must be a non-negative integer, not ${value}`);
    return value;
  };
  return { maxItems: cap('maxItems'), maxProperties: cap('maxProperties'), maxStringLength: cap('maxStringLength') };
}

const HEX = normalizeRanges([
  [0x30, 0x39],
  [0x41, 0x46],
  [0x61, 0x66],
]);
const DIGIT = rx.byteRanges([0x30, 0x39]);
// Built once, then shared (regexes are immutable).
let stringChar: ByteRegex | undefined;
let number: ByteRegex | undefined;

/** Regexes of JSON's lexemes. */
export const jsonRegex = {
  /** A string literal, quotes included: any Unicode text, escapes as RFC 8259 allows. */
  string(content: ByteRegex = jsonRegex.stringChar(), min = 0, max = Infinity): ByteRegex {
    return rx.seq([rx.literal('"'), rx.repeat(content, min, max), rx.literal('"')]);
  },
  /** One character of string content, unescaped or escaped. */
  stringChar(): ByteRegex {
    return (stringChar ??= rx.alt([
      rx.codePoints(
        normalizeRanges([
          [0x20, 0x21],
          [0x23, 0x5b],
          [0x5d, 0x10ffff],
        ]),
      ),
      rx.seq([
        rx.literal('\\'),
        rx.alt([
          rx.byteRanges(
            normalizeRanges([
              [0x22, 0x22],
              [0x5c, 0x5c],
              [0x2f, 0x2f],
              [0x62, 0x62],
              [0x66, 0x66],
              [0x6e, 0x6e],
              [0x72, 0x72],
              [0x74, 0x74],
            ]),
          ),
          rx.seq([rx.literal('u'), rx.repeat(rx.byteRanges(HEX), 4, 4)]),
        ]),
      ]),
    ]));
  },
  number(): ByteRegex {
    if (number !== undefined) return number;
    const int = rx.alt([rx.literal('0'), rx.seq([rx.byteRanges([0x31, 0x39]), rx.repeat(DIGIT, 0, Infinity)])]);
    const frac = rx.seq([rx.literal('.'), rx.repeat(DIGIT, 1, Infinity)]);
    const exp = rx.seq([
      rx.byteRanges(
        normalizeRanges([
          [0x45, 0x45],
          [0x65, 0x65],
        ]),
      ),
      rx.repeat(
        rx.byteRanges(
          normalizeRanges([
            [0x2b, 0x2b],
            [0x2d, 0x2d],
          ]),
        ),
        0,
        1,
      ),
      rx.repeat(DIGIT, 1, Infinity),
    ]);
    return (number = rx.seq([rx.repeat(rx.literal('-'), 0, 1), int, rx.repeat(frac, 0, 1), rx.repeat(exp, 0, 1)]));
  },
  whitespace(maxRun: number): ByteRegex {
    return rx.repeat(
      rx.byteRanges(
        normalizeRanges([
          [0x09, 0x0a],
          [0x0d, 0x0d],
          [0x20, 0x20],
        ]),
      ),
      1,
      maxRun,
    );
  },
};

/** Builds JSON structure in a grammar: punctuation, whitespace and the any-value rule. */
export class JsonGrammarParts {
  readonly #ws: number | null;
  readonly #itemSeparator: Expr;
  readonly #keySeparator: Expr;
  /** The repetition caps (Infinity where there is none). */
  readonly caps: Required<JsonRepetition>;

  constructor(
    readonly builder: GrammarBuilder,
    whitespace: JsonWhitespace = {},
    repetition: JsonRepetition = {},
  ) {
    this.caps = repetitionCaps(repetition);
    const maxRun = whitespace.maxRun ?? 64;
    if (!(Number.isInteger(maxRun) && maxRun >= 1)) throw new RangeError(`whitespace.maxRun must be a positive integer, not ${maxRun}`);
    const { separators } = whitespace;
    this.#ws = whitespace.style === 'compact' || separators !== undefined ? null : builder.lexeme({ name: 'WS', regex: jsonRegex.whitespace(maxRun) });
    this.#itemSeparator = this.#separator(separators?.item, ',');
    this.#keySeparator = this.#separator(separators?.key, ':');
  }

  #separator(exact: string | undefined, punctuation: string): Expr {
    if (exact === undefined) return expr.seq([this.ws(), this.token(punctuation), this.ws()]);
    if (!new RegExp(`^[ \\t\\n\\r]*${punctuation}[ \\t\\n\\r]*$`).test(exact)) {
      throw new RangeError(`separator ${JSON.stringify(exact)} must be "${punctuation}" with JSON whitespace around it`);
    }
    return this.token(exact);
  }

  /** Optional whitespace (nothing in compact style or with exact separators). */
  ws(): Expr {
    return this.#ws === null ? expr.empty : expr.repeat(expr.lexeme(this.#ws), 0, 1);
  }

  /** Between array items and object members: `,` with the configured whitespace. */
  itemSeparator(): Expr {
    return this.#itemSeparator;
  }

  /** Between a key and its value: `:` with the configured whitespace. */
  keySeparator(): Expr {
    return this.#keySeparator;
  }

  /** A punctuation or keyword lexeme: `{`, `,`, `true`, ... */
  token(text: string): Expr {
    return expr.lexeme(this.builder.lexeme({ name: JSON.stringify(text), regex: rx.literal(text) }));
  }

  /**
   * A lexeme; `origin` (a JSON pointer, say) is named by limit errors it causes; it matches
   * none of the texts of the lexemes `excludes` lists.
   */
  lexeme(name: string, regex: ByteRegex, origin?: string, excludes?: readonly Expr[]): Expr {
    const excluded = excludes && [...new Set(excludes.map((e) => (e.kind === 'lexeme' ? e.index : Number.NaN)))].sort((a, b) => a - b);
    if (excluded?.some(Number.isNaN)) throw new Error('a lexeme can only exclude lexemes');
    return expr.lexeme(
      this.builder.lexeme({
        name,
        regex,
        ...(origin !== undefined && { origin }),
        ...(excluded !== undefined && excluded.length > 0 && { excludes: excluded }),
      }),
    );
  }

  /** `open ws (item (ws , ws item)* ws)? close` — the shape of arrays and objects (at most `max` items). */
  list(open: string, item: Expr, close: string, min = 0, max = Infinity): Expr {
    const ws = this.ws();
    if (max === 0) return expr.seq([this.token(open), ws, this.token(close)]);
    const more = expr.seq([this.itemSeparator(), item]);
    const items = expr.seq([item, expr.repeat(more, Math.max(0, min - 1), max - 1), ws]);
    return expr.seq([this.token(open), ws, min > 0 ? items : expr.repeat(items, 0, 1), this.token(close)]);
  }

  /** A string lexeme with at most the capped number of characters. */
  #string(): Expr {
    return this.lexeme('STRING', jsonRegex.string(jsonRegex.stringChar(), 0, this.caps.maxStringLength));
  }

  /** Defines rule `name` as any JSON value and returns a reference to it. */
  anyValue(name = 'json_value'): Expr {
    const value = expr.ref(name);
    if (!this.builder.rules.has(name)) {
      this.builder.rules.set(name, expr.seq([])); // reserve the name (recursive)
      const member = expr.seq([this.#string(), this.keySeparator(), value]);
      this.builder.rules.set(
        name,
        expr.alt([
          this.list('{', member, '}', 0, this.caps.maxProperties),
          this.list('[', value, ']', 0, this.caps.maxItems),
          this.#string(),
          this.lexeme('NUMBER', jsonRegex.number()),
          this.token('true'),
          this.token('false'),
          this.token('null'),
        ]),
      );
    }
    return value;
  }
}

/** Any JSON value, optionally surrounded by whitespace (and with `repetition` capped). */
export function jsonGrammar(whitespace: JsonWhitespace = {}, repetition: JsonRepetition = {}): GrammarIR {
  const parts = new JsonGrammarParts(new GrammarBuilder(), whitespace, repetition);
  const value = parts.anyValue();
  parts.builder.rules.set('start', expr.seq([parts.ws(), value, parts.ws()]));
  return parts.builder.build('start');
}

/**
 * JSON text as Python's `json.dumps(value, ensure_ascii=False)` writes it: separators ", " and
 * ": ", floats in `repr` style (`1e-07`, `1.5e+300`), integers in full.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  if (typeof value === 'number') return pythonNumber(value);
  return JSON.stringify(value);
}

function pythonNumber(n: number): string {
  const abs = Math.abs(n);
  // Integers as ints (all digits) while JavaScript writes them so; beyond, as floats.
  if ((Number.isInteger(n) && abs < 1e21) || (abs >= 1e-4 && abs < 1e16)) return JSON.stringify(n);
  // repr switches to exponent notation outside [1e-4, 1e16), with at least two exponent digits.
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}
