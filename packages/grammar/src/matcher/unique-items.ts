/**
 * Distinct items kept while matching: the arrays `UniqueArrays` marks (JSON Schema
 * `uniqueItems` no grammar over sets can say, see `frontends/json-schema/unique-paths.ts`)
 * may not close an item equal to one of their earlier items, and the objects it marks may not
 * repeat a member's name (`distinctKeys`). A cursor follows the JSON text the grammar
 * accepts: the containers open, the path state of each, the items
 * each checked array holds (in canonical JSON: strings decoded, `"\n"` and `"\u000a"` are one
 * item; objects with their members sorted, numbers by value), and the member names on the way
 * down. Where items are strings and objects whose every prefix has endless completions,
 * refusing the bytes that close a repeated item is all it takes: no prefix is left without a
 * way on. Where they are strings that may run out of completions (`closedItems`: constants,
 * a length cap, a pattern that closes), bytes are also refused when they leave an item, or
 * the item a comma asks for, no way to end but as an earlier one (`endsAnew`: a count of
 * the values left where they can be listed, else a search of the item automaton along the
 * earlier items). Numbers (`numberItems`) are compared by value when they end, and a prefix
 * that fixes a written value is refused (`fixedItem`: `0e`, an integer's `5.`), and so are
 * literals (`true`, `false`, `null`: their first letter fixes them). Arrays and objects with
 * endlessly many completions are compared when they close. Objects of
 * named members only (`objectItems`) are refused likewise where every way to finish them is
 * an earlier item (`objectEndsAnew`: the members written, against the earlier items that
 * agree with them); a member that is such an object itself is followed the same way, with
 * the values it may not take for earlier items as its earlier items.
 */
import { ownName } from '../own-names.ts';
import { matchesBytes, type ByteRegex } from '../ir/byte-regex.ts';
import {
  endlessMember,
  nameBytes,
  type ClosedMember,
  type ClosedObjectItems,
  type ObjectVariant,
  type UniqueArrays,
  type UniquePathState,
} from '../ir/grammar-ir.ts';
import { DEAD, stringCount, type LexerDfa } from '../lexer/lexer-dfa.ts';
import { canonicalNumber, itemAutomaton, ITEM_LEXEME, numberEndsAnew } from './number-values.ts';

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
  // An object item of an array whose items are objects of named members only: those members,
  // the complete ones written (canonical JSON by name), and where the value being written
  // starts in the capture.
  readonly closed: ClosedObjectItems | null;
  written: Readonly<Record<string, string>>;
  valueAt: number;
  // An object whose members must have distinct names: the names written (null: any object else).
  names: readonly string[] | null;
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
// (A member's value in an object item whose members are named only.)
const MEMBER = 3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The cursor over one output: copy it to try bytes (`feed` changes it). */
export class UniqueItems {
  readonly #table: UniqueArrays;
  readonly #kinds: TableKinds;
  #stack: Frame[] = [];
  #mode = VALUE;
  #string = SKIP;
  #name = false; // the string being read is a member name
  #reader = DONE_READER;
  // The bytes of an item string being written in an array whose items may run out of
  // completions (null otherwise).
  #spelled: number[] | null = null;
  // The number being written as an item of a checked array (null otherwise).
  #scalar: string | null = null;
  // The bytes since the outermost object item being written began (null: none is).
  #capture: number[] | null = null;

  constructor(table: UniqueArrays, kinds = kindsOf(table)) {
    this.#table = table;
    this.#kinds = kinds;
  }

  /**
   * How many quotes a token needs to close a string that repeats an item from here: 1 in an
   * item that may still end as an earlier one, 3 in one that cannot (close it, open and close
   * another, or write a number or literal after it where items may be those), 2 between
   * items of a checked array; 0 outside any checked array (then only a token that opens one
   * could, with a `[`). Inside a checked array, a token with a `}` or `]` may close an object
   * or array item too.
   */
  get quotesToRepeat(): number {
    const top = this.#stack[this.#stack.length - 1];
    const checked = (f: Frame | undefined): boolean => f !== undefined && f.array && f.path >= 0 && this.#table.states[f.path]!.unique;
    if (!this.#stack.some(checked)) return 0;
    if (!checked(top)) return 1;
    if (this.#mode !== STRING) return 2;
    if (this.#string !== ITEM || this.#reader.escape !== 0 || this.#scalarItems(top!)) return 1;
    const prefix = this.#reader.whole;
    // (Half a surrogate pair: its other half decides how the item is written.)
    if (/[\ud800-\udbff]$/.test(prefix)) return 1;
    const text = JSON.stringify(prefix).slice(0, -1);
    return top!.seen.some((v) => v.startsWith(text)) ? 1 : 3;
  }

  /** Whether some checked array's items may run out of completions (see `withoutRepeatedItems`). */
  get mayRunOut(): boolean {
    return this.#kinds.mayRunOut;
  }

  /** Whether a number or a literal is being written as an item of a checked array. */
  get inScalarItem(): boolean {
    return this.#scalar !== null;
  }

  /** Whether the innermost container is an array of numbers that may run out of values (any token may leave no way on). */
  get inClosedNumbers(): boolean {
    return this.#mode !== STRING && this.#closedNumbers() !== undefined;
  }

  /** Whether the cursor is between the items of a checked array whose items may be numbers or literals. */
  get betweenScalarItems(): boolean {
    const top = this.#stack[this.#stack.length - 1];
    return top !== undefined && this.#mode !== STRING && this.#scalarItems(top);
  }

  // Whether a frame is a checked array whose items may be numbers or literals.
  #scalarItems(frame: Frame): boolean {
    const state = frame.array && frame.path >= 0 ? this.#table.states[frame.path]! : undefined;
    return state !== undefined && (state.numberItems !== undefined || state.literalItems === true);
  }

  /** Whether some checked array's items may be numbers or literals. */
  get hasScalarItems(): boolean {
    return this.#kinds.hasScalarItems;
  }

  /** Whether some checked array's items may be arrays. */
  get hasArrayItems(): boolean {
    return this.#kinds.hasArrayItems;
  }

  /**
   * How many quotes a token needs to write a name again in an object whose names must be
   * distinct: 1 in a name, 3 in a string that is no name (close it, open and close a name), 2
   * elsewhere in such an object; 0 outside them (then only a token that opens one could).
   */
  get quotesToRepeatName(): number {
    if (!this.#stack.some((f) => f.names !== null)) return 0;
    if (this.#mode !== STRING) return 2;
    return this.#name ? 1 : 3;
  }

  /** Whether some objects' names must be distinct. */
  get hasDistinctKeys(): boolean {
    return this.#kinds.hasDistinctKeys;
  }

  /** Whether the innermost container is an array whose items may run out of completions. */
  get inClosedArray(): boolean {
    return this.#closedArray() !== null;
  }

  /** Whether that array's items may also be open ones of other kinds (objects, arrays, numbers). */
  get openBeside(): boolean {
    const closed = this.#closedArray();
    return closed !== null && this.#table.states[closed.frame.path]!.openBeside === true;
  }

  /** An independent copy. */
  copy(): UniqueItems {
    const copy = new UniqueItems(this.#table, this.#kinds);
    copy.#stack = this.#stack.map((f) => ({ ...f }));
    copy.#mode = this.#mode;
    copy.#string = this.#string;
    copy.#name = this.#name;
    // (Outside a string the reader is done with: the next string gets a new one.)
    copy.#reader = this.#mode === STRING ? this.#reader.copy() : this.#reader;
    copy.#spelled = this.#spelled?.slice() ?? null;
    copy.#scalar = this.#scalar;
    copy.#capture = this.#capture?.slice() ?? null;
    return copy;
  }

  /**
   * Feeds bytes the grammar accepts; false when they close an item a checked array already
   * holds, or leave one no way to end but as such an item (then the cursor is unusable).
   */
  feed(bytes: Uint8Array): boolean {
    for (const b of bytes) {
      this.#capture?.push(b);
      if (!this.#byte(b)) return false;
    }
    return !this.#deadEnd();
  }

  // The innermost container when it is an array whose items may run out of completions: its
  // frame and the item content's automaton.
  #closedArray(): { readonly frame: Frame; readonly content: ByteRegex } | null {
    const top = this.#stack[this.#stack.length - 1];
    const content = top?.array === true && top.path >= 0 ? this.#table.states[top.path]!.closedItems : undefined;
    return content === undefined ? null : { frame: top!, content };
  }

  // The innermost container when it is an array of numbers that may run out of values: the
  // numbers' language and the earlier items.
  #closedNumbers(): { readonly content: ByteRegex; readonly seen: readonly string[] } | undefined {
    const top = this.#stack[this.#stack.length - 1];
    const content = top?.array === true && top.path >= 0 ? this.#table.states[top.path]!.closedNumbers : undefined;
    return content === undefined ? undefined : { content, seen: top!.seen };
  }

  // Whether the item being written, or the one a comma asks for, can only end as an earlier one.
  #deadEnd(): boolean {
    const object = this.#kinds.hasObjectItems ? this.#objectEndsAnew() : null;
    if (object !== null) return !object;
    if (this.#scalar !== null) {
      const top = this.#stack[this.#stack.length - 1]!;
      const state = this.#table.states[top.path]!;
      const fixed = fixedItem(this.#scalar, state.numberItems);
      if (fixed !== null) return top.seen.includes(fixed);
      return state.closedNumbers !== undefined && top.seen.length > 0 && !numberEndsAnew(state.closedNumbers, this.#scalar, top.seen);
    }
    // (After a comma, an item must come: a number no earlier item is.)
    const numbers = this.#closedNumbers();
    if (numbers !== undefined && this.#mode === VALUE && numbers.seen.length > 0) return !numberEndsAnew(numbers.content, '', numbers.seen);
    const closed = this.#closedArray();
    if (closed === null || closed.frame.seen.length === 0) return false;
    // (After a comma, an item of an open kind beside the strings can always come.)
    if (this.#mode === VALUE) return !this.openBeside && !endsAnew(closed.content, [], closed.frame.seen);
    return this.#mode === STRING && this.#string === ITEM && !endsAnew(closed.content, this.#spelled!, closed.frame.seen, this.#reader);
  }

  // Whether the object item of named members only being written (or the one a comma asks
  // for) may still end as a value no earlier item is; null outside such items, and inside a
  // member's value with endlessly many completions (every completion of it is new).
  #objectEndsAnew(): boolean | null {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) return null;
    const listed = this.#inReadArray();
    if (top.array && !listed) {
      const state = top.path >= 0 ? this.#table.states[top.path]! : undefined;
      const items = state?.objectItems;
      // After a comma, an item must come (one of an open kind beside the objects can).
      if (items === undefined || state!.openBeside === true || this.#mode !== VALUE || top.seen.length === 0) return null;
      return objectEndsAnew(items, earlierObjects(top.seen), {}, { kind: 'members', more: false });
    }
    // (Inside a member's array read as it is written, the object's frame is the one below.)
    if (top.closed === null && !listed) return null;
    // The item's frame: members that are objects of named members only nest their frames in it.
    let item = this.#stack.length - (top.closed === null ? 2 : 1);
    while (!this.#stack[item - 1]!.array) item--;
    return this.#levelEndsAnew(item, earlierObjects(this.#stack[item - 1]!.seen));
  }

  // Whether the object of named members only at stack `level` may end as a value none of
  // `earlier` is (the values it may not take, as members by name), from what is written.
  #levelEndsAnew(level: number, earlier: readonly ReadonlyMap<string, string>[]): boolean {
    const frame = this.#stack[level]!;
    const items = frame.closed!;
    // (Most prefixes agree with no earlier item: then every completion is new.)
    const agree = agreeing(earlier, frame.written);
    if (agree.length === 0) return true;
    const at = (next: ObjectNext): boolean => objectEndsAnew(items, agree, frame.written, next);
    // A member's array read as it is written (listed or bounded: the innermost container).
    if (level < this.#stack.length - 1 && this.#stack[level + 1]!.closed === null) {
      const bytes = this.#capture!.slice(frame.valueAt);
      return at({ kind: 'value', name: frame.key, value: { kind: 'array', bytes } });
    }
    // A member's object being written: the values it may not take are those after which the
    // rest of this one has no new ending.
    if (level < this.#stack.length - 1) {
      const endsAnew = (spent: readonly string[]): boolean => this.#levelEndsAnew(level + 1, spent.filter((v) => v.startsWith('{')).map(canonicalMembers));
      return at({ kind: 'value', name: frame.key, value: { kind: 'object', endsAnew } });
    }
    // A string with endlessly many completions is a way out until it ends.
    if (this.#inEndlessString(items)) return true;
    const more = Object.keys(frame.written).length > 0;
    switch (this.#mode) {
      case KEY:
        return at({ kind: 'members', more });
      case AFTER:
        return at({ kind: 'members', more: false });
      case COLON:
      case VALUE:
        return at({ kind: 'value', name: frame.key, value: { kind: 'none' } });
      case STRING: {
        if (this.#name) return at({ kind: 'names', reader: this.#reader });
        const spelled = this.#capture!.slice(frame.valueAt + 1);
        return at({ kind: 'value', name: frame.key, value: { kind: 'string', spelled, reader: this.#reader } });
      }
      default: // SCALAR
        return at({ kind: 'value', name: frame.key, value: { kind: 'scalar', text: decoder.decode(Uint8Array.from(this.#capture!.slice(frame.valueAt))) } });
    }
  }

  /**
   * Where a token may leave an object item of named members only no way to end but as an
   * earlier item: `'closing'` where only a quote, a `}` or a `]` in it could (inside a
   * member's string, object or array with endlessly many completions), `'any'` where any
   * token could, null outside such items.
   */
  get objectContext(): 'closing' | 'any' | null {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined || !this.#kinds.hasObjectItems) return null;
    if (top.array && top.path >= 0 && this.#table.states[top.path]!.objectItems !== undefined) return top.seen.length === 0 ? null : 'any';
    let inner = this.#stack.length - 1;
    while (inner >= 0 && this.#stack[inner]!.closed === null) inner--;
    if (inner < 0) return null;
    // (The item's frame: the objects of named members only below it are members' values.)
    let item = inner;
    while (!this.#stack[item - 1]!.array) item--;
    if (this.#stack[item - 1]!.seen.length === 0) return null;
    if (inner < this.#stack.length - 1) return this.#inReadArray() ? 'any' : 'closing';
    return this.#inEndlessString(top.closed!) ? 'closing' : 'any';
  }

  // Whether the innermost container is a member's array read as it is written: of an object
  // of named members only whose arrays are listed (`ClosedMember.constants`) or bounded
  // (`boundedArrays`): any token may leave it none of them, or fix it.
  #inReadArray(): boolean {
    const top = this.#stack[this.#stack.length - 1]!;
    const owner = this.#stack[this.#stack.length - 2];
    const member = owner?.closed ? ownName(owner.closed.members, owner.key) : undefined;
    return top.array && member !== undefined && (listedOf(member).length > 0 || member.boundedArrays !== undefined);
  }

  // Whether the object item on top writes a member's string of endlessly many completions.
  #inEndlessString(items: ClosedObjectItems): boolean {
    return this.#mode === STRING && !this.#name && ownName(items.members, this.#stack[this.#stack.length - 1]!.key)?.strings === 'endless';
  }

  /**
   * Where a token could leave an item no way to end but as an earlier one without a quote,
   * a comma or a backslash in it: in an item string of an array whose items may run out of
   * completions, the UTF-8 bytes that go on toward each earlier item the item may still
   * become (a token that starts one of them); `'any'` inside an escape (any token); null
   * elsewhere (none).
   */
  get itemRemainders(): Uint8Array[] | 'any' | null {
    const closed = this.#closedArray();
    if (closed === null || this.#mode !== STRING || this.#string !== ITEM) return null;
    if (this.#reader.escape !== 0) return 'any';
    const whole = this.#reader.whole;
    const pending = this.#reader.pendingBytes;
    const remainders: Uint8Array[] = [];
    for (const value of earlierStrings(closed.frame.seen)) {
      if (!value.startsWith(whole)) continue;
      const rest = encoder.encode(value.slice(whole.length));
      if (pending.every((b, i) => rest[i] === b)) remainders.push(rest.subarray(pending.length));
    }
    return remainders;
  }

  #byte(b: number): boolean {
    switch (this.#mode) {
      case STRING:
        return this.#inString(b);
      case SCALAR: {
        if (!(b === 0x2c || b === 0x5d || b === 0x7d || isSpace(b))) {
          if (this.#scalar !== null) this.#scalar += String.fromCharCode(b);
          return true;
        }
        this.#mode = AFTER;
        this.#memberEnds(this.#capture === null ? 0 : this.#capture.length - 1);
        const item = this.#scalar;
        this.#scalar = null;
        // A number item ends: is it one the array holds (by value)?
        if (item !== null && !this.#add(this.#stack[this.#stack.length - 1]!, /^[tfn]/.test(item) ? item : canonicalNumber(item))) return false;
        return this.#byte(b);
      }
      case VALUE:
        if (isSpace(b)) return true;
        if (b === 0x5d) return this.#close();
        return this.#value(b);
      case AFTER: {
        const top = this.#stack[this.#stack.length - 1];
        // (Past the outermost value the grammar allows only spaces: it refuses the rest.)
        if (isSpace(b) || top === undefined) return true;
        if (b === 0x2c) this.#mode = top.array ? VALUE : KEY;
        else if (b === 0x5d || b === 0x7d) return this.#close();
        return true;
      }
      case KEY:
        if (isSpace(b)) return true;
        if (b === 0x7d) return this.#close();
        if (b === QUOTE) {
          const top = this.#stack[this.#stack.length - 1]!;
          this.#startString(true, top.path >= 0 || top.closed !== null ? NAME : SKIP);
        }
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
        path = state === undefined ? -1 : memberPath(state, top.key);
        if (top.closed !== null) top.valueAt = this.#capture!.length - 1;
      }
    }
    const checked = top?.array === true && top.path >= 0 && this.#table.states[top.path]!.unique;
    if (b === 0x5b || b === 0x7b) {
      let captureAt = -1;
      if (checked) {
        if (this.#capture === null) this.#capture = [b];
        captureAt = this.#capture.length - 1;
      }
      // An object item of named members only, or a member's value that is one in such an object.
      const member = !top?.array && top?.closed ? ownName(top.closed.members, top.key)?.object : undefined;
      const closed = b !== 0x7b ? null : (captureAt >= 0 && this.#table.states[top!.path]!.objectItems) || member || null;
      const names = b === 0x7b && path >= 0 && this.#table.states[path]!.distinctKeys === true ? [] : null;
      this.#stack.push({ array: b === 0x5b, path, items: 0, key: '', seen: [], captureAt, closed, written: {}, valueAt: -1, names });
      this.#mode = b === 0x5b ? VALUE : KEY;
    } else if (b === QUOTE) {
      this.#startString(false, checked ? ITEM : top?.closed ? MEMBER : SKIP);
    } else {
      this.#mode = SCALAR;
      this.#scalar = checked ? String.fromCharCode(b) : null;
    }
    return true;
  }

  #close(): boolean {
    const closed = this.#stack.pop()!;
    this.#mode = AFTER;
    if (this.#capture !== null) this.#memberEnds(this.#capture.length);
    if (closed.captureAt < 0) return true;
    // An object or array item of a checked array ends: is it one the array holds?
    const item = canonicalJson(decoder.decode(Uint8Array.from(this.#capture!.slice(closed.captureAt))));
    if (!this.#stack.some((f) => f.captureAt >= 0)) this.#capture = null;
    return this.#add(this.#stack[this.#stack.length - 1]!, item);
  }

  // A member's value ends (its text in the capture up to `end`; `canonical`, when known): noted
  // in an object item of named members only.
  #memberEnds(end: number, canonical?: string): void {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined || top.array || top.closed === null || top.valueAt < 0) return;
    const value = canonical ?? canonicalJson(decoder.decode(Uint8Array.from(this.#capture!.slice(top.valueAt, end))));
    top.written = { ...top.written, [top.key]: value };
    top.valueAt = -1;
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
    this.#reader = new StringReader(kind !== SKIP);
    this.#spelled = kind === ITEM && this.#closedArray() !== null ? [] : null;
  }

  #inString(b: number): boolean {
    if (!this.#reader.byte(b)) {
      this.#spelled?.push(b);
      return true;
    }
    // The string ends.
    this.#mode = this.#name ? COLON : AFTER;
    this.#spelled = null;
    const text = this.#reader.text;
    if (this.#string === NAME) {
      const top = this.#stack[this.#stack.length - 1]!;
      top.key = text;
      // A name written before in an object whose names must be distinct.
      if (top.names !== null) {
        if (top.names.includes(text)) return false;
        top.names = [...top.names, text];
      }
    }
    if (this.#string === MEMBER) this.#memberEnds(this.#capture!.length, JSON.stringify(text));
    if (this.#string !== ITEM) return true;
    return this.#add(this.#stack[this.#stack.length - 1]!, JSON.stringify(text));
  }
}

// The earlier items (members by name) that agree with the members written.
function agreeing(earlier: readonly ReadonlyMap<string, string>[], written: Readonly<Record<string, string>>): readonly ReadonlyMap<string, string>[] {
  const entries = Object.entries(written);
  return earlier.filter((e) => entries.every(([name, value]) => e.get(name) === value));
}

// The values member `name` has in `items` (canonical JSON), each once.
function valuesOf(items: readonly ReadonlyMap<string, string>[], name: string): string[] {
  const values = new Set<string>();
  for (const e of items) {
    const v = e.get(name);
    if (v !== undefined) values.add(v);
  }
  return [...values];
}

// The path state of member `name` of an object at `state` (-1: none tracked).
function memberPath(state: UniquePathState, name: string): number {
  if (Object.hasOwn(state.keys, name)) return state.keys[name]!;
  if (state.keyPatterns === undefined) return state.otherKeys;
  const spelled = nameBytes(name);
  const mask = state.keyPatterns.reduce((bits, pattern, i) => (matchesBytes(pattern, spelled) ? bits | (1 << i) : bits), 0);
  return mask === 0 ? state.otherKeys : (state.patternKeys![mask] ?? -1);
}

// What comes next in an object item of named members only: members (`more`: at least one,
// after a comma), a name being written, or a member's value (none of it yet, a string, a
// literal or number).
type ObjectNext =
  | { readonly kind: 'members'; readonly more: boolean }
  | { readonly kind: 'names'; readonly reader: StringReader }
  | { readonly kind: 'value'; readonly name: string; readonly value: ValueSoFar };
type ValueSoFar =
  | { readonly kind: 'none' }
  | { readonly kind: 'string'; readonly spelled: readonly number[]; readonly reader: StringReader }
  | { readonly kind: 'scalar'; readonly text: string }
  // (A member's array read as it is written, listed or bounded: its bytes from the `[`.)
  | { readonly kind: 'array'; readonly bytes: readonly number[] }
  // (An object of named members only: whether it may still end as a value none of `spent` is.)
  | { readonly kind: 'object'; readonly endsAnew: (spent: readonly string[]) => boolean };

/**
 * Whether an object item of named members only, whose complete members so far are
 * `written`, may still end as a value no earlier item is, `next` coming. Only the earlier
 * items that agree with what is written matter (`agree`); a member with a value none of them
 * has (endlessly many values, or a constant or string they lack) is a way out; else the ways
 * to finish are finitely many of their values, counted and listed.
 */
function objectEndsAnew(
  items: ClosedObjectItems,
  agree: readonly ReadonlyMap<string, string>[],
  written: Readonly<Record<string, string>>,
  next: ObjectNext,
): boolean {
  // (Of several shapes: one that may hold what is written and end anew, against the earlier
  // items it may hold — whether it may end at all is asked too: the grammar vouches for some
  // shape, not for each; one that takes any other member always may, and comes first: then
  // a value of a name it leaves open is never read as another shape's.)
  if (items.variants !== undefined)
    return items.variants.some((v) => {
      if (!variantHolds(v, written, next)) return false;
      const shape = v.items;
      if (shape === undefined) return true;
      const held = agree.filter((e) =>
        [...e].every(([name, value]) => Object.hasOwn(shape.members, name) && (ownName(v.tells, name)?.includes(value) ?? true)),
      );
      return objectEndsAnew(shape, held, written, next);
    });
  const unwritten = Object.keys(items.members).filter((name) => !Object.hasOwn(written, name));
  // Whether a member `name`, from `value`, may end as a value after which some way to finish
  // is new.
  const valueEndsAnew = (name: string, value: ValueSoFar): boolean => {
    const member = ownName(items.members, name)!;
    if (value.kind === 'none' ? endlessMember(member) : value.kind === 'string' && member.strings === 'endless') return true;
    const rest = unwritten.filter((n) => n !== name);
    // (A member left with endlessly many values is a way out after any value.)
    if (rest.some((n) => endlessMember(items.members[n]!) && addable(items, rest, n))) return true;
    // The earlier items by their value of `name`; the values after which no way to finish is new.
    const byValue = new Map<string, ReadonlyMap<string, string>[]>();
    for (const e of agree) {
      const v = e.get(name);
      if (v === undefined) continue;
      const group = byValue.get(v);
      if (group === undefined) byValue.set(v, [e]);
      else group.push(e);
    }
    const spent = [...byValue].filter(([, group]) => !restEndsAnew(items, rest, group, false)).map(([v]) => v);
    return reachesBeyond(member, value, spent);
  };
  switch (next.kind) {
    case 'members':
      return restEndsAnew(items, unwritten, agree, next.more);
    case 'names':
      return unwritten.some((name) => next.reader.mayBecome(name) && valueEndsAnew(name, { kind: 'none' }));
    default:
      return valueEndsAnew(next.name, next.value);
  }
}

// Whether an object of shape `v` may be the one written so far, `next` coming: the names
// written are its own (or it takes any other), and the members that tell the shapes apart
// have, or may still take, a value it allows.
function variantHolds(v: ObjectVariant, written: Readonly<Record<string, string>>, next: ObjectNext): boolean {
  const mayHave = (name: string): boolean => v.items === undefined || Object.hasOwn(v.items.members, name);
  if (!Object.entries(written).every(([name, value]) => mayHave(name) && (ownName(v.tells, name)?.includes(value) ?? true))) return false;
  if (next.kind !== 'value') return true;
  const allowed = ownName(v.tells, next.name);
  if (allowed === undefined) return mayHave(next.name);
  const value = next.value;
  return allowed.some((c) =>
    value.kind === 'none'
      ? true
      : value.kind === 'string'
        ? c.startsWith('"') && value.reader.mayBecome(JSON.parse(c) as string)
        : value.kind === 'scalar' && c.startsWith(value.text),
  );
}

// Whether the members `rest` (each once or not at all; the required ones once) may be
// written in some way none of `group` (earlier items agreeing on every other member) is;
// `more`: at least one of them.
function restEndsAnew(items: ClosedObjectItems, rest: readonly string[], group: readonly ReadonlyMap<string, string>[], more: boolean): boolean {
  if (rest.some((name) => endlessMember(items.members[name]!) && addable(items, rest, name))) return true;
  const options: (string | undefined)[][] = [];
  for (const name of rest) {
    const values = valuesOf(group, name);
    // A value none of the group has: a way out, where the member can be added to any way to
    // finish; else one more option, new.
    const beyond = !valuesWithin(items.members[name]!, values);
    if (beyond && addable(items, rest, name)) return true;
    const taken = beyond ? [...values, NEW_VALUE] : values;
    options.push(items.required.includes(name) ? taken : [undefined, ...taken]);
  }
  // Every way to finish is among the group's values: more ways than items, or one of them new.
  // (Where some set of members must be written, or a member needs others, the ways that
  // break those are not counted: they are searched, what they need kept within reach.)
  const indices = (set: readonly string[]): number[] => set.map((name) => rest.indexOf(name));
  const sets = (items.requiredAny ?? []).map(indices);
  const ones = (items.requiredOne ?? []).map(indices);
  const needs = Object.entries(items.dependencies ?? {}).map(([name, needed]) => [rest.indexOf(name), indices(needed)] as const);
  const ways = options.reduce((n, o) => n * o.length, 1) - (more && options.every((o) => o[0] === undefined) ? 1 : 0);
  if (sets.length === 0 && ones.length === 0 && needs.length === 0 && ways > group.length) return true;
  const keys = new Set(group.map((e) => rest.map((name) => e.get(name) ?? '').join('\u0000')));
  const choice: (string | undefined)[] = [];
  // Whether member j is written, the first i choices made (a name not in `rest` is written,
  // or being written), or may still be.
  const written = (j: number, i: number): boolean => j < 0 || (j < i && choice[j] !== undefined);
  const within = (j: number, i: number): boolean => j < 0 || (j < i ? choice[j] !== undefined : options[j]!.some((o) => o !== undefined));
  // (Of sets exactly one of which must be written whole: those written whole so far.)
  const whole = (i: number): number => ones.filter((set) => set.every((j) => written(j, i))).length;
  const reachable = (i: number): boolean =>
    (sets.length === 0 || sets.some((set) => set.every((j) => within(j, i)))) &&
    (ones.length === 0 || (whole(i) <= 1 && ones.some((set) => set.every((j) => within(j, i))))) &&
    needs.every(([j, needed]) => !written(j, i) || needed.every((n) => within(n, i)));
  const some = (i: number): boolean => {
    if (!reachable(i)) return false;
    if (i === options.length)
      return (ones.length === 0 || whole(i) === 1) && !(more && choice.every((c) => c === undefined)) && !keys.has(choice.map((c) => c ?? '').join('\u0000'));
    return options[i]!.some((option) => {
      choice[i] = option;
      return some(i + 1);
    });
  };
  return some(0);
}

// A value no earlier item has (no canonical JSON is this).
const NEW_VALUE = '\u0001';

// Whether member `name`, not written (in `rest`), can be added to any way to finish: it needs
// no member not written yet, and is in no set exactly one of which is written whole.
const addable = (items: ClosedObjectItems, rest: readonly string[], name: string): boolean =>
  (items.dependencies?.[name] ?? []).every((needed) => !rest.includes(needed)) && !(items.requiredOne ?? []).some((set) => set.includes(name));

// Whether every value `member` may take is one of `values` (canonical JSON).
function valuesWithin(member: ClosedMember, values: readonly string[]): boolean {
  if (endlessMember(member)) return false;
  if (!member.constants.every((c) => values.includes(c))) return false;
  if (member.object !== undefined && objectsBeyond(member.object, values)) return false;
  if (member.closedNumbers !== undefined && numberEndsAnew(member.closedNumbers, '', values)) return false;
  if (typeof member.strings !== 'object') return true;
  // (Asked again for the same strings by every token a mask checks: kept per content.)
  const strings = values.filter((v) => v.startsWith('"'));
  let known = stringsWithin.get(member.strings);
  if (known === undefined || known.size > MAX_KNOWN_STRING_SETS) stringsWithin.set(member.strings, (known = new Map()));
  const key = strings.join('\u0000');
  let within = known.get(key);
  if (within === undefined) known.set(key, (within = !endsAnew(member.strings, [], strings)));
  return within;
}

// Per string content, whether its every value is among some strings (joined by NUL).
const stringsWithin = new WeakMap<ByteRegex, Map<string, boolean>>();
// (Most sets kept per content before they are dropped: one output meets few of them.)
const MAX_KNOWN_STRING_SETS = 4096;

// Whether a member's value, written so far as `value`, may end as one none of `spent` is.
function reachesBeyond(member: ClosedMember, value: ValueSoFar, spent: readonly string[]): boolean {
  switch (value.kind) {
    case 'none':
      return !valuesWithin(member, spent);
    case 'string':
      return (
        typeof member.strings !== 'object' ||
        endsAnew(
          member.strings,
          value.spelled,
          spent.filter((v) => v.startsWith('"')),
          value.reader,
        )
      );
    case 'object':
      return value.endsAnew(spent);
    case 'array':
      if (member.boundedArrays !== undefined) {
        const fixed = fixedArray(value.bytes, member.boundedArrays);
        return fixed === null || !spent.includes(fixed);
      }
      return listedOf(member).some(({ text, items }) => !spent.includes(text) && arrayMayBecome(value.bytes, items));
    default: {
      const fixed = fixedItem(value.text, member.numbers);
      if (fixed !== null) return !spent.includes(fixed);
      if (member.closedNumbers !== undefined && !/^[tfn]/.test(value.text)) return numberEndsAnew(member.closedNumbers, value.text, spent);
      const few = fewIntegers(value.text, member.numbers, spent.length);
      return few === null || few.some((v) => !spent.includes(v));
    }
  }
}

// A member's listed arrays (its constants that are arrays), each as canonical JSON and parsed,
// found once per member.
const listedByMember = new WeakMap<ClosedMember, readonly { readonly text: string; readonly items: readonly unknown[] }[]>();
function listedOf(member: ClosedMember): readonly { readonly text: string; readonly items: readonly unknown[] }[] {
  let listed = listedByMember.get(member);
  if (listed === undefined) {
    listed = member.constants.filter((c) => c.startsWith('[')).map((text) => ({ text, items: JSON.parse(text) as unknown[] }));
    listedByMember.set(member, listed);
  }
  return listed;
}

// The value (canonical JSON) an array of strings begun (`bytes`, from its `[`) has once it
// holds `max` of them whole: only its `]` may follow. Null before.
function fixedArray(bytes: readonly number[], max: number): string | null {
  const text = decoder.decode(Uint8Array.from(bytes));
  let whole = 0;
  let end = 1;
  for (let at = 1; at < text.length; at++) {
    if (text[at] !== '"') continue;
    for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
    if (at === text.length) return null;
    whole++;
    end = at + 1;
  }
  // (A comma after the last: another item comes, in a shape that allows one.)
  return whole === max && text.slice(end).trim() === '' ? canonicalJson(`${text.trimEnd()}]`) : null;
}

// Whether an array begun (`bytes`, from its `[`, of strings and literals) may still become
// one of `items` (strings, booleans or null).
function arrayMayBecome(bytes: readonly number[], items: readonly unknown[]): boolean {
  let at = 1;
  const space = (): void => {
    while (at < bytes.length && isSpace(bytes[at]!)) at++;
  };
  for (let i = 0; ; i++) {
    space();
    if (at === bytes.length) return i === 0 || i < items.length;
    if (bytes[at] === 0x5d) return i === 0 && items.length === 0;
    if (i >= items.length) return false;
    const item = items[i];
    if (bytes[at] === QUOTE) {
      if (typeof item !== 'string') return false;
      const reader = new StringReader(true);
      while (++at < bytes.length && !reader.byte(bytes[at]!));
      if (at === bytes.length) return reader.mayBecome(item);
      if (reader.text !== item) return false;
      at++;
    } else {
      let end = at;
      while (end < bytes.length && bytes[end]! >= 0x61 && bytes[end]! <= 0x7a) end++;
      const literal = String.fromCharCode(...bytes.slice(at, end));
      const spelled = JSON.stringify(item);
      if (end === bytes.length) return typeof item !== 'string' && spelled.startsWith(literal);
      if (literal !== spelled) return false;
      at = end;
    }
    space();
    if (at === bytes.length) return true;
    if (bytes[at] === 0x5d) return i + 1 === items.length;
    at++; // a comma
  }
}

// Whether objects of named members only may take some value none of `values` (canonical
// JSON, of any kinds) is.
function objectsBeyond(items: ClosedObjectItems, values: readonly string[]): boolean {
  const earlier = values.filter((v) => v.startsWith('{')).map(canonicalMembers);
  return restEndsAnew(items, Object.keys(items.members), earlier, false);
}

// The earlier object items (canonical JSON) as their members' values by name, once per set
// of items.
const earlierObjectMembers = new WeakMap<readonly string[], readonly ReadonlyMap<string, string>[]>();

function earlierObjects(seen: readonly string[]): readonly ReadonlyMap<string, string>[] {
  let objects = earlierObjectMembers.get(seen);
  if (objects === undefined) earlierObjectMembers.set(seen, (objects = seen.filter((v) => v.startsWith('{')).map(canonicalMembers)));
  return objects;
}

// The members of a canonical JSON object (no whitespace), each value's text by name.
function canonicalMembers(text: string): ReadonlyMap<string, string> {
  const members = new Map<string, string>();
  let at = 1;
  const skipString = (): void => {
    at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
  };
  while (text[at] === '"') {
    const nameAt = at;
    skipString();
    const name = JSON.parse(text.slice(nameAt, at)) as string;
    const valueAt = ++at; // past the colon
    let depth = 0;
    while (depth > 0 || (text[at] !== ',' && text[at] !== '}')) {
      const c = text[at]!;
      if (c === '"') {
        skipString();
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      at++;
    }
    members.set(name, text.slice(valueAt, at));
    if (text[at] === ',') at++;
  }
  return members;
}

// What kinds of items a table's checked arrays hold, found once per table.
interface TableKinds {
  readonly mayRunOut: boolean;
  readonly hasScalarItems: boolean;
  readonly hasArrayItems: boolean;
  readonly hasDistinctKeys: boolean;
  readonly hasObjectItems: boolean;
}
const tableKinds = new WeakMap<UniqueArrays, TableKinds>();

function kindsOf(table: UniqueArrays): TableKinds {
  let kinds = tableKinds.get(table);
  if (kinds === undefined) {
    kinds = {
      mayRunOut: table.states.some((state) => state.closedItems !== undefined),
      hasScalarItems: table.states.some((state) => state.numberItems !== undefined || state.literalItems === true),
      hasArrayItems: table.states.some((state) => state.arrayItems === true),
      hasDistinctKeys: table.states.some((state) => state.distinctKeys === true),
      hasObjectItems: table.states.some((state) => state.objectItems !== undefined),
    };
    tableKinds.set(table, kinds);
  }
  return kinds;
}

/** A JSON string's content read byte by byte, up to its closing quote. */
class StringReader {
  // Whether the text is kept (else only escapes are followed, to find the end).
  readonly #keep: boolean;
  #text = '';
  // UTF-8 bytes read and not decoded yet (a character may be cut between tokens).
  #raw: number[] = [];
  /** 0: none, 1: after a backslash, 2..5: hex digits of \u read so far + 2. */
  escape = 0;
  #hex = 0;

  constructor(keep: boolean) {
    this.#keep = keep;
  }

  copy(): StringReader {
    const copy = new StringReader(this.#keep);
    copy.#text = this.#text;
    copy.#raw = this.#raw.slice();
    copy.escape = this.escape;
    copy.#hex = this.#hex;
    return copy;
  }

  /** Reads one byte: true when it is the closing quote. */
  byte(b: number): boolean {
    if (this.escape === 1) {
      if (b === 0x75) {
        this.escape = 2;
        this.#hex = 0;
      } else {
        this.#text += ESCAPES[b] ?? String.fromCharCode(b);
        this.escape = 0;
      }
      return false;
    }
    if (this.escape >= 2) {
      this.#hex = this.#hex * 16 + parseInt(String.fromCharCode(b), 16);
      if (++this.escape === 6) {
        this.#text += String.fromCharCode(this.#hex);
        this.escape = 0;
      }
      return false;
    }
    if (b === BACKSLASH) {
      this.#flush();
      this.escape = 1;
      return false;
    }
    if (b !== QUOTE) {
      if (this.#keep) this.#raw.push(b);
      return false;
    }
    this.#flush();
    return true;
  }

  /** The text, once the string has ended. */
  get text(): string {
    return this.#text;
  }

  /** The text so far, whole characters only (a token may end inside one). */
  get whole(): string {
    return this.#text + decoder.decode(Uint8Array.from(this.#raw.slice(0, this.#wholeRaw())));
  }

  /** The bytes of a character begun in raw UTF-8 and not ended. */
  get pendingBytes(): number[] {
    return this.#raw.slice(this.#wholeRaw());
  }

  /** Whether the text may still be `text`, whole, the string ending after it. */
  mayBecome(text: string): boolean {
    if (!text.startsWith(this.#text)) return false;
    const rest = text.slice(this.#text.length);
    if (this.escape === 1) return rest.length > 0;
    if (this.escape >= 2) {
      const digits = this.escape - 2;
      return rest.length > 0 && rest.charCodeAt(0) >> (4 * (4 - digits)) === this.#hex;
    }
    const bytes = encoder.encode(rest);
    return this.#raw.every((b, i) => bytes[i] === b);
  }

  /** Whether it stands between whole characters (no escape or UTF-8 sequence begun). */
  get atCharacter(): boolean {
    return this.escape === 0 && this.#wholeRaw() === this.#raw.length;
  }

  /** What tells two readers apart (the text so far and what is pending). */
  get key(): string {
    return `${this.escape} ${this.#hex} ${this.#raw.join()} ${this.#text}`;
  }

  // How many of the raw bytes are whole characters.
  #wholeRaw(): number {
    let whole = this.#raw.length;
    for (let back = 1; back <= Math.min(3, whole); back++) {
      const b = this.#raw[whole - back]!;
      if (b >= 0xc0) {
        if (back < (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2)) whole -= back;
        break;
      }
      if (b < 0x80) break;
    }
    return whole;
  }

  // Raw UTF-8 read so far, decoded onto the text (an escape or the end of the string follows
  // a whole character).
  #flush(): void {
    if (this.#raw.length === 0) return;
    this.#text += decoder.decode(Uint8Array.from(this.#raw));
    this.#raw.length = 0;
  }
}

// The reader of no string (outside strings, until one begins).
const DONE_READER = new StringReader(false);

// The earlier items of an array (canonical JSON strings) decoded and sorted, once per set of
// items (a frame's `seen` is replaced, never changed).
const decoded = new WeakMap<readonly string[], readonly string[]>();

function earlierStrings(seen: readonly string[]): readonly string[] {
  let values = decoded.get(seen);
  if (values === undefined)
    decoded.set(
      seen,
      (values = seen
        .filter((v) => v.startsWith('"'))
        .map((v) => JSON.parse(v) as string)
        .sort()),
    );
  return values;
}

/**
 * Whether an item string whose content so far is `spelled` (bytes as JSON spells them, read
 * by `reader`; none: an item to begin) may still end as a value none of `seen` (canonical
 * JSON) is: a count of the values that begin so where they are few enough to list, else a search of the content
 * automaton that follows only bytes on the way to an earlier item; a byte that leaves them
 * all behind reaches a live state (the automaton keeps no dead ones), so some completion
 * there is new.
 */
function endsAnew(content: ByteRegex, spelled: readonly number[], seen: readonly string[], reader?: StringReader): boolean {
  const item = itemContent(content);
  // What searches found is kept per set of earlier items (a frame's `seen` is replaced, never
  // changed): the tokens of one mask, and the masks that follow, meet the same places.
  let search = searches.get(seen);
  if (search === undefined) searches.set(seen, (search = { dfa: item.dfa, values: earlierStrings(seen), found: new Map() }));
  // Most prefixes are no earlier item's: then any completion is new.
  const whole = reader?.whole ?? '';
  if (!startsSome(search.values, whole)) return true;
  // Values few enough to list: more of them than earlier items begin here (whole characters).
  if (item.values !== null && (reader === undefined || reader.atCharacter)) return withPrefix(item.values, whole) > withPrefix(search.values, whole);
  let state = item.dfa.start(ITEM_LEXEME);
  const read = new StringReader(true);
  for (const b of spelled) {
    if (state === DEAD) break;
    state = item.dfa.next(state, b);
    read.byte(b);
  }
  // (Bytes the grammar refuses: commits feed the cursor first, and the grammar has the last word.)
  return state === DEAD || endsAnewFrom(search, state, read);
}

// An item content's automaton, and its values (decoded, sorted) when few enough to list.
interface ItemContent {
  readonly dfa: LexerDfa;
  readonly values: readonly string[] | null;
}

const itemContents = new WeakMap<ByteRegex, ItemContent>();

// Most values, and steps of the walk that lists them, before a content is searched instead.
const MAX_LISTED_VALUES = 10_000;
const MAX_LISTING_STEPS = 20_000;

function itemContent(content: ByteRegex): ItemContent {
  let item = itemContents.get(content);
  if (item === undefined) {
    // (Endlessly many spellings, or more states than a listing takes: no list, a search.)
    const count = stringCount(content, MAX_LISTING_STEPS);
    const dfa = itemAutomaton(content);
    itemContents.set(content, (item = { dfa, values: count === null || count === Infinity ? null : listValues(dfa) }));
  }
  return item;
}

// Every value the automaton spells (each once, however spelled; finitely many), or null when
// there are more than MAX_LISTED_VALUES or the walk takes more than MAX_LISTING_STEPS steps.
function listValues(dfa: LexerDfa): string[] | null {
  const values = new Set<string>();
  const stack: [number, StringReader][] = [[dfa.start(ITEM_LEXEME), new StringReader(true)]];
  let count = 0;
  while (stack.length > 0) {
    const [state, reader] = stack.pop()!;
    if (reader.atCharacter && dfa.accepting(state).length > 0) {
      values.add(reader.whole);
      if (values.size > MAX_LISTED_VALUES) return null;
    }
    for (const step of steps(dfa, state, reader)) {
      if (++count > MAX_LISTING_STEPS) return null;
      stack.push(step);
    }
  }
  return [...values].sort();
}

// Each byte the automaton takes from `state` (a run of bytes leads to one state): the state
// it leads to and the reader after it.
function* steps(dfa: LexerDfa, state: number, reader: StringReader): Generator<[number, StringReader]> {
  const cuts = dfa.byteCuts(state).slice();
  for (let i = 0; i + 1 < cuts.length; i++) {
    const next = dfa.next(state, cuts[i]!);
    if (next === DEAD) continue;
    for (let b = cuts[i]!; b < cuts[i + 1]!; b++) {
      const after = reader.copy();
      after.byte(b);
      yield [next, after];
    }
  }
}

// How many of `values` (sorted) start with `prefix` (they stand together).
function withPrefix(values: readonly string[], prefix: string): number {
  const first = lowerBound(values, (v) => v >= prefix);
  return lowerBound(values, (v) => v >= prefix && !v.startsWith(prefix), first) - first;
}

// The first index from `from` where `past` holds (it holds from there on).
function lowerBound(values: readonly string[], past: (v: string) => boolean, from = 0): number {
  let lo = from;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past(values[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

interface Search {
  readonly dfa: LexerDfa;
  // The earlier items, decoded, sorted.
  readonly values: readonly string[];
  // Per place (automaton state and what the reader holds): whether a new ending is reachable.
  // Every byte lengthens the text or what is pending, so places never repeat on a path.
  readonly found: Map<string, boolean>;
}

const searches = new WeakMap<readonly string[], Search>();

function endsAnewFrom(search: Search, state: number, reader: StringReader): boolean {
  const place = `${state} ${reader.key}`;
  const known = search.found.get(place);
  if (known !== undefined) return known;
  const { dfa } = search;
  const whole = reader.whole;
  let found = !startsSome(search.values, whole);
  if (!found && reader.atCharacter && dfa.accepting(state).length > 0) found = !search.values.includes(whole);
  if (!found) {
    // First any byte that leaves every earlier item behind, then the others, deeper.
    const deeper: [number, StringReader][] = [];
    for (const step of steps(dfa, state, reader)) {
      if (!startsSome(search.values, step[1].whole)) {
        found = true;
        break;
      }
      deeper.push(step);
    }
    for (let i = 0; !found && i < deeper.length; i++) found = endsAnewFrom(search, ...deeper[i]!);
  }
  search.found.set(place, found);
  return found;
}

// Whether some of `values` (sorted) starts with `prefix`.
function startsSome(values: readonly string[], prefix: string): boolean {
  const at = lowerBound(values, (v) => v >= prefix);
  return at < values.length && values[at]!.startsWith(prefix);
}

// Per vocabulary: the tokens with at least 1, 2 and 3 quotes in their bytes (only those can
// close a string), those with a `}` or a `]` (only those can close an object or an array),
// those with a `[` and either a quote or a `}` (only those can open a checked array and
// close an item in it; with neither, a comma, for numbers), those with a comma or a
// backslash, and the tokens by a hash of their bytes, built when first needed.
interface TokenLists {
  readonly quoted: readonly Int32Array[];
  readonly braced: Int32Array;
  readonly bracketed: Int32Array;
  readonly opening: Int32Array;
  readonly openingNumbers: Int32Array;
  readonly openingObjects: Int32Array;
  readonly commas: Int32Array;
  readonly escaping: Int32Array;
  /** Tokens by their bytes: a hash table (`bytesHash`, low bits) of chains, heads and links by token id. */
  readonly byBytes: { readonly heads: Int32Array; readonly next: Int32Array };
}
const tokenLists = new WeakMap<object, TokenLists>();

// Longest token whose bytes `itemRemainders` are looked up for.
const MAX_TOKEN_BYTES = 128;

/**
 * Clears from `bits` (a packed bitset of allowed tokens) the tokens whose bytes would close
 * an item a checked array already holds, or leave one no way to end but as such an item,
 * from the state `cursor` is in. `vocab` is the key its lists of tokens are remembered by.
 */
export function withoutRepeatedItems(cursor: UniqueItems, bits: Uint32Array, vocab: object, tokenCount: number, tokenBytes: (id: number) => Uint8Array): void {
  let lists = tokenLists.get(vocab);
  if (lists === undefined) {
    const byCount: number[][] = [[], [], []];
    const braced: number[] = [];
    const bracketed: number[] = [];
    const opening: number[] = [];
    const openingNumbers: number[] = [];
    const openingObjects: number[] = [];
    const commas: number[] = [];
    const escaping: number[] = [];
    const heads = new Int32Array(2 ** Math.ceil(Math.log2(2 * tokenCount + 1))).fill(-1);
    const next = new Int32Array(tokenCount);
    for (let id = 0; id < tokenCount; id++) {
      const bytes = tokenBytes(id);
      const bucket = bytesHash(bytes) & (heads.length - 1);
      next[id] = heads[bucket]!;
      heads[bucket] = id;
      const quotes = bytes.reduce((n, b) => n + (b === QUOTE ? 1 : 0), 0);
      for (let k = 0; k < Math.min(quotes, 3); k++) byCount[k]!.push(id);
      const brace = bytes.includes(0x7d);
      if (brace) braced.push(id);
      if (bytes.includes(0x5d)) bracketed.push(id);
      const comma = bytes.includes(0x2c);
      if (bytes.includes(0x5b)) {
        if (quotes > 0 || brace) opening.push(id);
        else if (comma) openingNumbers.push(id);
      }
      if (comma) commas.push(id);
      if (quotes >= 2 && bytes.includes(0x7b)) openingObjects.push(id);
      if (bytes.includes(BACKSLASH)) escaping.push(id);
    }
    lists = {
      quoted: byCount.map((ids) => Int32Array.from(ids)),
      braced: Int32Array.from(braced),
      bracketed: Int32Array.from(bracketed),
      opening: Int32Array.from(opening),
      openingNumbers: Int32Array.from(openingNumbers),
      openingObjects: Int32Array.from(openingObjects),
      commas: Int32Array.from(commas),
      escaping: Int32Array.from(escaping),
      byBytes: { heads, next },
    };
    tokenLists.set(vocab, lists);
  }
  const check = (id: number): void => {
    if (((bits[id >>> 5]! >>> (id & 31)) & 1) === 1 && !cursor.copy().feed(tokenBytes(id))) bits[id >>> 5]! &= ~(1 << (id & 31));
  };
  // (A plain loop: the per-mask path of every such grammar.)
  const checkAll = (list: Int32Array): void => {
    for (let i = 0; i < list.length; i++) check(list[i]!);
  };
  // Objects whose names must be distinct: a token that writes a name again has the quotes
  // that takes; one that opens such an object and writes two names, a `{` and two quotes.
  const nameQuotes = cursor.quotesToRepeatName;
  if (nameQuotes > 0) checkAll(lists.quoted[nameQuotes - 1]!);
  else if (cursor.hasDistinctKeys) checkAll(lists.openingObjects);
  // Objects of named members only: where their values are few, any token may leave one no
  // way to end but as an earlier item; inside a member with endlessly many completions, only
  // one that ends it: with a `}` or `]` (an object or array), or a quote (a string: checked
  // below, as wherever a string may close).
  const objects = cursor.objectContext;
  if (objects === 'any') {
    forEachOne(bits, check);
    return;
  }
  if (objects === 'closing') for (const list of [lists.braced, lists.bracketed]) checkAll(list);
  if (cursor.inClosedNumbers) {
    forEachOne(bits, check);
    return;
  }
  if (cursor.betweenScalarItems || cursor.inScalarItem) {
    // Numbers and literals: a token that ends one (a delimiter) or fixes its value (a `0`,
    // `.`, `e`, a literal's first letter) may repeat one; tokens of digits 1-9 do neither.
    forEachOne(bits, (id) => {
      const bytes = tokenBytes(id);
      if (bytes[0] === 0x30 || !bytes.every((b) => b >= 0x30 && b <= 0x39)) check(id);
    });
    return;
  }
  if (!cursor.inClosedArray) {
    const quotes = cursor.quotesToRepeat;
    const closing = quotes === 0 ? [lists.opening] : [lists.quoted[quotes - 1]!, lists.braced];
    // (A token may also open an array whose items may run out and write one and a comma, or
    // open one of numbers and write two.)
    if (quotes !== 0 && cursor.mayRunOut) closing.push(lists.opening);
    if (cursor.hasScalarItems) closing.push(lists.openingNumbers);
    // (An array item closes with a `]`, and one that repeats may close in the token that opens it.)
    if (cursor.hasArrayItems) closing.push(lists.bracketed);
    for (const list of closing) checkAll(list);
    return;
  }
  // In an array whose items may run out of completions: a quote or a comma may end where no
  // new item can, and so may an item's own bytes on the way to an earlier one; beside open
  // items, a token may also open and close an object or array item that repeats one.
  for (const list of [lists.quoted[0]!, lists.commas, ...(cursor.openBeside ? [lists.braced, lists.bracketed] : [])]) checkAll(list);
  const remainders = cursor.itemRemainders;
  if (remainders === null) return;
  const lookups = remainders === 'any' ? Infinity : remainders.reduce((n, rest) => n + Math.min(rest.length, MAX_TOKEN_BYTES), 0);
  if (lookups > countOnes(bits)) {
    // Fewer tokens allowed than a look-up of each remainder's prefixes: all of them.
    forEachOne(bits, check);
    return;
  }
  checkAll(lists.escaping);
  const { heads, next } = lists.byBytes;
  for (const rest of remainders as Uint8Array[]) {
    for (let n = 1; n <= Math.min(rest.length, MAX_TOKEN_BYTES); n++) {
      const prefix = rest.subarray(0, n);
      for (let id = heads[bytesHash(prefix) & (heads.length - 1)]!; id >= 0; id = next[id]!) if (sameBytes(tokenBytes(id), prefix)) check(id);
    }
  }
}

// FNV-1a of some bytes (tokens by their bytes: a hit is compared byte by byte).
function bytesHash(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const b of bytes) hash = Math.imul(hash ^ b, 0x01000193);
  return hash >>> 0;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

// The number of set bits of a packed bitset, and each of them in turn.
function countOnes(bits: Uint32Array): number {
  let count = 0;
  for (let word of bits) {
    word -= (word >>> 1) & 0x55555555;
    word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
    count += (((word + (word >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}

function forEachOne(bits: Uint32Array, visit: (id: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    for (let word = bits[w]!; word !== 0; word &= word - 1) visit(w * 32 + (31 - Math.clz32(word & -word)));
  }
}

/**
 * A JSON text in canonical form, for equality as JSON Schema has it: members sorted by name
 * (a name written twice is its last value), strings as `JSON.stringify` writes them, numbers as exact decimals (`1`, `1.0` and `10e-1`
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
      // A name written twice is one member, its last value (as JSON.parse reads it).
      const members = new Map<string, string>();
      space();
      if (text[at] === '}') at++;
      else {
        for (;;) {
          space();
          const name = JSON.parse(stringLiteral()) as string;
          space();
          at++; // :
          members.set(name, value());
          space();
          if (text[at++] === '}') break;
        }
      }
      const sorted = [...members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${sorted.map(([name, v]) => `${JSON.stringify(name)}:${v}`).join(',')}}`;
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

// The value (canonical JSON) every completion of a literal's or a number's prefix has, when
// the prefix fixes it: a literal by its first letter; a zero mantissa whose exponent has
// begun (`0e`, `-0.0E+`); for integers also `0`, `-0` and a fraction begun (`5.`, `12.00`:
// only zeros may follow), and for integers from a floor of 0 or more a sign (`-`: only `-0`
// may follow; below 0, `fewIntegers`). Null when completions may differ.
function fixedItem(prefix: string, items: ClosedMember['numbers']): string | null {
  if (/^[tfn]/.test(prefix)) return LITERALS.find((literal) => literal.startsWith(prefix)) ?? null;
  if (/^-?0(?:\.0*)?[eE][+-]?\d*$/.test(prefix)) return '0';
  if (items === undefined || items === 'number') return null;
  if (typeof items === 'object' && prefix === '-' && items.from >= 0) return '0';
  const integer = /^-?(?:0$|\d+(?=\.0*$))/.exec(prefix);
  return integer === null ? null : canonicalNumber(integer[0]);
}

const LITERALS = ['true', 'false', 'null'];

// The values (canonical JSON) every completion of a negative integer's prefix may have, from
// a floor below 0 (`-`, `-1`: finitely many, down to the floor), when there are at most
// `limit` of them; null when there are more (or the prefix is not such).
function fewIntegers(prefix: string, items: ClosedMember['numbers'], limit: number): string[] | null {
  if (typeof items !== 'object' || items.from >= 0 || !/^-(?:0|[1-9]\d*)?$/.test(prefix)) return null;
  const most = -items.from;
  const digits = prefix.slice(1);
  // Magnitudes that begin with `digits`, up to the floor's: runs of each length.
  const runs: [number, number][] = digits === '' ? [[0, most]] : digits === '0' ? [[0, 0]] : [];
  for (let low = Number(digits), size = 1; digits !== '' && digits !== '0' && low <= most; low *= 10, size *= 10)
    runs.push([low, Math.min(most, low + size - 1)]);
  if (runs.reduce((n, [low, high]) => n + high - low + 1, 0) > limit) return null;
  return runs.flatMap(([low, high]) => Array.from({ length: high - low + 1 }, (_, i) => (low + i === 0 ? '0' : canonicalNumber(`-${low + i}`))));
}
