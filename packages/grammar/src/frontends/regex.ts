/**
 * ECMAScript regular expressions (parsed with @eslint-community/regexpp) to byte regexes.
 * A regex constraint matches the whole output. Anchors anywhere and lookaheads are exact
 * (they speak of the whole text, so not in a token); lookbehind, backreferences and word
 * boundaries are reported as unsupported.
 */
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { isNullable, memoized, rx, type ByteRegex } from '../ir/byte-regex.ts';
import {
  ANY,
  caseClosure,
  complement,
  DIGIT,
  intersect,
  LINE_TERMINATORS,
  NEWLINE,
  PYTHON_DIGIT,
  PYTHON_SPACE,
  PYTHON_WORD,
  SPACE,
  subtract,
  union,
  unicodeProperty,
  WORD,
  type CaseFolding,
  type CodePointSet,
} from '../ir/code-point-sets.ts';
import { GrammarError, type Span } from '../grammar-error.ts';
import { GrammarBuilder, MAX_NESTING, expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { temperedStar } from './tempered-star.ts';

/** How to read a regex. */
export interface RegexOptions {
  /**
   * ECMAScript flags: `i`, `s`, `u`, `v` are honoured; `g`, `y`, `d` change nothing for a match
   * of a whole text and are allowed; `m` (`^` and `$` at line ends) is refused, and letters no
   * RegExp takes (or one given twice, or `u` with `v`) are a syntax error.
   */
  readonly flags?: string;
  /**
   * `match` (default): the regex must match the whole text, as for a regex constraint.
   * `search`: the regex may match anywhere in the text (JSON Schema `pattern`), unless
   * anchored with `^` / `$`.
   * `token`: the regex is one token of a larger text (a Lark terminal): it matches the token
   * whole, and anchors, which would speak of the larger text, are refused.
   */
  readonly mode?: 'match' | 'search' | 'token';
  /** Added to spans, when the pattern is embedded in a larger source. */
  readonly offset?: number;
  /**
   * How one character from a set of code points is written as bytes (default: UTF-8). The
   * JSON Schema compiler passes the escaped form characters take inside a JSON string.
   */
  readonly encodeChars?: (ranges: readonly number[]) => ByteRegex;
  /**
   * How the `i` flag compares characters (default: `simple` with the `u` or `v` flag, else
   * `legacy`, as ECMAScript does). Lark passes `python`, as Python's `re` folds.
   */
  readonly caseFolding?: CaseFolding;
  /**
   * With the `u` flag, also read what ECMAScript reads without it (Annex B) and Python reads
   * alike, which the `u` flag alone refuses: a backslash before a character that is no ASCII
   * letter or digit as that character (`[^\"]`, `\'`, `\_`), and a `]`, `}` or `{` outside a
   * class that opens or closes nothing as itself (`^[[a-z]*]*$`, `\{d}`; `a{2,3}` stays a
   * count). JSON Schema patterns are written for those engines too. Escapes of letters and
   * digits keep their meaning or stay errors (`\q`); `{,3}`, which Python reads as a count,
   * is refused.
   */
  readonly annexB?: boolean;
  /**
   * Read classes as Python's `re` reads a text pattern (Lark's terminals): `.` is any
   * character but `\n` (any with `s`), `\d` a decimal digit of any script (`\p{Nd}`), `\w` a
   * letter or number of any script or `_`, `\s` what `str.isspace` says is whitespace. Lazy
   * quantifiers are refused in `token` mode: Python takes a terminal's first match, where a
   * lexeme takes the longest.
   */
  readonly python?: boolean;
  /**
   * The most characters of the text the caller matches the result against (a JSON Schema
   * `maxLength` it intersects the result with). Counts such a text could never reach are read
   * as unbounded (`(.{1,63}\.){1,127}` within 255 characters is one loop, not 127 copies):
   * the same language on texts up to that length, and only there.
   */
  readonly longest?: number;
}

/** Compiles a regex constraint: the whole output must match. */
export function compileRegexGrammar(pattern: string, options: RegexOptions = {}): GrammarIR {
  const builder = new GrammarBuilder();
  const lexeme = builder.lexeme({ name: `/${pattern}/`, regex: regexToByteRegex(pattern, options) });
  builder.rules.set('start', expr.lexeme(lexeme));
  return builder.build('start');
}

// Conversions memoized per character encoding: schemas repeat patterns (formats, numeric
// bounds). The offset only places errors, and a failed conversion is not kept.
const conversions = new WeakMap<(ranges: readonly number[]) => ByteRegex, (args: { pattern: string; options: RegexOptions }) => ByteRegex>();

/** Converts a regex to a byte regex over its UTF-8 encoding. */
export function regexToByteRegex(pattern: string, options: RegexOptions = {}): ByteRegex {
  checkFlags(options.flags ?? '');
  const encode = options.encodeChars ?? rx.codePoints;
  let convert = conversions.get(encode);
  if (convert === undefined) {
    convert = memoized(
      ({ pattern, options }) =>
        `${options.flags ?? ''} ${options.caseFolding ?? ''} ${options.mode ?? 'match'} ${options.annexB === true} ${options.python === true} ${options.longest ?? Infinity} ${pattern}`,
      ({ pattern, options }) => {
        const flags = options.flags ?? '';
        const offset = options.offset ?? 0;
        const { ast, at } = parse(pattern, flags, offset, options.annexB === true);
        const mode = options.mode ?? 'match';
        const converter = new Converter(flags, options.caseFolding, mode, at, encode, options.python === true, options.longest ?? Infinity);
        if (mode !== 'token' && (hasLookahead(ast) || ast.alternatives.some((alt) => alt.elements.some(isWordAssertion))))
          return converter.lookaheadPattern(ast, mode === 'search');
        if (mode !== 'token' && ast.alternatives.some(anchoredInside)) return converter.anchoredPattern(ast, mode === 'search');
        return rx.alt(ast.alternatives.map((alt) => (mode === 'token' ? converter.element(alt) : converter.alternative(alt, mode === 'search'))));
      },
    );
    conversions.set(encode, convert);
  }
  return convert({ pattern, options });
}

// Flags as RegExp takes them, `m` aside (see `RegexOptions.flags`).
function checkFlags(flags: string): void {
  for (const [i, flag] of [...flags].entries()) {
    if (!'dgimsuvy'.includes(flag) || flags.indexOf(flag) !== i) throw new GrammarError('syntax', `invalid regex flags ${JSON.stringify(flags)}`);
  }
  if (flags.includes('u') && flags.includes('v')) throw new GrammarError('syntax', 'the regex flags u and v exclude each other');
  if (flags.includes('m')) throw new GrammarError('unsupported', 'the regex flag m (^ and $ at line ends) is not supported');
}

// The pattern's syntax tree, and where each of its offsets is in the grammar source.
function parse(pattern: string, flags: string, offset: number, annexB: boolean): { ast: AST.Pattern; at: (index: number) => number } {
  const parser = new RegExpParser({ ecmaVersion: 2025 });
  const unicodeSets = flags.includes('v');
  const at = (index: number): number => offset + index;
  checkNesting(pattern, unicodeSets, offset);
  let ast: AST.Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: !unicodeSets, unicodeSets });
  } catch (unicodeError) {
    if (unicodeSets) throw syntaxError(unicodeError, offset);
    if (flags.includes('u')) {
      const spelled = annexB ? spellAnnexB(pattern) : null;
      if (spelled === null) throw syntaxError(unicodeError, offset);
      if (spelled.countWithoutMinimum !== null) {
        const at = spelled.countWithoutMinimum;
        const count = /^\{,\d*\}/.exec(pattern.slice(at))![0];
        const span = { start: offset + at, end: offset + at + count.length };
        throw new GrammarError('unsupported', `${count} is text to ECMAScript and a count from 0 to Python: write {0,…} or escape the brace`, span);
      }
      try {
        const ast = parser.parsePattern(spelled.source, 0, spelled.source.length, { unicode: true });
        return { ast, at: (index) => offset + (spelled.origin[index] ?? pattern.length) };
      } catch {
        throw syntaxError(unicodeError, offset);
      }
    }
    // Without the u flag, ECMAScript accepts Annex B forms such as a lone `{` or `\-`.
    let plain: AST.Pattern;
    try {
      plain = parser.parsePattern(pattern, 0, pattern.length, { unicode: false });
    } catch {
      throw syntaxError(unicodeError, offset);
    }
    // Read as code points, it must mean the same: with those forms spelled for the u flag,
    // the same tree (a surrogate pair one character); else no surrogate in it at all.
    const spelled = spellAnnexB(pattern);
    if (spelled !== null) {
      try {
        const ast = parser.parsePattern(spelled.source, 0, spelled.source.length, { unicode: true });
        if (shape(ast) === shape(plain)) return { ast, at: (index) => offset + (spelled.origin[index] ?? pattern.length) };
      } catch {
        // (Read only without the u flag: an octal escape, a quantified lookahead.)
      }
    }
    if (hasSurrogates(plain)) throw readsDifferently(offset, pattern.length);
    return { ast: plain, at };
  }
  if (unicodeSets) checkNegatedClasses(ast, offset);
  // Characters are code points, as the u flag reads them; without it, a pattern must read
  // the same (`\p{L}` would be `p{L}`, `\u{41}` 41 u's, `[😀]` either half of a pair).
  if (!unicodeSets && !flags.includes('u')) {
    let plain: AST.Pattern | null = null;
    try {
      plain = parser.parsePattern(pattern, 0, pattern.length, { unicode: false });
    } catch {
      // (Read only with the u flag: a class range of astral characters, say.)
    }
    if (plain === null || shape(plain) !== shape(ast)) throw readsDifferently(offset, pattern.length);
  }
  return { ast, at };
}

// With the v flag, a negated class that may contain strings (of other than one character)
// is an early error ECMAScript reports and the parser may miss (`[^a-b\\q{}]`).
function checkNegatedClasses(ast: AST.Pattern, offset: number): void {
  const negated = findNode(
    ast,
    (node) => (node.type === 'CharacterClass' || node.type === 'ExpressionCharacterClass') && node.negate && mayContainStrings({ ...node, negate: false }),
  );
  if (negated !== undefined)
    throw new GrammarError('invalid_regex', `invalid regex: a negated class may contain strings (${negated.raw})`, {
      start: offset + negated.start,
      end: offset + negated.end,
    });
}

// ECMAScript's MayContainStrings of a class operand.
function mayContainStrings(node: AST.Node): boolean {
  switch (node.type) {
    case 'ClassStringDisjunction':
      return node.alternatives.some((a) => a.elements.length !== 1);
    case 'CharacterSet':
      return node.kind === 'property' && node.strings;
    case 'CharacterClass':
      return !node.negate && node.elements.some(mayContainStrings);
    case 'ExpressionCharacterClass':
      return !node.negate && mayContainStrings(node.expression);
    case 'ClassIntersection':
      return mayContainStrings(node.left) && mayContainStrings(node.right);
    case 'ClassSubtraction':
      return mayContainStrings(node.left);
    default:
      return false;
  }
}

const readsDifferently = (offset: number, length: number): GrammarError =>
  new GrammarError('unsupported', 'this pattern reads differently without the u flag; give the u (or v) flag (flags: "u"; on the command line, --flags u)', {
    start: offset,
    end: offset + length,
  });

// Whether a syntax tree read without the u flag has a surrogate in it (half of a pair, to it).
const hasSurrogates = (ast: AST.Pattern): boolean =>
  findNode(ast, (node) => node.type === 'Character' && node.value >= 0xd800 && node.value <= 0xdfff) !== undefined;

// The first node of a syntax tree (depth first) that `test` holds for.
function findNode(root: AST.Node, test: (node: AST.Node) => boolean): AST.Node | undefined {
  let found: AST.Node | undefined;
  JSON.stringify(root, (key, value: unknown) => {
    if (key === 'parent' || found !== undefined) return undefined;
    const node = value as AST.Node | null;
    if (typeof node?.type === 'string' && test(node)) found = node;
    return value;
  });
  return found;
}

// A syntax tree as text, without positions or source: two readings of a pattern that print
// alike mean the same. A high and a low surrogate in a row are one character (as the u flag
// reads them), except as members of a class.
function shape(ast: AST.Pattern): string {
  return JSON.stringify(ast, function (this: { type?: string }, key, value: unknown) {
    if (key === 'parent' || key === 'start' || key === 'end' || key === 'raw' || key === 'resolved') return undefined;
    if (key !== 'elements' || this.type !== 'Alternative') return value;
    const joined: unknown[] = [];
    const elements = value as AST.Element[];
    for (let i = 0; i < elements.length; i++) {
      const [high, low] = [elements[i]!, elements[i + 1]];
      const pair =
        high.type === 'Character' && low?.type === 'Character' && high.value >= 0xd800 && high.value <= 0xdbff && low.value >= 0xdc00 && low.value <= 0xdfff;
      if (!pair) {
        joined.push(high);
        continue;
      }
      joined.push({ type: 'Character', value: 0x10000 + ((high.value - 0xd800) << 10) + (low.value - 0xdc00) });
      i++;
    }
    return joined;
  });
}

// ECMAScript's syntax characters and `/`: the identity escapes the u flag allows.
const SYNTAX_CHARACTERS = '^$\\.*+?()[]{}|/';

/**
 * The pattern with what the u flag refuses and Annex B reads spelled as the u flag reads it:
 * each identity escape of a character that is no ASCII letter or digit (`\"`, `\-` outside a
 * class, `\ `) as `\u{…}`, and a `]`, `}` or `{` outside a class that opens or closes nothing
 * (no count `{n}`, `{n,}`, `{n,m}` starts there) escaped. `origin[i]` is the pattern offset of
 * offset `i`. Null when there is nothing to spell.
 */
export function spellAnnexB(pattern: string): { source: string; origin: number[]; countWithoutMinimum: number | null } | null {
  let source = '';
  const origin: number[] = [];
  let spelled = false;
  // Where `{,n}` or `{,}` first stands: text here, a count to Python.
  let countWithoutMinimum: number | null = null;
  let inClass = false;
  const put = (text: string, from: number): void => {
    source += text;
    for (let k = 0; k < text.length; k++) origin.push(from);
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const next = pattern.codePointAt(i + 1);
    if (c === '\\' && next !== undefined) {
      const char = String.fromCodePoint(next);
      // `\u{…}`, `\p{…}` and `\P{…}` keep their braces.
      const braces = /^[upP]\{[^}]*\}/.exec(pattern.slice(i + 1))?.[0];
      const text =
        braces !== undefined ? `\\${braces}` : /[A-Za-z0-9]/.test(char) || SYNTAX_CHARACTERS.includes(char) ? `\\${char}` : `\\u{${next.toString(16)}}`;
      spelled ||= braces === undefined && text.length !== 1 + char.length;
      put(text, i);
      i += braces?.length ?? char.length;
    } else if (inClass) {
      inClass = c !== ']';
      put(c, i);
    } else if (c === '[') {
      inClass = true;
      // ECMAScript's `[]` is an empty class: a `]` right after `[` closes it.
      put(c, i);
    } else if (c === '{') {
      const count = /^\{\d+(?:,\d*)?\}/.exec(pattern.slice(i))?.[0];
      if (count !== undefined) {
        put(count, i);
        i += count.length - 1;
      } else {
        spelled = true;
        if (countWithoutMinimum === null && /^\{,\d*\}/.test(pattern.slice(i))) countWithoutMinimum = i;
        put('\\{', i);
      }
    } else if (c === ']' || c === '}') {
      spelled = true;
      put(`\\${c}`, i);
    } else {
      put(c, i);
    }
  }
  return spelled ? { source, origin, countWithoutMinimum } : null;
}

// The parser, the converter and the automaton builder recurse once per group (and class,
// with the v flag): a pattern nested deeper than MAX_NESTING is refused before any of them.
function checkNesting(pattern: string, unicodeSets: boolean, offset: number): void {
  let groups = 0;
  let classes = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[' && (classes === 0 || unicodeSets)) classes++;
    else if (c === ']' && classes > 0) classes--;
    else if (c === '(' && classes === 0) groups++;
    else if (c === ')' && classes === 0 && groups > 0) groups--;
    if (groups + classes > MAX_NESTING)
      throw new GrammarError('unsupported', `groups nested deeper than ${MAX_NESTING} levels`, { start: offset + i, end: offset + i + 1 });
  }
}

function syntaxError(error: unknown, offset: number): GrammarError {
  const index = typeof (error as { index?: number }).index === 'number' ? (error as { index: number }).index : 0;
  const message = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
  return new GrammarError('invalid_regex', message, { start: offset + index, end: offset + index + 1 });
}

// Whether an alternative has an anchor (`^`, `$`) other than at its own start or end.
function anchoredInside(alt: AST.Alternative): boolean {
  const inner = alt.elements.filter(
    (e, i) => !(e.type === 'Assertion' && ((i === 0 && e.kind === 'start') || (i === alt.elements.length - 1 && e.kind === 'end'))),
  );
  return inner.some(hasAnchor);
}

// Whether a part has an assertion `test` accepts (not looking inside lookaheads).
function hasAssertion(node: AST.Pattern | AST.Element | AST.Alternative, test: (assertion: AST.Assertion) => boolean): boolean {
  switch (node.type) {
    case 'Assertion':
      return test(node);
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return node.alternatives.some((a) => hasAssertion(a, test));
    case 'Alternative':
      return node.elements.some((e) => hasAssertion(e, test));
    case 'Quantifier':
      return hasAssertion(node.element, test);
    default:
      return false;
  }
}

const hasAnchorOf = (node: AST.Pattern | AST.Element | AST.Alternative, kind: 'start' | 'end'): boolean => hasAssertion(node, (a) => a.kind === kind);
const hasAnchor = (node: AST.Element | AST.Alternative): boolean => hasAssertion(node, (a) => a.kind === 'start' || a.kind === 'end');
const hasLookahead = (node: AST.Pattern | AST.Element | AST.Alternative): boolean => hasAssertion(node, (a) => a.kind === 'lookahead');
const isWordAssertion = (node: AST.Element): boolean => node.type === 'Assertion' && node.kind === 'word';
// Whether a part's language depends on the text after it: a lookahead or a `$` inside.
const looksAhead = (node: AST.Element | AST.Alternative): boolean => hasLookahead(node) || hasAnchorOf(node, 'end');

const spans = new WeakMap<AST.Node, readonly [number, number]>();

// The fewest and the most characters a part of a pattern reads (an assertion reads none).
function charSpan(node: AST.Element | AST.Alternative): readonly [number, number] {
  let span = spans.get(node);
  if (span !== undefined) return span;
  switch (node.type) {
    case 'Alternative':
      span = node.elements.map(charSpan).reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
      break;
    case 'Group':
    case 'CapturingGroup':
      span = node.alternatives.map(charSpan).reduce(([a, b], [c, d]) => [Math.min(a, c), Math.max(b, d)], [Infinity, 0]);
      break;
    case 'Quantifier': {
      const [fewest, most] = charSpan(node.element);
      span = [fewest * node.min, most === 0 ? 0 : most * node.max];
      break;
    }
    case 'Assertion':
      span = [0, 0];
      break;
    case 'Character':
    case 'CharacterSet':
    case 'CharacterClass':
    case 'ExpressionCharacterClass':
      span = [1, 1];
      break;
    default:
      span = [0, Infinity]; // (a backreference)
  }
  spans.set(node, span);
  return span;
}

// The most characters the text may have from where `node` stands, by `node` alone: a
// lookahead whose every alternative ends with `$` says at most its longest match
// (Infinity for any other element).
function lookaheadBound(node: AST.Element): number {
  if (node.type !== 'Assertion' || node.kind !== 'lookahead' || node.negate) return Infinity;
  return node.alternatives.reduce((most, alt) => {
    const last = alt.elements[alt.elements.length - 1];
    return Math.max(most, last?.type === 'Assertion' && last.kind === 'end' ? charSpan(alt)[1] : Infinity);
  }, 0);
}

/**
 * A part of a pattern with anchors inside (`^$|(^a+$)`, `(x|$)`), split by the anchors on the
 * path its match takes: none (`free`); some `^` and no `$` (`start`); some `$` and no `^`
 * (`end`); both (`both`). A `^` holds only at the text's start, so only where the part's
 * match starts and nothing of the text comes before; likewise `$` at its end: each of the
 * four is the strings such paths match with their anchors where they can hold.
 */
interface AnchoredParts {
  readonly free: ByteRegex;
  readonly start: ByteRegex;
  readonly end: ByteRegex;
  readonly both: ByteRegex;
}

const KINDS = ['free', 'start', 'end', 'both'] as const;
const hasStart = (kind: (typeof KINDS)[number]): boolean => kind === 'start' || kind === 'both';
const hasEnd = (kind: (typeof KINDS)[number]): boolean => kind === 'end' || kind === 'both';
const kindOf = (start: boolean, end: boolean): (typeof KINDS)[number] => (start ? (end ? 'both' : 'start') : end ? 'end' : 'free');
const isNothing = (r: ByteRegex): boolean => r.kind === 'alt' && r.items.length === 0;
// The empty string, if `r` matches it.
const emptyOf = (r: ByteRegex): ByteRegex => (isNullable(r) ? rx.empty : rx.nothing);
const cat = (items: readonly ByteRegex[]): ByteRegex => (items.some(isNothing) ? rx.nothing : rx.seq(items));
const either = (items: readonly ByteRegex[]): ByteRegex => rx.alt(items.filter((r) => !isNothing(r)));
const unanchored = (free: ByteRegex): AnchoredParts => ({ free, start: rx.nothing, end: rx.nothing, both: rx.nothing });

// Paths through `a` then `b`: an anchor of `b` at its start needs `a` to have matched
// nothing, one of `a` at its end needs `b` to.
function concatAnchored(a: AnchoredParts, b: AnchoredParts): AnchoredParts {
  const out: Record<(typeof KINDS)[number], ByteRegex[]> = { free: [], start: [], end: [], both: [] };
  for (const ka of KINDS) {
    for (const kb of KINDS) {
      const left = hasStart(kb) ? emptyOf(a[ka]) : a[ka];
      const right = hasEnd(ka) ? emptyOf(b[kb]) : b[kb];
      out[kindOf(hasStart(ka) || hasStart(kb), hasEnd(ka) || hasEnd(kb))].push(cat([left, right]));
    }
  }
  return { free: either(out.free), start: either(out.start), end: either(out.end), both: either(out.both) };
}

// Paths through any number of copies: once a copy passes `^`, the copies before it matched
// nothing, and later ones may pass another `^` only if it did too (so the text is one
// `start` match and free ones); likewise for `$`; a `$` before a `^` leaves only the empty text.
function starAnchored(r: AnchoredParts): AnchoredParts {
  const free = rx.repeat(r.free, 0, Infinity);
  return {
    free,
    start: cat([r.start, free]),
    end: cat([free, r.end]),
    both: either([r.both, cat([r.start, free, r.end]), cat([emptyOf(r.end), emptyOf(r.start)])]),
  };
}

// Copies of a part with anchors inside are expanded up to this many (a larger finite count is refused).
const MAX_ANCHORED_COPIES = 16;
// Copies of a part with a lookahead inside (or `$` beside one) expanded at most.
const MAX_LOOKAHEAD_COPIES = 4;
// Most DFA states of a repeated group that starts with lookaheads (`temperedStar`).
const MAX_TEMPERED_STATES = 5_000;

// Case-insensitive sets are closed under case at every leaf, so unions, intersections and
// differences of them are too, and a negated class is the complement of a closed set: the
// letters its members exclude stay excluded in every case (ECMAScript and Python alike).
class Converter {
  // Any text (what may stand before or after a part in search mode, or a lookahead's tail).
  #anyText: ByteRegex | undefined;
  // The `i` and `s` flags where a part is converted (a modifier group sets them inside it).
  #folding: CaseFolding | null;
  #dotAll: boolean;
  // How `i` compares characters, where it is on.
  readonly #foldingWhenOn: CaseFolding;
  readonly #unicodeSets: boolean;
  // The most characters of the text where a part is converted (`#countMax`), and the bound
  // each lookahead that sets one is itself read with (`#bounded`).
  #longest: number;
  readonly #ownBound = new WeakMap<AST.Node, number>();
  constructor(
    flags: string,
    folding: CaseFolding | undefined,
    private readonly mode: 'match' | 'search' | 'token',
    private readonly at: (index: number) => number,
    private readonly encodeChars: (ranges: readonly number[]) => ByteRegex,
    private readonly python: boolean,
    longest: number,
  ) {
    this.#longest = longest;
    const unicode = flags.includes('u') || flags.includes('v');
    this.#foldingWhenOn = folding ?? (unicode ? 'simple' : 'legacy');
    this.#folding = flags.includes('i') ? this.#foldingWhenOn : null;
    this.#dotAll = flags.includes('s');
    this.#unicodeSets = flags.includes('v');
  }

  // In search mode, an alternative not anchored at an end may have anything on that side.
  alternative(alt: AST.Alternative, search: boolean): ByteRegex {
    const elements = alt.elements;
    let from = 0;
    let to = elements.length;
    const anchoredStart = elements[0]?.type === 'Assertion' && elements[0].kind === 'start';
    const last = elements[elements.length - 1];
    const anchoredEnd = last?.type === 'Assertion' && last.kind === 'end';
    if (anchoredStart) from = 1;
    if (anchoredEnd && to > from) to--;
    const body = rx.seq(elements.slice(from, to).map((e) => this.element(e)));
    if (!search) return body;
    const anything = this.#anything;
    return rx.seq([...(anchoredStart ? [] : [anything]), body, ...(anchoredEnd ? [] : [anything])]);
  }

  get #anything(): ByteRegex {
    return (this.#anyText ??= rx.repeat(this.encodeChars(ANY), 0, Infinity));
  }

  // A pattern with anchors inside: the texts where some path's anchors hold (the whole text
  // in `match` mode; in `search` mode anything may come before a path without `^` and after
  // one without `$`).
  anchoredPattern(ast: AST.Pattern, search: boolean): ByteRegex {
    const parts = this.#anchored(ast);
    if (!search) return either([parts.free, parts.start, parts.end, parts.both]);
    const anything = this.#anything;
    return either([cat([anything, parts.free, anything]), cat([parts.start, anything]), cat([anything, parts.end]), parts.both]);
  }

  // A pattern with lookaheads: each part is converted together with `rest`, the texts that
  // may follow it to the end of the text, so `(?=X)` keeps those of `rest` that start with
  // a match of X, `(?!X)` those that do not, and `$` the empty one. `^` stays where a
  // top-level alternative starts (before or among the lookaheads it starts with).
  lookaheadPattern(ast: AST.Pattern, search: boolean): ByteRegex {
    const anything = this.#anything;
    return either(
      ast.alternatives.map((alt) => {
        // A `^` among the lookaheads an alternative starts with anchors it (they read nothing).
        const lead = alt.elements.findIndex((e) => !(e.type === 'Assertion' && (e.kind === 'start' || e.kind === 'lookahead')));
        const leading = lead < 0 ? alt.elements : alt.elements.slice(0, lead);
        const anchored = leading.some((e) => e.type === 'Assertion' && e.kind === 'start');
        const elements = alt.elements.filter((e, i) => !(i < leading.length && e.type === 'Assertion' && e.kind === 'start'));
        const before = search && !anchored ? anything : rx.empty;
        const rest = search ? anything : rx.empty;
        const boundary = elements.map(isWordAssertion).lastIndexOf(true);
        // (Leading lookaheads read the text from where the alternative starts: one that bounds
        // its length bounds every part of the alternative.)
        return this.#bounded(
          leading.filter((e) => lookaheadBound(e) < Infinity),
          () => (boundary >= 0 ? this.#wordBoundary(elements, boundary, before, rest) : cat([before, this.#followedBy(elements, rest)])),
        );
      }),
    );
  }

  // `convert` run with the text bounded by the lookaheads in `bounding` too (see
  // `lookaheadBound`), each of which is read with the bound before: a lookahead may not relax
  // the very count that bounds the text.
  #bounded<T>(bounding: readonly AST.Element[], convert: () => T): T {
    for (const node of bounding) this.#ownBound.set(node, this.#longest);
    return this.#within(
      bounding.reduce((most, node) => Math.min(most, lookaheadBound(node)), this.#longest),
      convert,
    );
  }

  // `convert` run with texts of `longest` characters at most.
  #within<T>(longest: number, convert: () => T): T {
    const outer = this.#longest;
    this.#longest = longest;
    try {
      return convert();
    } finally {
      this.#longest = outer;
    }
  }

  // A count's upper bound, or Infinity where no text of `#longest` characters could reach it
  // (and it is above the lower one: a fixed count gains nothing): each copy reads `fewest`
  // characters at least, so at most ⌊longest / fewest⌋ copies fit.
  #countMax(node: AST.Quantifier): number {
    const fewest = charSpan(node.element)[0];
    return fewest > 0 && node.max > node.min && node.max >= Math.floor(this.#longest / fewest) ? Infinity : node.max;
  }

  // Whether the lower count fits in `#longest` characters (else no text there matches it).
  #countFits(node: AST.Quantifier): boolean {
    return node.min * charSpan(node.element)[0] <= this.#longest;
  }

  // An alternative with a word boundary `\b` (or `\B`) among its top-level elements, at
  // `index` (the last of them), after the text `before` and followed by a text of `rest`: the
  // texts before it (ending in a word character, another, or at the text's start) meet the
  // texts after it (starting with one, another, or at the end) where the assertion holds.
  // Before it, only more word boundaries, each with a nonempty text to its next one (then
  // what it reads lies before this one), and no other assertion (a lookahead would read
  // across it).
  #wordBoundary(elements: readonly AST.Element[], index: number, before: ByteRegex, rest: ByteRegex): ByteRegex {
    const node = elements[index] as AST.WordBoundaryAssertion;
    const prefix = elements.slice(0, index);
    const other = prefix.find((e) => !isWordAssertion(e) && hasAssertion(e, () => true));
    if (other !== undefined) throw this.#unsupported(other, `an assertion before a word boundary (${other.raw}) is not supported`);
    const previous = prefix.map(isWordAssertion).lastIndexOf(true);
    if (previous >= 0 && isNullable(cat(prefix.slice(previous + 1).map((e) => this.element(e)))))
      throw this.#unsupported(node, `word boundaries with nothing certain between them (${node.raw}) are not supported`);
    const anything = this.#anything;
    const wordSet = this.#fold(WORD);
    const word = this.encodeChars(wordSet);
    const notWord = this.encodeChars(complement(wordSet));
    const text = previous >= 0 ? this.#wordBoundary(prefix, previous, before, rx.empty) : cat([before, ...prefix.map((e) => this.element(e))]);
    const after = this.#followedBy(elements.slice(index + 1), rest);
    const endsWord = rx.and([text, cat([anything, word])]);
    const endsOther = rx.and([text, either([cat([anything, notWord]), rx.empty])]);
    const startsWord = rx.and([after, cat([word, anything])]);
    const startsOther = rx.and([after, either([cat([notWord, anything]), rx.empty])]);
    return node.negate
      ? either([cat([endsWord, startsWord]), cat([endsOther, startsOther])])
      : either([cat([endsWord, startsOther]), cat([endsOther, startsWord])]);
  }

  // The texts `elements` match followed by a text of `rest` (their lookaheads and `$` read it).
  #followedBy(elements: readonly AST.Element[], rest: ByteRegex): ByteRegex {
    for (let i = elements.length - 1; i >= 0; i--) {
      const e = elements[i]!;
      if (hasAnchorOf(e, 'start')) throw this.#unsupported(e, `the anchor ^ beside a lookahead is only supported at the start of the pattern`);
      rest = looksAhead(e) ? this.#elementFollowedBy(e, rest) : cat([this.element(e), rest]);
    }
    return rest;
  }

  #elementFollowedBy(node: AST.Element, rest: ByteRegex): ByteRegex {
    const anything = this.#anything;
    switch (node.type) {
      case 'Assertion':
        if (node.kind === 'end') return emptyOf(rest);
        if (node.kind === 'lookahead') {
          const ahead = this.#within(this.#ownBound.get(node) ?? this.#longest, () =>
            either(node.alternatives.map((a) => this.#followedBy(a.elements, anything))),
          );
          return rx.and([rest, node.negate ? rx.not(ahead) : ahead]);
        }
        return this.element(node); // throws: lookbehind, word boundaries
      case 'Group':
      case 'CapturingGroup':
        return this.#modified(node, () => either(node.alternatives.map((a) => this.#followedBy(a.elements, rest))));
      case 'Quantifier': {
        // Each copy reads the text after it, so copies multiply what follows: few are expanded;
        // with no upper count, iterations that start with lookaheads make one automaton.
        // (A large count the text's bound never reaches is read as unbounded.)
        const max = node.max > MAX_LOOKAHEAD_COPIES ? this.#countMax(node) : node.max;
        const unbounded = max === Infinity && node.min <= MAX_LOOKAHEAD_COPIES ? this.#temperedStar(node.element, rest) : undefined;
        if (unbounded !== undefined) rest = unbounded;
        else if (max === Infinity || max > MAX_LOOKAHEAD_COPIES)
          throw this.#unsupported(node, `a count above ${MAX_LOOKAHEAD_COPIES} of a group with a lookahead or $ inside (${node.raw}) is not supported`);
        for (let i = max; i > node.min && unbounded === undefined; i--) rest = either([rest, this.#elementFollowedBy(node.element, rest)]);
        for (let i = 0; i < node.min; i++) rest = this.#elementFollowedBy(node.element, rest);
        return rest;
      }
      default:
        return cat([this.element(node), rest]);
    }
  }

  // `element*` followed by a text of `rest`, when each iteration is lookaheads and then text
  // with none (`(?!mode).`): see `temperedStar`. Undefined for other shapes.
  #temperedStar(element: AST.QuantifiableElement, rest: ByteRegex): ByteRegex | undefined {
    if ((element.type !== 'Group' && element.type !== 'CapturingGroup') || element.alternatives.length !== 1) return undefined;
    return this.#modified(element, () => {
      const elements = element.alternatives[0]!.elements;
      const split = elements.findIndex((e) => !(e.type === 'Assertion' && e.kind === 'lookahead'));
      const body = split < 0 ? [] : elements.slice(split);
      if (split <= 0 || body.some((e) => looksAhead(e) || hasAnchor(e))) return undefined;
      const anything = this.#anything;
      const conditions = elements.slice(0, split).map((e) => {
        const lookahead = e as AST.LookaheadAssertion;
        const ahead = either(lookahead.alternatives.map((a) => this.#followedBy(a.elements, anything)));
        return lookahead.negate ? rx.not(ahead) : ahead;
      });
      const automaton = temperedStar(cat(body.map((e) => this.element(e))), rx.and(conditions), rest, MAX_TEMPERED_STATES);
      if (automaton === null)
        throw this.#unsupported(element, `a repeated group with a lookahead whose automaton needs more than ${MAX_TEMPERED_STATES} states is not supported`);
      return rx.automaton(automaton);
    });
  }

  #anchored(node: AST.Pattern | AST.Element | AST.Alternative): AnchoredParts {
    if (node.type !== 'Pattern' && !hasAnchor(node)) return unanchored(this.element(node));
    switch (node.type) {
      case 'Pattern':
      case 'Group':
      case 'CapturingGroup': {
        const alternatives = this.#modified(node, () => node.alternatives.map((a) => this.#anchored(a)));
        const pick = (kind: (typeof KINDS)[number]): ByteRegex => either(alternatives.map((a) => a[kind]));
        return { free: pick('free'), start: pick('start'), end: pick('end'), both: pick('both') };
      }
      case 'Alternative':
        return node.elements.reduce((acc, e) => concatAnchored(acc, this.#anchored(e)), unanchored(rx.empty));
      case 'Assertion':
        return node.kind === 'start' ? { ...unanchored(rx.nothing), start: rx.empty } : { ...unanchored(rx.nothing), end: rx.empty };
      case 'Quantifier': {
        const item = this.#anchored(node.element);
        if (node.max !== Infinity && node.max > MAX_ANCHORED_COPIES)
          throw this.#unsupported(node, `a count above ${MAX_ANCHORED_COPIES} of a group with an anchor inside (${node.raw}) is not supported`);
        const optional = { ...item, free: either([item.free, rx.empty]) };
        let parts = unanchored(rx.empty);
        for (let i = 0; i < node.min; i++) parts = concatAnchored(parts, item);
        if (node.max === Infinity) return concatAnchored(parts, starAnchored(item));
        for (let i = node.min; i < node.max; i++) parts = concatAnchored(parts, optional);
        return parts;
      }
      default:
        return unanchored(this.element(node));
    }
  }

  element(node: AST.Element | AST.Alternative): ByteRegex {
    switch (node.type) {
      case 'Alternative':
        return rx.seq(node.elements.map((e) => this.element(e)));
      case 'Character':
        return this.encodeChars(this.#fold([node.value, node.value]));
      case 'CharacterSet':
        return this.encodeChars(this.#characterSet(node));
      case 'CharacterClass':
      case 'ExpressionCharacterClass':
        return this.encodeChars(this.#classSet(node));
      case 'Group':
      case 'CapturingGroup':
        return this.#modified(node, () => rx.alt(node.alternatives.map((a) => this.element(a))));
      case 'Quantifier':
        if (this.python && this.mode === 'token' && !node.greedy)
          throw this.#unsupported(
            node,
            `a lazy quantifier (${node.raw}) in a terminal: Python takes its first match, a lexeme the longest (write what it stops at, as [^"]* for ".*?")`,
          );
        return this.#countFits(node) ? rx.repeat(this.element(node.element), node.min, this.#countMax(node)) : rx.nothing;
      case 'Assertion':
        if (node.kind !== 'start' && node.kind !== 'end') throw this.#unsupported(node, `${node.kind} assertions (${node.raw}) are not supported`);
        throw this.#unsupported(
          node,
          this.mode === 'token'
            ? `the anchor ${node.raw} is not supported in a terminal (it would refer to the whole text)`
            : `the anchor ${node.raw} is only supported at the start or end of the pattern`,
        );
      case 'Backreference':
        throw this.#unsupported(node, `backreferences (${node.raw}) are not supported`);
      default:
        throw this.#unsupported(node as AST.Node, `${(node as AST.Node).type} is not supported`);
    }
  }

  // A class escape's characters, closed under case with the `i` flag. ECMAScript closes
  // `\W` and `\P{…}` after negating them, except that `\w` with `iu` is itself widened (to
  // `ſ` and the Kelvin sign) before `\W` negates it, and the `v` flag folds before negating.
  // Python tests its class escapes on the character as it is (`\w` with `i` is `\w`: U+0345,
  // which folds to ι, is no word character).
  #characterSet(node: AST.CharacterSet): CodePointSet {
    switch (node.kind) {
      case 'any':
        return this.#fold(this.#dotAll ? ANY : complement(this.python ? NEWLINE : LINE_TERMINATORS));
      case 'digit': {
        if (this.python) return node.negate ? complement(PYTHON_DIGIT()) : PYTHON_DIGIT();
        return this.#fold(node.negate ? complement(DIGIT) : DIGIT);
      }
      case 'word': {
        const word = this.python ? PYTHON_WORD() : this.#fold(WORD);
        return node.negate ? complement(word) : word;
      }
      case 'space': {
        if (this.python) return node.negate ? complement(PYTHON_SPACE) : PYTHON_SPACE;
        return this.#fold(node.negate ? complement(SPACE) : SPACE);
      }
      case 'property': {
        if (node.strings) throw this.#unsupported(node, `properties of strings (${node.raw}) are not supported`);
        const name = node.value === null ? node.key : `${node.key}=${node.value}`;
        const set = unicodeProperty(name);
        if (set === null) throw this.#unsupported(node, `unknown Unicode property ${node.raw}`);
        if (!node.negate) return this.#fold(set);
        return this.#unicodeSets ? complement(this.#fold(set)) : this.#fold(complement(set));
      }
    }
  }

  #classSet(
    node: AST.CharacterClass | AST.ExpressionCharacterClass | AST.ClassIntersection | AST.ClassSubtraction | AST.CharacterClassElement | AST.ClassSetOperand,
  ): CodePointSet {
    switch (node.type) {
      case 'CharacterClass': {
        const members = union(...node.elements.map((e) => this.#classSet(e)));
        return node.negate ? complement(members) : members;
      }
      case 'ExpressionCharacterClass': {
        const members = this.#classSet(node.expression);
        return node.negate ? complement(members) : members;
      }
      case 'ClassIntersection':
        return intersect(this.#classSet(node.left), this.#classSet(node.right));
      case 'ClassSubtraction':
        return subtract(this.#classSet(node.left), this.#classSet(node.right));
      case 'Character':
        return this.#fold([node.value, node.value]);
      case 'CharacterClassRange':
        return this.#fold([node.min.value, node.max.value]);
      case 'CharacterSet':
        return this.#characterSet(node);
      default:
        throw this.#unsupported(node, `${node.type} (${node.raw}) is not supported`);
    }
  }

  // `convert` run with a group's modifiers (`(?i:…)`, `(?-s:…)`) in force: `i` and `s` as the
  // flags; `m` changes only what `^` and `$` mean, refused beside them.
  #modified<T>(node: AST.Pattern | AST.Group | AST.CapturingGroup, convert: () => T): T {
    const modifiers = node.type === 'Group' ? node.modifiers : null;
    if (modifiers === null) return convert();
    const { add, remove } = modifiers;
    if ((add.multiline || remove?.multiline === true) && /[$^]/.test(node.raw))
      throw this.#unsupported(modifiers, `the m modifier beside an anchor (${node.raw}) is not supported`);
    const [folding, dotAll] = [this.#folding, this.#dotAll];
    if (add.ignoreCase) this.#folding = this.#foldingWhenOn;
    if (remove?.ignoreCase === true) this.#folding = null;
    if (add.dotAll) this.#dotAll = true;
    if (remove?.dotAll === true) this.#dotAll = false;
    try {
      return convert();
    } finally {
      [this.#folding, this.#dotAll] = [folding, dotAll];
    }
  }

  #fold(set: CodePointSet): CodePointSet {
    return this.#folding === null ? set : caseClosure(set, this.#folding);
  }

  #unsupported(node: AST.Node, message: string): GrammarError {
    const span: Span = { start: this.at(node.start), end: this.at(node.end) };
    return new GrammarError('unsupported', message, span);
  }
}
