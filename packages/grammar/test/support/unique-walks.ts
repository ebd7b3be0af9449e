// The oracle of uniqueItems kept while matching, shared by its tests: a scanner for repeated
// items, what can no longer end anew for strings and numbers, and walks that compare a
// schema's masks, token by token, with the schema's grammar without uniqueItems and those.
import type { Kernel, KernelVocab } from '@sieve/kernel';
import { expect } from 'vitest';
import { compileGrammar, jsonSchemaGrammar, KernelGrammar, KernelMatcher, Matcher } from '../../src/index.ts';
import { compileSchema } from './json-schema-oracle.ts';
import { bitsetIds } from './oracle.ts';
import { seeded, vocab } from './vocabs.ts';

// Each kernel's vocabularies, loaded once.
const kernelVocabs = new WeakMap<Kernel, Map<string, KernelVocab>>();

/** A vocabulary preset loaded into a kernel (once per kernel). */
export function loadedVocab(kernel: Kernel, preset: 'stories260k' | 'llama3.1'): KernelVocab {
  let loaded = kernelVocabs.get(kernel);
  if (loaded === undefined) kernelVocabs.set(kernel, (loaded = new Map()));
  let kernelVocab = loaded.get(preset);
  if (kernelVocab === undefined) loaded.set(preset, (kernelVocab = kernel.loadVocab(vocab(preset).file)));
  return kernelVocab;
}

// A value as JSON with its members sorted (equal values, equal texts).
export const sorted = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(sorted).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${sorted((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

// Whether an array the schema checks repeats an item (a string, a number or literal once it
// has ended, an object or array compared as JSON.parse reads it) in the output so far: a
// scanner over the JSON text (containers, member names, string literals decoded by JSON.parse);
// and whether an object `namesChecked` says must have distinct names repeats one.
export function repeats(
  text: string,
  checked: (path: readonly (string | number)[]) => boolean,
  namesChecked: (path: readonly (string | number)[]) => boolean = () => false,
): boolean {
  const path: (string | number)[] = [];
  const frames: { array: boolean; items: number; key: string | null; seen: Set<string>; from: number }[] = [];
  let afterKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const top = frames.at(-1);
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return false; // an open string repeats nothing yet
      const value = JSON.parse(text.slice(i, j + 1)) as string;
      i = j;
      if (top !== undefined && !top.array && !afterKey) {
        // A member's name: in an object whose names are checked, one written before repeats.
        if (namesChecked(path) && top.seen.has(value)) return true;
        top.seen.add(value);
        top.key = value;
        continue;
      }
      afterKey = false;
      if (top?.array === true) {
        if (checked(path) && top.seen.has(JSON.stringify(value))) return true;
        top.seen.add(JSON.stringify(value));
        top.items++;
      }
    } else if (c === '[' || c === '{') {
      if (top !== undefined) path.push(top.array ? top.items++ : top.key!);
      frames.push({ array: c === '[', items: 0, key: null, seen: new Set(), from: i });
      afterKey = false;
    } else if (c === ']' || c === '}') {
      const closed = frames.pop()!;
      path.pop();
      const parent = frames.at(-1);
      if (parent?.array === true && checked(path)) {
        const item = sorted(JSON.parse(text.slice(closed.from, i + 1)));
        if (parent.seen.has(item)) return true;
        parent.seen.add(item);
      }
    } else if (c === ':') {
      afterKey = true;
    } else if (c === ',' && top !== undefined && !top.array) {
      afterKey = false;
    } else if (top?.array === true && /[-\dtfn]/.test(c)) {
      // A number or literal item, compared by value once it has ended.
      let j = i;
      while (j < text.length && /[-+.eE\da-z]/.test(text[j]!)) j++;
      if (j >= text.length) return false;
      const value = /[tfn]/.test(c) ? text.slice(i, j) : numberKey(text.slice(i, j));
      i = j - 1;
      if (checked(path) && top.seen.has(value)) return true;
      top.seen.add(value);
      top.items++;
    }
  }
  return false;
}

// A JSON number literal's value as a key: its significant digits and power of ten.
export function numberKey(literal: string): string {
  const [, sign, whole, fraction = '', power = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let exponent = BigInt(power) - BigInt(fraction.length);
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  return `${sign}${digits}e${exponent}`;
}

// Whether the output so far, a top-level array of numbers (or integers) whose items must be
// distinct, ends in a number every completion of which is an earlier item: tried with
// completions that give other values wherever the prefix leaves them open.
export function numberStuck(text: string, integer: boolean): boolean {
  const valid = integer ? /^-?(?:0|[1-9]\d*)(?:\.0+)?$/ : /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
  const literals = text.slice(text.indexOf('[') + 1).split(/[\s,]+/);
  const last = literals.pop()!;
  if (last === '' || text.endsWith(']')) return false;
  const seen = new Set(literals.filter((l) => l !== '').map(numberKey));
  const suffixes = ['', '0', '1', '2', '3', '5', '00', '.0', '.05', '.1', '.2', '.5', '1.5', '5.5', '1e1', 'e1', 'e2'];
  return !suffixes.some((suffix) => valid.test(last + suffix) && !seen.has(numberKey(last + suffix)));
}

export const withoutUnique = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === 'uniqueItems' ? undefined : value));

// Every JSON spelling of a string's content: `/` raw or escaped, control characters as short
// escapes or \u00XX in either case, `"` and `` escaped.
export function spellings(value: string): string[] {
  let texts = [''];
  for (const c of value) {
    const code = c.charCodeAt(0);
    const hex = code.toString(16).padStart(2, '0');
    const ways =
      c === '"' || c === '\\'
        ? [`\\${c}`]
        : c === '/'
          ? ['/', '\\/']
          : code < 0x20
            ? [...(JSON.stringify(c).length === 4 ? [JSON.stringify(c).slice(1, -1)] : []), `\\u00${hex}`, `\\u00${hex.toUpperCase()}`]
            : [c];
    texts = texts.flatMap((t) => ways.map((w) => t + w));
  }
  return [...new Set(texts)];
}

// The values of a closed item schema for the oracle: listed, or strings of some letters up to
// a length (too many to list).
export type Values = readonly string[] | { readonly letters: string; readonly maxLength: number };

// Bytes as a string of one character each (so a character cut between tokens stays cut).
const byteString = (bytes: Uint8Array): string => String.fromCharCode(...bytes);
const utf8 = (text: string): string => byteString(new TextEncoder().encode(text));

// Whether a value not in `seen` is spelled by a text whose UTF-8 bytes begin with `spelled`
// (a byte string).
export function newValueBegins(spelled: string, values: Values, seen: ReadonlySet<string>): boolean {
  if (Array.isArray(values)) return values.some((v) => !seen.has(v) && spellings(v).some((s) => utf8(s).startsWith(spelled)));
  const { letters, maxLength } = values as { letters: string; maxLength: number };
  const stack = [spelled];
  while (stack.length > 0) {
    const text = stack.pop()!;
    if (text.length > 0 && !seen.has(text)) return true;
    if (text.length < maxLength) for (const c of letters) stack.push(text + c);
  }
  return false;
}

// Whether the output so far, a top-level array of strings whose items must be distinct and
// come from `values`, has an item, or an item a comma asks for, that cannot end as a value
// not written yet: an enumeration of the values left and their spellings, over the bytes
// written (an item may end inside a character).
export function stuck(bytes: Uint8Array, values: Values): boolean {
  const text = byteString(bytes);
  const seen = new Set<string>();
  let at = text.indexOf('[') + 1;
  const space = (): void => {
    while (at < text.length && ' \n\r\t'.includes(text[at]!)) at++;
  };
  for (;;) {
    space();
    if (at >= text.length || text[at] === ']') return false;
    if (text[at] === ',') {
      at++;
      space();
      if (at >= text.length) return !newValueBegins('', values, seen);
      continue;
    }
    let end = at + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) return !newValueBegins(text.slice(at + 1), values, seen);
    seen.add(JSON.parse(new TextDecoder().decode(bytes.subarray(at, end + 1))) as string);
    at = end + 1;
  }
}

// Walks that commit a schema's matchers (kernel and reference) token by token, each mask
// compared with the oracle's: the relaxed grammar accepts the token and `repeats` finds no
// repeated item (nor `stuck` an item that cannot end anew, given the `closed` values). With
// llama3.1, the oracle looks at every token with a quote, a comma or a backslash, those made
// of the values' bytes (with a colon, where names are checked), and a sample of the rest. Returns how many tokens the oracle refused
// for a repeat and how many for a dead end.
export function walkAgainstOracle(
  schema: unknown,
  checked: (path: readonly (string | number)[]) => boolean,
  starts: readonly string[],
  {
    kernel,
    walks,
    steps,
    vocab: preset,
    closed,
    numbers,
    stuckItems,
    alphabet,
    names,
  }: {
    kernel: Kernel;
    walks: number;
    steps: number;
    vocab: 'stories260k' | 'llama3.1';
    closed?: Values;
    numbers?: 'number' | 'integer';
    /** Whether the output so far has an item, or one a comma asks for, that cannot end anew (other items than strings and numbers). */
    stuckItems?: (text: string) => boolean;
    /** The characters of the items, whose tokens llama3.1's walks look at (with those of `closed`). */
    alphabet?: string;
    /** The objects whose member names must be distinct, by path. */
    names?: (path: readonly (string | number)[]) => boolean;
  },
): { repeated: number; stuck: number } {
  const index = vocab(preset);
  const kernelVocab = loadedVocab(kernel, preset);
  const grammar = compileSchema(schema, {}, { maxMaskMs: 600_000 });
  // (Without uniqueItems, and without any check the matcher keeps: names counted toward minProperties.)
  const relaxedIr = { ...jsonSchemaGrammar(withoutUnique(schema)).grammar };
  delete relaxedIr.uniqueArrays;
  const relaxed = compileGrammar(relaxedIr, { maxMaskMs: 600_000 });
  const kernelGrammar = new KernelGrammar(kernel, grammar);
  const eos = index.meta.eos_token_ids;
  const random = seeded(11);
  const decoder = new TextDecoder();
  const valueBytes = new Set(
    new TextEncoder().encode(
      `${Array.isArray(closed) ? closed.flatMap(spellings).join('') : ((closed as { letters?: string } | undefined)?.letters ?? '')}${alphabet ?? ''} \n]`,
    ),
  );
  const ids = Array.from({ length: index.tokenCount }, (_, id) => id).filter((id) => {
    const bytes = index.tokenBytes(id);
    if (preset === 'stories260k' || eos.includes(id) || random() < 0.01) return true;
    const items = closed !== undefined || stuckItems !== undefined;
    return (
      bytes.includes(0x22) ||
      bytes.includes(0x7d) ||
      (names !== undefined && bytes.includes(0x3a)) ||
      (items && (bytes.includes(0x2c) || bytes.includes(0x5c) || bytes.every((b) => valueBytes.has(b))))
    );
  });
  const masked = { repeated: 0, stuck: 0 };
  for (let walk = 0; walk < walks; walk++) {
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab, { eosTokenIds: eos });
    const reference = preset === 'stories260k' ? new Matcher(grammar, index) : null;
    const oracle = new Matcher(relaxed, index);
    const bytes = [...new TextEncoder().encode(starts[walk % starts.length]!)];
    for (const m of [matcher, reference, oracle]) expect(m?.commitBytes(Uint8Array.from(bytes)) ?? true).toBe(true);
    for (let step = 0; step < steps && !matcher.isFinished; step++) {
      const mask = matcher.computeMaskBitset();
      if (reference !== null) expect(bitsetIds(reference.computeMaskBitset(), index.tokenCount)).toEqual(bitsetIds(mask, index.tokenCount));
      const allowed = ids.filter((id) => (mask[id >>> 5]! >>> (id & 31)) & 1);
      const expected: number[] = [];
      for (const id of ids) {
        if (eos.includes(id)) {
          if (oracle.isAccepting()) expected.push(id);
        } else if (index.isTextToken(id) && oracle.fork().commitBytes(index.tokenBytes(id))) {
          const written = Uint8Array.from([...bytes, ...index.tokenBytes(id)]);
          const text = decoder.decode(written);
          if (repeats(text, checked, names)) masked.repeated++;
          else if (
            (closed !== undefined && stuck(written, closed)) ||
            (numbers !== undefined && numberStuck(text, numbers === 'integer')) ||
            (stuckItems !== undefined && stuckItems(text))
          )
            masked.stuck++;
          else expected.push(id);
        }
      }
      expect(allowed, `after ${JSON.stringify(decoder.decode(Uint8Array.from(bytes)))}`).toEqual(expected);
      // Short strings, so that items repeat: a token that closes one is taken when it may come.
      const closing = allowed.filter((id) => index.tokenBytes(id).includes(0x22));
      const pool = closing.length > 0 && random() < 0.6 ? closing : allowed;
      const token = pool[Math.floor(random() * pool.length)]!;
      expect(matcher.commitToken(token)).toBe(true);
      if (reference !== null) expect(reference.commitToken(token)).toBe(true);
      if (!eos.includes(token)) {
        oracle.commitToken(token);
        bytes.push(...index.tokenBytes(token));
      }
    }
    matcher.dispose();
  }
  return masked;
}
