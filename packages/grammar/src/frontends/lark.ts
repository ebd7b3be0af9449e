/**
 * Lark grammars, the dialect llguidance and Outlines users write:
 *
 *     start: value
 *     ?value: object | array | ESCAPED_STRING | SIGNED_NUMBER | "true" | "false" | "null"
 *     array: "[" [value ("," value)*] "]"
 *     object: "{" [pair ("," pair)*] "}"
 *     pair: ESCAPED_STRING ":" value
 *     %import common (ESCAPED_STRING, SIGNED_NUMBER, WS)
 *     %ignore WS
 *
 * Lowercase names are rules, UPPERCASE names terminals (lexemes, greedy: longest match).
 * Terminals are strings (`"x"`, `"x"i`), `/regex/flags` (ECMAScript syntax; `i` and `s`
 * honoured), ranges `"a".."z"`, and compositions of those and other terminals. Rules and
 * terminals take `|`, grouping, `[optional]`, `? * +`, `~ n` and `~ n..m`; `NAME.2:` sets a
 * terminal's priority; `?rule` and `!rule` are accepted (they do not change the language);
 * `-> alias` is accepted and ignored. `%import common.X` (or `common (X, Y)`, `-> Z`) brings
 * in the usual common terminals, `%ignore` skips terminals between tokens.
 */
import { normalizeRanges, rx, type ByteRegex } from '../ir/byte-regex.ts';
import { caseClosure } from '../ir/code-point-sets.ts';
import { GrammarError, type Span } from '../grammar-error.ts';
import { GrammarBuilder, MAX_EXPR_DEPTH, MAX_NESTING, deeperThan, expr, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { regexToByteRegex } from './regex.ts';
import { readChar, readEscape, SourceCursor } from './source-cursor.ts';

type LarkExpr =
  | { readonly kind: 'literal'; readonly text: string; readonly ignoreCase: boolean; readonly span: Span }
  | { readonly kind: 'regex'; readonly pattern: string; readonly flags: string; readonly span: Span }
  | { readonly kind: 'range'; readonly from: number; readonly to: number; readonly span: Span }
  | { readonly kind: 'name'; readonly name: string; readonly span: Span }
  | { readonly kind: 'seq'; readonly items: readonly LarkExpr[] }
  | { readonly kind: 'alt'; readonly items: readonly LarkExpr[] }
  | { readonly kind: 'repeat'; readonly item: LarkExpr; readonly min: number; readonly max: number; readonly span: Span };

interface Definition {
  readonly body: LarkExpr;
  readonly span: Span;
  readonly priority: number;
}

/** The usual terminals of Lark's `common.lark`, written without lookbehind or lazy loops. */
const COMMON = `
DIGIT: "0".."9"
HEXDIGIT: "a".."f" | "A".."F" | DIGIT
INT: DIGIT+
SIGNED_INT: ["+" | "-"] INT
DECIMAL: INT "." INT? | "." INT
_EXP: ("e" | "E") SIGNED_INT
FLOAT: INT _EXP | DECIMAL _EXP?
SIGNED_FLOAT: ["+" | "-"] FLOAT
NUMBER: FLOAT | INT
SIGNED_NUMBER: ["+" | "-"] NUMBER
ESCAPED_STRING: /"([^"\\\\\\n]|\\\\[^\\n])*"/
LCASE_LETTER: "a".."z"
UCASE_LETTER: "A".."Z"
LETTER: UCASE_LETTER | LCASE_LETTER
WORD: LETTER+
CNAME: ("_" | LETTER) ("_" | LETTER | DIGIT)*
WS_INLINE: (" " | /\\t/)+
WS: /[ \\t\\f\\r\\n]/+
CR: /\\r/
LF: /\\n/
NEWLINE: (CR? LF)+
SH_COMMENT: /#[^\\n]*/
CPP_COMMENT: /\\/\\/[^\\n]*/
C_COMMENT: /\\/\\*([^*]|\\*+[^*\\/])*\\*+\\//
SQL_COMMENT: /--[^\\n]*/
`;

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const isTerminal = (name: string): boolean => /^_?[A-Z]/.test(name);

/** Parses a Lark grammar into the IR (throws `GrammarError` with a span). */
export function parseLark(source: string, startRule = 'start'): GrammarIR {
  const common = readDefinitions(COMMON);
  const own = readDefinitions(source);
  const terminals = new Map(own.terminals);
  for (const { name, alias, span } of own.imports) {
    const definition = common.terminals.get(name);
    if (definition === undefined) throw new GrammarError('unsupported', `%import common.${name}: not a known common terminal`, span);
    terminals.set(alias, definition);
    // Imported terminals may use other common terminals.
    for (const [commonName, commonDef] of common.terminals) if (!terminals.has(commonName)) terminals.set(commonName, commonDef);
  }
  return new LarkLowering(terminals, own.rules).build(own.ignores, startRule);
}

interface Definitions {
  readonly rules: Map<string, Definition>;
  readonly terminals: Map<string, Definition>;
  readonly imports: { name: string; alias: string; span: Span }[];
  readonly ignores: LarkExpr[];
}

function readDefinitions(source: string): Definitions {
  const cursor = new SourceCursor(source, ['//']);
  const reader = new LarkReader(cursor);
  const defs: Definitions = { rules: new Map(), terminals: new Map(), imports: [], ignores: [] };
  for (;;) {
    cursor.skipSpace();
    if (cursor.done) return defs;
    const start = cursor.pos;
    if (cursor.eat('%')) {
      reader.directive(start, defs);
      continue;
    }
    if (!cursor.eat('?')) cursor.eat('!'); // ?rule (inline) and !rule (keep tokens): same language
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', 'expected a rule or terminal definition');
    const span = { start, end: cursor.pos };
    if (cursor.peek() === '{') throw cursor.error('unsupported', 'rule templates are not supported');
    let priority = 0;
    if (cursor.eat('.')) {
      const digits = cursor.match(/-?\d+/y);
      if (digits === null) throw cursor.error('syntax', 'expected a priority number after "."');
      priority = Number(digits);
    }
    cursor.skipSpace(false);
    cursor.expect(':', '":" after the name');
    const body = reader.alternatives();
    const table = isTerminal(name) ? defs.terminals : defs.rules;
    if (table.has(name)) throw new GrammarError('duplicate_rule', `${name} is defined twice`, span);
    // Terminal priorities choose between lexemes (they change what is lexed); rule priorities
    // only choose between parse trees of one text, which Sieve does not build.
    if (priority !== 0 && !isTerminal(name))
      throw new GrammarError('unsupported', `rule priorities (${name}.${priority}) choose between parse trees and are not supported`, span);
    table.set(name, { body, span, priority });
    reader.endOfLine();
  }
}

class LarkReader {
  #depth = 0;
  constructor(private readonly cursor: SourceCursor) {}

  directive(start: number, defs: Definitions): void {
    const cursor = this.cursor;
    const word = cursor.match(/[a-z]+/y);
    const wordEnd = cursor.pos;
    cursor.skipSpace(false);
    if (word === 'ignore') {
      defs.ignores.push(this.alternatives());
    } else if (word === 'import') {
      const path = cursor.match(/[A-Za-z_][A-Za-z0-9_.]*/y) ?? '';
      const span = { start, end: cursor.pos };
      const dot = path.lastIndexOf('.');
      cursor.skipSpace(false);
      if (cursor.eat('(')) {
        if (path !== 'common') throw new GrammarError('unsupported', `%import ${path}: only common terminals can be imported`, span);
        for (;;) {
          cursor.skipSpace();
          const name = cursor.match(NAME);
          if (name === null) throw cursor.error('syntax', 'expected a terminal name');
          defs.imports.push({ name, alias: name, span });
          cursor.skipSpace();
          if (cursor.eat(')')) break;
          cursor.expect(',', '"," or ")"');
        }
      } else {
        if (dot < 0 || path.slice(0, dot) !== 'common') throw new GrammarError('unsupported', `%import ${path}: only common terminals can be imported`, span);
        const name = path.slice(dot + 1);
        cursor.skipSpace(false);
        let alias = name;
        if (cursor.eat('->')) {
          cursor.skipSpace(false);
          alias = cursor.match(NAME) ?? name;
        }
        defs.imports.push({ name, alias, span });
      }
    } else {
      throw cursor.error('unsupported', `%${word ?? ''} is not supported`, start, wordEnd);
    }
    this.endOfLine();
  }

  endOfLine(): void {
    this.cursor.skipSpace(false);
    if (!this.cursor.done && !this.cursor.eat('\n')) throw this.cursor.error('syntax', `unexpected ${JSON.stringify(this.cursor.peek())}`);
  }

  // Alternatives may continue on following lines that start with "|".
  alternatives(): LarkExpr {
    const start = this.cursor.pos;
    const items = [this.sequence()];
    for (;;) {
      const save = this.cursor.pos;
      this.cursor.skipSpace();
      if (this.cursor.eat('|')) {
        items.push(this.sequence());
        continue;
      }
      this.cursor.pos = save;
      break;
    }
    const body: LarkExpr = items.length === 1 ? items[0]! : { kind: 'alt', items };
    if (this.#depth === 0 && deeperThan(body, MAX_EXPR_DEPTH))
      throw this.cursor.error('unsupported', `expression nested deeper than ${MAX_EXPR_DEPTH} levels (groups and repetition operators)`, start);
    return body;
  }

  sequence(): LarkExpr {
    const cursor = this.cursor;
    const items: LarkExpr[] = [];
    for (;;) {
      cursor.skipSpace(this.#depth > 0);
      const c = cursor.peek();
      if (c === '' || c === '\n' || c === '|' || c === ')' || c === ']') break;
      if (cursor.startsWith('->')) {
        cursor.pos += 2;
        cursor.skipSpace(false);
        if (cursor.match(NAME) === null) throw cursor.error('syntax', 'expected an alias name after "->"');
        continue;
      }
      items.push(this.postfix(this.primary()));
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  primary(): LarkExpr {
    const cursor = this.cursor;
    const start = cursor.pos;
    const c = cursor.peek();
    if (c === '"') {
      const text = this.string();
      // The flag sticks to the closing quote, as in Lark: `"x" i` is a literal and a rule i.
      const ignoreCase = cursor.eat('i');
      const afterLiteral = cursor.pos;
      cursor.skipSpace(false);
      if (!ignoreCase && cursor.eat('..')) {
        cursor.skipSpace(false);
        const to = this.string();
        const [a, b] = [text.codePointAt(0), to.codePointAt(0)];
        if (a === undefined || b === undefined || [...text].length !== 1 || [...to].length !== 1 || b < a)
          throw cursor.error('invalid_range', 'a range needs two single characters in order', start, cursor.pos);
        return { kind: 'range', from: a, to: b, span: { start, end: cursor.pos } };
      }
      cursor.pos = afterLiteral;
      return { kind: 'literal', text, ignoreCase, span: { start, end: cursor.pos } };
    }
    if (c === '/' && !cursor.startsWith('//')) {
      cursor.pos++;
      let pattern = '';
      while (cursor.peek() !== '/') {
        if (cursor.done || cursor.peek() === '\n') throw cursor.error('syntax', 'unterminated regex', start, cursor.pos);
        if (cursor.peek() === '\\' && cursor.peek(1) === '/') {
          pattern += '/';
          cursor.pos += 2;
        } else {
          if (cursor.peek() === '\\') pattern += cursor.source[cursor.pos++];
          pattern += cursor.source[cursor.pos++];
        }
      }
      cursor.pos++;
      const flags = cursor.match(/[imslux]*/y) ?? '';
      return { kind: 'regex', pattern, flags, span: { start: start + 1, end: cursor.pos } };
    }
    if (c === '(' || c === '[') {
      if (this.#depth >= MAX_NESTING) throw cursor.error('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, start);
      cursor.pos++;
      this.#depth++;
      const body = this.alternatives();
      cursor.skipSpace();
      this.#depth--;
      const close = c === '(' ? ')' : ']';
      cursor.expect(close, `"${close}"`);
      return c === '(' ? body : { kind: 'repeat', item: body, min: 0, max: 1, span: { start, end: cursor.pos } };
    }
    if (c === '<') throw cursor.error('unsupported', 'token references (<…>) are not supported', start);
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', `unexpected ${JSON.stringify(c)}`);
    return { kind: 'name', name, span: { start, end: cursor.pos } };
  }

  postfix(item: LarkExpr): LarkExpr {
    const cursor = this.cursor;
    for (;;) {
      const start = cursor.pos;
      const span = (): Span => ({ start, end: cursor.pos });
      if (cursor.eat('*')) item = { kind: 'repeat', item, min: 0, max: Infinity, span: span() };
      else if (cursor.eat('+')) item = { kind: 'repeat', item, min: 1, max: Infinity, span: span() };
      else if (cursor.eat('?')) item = { kind: 'repeat', item, min: 0, max: 1, span: span() };
      else if (/^\s*~/.test(cursor.source.slice(cursor.pos, cursor.pos + 8))) {
        cursor.skipSpace(false);
        cursor.expect('~');
        cursor.skipSpace(false);
        const m = cursor.match(/(\d+)(\s*\.\.\s*(\d+))?/y);
        if (m === null) throw cursor.error('syntax', 'expected a count after "~"');
        const [, lo, , hi] = /(\d+)(\s*\.\.\s*(\d+))?/.exec(m)!;
        const min = Number(lo);
        const max = hi === undefined ? min : Number(hi);
        if (max < min) throw cursor.error('invalid_range', `invalid repetition ~ ${m}`, start, cursor.pos);
        item = { kind: 'repeat', item, min, max, span: span() };
      } else return item;
    }
  }

  string(): string {
    const cursor = this.cursor;
    const start = cursor.pos;
    cursor.expect('"');
    let text = '';
    while (cursor.peek() !== '"') {
      if (cursor.done || cursor.peek() === '\n') throw cursor.error('syntax', 'unterminated string', start, cursor.pos);
      text += String.fromCodePoint(cursor.eat('\\') ? readEscape(cursor, '\\"\'') : readChar(cursor));
    }
    cursor.pos++;
    return text;
  }
}

class LarkLowering {
  readonly #builder = new GrammarBuilder();
  readonly #terminalRegex = new Map<string, ByteRegex>();
  readonly #resolving = new Set<string>();

  constructor(
    private readonly terminals: ReadonlyMap<string, Definition>,
    private readonly rules: ReadonlyMap<string, Definition>,
  ) {}

  build(ignores: readonly LarkExpr[], startRule: string): GrammarIR {
    for (const ignore of ignores) this.#builder.ignore.push(this.#lexemeOf(ignore, 'ignored'));
    for (const [name, def] of this.rules) {
      this.#builder.rules.set(name, this.#rule(def.body));
      this.#builder.ruleSpans.set(name, def.span);
    }
    if (!this.rules.has(startRule)) throw new GrammarError('no_start_rule', `the grammar has no ${startRule} rule`, { start: 0, end: 0 });
    return this.#builder.build(startRule);
  }

  #rule(e: LarkExpr): Expr {
    switch (e.kind) {
      case 'seq':
        return expr.seq(e.items.map((i) => this.#rule(i)));
      case 'alt':
        return expr.alt(e.items.map((i) => this.#rule(i)));
      case 'repeat':
        return expr.repeat(this.#rule(e.item), e.min, e.max, e.span);
      case 'name':
        if (!isTerminal(e.name)) {
          if (!this.rules.has(e.name)) throw new GrammarError('unknown_rule', `unknown rule ${e.name}`, e.span);
          return expr.ref(e.name, e.span);
        }
        return expr.lexeme(this.#lexemeOf(e, e.name));
      default:
        return expr.lexeme(this.#lexemeOf(e, e.kind === 'literal' ? JSON.stringify(e.text) : e.kind === 'regex' ? `/${e.pattern}/` : 'range'));
    }
  }

  #lexemeOf(e: LarkExpr, name: string): number {
    const priority = e.kind === 'name' ? (this.terminals.get(e.name)?.priority ?? 0) : 0;
    return this.#builder.lexeme({ name, regex: this.#regex(e), priority });
  }

  #regex(e: LarkExpr): ByteRegex {
    switch (e.kind) {
      case 'literal':
        return e.ignoreCase
          ? rx.seq([...e.text].map((ch) => rx.codePoints(caseClosure([ch.codePointAt(0)!, ch.codePointAt(0)!], 'simple'))))
          : rx.literal(e.text);
      case 'regex':
        return larkRegex(e.pattern, e.flags, e.span);
      case 'range':
        return rx.codePoints(normalizeRanges([[e.from, e.to]]));
      case 'seq':
        return rx.seq(e.items.map((i) => this.#regex(i)));
      case 'alt':
        return rx.alt(e.items.map((i) => this.#regex(i)));
      case 'repeat':
        return rx.repeat(this.#regex(e.item), e.min, e.max);
      case 'name': {
        if (!isTerminal(e.name)) throw new GrammarError('syntax', `terminals cannot use rules (${e.name})`, e.span);
        const known = this.#terminalRegex.get(e.name);
        if (known !== undefined) return known;
        const def = this.terminals.get(e.name);
        if (def === undefined) throw new GrammarError('unknown_rule', `unknown terminal ${e.name}`, e.span);
        if (this.#resolving.has(e.name)) throw new GrammarError('syntax', `terminal ${e.name} refers to itself`, e.span);
        if (this.#resolving.size >= MAX_NESTING) throw new GrammarError('unsupported', `terminals nested deeper than ${MAX_NESTING} levels`, e.span);
        this.#resolving.add(e.name);
        const regex = this.#regex(def.body);
        this.#resolving.delete(e.name);
        this.#terminalRegex.set(e.name, regex);
        return regex;
      }
    }
  }
}

/**
 * A Lark regex terminal. Flags as Python's `re` reads them: `i` (Unicode case folding), `s`
 * (dot matches newlines), `x` (verbose: whitespace and `#` comments outside classes are not
 * part of the pattern), `u` (no change: Python's text patterns are Unicode already) and `m`
 * (no change: it moves `^` and `$`, and anchors are refused in terminals); `l` (locale)
 * is refused, as Python refuses it for text patterns.
 */
function larkRegex(pattern: string, flags: string, span: Span): ByteRegex {
  const flagsAt = span.end - flags.length;
  for (let i = 0; i < flags.length; i++) {
    if (!'imsux'.includes(flags[i]!))
      throw new GrammarError('unsupported', `the regex flag ${flags[i]} is not supported (Lark's i, m, s, u and x are)`, {
        start: flagsAt + i,
        end: flagsAt + i + 1,
      });
  }
  const source = flags.includes('x') ? withoutVerboseSpace(pattern) : pattern;
  // Spans stay right where the verbose form left the pattern unchanged.
  return regexToByteRegex(source, { flags: flags.replace(/[mux]/g, ''), caseFolding: 'simple', mode: 'token', offset: span.start });
}

// Python's verbose mode: unescaped whitespace outside a character class is dropped, and so is
// a `#` outside a class with the rest of its line.
function withoutVerboseSpace(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '#') {
      const end = pattern.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    } else if (c === '[') {
      inClass = true;
      out += c;
      // A "]" first in a class is a member, not its end.
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') out += pattern[++i];
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}
