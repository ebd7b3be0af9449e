/**
 * Sets of code points as sorted disjoint [lo, hi] pairs, and the sets ECMAScript regexes
 * name: `\d \w \s .`, Unicode properties (read from the JavaScript engine's own tables, once
 * per property) and case variants for the `i` flag.
 */
import { MAX_CODE_POINT, normalizeRanges } from './byte-regex.ts';

export type CodePointSet = readonly number[];

export const DIGIT: CodePointSet = [0x30, 0x39];
export const WORD: CodePointSet = normalizeRanges([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
export const SPACE: CodePointSet = normalizeRanges(
  [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]],
);
export const LINE_TERMINATORS: CodePointSet = normalizeRanges([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);
export const ANY: CodePointSet = [0, MAX_CODE_POINT];

export function union(...sets: CodePointSet[]): number[] {
  return normalizeRanges(sets.flatMap(pairs));
}

export function complement(set: CodePointSet): number[] {
  return normalizeRanges(pairs(set), true);
}

export function intersect(a: CodePointSet, b: CodePointSet): number[] {
  return complement(union(complement(a), complement(b)));
}

export function subtract(a: CodePointSet, b: CodePointSet): number[] {
  return intersect(a, complement(b));
}

function pairs(set: CodePointSet): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < set.length; i += 2) out.push([set[i]!, set[i + 1]!]);
  return out;
}

const propertyCache = new Map<string, number[]>();

/** Code points with a Unicode property (`L`, `Script=Greek`, ...), or null if unknown. */
export function unicodeProperty(name: string): number[] | null {
  const cached = propertyCache.get(name);
  if (cached !== undefined) return cached;
  let test: RegExp;
  try {
    test = new RegExp(`^\\p{${name}}$`, 'u');
  } catch {
    return null;
  }
  const ranges: [number, number][] = [];
  let runStart = -1;
  for (let cp = 0; cp <= MAX_CODE_POINT + 1; cp++) {
    const inSet = cp <= MAX_CODE_POINT && !(cp >= 0xd800 && cp <= 0xdfff) && test.test(String.fromCodePoint(cp));
    if (inSet && runStart < 0) runStart = cp;
    if (!inSet && runStart >= 0) {
      ranges.push([runStart, cp - 1]);
      runStart = -1;
    }
  }
  const set = normalizeRanges(ranges);
  propertyCache.set(name, set);
  return set;
}

let caseVariants: Map<number, number[]> | undefined;

/** Adds every case variant (simple, one code point) of the members of `set`. */
export function withCaseVariants(set: CodePointSet): number[] {
  if (caseVariants === undefined) {
    caseVariants = new Map();
    for (let cp = 0; cp <= MAX_CODE_POINT; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      for (const variant of [char.toLowerCase(), char.toUpperCase()]) {
        const v = variant.codePointAt(0)!;
        if (v !== cp && variant.length === String.fromCodePoint(v).length) {
          for (const [a, b] of [[cp, v], [v, cp]] as const) {
            const list = caseVariants.get(a) ?? [];
            if (!list.includes(b)) list.push(b);
            caseVariants.set(a, list);
          }
        }
      }
    }
  }
  const extra: [number, number][] = [];
  for (const [cp, variants] of caseVariants) {
    if (contains(set, cp)) for (const v of variants) extra.push([v, v]);
  }
  return normalizeRanges([...pairs(set), ...extra]);
}

export function contains(set: CodePointSet, cp: number): boolean {
  for (let i = 0; i < set.length; i += 2) if (cp >= set[i]! && cp <= set[i + 1]!) return true;
  return false;
}
