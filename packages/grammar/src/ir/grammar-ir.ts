/**
 * The Grammar IR every front-end produces: a context-free grammar whose terminals are
 * lexemes (regular expressions over bytes).
 *
 * Lexing semantics (the same for masks and for the recognizer, so masks are exact for them):
 * - At each lexeme boundary the lexer runs every lexeme the parser can accept next, plus the
 *   `ignore` lexemes, as one automaton.
 * - `greedy` lexemes (the default) take the longest match: a lexeme ends only when the next
 *   byte cannot continue it (or at the end of the output). `lazy` lexemes end at their
 *   shortest match.
 * - When several lexemes match the same text, those of the highest `priority` are handed to
 *   the parser together (the Earley parser keeps every parse alive).
 * - A lexeme with `excludes` matches no text one of those lexemes matches: wherever it may
 *   start they run too, and a text they match is theirs (refused where the parser does not
 *   expect them). An open object's other keys are a string that is no declared name, without
 *   building that difference as one automaton. Masks stay exact only if every unfinished text
 *   of the excluding lexeme still has an ending none of the excluded ones matches (the lexer
 *   only finds the dead ends where nothing is accepted and no byte can follow).
 * - Text-level grammars (GBNF, EBNF) use one lexeme per character class, so lexing never
 *   changes their language: it is exactly the context-free language over characters.
 */
import { RegexIds, type ByteRegex } from './byte-regex.ts';
import type { Span } from '../grammar-error.ts';

/** A terminal of the grammar. */
export interface LexemeDef {
  /** For messages and debugging, e.g. `NUMBER` or `"{"`. */
  readonly name: string;
  readonly regex: ByteRegex;
  /** `greedy` (longest match, the default) or `lazy` (shortest match). */
  readonly mode?: 'greedy' | 'lazy';
  /** Higher wins when several lexemes match the same text (default 0). */
  readonly priority?: number;
  /** Where the lexeme comes from (a JSON Schema pointer), for limit errors. */
  readonly origin?: string;
  /** Lexemes (indices) whose texts this one does not match (see the lexing semantics above). */
  readonly excludes?: readonly number[];
}

/** A grammar expression: rule bodies are built from these. */
export type Expr =
  | { readonly kind: 'lexeme'; readonly index: number }
  | { readonly kind: 'ref'; readonly name: string; readonly span?: Span }
  | { readonly kind: 'seq'; readonly items: readonly Expr[] }
  | { readonly kind: 'alt'; readonly items: readonly Expr[] }
  | { readonly kind: 'repeat'; readonly item: Expr; readonly min: number; readonly max: number; readonly span?: Span };

/**
 * A rule whose body is a list of members in any order: each of `members` at most once (the
 * ones in `required` exactly once), `other` any number of times, between `min` and `max`
 * members in all, `separator` between two members and `close` after the last one. The
 * parser builds the rules for "which members are written, how many" only for the states a
 * parse reaches, so objects with many properties cost no more than those with few.
 */
export interface PermutationDef {
  readonly members: readonly Expr[];
  readonly required: readonly number[];
  readonly other: Expr | null;
  readonly min: number;
  readonly max: number;
  readonly separator: Expr;
  readonly close: Expr;
  /**
   * Member `i` written requires these members written too (JSON Schema `dependentRequired`).
   * Only with `min` 0 and `max` Infinity.
   */
  readonly dependencies?: ReadonlyMap<number, readonly number[]>;
  /** Sets of members that may not all be written (only with `min` 0 and `max` Infinity). */
  readonly exclusive?: readonly (readonly number[])[];
}

/** Most members a permutation may have (each parser state lists them all). */
export const MAX_PERMUTATION_MEMBERS = 1000;

/**
 * Deepest nesting of groups (regex, GBNF, Lark) and of Lark terminals inside terminals: the
 * front-ends and the compiler recurse once per level, so deeper input is refused
 * (`unsupported`) instead of overflowing the stack. JSON Schema has the same depth.
 */
export const MAX_NESTING = 200;

/**
 * Deepest expression tree a text front-end passes on: groups, sequences, alternatives and
 * postfix operators (`"a"???…`) each add a level, and later stages recurse over the tree.
 */
export const MAX_EXPR_DEPTH = 4 * MAX_NESTING;

/** Whether an expression tree (IR or a front-end's own) is deeper than `limit`, found without recursion. */
export function deeperThan(root: object, limit: number): boolean {
  const stack: [ExprTree, number][] = [[root as ExprTree, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of node.items ?? []) stack.push([child, depth + 1]);
    if (node.item !== undefined) stack.push([node.item, depth + 1]);
  }
  return false;
}
interface ExprTree {
  readonly items?: readonly ExprTree[];
  readonly item?: ExprTree;
}

/** A whole grammar. */
export interface GrammarIR {
  /** Name of the start rule. */
  readonly start: string;
  readonly rules: ReadonlyMap<string, Expr>;
  readonly lexemes: readonly LexemeDef[];
  /** Lexemes skipped between any two lexemes (e.g. whitespace in Lark's `%ignore`). */
  readonly ignore: readonly number[];
  /** Where each rule is defined, for error messages. */
  readonly ruleSpans?: ReadonlyMap<string, Span>;
  /** Compile a grammar that matches nothing instead of reporting `empty_language`. */
  readonly allowEmpty?: boolean;
  /** Rules whose body is a permutation (their name is not also in `rules`). */
  readonly permutations?: ReadonlyMap<string, PermutationDef>;
  /** JSON arrays whose items (strings, objects) the matcher keeps distinct (`uniqueItems` no grammar says). */
  readonly uniqueArrays?: UniqueArrays;
}

/**
 * Where a JSON instance's arrays must hold distinct items, over JSON paths: state 0 is the
 * whole instance; a member or an item moves to another state, -1 when no such array can be
 * below it.
 */
export interface UniqueArrays {
  readonly states: readonly UniquePathState[];
}

/** One state of `UniqueArrays`. */
export interface UniquePathState {
  /** Whether an array here must hold distinct items. */
  readonly unique: boolean;
  /**
   * The state of a member, by name; `otherKeys` for any other name, or where `keyPatterns`
   * are told apart, for one that matches none of them (`nameBytes` spells a name for them)
   * and `patternKeys` by those it matches (bit i: pattern i; a combination no name
   * matches is missing).
   */
  readonly keys: Readonly<Record<string, number>>;
  readonly otherKeys: number;
  readonly keyPatterns?: readonly ByteRegex[];
  readonly patternKeys?: Readonly<Record<number, number>>;
  /** The state of an item, by position; `otherItems` past them. */
  readonly items: readonly number[];
  readonly otherItems: number;
  /**
   * When the items are strings that may run out of completions (constants, a length cap, a
   * pattern that closes): their content as JSON spells it, inside the quotes. The matcher
   * refuses a prefix whose every completion is an earlier item.
   */
  readonly closedItems?: ByteRegex;
  /**
   * When the items may be numbers: 'number', or 'integer' where only integers may (then
   * `"5."` fixes the value, as `"0"` and a zero mantissa's exponent do for both).
   */
  readonly numberItems?: 'number' | 'integer';
  /**
   * When the items are numbers that may run out of values (bounds, multiples, constants a
   * `not` excludes): the language of their lexeme. The matcher refuses a prefix whose every
   * completion has an earlier item's value, and a comma when no value is left.
   */
  readonly closedNumbers?: ByteRegex;
  /** When the items may be `true`, `false` or `null` (a literal's first letter fixes it). */
  readonly literalItems?: boolean;
  /** When the items may be arrays (compared when they close, as objects are). */
  readonly arrayItems?: boolean;
  /**
   * Whether the members of an object here must have distinct names: its members no name
   * tracks count toward a `minProperties` of 2 or more, or one of them may witness a `not`
   * (a repeated name would leave a parser one member, the last, of two).
   */
  readonly distinctKeys?: boolean;
  /**
   * When the items are objects of named members only (`additionalProperties: false`), which
   * may run out of completions: their members. The matcher refuses a prefix whose every
   * completion is an earlier item.
   */
  readonly objectItems?: ClosedObjectItems;
  /**
   * Beside `closedItems` or `objectItems`, items of other kinds every prefix of which has
   * endless completions (an open object beside strings that close): one of those may always
   * come after a comma.
   */
  readonly openBeside?: boolean;
}

/** Objects of named members only, kept distinct while matching (see `UniquePathState`). */
export interface ClosedObjectItems {
  readonly members: Readonly<Record<string, ClosedMember>>;
  readonly required: readonly string[];
  /** Sets of members one of which must be written whole, beside `required` (an anyOf of required lists). */
  readonly requiredAny?: readonly (readonly string[])[];
  /** Sets of members exactly one of which is written whole (a oneOf of required lists). */
  readonly requiredOne?: readonly (readonly string[])[];
  /** The members a member needs beside it (`dependentRequired`, `dependencies` lists). */
  readonly dependencies?: Readonly<Record<string, readonly string[]>>;
  /**
   * Where the items are objects of one of several shapes (the branches of an anyOf or of a
   * oneOf provably disjoint): each; `members` then holds every shape's (one schema per name,
   * but for members that tell the shapes apart), `required` none.
   */
  readonly variants?: readonly ObjectVariant[];
}

/** One of the shapes of `ClosedObjectItems.variants`. */
export interface ObjectVariant {
  /** Its members, where they are named members only; undefined where it takes any other member of any value. */
  readonly items?: ClosedObjectItems;
  /** The values (canonical JSON) it allows of the members it declares that tell the shapes apart. */
  readonly tells: Readonly<Record<string, readonly string[]>>;
}

/**
 * What a member of `ClosedObjectItems` may be: constants (canonical JSON: `true`, `false`,
 * `null`), strings (endlessly many, or the content of finitely many as JSON spells it,
 * inside the quotes), numbers, objects and arrays with endlessly many completions, or
 * objects of named members only themselves (`object`, kept like the items).
 */
export interface ClosedMember {
  readonly constants: readonly string[];
  readonly strings?: 'endless' | ByteRegex;
  /**
   * Numbers: any, integers, or integers from a floor (`from`: `-` fixes `-0` where it is 0 or
   * more; below 0, a negative prefix has finitely many values, `-1` from -12 four).
   */
  readonly numbers?: 'number' | 'integer' | { readonly from: number };
  /**
   * Numbers that may run out of values (bounds, multiples): their lexeme's language, whose
   * values the matcher finds (`matcher/number-values.ts`); never beside `numbers`. Not
   * counted by `endlessMember`, which only speaks of what the IR itself tells.
   */
  readonly closedNumbers?: ByteRegex;
  readonly objects?: boolean;
  readonly arrays?: boolean;
  /**
   * Arrays of at most this many strings of endlessly many completions: a prefix fixes the
   * array once its last item has ended (specif's `replaces`, two revision tags).
   */
  readonly boundedArrays?: number;
  readonly object?: ClosedObjectItems;
}

/** Whether a member of `ClosedObjectItems` may take endlessly many values. */
export const endlessMember = (member: ClosedMember): boolean =>
  member.numbers !== undefined ||
  member.objects === true ||
  member.arrays === true ||
  member.boundedArrays !== undefined ||
  member.strings === 'endless' ||
  (member.object !== undefined && Object.values(member.object.members).some(endlessMember));

export const expr = {
  lexeme: (index: number): Expr => ({ kind: 'lexeme', index }),
  ref: (name: string, span?: Span): Expr => (span ? { kind: 'ref', name, span } : { kind: 'ref', name }),
  /** A sequence; nested sequences are spliced in (no extra nonterminal for them). */
  seq: (items: readonly Expr[]): Expr => {
    const flat = items.some((i) => i.kind === 'seq') ? items.flatMap((i) => (i.kind === 'seq' ? i.items : [i])) : items;
    return flat.length === 1 ? flat[0]! : { kind: 'seq', items: flat };
  },
  alt: (items: readonly Expr[]): Expr => (items.length === 1 ? items[0]! : { kind: 'alt', items }),
  /** `min` to `max` copies of `item`; nothing when `min > max` (an unsatisfiable bound). */
  repeat: (item: Expr, min: number, max: number, span?: Span): Expr =>
    min > max ? { kind: 'alt', items: [] } : span ? { kind: 'repeat', item, min, max, span } : { kind: 'repeat', item, min, max },
  empty: { kind: 'seq', items: [] } as Expr,
};

/** Collects lexemes (deduplicated) and rules while a front-end builds a grammar. */
export class GrammarBuilder {
  readonly lexemes: LexemeDef[] = [];
  readonly rules = new Map<string, Expr>();
  readonly ruleSpans = new Map<string, Span>();
  readonly ignore: number[] = [];
  readonly permutations = new Map<string, PermutationDef>();
  readonly #lexemeKeys = new Map<string, number>();
  // (Front-ends share subexpressions, so a lexeme's key costs its new nodes only.)
  readonly #regexIds = new RegexIds();

  /** Adds a lexeme, or returns the index of an identical one. */
  lexeme(def: LexemeDef): number {
    const key = `${this.#regexIds.of(def.regex)} ${def.mode ?? 'greedy'} ${def.priority ?? 0} ${def.excludes?.join() ?? ''}`;
    const known = this.#lexemeKeys.get(key);
    if (known !== undefined) return known;
    this.lexemes.push(def);
    this.#lexemeKeys.set(key, this.lexemes.length - 1);
    return this.lexemes.length - 1;
  }

  build(start: string): GrammarIR {
    return {
      start,
      rules: this.rules,
      lexemes: this.lexemes,
      ignore: this.ignore,
      ruleSpans: this.ruleSpans,
      ...(this.permutations.size > 0 ? { permutations: this.permutations } : {}),
    };
  }
}

/** A member name as JSON spells it inside the quotes, for `UniquePathState.keyPatterns`. */
export const nameBytes = (name: string): Uint8Array => new TextEncoder().encode(JSON.stringify(name).slice(1, -1));
