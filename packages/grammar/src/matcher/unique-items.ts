/**
 * Distinct items kept while matching: the arrays `UniqueArrays` marks (JSON Schema
 * `uniqueItems` no grammar over sets can say, see `frontends/json-schema/unique-paths.ts`)
 * may not close a string or an object equal to one of their earlier items. A cursor follows
 * the JSON text the grammar accepts: the containers open, the path state of each, the items
 * each checked array holds (in canonical JSON: strings decoded, `"\n"` and `"\u000a"` are one
 * item; objects with their members sorted, numbers by value), and the member names on the way
 * down. Its items are strings and objects whose every prefix has endless completions, so
 * refusing the bytes that close a repeated item is all it takes: no prefix is left without a
 * way on.
 */
import type { UniqueArrays } from '../ir/grammar-ir.ts';

// An open array or object: its path state (-1: nothing checked below), the items begun (an
// array) or the current member's name (an object, when the path needs it), and the strings
// a checked array holds (shared between copies, never changed in place).
interface Frame {
  readonly array: boolean;
  readonly path: number;
  items: number;
  key: string;
  seen: readonly string[];
  // An object item of a checked array: where its text starts in the cursor's capture (-1: not one).
  readonly captureAt: number;
}

// Where the cursor is: before a value, after one, before a member's name or its colon, in a
// string, in a number or literal.
const VALUE = 0;
const AFTER = 1;
const KEY = 2;
const COLON = 3;
const STRING = 4;
const SCALAR = 5;

// What a string being read is: a member name to decode, an item of a checked array, or one
// nobody needs (skipped).
const SKIP = 0;
const NAME = 1;
const ITEM = 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
const decoder = new TextDecoder();

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The cursor over one output: copy it to try bytes (`feed` changes it). */
export class UniqueItems {
  readonly #table: UniqueArrays;
  #stack: Frame[] = [];
  #mode = VALUE;
  #string = SKIP;
  #name = false; // the string being read is a member name
  #text = '';
  #raw: number[] = [];
  #escape = 0; // 0: none, 1: after a backslash, 2..5: hex digits of \u read so far + 2
  #hex = 0;
  // The bytes since the outermost object item being written began (null: none is).
  #capture: number[] | null = null;

  constructor(table: UniqueArrays) {
    this.#table = table;
  }

  /**
   * How many quotes a token needs to close a string that repeats an item from here: 1 in an
   * item that may still end as an earlier one, 3 in one that cannot (close it, open and close
   * another), 2 between items of a checked array; 0 outside any checked array (then only a
   * token that opens one could, with a `[`). Inside a checked array, a token with a `}` may
   * close an object item too.
   */
  get quotesToRepeat(): number {
    const top = this.#stack[this.#stack.length - 1];
    const checked = (f: Frame | undefined): boolean => f !== undefined && f.array && f.path >= 0 && this.#table.states[f.path]!.unique;
    if (!this.#stack.some(checked)) return 0;
    if (!checked(top)) return 1;
    if (this.#mode !== STRING) return 2;
    if (this.#string !== ITEM || this.#escape !== 0) return 1;
    // The item so far: its whole characters (a token may have ended inside one).
    let whole = this.#raw.length;
    for (let back = 1; back <= Math.min(3, whole); back++) {
      const b = this.#raw[whole - back]!;
      if (b >= 0xc0) {
        if (back < (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2)) whole -= back;
        break;
      }
      if (b < 0x80) break;
    }
    const prefix = this.#text + decoder.decode(Uint8Array.from(this.#raw.slice(0, whole)));
    // (Half a surrogate pair: its other half decides how the item is written.)
    if (/[\ud800-\udbff]$/.test(prefix)) return 1;
    const text = JSON.stringify(prefix).slice(0, -1);
    return top!.seen.some((v) => v.startsWith(text)) ? 1 : 3;
  }

  /** An independent copy. */
  copy(): UniqueItems {
    const copy = new UniqueItems(this.#table);
    copy.#stack = this.#stack.map((f) => ({ ...f }));
    copy.#mode = this.#mode;
    copy.#string = this.#string;
    copy.#name = this.#name;
    copy.#text = this.#text;
    copy.#raw = this.#raw.slice();
    copy.#escape = this.#escape;
    copy.#hex = this.#hex;
    copy.#capture = this.#capture?.slice() ?? null;
    return copy;
  }

  /** Feeds bytes the grammar accepts; false when they close an item a checked array already holds (then the cursor is unusable). */
  feed(bytes: Uint8Array): boolean {
    for (const b of bytes) {
      this.#capture?.push(b);
      if (!this.#byte(b)) return false;
    }
    return true;
  }

  #byte(b: number): boolean {
    switch (this.#mode) {
      case STRING:
        return this.#inString(b);
      case SCALAR:
        if (!(b === 0x2c || b === 0x5d || b === 0x7d || isSpace(b))) return true;
        this.#mode = AFTER;
        return this.#byte(b);
      case VALUE:
        if (isSpace(b)) return true;
        if (b === 0x5d) return this.#close();
        return this.#value(b);
      case AFTER: {
        if (isSpace(b)) return true;
        const top = this.#stack[this.#stack.length - 1];
        if (b === 0x2c) this.#mode = top?.array === true ? VALUE : KEY;
        else if (b === 0x5d || b === 0x7d) return this.#close();
        return true;
      }
      case KEY:
        if (isSpace(b)) return true;
        if (b === 0x7d) return this.#close();
        if (b === QUOTE) this.#startString(true, this.#stack[this.#stack.length - 1]!.path >= 0 ? NAME : SKIP);
        return true;
      default: // COLON
        if (b === 0x3a) this.#mode = VALUE;
        return true;
    }
  }

  // A value starts with byte `b`: its path state from its container's.
  #value(b: number): boolean {
    const top = this.#stack[this.#stack.length - 1];
    let path = 0;
    if (top !== undefined) {
      const state = top.path < 0 ? undefined : this.#table.states[top.path]!;
      if (top.array) {
        path = state === undefined ? -1 : (state.items[top.items] ?? state.otherItems);
        top.items++;
      } else {
        path = state === undefined ? -1 : Object.hasOwn(state.keys, top.key) ? state.keys[top.key]! : state.otherKeys;
      }
    }
    const checked = top?.array === true && top.path >= 0 && this.#table.states[top.path]!.unique;
    if (b === 0x5b || b === 0x7b) {
      let captureAt = -1;
      if (checked && b === 0x7b) {
        if (this.#capture === null) this.#capture = [b];
        captureAt = this.#capture.length - 1;
      }
      this.#stack.push({ array: b === 0x5b, path, items: 0, key: '', seen: [], captureAt });
      this.#mode = b === 0x5b ? VALUE : KEY;
    } else if (b === QUOTE) {
      this.#startString(false, checked ? ITEM : SKIP);
    } else {
      this.#mode = SCALAR;
    }
    return true;
  }

  #close(): boolean {
    const closed = this.#stack.pop()!;
    this.#mode = AFTER;
    if (closed.captureAt < 0) return true;
    // An object item of a checked array ends: is it one the array holds?
    const item = canonicalJson(decoder.decode(Uint8Array.from(this.#capture!.slice(closed.captureAt))));
    if (!this.#stack.some((f) => f.captureAt >= 0)) this.#capture = null;
    return this.#add(this.#stack[this.#stack.length - 1]!, item);
  }

  // Adds an item (canonical JSON) to a checked array; false when the array holds it already.
  #add(array: Frame, item: string): boolean {
    if (array.seen.includes(item)) return false;
    array.seen = [...array.seen, item];
    return true;
  }

  #startString(name: boolean, kind: number): void {
    this.#mode = STRING;
    this.#name = name;
    this.#string = kind;
    this.#text = '';
    this.#raw.length = 0;
    this.#escape = 0;
  }

  #inString(b: number): boolean {
    if (this.#escape === 1) {
      if (b === 0x75) {
        this.#escape = 2;
        this.#hex = 0;
      } else {
        this.#text += ESCAPES[b] ?? String.fromCharCode(b);
        this.#escape = 0;
      }
      return true;
    }
    if (this.#escape >= 2) {
      this.#hex = this.#hex * 16 + parseInt(String.fromCharCode(b), 16);
      if (++this.#escape === 6) {
        this.#text += String.fromCharCode(this.#hex);
        this.#escape = 0;
      }
      return true;
    }
    if (b === BACKSLASH) {
      this.#flush();
      this.#escape = 1;
      return true;
    }
    if (b !== QUOTE) {
      if (this.#string !== SKIP) this.#raw.push(b);
      return true;
    }
    // The string ends.
    this.#flush();
    this.#mode = this.#name ? COLON : AFTER;
    if (this.#string === NAME) this.#stack[this.#stack.length - 1]!.key = this.#text;
    if (this.#string !== ITEM) return true;
    return this.#add(this.#stack[this.#stack.length - 1]!, JSON.stringify(this.#text));
  }

  // Raw UTF-8 read so far, decoded onto the text (an escape or the end of the string follows
  // a whole character).
  #flush(): void {
    if (this.#raw.length === 0) return;
    if (this.#string !== SKIP) this.#text += decoder.decode(Uint8Array.from(this.#raw));
    this.#raw.length = 0;
  }
}

// Per vocabulary: the tokens with at least 1, 2 and 3 quotes in their bytes (only those can
// close a string), those with a `}` (only those can close an object), and those with a `[`
// and either (only those can open a checked array and close an item in it).
const closingTokens = new WeakMap<object, { readonly quoted: readonly Int32Array[]; readonly braced: Int32Array; readonly opening: Int32Array }>();

/**
 * Clears from `bits` (a packed bitset of allowed tokens) the tokens whose bytes would close
 * an item a checked array already holds, from the state `cursor` is in. `vocab` is the key
 * its lists of tokens are remembered by.
 */
export function withoutRepeatedItems(cursor: UniqueItems, bits: Uint32Array, vocab: object, tokenCount: number, tokenBytes: (id: number) => Uint8Array): void {
  let lists = closingTokens.get(vocab);
  if (lists === undefined) {
    const byCount: number[][] = [[], [], []];
    const braced: number[] = [];
    const opening: number[] = [];
    for (let id = 0; id < tokenCount; id++) {
      const bytes = tokenBytes(id);
      const quotes = bytes.reduce((n, b) => n + (b === QUOTE ? 1 : 0), 0);
      for (let k = 0; k < Math.min(quotes, 3); k++) byCount[k]!.push(id);
      const brace = bytes.includes(0x7d);
      if (brace) braced.push(id);
      if ((quotes > 0 || brace) && bytes.includes(0x5b)) opening.push(id);
    }
    closingTokens.set(
      vocab,
      (lists = { quoted: byCount.map((ids) => Int32Array.from(ids)), braced: Int32Array.from(braced), opening: Int32Array.from(opening) }),
    );
  }
  const quotes = cursor.quotesToRepeat;
  for (const list of quotes === 0 ? [lists.opening] : [lists.quoted[quotes - 1]!, lists.braced]) {
    for (const id of list) {
      if ((bits[id >>> 5]! & (1 << (id & 31))) === 0) continue;
      if (!cursor.copy().feed(tokenBytes(id))) bits[id >>> 5]! &= ~(1 << (id & 31));
    }
  }
}

/**
 * A JSON text in canonical form, for equality as JSON Schema has it: members sorted by name,
 * strings as `JSON.stringify` writes them, numbers as exact decimals (`1`, `1.0` and `10e-1`
 * are one); the text is JSON (the grammar wrote it).
 */
export function canonicalJson(text: string): string {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const value = (): string => {
    space();
    const c = text[at]!;
    if (c === '{') {
      at++;
      const members: [string, string][] = [];
      space();
      if (text[at] === '}') at++;
      else {
        for (;;) {
          space();
          const name = JSON.parse(stringLiteral()) as string;
          space();
          at++; // :
          members.push([name, value()]);
          space();
          if (text[at++] === '}') break;
        }
      }
      members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${members.map(([name, v]) => `${JSON.stringify(name)}:${v}`).join(',')}}`;
    }
    if (c === '[') {
      at++;
      const items: string[] = [];
      space();
      if (text[at] === ']') at++;
      else {
        for (;;) {
          items.push(value());
          space();
          if (text[at++] === ']') break;
        }
      }
      return `[${items.join(',')}]`;
    }
    if (c === '"') return JSON.stringify(JSON.parse(stringLiteral()) as string);
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at))![0];
    at += literal.length;
    return /^[tfn]/.test(literal) ? literal : canonicalNumber(literal);
  };
  const stringLiteral = (): string => {
    const from = at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return text.slice(from, at);
  };
  return value();
}

// A JSON number as an exact decimal: its significant digits and exponent (`0` for zero).
function canonicalNumber(literal: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  let digits = (whole! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let power = BigInt(exponent) - BigInt(fraction.length);
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  power += BigInt(trailing);
  return `${sign}${digits}e${power}`;
}
