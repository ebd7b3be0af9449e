import { describe, expect, it } from 'vitest';
import {
  compileGrammar,
  GrammarError,
  GrammarLimitError,
  jsonGrammar,
  jsonSchemaGrammar,
  Matcher,
  parseGrammar,
  renderError,
  type GrammarFormat,
} from '../src/index.ts';
import { vocab } from './support/vocabs.ts';

function failure(format: GrammarFormat, source: string): GrammarError {
  try {
    compileGrammar(parseGrammar(format, source));
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error('expected a GrammarError');
}

describe('grammar errors carry a code and the span of the problem', () => {
  it.each([
    ['gbnf', 'root ::= value\n', 'unknown_rule', 'value'],
    ['gbnf', 'root ::= "abc\n', 'syntax', '"abc'],
    ['gbnf', 'root ::= [a-z\n', 'syntax', '[a-z\n'],
    ['gbnf', 'root ::= "a"\nroot ::= "b"\n', 'duplicate_rule', 'root'],
    ['gbnf', 'start ::= "a"\n', 'no_start_rule', ''],
    ['gbnf', 'root ::= "a"{3,1}\n', 'invalid_range', '{3,1}'],
    ['gbnf', 'root ::= [z-a]\n', 'invalid_range', '[z-a'],
    ['gbnf', 'root ::= <think>\n', 'unsupported', '<'],
    ['gbnf', 'root ::= ( "a"\n', 'syntax', ''],
    ['ebnf', 'root ::= "a" | missing\n', 'unknown_rule', 'missing'],
    // XGrammar's lookahead assertion after a rule: refused whole, not a syntax error at "=".
    ['ebnf', 'root ::= a (= "b" [c-d])\na ::= "x"\n', 'unsupported', '(= "b" [c-d])'],
    ['ebnf', 'root ::= "x" ( = "b" | "c" )\n', 'unsupported', '( = "b" | "c" )'],
    ['ebnf', 'root ::= "x" (="b"\n', 'syntax', ''],
    ['lark', 'start: foo\n', 'unknown_rule', 'foo'],
    ['lark', 'start: FOO\n', 'unknown_rule', 'FOO'],
    ['lark', 'start: "a"\n%import common.NOPE\n', 'unsupported', '%import common.NOPE'],
    ['lark', 'start: "a"\n%declare X\n', 'unsupported', '%declare'],
    ['lark', 'start: /a(?=b)/\n', 'unsupported', '(?=b)'],
    ['lark', 'start: A\nA: A "x"\n', 'syntax', 'A'],
    ['regex', 'a(?<=b)', 'unsupported', '(?<=b)'],
    // Unknown escapes and empty sides of "|" are slips, never read as something else.
    ['gbnf', 'root ::= "\\q"\n', 'syntax', '\\q'],
    ['gbnf', 'root ::= [a\\z]\n', 'syntax', '\\z'],
    ['ebnf', "root ::= 'a\\k'\n", 'syntax', '\\k'],
    ['gbnf', 'root ::= "a" |\n', 'syntax', '|'],
    ['gbnf', 'root ::= "a" | | "b"\n', 'syntax', '|'],
    ['ebnf', 'root ::= "a" |\nx ::= "b"\n', 'syntax', '|'],
    ['lark', 'start: "\\q"\n', 'syntax', '\\q'],
    // Lark: rule priorities choose parse trees (refused); flags are honoured or refused.
    ['lark', 'start.1: "a"\n', 'unsupported', 'start'],
    ['lark', 'start: /a/l\n', 'unsupported', 'l'],
    ['lark', 'start: /^a/\n', 'unsupported', '^'],
    ['lark', 'start: /a$/m\n', 'unsupported', '$'],
  ] as const)('%s %j → %s', (format, source, code, text) => {
    const error = failure(format, source);
    expect(error.code).toBe(code);
    if (text !== '') expect(source.slice(error.span!.start, error.span!.end)).toBe(text);
    expect(renderError(source, error)).toMatch(/^at \d+\(\d+\): /);
  });

  it('reports a grammar that matches nothing', () => {
    expect(failure('gbnf', 'root ::= "a" root\n').code).toBe('empty_language');
    // Unproductive alternatives are dropped, the rest still works.
    const grammar = compileGrammar(parseGrammar('gbnf', 'root ::= "a" | "b" loop\nloop ::= "c" loop\n'));
    expect(new Matcher(grammar).commitBytes(new TextEncoder().encode('b'))).toBe(false);
  });

  it('renders line and column of later lines', () => {
    const source = 'root ::= a\na ::= "x" b\n';
    const error = failure('gbnf', source);
    expect(renderError(source, error)).toBe('at 2(11): unknown rule b\n  a ::= "x" b\n            ^');
  });
});

describe('limits are typed errors', () => {
  it('maxNfaStates stops huge automata: a second large count in one intersection is copied', () => {
    // (One the length could reach: 40,000 copies of two characters fit in 100,000.)
    const ir = jsonSchemaGrammar({ type: 'string', pattern: '^(ab|cd){1,40000}$', maxLength: 100_000 }).grammar;
    expect(() => compileGrammar(ir)).toThrow(expect.objectContaining({ code: 'limit_exceeded', limit: 'maxNfaStates' }));
    expect(() => compileGrammar(parseGrammar('regex', '(ab|cd|ef|gh){1,60}'), { maxNfaStates: 100 })).toThrow(
      expect.objectContaining({ limit: 'maxNfaStates', value: 100 }),
    );
    // A count beside a large automaton (a word-count pattern) counts with counted states
    // (counted-states.test.ts); with more counting after it in its lexeme it is refused at
    // compile, not mid-output.
    const words = jsonSchemaGrammar({ type: 'string', maxLength: 500, pattern: '^(?:\\S+\\s+){0,49}\\S+$' }).grammar;
    expect(() => compileGrammar(words)).not.toThrow();
    // Counted alone, a repetition costs its item once, whatever the count.
    expect(() => compileGrammar(parseGrammar('regex', '(ab|cd){1,100000}'), { maxNfaStates: 100 })).not.toThrow();
  });

  it('a lexeme with an intersection is built when first allowed: its maxNfaStates trips then, naming it', () => {
    // A string that is none of some constants (a product with a complement).
    const ir = jsonSchemaGrammar({ type: 'array', items: { type: 'string', not: { enum: ['alpha', 'beta'] } } }).grammar;
    const compiles = (maxNfaStates: number): boolean => {
      try {
        compileGrammar(ir, { maxNfaStates });
        return true;
      } catch (error) {
        if (error instanceof GrammarLimitError) return false;
        throw error;
      }
    };
    // The least budget that compiles: what the lexemes built at compile time take.
    let low = 1;
    let high = 200_000;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compiles(mid)) high = mid;
      else low = mid + 1;
    }
    const matcher = new Matcher(compileGrammar(ir, { maxNfaStates: low }));
    expect(() => matcher.commitBytes(new TextEncoder().encode('["'))).toThrow(
      expect.objectContaining({ limit: 'maxNfaStates', lexeme: expect.objectContaining({ name: 'STRING' }) }),
    );
    // With room for it, the same string is fine.
    expect(new Matcher(compileGrammar(ir)).commitBytes(new TextEncoder().encode('["gamma"]'))).toBe(true);
  });

  it('maxGrammarSymbols stops huge counted repetitions of rules', () => {
    expect(() => compileGrammar(parseGrammar('gbnf', 'root ::= x{1,100000}\nx ::= "a" | "b"\n'), { maxGrammarSymbols: 50_000 })).toThrow(GrammarLimitError);
  });

  it('maxParserItems stops very ambiguous steps', () => {
    const grammar = compileGrammar(parseGrammar('gbnf', 'root ::= x*\nx ::= "a" | "a" "a" | x x\n'), { maxParserItems: 50 });
    const matcher = new Matcher(grammar);
    expect(() => matcher.commitBytes(new TextEncoder().encode('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'))).toThrow(expect.objectContaining({ limit: 'maxParserItems' }));
  });

  it('maxLexerStates bounds the lazily built lexer', () => {
    const grammar = compileGrammar(parseGrammar('regex', '[a-z]{0,20}x[a-z]{0,20}'), { maxLexerStates: 10 });
    expect(() => new Matcher(grammar).commitBytes(new TextEncoder().encode('abcdefghijklmnop'))).toThrow(expect.objectContaining({ limit: 'maxLexerStates' }));
  });

  it('maxMaskMs bounds one mask computation', () => {
    const matcher = new Matcher(compileGrammar(jsonGrammar(), { maxMaskMs: 0 }), vocab('llama3.1'));
    matcher.commitBytes(new TextEncoder().encode('["'));
    expect(() => matcher.computeMaskBitset()).toThrow(expect.objectContaining({ limit: 'maxMaskMs' }));
    // The matcher is unchanged and usable after the error.
    expect(matcher.commitBytes(new TextEncoder().encode('a"]'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);
  });
});
