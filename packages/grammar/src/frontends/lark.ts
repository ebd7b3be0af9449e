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
 * Terminals are strings (`"x"`, `"x"i`), `/regex/flags` (Python's `re`: `larkRegex`),
 * ranges `"a".."z"`, and compositions of those and other terminals. Rules and
 * terminals take `|`, grouping, `[optional]`, `? * +`, `~ n` and `~ n..m`; `NAME.2:` sets a
 * terminal's priority; `?rule` and `!rule` are accepted (they do not change the language);
 * `-> alias` is accepted and ignored. `%import common.X` (or `common (X, Y)`, `-> Z`) brings
 * in the usual common terminals, `%ignore` skips terminals between tokens. Templates
 * (`_separated{x, sep}: x (sep x)*`, used as `_separated{item, ","}`) are expanded, one rule
 * per distinct list of arguments.
 *
 * llguidance's extensions: `#` comments; `item{m,n}` (also `{n}`, `{m,}`, `{,n}`) for
 * `item ~ m..n`; `-` inside names (`a-b` is one name: Lark has no minus; a name never ends
 * with `-`, so `a->b` is `a` with an alias); in terminals, `&` (intersection, binding looser
 * than a sequence and tighter than `|`) and prefix `~` (complement over all byte strings,
 * binding tighter than `* + ?`); `%json { schema }`, a JSON Schema compiled as
 * `jsonSchemaGrammar` does and embedded as a rule. Refused as `unsupported`: rule attributes
 * other than `capture` (`[lazy]`, `[stop=…]`, `[suffix=…]`, `[max_tokens=…]`,
 * `[temperature=…]`), `%llguidance` with options, `%regex`, `@grammar` references.
 */
import { normalizeRanges, rx, type ByteRegex } from '../ir/byte-regex.ts';
import { caseClosure } from '../ir/code-point-sets.ts';
import { GrammarError, type Span } from '../grammar-error.ts';
import { embedGrammar } from '../ir/embed-grammar.ts';
import { GrammarBuilder, MAX_EXPR_DEPTH, MAX_NESTING, deeperThan, expr, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { jsonSchemaGrammar, type JsonSchemaOptions } from './json-schema/compile-json-schema.ts';
import { SchemaError } from './json-schema/schema-error.ts';
import { regexToByteRegex } from './regex.ts';
import { readBraceCount, readChar, readEscape, SourceCursor } from './source-cursor.ts';

type LarkExpr =
  | { readonly kind: 'literal'; readonly text: string; readonly ignoreCase: boolean; readonly span: Span }
  | { readonly kind: 'regex'; readonly pattern: string; readonly flags: string; readonly span: Span }
  | { readonly kind: 'range'; readonly from: number; readonly to: number; readonly span: Span }
  | { readonly kind: 'name'; readonly name: string; readonly span: Span }
  | { readonly kind: 'seq'; readonly items: readonly LarkExpr[] }
  | { readonly kind: 'alt'; readonly items: readonly LarkExpr[] }
  | { readonly kind: 'repeat'; readonly item: LarkExpr; readonly min: number; readonly max: number; readonly span: Span }
  | { readonly kind: 'and'; readonly items: readonly LarkExpr[]; readonly span: Span }
  | { readonly kind: 'not'; readonly item: LarkExpr; readonly span: Span }
  | { readonly kind: 'json'; readonly schema: unknown; readonly span: Span }
  | { readonly kind: 'template'; readonly name: string; readonly args: readonly LarkExpr[]; readonly span: Span };

interface Definition {
  readonly body: LarkExpr;
  readonly span: Span;
  readonly priority: number;
  /** A template's parameters. */
  readonly params?: readonly string[];
}

/** Distinct instances of templates one grammar may expand to, and the size of their arguments. */
const MAX_TEMPLATE_INSTANCES = 1_000;
const MAX_TEMPLATE_KEY = 4_096;

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

// `-` joins name characters (llguidance): `a-b` is one name, `a->b` the name `a` and an alias.
const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*/y;
const isTerminal = (name: string): boolean => /^_?[A-Z]/.test(name);

/** Parses a Lark grammar into the IR (throws `GrammarError` with a span). */
export function parseLark(source: string, startRule = 'start', schemaOptions: JsonSchemaOptions = {}): GrammarIR {
  const own = readDefinitions(source);
  const terminals = new Map(own.terminals);
  // Imported terminals keep their own namespace (`COMMON.DIGIT` for what common's INT uses):
  // a grammar's names neither change them nor see those it did not import.
  const common = new Map([...readDefinitions(COMMON).terminals].map(([name, d]) => [`COMMON.${name}`, { ...d, body: inCommon(d.body) }]));
  for (const { name, alias, span } of own.imports) {
    const definition = common.get(`COMMON.${name}`);
    if (definition === undefined) throw new GrammarError('unsupported', `%import common.${name}: not a known common terminal`, span);
    if (terminals.has(alias)) throw new GrammarError('syntax', `terminal ${alias} is defined more than once (here by an import)`, span);
    terminals.set(alias, definition);
  }
  if (own.imports.length > 0) for (const [name, definition] of common) terminals.set(name, definition);
  return new LarkLowering(terminals, own.rules, own.templates, schemaOptions).build(own.ignores, startRule);
}

// A common terminal's body, its names those of common's namespace.
function inCommon(e: LarkExpr): LarkExpr {
  switch (e.kind) {
    case 'name':
      return { ...e, name: `COMMON.${e.name}` };
    case 'seq':
    case 'alt':
    case 'and':
      return { ...e, items: e.items.map(inCommon) };
    case 'repeat':
    case 'not':
      return { ...e, item: inCommon(e.item) };
    default:
      return e;
  }
}

interface Definitions {
  readonly rules: Map<string, Definition>;
  readonly terminals: Map<string, Definition>;
  readonly templates: Map<string, Definition>;
  readonly imports: { name: string; alias: string; span: Span }[];
  readonly ignores: LarkExpr[];
}

function readDefinitions(source: string): Definitions {
  const cursor = new SourceCursor(source, ['//', '#']);
  const reader = new LarkReader(cursor);
  const defs: Definitions = { rules: new Map(), terminals: new Map(), templates: new Map(), imports: [], ignores: [] };
  for (;;) {
    cursor.skipSpace();
    if (cursor.done) return defs;
    const start = cursor.pos;
    if (cursor.eat('%')) {
      reader.directive(start, defs);
      continue;
    }
    // !rule (keep tokens), ?rule (inline), !?rule: the same language (rules only, as in Lark).
    const kept = cursor.eat('!');
    const modified = cursor.eat('?') || kept;
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', 'expected a rule or terminal definition');
    if (modified && isTerminal(name)) throw cursor.error('syntax', `! and ? modify rules, not terminals (${name})`, start, cursor.pos);
    if (cursor.startsWith('::=')) throw cursor.error('syntax', `"::=" is BNF; Lark writes a rule as ${name}: …`, cursor.pos, cursor.pos + 3);
    refuseParametric(cursor, name, start);
    const span = { start, end: cursor.pos };
    let params: string[] | undefined;
    if (cursor.peek() === '{') {
      if (isTerminal(name)) throw cursor.error('unsupported', 'templates are rules; terminal templates are not supported');
      params = reader.templateParams();
    }
    let priority = 0;
    if (cursor.eat('.')) {
      const digits = cursor.match(/-?\d+/y);
      if (digits === null) throw cursor.error('syntax', 'expected a priority number after "."');
      priority = Number(digits);
    }
    cursor.skipSpace(false);
    if (cursor.peek() === '[') reader.attributes();
    cursor.skipSpace(false);
    cursor.expect(':', '":" after the name');
    const body = reader.alternatives();
    const table = params !== undefined ? defs.templates : isTerminal(name) ? defs.terminals : defs.rules;
    if (table.has(name) || (!isTerminal(name) && (defs.rules.has(name) || defs.templates.has(name))))
      throw new GrammarError('duplicate_rule', `${name} is defined twice`, span);
    // Terminal priorities choose between lexemes (they change what is lexed); rule priorities
    // only choose between parse trees of one text, which Sieve does not build.
    if (priority !== 0 && !isTerminal(name))
      throw new GrammarError('unsupported', `rule priorities (${name}.${priority}) choose between parse trees and are not supported`, span);
    table.set(name, params === undefined ? { body, span, priority } : { body, span, priority, params });
    reader.endOfLine();
  }
}

// llguidance's parametric rules (`name::params`, defined or used): refused, naming them.
function refuseParametric(cursor: SourceCursor, name: string, start: number): void {
  if (cursor.startsWith('::')) throw cursor.error('unsupported', `llguidance's parametric rules (${name}::…) are not supported`, start, cursor.pos + 2);
}

class LarkReader {
  #depth = 0;
  constructor(private readonly cursor: SourceCursor) {}

  directive(start: number, defs: Definitions): void {
    const cursor = this.cursor;
    const word = cursor.match(/[a-z_]+/y);
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
    } else if (word === 'llguidance') {
      // llguidance's grammar options: none is exact here but the empty set.
      const options = this.json();
      const names = typeof options === 'object' && options !== null ? Object.keys(options) : [];
      if (names.length > 0 || typeof options !== 'object' || options === null || Array.isArray(options))
        throw cursor.error('unsupported', `%llguidance options are not supported (${names.join(', ') || 'not an object'})`, start, cursor.pos);
    } else {
      throw cursor.error('unsupported', `%${word ?? ''} is not supported`, start, wordEnd);
    }
    this.endOfLine();
  }

  // `{x, sep}` after a template's name.
  templateParams(): string[] {
    const cursor = this.cursor;
    cursor.expect('{');
    const params: string[] = [];
    for (;;) {
      cursor.skipSpace();
      const param = cursor.match(NAME);
      if (param === null) throw cursor.error('syntax', 'expected a template parameter name');
      params.push(param);
      cursor.skipSpace();
      if (cursor.eat('}')) return params;
      cursor.expect(',', '"," or "}"');
    }
  }

  // llguidance's rule attributes, `name[capture, lazy, stop="x"]:`. `capture` names a span of
  // the output and leaves the language alone; the others change where a terminal ends or
  // how it is sampled, and are refused.
  attributes(): void {
    const cursor = this.cursor;
    cursor.expect('[');
    for (;;) {
      cursor.skipSpace(false);
      const start = cursor.pos;
      const key = cursor.match(/[a-z_]+/y);
      if (key === null) throw cursor.error('syntax', 'expected an attribute name');
      if (key !== 'capture')
        throw cursor.error(
          'unsupported',
          `the rule attribute ${key} is not supported (llguidance's lazy, stop and suffix end a terminal at its first match; max_tokens and temperature steer sampling)`,
          start,
          cursor.pos,
        );
      cursor.skipSpace(false);
      if (cursor.eat('=')) {
        cursor.skipSpace(false);
        this.string();
      }
      cursor.skipSpace(false);
      if (cursor.eat(']')) return;
      cursor.expect(',', '"," or "]"');
    }
  }

  // A JSON value after `%json` or `%llguidance`, read to its end (strings may hold braces).
  json(): unknown {
    const cursor = this.cursor;
    cursor.skipSpace();
    const start = cursor.pos;
    const source = cursor.source;
    if (cursor.match(/true|false/y) !== null) return source.startsWith('true', start);
    if (cursor.peek() !== '{') throw cursor.error('syntax', 'expected a JSON object');
    let depth = 0;
    let end = -1;
    for (let i = start; i < source.length && end < 0; i++) {
      const c = source[i];
      if (c === '"') {
        for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
      } else if (c === '{' || c === '[') {
        depth++;
      } else if ((c === '}' || c === ']') && --depth === 0) {
        end = i + 1;
      }
    }
    if (end < 0) throw cursor.error('syntax', 'unterminated JSON', start, source.length);
    cursor.pos = end;
    try {
      return JSON.parse(source.slice(start, end)) as unknown;
    } catch (error) {
      throw cursor.error('syntax', `invalid JSON: ${(error as Error).message}`, start, end);
    }
  }

  endOfLine(): void {
    this.cursor.skipSpace(false);
    if (!this.cursor.done && !this.cursor.eat('\n')) throw this.cursor.error('syntax', `unexpected ${JSON.stringify(this.cursor.peek())}`);
  }

  // Alternatives may continue on following lines that start with "|".
  alternatives(): LarkExpr {
    const start = this.cursor.pos;
    const items = [this.conjunction()];
    for (;;) {
      const save = this.cursor.pos;
      this.cursor.skipSpace();
      if (this.cursor.eat('|')) {
        items.push(this.conjunction());
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

  // Sequences joined by `&` (llguidance): looser than a sequence, tighter than `|`.
  conjunction(): LarkExpr {
    const cursor = this.cursor;
    cursor.skipSpace(this.#depth > 0);
    const start = cursor.pos;
    const items = [this.sequence()];
    for (;;) {
      const save = cursor.pos;
      cursor.skipSpace(this.#depth > 0);
      if (!cursor.eat('&')) {
        cursor.pos = save;
        break;
      }
      items.push(this.sequence());
    }
    if (items.length > 1 && items.some((item) => item.kind === 'seq' && item.items.length === 0))
      throw cursor.error('syntax', '& needs a pattern on each side', start, cursor.pos);
    return items.length === 1 ? items[0]! : { kind: 'and', items, span: { start, end: cursor.pos } };
  }

  sequence(): LarkExpr {
    const cursor = this.cursor;
    const items: LarkExpr[] = [];
    for (;;) {
      cursor.skipSpace(this.#depth > 0);
      const c = cursor.peek();
      if (c === '' || c === '\n' || c === '|' || c === ')' || c === ']' || c === '&') break;
      if (cursor.startsWith('->')) {
        cursor.pos += 2;
        cursor.skipSpace(false);
        if (cursor.match(NAME) === null) throw cursor.error('syntax', 'expected an alias name after "->"');
        // An alias names its whole alternative: nothing follows it but the next one.
        cursor.skipSpace(this.#depth > 0);
        if (!['', '\n', '|', ')', ']'].includes(cursor.peek()))
          throw cursor.error('syntax', 'an alias ends its alternative: expected "|" or the end of the rule after it');
        continue;
      }
      items.push(this.postfix(this.complement()));
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  // Prefix `~` (llguidance): the complement of the item, before any postfix operator.
  complement(): LarkExpr {
    const cursor = this.cursor;
    const start = cursor.pos;
    if (!cursor.eat('~')) return this.primary();
    if (this.#depth >= MAX_NESTING) throw cursor.error('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, start);
    this.#depth++;
    cursor.skipSpace(false);
    const item = this.complement();
    this.#depth--;
    return { kind: 'not', item, span: { start, end: cursor.pos } };
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
      // A verbose regex (flag x) may run over lines, as in Lark, to hold its comments; any
      // other is unterminated at its first line break (an error there, not at some later slash).
      let lineBreak = -1;
      while (cursor.peek() !== '/') {
        if (cursor.done) throw cursor.error('syntax', 'unterminated regex', start, lineBreak >= 0 ? lineBreak : cursor.pos);
        if (cursor.peek() === '\n' && lineBreak < 0) lineBreak = cursor.pos;
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
      if (lineBreak >= 0 && !flags.includes('x'))
        throw cursor.error('syntax', 'unterminated regex (only a verbose one, flag x, runs over lines)', start, lineBreak);
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
    if (c === '@') throw cursor.error('unsupported', 'references to other grammars (@name) are not supported', start);
    if (c === '%') {
      const word = cursor.match(/%[a-z]+/y);
      if (word !== '%json') throw cursor.error('unsupported', `${word ?? '%'} is not supported in an expression`, start, cursor.pos);
      const schema = this.json();
      return { kind: 'json', schema, span: { start, end: cursor.pos } };
    }
    const name = cursor.match(NAME);
    if (name === null) throw cursor.error('syntax', `unexpected ${JSON.stringify(c)}`);
    refuseParametric(cursor, name, start);
    if (cursor.peek() === '{' && !this.#atCount()) return this.templateUsage(name, start);
    return { kind: 'name', name, span: { start, end: cursor.pos } };
  }

  // `name{arg, …}`: each argument a value (string, regex, range, name, group, template).
  templateUsage(name: string, start: number): LarkExpr {
    const cursor = this.cursor;
    cursor.expect('{');
    if (this.#depth >= MAX_NESTING) throw cursor.error('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, start);
    this.#depth++;
    const args: LarkExpr[] = [];
    for (;;) {
      cursor.skipSpace();
      args.push(this.primary());
      cursor.skipSpace();
      if (cursor.eat('}')) break;
      cursor.expect(',', '"," or "}"');
    }
    this.#depth--;
    return { kind: 'template', name, args, span: { start, end: cursor.pos } };
  }

  // At `{m,n}` (llguidance's count), not a template's arguments: `{` then a digit or ",".
  #atCount(): boolean {
    const save = this.cursor.pos;
    this.cursor.skipSpace(false);
    const found = this.cursor.eat('{') && (this.cursor.skipSpace(), /[\d,]/.test(this.cursor.peek()));
    this.cursor.pos = save;
    return found;
  }

  postfix(item: LarkExpr): LarkExpr {
    const cursor = this.cursor;
    for (;;) {
      // (Spaces may come before an operator, as in Lark: `("a") +`; a `?` after a space
      // then a lowercase letter or `_` is none, as Lark reads it.)
      const before = cursor.pos;
      cursor.skipSpace(false);
      const spaced = cursor.pos > before;
      if (!'*+?'.includes(cursor.peek()) || cursor.peek() === '' || (spaced && cursor.peek() === '?' && /[a-z_]/.test(cursor.peek(1)))) cursor.pos = before;
      const start = cursor.pos;
      const span = (): Span => ({ start, end: cursor.pos });
      if (cursor.eat('*')) item = { kind: 'repeat', item, min: 0, max: Infinity, span: span() };
      else if (cursor.eat('+')) item = { kind: 'repeat', item, min: 1, max: Infinity, span: span() };
      else if (cursor.eat('?')) item = { kind: 'repeat', item, min: 0, max: 1, span: span() };
      else if (this.#atRepeatCount()) {
        cursor.skipSpace(false);
        cursor.expect('~');
        cursor.skipSpace(false);
        const m = cursor.match(/(\d+)(\s*\.\.\s*(\d+))?/y)!;
        const [, lo, , hi] = /(\d+)(\s*\.\.\s*(\d+))?/.exec(m)!;
        const min = Number(lo);
        const max = hi === undefined ? min : Number(hi);
        if (max < min) throw cursor.error('invalid_range', `invalid repetition ~ ${m}`, start, cursor.pos);
        item = { kind: 'repeat', item, min, max, span: span() };
      } else if (this.#atCount()) {
        cursor.skipSpace(false);
        const countStart = cursor.pos;
        const { min, max } = readBraceCount(cursor);
        item = { kind: 'repeat', item, min, max, span: { start: countStart, end: cursor.pos } };
      } else return item;
    }
  }

  // At `~ n` after an item (a count); a `~` before anything else is the next item's complement.
  #atRepeatCount(): boolean {
    const save = this.cursor.pos;
    this.cursor.skipSpace(false);
    const found = this.cursor.eat('~') && (this.cursor.skipSpace(false), /\d/.test(this.cursor.peek()));
    this.cursor.pos = save;
    return found;
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
  // Template instances and embedded schemas, by the rule they became.
  readonly #instances = new Set<string>();
  readonly #schemas = new Map<string, Expr>();
  // Terminals defined by one literal, regex or range, by that pattern's text (see #rule).
  #byPattern: Map<string, string> | null = null;

  constructor(
    private readonly terminals: ReadonlyMap<string, Definition>,
    private readonly rules: ReadonlyMap<string, Definition>,
    private readonly templates: ReadonlyMap<string, Definition>,
    private readonly schemaOptions: JsonSchemaOptions,
  ) {}

  build(ignores: readonly LarkExpr[], startRule: string): GrammarIR {
    for (const ignore of ignores) this.#builder.ignore.push(this.#lexemeOf(ignore, 'ignored'));
    for (const [name, def] of this.rules) {
      this.#builder.rules.set(name, this.#rule(def.body));
      this.#builder.ruleSpans.set(name, def.span);
    }
    if (!this.rules.has(startRule)) {
      const template = this.templates.get(startRule);
      if (template !== undefined) throw new GrammarError('no_start_rule', `the start rule ${startRule} is a template (it takes parameters)`, template.span);
      throw new GrammarError('no_start_rule', `the grammar has no ${startRule} rule`, { start: 0, end: 0 });
    }
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
          if (this.templates.has(e.name)) throw new GrammarError('syntax', `the template ${e.name} needs its arguments`, e.span);
          if (!this.rules.has(e.name)) throw new GrammarError('unknown_rule', `unknown rule ${e.name}`, e.span);
          return expr.ref(e.name, e.span);
        }
        return expr.lexeme(this.#lexemeOf(e, e.name));
      case 'template':
        return this.#instance(e);
      case 'json':
        return this.#embeddedSchema(e.schema, e.span);
      case 'and':
      case 'not':
        // As in llguidance, they build terminals: a rule writes `X` with `X: A & B`.
        throw new GrammarError('unsupported', `${e.kind === 'and' ? '&' : '~'} is only supported in terminal definitions (X: A & ~B)`, e.span);
      default: {
        // A pattern a terminal is defined by is that terminal, as in Lark (its priority too).
        const named = this.#terminalOf(e);
        if (named !== undefined) return expr.lexeme(this.#lexemeOf({ kind: 'name', name: named, span: e.span }, named));
        return expr.lexeme(this.#lexemeOf(e, e.kind === 'literal' ? JSON.stringify(e.text) : e.kind === 'regex' ? `/${e.pattern}/` : 'range'));
      }
    }
  }

  // The terminal defined by exactly pattern `e` (the last such, as Lark keeps), if any.
  #terminalOf(e: LarkExpr): string | undefined {
    if (this.#byPattern === null) {
      this.#byPattern = new Map();
      for (const [name, def] of this.terminals) {
        if (def.body.kind === 'literal' || def.body.kind === 'regex' || def.body.kind === 'range') this.#byPattern.set(larkKey(def.body), name);
      }
    }
    return this.#byPattern.get(larkKey(e));
  }

  // One rule per template and list of arguments (named by them), its parameters replaced.
  #instance(e: Extract<LarkExpr, { kind: 'template' }>): Expr {
    const def = this.templates.get(e.name);
    if (def === undefined) throw new GrammarError(this.rules.has(e.name) ? 'syntax' : 'unknown_rule', `${e.name} is not a template`, e.span);
    const params = def.params!;
    if (params.length !== e.args.length)
      throw new GrammarError('syntax', `the template ${e.name} takes ${params.length} argument(s), not ${e.args.length}`, e.span);
    const name = `${e.name}{${e.args.map(larkKey).join(', ')}}`;
    if (!this.#instances.has(name)) {
      if (this.#instances.size >= MAX_TEMPLATE_INSTANCES || name.length > MAX_TEMPLATE_KEY)
        throw new GrammarError(
          'unsupported',
          `templates expand to more than ${MAX_TEMPLATE_INSTANCES} rules or to arguments over ${MAX_TEMPLATE_KEY} characters`,
          e.span,
        );
      this.#instances.add(name);
      const args = new Map(params.map((p, i) => [p, e.args[i]!]));
      this.#builder.rules.set(name, this.#rule(substitute(def.body, args)));
      this.#builder.ruleSpans.set(name, def.span);
    }
    return expr.ref(name, e.span);
  }

  // `%json`: the schema's grammar, copied in under a prefix of its own (once per schema).
  #embeddedSchema(schema: unknown, span: Span): Expr {
    if (this.#builder.ignore.length > 0)
      throw new GrammarError(
        'unsupported',
        '%json in a grammar with %ignore is not supported: the ignored terminals would be skipped inside the JSON too',
        span,
      );
    if (typeof schema === 'object' && schema !== null && Object.hasOwn(schema, 'x-guidance'))
      throw new GrammarError('unsupported', "%json: llguidance's x-guidance options are not supported", span);
    const key = JSON.stringify(schema);
    let ref = this.#schemas.get(key);
    if (ref === undefined) {
      let grammar: GrammarIR;
      try {
        grammar = jsonSchemaGrammar(schema, this.schemaOptions).grammar;
      } catch (error) {
        if (error instanceof SchemaError) throw new GrammarError(error.code, `%json: ${error.message}`, span);
        throw error;
      }
      ref = embedGrammar(this.#builder, grammar, `%json${this.#schemas.size}:`);
      this.#schemas.set(key, ref);
    }
    return ref;
  }

  #lexemeOf(e: LarkExpr, name: string): number {
    const priority = e.kind === 'name' ? (this.terminals.get(e.name)?.priority ?? 0) : 0;
    return this.#builder.lexeme({ name, regex: this.#regex(e), priority });
  }

  #regex(e: LarkExpr): ByteRegex {
    switch (e.kind) {
      case 'literal':
        return e.ignoreCase
          ? rx.seq([...e.text].map((ch) => rx.codePoints(caseClosure([ch.codePointAt(0)!, ch.codePointAt(0)!], 'python'))))
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
      case 'and':
        return rx.and(e.items.map((i) => this.#regex(i)));
      case 'not':
        return rx.not(this.#regex(e.item));
      case 'template':
      case 'json':
        throw new GrammarError('syntax', `terminals cannot use rules (${e.kind === 'json' ? '%json' : e.name})`, e.span);
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

// A template's body with its parameters replaced by the arguments.
function substitute(e: LarkExpr, args: ReadonlyMap<string, LarkExpr>): LarkExpr {
  switch (e.kind) {
    case 'name':
      return args.get(e.name) ?? e;
    case 'seq':
    case 'alt':
    case 'and':
      return { ...e, items: e.items.map((i) => substitute(i, args)) };
    case 'repeat':
    case 'not':
      return { ...e, item: substitute(e.item, args) };
    case 'template':
      return { ...e, args: e.args.map((a) => substitute(a, args)) };
    default:
      return e;
  }
}

// An expression as text, spans left out: template arguments that read alike are one instance.
function larkKey(e: LarkExpr): string {
  switch (e.kind) {
    case 'literal':
      return JSON.stringify(e.text) + (e.ignoreCase ? 'i' : '');
    case 'regex':
      return `/${e.pattern}/${e.flags}`;
    case 'range':
      return `${e.from}..${e.to}`;
    case 'name':
      return e.name;
    case 'seq':
      return `(${e.items.map(larkKey).join(' ')})`;
    case 'alt':
      return `(${e.items.map(larkKey).join(' | ')})`;
    case 'and':
      return `(${e.items.map(larkKey).join(' & ')})`;
    case 'not':
      return `~${larkKey(e.item)}`;
    case 'repeat':
      return `${larkKey(e.item)}{${e.min},${e.max}}`;
    case 'json':
      return `%json ${JSON.stringify(e.schema)}`;
    case 'template':
      return `${e.name}{${e.args.map(larkKey).join(', ')}}`;
  }
}

/**
 * A Lark regex terminal, a pattern of Python's `re`: its syntax spelled as ECMAScript's
 * (`ecmascriptSpelling`), read with the `u` flag, Annex B's identity escapes and Python's
 * classes (`RegexOptions.python`). Flags as Python reads them: `i` (Unicode case folding), `s`
 * (dot matches newlines), `x` (verbose: whitespace and `#` comments outside classes are not
 * part of the pattern), `u` (no change: Python's text patterns are Unicode already) and `m`
 * (no change: it moves `^` and `$`, and anchors are refused in terminals); `l` (locale)
 * is refused, as Python refuses it for text patterns.
 */
function larkRegex(written: string, writtenFlags: string, span: Span): ByteRegex {
  // Python's global flags at the pattern's start, `(?i)`, are the pattern's flags.
  const global = /^\(\?([a-zA-Z]+)\)/.exec(written);
  const pattern = global === null ? written : written.slice(global[0].length);
  // Each flag where it is written: after the closing `/`, or in `(?…)` after the opening one.
  const placed = [
    ...[...writtenFlags].map((flag, i) => [flag, span.end - writtenFlags.length + i] as const),
    ...[...(global?.[1] ?? '')].map((flag, i) => [flag, span.start + 3 + i] as const),
  ];
  for (const [flag, at] of placed) {
    if (!'imsux'.includes(flag))
      throw new GrammarError('unsupported', `the regex flag ${flag} is not supported (Lark's i, m, s, u and x are)`, { start: at, end: at + 1 });
  }
  const flags = [...new Set(placed.map(([flag]) => flag))].join('');
  const unescaped = larkUnescaped(pattern, span);
  const source = ecmascriptSpelling(flags.includes('x') ? withoutVerboseSpace(unescaped) : unescaped, span);
  // Spans stay right where the verbose form and the spelling left the pattern unchanged.
  return regexToByteRegex(source, {
    flags: `${flags.replace(/[mux]/g, '')}u`,
    caseFolding: 'python',
    mode: 'token',
    offset: span.start,
    annexB: true,
    python: true,
  });
}

/**
 * A regex as Lark hands it to `re`: Lark first reads the escapes of a Python string in it —
 * `\\xHH`, `\\uHHHH`, `\\UHHHHHHHH`, `\\n`, `\\t`, `\\r`, `\\f` — as the characters they
 * stand for, which `re` then reads as pattern text: `/\\x5cd/` is `\\d`, `/\\x28a\\x29/` a group,
 * and under `x` an escaped newline is space. Other escapes reach `re` as written.
 */
function larkUnescaped(pattern: string, span: Span): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const next = pattern[i + 1] ?? '';
    if (c !== '\\') {
      out += c;
    } else if (Object.hasOwn(CONTROL_ESCAPES, next)) {
      out += CONTROL_ESCAPES[next];
      i++;
    } else if (Object.hasOwn(HEX_ESCAPE_DIGITS, next)) {
      const digits = HEX_ESCAPE_DIGITS[next]!;
      const hex = pattern.slice(i + 2, i + 2 + digits);
      const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === digits ? parseInt(hex, 16) : -1;
      if (code < 0 || code > 0x10ffff)
        throw new GrammarError('syntax', `bad escape \\${next} in a Lark regex (it needs ${digits} hex digits of a code point)`, span);
      // (A surrogate stays an escape: the regex front end refuses it there.)
      out += code >= 0xd800 && code <= 0xdfff ? `\\u${hex.slice(-4)}` : String.fromCodePoint(code);
      i += 1 + digits;
    } else {
      out += c + next;
      i++;
    }
  }
  return out;
}
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', f: '\f' };
const HEX_ESCAPE_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/**
 * Python's `re` syntax that ECMAScript spells otherwise, spelled so: `\a` (`\x07`), a count
 * `{,n}` or `{,}` (`{0,n}`, `{0,}`), a `]` first in a class (a member), a named group
 * `(?P<name>…)`. `\c` (a control letter to ECMAScript) is an error, as in Python; other
 * escapes of letters and digits keep ECMAScript's meaning where Python's is the same, and are
 * errors where it has none (`\A`, `\Z`, `\N{…}`, `\e`).
 */
function ecmascriptSpelling(pattern: string, span: Span): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'a') {
        out += '\\x07';
        i++;
      } else if (next === 'c') {
        throw new GrammarError('syntax', `bad escape \\c in a Lark regex (Python's re has no control escapes)`, span);
      } else {
        out += c + next;
        i++;
      }
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      const negated = pattern[i + 1] === '^';
      out += negated ? '[^' : '[';
      if (negated) i++;
      // (A `]` first in a class is a member in Python.)
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i++;
      }
    } else if (c === '{' && /^\{,\d*\}/.test(pattern.slice(i))) {
      out += '{0';
    } else if (pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
    } else {
      out += c;
    }
  }
  return out;
}

// Python's verbose mode: unescaped whitespace (ASCII's, VERBOSE_SPACE) outside a character
// class is dropped, and so is a `#` outside a class with the rest of its line.
const VERBOSE_SPACE = ' \t\n\r\v\f';
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
    } else if (!VERBOSE_SPACE.includes(c)) {
      out += c;
    }
  }
  return out;
}
