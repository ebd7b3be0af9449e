// The regex front-end against the JavaScript regex engine: random strings over an alphabet
// that hits each pattern's edges must be accepted by the grammar iff RegExp matches fully.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileGrammar,
  compileRegexGrammar,
  GrammarError,
  recognize,
  regexToByteRegex,
  renderError,
  rx,
  GrammarBuilder,
  expr,
  normalizeRanges,
  parseGrammar,
  type CompiledGrammar,
} from '../src/index.ts';
import { lexemeGrammar } from './support/twin-grammars.ts';

const encoder = new TextEncoder();
const fullMatch = (pattern: string, flags: string): ((s: string) => boolean) => {
  const re = new RegExp(`^(?:${pattern})$`, flags.includes('u') || flags.includes('v') ? flags : flags + 'u');
  return (s) => re.test(s);
};

// A pattern as the one lexeme of a grammar, in `mode` (u flag); null when it matches nothing.
function patternGrammar(pattern: string, mode: 'search' | 'match'): CompiledGrammar | null {
  try {
    return lexemeGrammar(regexToByteRegex(pattern, { mode, flags: 'u' }));
  } catch (error) {
    if (error instanceof GrammarError && error.code === 'empty_language') return null;
    throw error;
  }
}

const patterns: [string, string, string][] = [
  // pattern, flags, alphabet
  ['a*b+c?', '', 'abcx'],
  ['(ab|a)(bc|c)*', '', 'abc'],
  ['[a-c]{2,4}', '', 'abcd'],
  ['x{3}', '', 'xy'],
  ['x{2,}y', '', 'xy'],
  ['\\d+(\\.\\d{1,2})?', '', '0123456789.a'],
  ['[^a-z]+', '', 'az09 é'],
  ['\\w+\\s\\w+', '', 'ab_9 \t\n-'],
  ['.+', '', 'ab\nc\r'],
  ['.+', 's', 'ab\nc\r'],
  ['[à-ÿ]+', '', 'aàéÿ\u0100'],
  ['[\\u4e00-\\u9fff]{1,3}', '', '中文字a'],
  ['[😀-🙏]+', 'u', '🙂😀a🚀'],
  ['\\p{L}+', 'u', 'aé中1 Σ'],
  ['\\P{L}', 'u', 'a1 é'],
  ['[\\p{Lu}\\d]+', 'u', 'AaÉé12'],
  ['hello', 'i', 'hHeElLoO'],
  ['[a-f]+', 'i', 'aAfFgG'],
  ['(?:foo|bar)+baz', '', 'fobarz'],
  ['[\\p{L}--[a-z]]+', 'v', 'aAéz'],
  ['a|', '', 'ab'],
  ['(ab)*', '', 'ab'],
  ['(a?b?)+c', '', 'abc'],
  ['[\\s\\S]', '', 'a \n'],
];

describe('regex front-end matches the JavaScript engine', () => {
  it.each(patterns)('/%s/%s', (pattern, flags, alphabet) => {
    const grammar = compileGrammar(compileRegexGrammar(pattern, { flags }));
    const matches = fullMatch(pattern, flags);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }), (chars) => {
        const s = chars.join('');
        const result = recognize(grammar, encoder.encode(s));
        expect(result.accepted && result.complete, JSON.stringify(s)).toBe(matches(s));
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  // Every character that has case variants (and a few that do not), one at a time: the `i`
  // flag folds members before a class is negated, in each of ECMAScript's three modes.
  it.each([
    ['[^kσ]', 'i'],
    ['[^kσ]', 'iu'],
    ['[^a-c\\u0130]', 'iv'],
    ['[^\\W]', 'iu'],
    ['\\W', 'i'],
    ['\\W', 'iu'],
    ['\\P{Lu}', 'iu'],
    ['\\P{Lu}', 'iv'],
    ['[^\\P{Ll}]', 'iu'],
    ['[\\p{L}--[a-zß]]', 'iv'],
    ['[^ǅσ\\u1fd3ﬅ]', 'iu'],
    ['[ǅσ\\u1fd3ﬅ]', 'i'],
  ])('/%s/%s agrees with RegExp on every cased character', (pattern, flags) => {
    const grammar = compileGrammar(compileRegexGrammar(pattern, { flags }));
    const engine = new RegExp(`^(?:${pattern})$`, flags);
    const cased = new RegExp('^[\\p{Cased}\\p{Changes_When_Casefolded}\\p{Changes_When_Casemapped}]$', 'u');
    let checked = 0;
    // Without u or v, ECMAScript reads astral characters as two code units (Sieve as one).
    const last = /[uv]/.test(flags) ? 0x1ffff : 0xffff;
    for (let cp = 0; cp <= last; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const s = String.fromCodePoint(cp);
      if (cp > 0x7f && !cased.test(s)) continue;
      const result = recognize(grammar, encoder.encode(s));
      expect(result.accepted && result.complete, `U+${cp.toString(16)} ${s}`).toBe(engine.test(s));
      checked++;
    }
    expect(checked).toBeGreaterThan(2000);
  });

  it('search mode (JSON Schema pattern) matches anywhere unless anchored', () => {
    const search = (pattern: string, s: string): boolean => {
      const r = recognize(patternGrammar(pattern, 'search')!, encoder.encode(s));
      return r.accepted && r.complete;
    };
    for (const [pattern, s] of [
      ['ab', 'xxabyy'],
      ['^ab', 'abyy'],
      ['ab$', 'xxab'],
      ['^a|b$', 'axx'],
      ['^a|b$', 'xxb'],
    ] as const) {
      expect(search(pattern, s), `${pattern} ${s}`).toBe(new RegExp(pattern, 'u').test(s));
    }
    for (const [pattern, s] of [
      ['^ab', 'xab'],
      ['ab$', 'abx'],
      ['^ab$', 'abab'],
    ] as const)
      expect(search(pattern, s)).toBe(false);
  });
});

// Random strings over `alphabet` are accepted in search mode iff RegExp finds the pattern,
// in match mode iff it matches whole; some are matched.
function expectLikeRegExp(pattern: string, alphabet: string, seed: number): void {
  const search = patternGrammar(pattern, 'search');
  const match = patternGrammar(pattern, 'match');
  const searchRe = new RegExp(pattern, 'u');
  const matchRe = fullMatch(pattern, 'u');
  const accepts = (grammar: CompiledGrammar | null, bytes: Uint8Array): boolean => {
    if (grammar === null) return false;
    const r = recognize(grammar, bytes);
    return r.accepted && r.complete;
  };
  let matched = 0;
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 7 }), (chars) => {
      const s = chars.join('');
      const bytes = encoder.encode(s);
      expect(accepts(search, bytes), `search ${JSON.stringify(s)}`).toBe(searchRe.test(s));
      expect(accepts(match, bytes), `match ${JSON.stringify(s)}`).toBe(matchRe(s));
      if (searchRe.test(s)) matched++;
    }),
    { numRuns: 400, seed },
  );
  expect(matched).toBeGreaterThan(0);
}

describe('anchors inside a pattern hold only at the text’s ends', () => {
  // Real schemas' patterns (`^$|(^…$)`, `($|\/)`, `(^Hpt_|^Int_|_Armour_)`) and corners: an
  // anchor after text, inside a repeated group, before a `^`.
  const anchored: [string, string][] = [
    ['^$|(^(?:\\S+\\s+){0,3}\\S+$)', 'ab -'],
    ['(^[a-c]+$)', 'abcx'],
    ['^([^,]|$)', 'a,'],
    ['(^Hp_|^In_|_Ar_)', 'HpIn_Arx'],
    ['(^$)|(^[a-f0-9]{2}-[a-f0-9]{2}$)', 'af9-g'],
    ['^\\d+-\\d+|^\\d+$', '12-a'],
    ['^(\\/?((\\.{2})|([a-z0-9\\-]*))($|\\/))*$', '/.a-'],
    ['^$[a-z$_]*$', 'a$_'],
    ['(a|^)b', 'abx'],
    ['a($|b)c', 'abc'],
    ['(^a|b)*$', 'abx'],
    ['(x$)*', 'xy'],
    ['(^|,)a(,|$)', 'a,b'],
    ['(^)+a', 'ab'],
    ['($)?a', 'ab'],
    ['(^a$|b){2,3}', 'ab'],
    ['x(^|$)', 'xy'],
  ];
  it.each(anchored)('/%s/ over %s, in search and in match mode', (pattern, alphabet) => expectLikeRegExp(pattern, alphabet, 5));

  it('an anchor no text can satisfy leaves nothing to match', () => {
    for (const pattern of ['a^b', 'a$b'])
      for (const mode of ['search', 'match'] as const) expect(patternGrammar(pattern, mode), `${pattern} ${mode}`).toBeNull();
  });
});

describe('lookaheads read the rest of the text', () => {
  // Real schemas' patterns (a reserved prefix, a length check, a reserved name) and corners:
  // a lookahead in the middle, inside a group, with `$` inside, repeated, and several.
  const ahead: [string, string][] = [
    ['^(?!org\\.b)([a-z_]+\\.)*[a-z_]+$', 'orgb._x'],
    ['^(?=.{1,5}$)(a+\\.?)+$', 'a.b'],
    ['^(?!pattern$).*$', 'patern'],
    ['^(?!@@)', '@a'],
    ['a(?=b)', 'abc'],
    ['a(?!b)\\w', 'abc'],
    ['(x(?=y)|z){1,3}', 'xyz'],
    ['(?!a|bc)..', 'abc'],
    ['^((?!ab).){0,4}$', 'abc'],
    ['(?=a)(?=.b)..c', 'abc'],
    ['^\\d+(?![0-9]*$)', '1a2'],
    // Repeated with no upper count, iterations that start with lookaheads (tempered tokens).
    ['^((?!mode)(?!Mode).)*$', 'moMde'],
    ['((?!ab).)*', 'abc'],
    ['((?=[ab])(?!ba)[a-c])+c', 'abc'],
    ['x((?!y$).)*', 'xyz'],
    ['((?=a|bc).)*b', 'abc'],
    // `^` among the leading lookaheads still anchors the alternative.
    ['^(?!.*c)^(.*[^.]+.*)$', 'ac.'],
    ['(?!b)^a|b', 'ab'],
    // A word boundary among an alternative's top-level elements.
    ['a\\b', 'ab -'],
    ['\\b\\w+\\b', 'ab -'],
    ['^x[a-c]{1,3}\\b([a-c.]*)$', 'xab.c'],
    ['a\\B.', 'ab -'],
    ['(?:a|-)\\b(?=b|-)', 'ab-'],
    ['\\bé', 'éa -'],
  ];
  it.each(ahead)('/%s/ over %s, in search and in match mode', (pattern, alphabet) => expectLikeRegExp(pattern, alphabet, 7));

  it('lookbehind, word boundaries inside groups or after another assertion, ^ beside a lookahead, many copies of one and lookaheads not at the start of a repeated group stay unsupported', () => {
    for (const pattern of ['(?<=a)b', '(a\\b)+', 'a\\b\\bb', '\\ba*\\b', '(?=a)a\\b', 'a^(?=b)', 'a(?=b)^b', '((?=a)a){5}', '((?=a)a|b)*', '(a(?=b))*'])
      expect(() => regexToByteRegex(pattern, { mode: 'search' }), pattern).toThrow(expect.objectContaining({ code: 'unsupported' }));
  });
});

describe('modifier groups set i and s inside them (ES2025)', () => {
  // Node's RegExp may not read modifiers yet: each pattern against one that spells its flags out.
  const CASES: [pattern: string, flags: string, spelled: string][] = [
    ['(?i:a)b', '', '[aA]b'],
    ['(?s:.)b', '', '[^]b'],
    ['(?-i:a)b', 'i', 'a[bB]'],
    ['x(?i:(?-i:a)b)', '', 'xa[bB]'],
    ['(?i-s:a.)', 's', '[aA][^\\n\\r\\u2028\\u2029]'],
    ['(?=(?i:A))ab', '', '(?=[aA])ab'],
    ['((?i:a)|b)*', '', '([aA]|b)*'],
    ['^(?i:a)|b$', '', '^[aA]|b$'],
  ];
  it.each(CASES)('%s with flags "%s" matches what %s does', (pattern, flags, spelled) => {
    for (const mode of ['match', 'search'] as const) {
      const grammar = lexemeGrammar(regexToByteRegex(pattern, { mode, flags: `${flags}u` }));
      // (The spelled pattern says its case itself.)
      const plain = `${flags.replace('i', '')}u`;
      const re = mode === 'match' ? fullMatch(spelled, plain) : (s: string) => new RegExp(spelled, plain).test(s);
      fc.assert(
        fc.property(fc.array(fc.constantFrom('a', 'A', 'b', 'B', 'x', '\n', '\r'), { maxLength: 5 }), (chars) => {
          const s = chars.join('');
          const r = recognize(grammar, encoder.encode(s));
          expect(r.accepted && r.complete, `${mode} ${JSON.stringify(s)}`).toBe(re(s));
        }),
        { numRuns: 300, seed: 7 },
      );
    }
  });

  it('without the u flag, a pattern must read as it does with it (characters are code points)', () => {
    for (const pattern of ['\\p{L}', '\\u{3}', '[😀-😂]', '😀+', '[😀]'])
      expect(() => regexToByteRegex(pattern, { mode: 'match' }), pattern).toThrow(expect.objectContaining({ code: 'unsupported' }));
    for (const [pattern, text] of [
      ['😀', '😀'],
      ['a.c', 'abc'],
      ['[a-z]+\\d', 'ab1'],
    ]) {
      const grammar = lexemeGrammar(regexToByteRegex(pattern!, { mode: 'match' }));
      expect(recognize(grammar, encoder.encode(text!)).complete, pattern).toBe(true);
    }
  });

  it('m beside an anchor is refused (it would move ^ and $)', () => {
    expect(() => regexToByteRegex('(?m:^a)', { mode: 'match' })).toThrow(expect.objectContaining({ code: 'unsupported' }));
    expect(regexToByteRegex('(?m:a)b', { mode: 'match' })).toBeDefined();
  });
});

describe('regex errors', () => {
  it.each([
    ['a(?<=b)', 'unsupported', 1, 7],
    ['(?<!a)b', 'unsupported', 0, 6],
    ['(a)\\1', 'unsupported', 3, 5],
    ['(a\\b)b', 'unsupported', 2, 4],
    ['(^a){17}', 'unsupported', 0, 8],
    ['a(b', 'invalid_regex', 3, 4],
    ['[z-a]', 'invalid_regex', 4, 5],
  ] as const)('%s → %s at its span', (pattern, code, start, end) => {
    let error: unknown;
    try {
      compileRegexGrammar(pattern);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as GrammarError).code).toBe(code);
    if (code === 'unsupported') expect((error as GrammarError).span).toEqual({ start, end });
    else expect((error as GrammarError).span!.start).toBeLessThanOrEqual(pattern.length);
  });

  it('flags as RegExp takes them: u reads \\p{L} and astral characters; m is refused, letters no RegExp takes are syntax errors', () => {
    const letters = compileGrammar(parseGrammar('regex', '[\\p{L}😀]+', { flags: 'u' }));
    expect(recognize(letters, encoder.encode('aé😀')).complete).toBe(true);
    expect(recognize(letters, encoder.encode('a1')).accepted).toBe(false);
    expect(() => parseGrammar('regex', '\\p{L}+')).toThrow(/--flags u/);
    for (const [flags, code] of [
      ['m', 'unsupported'],
      ['x', 'syntax'],
      ['ii', 'syntax'],
      ['uv', 'syntax'],
    ] as const) {
      let error: unknown;
      try {
        parseGrammar('regex', 'a', { flags });
      } catch (e) {
        error = e;
      }
      expect((error as GrammarError).code, flags).toBe(code);
    }
    // g, y and d change nothing for a match of the whole text.
    expect(recognize(compileGrammar(parseGrammar('regex', 'ab', { flags: 'gyd' })), encoder.encode('ab')).complete).toBe(true);
    expect(() => parseGrammar('gbnf', 'root ::= "a"', { flags: 'u' })).toThrow(/regex/);
  });

  it('renders a caret excerpt under the span', () => {
    try {
      compileRegexGrammar('ab(?<=c)d');
      expect.unreachable();
    } catch (e) {
      expect(renderError('ab(?<=c)d', e as GrammarError)).toBe('at 1(3): lookbehind assertions ((?<=c)) are not supported\n  ab(?<=c)d\n    ^^^^^^');
    }
  });
});

describe('intersections of regexes', () => {
  it('match what every operand matches, and never leave a dead end', () => {
    const parts = ['[a-z]+\\d*', '.{2,4}', 'x'];
    const builder = new GrammarBuilder();
    builder.rules.set(
      'start',
      expr.lexeme(
        builder.lexeme({
          name: 'and',
          regex: rx.and([regexToByteRegex(parts[0]!), regexToByteRegex(parts[1]!), regexToByteRegex(parts[2]!, { mode: 'search' })]),
        }),
      ),
    );
    const grammar = compileGrammar(builder.build('start'));
    const full = [new RegExp(`^(?:${parts[0]})$`, 'u'), new RegExp(`^(?:${parts[1]})$`, 'u'), /x/u];
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'x', '1', 'é'), { maxLength: 6 }), (chars) => {
        const s = chars.join('');
        const result = recognize(grammar, encoder.encode(s));
        expect(result.accepted && result.complete).toBe(full.every((re) => re.test(s)));
        // A prefix is accepted only if some completion exists (the language has length ≤ 4).
        const completable = (prefix: string): boolean =>
          full.every((re) => re.test(prefix)) || (prefix.length < 4 && ['a', 'x', '1', 'é'].some((c) => completable(prefix + c)));
        expect(result.accepted, JSON.stringify(s)).toBe(completable(s));
      }),
      { numRuns: 400, seed: 2 },
    );
    expect(recognize(grammar, encoder.encode('ab1')).accepted).toBe(false);
  });

  it('an empty intersection makes the grammar empty', () => {
    const builder = new GrammarBuilder();
    builder.rules.set('start', expr.lexeme(builder.lexeme({ name: 'none', regex: rx.and([regexToByteRegex('a+'), regexToByteRegex('b+')]) })));
    expect(() => compileGrammar(builder.build('start'))).toThrow(expect.objectContaining({ code: 'empty_language' }));
    // Empty after the first two of three operands too.
    const three = new GrammarBuilder();
    three.rules.set(
      'start',
      expr.lexeme(three.lexeme({ name: 'none', regex: rx.and([regexToByteRegex('a+'), regexToByteRegex('b+'), regexToByteRegex('.*')]) })),
    );
    expect(() => compileGrammar(three.build('start'))).toThrow(expect.objectContaining({ code: 'empty_language' }));
  });
});

describe('UTF-8 encoding of code point ranges', () => {
  it('matches exactly the UTF-8 encodings of the code points in the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 0, max: 0x10ffff }), (a, b, probe) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const builder = new GrammarBuilder();
        builder.rules.set('start', expr.lexeme(builder.lexeme({ name: 'r', regex: rx.codePoints([lo, hi]) })));
        const grammar = compileGrammar(builder.build('start'));
        const isSurrogate = probe >= 0xd800 && probe <= 0xdfff;
        const cp = isSurrogate ? 0xe000 : probe;
        const r = recognize(grammar, encoder.encode(String.fromCodePoint(cp)));
        expect(r.accepted && r.complete).toBe(cp >= lo && cp <= hi);
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});

describe('UTF-8 encoding of code point sets (their forms share common endings)', () => {
  it('matches exactly the byte strings that encode one code point of the set', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const point = fc.integer({ min: 0, max: 0x10ffff });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(point, point), { minLength: 1, maxLength: 4 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 4 }), { minLength: 20, maxLength: 20 }),
        (pairs, probes) => {
          const ranges = normalizeRanges(pairs.map(([a, b]) => (a <= b ? [a, b] : [b, a])));
          const inSet = (cp: number): boolean => ranges.some((lo, i) => i % 2 === 0 && cp >= lo && cp <= ranges[i + 1]!);
          const builder = new GrammarBuilder();
          builder.rules.set('start', expr.lexeme(builder.lexeme({ name: 'r', regex: rx.codePoints(ranges) })));
          const grammar = compileGrammar(builder.build('start'));
          // Random bytes, and the encodings of code points at the ranges' edges.
          const edges = ranges.flatMap((cp) => [cp - 1, cp, cp + 1]).filter((cp) => cp >= 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff));
          for (const bytes of [...probes, ...edges.map((cp) => encoder.encode(String.fromCodePoint(cp)))]) {
            let text: string | null;
            try {
              text = decoder.decode(bytes);
            } catch {
              text = null;
            }
            const expected = text !== null && [...text].length === 1 && inSet(text.codePointAt(0)!);
            const r = recognize(grammar, bytes);
            expect(r.accepted && r.complete, `${ranges.join()} ${[...bytes].map((b) => b.toString(16)).join(' ')}`).toBe(expected);
          }
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });
});

describe('lexemes are stored once per distinct regex', () => {
  it('finds a regex built again, and tells apart regexes that differ anywhere', () => {
    const builder = new GrammarBuilder();
    const digits = (min: number): ReturnType<typeof rx.seq> => rx.seq([rx.literal('#'), rx.repeat(rx.byteRanges([0x30, 0x39]), min, Infinity)]);
    const first = builder.lexeme({ name: 'A', regex: digits(1) });
    expect(builder.lexeme({ name: 'B', regex: digits(1) })).toBe(first);
    expect(builder.lexeme({ name: 'C', regex: digits(2) })).not.toBe(first);
    expect(builder.lexeme({ name: 'D', regex: digits(1), mode: 'lazy' })).not.toBe(first);
    const ab = [rx.literal('a'), rx.literal('b')];
    expect(builder.lexeme({ name: 'E', regex: rx.alt(ab) })).not.toBe(builder.lexeme({ name: 'F', regex: rx.seq(ab) }));
    expect(builder.lexeme({ name: 'G', regex: rx.and(ab) })).not.toBe(builder.lexeme({ name: 'H', regex: rx.alt(ab) }));
    expect(builder.lexeme({ name: 'I', regex: rx.not(rx.literal('a')) })).not.toBe(builder.lexeme({ name: 'J', regex: rx.not(rx.literal('b')) }));
    expect(builder.lexemes.map((l) => l.name)).toEqual(['A', 'C', 'D', 'E', 'F', 'G', 'I', 'J']);
  });

  it('shares memoized character classes and literals, which stay correct', () => {
    expect(rx.literal('ok')).toBe(rx.literal('ok'));
    expect(rx.codePoints([0x61, 0x7a])).toBe(rx.codePoints([0x61, 0x7a]));
    // Long keys are not kept (built anew, equal in structure).
    const long = 'x'.repeat(300);
    expect(rx.literal(long)).not.toBe(rx.literal(long));
    expect(rx.literal(long)).toEqual(rx.literal(long));
    const g = compileGrammar(compileRegexGrammar('(?:ok|[a-z]é)+'));
    const whole = (text: string): boolean => {
      const result = recognize(g, encoder.encode(text));
      return result.accepted && result.complete;
    };
    expect(whole('okxé')).toBe(true);
    expect(whole('okx')).toBe(false);
    expect(whole('xéok')).toBe(true);
  });

  it('converts a pattern once per encoding, and reports a bad one each time with its own offset', () => {
    expect(regexToByteRegex('[a-f]+\\d')).toBe(regexToByteRegex('[a-f]+\\d'));
    expect(regexToByteRegex('[a-f]+\\d', { mode: 'search' })).not.toBe(regexToByteRegex('[a-f]+\\d'));
    for (const offset of [0, 10]) {
      expect(() => regexToByteRegex('a(?<=b)', { offset })).toThrow(expect.objectContaining({ span: expect.objectContaining({ start: offset + 1 }) }));
    }
  });
});
