/**
 * Sets of code points as sorted disjoint [lo, hi] pairs, and the sets ECMAScript regexes
 * name: `\d \w \s .`, Unicode properties (read from the JavaScript engine's own tables, once
 * per property) and case variants for the `i` flag.
 */
import { MAX_CODE_POINT, normalizeRanges } from './byte-regex.ts';

export type CodePointSet = readonly number[];

export const DIGIT: CodePointSet = [0x30, 0x39];
export const WORD: CodePointSet = normalizeRanges([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
export const SPACE: CodePointSet = normalizeRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
export const LINE_TERMINATORS: CodePointSet = normalizeRanges([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);
export const ANY: CodePointSet = [0, MAX_CODE_POINT];

// Python's classes for text patterns (Lark's terminals): `\n` (what `.` leaves out), `\d` a
// decimal digit of any script, `\w` a letter or number of any script or `_`, `\s` what
// `str.isspace` says (ECMAScript's but U+FEFF, with U+001C–U+001F and U+0085).
export const NEWLINE: CodePointSet = [0x0a, 0x0a];
export const PYTHON_DIGIT = (): CodePointSet => unicodeProperty('Nd')!;
export const PYTHON_WORD = (): CodePointSet => union(unicodeProperty('L')!, unicodeProperty('N')!, [0x5f, 0x5f]);
export const PYTHON_SPACE: CodePointSet = union(subtract(SPACE, [0xfeff, 0xfeff]), [0x1c, 0x1f], [0x85, 0x85]);

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

/**
 * How the `i` flag compares characters: `simple` is Unicode simple case folding (ECMAScript
 * with the `u` or `v` flag, and Python's `re`), `legacy` is ECMAScript's upper-casing without
 * those flags (no folding from outside ASCII into ASCII, so `ſ` is not `s`).
 */
/**
 * How `i` compares characters: `simple` (ECMAScript with `u`/`v`: Unicode simple case
 * folding), `legacy` (ECMAScript without: upper-casing), `python` (Python's `re`: simple
 * folding, and `i`, `I`, `ı` and `İ` one class, as its lower-casing and equivalences make them).
 */
export type CaseFolding = 'simple' | 'legacy' | 'python';

const caseClasses = new Map<CaseFolding, Map<number, readonly number[]>>();

/**
 * `set` with every character that matches one of its members case-insensitively. The result
 * is closed under case: its complement is too, so a negated class is the complement of the
 * closure of its members (fold first, then negate: `[^k]` with `i` excludes `K`).
 */
export function caseClosure(set: CodePointSet, folding: CaseFolding): number[] {
  const classes = caseClassesOf(folding);
  const extra: [number, number][] = [];
  for (const [cp, members] of classes) {
    if (contains(set, cp)) for (const m of members) extra.push([m, m]);
  }
  return extra.length === 0 ? [...set] : normalizeRanges([...pairs(set), ...extra]);
}

// Characters that match each other case-insensitively, for every character that matches
// another. Candidates are grouped by their one-character case mappings (and by equal full
// upper-case forms, which join pairs such as U+1FD3 and U+0390 that only folding relates);
// the JavaScript engine's own `i` matching then splits each group into exact classes.
function caseClassesOf(folding: CaseFolding): Map<number, readonly number[]> {
  const known = caseClasses.get(folding);
  if (known !== undefined) return known;
  if (folding === 'python') {
    const classes = new Map(caseClassesOf('simple'));
    const dotted = [0x49, 0x69, 0x130, 0x131];
    for (const cp of dotted) classes.set(cp, dotted);
    caseClasses.set(folding, classes);
    return classes;
  }
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const join = (a: number, b: number): void => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(ra, rb);
  };
  const byUpperForm = new Map<string, number>();
  for (let cp = 0; cp <= MAX_CODE_POINT; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    for (const variant of [char.toLowerCase(), char.toUpperCase()]) {
      if (variant === char) continue;
      const v = variant.codePointAt(0)!;
      if (variant.length === String.fromCodePoint(v).length) join(cp, v);
      else {
        const first = byUpperForm.get(variant);
        if (first === undefined) byUpperForm.set(variant, cp);
        else join(cp, first);
      }
    }
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const root = find(cp);
    const group = groups.get(root) ?? [];
    group.push(cp);
    groups.set(root, group);
  }
  const flags = folding === 'simple' ? 'iu' : 'i';
  // Code-unit escapes read the same with and without the u flag (a pair is one character with it).
  const escaped = (cp: number): string => {
    const text = String.fromCodePoint(cp);
    let out = '';
    for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  };
  const classes = new Map<number, readonly number[]>();
  for (const group of groups.values()) {
    for (const cp of group) {
      if (classes.has(cp)) continue;
      const matcher = new RegExp(`^${escaped(cp)}$`, flags);
      const members = group.filter((other) => matcher.test(String.fromCodePoint(other)));
      if (members.length > 1) for (const m of members) classes.set(m, members);
    }
  }
  caseClasses.set(folding, classes);
  return classes;
}

export function contains(set: CodePointSet, cp: number): boolean {
  for (let i = 0; i < set.length; i += 2) if (cp >= set[i]! && cp <= set[i + 1]!) return true;
  return false;
}
