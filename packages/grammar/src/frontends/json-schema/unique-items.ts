/**
 * `uniqueItems: true` over items drawn from a finite set of values (enum / const, booleans,
 * null, small integer ranges, unions of these): a grammar over subsets. Items are pairwise
 * distinct, so the count written is the size of the set of values used, and that set is the
 * whole state: from it, each value not used yet that the next position's schema allows may
 * come next. Values are compared as JSON Schema compares them (`1` and `1.0` are one value;
 * objects regardless of member order), and every spelling of a value is that value.
 */
import { expr, type Expr } from '../../ir/grammar-ir.ts';
import { jsonValueExpr, wholeNumbersOnly } from './enum-schema.ts';
import { jsonEqual } from './merge-schemas.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { allowedTypes, lowerBound, upperBound, witnessCounts, type Schema, type SchemaObject, type Witness } from './schema-keywords.ts';
import { standardSchema, validatesValue, valueValidity } from './value-validation.ts';

/** Most distinct values the items of a unique array may take (a set is a 30-bit mask). */
export const MAX_UNIQUE_VALUES = 30;
/** Most sets of values (grammar rules) a unique array may reach: 12 values with no maxItems. */
export const MAX_UNIQUE_STATES = 4096;

/** An array's item schemas by position: the prefix, then the rest (see `array-schema.ts`). */
export interface PositionSchemas {
  /** The schema of the item at position i, and its pointer. */
  at(i: number): readonly [Schema, string];
}

/** What a grammar over sets of values needs (see `uniqueItemsPlan`). */
export interface UniqueItemsPlan {
  readonly values: readonly unknown[];
  /** Per position written: the indices into `values` it allows. */
  readonly allowed: readonly (readonly number[])[];
  /** Per position written: whether its numbers are integers written without a fraction (`wholeNumbersOnly`). */
  readonly whole: readonly boolean[];
  readonly reachable: ReadonlySet<number>;
  readonly longest: number;
}

/**
 * Whether a grammar over sets can say that the items of a unique array (at most `max` of
 * them) are distinct, and what it needs: null when some position's schema allows
 * infinitely many values (or more than `MAX_UNIQUE_VALUES`), or when the sets reachable
 * exceed `MAX_UNIQUE_STATES`.
 */
export function uniqueItemsPlan(compiler: SchemaCompiler, positions: PositionSchemas, max: number): UniqueItemsPlan | null {
  // The values each position allows, as indices into one list of distinct values.
  const values: unknown[] = [];
  const allowed: number[][] = [];
  const whole: boolean[] = [];
  const bound = Math.min(max, MAX_UNIQUE_VALUES + 1);
  const known = new Map<Schema, unknown[] | null>();
  for (let i = 0; i < bound; i++) {
    const [schema, pointer] = positions.at(i);
    let here = known.get(schema);
    if (here === undefined) known.set(schema, (here = finiteValues(compiler, schema, pointer)));
    if (here === null) return null;
    whole.push(wholeNumbersOnly(compiler, schema, pointer));
    allowed.push(
      here.map((v) => {
        const index = values.findIndex((u) => jsonEqual(u, v));
        return index >= 0 ? index : values.push(v) - 1;
      }),
    );
    if (values.length > MAX_UNIQUE_VALUES) return null;
  }
  // A unique array holds at most one item per value. The sets reachable, counted first.
  const longest = Math.min(max, values.length);
  const reachable = new Set<number>();
  const queue = allowed[0]!.map((v) => 1 << v);
  while (queue.length > 0) {
    const used = queue.pop()!;
    if (reachable.has(used)) continue;
    reachable.add(used);
    if (reachable.size > MAX_UNIQUE_STATES) return null;
    const count = bitCount(used);
    if (count < longest) for (const v of allowed[count]!) if (!(used & (1 << v))) queue.push(used | (1 << v));
  }
  return { values, allowed, whole, reachable, longest };
}

/**
 * The items of a unique array as a grammar over the sets of values used (`uniqueItemsPlan`),
 * at least `min` of them, and for each of `witnesses` (`contains`, from the first item on)
 * one that satisfies its schema: a set may end the array only when it holds one.
 */
export function uniqueItemsExpr(
  compiler: SchemaCompiler,
  { values, allowed, whole, reachable, longest }: UniqueItemsPlan,
  min: number,
  witnesses: readonly Witness[],
  pointer: string,
): Expr {
  const parts = compiler.parts;
  const base = compiler.ruleName('unique');
  // Each value as written at a position (numbers with or without a fraction, `whole`), made once.
  const spelled = [new Map<number, Expr>(), new Map<number, Expr>()];
  const at = (position: number, v: number): Expr => {
    const made = spelled[whole[position] ? 1 : 0]!;
    let value = made.get(v);
    if (value === undefined) made.set(v, (value = jsonValueExpr(compiler, values[v], whole[position])));
    return value;
  };
  if (witnesses.some((w) => w.from > 0))
    compiler.unsupported(pointer, 'contains', 'contains beside prefix items over a unique array of finitely many values is not supported');
  // Per witness, the values that satisfy it (a set of them).
  const satisfying = witnesses.map(({ schema }) => {
    const check = schema === true || schema === false ? null : standardSchema(schema, compiler.draft);
    return values.reduce<number>((set, v, i) => {
      const satisfies = schema === true || (check !== null && valueValidity(compiler, check, v, pointer));
      // (A value that may or may not satisfy it could count either way.)
      if (satisfies === undefined) compiler.unsupported(pointer, 'contains', `contains over values of a format enforced only in part (${JSON.stringify(v)})`);
      return satisfies === true ? set | (1 << i) : set;
    }, 0);
  });
  const counts = witnesses.map(witnessCounts);
  const mayEnd = (used: number): boolean => bitCount(used) >= min && satisfying.every((set, k) => bitCount(used & set) >= counts[k]!.min);
  // A value that would make more items satisfy a witness than its max allows.
  const tooMany = (used: number): boolean => satisfying.some((set, k) => bitCount(used & set) > counts[k]!.max);
  // Items after the set `used` (|used| ≥ 1 written): the end, or one more unused value.
  const after = (used: number): Expr => expr.ref(`${base}.${used.toString(36)}`);
  for (const used of reachable) {
    const count = bitCount(used);
    const choices: Expr[] = mayEnd(used) ? [expr.empty] : [];
    if (count < longest) {
      for (const v of allowed[count]!) {
        if (!(used & (1 << v)) && !tooMany(used | (1 << v))) choices.push(expr.seq([parts.itemSeparator(), at(count, v), after(used | (1 << v))]));
      }
    }
    parts.builder.rules.set(`${base}.${used.toString(36)}`, expr.alt(choices));
  }
  const first = longest === 0 ? [] : allowed[0]!.filter((v) => !tooMany(1 << v)).map((v) => expr.seq([at(0, v), after(1 << v)]));
  const list = expr.seq([expr.alt(first), parts.ws()]);
  return expr.seq([parts.token('['), parts.ws(), mayEnd(0) ? expr.alt([list, expr.empty]) : list, parts.token(']')]);
}

/**
 * The values a schema allows when they are finitely many (at most `MAX_UNIQUE_VALUES`): the
 * candidates its enum / const, types or branches allow, each checked against the whole
 * schema by the exact validator. Null otherwise.
 */
export function finiteValues(compiler: SchemaCompiler, schema: Schema, pointer: string): unknown[] | null {
  if (schema === false) return [];
  if (schema === true) return null;
  const candidates = candidateValues(compiler, schema, pointer, 0);
  if (candidates === null) return null;
  const check = standardSchema(schema, compiler.draft);
  const out: unknown[] = [];
  for (const v of candidates) {
    if (!out.some((u) => jsonEqual(u, v)) && validatesValue(compiler, check, v, pointer, false)) out.push(v);
  }
  return out;
}

// How deep into anyOf / oneOf branches candidates are looked for.
const MAX_BRANCH_DEPTH = 4;

// A finite superset of the values a schema allows, or null.
function candidateValues(compiler: SchemaCompiler, schema: SchemaObject, pointer: string, depth: number): unknown[] | null {
  const flat = compiler.flatten(schema, pointer);
  if (flat === false) return [];
  if (flat.const !== undefined) return [flat.const];
  if (Array.isArray(flat.enum)) return flat.enum.length <= MAX_UNIQUE_VALUES * 4 ? flat.enum : null;
  const fromTypes = typeCandidates(flat, pointer);
  if (fromTypes !== null) return fromTypes;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = flat[keyword];
    if (!Array.isArray(branches) || depth >= MAX_BRANCH_DEPTH) continue;
    const out: unknown[] = [];
    for (const branch of branches as Schema[]) {
      if (branch === false) continue;
      if (branch === true) return null;
      const more = candidateValues(compiler, branch, pointer, depth + 1);
      if (more === null) return null;
      out.push(...more);
      if (out.length > MAX_UNIQUE_VALUES * 4) return null;
    }
    return out;
  }
  return null;
}

// The values of the finite types a schema allows: null, booleans, integers in a small range,
// and of the others where bounds leave one (a number both bounds name, an empty string, array
// or object).
function typeCandidates(schema: SchemaObject, pointer: string): unknown[] | null {
  const out: unknown[] = [];
  for (const type of allowedTypes(schema, pointer)) {
    if (type === 'null') out.push(null);
    else if (type === 'boolean') out.push(true, false);
    else if (type === 'number') {
      const lo = lowerBound(schema, pointer);
      const hi = upperBound(schema, pointer);
      // (Past 2^53 a bound stands for more numbers than its double: see `exactBound`.)
      if (!(lo.inclusive && hi.inclusive && lo.value === hi.value && Math.abs(lo.value) <= Number.MAX_SAFE_INTEGER)) return null;
      out.push(lo.value);
    } else if (type === 'string' || type === 'array' || type === 'object') {
      const most = { string: 'maxLength', array: 'maxItems', object: 'maxProperties' }[type];
      if (schema[most] !== 0) return null;
      out.push(type === 'string' ? '' : type === 'array' ? [] : {});
    } else if (type === 'integer') {
      const lo = lowerBound(schema, pointer);
      const hi = upperBound(schema, pointer);
      const low = lo.inclusive ? Math.ceil(lo.value) : Math.floor(lo.value) + 1;
      const high = hi.inclusive ? Math.floor(hi.value) : Math.ceil(hi.value) - 1;
      // (Past 2^53 not every integer is a number: n++ would stand still.)
      if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || !(high - low < MAX_UNIQUE_VALUES * 4)) return null;
      for (let n = low; n <= high; n++) out.push(n);
    } else return null;
  }
  return out;
}

function bitCount(n: number): number {
  let count = 0;
  for (; n !== 0; n &= n - 1) count++;
  return count;
}
