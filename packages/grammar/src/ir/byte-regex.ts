/**
 * Regular expressions over bytes: the terminals (lexemes) of every grammar. Front-ends build
 * them from code-point sets, which `codePoints` encodes as UTF-8 byte automata.
 */

/** A regular expression over bytes. */
export type ByteRegex =
  | { readonly kind: 'bytes'; readonly ranges: readonly number[] } // sorted disjoint [lo, hi] pairs
  | { readonly kind: 'seq'; readonly items: readonly ByteRegex[] }
  | { readonly kind: 'alt'; readonly items: readonly ByteRegex[] }
  | { readonly kind: 'repeat'; readonly item: ByteRegex; readonly min: number; readonly max: number } // max may be Infinity
  | { readonly kind: 'and'; readonly items: readonly ByteRegex[] } // strings every item matches
  | { readonly kind: 'not'; readonly item: ByteRegex } // every byte string the item does not match
  | { readonly kind: 'automaton'; readonly automaton: ByteAutomaton }; // a DFA given state by state

/**
 * A deterministic automaton over bytes, for languages a regex would spell at great length
 * (the multiples of 7 in decimal): state 0 is the start; `edges[s]` lists `[lo, hi, to]`
 * triples (disjoint byte ranges); `accepting[s]` says whether s ends a match.
 */
export interface ByteAutomaton {
  readonly edges: readonly (readonly number[])[];
  readonly accepting: readonly boolean[];
}

export const MAX_CODE_POINT = 0x10ffff;

/**
 * `build` memoized by `keyOf` of its argument: built again, the same character class or
 * literal is the same (immutable) object, which is cheaper to build and to key as a lexeme.
 * Keeps at most 4,096 entries (then starts over) and none whose key is longer than 256
 * characters, so a long-lived process does not keep every schema's strings.
 */
export function memoized<A>(keyOf: (arg: A) => string, build: (arg: A) => ByteRegex): (arg: A) => ByteRegex {
  const known = new Map<string, ByteRegex>();
  return (arg) => {
    const key = keyOf(arg);
    if (key.length > 256) return build(arg);
    let regex = known.get(key);
    if (regex === undefined) {
      if (known.size >= 4096) known.clear();
      known.set(key, (regex = build(arg)));
    }
    return regex;
  };
}

const SINGLE_BYTES: readonly ByteRegex[] = Array.from({ length: 256 }, (_, b) => ({ kind: 'bytes', ranges: [b, b] }));
const encoder = new TextEncoder();

export const rx = {
  /** Matches the empty string. */
  empty: { kind: 'seq', items: [] } as ByteRegex,
  /** Matches nothing. */
  nothing: { kind: 'alt', items: [] } as ByteRegex,
  byteRanges(ranges: readonly number[]): ByteRegex {
    return { kind: 'bytes', ranges };
  },
  seq(items: readonly ByteRegex[]): ByteRegex {
    const flat = items.flatMap((i) => (i.kind === 'seq' ? i.items : [i]));
    return flat.length === 1 ? flat[0]! : { kind: 'seq', items: flat };
  },
  alt(items: readonly ByteRegex[]): ByteRegex {
    const flat = items.flatMap((i) => (i.kind === 'alt' ? i.items : [i]));
    return flat.length === 1 ? flat[0]! : { kind: 'alt', items: flat };
  },
  /** `min` to `max` copies of `item`; nothing when `min > max` (an unsatisfiable bound). */
  repeat(item: ByteRegex, min: number, max: number): ByteRegex {
    return min > max ? rx.nothing : { kind: 'repeat', item, min, max };
  },
  /** Complement over all byte strings (built by determinizing the item). */
  not(item: ByteRegex): ByteRegex {
    return { kind: 'not', item };
  },
  /** Intersection: the strings every item matches (built as a product automaton). */
  and(items: readonly ByteRegex[]): ByteRegex {
    const flat = items.flatMap((i) => (i.kind === 'and' ? i.items : [i]));
    return flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
  },
  /** The language of a deterministic automaton (see `ByteAutomaton`). */
  automaton(automaton: ByteAutomaton): ByteRegex {
    return { kind: 'automaton', automaton };
  },
  /** The UTF-8 bytes of `text`. */
  literal: memoized(
    (text: string) => text,
    (text): ByteRegex => rx.seq(Array.from(encoder.encode(text), (b) => SINGLE_BYTES[b]!)),
  ),
  /** Any one character whose code point lies in the sorted disjoint [lo, hi] pairs. */
  codePoints: memoized(
    (ranges: readonly number[]) => ranges.join(),
    (ranges): ByteRegex => codePointsToUtf8(ranges),
  ),
};

/**
 * Structural ids of regexes: equal ids, equal regexes. Each node is looked at once (its id
 * kept by identity), so regexes that share subexpressions cost their new nodes only.
 */
export class RegexIds {
  readonly #ids = new WeakMap<ByteRegex, number>();
  readonly #byShape = new Map<string, number>();

  /** The id of `regex`. */
  of(regex: ByteRegex): number {
    let id = this.#ids.get(regex);
    if (id !== undefined) return id;
    let shape: string;
    switch (regex.kind) {
      case 'bytes':
        shape = `b${regex.ranges.join()}`;
        break;
      case 'seq':
      case 'alt':
      case 'and':
        shape = regex.kind;
        for (const item of regex.items) shape += ` ${this.of(item)}`;
        break;
      case 'repeat':
        shape = `r${this.of(regex.item)},${regex.min},${regex.max}`;
        break;
      case 'not':
        shape = `n${this.of(regex.item)}`;
        break;
      case 'automaton':
        shape = automatonShape(regex.automaton);
        break;
    }
    id = this.#byShape.get(shape);
    if (id === undefined) this.#byShape.set(shape, (id = this.#byShape.size));
    this.#ids.set(regex, id);
    return id;
  }
}

// An automaton's shape, spelled once per automaton: one built once per process (a format's)
// is keyed again by every compile, and the same string object hashes once.
const automatonShapes = new WeakMap<ByteAutomaton, string>();
function automatonShape(automaton: ByteAutomaton): string {
  let shape = automatonShapes.get(automaton);
  if (shape === undefined) automatonShapes.set(automaton, (shape = `a${JSON.stringify(automaton)}`));
  return shape;
}

/** Sorts, merges and (optionally) complements code point ranges given as [lo, hi] pairs. */
export function normalizeRanges(pairs: readonly (readonly [number, number])[], negate = false): number[] {
  const sorted = pairs.filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [lo, hi] of sorted) {
    const last = merged.length - 1;
    if (last > 0 && lo <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, hi);
    else merged.push(lo, hi);
  }
  if (!negate) return merged;
  const complement: number[] = [];
  let next = 0;
  for (let i = 0; i < merged.length; i += 2) {
    if (merged[i]! > next) complement.push(next, merged[i]! - 1);
    next = merged[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) complement.push(next, MAX_CODE_POINT);
  return complement;
}

// UTF-8 encoding boundaries: [first code point, last code point] per encoded length.
const UTF8_LENGTHS: readonly (readonly [number, number])[] = [
  [0, 0x7f],
  [0x80, 0x7ff],
  [0x800, 0xffff],
  [0x10000, 0x10ffff],
];

function codePointsToUtf8(ranges: readonly number[]): ByteRegex {
  const sequences: ByteRange[][] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    for (const [first, last] of UTF8_LENGTHS) {
      const a = Math.max(ranges[i]!, first);
      const b = Math.min(ranges[i + 1]!, last);
      if (a <= b) splitSameLength(a, b, sequences);
    }
  }
  return sharedSuffixes(sequences);
}

// A byte range [lo, hi] of one position of a UTF-8 form.
type ByteRange = readonly [lo: number, hi: number];

// The alternation of byte-range sequences with their common endings shared: sequences that
// end alike are one group, its ending once after the alternation of what comes before
// (which is factored the same way). Most multi-byte forms end in the same continuation
// ranges, so the automaton has one state per continuation bytes still due, not one per
// form: far fewer lexer states inside strings (a JSON string's character: 7 states between
// bytes of one character instead of 18).
function sharedSuffixes(sequences: readonly (readonly ByteRange[])[]): ByteRegex {
  // By the last range (its two bytes as one number): that range, and what comes before it.
  const groups = new Map<number, { readonly last: ByteRange; readonly heads: ByteRange[][] }>();
  const whole: ByteRegex[] = [];
  for (const sequence of sequences) {
    const last = sequence[sequence.length - 1]!;
    if (sequence.length === 1) {
      whole.push(rx.byteRanges(last));
      continue;
    }
    const key = last[0] * 256 + last[1];
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { last, heads: [sequence.slice(0, -1)] });
    else group.heads.push(sequence.slice(0, -1));
  }
  const shared = [...groups.values()].map(({ last, heads }) => rx.seq([sharedSuffixes(heads), rx.byteRanges(last)]));
  return rx.alt([...whole, ...shared]);
}

// Splits [lo, hi] (same encoded length) into ranges whose UTF-8 forms are a product of byte
// ranges: every byte position ranges independently.
// Surrogates are not characters; UTF-8 never encodes them.
function splitSameLength(lo: number, hi: number, out: ByteRange[][]): void {
  if (lo <= 0xd7ff && hi >= 0xe000) {
    splitSameLength(lo, 0xd7ff, out);
    splitSameLength(0xe000, hi, out);
    return;
  }
  if (lo >= 0xd800 && hi <= 0xdfff) return;
  lo = lo >= 0xd800 && lo <= 0xdfff ? 0xe000 : lo;
  hi = hi >= 0xd800 && hi <= 0xdfff ? 0xd7ff : hi;
  if (lo > hi) return;
  const n = utf8Length(lo);
  for (let i = 1; i < n; i++) {
    const mask = (1 << (6 * i)) - 1;
    if ((lo & ~mask) !== (hi & ~mask)) {
      if ((lo & mask) !== 0) {
        splitSameLength(lo, lo | mask, out);
        splitSameLength((lo | mask) + 1, hi, out);
        return;
      }
      if ((hi & mask) !== mask) {
        splitSameLength(lo, (hi & ~mask) - 1, out);
        splitSameLength(hi & ~mask, hi, out);
        return;
      }
    }
  }
  const a = encodeUtf8(lo);
  const b = encodeUtf8(hi);
  out.push(a.map((byte, k) => [byte, b[k]!] as const));
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** The UTF-8 bytes of one code point (a surrogate's too, as the code point sets encode it). */
export function encodeUtf8(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}

/** Whether `regex` matches the empty string. */
export function isNullable(regex: ByteRegex): boolean {
  switch (regex.kind) {
    case 'bytes':
      return false;
    case 'seq':
      return regex.items.every(isNullable);
    case 'alt':
      return regex.items.some(isNullable);
    case 'repeat':
      return regex.min === 0 || isNullable(regex.item);
    case 'and':
      return regex.items.every(isNullable);
    case 'not':
      return !isNullable(regex.item);
    case 'automaton':
      return regex.automaton.accepting[0] === true;
  }
}

/**
 * What the structure of a regex proves about its language, with no automaton built: that it
 * matches some string (`some`), some non-empty string (`long`), infinitely many (`infinite`),
 * finitely many (`finite`); false is "not proven". An intersection or complement is judged
 * only where counting settles it (infinitely many strings minus finitely many leave
 * infinitely many). `costly`: it has an intersection or complement, whose automata take
 * products and determinizing to build.
 */
export interface LanguageFacts {
  readonly some: boolean;
  readonly long: boolean;
  readonly infinite: boolean;
  readonly finite: boolean;
  readonly costly: boolean;
}

const factsOf = new WeakMap<ByteRegex, LanguageFacts>();

/** `LanguageFacts` of `regex` (remembered per regex object). */
export function languageFacts(regex: ByteRegex): LanguageFacts {
  let facts = factsOf.get(regex);
  if (facts === undefined) {
    facts = judge(regex);
    factsOf.set(regex, facts);
  }
  return facts;
}

function judge(regex: ByteRegex): LanguageFacts {
  switch (regex.kind) {
    case 'bytes': {
      const some = regex.ranges.length > 0;
      return { some, long: some, infinite: false, finite: true, costly: false };
    }
    case 'seq':
    case 'alt': {
      const items = regex.items.map(languageFacts);
      const any = (fact: keyof LanguageFacts): boolean => items.some((f) => f[fact]);
      const some = regex.kind === 'seq' ? items.every((f) => f.some) : any('some');
      return { some, long: some && any('long'), infinite: some && any('infinite'), finite: items.every((f) => f.finite), costly: any('costly') };
    }
    case 'repeat': {
      const item = languageFacts(regex.item);
      const some = regex.min === 0 || item.some;
      const long = regex.max >= 1 && item.long;
      return {
        some,
        long,
        infinite: (regex.max === Infinity && item.long) || (regex.max >= 1 && item.infinite),
        finite: regex.max === 0 || (regex.max !== Infinity && item.finite),
        costly: item.costly,
      };
    }
    case 'not': {
      const item = languageFacts(regex.item);
      return { some: item.finite || !isNullable(regex.item), long: item.finite, infinite: item.finite, finite: false, costly: true };
    }
    case 'automaton':
      return automatonFacts(regex.automaton);
    case 'and': {
      const items = regex.items.map(languageFacts);
      const positive = regex.items.filter((item) => item.kind !== 'not').map(languageFacts);
      const negativeFinite = regex.items.every((item) => item.kind !== 'not' || languageFacts(item.item).finite);
      const infinite = negativeFinite && (positive.length === 0 || (positive.length === 1 && positive[0]!.infinite));
      return { some: infinite, long: infinite, infinite, finite: items.some((f) => f.finite), costly: true };
    }
  }
}

/** The same language without the empty string. */
export function nonEmpty(regex: ByteRegex): ByteRegex {
  if (!isNullable(regex)) return regex;
  switch (regex.kind) {
    case 'bytes':
      return regex;
    case 'alt':
      return rx.alt(regex.items.map(nonEmpty));
    case 'seq': {
      // Some item is non-empty: the first non-empty one is item i, the ones before it empty.
      const [first, ...rest] = regex.items;
      if (first === undefined) return rx.nothing;
      const tail = rx.seq(rest);
      return rx.alt([rx.seq([nonEmpty(first), tail]), nonEmpty(tail)]);
    }
    case 'repeat':
      // Empty copies can be dropped: at least one non-empty copy, at most max.
      return regex.max < 1 ? rx.nothing : rx.repeat(nonEmpty(regex.item), 1, regex.max);
    case 'and':
      return rx.and(regex.items.map(nonEmpty));
    case 'not':
      return rx.not(rx.alt([regex.item, rx.empty]));
    case 'automaton': {
      // A new start state, not accepting, that moves as the old one does.
      const { edges, accepting } = regex.automaton;
      const shift = (list: readonly number[]): number[] => list.map((x, i) => (i % 3 === 2 ? x + 1 : x));
      return rx.automaton({ edges: [shift(edges[0]!), ...edges.map(shift)], accepting: [false, ...accepting] });
    }
  }
}

// What an automaton's graph proves: accepting states reachable from the start (after at
// least one byte: long), and a cycle among states both reachable and leading to acceptance.
function automatonFacts({ edges, accepting }: ByteAutomaton): LanguageFacts {
  const targets = (s: number): number[] => edges[s]!.filter((_, i) => i % 3 === 2);
  const reachable = new Set<number>();
  const afterByte = new Set<number>();
  const stack = [0];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (reachable.has(s)) continue;
    reachable.add(s);
    for (const t of targets(s)) {
      afterByte.add(t);
      stack.push(t);
    }
  }
  // States from which acceptance is reachable, by fixed point.
  const live = new Set([...reachable].filter((s) => accepting[s]));
  for (let grown = true; grown;) {
    grown = false;
    for (const s of reachable) if (!live.has(s) && targets(s).some((t) => live.has(t))) grown = live.add(s) !== undefined;
  }
  // A cycle among live states: some live state not removable by peeling live states without live successors.
  const inCycle = new Set(live);
  for (let peeled = true; peeled;) {
    peeled = false;
    for (const s of inCycle) if (!targets(s).some((t) => inCycle.has(t))) peeled = inCycle.delete(s);
  }
  const some = live.has(0);
  const long = [...afterByte].some((s) => accepting[s]);
  return { some, long, infinite: inCycle.size > 0, finite: inCycle.size === 0, costly: false };
}

/**
 * Whether `regex` matches `bytes` whole, decided on the regex itself (no automaton built, so a
 * complement costs what its item does): for each sub-regex and start, the ends of its matches
 * there. For short texts, such as a property name tested against a key's string schema.
 */
export function matchesBytes(regex: ByteRegex, bytes: Uint8Array): boolean {
  const n = bytes.length;
  const known = new Map<ByteRegex, Map<number, readonly number[]>>();
  // Positions where a match of `r` starting at `start` can end, increasing.
  const ends = (r: ByteRegex, start: number): readonly number[] => {
    let byStart = known.get(r);
    if (byStart === undefined) known.set(r, (byStart = new Map()));
    let found = byStart.get(start);
    if (found === undefined) byStart.set(start, (found = endsOf(r, start)));
    return found;
  };
  const after = (r: ByteRegex, starts: Iterable<number>): Set<number> => {
    const out = new Set<number>();
    for (const s of starts) for (const e of ends(r, s)) out.add(e);
    return out;
  };
  const sorted = (set: Set<number>): number[] => [...set].sort((a, b) => a - b);
  const endsOf = (r: ByteRegex, start: number): readonly number[] => {
    switch (r.kind) {
      case 'bytes': {
        if (start >= n) return [];
        const b = bytes[start]!;
        for (let i = 0; i < r.ranges.length; i += 2) if (r.ranges[i]! <= b && b <= r.ranges[i + 1]!) return [start + 1];
        return [];
      }
      case 'seq': {
        let at = new Set([start]);
        for (const item of r.items) {
          at = after(item, at);
          if (at.size === 0) break;
        }
        return sorted(at);
      }
      case 'alt': {
        const out = new Set<number>();
        for (const item of r.items) for (const e of ends(item, start)) out.add(e);
        return sorted(out);
      }
      case 'and': {
        let out: readonly number[] = Array.from({ length: n - start + 1 }, (_, i) => start + i);
        for (const item of r.items) {
          const mine = new Set(ends(item, start));
          out = out.filter((e) => mine.has(e));
        }
        return out;
      }
      case 'not': {
        const matched = new Set(ends(r.item, start));
        return Array.from({ length: n - start + 1 }, (_, i) => start + i).filter((e) => !matched.has(e));
      }
      case 'repeat': {
        // Copies counted up to `min`, then every further copy's ends gathered until no new one
        // appears (each copy's ends depend only on the previous copy's, so a repeat stops).
        let at = new Set([start]);
        const out = new Set<number>(r.min === 0 ? [start] : []);
        for (let copies = 1; copies <= r.max && at.size > 0; copies++) {
          const next = after(r.item, at);
          if (copies < r.min) {
            if (next.size === at.size && [...next].every((e) => at.has(e))) {
              // A fixed point before `min`: every later copy ends where this one does.
              for (const e of next) out.add(e);
              break;
            }
          } else {
            const fresh = [...next].filter((e) => !out.has(e));
            for (const e of fresh) out.add(e);
            if (fresh.length === 0) break;
          }
          at = next;
        }
        return sorted(out);
      }
      case 'automaton': {
        const { edges, accepting } = r.automaton;
        const out: number[] = [];
        let state = 0;
        for (let at = start; ; at++) {
          if (accepting[state]) out.push(at);
          if (at >= n) break;
          const b = bytes[at]!;
          const row = edges[state]!;
          let to = -1;
          for (let i = 0; i < row.length; i += 3) if (row[i]! <= b && b <= row[i + 1]!) to = row[i + 2]!;
          if (to < 0) break;
          state = to;
        }
        return out;
      }
    }
  };
  return ends(regex, 0).includes(n);
}
