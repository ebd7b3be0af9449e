/**
 * Arrays: `[ ws (items ws)? ]`, the prefix items in their places, then the rest's schema
 * repeated, between minItems and maxItems in all; unique items over finitely many values as
 * a grammar over sets (`unique-items.ts`), over open strings and objects left to the matcher
 * (`unique-paths.ts`); items one of which must hold a schema (`contains`,
 * the complement of `items`) as rules that count the witnesses found.
 */
import { defineName, ownName } from '../../own-names.ts';
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { endlessMember, expr, type ClosedMember, type ClosedObjectItems, type Expr } from '../../ir/grammar-ir.ts';
import { enumValues } from './enum-schema.ts';
import type { Bound } from './numbers.ts';
import { CANONICAL_CONTENT, jsonContentSpellings } from './json-strings.ts';
import { pointerJoin } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import {
  allowedTypes,
  capped,
  isAssertion,
  KIND_KEYWORDS,
  KIND_SPECIFIC,
  lowerBound,
  nonNegativeInt,
  memberNeeds,
  requiredLists,
  type Schema,
  type SchemaObject,
  type Witness,
  witnessCounts,
} from './schema-keywords.ts';
import { candidates, candidatesExact } from './schema-candidates.ts';
import { takesFreshMember } from './fresh-members.ts';
import { knownSatisfiable } from './satisfiable.ts';
import { provablyDisjoint } from './disjoint-branches.ts';
import { stringContent } from './string-schema.ts';
import { endlessCompletions, matchesSomething, stringCount } from '../../lexer/lexer-dfa.ts';
import { finiteValues, MAX_UNIQUE_STATES, MAX_UNIQUE_VALUES, uniqueItemsExpr, uniqueItemsPlan } from './unique-items.ts';
import { constantsOf, jsonEqual, mergeSchemas } from './merge-schemas.ts';
import { standardSchema, validatesValue } from './value-validation.ts';

// Item schemas in either draft's spelling: 2020-12 prefixItems + items; drafts 4-7 items
// (an array) + additionalItems.
interface ItemSchemas {
  /** The array schema they come from. */
  readonly schema: SchemaObject;
  readonly prefix: readonly Schema[];
  readonly rest: Schema;
  readonly prefixPointer: string;
  readonly restPointer: string;
}

/** The grammar of the arrays an array schema allows. */
export function arrayExpr(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): Expr {
  const parts = compiler.parts;
  const { items, minItems, maxItems } = arrayCounts(compiler, schema, pointer);
  if (minItems > maxItems) return expr.alt([]);
  // Distinct items: a `contains` that needs more items than its schema has values is never met
  // (`{contains: {const: 1}, minContains: 2}`: the matcher would refuse the second 1 at its end).
  const witnesses = (schema.__contains ?? []) as Witness[];
  const needsMore = (w: Witness): boolean => {
    const min = witnessCounts(w).min;
    if (min < 2) return false;
    const count = valueCount(compiler, w.schema, pointer);
    return count !== null && count < min;
  };
  if (schema.uniqueItems === true && witnesses.some(needsMore)) return expr.alt([]);
  if (schema.uniqueItems === true && maxItems > 1) {
    const positions = { at: (i: number) => itemSchema(items, i) };
    const plan = uniqueItemsPlan(compiler, positions, maxItems);
    if (plan !== null) return uniqueItemsExpr(compiler, plan, minItems, witnesses, pointer);
    const open = openItems(compiler, items);
    const closed = open ? null : closedStrings(compiler, items, minItems);
    const objects = open || closed !== undefined ? undefined : closedObjects(compiler, items, minItems);
    const mixed = open || closed !== undefined || objects !== undefined ? undefined : closedBesideOpen(compiler, items, minItems);
    const numbers = open || closed !== undefined || objects !== undefined || mixed !== undefined ? undefined : closedNumbers(compiler, items, minItems);
    if (numbers !== undefined) {
      const shape = arrayShape(schema);
      compiler.uniqueLeftToMatcher.set(shape, pointer);
      compiler.uniqueNumberItems.set(shape, numbers.type);
      compiler.closedNumberItems.set(shape, numbers.content);
    } else if (closed !== undefined || objects !== undefined || mixed !== undefined) {
      // Left to the matcher (matcher/unique-items.ts), where `unique-paths.ts` must find it.
      const shape = arrayShape(schema);
      compiler.uniqueLeftToMatcher.set(shape, pointer);
      const strings = closed ?? mixed?.strings;
      if (strings) compiler.closedUniqueItems.set(shape, strings);
      const members = objects ?? mixed?.objects;
      if (members !== undefined) compiler.closedObjectItems.set(shape, members);
      const numbers = open ? numberItems(compiler, items) : mixed?.numbers;
      if (numbers !== undefined) compiler.uniqueNumberItems.set(shape, numbers);
      if (mixed !== undefined) compiler.uniqueOpenBeside.add(shape);
    } else {
      const message = `uniqueItems is only enforced over items from at most ${MAX_UNIQUE_VALUES} values (enum, const, booleans, null, small integer ranges) reaching at most ${MAX_UNIQUE_STATES} sets, over strings or objects every prefix of which has endless completions or numbers with no bounds or multiples, over strings of one schema (enum, length, pattern, format), numbers of one schema (bounds, multiples) or objects of named members only (each constants, strings, open numbers, integers from a lower bound, open objects, arrays that never run out, arrays of few strings, booleans or null, or such objects) with minItems ≤ 1 (kept distinct while matching), or with maxItems ≤ 1`;
      compiler.unsupported(pointer, 'uniqueItems', message);
    }
  }
  if (witnesses.length > 0) return witnessedItems(compiler, items, minItems, maxItems, witnesses, pointer);
  if (maxItems === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
  // `[ ws (items ws)? ]`: whitespace before `]` only after an item, so runs never double.
  const list = expr.seq([itemsFrom(compiler, items, 0, Math.max(1, minItems), maxItems), parts.ws()]);
  return expr.seq([parts.token('['), parts.ws(), minItems === 0 ? expr.alt([list, expr.empty]) : list, parts.token(']')]);
}

// How many strings a string content spells (values, not spellings: `/` and `\/` are one;
// null where its automaton passes the proof's states).
const stringValues = (content: ByteRegex): number | null => stringCount(rx.and([content, CANONICAL_CONTENT]), MAX_ENDLESS_PROOF_STATES);

// How many values a schema allows, where it counts them (null: endlessly many, or not
// counted): finitely many listed ones, the strings of one string schema, and objects of
// named members only whose members have such values (at most).
function valueCount(compiler: SchemaCompiler, schema: Schema, pointer: string): number | null {
  const values = finiteValues(compiler, schema, pointer);
  if (values !== null) return values.length;
  if (schema === true) return null;
  const flat = schema === false ? false : compiler.flatten(schema, pointer);
  if (flat === false) return 0;
  const strings = stringsContent(compiler, flat, pointer);
  if (strings !== undefined) return stringValues(strings);
  const keys = Object.keys(flat).filter(isAssertion);
  if (
    flat.type !== 'object' ||
    flat.additionalProperties !== false ||
    !keys.every((k) => ['type', 'properties', 'required', 'additionalProperties'].includes(k))
  )
    return null;
  const required = new Set(Array.isArray(flat.required) ? (flat.required as string[]) : []);
  let count = 1;
  for (const [name, member] of Object.entries((flat.properties ?? {}) as Record<string, Schema>)) {
    const values = valueCount(compiler, member, pointer);
    if (values === null) return null;
    count *= values + (required.has(name) ? 0 : 1);
  }
  return count;
}

/**
 * Whether the items of an array schema are kept distinct by the matcher rather than by the
 * grammar (see `arrayExpr`).
 */
export function uniqueItemsChecked(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): boolean {
  if (schema.uniqueItems !== true) return false;
  const { items, minItems, maxItems } = arrayCounts(compiler, schema, pointer);
  return minItems <= maxItems && maxItems > 1 && uniqueItemsPlan(compiler, { at: (i) => itemSchema(items, i) }, maxItems) === null;
}

// An array schema's item schemas and its bounds on their count (a `false` rest caps it at the prefix).
function arrayCounts(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): { items: ItemSchemas; minItems: number; maxItems: number } {
  const items = itemSchemas(schema, pointer);
  const minItems = nonNegativeInt(schema.minItems, pointer, 'minItems') ?? 0;
  const maxItems = capped(nonNegativeInt(schema.maxItems, pointer, 'maxItems'), compiler.parts.caps.maxItems, minItems);
  return { items, minItems, maxItems: items.rest === false ? Math.min(maxItems, items.prefix.length) : maxItems };
}

/** What tells an array schema's items and counts apart (a key: other keywords left out). */
export function arrayShape(schema: SchemaObject): string {
  return JSON.stringify(['prefixItems', 'items', 'additionalItems', 'contains', 'minItems', 'maxItems'].map((k) => schema[k] ?? null));
}

// Most DFA states a proof that item strings have endless completions may build.
const MAX_ENDLESS_PROOF_STATES = 5_000;

// Whether every item is a string, an object, an array or a number (any of them, where
// several types are allowed) every prefix of which has endless completions, or a number or a
// literal whose value a prefix fixes only where the matcher can tell it (so keeping items
// distinct never leaves an item no way to end, or the matcher sees where it would): strings
// with no constants (enum, const) whose content's DFA has every state reach a cycle (no
// maxLength; patterns and formats that never close); objects that always take one more
// member of a fresh name (`takesFreshMember`, judged on the whole item schema); arrays that
// can always take one more item (`openArray`); numbers and integers with no keyword but
// constants a `not` excludes (`"0e"`, `"-0"` or `"5."` of an integer fix the value: the
// matcher refuses them when it is an earlier item); `true`, `false` and `null` (fixed by
// their first letter), beside some item of another type (items of those alone are finitely
// many: a grammar over sets). All but objects are judged branch by branch (`candidates`),
// so the branches must allow no other values (`candidatesExact`: a oneOf of two endless
// patterns may allow one string only).
function openItems(compiler: SchemaCompiler, items: ItemSchemas, depth = 0): boolean {
  const schemas = [...items.prefix, items.rest];
  const all = schemas.flatMap((item) => candidates(compiler, item, items.restPointer));
  if (all.every((s) => allowedTypes(s, items.restPointer).every((t) => LITERAL_TYPES.has(t)))) return false;
  const objects = all.some((s) => allowedTypes(s, items.restPointer).includes('object'));
  if (objects && !schemas.every((item) => takesFreshMember(compiler, item, items.restPointer))) return false;
  if (!schemas.every((item) => candidatesExact(compiler, item, items.restPointer))) return false;
  return all.every((s) => {
    const types = allowedTypes(s, items.restPointer);
    if (!types.every((t) => OPEN_TYPES.has(t)) || s.enum !== undefined || s.const !== undefined) return false;
    if (s.__notValues !== undefined && types.some((t) => t === 'string' || t === 'object' || t === 'array')) return false;
    return types.every((t) =>
      t === 'object'
        ? true
        : t === 'array'
          ? everOpenArray(compiler, s, items.restPointer, depth + 1)
          : t === 'string'
            ? endlessCompletions(stringContent(compiler, s, items.restPointer), MAX_ENDLESS_PROOF_STATES)
            : LITERAL_TYPES.has(t) || Object.keys(s).every((k) => !isAssertion(k) || NUMBER_NEUTRAL.has(k) || (k === 'not' && onlyConstants(s.not))),
    );
  });
}

const OPEN_TYPES = new Set(['string', 'object', 'array', 'number', 'integer', 'boolean', 'null']);
const LITERAL_TYPES = new Set(['boolean', 'null']);

// Keywords that leave open numbers open: the type, constants a `not` excludes, and the
// string keywords (which only strings heed).
const NUMBER_NEUTRAL = new Set(['type', '__notValues', 'minLength', 'maxLength', 'pattern', 'format']);

// Whether a `not` holds only constants (an enum or a const).
const onlyConstants = (not: unknown): boolean =>
  typeof not === 'object' && not !== null && Object.keys(not).every((k) => !isAssertion(k) || k === 'enum' || k === 'const');

// What the numbers among open items are: 'number' where any number may be one, 'integer'
// where only integers may, undefined where none may.
function numberItems(compiler: SchemaCompiler, items: ItemSchemas): 'number' | 'integer' | undefined {
  const types = [...items.prefix, items.rest].flatMap((item) =>
    candidates(compiler, item, items.restPointer).flatMap((s) => allowedTypes(s, items.restPointer)),
  );
  return types.includes('number') ? 'number' : types.includes('integer') ? 'integer' : undefined;
}

// String keywords whose content `stringContent` builds exactly.
const STRING_KEYWORDS = new Set(['type', 'minLength', 'maxLength', 'pattern', 'format', '__notPatterns', '__notFormats', '__stringTests']);

// Keywords that split a schema into branches (`candidates`).
const BRANCHING = ['anyOf', 'oneOf', '__oneOf', 'if', 'then', 'else', 'dependentSchemas', 'dependencies'];

// The content (JSON-spelled, inside the quotes) of the items when they are strings that may
// run out of completions (constants, a length cap, a pattern or format that closes), of one
// schema or of the branches of an anyOf (or of a oneOf whose branches are provably
// disjoint): the matcher then refuses a prefix whose every completion is an earlier item,
// by a search of this automaton. Undefined when the items are not such strings, or the
// array needs more than one (the values left would have to be counted) or has prefix items
// or a `contains` (more than the item's own schema would decide a prefix's fate).
function closedStrings(compiler: SchemaCompiler, items: ItemSchemas, minItems: number): ByteRegex | undefined {
  const rest = decidedByItemAlone(items, minItems);
  if (rest === undefined) return undefined;
  const { restPointer } = items;
  const item = compiler.flatten(rest, restPointer);
  if (item === false) return undefined;
  const split = BRANCHING.filter((k) => item[k] !== undefined);
  if (split.length === 0) return stringsContent(compiler, item, restPointer);
  if (split.length > 1 || (split[0] !== 'anyOf' && split[0] !== 'oneOf')) return undefined;
  // One level of branches: each a string schema with no branches of its own.
  const raw = item[split[0]] as Schema[];
  if (!raw.every((b) => b === false || (typeof b === 'object' && BRANCHING.every((k) => b[k] === undefined)))) return undefined;
  const branches = candidates(compiler, item, restPointer);
  if (split[0] === 'oneOf' && !branches.every((a, i) => branches.slice(i + 1).every((b) => provablyDisjoint(compiler, a, b, restPointer)))) return undefined;
  const contents = branches.map((b) => stringsContent(compiler, b, restPointer));
  return contents.every((c) => c !== undefined) ? rx.alt(contents) : undefined;
}

// Keywords of a number schema its lexeme says (and string keywords, which numbers ignore).
const NUMBER_KEYWORDS = new Set([
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  '__notValues',
  '__notMultipleOf',
  '__multipleTests',
  '__fraction',
  ...NUMBER_NEUTRAL,
]);

// Whether the values of numbers less `excluded` constants can be searched on their automaton:
// numbers that may not be integers less a numeric constant spell every other number near it
// (`numbersOtherThan`: plain decimals from the next doubles on, exponent forms), an automaton
// the search would build whole — hundreds of thousands of states around 0 — so refused.
const searchableNumbers = (type: 'number' | 'integer', excluded: readonly unknown[]): boolean =>
  type === 'integer' || !excluded.some((v) => typeof v === 'number');

// The items, when they are numbers (or integers) of one schema that may run out of values
// (bounds, multiples, constants a `not` excludes), and no other values: their lexeme's
// language, in which the matcher finds whether a prefix may still end as a value no earlier
// item has (`matcher/number-values.ts`). Undefined when they are not, or as for `closedStrings`.
function closedNumbers(compiler: SchemaCompiler, items: ItemSchemas, minItems: number): { type: 'number' | 'integer'; content: ByteRegex } | undefined {
  const rest = decidedByItemAlone(items, minItems);
  if (rest === undefined) return undefined;
  const flat = compiler.flatten(rest, items.restPointer);
  if (flat === false) return undefined;
  // (Constants a `not` excludes, as the grammar has them.)
  const { not, ...item } = flat;
  const excluded = not === undefined ? [] : onlyConstants(not) ? constantsOf(not) : null;
  if (excluded === null || !Object.keys(item).every((k) => !isAssertion(k) || NUMBER_KEYWORDS.has(k))) return undefined;
  const types = allowedTypes(item, items.restPointer);
  const type = types.length === 1 ? types[0] : undefined;
  if ((type !== 'number' && type !== 'integer') || (type === 'integer' && item.__fraction === true)) return undefined;
  const notValues = [...((item.__notValues as unknown[] | undefined) ?? []), ...excluded];
  if (!searchableNumbers(type, notValues)) return undefined;
  return { type, content: compiler.numberContent(type, { ...item, __notValues: notValues }, items.restPointer) };
}

// Whether an item's own schema alone decides whether a prefix of it may still end as a new
// value: no prefix items or `contains` (they would decide too), at most one item asked for
// (more would need the values left counted), and a schema object as the rest: that object.
function decidedByItemAlone({ schema, prefix, rest }: ItemSchemas, minItems: number): SchemaObject | undefined {
  const alone = prefix.length === 0 && minItems <= 1 && schema.contains === undefined && schema.__contains === undefined;
  return alone && typeof rest === 'object' ? rest : undefined;
}

// The content of the strings one schema (no branches) allows, or undefined when it allows
// other values or keywords the content does not say.
function stringsContent(compiler: SchemaCompiler, item: SchemaObject, pointer: string): ByteRegex | undefined {
  if (item.enum !== undefined || item.const !== undefined) {
    const values = enumValues(compiler, item, pointer);
    return values.every((v) => typeof v === 'string') ? rx.alt(values.map((v) => jsonContentSpellings(v as string))) : undefined;
  }
  const types = allowedTypes(item, pointer);
  if (types.length !== 1 || types[0] !== 'string' || !Object.keys(item).every((k) => !isAssertion(k) || STRING_KEYWORDS.has(k))) return undefined;
  return stringContent(compiler, item, pointer);
}

// The items, when they are objects of named members only (`additionalProperties: false`, or
// none under `strict`), each member's values constants, strings, numbers with no bounds, or
// objects or arrays that can always take one more member or item: the matcher then refuses
// a prefix whose every completion is an earlier item (`ClosedObjectItems`). Undefined when
// they are not, or as for `closedStrings`.
function closedObjects(compiler: SchemaCompiler, items: ItemSchemas, minItems: number): ClosedObjectItems | undefined {
  const rest = decidedByItemAlone(items, minItems);
  if (rest === undefined) return undefined;
  const { restPointer } = items;
  if (compiler.parts.caps.maxProperties !== Infinity) return undefined;
  const item = compiler.flatten(rest, restPointer);
  return item === false ? undefined : (namedMembers(compiler, item, restPointer) ?? objectVariants(compiler, item, restPointer));
}

// Most shapes an item may be one of (`objectVariants`).
const MAX_VARIANTS = 16;

// The items, when they are objects of one of several shapes, each of named members only or
// one that takes any other member of any value (`additionalProperties` absent or true, no
// other object keyword but `properties` and `required`): the branches of an anyOf (or of a
// oneOf whose branches are provably disjoint), no others. A name two shapes declare has one
// schema in both (annotations aside), or constants of strings, booleans or null in each (it
// tells them apart: the matcher checks its value); every member each declares allows some
// value, so that a shape that may hold what is written may be finished.
function objectVariants(compiler: SchemaCompiler, item: SchemaObject, pointer: string): ClosedObjectItems | undefined {
  const split = BRANCHING.filter((k) => item[k] !== undefined);
  if (split.length === 0 && item.__conditions !== undefined) {
    const shapes = conditionalShapes(compiler, item, pointer);
    return shapes === undefined ? undefined : shapeVariants(compiler, shapes, pointer);
  }
  if (split.length !== 1 || (split[0] !== 'anyOf' && split[0] !== 'oneOf')) return undefined;
  const branches = candidates(compiler, item, pointer);
  // (A branch's own dependency lists are its shape's.)
  const branching = (b: SchemaObject): boolean => BRANCHING.some((k) => b[k] !== undefined && !(k === 'dependencies' && memberNeeds(b) !== undefined));
  if (branches.length < 2 || branches.length > MAX_VARIANTS || branches.some(branching)) return undefined;
  if (split[0] === 'oneOf' && !branches.every((a, i) => branches.slice(i + 1).every((b) => provablyDisjoint(compiler, a, b, pointer)))) return undefined;
  return shapeVariants(compiler, branches, pointer);
}

// The two shapes of an object schema with one conditional whose condition is a member's
// constants alone (`if: {properties: {required: {const: false}}}`, bashly's environment
// variables): the member among them, or absent, with `then`; present and of its other
// values (finitely many), with `else`. Disjoint, and together the schema.
function conditionalShapes(compiler: SchemaCompiler, item: SchemaObject, pointer: string): SchemaObject[] | undefined {
  const conditions = item.__conditions as Schema[][];
  if (conditions.length !== 1) return undefined;
  const [condition, then, otherwise] = conditions[0]!;
  const c = typeof condition === 'object' ? compiler.flatten(condition, pointer) : false;
  if (c === false || !Object.keys(c).every((k) => !isAssertion(k) || k === 'properties')) return undefined;
  const tested = Object.entries((c.properties ?? {}) as Record<string, Schema>);
  if (tested.length !== 1) return undefined;
  const [name, constants] = tested[0]!;
  const flat = typeof constants === 'object' ? compiler.flatten(constants, pointer) : false;
  if (flat === false || !Object.keys(flat).every((k) => !isAssertion(k) || k === 'enum' || k === 'const')) return undefined;
  const among = enumValues(compiler, flat, pointer);
  const all = finiteValues(compiler, ownName(item.properties as Record<string, Schema> | undefined, name) ?? true, pointer);
  if (all === null) return undefined;
  const others = all.filter((v) => !among.some((a) => jsonEqual(a, v)));
  const rest: Record<string, unknown> = { ...item };
  delete rest.__conditions;
  const shape = (branch: Schema, values: unknown[], required: string[]): SchemaObject | false => {
    let merged: SchemaObject | false = rest;
    for (const part of [branch, { required, properties: { [name]: { enum: values } } }]) {
      const flatPart = part === true ? {} : part === false ? false : compiler.flatten(part as SchemaObject, pointer);
      merged =
        merged === false || flatPart === false
          ? false
          : mergeSchemas(merged, flatPart, pointer, (at, keyword, message) => compiler.unsupported(at, keyword, message));
    }
    return merged;
  };
  return [shape(then!, among, []), shape(otherwise!, others, [name])].filter((s): s is SchemaObject => s !== false);
}

// Items of one of these object shapes (see `objectVariants`).
function shapeVariants(compiler: SchemaCompiler, branches: readonly SchemaObject[], pointer: string): ClosedObjectItems | undefined {
  if (branches.length === 0) return undefined;
  const open = (b: SchemaObject): boolean =>
    compiler.options.strict !== true &&
    Object.keys(b).every((k) => !isAssertion(k) || OPEN_SHAPE_KEYWORDS.has(k) || (k === 'additionalProperties' && b[k] === true));
  const shapes: { schema: SchemaObject; items?: ClosedObjectItems }[] = [];
  for (const branch of branches) {
    const types = allowedTypes(branch, pointer);
    if (types.length !== 1 || types[0] !== 'object') return undefined;
    const at = (name: string): string => pointerJoin(pointerJoin(pointer, 'properties'), name);
    const declared = Object.entries((branch.properties ?? {}) as Record<string, Schema>);
    // (A member no value passes is never written: a closed shape does without it, where
    // nothing asks for it.)
    const never = declared.filter(([name, m]) => m === false || (typeof m === 'object' && compiler.flatten(m, at(name)) === false)).map(([name]) => name);
    const asked = new Set([
      ...((branch.required ?? []) as string[]),
      ...Object.values(memberNeeds(branch) ?? {}).flat(),
      ...(requiredLists(branch.anyOf) ?? []).flat(),
    ]);
    if (never.length > 0 && (open(branch) || never.some((name) => asked.has(name)))) return undefined;
    const b: SchemaObject = never.length === 0 ? branch : { ...branch, properties: Object.fromEntries(declared.filter(([name]) => !never.includes(name))) };
    if (!declared.every(([name, m]) => never.includes(name) || knownSatisfiable(compiler, m, at(name)))) return undefined;
    const items = namedMembers(compiler, b, pointer);
    if (items === undefined && !open(b)) return undefined;
    shapes.push({ schema: b, ...(items !== undefined && { items }) });
  }
  // Each name's schema in the shapes that declare it, annotations aside.
  const members: Record<string, ClosedMember> = {};
  const tells: Record<string, string[]>[] = shapes.map(() => ({}));
  const names = new Set(shapes.flatMap(({ schema }) => Object.keys((schema.properties ?? {}) as object)));
  for (const name of names) {
    const at = pointerJoin(pointerJoin(pointer, 'properties'), name);
    const declaring = shapes.flatMap(({ schema }, i) => {
      const m = ownName(schema.properties as Record<string, Schema> | undefined, name);
      return m === undefined ? [] : [{ i, m, text: assertionsText(compiler, m, at) }];
    });
    if (declaring.every((d) => d.text === declaring[0]!.text)) {
      const known =
        declaring.map((d) => ownName(shapes[d.i]!.items?.members, name)).find((m) => m !== undefined) ?? memberValues(compiler, declaring[0]!.m, at, 0);
      if (known !== undefined) defineName(members, name, known);
      continue;
    }
    // A member that tells the shapes apart: constants in each.
    const constants = new Set<string>();
    const contents: ByteRegex[] = [];
    for (const { i, m } of declaring) {
      const flat = typeof m === 'object' ? compiler.flatten(m, at) : m;
      if (typeof flat !== 'object' || (flat.enum === undefined && flat.const === undefined)) return undefined;
      const values = enumValues(compiler, flat, at);
      if (!values.every((v) => typeof v === 'string' || typeof v === 'boolean' || v === null)) return undefined;
      defineName(
        tells[i]!,
        name,
        values.map((v) => JSON.stringify(v)),
      );
      for (const v of values) {
        if (typeof v === 'string') contents.push(jsonContentSpellings(v));
        else constants.add(JSON.stringify(v));
      }
    }
    defineName(members, name, { constants: [...constants].sort(), ...(contents.length > 0 && { strings: rx.alt(contents) }) });
  }
  // (Shapes that take any other member first: see `objectEndsAnew`.)
  const variants = shapes.map(({ items }, i) => ({ ...(items !== undefined && { items }), tells: tells[i]! }));
  return { members, required: [], variants: [...variants.filter((v) => v.items === undefined), ...variants.filter((v) => v.items !== undefined)] };
}

// Keywords of a shape that takes any other member of any value (`objectVariants`).
const OPEN_SHAPE_KEYWORDS = new Set(['type', 'properties', 'required']);

// A member schema's assertions as JSON, flattened (two schemas with one text allow one set of values).
function assertionsText(compiler: SchemaCompiler, schema: Schema, pointer: string): string {
  const flat = typeof schema === 'object' ? compiler.flatten(schema, pointer) : schema;
  if (typeof flat !== 'object') return JSON.stringify(flat);
  return JSON.stringify(Object.fromEntries(Object.entries(flat).filter(([k]) => isAssertion(k))));
}

// The members of an object schema of named members only (no branches), or undefined;
// members that are such objects themselves are looked into down to `MAX_NAMED_DEPTH`.
function namedMembers(compiler: SchemaCompiler, item: SchemaObject, pointer: string, depth = 0): ClosedObjectItems | undefined {
  if (!namedShape(compiler, item, pointer)) return undefined;
  const requiredAny = requiredLists(item.anyOf);
  const requiredOne = requiredLists(item.oneOf);
  const declared = (item.properties ?? {}) as Record<string, Schema>;
  const members: Record<string, ClosedMember> = {};
  for (const [name, member] of Object.entries(declared)) {
    const values = memberValues(compiler, member, pointerJoin(pointerJoin(pointer, 'properties'), name), depth);
    if (values === undefined) return undefined;
    defineName(members, name, values);
  }
  const known = (names: readonly string[]): string[] => names.filter((name) => Object.hasOwn(members, name));
  // (A set that names an undeclared member cannot be written: it counts for nothing.)
  const sets = requiredAny?.filter((set) => known(set).length === set.length);
  const ones = requiredOne?.filter((set) => known(set).length === set.length);
  if (sets?.length === 0 || ones?.length === 0) return undefined;
  // (A member that is not declared is never written: it needs nothing, and none may need it.)
  const needs = Object.entries(memberNeeds(item) ?? {}).filter(([name, needed]) => Object.hasOwn(members, name) && needed.length > 0);
  if (needs.some(([, needed]) => known(needed).length < needed.length)) return undefined;
  return {
    members,
    required: known((item.required ?? []) as string[]),
    ...(sets !== undefined && { requiredAny: sets }),
    ...(ones !== undefined && { requiredOne: ones }),
    ...(needs.length > 0 && { dependencies: Object.fromEntries(needs) }),
  };
}

// Whether an object schema is one of named members only by its keywords: closed, of its
// declared members, required ones and an anyOf or a oneOf of required lists.
function namedShape(compiler: SchemaCompiler, item: SchemaObject, pointer: string): boolean {
  const lists = requiredLists(item.anyOf) !== undefined;
  const oneList = requiredLists(item.oneOf) !== undefined;
  const needs = memberNeeds(item) !== undefined;
  const closed = item.additionalProperties === false || (item.additionalProperties === undefined && compiler.options.strict === true);
  const types = allowedTypes(item, pointer);
  return (
    closed &&
    types.length === 1 &&
    types[0] === 'object' &&
    BRANCHING.every((k) => item[k] === undefined || (k === 'anyOf' && lists) || (k === 'oneOf' && oneList) || (k === 'dependencies' && needs)) &&
    Object.keys(item).every(
      (k) =>
        !isAssertion(k) ||
        CLOSED_OBJECT_KEYWORDS.has(k) ||
        (k === 'anyOf' && lists) ||
        (k === 'oneOf' && oneList) ||
        ((k === 'dependencies' || k === 'dependentRequired') && needs),
    )
  );
}

// Items of several kinds, those of one kind strings or objects that may run out of
// completions (`closedStrings`, `closedObjects`: their content, or their members) and every
// other kind open (`openItems`): kept as items of that kind alone are, but an item a comma
// asks for can always be new (one of the open kinds). Undefined otherwise, or where
// `closedStrings` would be (prefix items, contains, minItems past 1).
function closedBesideOpen(
  compiler: SchemaCompiler,
  items: ItemSchemas,
  minItems: number,
): { readonly strings?: ByteRegex; readonly objects?: ClosedObjectItems; readonly numbers?: 'number' | 'integer' } | undefined {
  const rest = decidedByItemAlone(items, minItems);
  if (rest === undefined) return undefined;
  const { restPointer } = items;
  if (!candidatesExact(compiler, rest, restPointer)) return undefined;
  // The candidates by kind, each of one kind (its constants', where it lists them).
  const byKind = new Map<string, SchemaObject[]>();
  for (const s of candidates(compiler, rest, restPointer).flatMap((c) => oneTypeEach(c, restPointer))) {
    const kinds = new Set(valueKinds(s, restPointer));
    if (kinds.size !== 1) return undefined;
    const kind = [...kinds][0]!;
    byKind.set(kind, [...(byKind.get(kind) ?? []), s]);
  }
  const listed = (s: SchemaObject): boolean => s.enum !== undefined || s.const !== undefined || s.__notValues !== undefined;
  let strings: ByteRegex | undefined;
  let objects: ClosedObjectItems | undefined;
  for (const [kind, schemas] of byKind) {
    if (kind === 'string') {
      if (schemas.every((s) => !listed(s) && endlessCompletions(stringContent(compiler, s, restPointer), MAX_ENDLESS_PROOF_STATES))) continue;
      const contents = schemas.map((s) => stringsContent(compiler, s, restPointer));
      if (!contents.every((c) => c !== undefined)) return undefined;
      strings = rx.alt(contents);
    } else if (kind === 'object') {
      if (!schemas.some(listed) && takesFreshMember(compiler, rest, restPointer)) continue;
      objects = schemas.length === 1 ? namedMembers(compiler, schemas[0]!, restPointer) : undefined;
      if (objects === undefined) return undefined;
    } else if (kind === 'array') {
      if (!schemas.every((s) => !listed(s) && everOpenArray(compiler, s, restPointer, 1))) return undefined;
    } else if (kind === 'number') {
      if (!schemas.every((s) => !listed(s) && Object.keys(s).every((k) => !isAssertion(k) || NUMBER_NEUTRAL.has(k)))) return undefined;
    }
  }
  // One kind that may run out, beside others (literals alone are not open).
  if ((strings === undefined) === (objects === undefined)) return undefined;
  if (![...byKind.keys()].some((k) => k !== 'boolean' && k !== 'null' && k !== (strings !== undefined ? 'string' : 'object'))) return undefined;
  // (Which prefixes fix a number's value depends on whether it must be an integer.)
  const numberTypes = (byKind.get('number') ?? []).flatMap((s) => allowedTypes(s, restPointer));
  const numbers = numberTypes.includes('number') ? 'number' : numberTypes.length > 0 ? 'integer' : undefined;
  return { ...(strings !== undefined ? { strings } : { objects: objects! }), ...(numbers !== undefined && { numbers }) };
}

// A schema of several types (and no constants) as one per type, each with the keywords of its
// own kind only: a value of one type heeds no other kind's keywords.
function oneTypeEach(s: SchemaObject, pointer: string): SchemaObject[] {
  const types = allowedTypes(s, pointer);
  if (types.length < 2 || s.enum !== undefined || s.const !== undefined) return [s];
  return types.map((type) => {
    const own = KIND_KEYWORDS[type === 'integer' ? 'number' : type] ?? [];
    return Object.fromEntries(Object.entries({ ...s, type }).filter(([k]) => !KIND_SPECIFIC.has(k) || own.includes(k)));
  });
}

// The kinds of value a schema allows ('number' for integers too), of its constants where it lists them.
function valueKinds(s: SchemaObject, pointer: string): string[] {
  const constants = s.const !== undefined ? [s.const] : Array.isArray(s.enum) ? s.enum : null;
  const types =
    constants === null
      ? allowedTypes(s, pointer)
      : constants.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v));
  return types.map((t) => (t === 'integer' ? 'number' : t));
}

const CLOSED_OBJECT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties']);

// Most objects of named members only nested in one another as members (a schema may refer to itself).
const MAX_NAMED_DEPTH = 8;

// What a member's values may be (see `ClosedMember`), from its schema or the branches of an
// anyOf (of a oneOf whose branches are provably disjoint): undefined when it may be anything
// else (an array that may run out of items, a number with bounds, constants of other kinds,
// an object that may run out of members and is not one of named members only).
function memberValues(compiler: SchemaCompiler, member: Schema, pointer: string, depth: number): ClosedMember | undefined {
  const flat = member === true ? {} : member === false ? false : compiler.flatten(member, pointer);
  if (flat === false) return { constants: [] };
  // (An object of named members only keeps its anyOf of required lists and dependency lists whole.)
  const split = namedShape(compiler, flat, pointer) ? [] : BRANCHING.filter((k) => flat[k] !== undefined);
  if (split.length > 1 || (split.length === 1 && split[0] !== 'anyOf' && split[0] !== 'oneOf')) return undefined;
  const branches = split.length === 0 ? [flat] : candidates(compiler, flat, pointer);
  if (split[0] === 'oneOf' && !branches.every((a, i) => branches.slice(i + 1).every((b) => provablyDisjoint(compiler, a, b, pointer)))) return undefined;
  if (split.length > 0 && branches.some((b) => BRANCHING.some((k) => b[k] !== undefined))) return undefined;
  const constants = new Set<string>();
  const contents: ByteRegex[] = [];
  let endless = false;
  let numbers: ClosedMember['numbers'];
  let closedNumbers: ByteRegex | undefined;
  let objects = false;
  let arrays = false;
  let boundedArrays: number | undefined;
  let object: ClosedObjectItems | undefined;
  for (const b of branches) {
    if (b.enum !== undefined || b.const !== undefined) {
      for (const value of enumValues(compiler, b, pointer)) {
        if (typeof value === 'string') contents.push(jsonContentSpellings(value));
        else if (value === null || typeof value === 'boolean') constants.add(JSON.stringify(value));
        else return undefined;
      }
      continue;
    }
    const types = allowedTypes(b, pointer);
    // Arrays that never run out, or few enough to list, or of few endless strings.
    const endlessArrays = types.includes('array') && (openArray(compiler, b, pointer) || endlessArray(compiler, b, pointer, depth));
    const bounded = types.includes('array') && !endlessArrays ? boundedStrings(compiler, b, pointer) : undefined;
    const listed = types.includes('array') && !endlessArrays && bounded === undefined ? listedArrays(compiler, b, pointer) : null;
    if (listed === undefined) return undefined;
    if (bounded !== undefined) {
      if (boundedArrays !== undefined) return undefined;
      boundedArrays = bounded;
    }
    // (Arrays that never run out are a way out only if there are some.)
    if (listed === null && types.includes('array') && !knownSatisfiable(compiler, { ...b, type: 'array' }, pointer)) return undefined;
    const fresh = types.includes('object') && takesFreshMember(compiler, b, pointer);
    const named = types.includes('object') && !fresh;
    // (Objects that take a fresh member are a way out only if there are some.)
    if (fresh && !knownSatisfiable(compiler, types.length === 1 ? b : { ...b, type: 'object' }, pointer)) return undefined;
    if (named) {
      // (One object of named members only; the branch's other types are judged below.)
      if (object !== undefined || objects || depth >= MAX_NAMED_DEPTH) return undefined;
      object = namedMembers(compiler, types.length === 1 ? b : { ...b, type: 'object' }, pointer, depth + 1);
      if (object === undefined) return undefined;
    }
    const integerFloor = (k: string): boolean => !types.includes('number') && LOWER_BOUNDS.has(k);
    // Numbers of one schema that may run out of values (bounds, multiples): their lexeme's language.
    const type = types.length === 1 ? types[0] : undefined;
    const keys = Object.keys(b).filter(isAssertion);
    if (
      (type === 'number' || type === 'integer') &&
      keys.every((k) => NUMBER_KEYWORDS.has(k)) &&
      !keys.every((k) => NUMBER_NEUTRAL.has(k) || integerFloor(k))
    ) {
      if (
        closedNumbers !== undefined ||
        (type === 'integer' && b.__fraction === true) ||
        !searchableNumbers(type, (b.__notValues as unknown[] | undefined) ?? [])
      )
        return undefined;
      closedNumbers = compiler.numberContent(type, b, pointer);
      continue;
    }
    if (
      types.some((t) => t === 'number' || t === 'integer') &&
      !Object.keys(b).every((k) => !isAssertion(k) || NUMBER_NEUTRAL.has(k) || SIDE_OBJECT_KEYWORDS.has(k) || integerFloor(k))
    )
      return undefined;
    for (const t of types) {
      if (t === 'boolean') ['true', 'false'].forEach((c) => constants.add(c));
      else if (t === 'null') constants.add('null');
      else if (t === 'object' && !named) {
        if (object !== undefined) return undefined;
        objects = true;
      } else if (t === 'array') {
        if (listed !== null) listed.forEach((value) => constants.add(value));
        else if (bounded === undefined) arrays = true;
      } else if (t === 'number' || t === 'integer') {
        // (Integers from a floor where every branch has one, the lowest: see `fixedItem`.)
        const kind = t === 'number' ? 'number' : Object.keys(b).some(integerFloor) ? { from: integerFrom(lowerBound(b, pointer)) } : 'integer';
        // (Below 0 a prefix may have few values, all listed: none may be excluded.)
        if (typeof kind === 'object' && kind.from < 0 && b.__notValues !== undefined) return undefined;
        numbers =
          numbers === 'number' || kind === 'number'
            ? 'number'
            : numbers === 'integer' || kind === 'integer'
              ? 'integer'
              : { from: Math.min(numbers?.from ?? Infinity, kind.from) };
      } else if (t === 'string') {
        // (Other kinds' keywords constrain those kinds alone.)
        if (!Object.keys(b).every((k) => !isAssertion(k) || STRING_KEYWORDS.has(k) || (KIND_SPECIFIC.has(k) && !KIND_KEYWORDS.string!.includes(k))))
          return undefined;
        const content = stringContent(compiler, b, pointer);
        if (!endlessCompletions(content, MAX_ENDLESS_PROOF_STATES)) contents.push(content);
        else {
          // (Endless strings are a way out only if there are some.)
          const some = matchesSomething(content, MAX_ENDLESS_PROOF_STATES);
          if (some === null) return undefined;
          endless ||= some;
        }
      }
    }
  }
  const strings = endless ? ('endless' as const) : contents.length > 0 ? rx.alt(contents) : undefined;
  // (An array begun is read against the listed ones, or as one of few endless strings: it
  // may not be one of another kind too.)
  const readers = [arrays, [...constants].some((c) => c.startsWith('[')), boundedArrays !== undefined].filter(Boolean).length;
  if (readers > 1) return undefined;
  // (A number is read as one kind: any or from a floor, or of the language.)
  if (closedNumbers !== undefined && numbers !== undefined) return undefined;
  return {
    constants: [...constants].sort(),
    ...(strings !== undefined && { strings }),
    ...(numbers !== undefined && { numbers }),
    ...(closedNumbers !== undefined && { closedNumbers }),
    ...(objects && { objects }),
    ...(arrays && { arrays }),
    ...(boundedArrays !== undefined && { boundedArrays }),
    ...(object !== undefined && { object }),
  };
}

// Whether every prefix of the arrays an array schema allows has endlessly many completions,
// though an item's may run out: no maxItems, prefix items or contains, and items of which
// there is some that may repeat, or unique ones the matcher keeps distinct (where it cannot,
// the array's own schema is refused) of endlessly many values: strings of more than
// `MANY_STRINGS` values, objects of named members only (see `closedObjects`) with a member of
// endlessly many values, or branches one of which is such or an array of that kind (with at
// most one item asked for). (Open items are `openArray`'s.)
function endlessArray(compiler: SchemaCompiler, s: SchemaObject, pointer: string, depth: number): boolean {
  if (depth >= MAX_NAMED_DEPTH || compiler.parts.caps.maxItems !== Infinity || !Object.keys(s).every((k) => !arrayKeyword(k) || OPEN_ARRAY_KEYWORDS.has(k)))
    return false;
  const { prefix, rest, restPointer } = itemSchemas(s, pointer);
  if (prefix.length > 0) return false;
  if (s.uniqueItems !== true) return knownSatisfiable(compiler, rest, restPointer);
  const flat = typeof rest === 'object' ? compiler.flatten(rest, restPointer) : false;
  if (flat === false) return false;
  const strings = stringsContent(compiler, flat, restPointer);
  if (strings !== undefined) {
    const count = stringValues(strings) ?? 0;
    return count > MANY_STRINGS && (nonNegativeInt(s.minItems, pointer, 'minItems') ?? 0) <= count;
  }
  if (namedShape(compiler, flat, restPointer)) return endlessObjects(compiler, flat, restPointer, depth);
  // Branches (allowing no other values), one of endlessly many values, an array asking for at
  // most one: strings as above, arrays that never run out, such objects.
  if ((nonNegativeInt(s.minItems, pointer, 'minItems') ?? 0) > 1 || !candidatesExact(compiler, flat, restPointer)) return false;
  return candidates(compiler, flat, restPointer).some((b) => {
    const types = allowedTypes(b, restPointer);
    if (types.length !== 1) return false;
    if (types[0] === 'array') return everOpenArray(compiler, b, restPointer, depth + 1);
    if (types[0] === 'object') return namedShape(compiler, b, restPointer) && endlessObjects(compiler, b, restPointer, depth);
    const content = types[0] === 'string' ? stringsContent(compiler, b, restPointer) : undefined;
    return content !== undefined && (stringValues(content) ?? 0) > MANY_STRINGS;
  });
}

// Whether objects of named members only (kept distinct by the matcher, or the array's own
// schema is refused), of which there is some, have a member of endlessly many values:
// strings or numbers looked at alone (a schema may hold arrays of itself), or any member.
function endlessObjects(compiler: SchemaCompiler, flat: SchemaObject, pointer: string, depth: number): boolean {
  if (!knownSatisfiable(compiler, flat, pointer)) return false;
  // (Such a member must be one any item can take: it needs no other.)
  const needs = memberNeeds(flat) ?? {};
  const addable = ([name]: [string, unknown]): boolean => (ownName(needs, name) ?? []).length === 0;
  const scalars = Object.entries((flat.properties ?? {}) as Record<string, Schema>)
    .filter(addable)
    .some(([name, member]) => {
      const values = memberValues(compiler, member, pointerJoin(pointerJoin(pointer, 'properties'), name), MAX_NAMED_DEPTH);
      return values !== undefined && (values.strings === 'endless' || values.numbers !== undefined);
    });
  return scalars || Object.entries(namedMembers(compiler, flat, pointer, depth + 1)?.members ?? {}).some((e) => addable(e) && endlessMember(e[1]));
}

// Unique items of more strings than this make more arrays than 2^53 (each string once, in
// any order: 19! of them), more than any array holds items: they never run out.
const MANY_STRINGS = 18;

// The maxItems of an array schema whose items are strings of one schema, endlessly many of
// them and every prefix with endless completions (`closedStrings` keeps them distinct where
// unique), when it has one (1 or more) and no other array keyword but minItems; undefined
// otherwise. Such an array is fixed once its last item ends (`ClosedMember.boundedArrays`).
function boundedStrings(compiler: SchemaCompiler, s: SchemaObject, pointer: string): number | undefined {
  if (!Object.keys(s).every((k) => !arrayKeyword(k) || LISTED_ARRAY_KEYWORDS.has(k)) || Array.isArray(s.items)) return undefined;
  const max = nonNegativeInt(s.maxItems, pointer, 'maxItems');
  const min = nonNegativeInt(s.minItems, pointer, 'minItems') ?? 0;
  if (max === undefined || max < 1 || min > max || compiler.parts.caps.maxItems < max) return undefined;
  const { rest, restPointer } = itemSchemas(s, pointer);
  const flat = typeof rest === 'object' ? compiler.flatten(rest, restPointer) : false;
  const content = flat === false ? undefined : stringsContent(compiler, flat, restPointer);
  if (content === undefined || flat === false || flat.enum !== undefined || flat.const !== undefined) return undefined;
  return endlessCompletions(content, MAX_ENDLESS_PROOF_STATES) && matchesSomething(content, MAX_ENDLESS_PROOF_STATES) === true ? max : undefined;
}

// Most arrays a member's schema may list, and most it may look at to find them.
const MAX_LISTED_ARRAYS = 4096;
const MAX_LISTING = 20_000;
// Array keywords a listed member's schema may have.
const LISTED_ARRAY_KEYWORDS = new Set(['type', 'items', 'minItems', 'maxItems', 'uniqueItems']);

// The arrays an array schema allows (canonical JSON), when they are few: items of one schema
// of finitely many strings, booleans or null, at most `maxItems` of them (or each value once,
// unique), and no other array keyword; undefined otherwise. The matcher reads a member's
// array begun against them (`ClosedMember.constants`).
function listedArrays(compiler: SchemaCompiler, s: SchemaObject, pointer: string): string[] | undefined {
  if (!Object.keys(s).every((k) => !arrayKeyword(k) || LISTED_ARRAY_KEYWORDS.has(k)) || Array.isArray(s.items)) return undefined;
  const { rest, restPointer } = itemSchemas(s, pointer);
  const values = finiteValues(compiler, rest, restPointer);
  if (values === null || !values.every((v) => typeof v === 'string' || typeof v === 'boolean' || v === null)) return undefined;
  const unique = s.uniqueItems === true;
  const min = typeof s.minItems === 'number' ? s.minItems : 0;
  // (A cap on items yields to minItems, as in the grammar.)
  const longest = Math.min(
    capped(typeof s.maxItems === 'number' ? s.maxItems : undefined, compiler.parts.caps.maxItems, min),
    unique || values.length === 0 ? values.length : Infinity,
  );
  if (longest === Infinity) return undefined;
  // (How many arrays there are of each length, up to the longest: too many, not listed.)
  let count = 1;
  for (let n = 1, ways = 1; n <= longest && count <= MAX_LISTING; n++) count += ways *= unique ? values.length - n + 1 : values.length;
  if (count > MAX_LISTING) return undefined;
  const check = standardSchema({ ...s, type: 'array' }, compiler.draft);
  const out: string[] = [];
  const grow = (items: unknown[]): void => {
    if (validatesValue(compiler, check, items, pointer, false)) out.push(JSON.stringify(items));
    if (items.length < longest) for (const v of values) if (!unique || !items.includes(v)) grow([...items, v]);
  };
  grow([]);
  return out.length <= MAX_LISTED_ARRAYS ? out : undefined;
}

// Lower bounds that leave integers endless: the matcher tells the prefixes that fix a value
// (`-4` for a minimum of -5; a number's exponent `1e-` may close for a minimum of 1, so
// numbers stay without).
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum']);

// The least integer a lower bound allows.
const integerFrom = ({ value, inclusive }: Bound): number => (inclusive ? Math.ceil(value) : Math.floor(value) + 1);

// Object keywords a member's string or number branch may have beside its type (they
// constrain objects only, and an object there is judged apart).
const SIDE_OBJECT_KEYWORDS = new Set(['properties', 'required', 'minProperties', 'dependentRequired', 'additionalProperties']);

// Array keywords that never stop one more item (whose every prefix has endless completions).
const OPEN_ARRAY_KEYWORDS = new Set(['type', 'items', 'uniqueItems', 'minItems']);

// Whether an array schema lets any array take one more item, of endlessly many values: no
// maxItems, prefix items or contains (keywords of other kinds aside), and items of any value,
// or of which there are endlessly many and every prefix has endless completions (`openItems`;
// some items must be possible; arrays nested past `MAX_OPEN_DEPTH` are not looked into).
function openArray(compiler: SchemaCompiler, s: SchemaObject, pointer: string, depth = 0): boolean {
  if (compiler.parts.caps.maxItems !== Infinity || !Object.keys(s).every((k) => !arrayKeyword(k) || OPEN_ARRAY_KEYWORDS.has(k))) return false;
  const items = itemSchemas(s, pointer);
  if (items.prefix.length > 0) return false;
  const rest = items.rest;
  if (s.uniqueItems !== true && (rest === true || (typeof rest === 'object' && Object.keys(rest).every((k) => !isAssertion(k))))) return true;
  return depth <= MAX_OPEN_DEPTH && candidates(compiler, rest, items.restPointer).length > 0 && openItems(compiler, items, depth);
}

// Whether every prefix of the arrays an array schema allows has endless completions, and
// there is some: any array takes one more item (`openArray`), or some item there is keeps
// it going (`endlessArray`).
function everOpenArray(compiler: SchemaCompiler, s: SchemaObject, pointer: string, depth: number): boolean {
  return openArray(compiler, s, pointer, depth) || (endlessArray(compiler, s, pointer, depth) && knownSatisfiable(compiler, s, pointer));
}

// Whether a keyword asserts something of arrays (arrays' own, or one of every kind).
const arrayKeyword = (k: string): boolean => isAssertion(k) && (!KIND_SPECIFIC.has(k) || KIND_KEYWORDS.array!.includes(k));

// Most arrays nested in one another that `openArray` looks into (a schema may refer to itself).
const MAX_OPEN_DEPTH = 8;

function itemSchemas(schema: SchemaObject, pointer: string): ItemSchemas {
  if (Array.isArray(schema.items)) {
    return {
      schema,
      prefix: schema.items as Schema[],
      rest: schema.additionalItems !== undefined ? (schema.additionalItems as Schema) : true,
      prefixPointer: pointerJoin(pointer, 'items'),
      restPointer: pointerJoin(pointer, 'additionalItems'),
    };
  }
  return {
    schema,
    prefix: Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [],
    rest: schema.items !== undefined ? (schema.items as Schema) : true,
    prefixPointer: pointerJoin(pointer, 'prefixItems'),
    restPointer: pointerJoin(pointer, 'items'),
  };
}

// The schema of the item at position i, and its pointer.
function itemSchema(items: ItemSchemas, i: number): readonly [Schema, string] {
  return i < items.prefix.length ? [items.prefix[i]!, pointerJoin(items.prefixPointer, i)] : [items.rest, items.restPointer];
}

// The item at position i (each distinct item schema is built once: schemaExpr reuses it).
function itemExpr(compiler: SchemaCompiler, items: ItemSchemas, i: number): Expr {
  return compiler.schemaExpr(...itemSchema(items, i));
}

// Items from position i on, at least `min` of them in all, given i already written.
function itemsFrom(compiler: SchemaCompiler, items: ItemSchemas, i: number, min: number, maxItems: number): Expr {
  if (i >= maxItems) return expr.empty;
  const sep = compiler.parts.itemSeparator();
  const first = i === 0 ? itemExpr(compiler, items, i) : expr.seq([sep, itemExpr(compiler, items, i)]);
  if (i >= items.prefix.length) {
    // The rest: one schema repeated up to maxItems in all.
    const more = expr.repeat(expr.seq([sep, itemExpr(compiler, items, i)]), Math.max(0, min - i - 1), maxItems - i - 1);
    const list = expr.seq([first, more]);
    return i >= min ? expr.alt([list, expr.empty]) : list;
  }
  const here = expr.seq([first, itemsFrom(compiler, items, i + 1, min, maxItems)]);
  return i >= min ? expr.alt([here, expr.empty]) : here;
}

/** Most rules (positions × counts of witnesses found) an array with witnesses may take. */
export const MAX_WITNESS_RULES = 4096;
// Most ways of writing items all those rules may hold together (an item is written one way
// per choice, for each witness, of counting it or not).
const MAX_WITNESS_CHOICES = 65_536;

// Arrays with witnesses (`contains`, or an item failing the rest's schema): one rule per
// (items written, witnesses found), items written counted up to where positions become
// alike (past the prefix, minItems and every witness's start) when there is no maxItems.
// Witnesses found are counted per witness up to what decides: its `max` where it has one
// (an item then either satisfies its schema, counted, or its complement), else its `min` (an
// item that satisfies it may be counted or not: the union is the language).
function witnessedItems(
  compiler: SchemaCompiler,
  items: ItemSchemas,
  minItems: number,
  maxItems: number,
  witnesses: readonly Witness[],
  pointer: string,
): Expr {
  const parts = compiler.parts;
  const counts = witnesses.map(witnessCounts);
  const caps = counts.map(({ min, max }) => (max < Infinity ? max : min));
  // Found counts as one number: witness k's count times the product of the caps before it.
  const radix = caps.map((_, k) => caps.slice(0, k).reduce((p, c) => p * (c + 1), 1));
  const states = caps.reduce((p, c) => p * (c + 1), 1);
  const countOf = (found: number, k: number): number => Math.floor(found / radix[k]!) % (caps[k]! + 1);
  const done = (found: number): boolean => counts.every(({ min }, k) => countOf(found, k) >= min);
  const alike = Math.max(1, items.prefix.length, minItems, ...witnesses.map((w) => w.from));
  const last = maxItems === Infinity ? alike : maxItems;
  if ((last + 1) * states > MAX_WITNESS_RULES || (last + 1) * states * 2 ** witnesses.length > MAX_WITNESS_CHOICES) {
    const message = `contains (or the complement of items) on arrays of more than ${MAX_WITNESS_RULES} (positions × witnesses found) states, or ${MAX_WITNESS_CHOICES} ways of writing an item across them, is not supported`;
    compiler.unsupported(pointer, 'contains', message);
    return arrayExpr(compiler, { ...items.schema, __contains: undefined }, pointer);
  }
  const base = compiler.ruleName(`contains:${pointer}`);
  const name = (i: number, found: number): string => `${base}@${Math.min(i, last)},${found}`;
  // Each way of writing item i after `found`: the item's schema (with the witnesses it
  // satisfies, and the complements of those it must not) and the counts after it.
  const ways = (i: number, found: number): [Expr, number][] => {
    let options: [Schema[], number][] = [[[], found]];
    witnesses.forEach((w, k) => {
      if (w.from > i) return;
      const count = countOf(found, k);
      const { max } = counts[k]!;
      options = options.flatMap(([also, now]): [Schema[], number][] => {
        // Counted: it satisfies the witness (within the cap: past max, no way on).
        const counted: [Schema[], number][] = count < caps[k]! ? [[[...also, w.schema], now + radix[k]!]] : max < Infinity ? [] : [[also, now]];
        // Not counted: with a max, it must not satisfy the witness; without one, it may or not.
        const passed: [Schema[], number][] = max < Infinity ? [[[...also, { not: w.schema }], now]] : count < caps[k]! ? [[also, now]] : [];
        return [...counted, ...passed];
      });
    });
    const [schema, at] = itemSchema(items, i);
    return options.map(([also, now]) => [compiler.schemaExpr(also.length === 0 ? schema : { allOf: [schema, ...also] }, at), now]);
  };
  const sep = parts.itemSeparator();
  for (let i = 1; i <= last; i++) {
    for (let found = 0; found < states; found++) {
      const choices: Expr[] = i >= minItems && done(found) ? [expr.empty] : [];
      if (i < maxItems) for (const [next, now] of ways(i, found)) choices.push(expr.seq([sep, next, expr.ref(name(i + 1, now))]));
      parts.builder.rules.set(name(i, found), expr.alt(choices));
    }
  }
  const first = expr.alt(maxItems === 0 ? [] : ways(0, 0).map(([next, now]) => expr.seq([next, expr.ref(name(1, now))])));
  // The empty array, where no witness needs an item.
  const empty = minItems === 0 && done(0) ? [expr.empty] : [];
  return expr.seq([parts.token('['), parts.ws(), expr.alt([expr.seq([first, parts.ws()]), ...empty]), parts.token(']')]);
}
