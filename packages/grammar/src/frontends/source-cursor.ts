/** A position in a grammar's source text, with the small reading helpers every text front-end needs. */
import { GrammarError, type GrammarErrorCode } from '../grammar-error.ts';

export class SourceCursor {
  pos = 0;
  constructor(
    readonly source: string,
    /**
     * Comment starters this dialect accepts, to the end of the line: `#`, `#` unless it starts
     * a `#x41` character (`#!x`), `//`; or `/*` to `*\/`.
     */
    private readonly comments: readonly ('#' | '#!x' | '//' | '/*')[],
  ) {}

  get done(): boolean {
    return this.pos >= this.source.length;
  }

  peek(offset = 0): string {
    return this.source[this.pos + offset] ?? '';
  }

  startsWith(text: string): boolean {
    return this.source.startsWith(text, this.pos);
  }

  /** Skips whitespace and comments; with `newlines: false`, stops at a line break. */
  skipSpace(newlines = true): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) {
        this.pos++;
      } else if (
        c === '#' &&
        (this.comments.includes('#') || (this.comments.includes('#!x') && !/^#x[0-9a-fA-F]/.test(this.source.slice(this.pos, this.pos + 3))))
      ) {
        this.#skipLine();
      } else if (this.comments.includes('//') && this.startsWith('//')) {
        this.#skipLine();
      } else if (this.comments.includes('/*') && this.startsWith('/*')) {
        const end = this.source.indexOf('*/', this.pos + 2);
        if (end < 0) throw this.error('syntax', 'unterminated comment', this.pos, this.pos + 2);
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  /** Consumes `text` if it is next. */
  eat(text: string): boolean {
    if (!this.startsWith(text)) return false;
    this.pos += text.length;
    return true;
  }

  expect(text: string, what = JSON.stringify(text)): void {
    if (!this.eat(text)) throw this.error('syntax', `expected ${what}`);
  }

  /** Consumes a run of characters matching `pattern` (a sticky regex). */
  match(pattern: RegExp): string | null {
    pattern.lastIndex = this.pos;
    const m = pattern.exec(this.source);
    if (m === null || m.index !== this.pos) return null;
    this.pos += m[0].length;
    return m[0];
  }

  error(code: GrammarErrorCode, message: string, start = this.pos, end = start + 1): GrammarError {
    return new GrammarError(code, message, { start, end: Math.max(end, start + 1) });
  }

  #skipLine(): void {
    const end = this.source.indexOf('\n', this.pos);
    this.pos = end < 0 ? this.source.length : end;
  }
}

/**
 * Reads one escape after a backslash (the cursor is past the backslash) and returns its code
 * point: `\n \r \t \f \v \a \b \0 \xHH \uHHHH \UHHHHHHHH`, and the characters of `literal`
 * (a dialect's quotes, brackets, the backslash) as themselves. Any other escape is an error
 * at its span: `\q` is a typo or another dialect's escape, never read as `q`.
 */
export function readEscape(cursor: SourceCursor, literal: string): number {
  const start = cursor.pos - 1;
  const c = cursor.peek();
  const hex = (digits: number): number => {
    const text = cursor.source.slice(cursor.pos, cursor.pos + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text))
      throw cursor.error('syntax', `expected ${digits} hex digits after \\${c}`, start, cursor.pos + digits);
    cursor.pos += digits;
    return parseInt(text, 16);
  };
  if (c === '') throw cursor.error('syntax', 'unterminated escape', start);
  cursor.pos += c.length;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return simple;
  if (c === 'x') return hex(2);
  if (c === 'u') return hex(4);
  if (c === 'U') return hex(8);
  if (literal.includes(c)) return c.codePointAt(0)!;
  const char = String.fromCodePoint(cursor.source.codePointAt(start + 1)!);
  throw cursor.error('syntax', `unknown escape \\${char}`, start, start + 1 + char.length);
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, a: 0x07, b: 0x08, '0': 0 };

/**
 * Reads a counted repetition `{m}`, `{m,}`, `{m,n}` or `{,n}` at the cursor (spaces allowed
 * inside the braces); `n < m` and `{}` are `invalid_range` errors at its span.
 */
export function readBraceCount(cursor: SourceCursor): { min: number; max: number } {
  const start = cursor.pos;
  const m = cursor.match(/\{\s*(\d*)\s*(,?)\s*(\d*)\s*\}/y);
  if (m === null) throw cursor.error('syntax', 'expected {m}, {m,}, {m,n} or {,n}', start);
  const [, lo, comma, hi] = /\{\s*(\d*)\s*(,?)\s*(\d*)\s*\}/.exec(m)!;
  const min = lo === '' ? 0 : Number(lo);
  const max = comma === '' ? min : hi === '' ? Infinity : Number(hi);
  if ((lo === '' && comma === '') || max < min) throw cursor.error('invalid_range', `invalid repetition ${m}`, start, cursor.pos);
  return { min, max };
}

/** Reads one (possibly astral) character and returns its code point. */
export function readChar(cursor: SourceCursor): number {
  const cp = cursor.source.codePointAt(cursor.pos)!;
  cursor.pos += cp > 0xffff ? 2 : 1;
  return cp;
}
