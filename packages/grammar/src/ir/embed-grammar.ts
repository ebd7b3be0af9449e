/** One grammar copied into another: a tool's arguments schema in tool calls, `%json` in Lark. */
import { expr, type Expr, type GrammarBuilder, type GrammarIR, type PermutationDef } from './grammar-ir.ts';

/**
 * Copies `ir` into `builder`, its rules renamed with `prefix` and its lexemes shared with
 * equal ones there; returns a reference to its start rule. A grammar with ignored lexemes
 * cannot be embedded (they would apply between every lexeme of the host).
 */
export function embedGrammar(builder: GrammarBuilder, ir: GrammarIR, prefix: string): Expr {
  if (ir.ignore.length > 0) throw new RangeError('a grammar with ignored lexemes cannot be embedded');
  const lexemes = new Map<number, number>();
  // Excluded lexemes first: a lexeme's identity includes what it excludes.
  const lexeme = (index: number): number => {
    let mapped = lexemes.get(index);
    if (mapped === undefined) {
      const def = ir.lexemes[index]!;
      const excludes = def.excludes?.map(lexeme);
      mapped = builder.lexeme(excludes === undefined ? def : { ...def, excludes });
      lexemes.set(index, mapped);
    }
    return mapped;
  };
  const copy = (e: Expr): Expr => {
    switch (e.kind) {
      case 'lexeme':
        return expr.lexeme(lexeme(e.index));
      case 'ref':
        return expr.ref(prefix + e.name);
      case 'seq':
        return { kind: 'seq', items: e.items.map(copy) };
      case 'alt':
        return { kind: 'alt', items: e.items.map(copy) };
      case 'repeat':
        return { kind: 'repeat', item: copy(e.item), min: e.min, max: e.max };
    }
  };
  for (const [name, body] of ir.rules) builder.rules.set(prefix + name, copy(body));
  for (const [name, def] of ir.permutations ?? []) {
    const permutation: PermutationDef = {
      ...def,
      members: def.members.map(copy),
      other: def.other === null ? null : copy(def.other),
      separator: copy(def.separator),
      close: copy(def.close),
    };
    builder.permutations.set(prefix + name, permutation);
  }
  return expr.ref(prefix + ir.start);
}
