/**
 * Arrays: `[ ws (items ws)? ]`, the prefix items in their places, then the rest's schema
 * repeated, between minItems and maxItems in all; unique items over finitely many values as
 * a grammar over sets (`unique-items.ts`).
 */
import { expr, type Expr } from '../../ir/grammar-ir.ts';
import { pointerJoin } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { capped, nonNegativeInt, type Schema, type SchemaObject } from './schema-keywords.ts';
import { MAX_UNIQUE_STATES, MAX_UNIQUE_VALUES, uniqueItemsExpr } from './unique-items.ts';

// Item schemas in either draft's spelling: 2020-12 prefixItems + items; drafts 4-7 items
// (an array) + additionalItems.
interface ItemSchemas {
  readonly prefix: readonly Schema[];
  readonly rest: Schema;
  readonly prefixPointer: string;
  readonly restPointer: string;
}

/** The grammar of the arrays an array schema allows. */
export function arrayExpr(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): Expr {
  const parts = compiler.parts;
  const items = itemSchemas(schema, pointer);
  const minItems = nonNegativeInt(schema.minItems, pointer, 'minItems') ?? 0;
  let maxItems = capped(nonNegativeInt(schema.maxItems, pointer, 'maxItems'), parts.caps.maxItems, minItems);
  if (items.rest === false) maxItems = Math.min(maxItems, items.prefix.length);
  if (minItems > maxItems) return expr.alt([]);
  if (schema.uniqueItems === true && maxItems > 1) {
    const positions = { at: (i: number) => itemSchema(items, i) };
    const unique = uniqueItemsExpr(compiler, positions, minItems, maxItems);
    if (unique !== null) return unique;
    const message = `uniqueItems is only enforced over items from at most ${MAX_UNIQUE_VALUES} values (enum, const, booleans, null, small integer ranges) reaching at most ${MAX_UNIQUE_STATES} sets, or with maxItems ≤ 1`;
    compiler.unsupported(pointer, 'uniqueItems', message);
  }
  if (maxItems === 0) return expr.seq([parts.token('['), parts.ws(), parts.token(']')]);
  // `[ ws (items ws)? ]`: whitespace before `]` only after an item, so runs never double.
  const list = expr.seq([itemsFrom(compiler, items, 0, Math.max(1, minItems), maxItems), parts.ws()]);
  return expr.seq([parts.token('['), parts.ws(), minItems === 0 ? expr.alt([list, expr.empty]) : list, parts.token(']')]);
}

function itemSchemas(schema: SchemaObject, pointer: string): ItemSchemas {
  if (Array.isArray(schema.items)) {
    return {
      prefix: schema.items as Schema[],
      rest: schema.additionalItems !== undefined ? (schema.additionalItems as Schema) : true,
      prefixPointer: pointerJoin(pointer, 'items'),
      restPointer: pointerJoin(pointer, 'additionalItems'),
    };
  }
  return {
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
