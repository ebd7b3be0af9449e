/**
 * The operands of an intersection, fewer and simpler before its product is built
 * (`lexer-dfa.ts`): each once, and counts of one kind of unit merged into one. A length a
 * pattern spells (`^.{60}$`: sixty dots) beside the `maxLength` of the same string is then one
 * count, of the narrower unit between the tighter bounds, which a product may count virtually
 * rather than copy the other operands once per unit.
 */
import { isNullable, RegexIds, rx, type ByteRegex } from '../ir/byte-regex.ts';

// An operand, and the count of one unit it is where it is one (`min` to `max` copies).
interface Operand {
  readonly item: ByteRegex;
  readonly count: { readonly unit: ByteRegex; readonly min: number; readonly max: number } | null;
}

// Most counts compared pairwise in one intersection.
const MAX_COUNTS = 16;

/**
 * `items` with equal ones once, and two counts merged where one's unit lies within the other's
 * and the other's units are a prefix code (none empty, none the beginning of another): a
 * string of k narrower units is then one of k wider units and of no other number of them, so
 * both counts hold exactly where k lies within both bounds. `isEmpty` tells whether a regex
 * matches nothing (false where it cannot tell).
 */
export function foldOperands(items: readonly ByteRegex[], isEmpty: (regex: ByteRegex) => boolean): ByteRegex[] {
  const ids = new RegexIds();
  const operands: Operand[] = [...new Map(items.map((item) => [ids.of(item), item])).values()].map((item) => ({ item, count: countOf(item, ids) }));
  const counted = operands.filter((o) => o.count !== null).length;
  if (counted < 2 || counted > MAX_COUNTS) return operands.map((o) => o.item);
  const known = new Map<string, boolean>();
  const test = (key: string, holds: () => boolean): boolean => known.get(key) ?? (known.set(key, holds()), known.get(key)!);
  const within = (a: ByteRegex, b: ByteRegex): boolean => ids.of(a) === ids.of(b) || test(`${ids.of(a)}⊆${ids.of(b)}`, () => isEmpty(rx.and([a, rx.not(b)])));
  const anyBytes = rx.repeat(rx.byteRanges([0, 255]), 1, Infinity);
  const prefixCode = (unit: ByteRegex): boolean =>
    test(`prefix code ${ids.of(unit)}`, () => !isNullable(unit) && isEmpty(rx.and([unit, rx.seq([unit, anyBytes])])));
  const mergeOne = (): boolean => {
    for (const a of operands) {
      for (const b of operands) {
        if (a === b || a.count === null || b.count === null || !within(a.count.unit, b.count.unit) || !prefixCode(b.count.unit)) continue;
        const count = { unit: a.count.unit, min: Math.max(a.count.min, b.count.min), max: Math.min(a.count.max, b.count.max) };
        operands[operands.indexOf(a)] = { item: rx.repeat(count.unit, count.min, count.max), count };
        operands.splice(operands.indexOf(b), 1);
        return true;
      }
    }
    return false;
  };
  while (mergeOne());
  return operands.map((o) => o.item);
}

// The count an operand is: a repetition, or a sequence of one item n times.
function countOf(item: ByteRegex, ids: RegexIds): Operand['count'] {
  if (item.kind === 'repeat') return { unit: item.item, min: item.min, max: item.max };
  if (item.kind !== 'seq' || item.items.length < 2) return null;
  const unit = item.items[0]!;
  return item.items.every((x) => ids.of(x) === ids.of(unit)) ? { unit, min: item.items.length, max: item.items.length } : null;
}
