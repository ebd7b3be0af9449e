/**
 * Where in an instance the matcher must keep array items distinct (`UniqueArrays`): the
 * `uniqueItems` arrays of strings or objects no grammar over sets can say (`array-schema.ts`
 * leaves them to the matcher, `matcher/unique-items.ts`); and objects whose member names it
 * must keep distinct (`distinctKeys`: members no name tracks count toward a minProperties of
 * 2 or more, or witness a `not`, and a name written twice would be one member to a parser).
 * A state stands for the schemas that may describe the value at a JSON path, a superset of
 * those that do: every applicator is followed
 * (`anyOf`/`oneOf` branch by branch, `if` to `then` and `else`, `dependentSchemas`,
 * `patternProperties` and `additionalProperties` by the patterns a name matches where they
 * are few, for any name where not, `contains` for any item). An
 * array there is checked when one of them leaves uniqueness to the matcher; that is exact
 * only if none allows an array with repeated items, so such a mix is refused.
 */
import { matchesBytes, rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { nameBytes, type ClosedObjectItems, type UniqueArrays, type UniquePathState } from '../../ir/grammar-ir.ts';
import { arrayShape, uniqueItemsChecked } from './array-schema.ts';
import { mergeSchemas } from './merge-schemas.ts';
import { allowsNothing, candidates, hidesNames, witnessedByValue } from './schema-candidates.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { endlessCompletions, matchesSomething } from '../../lexer/lexer-dfa.ts';
import {
  allowedTypes,
  isAssertion,
  memberSides,
  OTHER_MEMBER_KEYWORDS,
  type MemberSide,
  type Schema,
  type SchemaObject,
  type Witness,
} from './schema-keywords.ts';
import { schemaPattern, stringContent } from './string-schema.ts';

// Most path states a schema may need.
const MAX_PATH_STATES = 4096;

/**
 * The path states of `root` when some array leaves uniqueness to the matcher (null when none
 * does). Refuses (`unsupported`) a path where such an array meets one that may repeat items.
 */
export function uniqueArrayPaths(compiler: SchemaCompiler, root: Schema): UniqueArrays | null {
  const found: SchemaObject[][] = [];
  const ids = new Map<string, number>();
  const edges: ReturnType<typeof outgoing>[] = [];
  const unique: boolean[] = [];
  const closed: (ByteRegex | undefined)[] = [];
  const closedNumbers: (ByteRegex | undefined)[] = [];
  const objects: (ClosedObjectItems | undefined)[] = [];
  const beside: boolean[] = [];
  const numbers: ('number' | 'integer' | undefined)[] = [];
  const literals: boolean[] = [];
  const arrayItems: boolean[] = [];
  const placed = new Set<string>();
  // (Where some way to reach a place hides a name restriction, its state does: `Place`.)
  const hidden: boolean[] = [];
  const state = ({ schemas, hidesNames }: Place): number => {
    const key = JSON.stringify(schemas);
    let id = ids.get(key);
    if (id === undefined) {
      id = found.length;
      if (id >= MAX_PATH_STATES)
        compiler.unsupported('', 'uniqueItems', `uniqueItems checked while matching in a schema of more than ${MAX_PATH_STATES} kinds of places`);
      ids.set(key, id);
      found.push(schemas);
      hidden.push(false);
    }
    hidden[id] ||= hidesNames;
    return id;
  };
  state(place(compiler, [root]));
  const targets: number[][] = [];
  for (let id = 0; id < found.length; id++) {
    const here = found[id]!;
    const arrays = here.filter((s) => valueTypes(s).includes('array'));
    const checked = arrays.filter((s) => uniqueItemsChecked(compiler, s, ''));
    const repeating = arrays.filter((s) => s.uniqueItems !== true);
    if (checked.length > 0 && repeating.length > 0) {
      compiler.unsupported(
        '',
        'uniqueItems',
        'uniqueItems checked while matching where another branch allows an array with repeated items (the matcher could not tell which holds)',
      );
    }
    // (Lenient: a mix is not checked, the keyword relaxed as a warning says.)
    unique.push(checked.length > 0 && repeating.length === 0);
    // Items that may run out of completions are searched in their one schema's automaton.
    const shapes = new Set(checked.map(arrayShape));
    const content = [...shapes].map((shape) => compiler.closedUniqueItems.get(shape)).find((c) => c !== undefined);
    const members = [...shapes].map((shape) => compiler.closedObjectItems.get(shape)).find((c) => c !== undefined);
    const numberContent = [...shapes].map((shape) => compiler.closedNumberItems.get(shape)).find((c) => c !== undefined);
    if ((content !== undefined || members !== undefined || numberContent !== undefined) && shapes.size > 1)
      compiler.unsupported('', 'uniqueItems', 'uniqueItems over items that may run out of completions, where array schemas of other items meet');
    closed.push(content);
    closedNumbers.push(numberContent);
    objects.push(members);
    beside.push([...shapes].some((shape) => compiler.uniqueOpenBeside.has(shape)));
    const kinds = new Set(checked.map((s) => compiler.uniqueNumberItems.get(arrayShape(s))));
    // (Which prefixes fix a number's value depends on whether it must be an integer.)
    if (kinds.has('number') && kinds.has('integer'))
      compiler.unsupported('', 'uniqueItems', 'uniqueItems over numbers where arrays of any numbers and of integers meet');
    numbers.push(kinds.has('number') ? 'number' : kinds.has('integer') ? 'integer' : undefined);
    for (const s of checked) placed.add(arrayShape(s));
    const edge = outgoing(compiler, here);
    edges.push(edge);
    // (Where the items may be literals or arrays, the matcher looks at more tokens.)
    const itemTypes = new Set(unique[id] ? [...edge.items, edge.otherItems].flatMap((p) => p.schemas).flatMap(valueTypes) : []);
    literals.push(itemTypes.has('boolean') || itemTypes.has('null'));
    arrayItems.push(itemTypes.has('array'));
    targets.push([
      ...[...edge.keys.values()].map((s) => state(s)),
      state(edge.otherKeys),
      ...[...edge.byPatterns.values()].map((s) => state(s)),
      ...edge.items.map((s) => state(s)),
      state(edge.otherItems),
    ]);
  }
  // Every array the grammar left to the matcher must be one the states check.
  for (const [shape, pointer] of compiler.uniqueLeftToMatcher) {
    if (!placed.has(shape)) compiler.unsupported(pointer, 'uniqueItems', 'uniqueItems checked while matching, inside an intersection the matcher cannot place');
  }
  // (Once every way to each place is known.)
  const distinct = found.map((here, id) => distinctKeys(compiler, here, hidden[id]!));
  // States from which a checked array or object can be reached (the others need no tracking).
  const live = unique.map((u, id) => u || distinct[id]!);
  for (let changed = true; changed;) {
    changed = false;
    targets.forEach((to, id) => {
      if (!live[id] && to.some((t) => live[t])) changed = live[id] = true;
    });
  }
  if (!live[0]) return null;
  const at = ({ schemas }: Place): number => {
    const id = ids.get(JSON.stringify(schemas))!;
    return live[id] ? id : -1;
  };
  const states: UniquePathState[] = edges.map((edge, id) => ({
    unique: unique[id]!,
    keys: Object.fromEntries([...edge.keys].map(([name, s]) => [name, at(s)])),
    otherKeys: at(edge.otherKeys),
    ...(edge.patterns !== null &&
      edge.patterns.length > 0 && { keyPatterns: edge.patterns, patternKeys: Object.fromEntries([...edge.byPatterns].map(([mask, s]) => [mask, at(s)])) }),
    items: edge.items.map(at),
    otherItems: at(edge.otherItems),
    ...(closed[id] !== undefined && { closedItems: closed[id] }),
    ...(objects[id] !== undefined && { objectItems: objects[id] }),
    ...(beside[id] === true && { openBeside: true }),
    ...(numbers[id] !== undefined && { numberItems: numbers[id] }),
    ...(closedNumbers[id] !== undefined && { closedNumbers: closedNumbers[id] }),
    ...(literals[id] && { literalItems: true }),
    ...(arrayItems[id] && { arrayItems: true }),
    ...(distinct[id] && { distinctKeys: true }),
  }));
  return { states };
}

// A place in an instance: the schemas that may describe its value, and whether a restriction
// of member names hides from them (`hidesNames`).
interface Place {
  readonly schemas: SchemaObject[];
  readonly hidesNames: boolean;
}

// The place described by `schemas` (all of them may apply).
const place = (compiler: SchemaCompiler, schemas: readonly unknown[]): Place => ({
  schemas: dedupe(schemas.flatMap((s) => candidates(compiler, s as Schema, ''))),
  hidesNames: schemas.some((s) => hidesNames(compiler, s as Schema, '')),
});

// Most patternProperties at one place whose combinations a name may match are told apart
// (each combination a state); past it, any name not declared stands for all of them.
const MAX_KEY_PATTERNS = 6;
// Most DFA states the proof that no name matches a combination of patterns may build.
const MAX_COMBINATION_STATES = 2_000;

// The places a member (by name, or any other name: by the patterns it matches where they
// are few) and an item (by position, or any later) of a value described by `here` may be.
function outgoing(compiler: SchemaCompiler, here: readonly SchemaObject[]) {
  const objects = here.filter((s) => valueTypes(s).includes('object'));
  const arrays = here.filter((s) => valueTypes(s).includes('array'));
  const names = [...new Set(objects.flatMap((s) => Object.keys((s.properties ?? {}) as object)))];
  // The patterns met, each a regex over names as JSON spells them, when few enough to tell apart.
  const sources = [...new Set(objects.flatMap((s) => sidesOf(s).flatMap((side) => Object.keys(side.patternProperties))))].sort();
  const patterns = sources.length <= MAX_KEY_PATTERNS ? sources.map((p) => schemaPattern(compiler, p, 'search', '', 'patternProperties')) : null;
  // A side's schemas for a name matching `matched` patterns: theirs, or the additional (or
  // unevaluated) schema where it matches none (any value when there is none); every one of
  // them where patterns are not told apart.
  const side = ({ patternProperties, additionalProperties }: MemberSide, matched: (source: string) => boolean): unknown[] => {
    const all = Object.entries(patternProperties);
    const hits = patterns === null ? all : all.filter(([p]) => matched(p));
    return [...hits.map(([, v]) => v), ...(patterns === null || hits.length === 0 ? [additionalProperties ?? true] : [])];
  };
  // Where patterns are told apart, the schemas a member meets in one object schema all hold:
  // one schema, their intersection.
  const all = (schemas: unknown[]): unknown[] => {
    if (patterns === null || schemas.length < 2) return schemas;
    let merged: SchemaObject | false = {};
    for (const schema of schemas) {
      const flat = schema === true ? {} : schema === false ? false : compiler.flatten(schema as SchemaObject, '');
      merged =
        merged === false || flat === false
          ? false
          : mergeSchemas(merged, flat, '', (pointer, keyword, message) => compiler.unsupported(pointer, keyword, message));
    }
    return [merged];
  };
  const undeclared = (matched: (source: string) => boolean): Place =>
    place(
      compiler,
      objects.flatMap((s) => all(sidesOf(s).flatMap((d) => side(d, matched)))),
    );
  const keys = new Map(
    names.map((name) => {
      const spelled = nameBytes(name);
      const matched = (source: string): boolean => matchesBytes(patterns![sources.indexOf(source)]!, spelled);
      const schemas = objects.flatMap((s) => {
        const declared = (s.properties ?? {}) as Record<string, unknown>;
        // (A declared name meets its own side's patterns, not the member sides'.)
        if (!Object.hasOwn(declared, name)) return all(sidesOf(s).flatMap((d) => side(d, matched)));
        const own = side({ patternProperties: (s.patternProperties ?? {}) as Record<string, unknown>, additionalProperties: true }, matched);
        return all([declared[name], ...own.filter((x) => x !== true)]);
      });
      return [name, place(compiler, schemas)] as const;
    }),
  );
  // Any other name: by the patterns it matches (bit i: pattern i), combinations no name
  // matches left out.
  const otherKeys = undeclared(() => false);
  const byPatterns = new Map<number, Place>();
  if (patterns !== null) {
    const anyName = stringContent(compiler, { type: 'string' }, '');
    for (let mask = 1; mask < 1 << patterns.length; mask++) {
      const has = (i: number): boolean => (mask & (1 << i)) !== 0;
      const others = patterns.filter((_, i) => !has(i));
      const exactly = rx.and([anyName, ...patterns.filter((_, i) => has(i)), ...(others.length > 0 ? [rx.not(rx.alt(others))] : [])]);
      if (matchesSomething(exactly, MAX_COMBINATION_STATES) === false) continue;
      byPatterns.set(
        mask,
        undeclared((source) => has(sources.indexOf(source))),
      );
    }
  }
  // Items: 2020-12 prefixItems + items, or drafts' items array + additionalItems.
  const tuple = (s: SchemaObject): [unknown[], unknown] =>
    Array.isArray(s.items) ? [s.items, s.additionalItems ?? true] : [Array.isArray(s.prefixItems) ? s.prefixItems : [], s.items ?? true];
  // (A `contains` is a witness, `__contains`, once flattened: its schema may describe any item.)
  const also = (s: SchemaObject): unknown[] =>
    [s.contains, s.unevaluatedItems, ...((s.__contains ?? []) as Witness[]).map((w) => w.schema)].filter((x) => x !== undefined);
  const longest = Math.max(0, ...arrays.map((s) => tuple(s)[0].length));
  const items = Array.from({ length: longest }, (_, i) =>
    place(
      compiler,
      arrays.flatMap((s) => {
        const [prefix, rest] = tuple(s);
        return [i < prefix.length ? prefix[i] : rest, ...also(s)];
      }),
    ),
  );
  const otherItems = place(
    compiler,
    arrays.flatMap((s) => [tuple(s)[1], ...also(s)]),
  );
  return { keys, otherKeys, patterns, byPatterns, items, otherItems };
}

// An object schema's sides: its own patterns and additional (or unevaluated) schema, and its
// `__memberSides`.
const sidesOf = (s: SchemaObject): MemberSide[] => [
  { patternProperties: (s.patternProperties ?? {}) as Record<string, unknown>, additionalProperties: s.additionalProperties ?? s.unevaluatedProperties },
  ...memberSides(s),
];

// Whether the objects at a place must have distinct member names (see
// `UniquePathState.distinctKeys`): none where every object schema there holds one member at
// most; else where some object schema there that allows members no name
// tracks counts them toward a minProperties of 2 or more (refused where such members' names
// may run out: a name's every completion could be one written before, or the names left
// fewer than the members the count still asks for); or a member no name tracks witnesses a
// `not` somewhere in the schema, and every object schema there has endless names for such
// members (where they may run out and the object has a complement in it that a member's
// value would witness, refused). Names the schemas there leave endless may run out where a
// restriction of names hides from them (`hidden`).
function distinctKeys(compiler: SchemaCompiler, here: readonly SchemaObject[], hidden: boolean): boolean {
  const objects = here.flatMap((s) => {
    const own = valueTypes(s).includes('object') ? otherKeys(compiler, s) : 'none';
    const keys = own === 'endless' && hidden ? 'may run out' : own;
    return keys === 'none' ? [] : [{ s, keys }];
  });
  // (An object of one member at most has no name to write twice.)
  if (objects.every(({ s }) => typeof s.maxProperties === 'number' && s.maxProperties <= 1)) return false;
  if (objects.some(({ s }) => countsMembers(s))) {
    if (objects.some(({ keys }) => keys === 'may run out'))
      compiler.unsupported('', 'minProperties', 'a minProperties of 2 or more over members no name tracks whose names may run out');
    return true;
  }
  // A maxProperties may be a oneOf branch's (whose complement counts two): kept distinct where
  // names never run out.
  if (objects.some(({ s }) => s.maxProperties !== undefined) && objects.every(({ keys }) => keys !== 'may run out')) return true;
  if (!compiler.otherKeysWitnessed || objects.length === 0) return false;
  // Where names may run out, a name kept distinct could leave no name for the witness, and a
  // name written again (read as its last value) could undo one: refused where the object has
  // a complement in it that a member could witness.
  if (objects.some(({ s, keys }) => keys === 'may run out' && complementsOtherMembers(compiler, s)))
    compiler.unsupported(
      '',
      'not',
      'a complement witnessed by a member no name tracks, in objects whose names may run out (a name written twice would undo the witness)',
    );
  return objects.every(({ keys }) => keys === 'endless');
}

// Keywords about members no name tracks (member sides too): a member no name tracks witnesses
// a complement of one with its value. (A complement of `propertyNames` is witnessed by a name
// alone, which a name written again leaves in place.)
const UNNAMED_MEMBER_KEYWORDS = [...OTHER_MEMBER_KEYWORDS, '__memberSides'].filter((k) => k !== 'propertyNames');
// How deep combinations are looked into for such a complement (deeper: taken to have one).
const MAX_COMPLEMENT_DEPTH = 8;

// Whether an object schema has a complement in it (under a `not`, a `oneOf`'s other branches,
// an `if` on its else side) of a keyword about members no name tracks, which such a member
// would witness (`negated`: the schema itself stands complemented).
function complementsOtherMembers(compiler: SchemaCompiler, s: SchemaObject, negated = false, depth = 0): boolean {
  if (witnessedByValue(compiler, s, '') || (negated && UNNAMED_MEMBER_KEYWORDS.some((k) => s[k] !== undefined))) return true;
  if (depth >= MAX_COMPLEMENT_DEPTH) return true;
  // (oneOf branches and conditions are complemented too; their other uses are not, but to
  // take them as complemented is only more careful.)
  const parts: [unknown, boolean][] = [
    [s.not, !negated],
    ...['anyOf', 'allOf', 'then', 'else'].flatMap((k) => [s[k]].flat().map((sub): [unknown, boolean] => [sub, negated])),
    ...['oneOf', 'if', '__oneOf', '__conditions'].flatMap((k) => [s[k]].flat(2).map((sub): [unknown, boolean] => [sub, true])),
  ];
  return parts.some(([sub, complemented]) => {
    if (typeof sub !== 'object' || sub === null) return false;
    const flat = compiler.flatten(sub as SchemaObject, '');
    return flat !== false && complementsOtherMembers(compiler, flat, complemented, depth + 1);
  });
}

// Whether an object schema counts its members so that a name written twice could pass for
// two: a minProperties of 2 or more, or any count under a combination (`not: {maxProperties:
// 1}` asks for two members; so does an `if` of one, where its `then` is false).
function countsMembers(s: SchemaObject, nested = false): boolean {
  if (typeof s.minProperties === 'number' && s.minProperties >= 2) return true;
  if (nested && (s.maxProperties !== undefined || s.minProperties !== undefined)) return true;
  const subschemas = ['not', 'if', 'then', 'else', 'anyOf', 'oneOf', 'allOf', '__oneOf', '__conditions'].flatMap((k) => [s[k]].flat(2));
  return subschemas.some((sub) => typeof sub === 'object' && sub !== null && countsMembers(sub as SchemaObject, true));
}

// The names of the members no name tracks an object schema allows: none; endless (every
// prefix has endlessly many completions: no propertyNames or length cap, and of the sides a
// key must satisfy, the schema's own and its `__memberSides`, at most one closed, whose
// patterns' keys, but those of patterns whose schema is false, are endless); or names that
// may run out.
function otherKeys(compiler: SchemaCompiler, s: SchemaObject): 'none' | 'endless' | 'may run out' {
  const closed = (additional: unknown): boolean => additional === false || (additional === undefined && compiler.options.strict === true);
  const sides = [
    { patternProperties: (s.patternProperties ?? {}) as Record<string, unknown>, additionalProperties: s.additionalProperties },
    ...memberSides(s),
  ];
  const closedSides = sides.filter((side) => closed(side.additionalProperties));
  if (closedSides.some((side) => Object.keys(side.patternProperties).length === 0)) return 'none';
  if (compiler.parts.caps.maxStringLength !== Infinity || closedSides.length > 1) return 'may run out';
  // The names' content: what propertyNames allows (enum and const ones run out), within the
  // closed side's patterns.
  const names = s.propertyNames === undefined || s.propertyNames === true ? undefined : propertyNamesContent(compiler, s.propertyNames);
  if (names === null) return 'may run out';
  const pattern = (p: string): ByteRegex => schemaPattern(compiler, p, 'search', '', 'patternProperties');
  const patterns = closedSides.map((side) => rx.alt(Object.keys(side.patternProperties).map(pattern)));
  const forbidden = sides.flatMap((side) => Object.entries(side.patternProperties).flatMap(([p, v]) => (allowsNothing(compiler, v, '') ? [pattern(p)] : [])));
  const all = [...(names === undefined ? [] : [names]), ...patterns, ...(forbidden.length > 0 ? [rx.not(rx.alt(forbidden))] : [])];
  if (all.length === 0) return 'endless';
  return endlessCompletions(rx.and(all), MAX_ENDLESS_KEY_STATES) ? 'endless' : 'may run out';
}

// The content of the names a propertyNames schema allows, or null where it lists them (enum,
// const: they run out) or is no plain string schema.
function propertyNamesContent(compiler: SchemaCompiler, names: unknown): ByteRegex | null {
  if (names === false || typeof names !== 'object' || names === null) return null;
  const flat = compiler.flatten(names as SchemaObject, '');
  if (flat === false || flat.enum !== undefined || flat.const !== undefined) return null;
  const string = Object.keys(flat)
    .filter(isAssertion)
    .every((k) => ['type', 'minLength', 'maxLength', 'pattern', 'format'].includes(k));
  return string && (flat.type === undefined || flat.type === 'string') ? stringContent(compiler, flat, '') : null;
}

// Most DFA states a proof that member names have endless completions may build.
const MAX_ENDLESS_KEY_STATES = 5_000;

// The types of the values a schema may allow (of its constants, where it lists them).
function valueTypes(schema: SchemaObject): string[] {
  const constants = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : null;
  if (constants === null) return allowedTypes(schema, '');
  return constants.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v));
}

// The schemas, each once (equal JSON), in a stable order.
function dedupe(schemas: SchemaObject[]): SchemaObject[] {
  const seen = new Map<string, SchemaObject>();
  for (const s of schemas) seen.set(JSON.stringify(s), s);
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}
