/** A position in a grammar's source text, with the small reading helpers every text front-end needs. */
import { GrammarError, type GrammarErrorCode } from '../errors.ts';

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
      } else if (c === '#' && (this.comments.includes('#') || (this.comments.includes('#!x') && !/^#x[0-9a-fA-F]/.test(this.source.slice(this.pos, this.pos + 3))))) {
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
 * point: `\n \r \t \\ \" \' \xHH \uHHHH \UHHHHHHHH`, and any other character as itself.
 */
export function readEscape(cursor: SourceCursor): number {
  const start = cursor.pos - 1;
  const c = cursor.peek();
  cursor.pos++;
  const hex = (digits: number): number => {
    const text = cursor.source.slice(cursor.pos, cursor.pos + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text)) throw cursor.error('syntax', `expected ${digits} hex digits after \\${c}`, start, cursor.pos + digits);
    cursor.pos += digits;
    return parseInt(text, 16);
  };
  switch (c) {
    case 'n':
      return 0x0a;
    case 'r':
      return 0x0d;
    case 't':
      return 0x09;
    case 'f':
      return 0x0c;
    case 'v':
      return 0x0b;
    case '0':
      return 0;
    case 'x':
      return hex(2);
    case 'u':
      return hex(4);
    case 'U':
      return hex(8);
    case '':
      throw cursor.error('syntax', 'unterminated escape', start);
    default:
      return c.codePointAt(0)!;
  }
}

/** Reads one (possibly astral) character and returns its code point. */
export function readChar(cursor: SourceCursor): number {
  const cp = cursor.source.codePointAt(cursor.pos)!;
  cursor.pos += cp > 0xffff ? 2 : 1;
  return cp;
}
