import { describe, expect, it } from 'vitest';
import { languageFacts, matchesBytes, rx, type ByteRegex } from '../src/ir/byte-regex.ts';
import { stringCount } from '../src/lexer/lexer-dfa.ts';

const a = rx.literal('a');
const b = rx.literal('b');
const anyAB = rx.repeat(rx.alt([a, b]), 0, Infinity);

// Whether `regex` matches `text` (bytes), by trying every split: a slow but plain oracle.
function matches(regex: ByteRegex, text: readonly number[]): boolean {
  const memo = new Map<ByteRegex, Map<number, boolean>>();
  const match = (r: ByteRegex, from: number, to: number): boolean => {
    let byRange = memo.get(r);
    if (byRange === undefined) memo.set(r, (byRange = new Map()));
    const key = from * 64 + to;
    const known = byRange.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    switch (r.kind) {
      case 'bytes': {
        const byte = text[from]!;
        result = to === from + 1 && r.ranges.some((_, i) => i % 2 === 0 && r.ranges[i]! <= byte && byte <= r.ranges[i + 1]!);
        break;
      }
      case 'seq':
        result = seqMatch(r.items, from, to);
        break;
      case 'alt':
        result = r.items.some((item) => match(item, from, to));
        break;
      case 'repeat':
        result = repeatMatch(r.item, r.min, r.max, from, to);
        break;
      case 'and':
        result = r.items.every((item) => match(item, from, to));
        break;
      case 'not':
        result = !match(r.item, from, to);
        break;
      case 'automaton': {
        let state: number | undefined = 0;
        for (let at = from; at < to && state !== undefined; at++) {
          const list: readonly number[] = r.automaton.edges[state]!;
          const i = list.findIndex((_, k) => k % 3 === 0 && list[k]! <= text[at]! && text[at]! <= list[k + 1]!);
          state = i < 0 ? undefined : list[i + 2];
        }
        result = state !== undefined && r.automaton.accepting[state] === true;
        break;
      }
    }
    byRange.set(key, result);
    return result;
  };
  const seqMatch = (items: readonly ByteRegex[], from: number, to: number): boolean => {
    if (items.length === 0) return from === to;
    for (let mid = from; mid <= to; mid++) if (match(items[0]!, from, mid) && seqMatch(items.slice(1), mid, to)) return true;
    return false;
  };
  const repeatMatch = (item: ByteRegex, min: number, max: number, from: number, to: number): boolean => {
    if (from === to && min === 0) return true;
    if (max === 0) return false;
    // One copy, then the rest; an empty copy only helps while copies are still owed.
    for (let mid = from; mid <= to; mid++) {
      if (mid === from && min === 0) continue;
      if (match(item, from, mid) && repeatMatch(item, Math.max(min - 1, 0), max - 1, mid, to)) return true;
    }
    return false;
  };
  return match(regex, 0, text.length);
}

// Random regexes over {a, b} (seeded): every kind, complements and intersections nested
// `depth` deep, small DFAs, counted repetitions.
function randomRegexes(start: number): (depth: number) => ByteRegex {
  let seed = start;
  const random = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const generate = (depth: number): ByteRegex => {
    const pick = depth === 0 ? random(4) : random(10);
    if (pick === 0) return a;
    if (pick === 3 || pick === 9) {
      // Three states over {a, b}, each byte leading somewhere or nowhere.
      const edges = [0, 1, 2].map(() => [0x61, 0x62].flatMap((byte) => (random(4) === 0 ? [] : [byte, byte, random(3)])));
      return rx.automaton({ edges, accepting: [0, 1, 2].map(() => random(2) === 0) });
    }
    if (pick === 1) return b;
    if (pick === 2) return [rx.empty, rx.nothing, rx.alt([a, b])][random(3)]!;
    const item = (): ByteRegex => generate(depth - 1);
    if (pick === 3) return rx.seq([item(), item()]);
    if (pick === 4) return rx.alt([item(), item()]);
    if (pick === 5) return rx.repeat(item(), random(2), [1, 2, Infinity][random(3)]!);
    if (pick === 6) return rx.not(item());
    return rx.and([item(), item()]);
  };
  return generate;
}

// Every string over {a, b} up to `length` bytes.
function stringsUpTo(length: number): number[][] {
  const all: number[][] = [[]];
  for (let at = 0; at < all.length; at++) if (all[at]!.length < length) all.push([...all[at]!, 0x61], [...all[at]!, 0x62]);
  return all;
}

// The longest member, bounded from the structure (Infinity: no bound found).
function longest(r: ByteRegex): number {
  switch (r.kind) {
    case 'bytes':
      return 1;
    case 'seq':
      return r.items.reduce((sum, item) => sum + longest(item), 0);
    case 'alt':
      return Math.max(0, ...r.items.map(longest));
    case 'repeat':
      return r.max === 0 || longest(r.item) === 0 ? 0 : r.max * longest(r.item);
    case 'and':
      return Math.min(...r.items.map(longest));
    case 'not':
      return Infinity;
    case 'automaton':
      return r.automaton.edges.length; // a path that repeats no state
  }
}

describe('languageFacts: what a regex structure proves without an automaton', () => {
  it('an open object key: a string that is none of the declared names matches infinitely many', () => {
    const names = rx.alt([rx.literal('"id"'), rx.literal('"name"')]);
    const key = rx.and([rx.seq([rx.literal('"'), rx.repeat(rx.byteRanges([0x20, 0x21, 0x23, 0x7e]), 0, Infinity), rx.literal('"')]), rx.not(names)]);
    expect(languageFacts(key)).toEqual({ some: true, long: true, infinite: true, finite: false, costly: true });
    expect(languageFacts(names)).toMatchObject({ some: true, finite: true, infinite: false, costly: false });
  });

  it('leaves unproven what counting does not settle', () => {
    // Finite minus finite, infinite minus infinite, two infinite sets: may be empty.
    expect(languageFacts(rx.and([a, rx.not(a)])).some).toBe(false);
    expect(languageFacts(rx.and([anyAB, rx.not(rx.repeat(a, 0, Infinity))])).some).toBe(false);
    expect(languageFacts(rx.and([rx.repeat(a, 0, Infinity), rx.repeat(b, 0, Infinity)])).some).toBe(false);
    expect(languageFacts(rx.byteRanges([])).some).toBe(false);
    expect(languageFacts(rx.seq([a, rx.nothing])).some).toBe(false);
  });

  it('counts repetitions right: empty copies add no strings, bounded copies of finite items stay finite', () => {
    expect(languageFacts(rx.repeat(rx.empty, 0, Infinity))).toMatchObject({ some: true, long: false, infinite: false });
    expect(languageFacts(rx.repeat(a, 2, 5))).toMatchObject({ some: true, long: true, infinite: false, finite: true });
    expect(languageFacts(rx.repeat(rx.nothing, 0, 3))).toMatchObject({ some: true, long: false });
    expect(languageFacts(rx.repeat(rx.nothing, 1, 3)).some).toBe(false);
    // The complement of an infinite language: nothing proven (it holds other bytes, but
    // counting does not show that).
    expect(languageFacts(rx.not(anyAB))).toMatchObject({ some: false, finite: false, infinite: false });
    expect(languageFacts(rx.not(a))).toMatchObject({ some: true, infinite: true });
  });

  it('is sound on random regexes over {a, b}: what it proves, enumeration confirms', () => {
    const generate = randomRegexes(12345);
    const strings = stringsUpTo(9);
    let proven = 0;
    for (let i = 0; i < 300; i++) {
      const regex = generate(3);
      const facts = languageFacts(regex);
      const members = strings.filter((text) => matches(regex, text));
      const shown = JSON.stringify(regex);
      if (facts.some) expect(members.length, shown).toBeGreaterThan(0);
      if (facts.long)
        expect(
          members.some((text) => text.length > 0),
          shown,
        ).toBe(true);
      // Infinitely many: some member of 5 bytes or more (every structure here has one by 9).
      if (facts.infinite)
        expect(
          members.some((text) => text.length >= 5),
          shown,
        ).toBe(true);
      if (facts.finite)
        expect(
          members.every((text) => text.length <= longest(regex)),
          shown,
        ).toBe(true);
      if (facts.some) proven++;
    }
    // The check covers many regexes, not a handful.
    expect(proven).toBeGreaterThan(100);
  });
});

describe('matchesBytes: membership decided on the regex', () => {
  it('agrees with trying every split, on random regexes over {a, b} and every string up to 7 bytes', () => {
    const generate = randomRegexes(777);
    const strings = stringsUpTo(7);
    let members = 0;
    for (let i = 0; i < 300; i++) {
      const regex = generate(3);
      for (const text of strings) {
        const expected = matches(regex, text);
        if (expected) members++;
        expect(matchesBytes(regex, Uint8Array.from(text)), `${JSON.stringify(regex)} on ${String.fromCharCode(...text)}`).toBe(expected);
      }
    }
    // Both answers are met many times.
    expect(members).toBeGreaterThan(5_000);
    expect(300 * strings.length - members).toBeGreaterThan(5_000);
  });

  it('counts large and nullable repetitions without copying them', () => {
    const text = Uint8Array.from(Array(40).fill(0x61));
    expect(matchesBytes(rx.repeat(a, 40, 100_000), text)).toBe(true);
    expect(matchesBytes(rx.repeat(a, 41, 100_000), text)).toBe(false);
    expect(matchesBytes(rx.repeat(rx.alt([a, rx.empty]), 100_000, 100_000), text)).toBe(true);
    expect(matchesBytes(rx.seq([rx.repeat(rx.repeat(a, 0, 3), 2, Infinity), b]), Uint8Array.from([0x61, 0x61, 0x62]))).toBe(true);
  });
});

describe('stringCount: how many strings a regex matches, counted on its DFA', () => {
  it('agrees with enumeration on random regexes over {a, b}', () => {
    const generate = randomRegexes(4242);
    const strings = stringsUpTo(9);
    const seen = { finite: 0, endless: 0 };
    for (let i = 0; i < 300; i++) {
      const regex = generate(3);
      // (Over {a, b} alone: a complement matches other bytes too.)
      const count = stringCount(rx.and([regex, anyAB]), 1_000);
      const members = strings.filter((text) => matches(regex, text));
      const shown = JSON.stringify(regex);
      if (count === Infinity) {
        seen.endless++;
        expect(
          members.some((text) => text.length >= 5),
          shown,
        ).toBe(true);
      } else {
        seen.finite++;
        // (An automaton's bound is its number of edges, for a finite language.)
        if (longest(regex) <= 9) expect(count, shown).toBe(members.length);
        else expect(count, shown).toBeGreaterThanOrEqual(members.length);
      }
    }
    expect(seen.finite).toBeGreaterThan(50);
    expect(seen.endless).toBeGreaterThan(50);
  });

  it('counts past what a double holds exactly, and gives up past its state budget', () => {
    const hex = rx.byteRanges([0x30, 0x39, 0x61, 0x66]);
    expect(stringCount(rx.repeat(hex, 32, 32), 1_000)).toBe(16 ** 32);
    expect(stringCount(rx.nothing, 10)).toBe(0);
    expect(stringCount(rx.empty, 10)).toBe(1);
    expect(stringCount(rx.repeat(hex, 0, 2_000), 100)).toBeNull();
  });
});
