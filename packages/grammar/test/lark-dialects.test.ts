// The Lark that people paste: Lark's own spellings and llguidance's extensions, each read
// exactly (checked against an independent oracle) or refused with an `unsupported` error at
// its span.
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { compileGrammar, GrammarError, parseGrammar, recognize } from '../src/index.ts';

const encoder = new TextEncoder();
const larkAccepts = (source: string) => {
  const grammar = compileGrammar(parseGrammar('lark', source));
  return (text: string): boolean => {
    const result = recognize(grammar, encoder.encode(text));
    return result.accepted && result.complete;
  };
};
const failure = (source: string): GrammarError => {
  try {
    compileGrammar(parseGrammar('lark', source));
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error('expected a GrammarError');
};
const spanText = (source: string, error: GrammarError): string => source.slice(error.span!.start, error.span!.end);

// Every string over `alphabet` of at most `maxLength` characters.
function allStrings(alphabet: string, maxLength: number): string[] {
  const out = [''];
  for (let i = 0; i < out.length; i++) if (out[i]!.length < maxLength) for (const c of alphabet) out.push(out[i]! + c);
  return out;
}

describe('# comments', () => {
  it('run to the end of the line, but not inside strings, regexes or %json', () => {
    const accepts = larkAccepts('# a comment\nstart: "#" /#[a-z]/ b # another\nb: %json {"const": "#"}\n');
    expect(accepts('##x"#"')).toBe(true);
    expect(accepts('##x')).toBe(false);
    expect(accepts('#')).toBe(false);
  });

  it("Lark's own lark.lark reads past its comments, to the regex lookahead it is refused for", () => {
    const larkLark = [
      "# Lark grammar of Lark's syntax",
      '# Note: Lark is not bootstrapped',
      'start: (_item? _NL)* _item?',
      '_item: rule | token',
      'rule: RULE "{" RULE "}"',
      'token: TOKEN',
      'OP: /[+*]|[?](?![a-z])/',
      'RULE: /!?[_?]?[a-z][_a-z0-9]*/',
      'TOKEN: /_?[A-Z][_A-Z0-9]*/',
      '_NL: /(\\r?\\n)+\\s*/',
      'COMMENT: /\\s*/ "//" /[^\\n]/* | /\\s*/ "#" /[^\\n]/*',
      '%ignore COMMENT',
      'x: OP',
    ].join('\n');
    const error = failure(larkLark);
    expect(error.code).toBe('unsupported');
    expect(spanText(larkLark, error)).toBe('(?![a-z])');
  });
});

describe('a regex over several lines, as Lark reads it', () => {
  it('a verbose one drops its comments and line breaks', () => {
    const verbose = larkAccepts('start: /a # the first letter\n  b/x\n');
    expect(['ab', 'a b', 'a\nb'].map(verbose)).toEqual([true, false, false]);
  });

  it('any other, or one never closed, is unterminated at its first line break', () => {
    for (const source of ['start: /a\nb/\n', 'start: /a\nb\n', 'start: /[0-9]+ // digits\nB: "b"\n']) {
      expect(failure(source), source).toMatchObject({ code: 'syntax', message: expect.stringContaining('unterminated regex') });
    }
    expect(failure('start: /a\nb\n').span).toEqual({ start: 7, end: 9 });
  });
});

describe('{m,n} counts (llguidance) mean what ~ m..n means', () => {
  const forms = [
    ['{2}', '~ 2'],
    ['{1,3}', '~ 1..3'],
    ['{,2}', '~ 0..2'],
    ['{0}', '~ 0'],
  ] as const;
  it.each(forms)('"a"%s "b" is "a" %s "b"', (count, tilde) => {
    const braces = larkAccepts(`start: "a"${count} "b"\n`);
    const spaced = larkAccepts(`start: A\nA: "a" ${count} "b"\n`);
    const reference = larkAccepts(`start: "a" ${tilde} "b"\n`);
    for (const text of allStrings('ab', 5)) {
      expect(braces(text), text).toBe(reference(text));
      expect(spaced(text), text).toBe(reference(text));
    }
  });

  it('{m,} is unbounded, and holds on groups and rules', () => {
    const accepts = larkAccepts('start: ("a" x){2,}\nx: "b"\n');
    expect(['abab', 'ababab', 'abababababab'].map(accepts)).toEqual([true, true, true]);
    expect(['', 'ab', 'aba'].map(accepts)).toEqual([false, false, false]);
  });

  it('a reversed count is an invalid_range at its span', () => {
    const source = 'start: "a"{3,1}\n';
    const error = failure(source);
    expect(error.code).toBe('invalid_range');
    expect(spanText(source, error)).toBe('{3,1}');
  });
});

describe('names with "-" (llguidance)', () => {
  it('a-b is one name; a name never ends in "-", so a->b is an alias', () => {
    const accepts = larkAccepts('start: key-value KEY-2\nkey-value: "k" -> pair\nKEY-2: "v"\n');
    expect(accepts('kv')).toBe(true);
    expect(accepts('k')).toBe(false);
    // Not "a" minus "b": with a and b defined but not a-b, a-b is unknown.
    const source = 'start: a-b\na: "x"\nb: "y"\n';
    const error = failure(source);
    expect(error.code).toBe('unknown_rule');
    expect(spanText(source, error)).toBe('a-b');
  });
});

describe('& and ~ in terminals (llguidance)', () => {
  const oracles = [
    // & binds looser than a sequence, tighter than |.
    ['A: /[abd]+/ & ~/.*bad.*/', (s: string) => /^[abd]+$/.test(s) && !s.includes('bad')],
    ['A: "a" /[ab]*/ & /[ab]*b/ | "d"', (s: string) => (/^a[ab]*$/.test(s) && s.endsWith('b')) || s === 'd'],
    // ~ binds tighter than + and complements over all strings (the empty one included).
    ['A: ~"a"+ "b"', (s: string) => s.endsWith('b') && s.slice(0, -1) !== 'a'],
    ['A: "d" ~("a" | "b")', (s: string) => s.startsWith('d') && s !== 'da' && s !== 'db'],
    ['A: ~~/a+/', (s: string) => /^a+$/.test(s) && s !== ''],
    // `X ~ n` stays a count; `X ~Y` is X then the complement of Y.
    ['A: "a" ~ 2 ~"b"', (s: string) => s.startsWith('aa') && s !== 'aab'],
  ] as const;
  it.each(oracles)('%s', (definition, oracle) => {
    const accepts = larkAccepts(`start: A\n${definition}\n`);
    for (const text of allStrings('abd', 5)) expect(accepts(text), text).toBe(oracle(text));
  });

  it('the complement may match bytes that are no UTF-8, as llguidance says', () => {
    const grammar = compileGrammar(parseGrammar('lark', 'start: A\nA: ~"a"\n'));
    const result = recognize(grammar, new Uint8Array([0xff, 0xfe]));
    expect(result.accepted && result.complete).toBe(true);
  });

  it.each(['start: A\nA: "b" | & "ba"\n', 'start: A\nA: "b" &\n', 'start: A\nA: "b" & | "c"\n'])('& with nothing on a side is a syntax error: %j', (source) => {
    expect(failure(source).code).toBe('syntax');
  });

  it.each(['start: /a/ & /b/\n', 'start: ~"a"\n', 'start: x & "a"\nx: "a"\n'])('is refused in a rule: %j', (source) => {
    const error = failure(source);
    expect(error.code).toBe('unsupported');
    expect(spanText(source, error)).toMatch(/^[~/x]/);
  });
});

describe('templates (Lark)', () => {
  it('expand their arguments, one rule per distinct list', () => {
    const accepts = larkAccepts('start: _separated{item, ","} ";" _separated{_separated{"x", "-"}, ","}\n_separated{x, sep}: x (sep x)*\nitem: "a" | "b"\n');
    expect(['a;x', 'a,b,a;x-x,x', 'b;x,x-x-x'].map(accepts)).toEqual([true, true, true]);
    expect(['a,;x', ';x', 'a;x-', 'a;x,,x', 'a,b'].map(accepts)).toEqual([false, false, false, false, false]);
  });

  it('may recurse with the same arguments', () => {
    const accepts = larkAccepts('start: nest{"(", ")"}\nnest{open, close}: open nest{open, close}? close\n');
    expect(['()', '(())', '((()))'].map(accepts)).toEqual([true, true, true]);
    expect(['', '(', '(()', '())'].map(accepts)).toEqual([false, false, false, false]);
  });

  it.each([
    ['start: grow{"a"}\ngrow{x}: x grow{(x x)}?\n', 'unsupported', 'grow{(x x)}'],
    ['start: t\nt{x}: x\n', 'syntax', 't'],
    ['start: t{"a", "b"}\nt{x}: x\n', 'syntax', 't{"a", "b"}'],
    ['start: A\nA: t{"a"}\nt{x}: x\n', 'syntax', 't{"a"}'],
    ['start: A\nA{X}: X\n', 'unsupported', '{'],
    ['start: t{"a"}\n', 'unknown_rule', 't{"a"}'],
  ] as const)('%j → %s', (source, code, text) => {
    const error = failure(source);
    expect(error.code).toBe(code);
    expect(spanText(source, error)).toBe(text);
  });
});

describe('%json (llguidance): a JSON Schema as a rule', () => {
  const schema = {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 5 }, tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2 } },
    required: ['name'],
    additionalProperties: false,
  };
  const instances = [
    { name: 'x' },
    { name: 'x', tags: ['a', 'b'] },
    { tags: [], name: '' },
    { name: 'toolong' },
    { name: 'x', tags: ['c'] },
    { name: 'x', tags: ['a', 'a', 'a'] },
    { name: 1 },
    {},
    { name: 'x', other: 1 },
    [],
    'x',
  ];

  it('accepts exactly what ajv validates, between the rule around it', () => {
    const validate = new Ajv({ strict: false }).compile(schema);
    const accepts = larkAccepts(`start: "<call>" fn "</call>"\nfn: %json ${JSON.stringify(schema, null, 2)}\n`);
    for (const instance of instances) {
      for (const text of [JSON.stringify(instance), JSON.stringify(instance, null, 1)]) {
        expect(accepts(`<call>${text}</call>`), text).toBe(validate(instance));
      }
    }
    expect(accepts('<call>{"name": "x"}')).toBe(false);
  });

  it('an integer may be written 1.0 (draft 6 on), so it takes the "." after it; with integerFractions: false (as generation reads it) it ends before', () => {
    const source = 'start: "values=" value (";" value)* "."\nvalue: %json {"type": "integer"}\n';
    const read = (options: Parameters<typeof parseGrammar>[2]) => {
      const grammar = compileGrammar(parseGrammar('lark', source, options));
      return (text: string): boolean => {
        const result = recognize(grammar, encoder.encode(text));
        return result.accepted && result.complete;
      };
    };
    const validating = read({});
    expect(validating('values=1.0;2.')).toBe(false);
    expect(validating('values=1.0.')).toBe(true);
    expect(validating('values=1.')).toBe(false);
    const generating = read({ schemaOptions: { integerFractions: false } });
    for (const text of ['values=1.', 'values=1;-2;3.']) expect(generating(text), text).toBe(true);
    expect(generating('values=1.0.')).toBe(false);
  });

  it('reads the schema whole: braces, "#" and "//" inside its strings are its own', () => {
    const accepts = larkAccepts('start: %json {"type": "string", "pattern": "^[}#/]+$"} "!"\n');
    expect(accepts('"}#//"!')).toBe(true);
    expect(accepts('"a"!')).toBe(false);
  });

  it.each([
    ['start: %json {"type": "integer"}\n%ignore " "\n', 'unsupported', /%ignore/],
    ['start: %json {"type": "integer", "x-guidance": {"whitespace_flexible": false}}\n', 'unsupported', /x-guidance/],
    ['start: %json {"type": "string", "format": "idn-hostname"}\n', 'unsupported', /idn-hostname/],
    ['start: %json {"type": "integer", "minimum": "x"}\n', 'invalid_schema', /minimum/],
    ['start: %json {"type": "integer",}\n', 'syntax', /JSON/],
    ['start: A\nA: %json {"type": "integer"}\n', 'syntax', /terminals/],
  ] as const)('%j → %s', (source, code, message) => {
    const error = failure(source);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(spanText(source, error)).toMatch(/^(%json )?\{/);
  });
});

describe("llguidance's options are refused, naming them, unless they change nothing", () => {
  it.each([
    ['start: x\nx[lazy]: /.*/\n', 'lazy'],
    ['start: x\nx[stop="\\n"]: /.*/\n', 'stop'],
    ['start: x\nx[capture, suffix="]"]: /.*/\n', 'suffix'],
    ['start: x\nx[max_tokens=5]: /.*/\n', 'max_tokens'],
    ['start: x\nx[temperature=0.5]: /.*/\n', 'temperature'],
    ['%llguidance {"no_forcing": true}\nstart: "a"\n', '%llguidance {"no_forcing": true}'],
    ['start: %regex {"substring_words": "a b"}\n', '%regex'],
    ['start: @sub\n', '@'],
    ['start: <|eot_id|>\n', '<'],
    ['start: perm::0x0\nperm::_: "a"\n', 'perm::'],
    ['start: "a"\nperm::0x0: "a"\n', 'perm::'],
    ['%grammar_options {"allow_invalid_utf8": true}\nstart: "a"\n', '%grammar_options'],
  ])('%j', (source, text) => {
    const error = failure(source);
    expect(error.code).toBe('unsupported');
    expect(spanText(source, error)).toBe(text);
  });

  it('capture and an empty %llguidance {} leave the language as it is', () => {
    const accepts = larkAccepts('%llguidance {}\nstart: x\nx[capture]: /a+/\n');
    expect(accepts('aa')).toBe(true);
    expect(accepts('b')).toBe(false);
  });
});

describe('rule prefixes and the start rule', () => {
  it('!?rule (keep tokens and inline, as Lark writes both) reads as the rule', () => {
    const accepts = larkAccepts('start: "A" bc "D"\n!?bc: "B"? "C"\n');
    expect(accepts('ABCD')).toBe(true);
    expect(accepts('ACD')).toBe(true);
    expect(accepts('ABD')).toBe(false);
  });

  it("! and ? on a terminal, and BNF's ::=, are syntax errors that say so", () => {
    for (const [source, message] of [
      ['start: A\n!A: "a"\n', /modify rules/],
      ['start: A\n?A: "a"\n', /modify rules/],
      ['start::= "a"\n', /::=/],
    ] as const) {
      const error = failure(source);
      expect(error.code, source).toBe('syntax');
      expect(error.message).toMatch(message);
    }
  });

  it('a start rule that is a template says so', () => {
    const source = 'start{x}: x\n';
    const error = failure(source);
    expect(error.code).toBe('no_start_rule');
    expect(error.message).toMatch(/template/);
    expect(spanText(source, error)).toBe('start');
  });
});
