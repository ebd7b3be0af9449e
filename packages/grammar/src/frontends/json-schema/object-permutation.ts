/**
 * How an object's members are arranged between `{ ws` and `}`: the tracked members in any
 * order, each at most once, as a permutation the parser lowers lazily (`PermutationDef`);
 * or, past `MAX_PERMUTATION_MEMBERS` names, in declaration order. Other members may come
 * anywhere in the first form, after the tracked ones in the second.
 */
import { expr, MAX_PERMUTATION_MEMBERS, type Expr } from '../../ir/grammar-ir.ts';
import type { ObjectShape } from './object-schema.ts';
import type { SchemaCompiler } from './schema-compiler.ts';

/** The rules an object's members are written with (built by `objectExpr`). */
export interface MemberRules {
  /** The prefix of the object's rule names. */
  readonly base: string;
  /** The rule of tracked member `name`. */
  member(name: string): Expr;
  /** The rule of any other member (null: there are none). */
  readonly other: Expr | null;
}

/**
 * Tracked members in any order, each at most once; other members anywhere; `witnesses`
 * (other members that must be present) as more required members. The parser builds the
 * states (which are written, how many) a parse reaches, lazily.
 */
export function permutedMembers(compiler: SchemaCompiler, shape: ObjectShape, rules: MemberRules, witnesses: readonly Expr[] = []): Expr {
  const parts = compiler.parts;
  const { names, required, dependencies, exclusive } = shape;
  const rule = `${rules.base}@`;
  const index = new Map(names.map((name, i) => [name, i]));
  const indices = (list: readonly string[]): number[] => list.map((n) => index.get(n)!);
  parts.builder.permutations.set(rule, {
    members: [...names.map((name) => rules.member(name)), ...witnesses],
    required: [...names.flatMap((name, i) => (required.has(name) ? [i] : [])), ...witnesses.map((_, i) => names.length + i)],
    other: rules.other,
    min: shape.minProperties,
    max: shape.maxProperties,
    separator: parts.itemSeparator(),
    // Whitespace before `}` only after a member, so runs never double up.
    close: parts.ws(),
    ...(dependencies.size > 0 && { dependencies: new Map([...dependencies].map(([name, needs]) => [index.get(name)!, indices(needs)])) }),
    ...(exclusive.length > 0 && { exclusive: exclusive.map(indices) }),
  });
  return expr.ref(rule);
}

/**
 * Very many tracked members: in declaration order (optional ones may be left out), then
 * other members. One rule per (position, members written so far), the count kept up to
 * `cap` (at least 1, which decides whether a separator comes first).
 */
export function orderedMembers(compiler: SchemaCompiler, shape: ObjectShape, rules: MemberRules, pointer: string, witnesses: readonly Expr[] = []): Expr {
  if (witnesses.length > 0)
    compiler.unsupported(pointer, 'not', `a member that must be present on an object of more than ${MAX_PERMUTATION_MEMBERS} properties is not supported`);
  if (shape.dependencies.size > 0 || shape.exclusive.length > 0) {
    const message = `dependentRequired on an object of more than ${MAX_PERMUTATION_MEMBERS} properties is not supported`;
    compiler.unsupported(pointer, 'dependentRequired', message);
  }
  const { names, minProperties, maxProperties } = shape;
  const cap = maxProperties === Infinity ? Math.max(minProperties, 1) : maxProperties + 1;
  const ordered = new OrderedMemberRules(compiler, shape, rules, cap);
  // Built from the last property back, so no recursion grows with the property count.
  for (let i = names.length; i >= 0; i--) {
    for (let count = 0; count <= cap; count++) compiler.parts.builder.rules.set(ordered.name(i, count), ordered.body(i, count));
  }
  return expr.ref(ordered.name(0, 0));
}

// The rules of `orderedMembers`: `name(i, count)` is the rest of the object from tracked
// member i on, `count` members (up to `cap`) written before it.
class OrderedMemberRules {
  readonly #sep: Expr;

  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly shape: ObjectShape,
    private readonly rules: MemberRules,
    private readonly cap: number,
  ) {
    this.#sep = compiler.parts.itemSeparator();
  }

  name(i: number, count: number): string {
    return `${this.rules.base}@${i},${count}`;
  }

  body(i: number, count: number): Expr {
    const names = this.shape.names;
    if (i === names.length) return this.#others(count);
    const name = names[i]!;
    const item = this.rules.member(name);
    const present = expr.seq([count > 0 ? expr.seq([this.#sep, item]) : item, expr.ref(this.name(i + 1, Math.min(count + 1, this.cap)))]);
    return this.shape.required.has(name) ? present : expr.alt([present, expr.ref(this.name(i + 1, count))]);
  }

  // Other members after the tracked ones: between min and max in total.
  #others(count: number): Expr {
    const ws = this.compiler.parts.ws();
    const other = this.rules.other;
    const lo = Math.max(0, this.shape.minProperties - count);
    const hi = this.shape.maxProperties - count;
    if (hi < 0 || (lo > 0 && (other === null || hi === 0))) return expr.alt([]);
    if (other === null || hi === 0) return count > 0 ? ws : expr.empty;
    const more = expr.seq([this.#sep, other]);
    if (count > 0) return expr.seq([expr.repeat(more, lo, hi), ws]);
    const list = expr.seq([other, expr.repeat(more, Math.max(0, lo - 1), hi - 1), ws]);
    return lo === 0 ? expr.alt([list, expr.empty]) : list;
  }
}
