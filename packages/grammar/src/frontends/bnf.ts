/**
 * GBNF (llama.cpp) and W3C-style EBNF (as XGrammar accepts it): one parser, two dialects.
 *
 *     root   ::= "(" expr ")" | [0-9]+      # GBNF comment
 *     expr   ::= term ("+" term)*
 *
 * Rules are `name ::= body`; a body runs until the next `name ::=`. Elements: "strings",
 * character classes `[a-z]` / `[^"\\]`, `.` (any character), rule names, `( … )`, postfix
 * `* + ?`, `{m}`, `{m,}`, `{m,n}`, `{,n}`; alternatives with `|`. EBNF also takes 'strings',
 * `#xHH` characters and `[#x41-#x5A]` ranges, and `/* comments *\/`. The start rule is `root`.
 * XGrammar's lookahead assertions `(= …)` are refused as `unsupported`.
 *
 * Every character class and every character of a string is its own one-character lexeme, so
 * the language is exactly the context-free language over characters that the grammar says.
 */
import { normalizeRanges, rx } from '../ir/byte-regex.ts';
import { ANY } from '../ir/code-point-sets.ts';
import { GrammarBuilder, MAX_EXPR_DEPTH, MAX_NESTING, deeperThan, expr, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { readBraceCount, readChar, readEscape, SourceCursor } from './source-cursor.ts';

export type BnfDialect = 'gbnf' | 'ebnf';

// (llama.cpp reads names of letters, digits and `-`, a digit first too: `1a` is one.)
const NAME = /[A-Za-z0-9_][A-Za-z0-9_.-]*/y;
// Characters a backslash may escape to stand for themselves (llama.cpp's `\\ \" [ ]`, and the
// quotes, `-`, `^` and `?` XGrammar's EBNF also escapes); any other unknown escape is an error.
const ESCAPED_AS_ITSELF = '\\"\'[]-^?';
const RULE_START = /[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]*::=/y;

/** Parses a GBNF or EBNF grammar into the IR (throws `GrammarError` with a span). */
export function parseBnf(source: string, dialect: BnfDialect, startRule = 'root'): GrammarIR {
  const cursor = new SourceCursor(source, dialect === 'gbnf' ? ['#'] : ['#!x', '/*', '//']);
  const builder = new GrammarBuilder();
  const parser = new BnfParser(cursor, builder, dialect);
  cursor.skipSpace();
  while (!cursor.done) {
    const nameStart = cursor.pos;
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', 'expected a rule name');
    const span = { start: nameStart, end: cursor.pos };
    cursor.skipSpace();
    cursor.expect('::=');
    if (builder.rules.has(name)) throw cursor.error('duplicate_rule', `rule ${name} is defined twice`, span.start, span.end);
    builder.rules.set(name, parser.alternatives());
    builder.ruleSpans.set(name, span);
    if (!cursor.done && !parser.atRuleStart()) throw cursor.error('syntax', `unexpected ${JSON.stringify(cursor.peek())}`);
  }
  if (!builder.rules.has(startRule)) throw cursor.error('no_start_rule', `the grammar has no ${startRule} rule`, 0, 0);
  return builder.build(startRule);
}

class BnfParser {
  #depth = 0;
  constructor(
    private readonly cursor: SourceCursor,
    private readonly builder: GrammarBuilder,
    private readonly dialect: BnfDialect,
  ) {}

  atRuleStart(): boolean {
    RULE_START.lastIndex = this.cursor.pos;
    return RULE_START.test(this.cursor.source);
  }

  alternatives(): Expr {
    const cursor = this.cursor;
    const start = cursor.pos;
    const items = [this.sequence() ?? expr.empty];
    for (;;) {
      const bar = cursor.pos;
      if (!cursor.eat('|')) break;
      // Nothing after "|" is a slip, not the empty string (written "", or first, as in
      // llama.cpp's own `ws ::= | " "`).
      const next = this.sequence();
      if (next === null) throw cursor.error('syntax', 'nothing after "|" (write "" for the empty string)', bar);
      items.push(next);
    }
    const body = expr.alt(items);
    if (this.#depth === 0 && deeperThan(body, MAX_EXPR_DEPTH))
      throw cursor.error('unsupported', `expression nested deeper than ${MAX_EXPR_DEPTH} levels (groups and repetition operators)`, start);
    return body;
  }

  // The items up to the next "|", ")" or rule; null when there are none.
  sequence(): Expr | null {
    const items: Expr[] = [];
    for (;;) {
      this.cursor.skipSpace();
      const c = this.cursor.peek();
      if (c === '' || c === '|' || c === ')' || this.atRuleStart()) break;
      items.push(this.postfix(this.primary()));
    }
    return items.length === 0 ? null : expr.seq(items);
  }

  primary(): Expr {
    const cursor = this.cursor;
    const start = cursor.pos;
    const c = cursor.peek();
    if (c === '"' || (c === "'" && this.dialect === 'ebnf')) return this.literal(c);
    if (c === '[') return this.charClass();
    if (c === '.') {
      cursor.pos++;
      return this.chars(ANY);
    }
    if (c === '(' && this.atLookahead()) return this.lookahead();
    if (c === '(') {
      if (++this.#depth > MAX_NESTING) throw cursor.error('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, start);
      cursor.pos++;
      const body = this.alternatives();
      cursor.skipSpace();
      cursor.expect(')', '")" to close the group');
      this.#depth--;
      return body;
    }
    if (c === '#' && this.dialect === 'ebnf' && cursor.peek(1) === 'x') {
      const cp = this.hexChar();
      return this.chars([cp, cp]);
    }
    if (c === '<') throw cursor.error('unsupported', 'token references (<…>) are not supported', start);
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', `unexpected ${JSON.stringify(c)}`);
    return expr.ref(name, { start, end: cursor.pos });
  }

  // XGrammar's lookahead assertion after a rule body, `rule ::= body (= "x")`: a condition on
  // what follows the rule, which Sieve does not implement. Read whole, so the error spans it.
  atLookahead(): boolean {
    const save = this.cursor.pos++;
    this.cursor.skipSpace();
    const found = this.cursor.peek() === '=';
    this.cursor.pos = save;
    return found;
  }

  lookahead(): never {
    const cursor = this.cursor;
    const start = cursor.pos;
    if (++this.#depth > MAX_NESTING) throw cursor.error('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, start);
    cursor.pos++;
    cursor.skipSpace();
    cursor.expect('=');
    this.alternatives();
    cursor.skipSpace();
    cursor.expect(')', '")" to close the lookahead assertion');
    throw cursor.error('unsupported', 'lookahead assertions (= …) are not supported', start, cursor.pos);
  }

  // Quantifiers may stand after spaces, as llama.cpp reads them: `"a" *`, `x {2,3}`.
  postfix(item: Expr): Expr {
    const cursor = this.cursor;
    for (;;) {
      const before = cursor.pos;
      cursor.skipSpace();
      const start = cursor.pos;
      if (cursor.eat('*')) item = expr.repeat(item, 0, Infinity, { start, end: cursor.pos });
      else if (cursor.eat('+')) item = expr.repeat(item, 1, Infinity, { start, end: cursor.pos });
      else if (cursor.eat('?')) item = expr.repeat(item, 0, 1, { start, end: cursor.pos });
      else if (cursor.peek() === '{') item = this.counted(item);
      else {
        cursor.pos = before;
        return item;
      }
    }
  }

  counted(item: Expr): Expr {
    const start = this.cursor.pos;
    const { min, max } = readBraceCount(this.cursor);
    return expr.repeat(item, min, max, { start, end: this.cursor.pos });
  }

  literal(quote: string): Expr {
    const cursor = this.cursor;
    const start = cursor.pos;
    cursor.pos++;
    const items: Expr[] = [];
    while (cursor.peek() !== quote) {
      if (cursor.done || cursor.peek() === '\n') throw cursor.error('syntax', 'unterminated string', start, cursor.pos);
      const cp = cursor.eat('\\') ? readEscape(cursor, ESCAPED_AS_ITSELF) : readChar(cursor);
      items.push(this.chars([cp, cp]));
    }
    cursor.pos++;
    return expr.seq(items);
  }

  charClass(): Expr {
    const cursor = this.cursor;
    const start = cursor.pos;
    cursor.pos++;
    const negate = cursor.eat('^');
    const pairs: [number, number][] = [];
    while (cursor.peek() !== ']') {
      if (cursor.done) throw cursor.error('syntax', 'unterminated character class', start, cursor.pos);
      const lo = this.classChar();
      if (cursor.peek() === '-' && cursor.peek(1) !== ']') {
        cursor.pos++;
        const hi = this.classChar();
        if (hi < lo) throw cursor.error('invalid_range', 'character range out of order', start, cursor.pos);
        pairs.push([lo, hi]);
      } else {
        pairs.push([lo, lo]);
      }
    }
    cursor.pos++;
    return this.chars(normalizeRanges(pairs, negate));
  }

  classChar(): number {
    const cursor = this.cursor;
    if (this.dialect === 'ebnf' && cursor.startsWith('#x')) return this.hexChar();
    return cursor.eat('\\') ? readEscape(cursor, ESCAPED_AS_ITSELF) : readChar(cursor);
  }

  hexChar(): number {
    const start = this.cursor.pos;
    const digits = this.cursor.match(/#x[0-9a-fA-F]+/y);
    if (digits === null) throw this.cursor.error('syntax', 'expected #x followed by hex digits', start);
    return parseInt(digits.slice(2), 16);
  }

  // One lexeme per character class: lexing never changes a character-level language.
  chars(ranges: readonly number[]): Expr {
    const key = ranges.join(',');
    return expr.lexeme(this.builder.lexeme({ name: `[${key}]`, regex: rx.codePoints(ranges) }));
  }
}
