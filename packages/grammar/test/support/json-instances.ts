// Random JSON instances for checking schemas against ajv: any value (numbers without
// exponents, keys often the common declared ones), or one edit of a given instance — a value
// replaced, deleted, or a sibling added — so most land near the boundary of a schema.
import fc from 'fast-check';

// JSON values whose numbers print without exponents (exponents in bounded numbers are a
// separate, table-tested matter) and whose keys often hit the declared ones.
const KEYS = ['a', 'b', 'c', 'kind', 'value', 'children', 'x-a', 'id', 'p1', 'p8', 'name', 'next', 'q', 'r'];
const { value: jsonValueArb } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, 1, -1, 10, 0.5, 'a', 'x', '', 'forbidden', 'abz', '😀'),
    fc.integer({ min: -1000, max: 100_000 }),
    fc.integer({ min: -4000, max: 4000 }).map((n) => n / 8),
    fc.string({ unit: 'binary', maxLength: 5 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 3 })), tie('value'), { maxKeys: 4 }),
  ),
}));

type Path = (string | number)[];
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => paths.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths.push(...pathsOf(v, [...prefix, k]));
  return paths;
}

// One edit of `base`: replace the value at a path, delete it, or add a sibling.
function edit(base: unknown, path: Path, action: number, inserted: unknown): unknown {
  if (path.length === 0) return action === 0 ? inserted : base;
  const key = path[0]!;
  const rest = path.slice(1);
  if (Array.isArray(base)) {
    const copy = [...base];
    const i = key as number;
    if (rest.length > 0) copy[i] = edit(copy[i], rest, action, inserted);
    else if (action === 0) copy[i] = inserted;
    else if (action === 1) copy.splice(i, 1);
    else copy.splice(i, 0, inserted);
    return copy;
  }
  const object = base as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) {
    if (k !== key) copy[k] = v;
    else if (rest.length > 0) copy[k] = edit(v, rest, action, inserted);
    else if (action === 0) copy[k] = inserted;
    else if (action === 2) copy[k] = v;
  }
  if (rest.length === 0 && action === 2) copy[KEYS[JSON.stringify(inserted).length % KEYS.length]!] = inserted;
  return copy;
}

/** Any JSON value, or one edit of one of `bases` (at least one). */
export function nearInstances(bases: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    jsonValueArb,
    fc.tuple(fc.constantFrom(...bases), fc.nat(), fc.nat(2), jsonValueArb).map(([base, n, action, inserted]) => {
      const paths = pathsOf(base);
      return edit(base, paths[n % paths.length]!, action, inserted);
    }),
  );
}

/**
 * One of `strings` with one character edited — replaced by, or preceded by, one of
 * `alphabet`, or deleted — or left as it is: strings on both sides of a format's boundary.
 */
export function nearStrings(strings: readonly string[], alphabet: string): fc.Arbitrary<string> {
  // (By code points: an edit never splits a surrogate pair.)
  return fc.tuple(fc.constantFrom(...strings.map((s) => Array.from(s))), fc.nat(), fc.nat(3), fc.constantFrom(...alphabet)).map(([chars, n, action, c]) => {
    const i = n % (chars.length + 1);
    const [before, after] = [chars.slice(0, i).join(''), chars.slice(i).join('')];
    if (action === 0) return before + c + chars.slice(i + 1).join('');
    if (action === 1) return before + c + after;
    if (action === 2) return before + chars.slice(i + 1).join('');
    return before + after;
  });
}
