// Large counted repetitions are counted virtually (the item built once, copies numbered, see
// `CountedRegion` in src/lexer/lexer-dfa.ts). Inside an intersection they are still built copy by
// copy, so `R{m,n} ∧ (any bytes)` is the same language made the old way: an independent
// construction to check the virtual one against, on whole texts and on every mask of random
// walks, besides JavaScript's RegExp on whole texts.
import { describe, expect, it } from 'vitest';
import { compileGrammar, jsonSchemaGrammar, Matcher, recognize, regexToByteRegex, rx, type CompiledGrammar } from '../src/index.ts';
import { bitsetIds } from './support/oracle.ts';
import { accepts, copied, lexemeGrammar, walkTwins } from './support/twin-grammars.ts';
import { seeded, vocab } from './support/vocabs.ts';

const encoder = new TextEncoder();

// The pattern counted virtually, and copied (as an intersection's operand).
const both = (pattern: string): [CompiledGrammar, CompiledGrammar] => {
  const regex = regexToByteRegex(pattern, { flags: 'u' });
  return [lexemeGrammar(regex), lexemeGrammar(copied(regex))];
};

// Pattern, then texts near its bounds: prefix + k units + suffix for each k, sometimes with
// one character swapped for another of `noise`.
const cases: [pattern: string, prefix: string, units: string[], suffix: string, counts: number[], noise: string][] = [
  ['[a-c]{70,90}', '', ['a', 'b', 'c'], '', [0, 69, 70, 71, 89, 90, 91, 120], 'd'],
  ['x(ab|c){65,80}y', 'x', ['ab', 'c'], 'y', [60, 64, 65, 70, 80, 81], 'bx'],
  ['(é|z){0,100}!', '', ['é', 'z'], '!', [0, 50, 99, 100, 101], 'a!'],
  ['[0-9]{66,}', '', ['0', '7', '9'], '', [65, 66, 67, 200], 'a'],
  ['(a?b?){70,75}c', '', ['a', 'b', 'ab', ''], 'c', [0, 5, 80, 160], 'c'],
  ['(?:[a-z]{2}-){70}[a-z]', '', ['ab-', 'zz-'], 'q', [69, 70, 71], '-'],
];

describe('large counted repetitions, virtual against copied', () => {
  it.each(cases)('/%s/ on whole texts', (pattern, prefix, units, suffix, counts, noise) => {
    const [virtual, copied] = both(pattern);
    // RegExp backtracks exponentially on a repeated nullable item: the copies judge it alone.
    const engine = pattern.startsWith('(a?b?)') ? null : new RegExp(`^(?:${pattern})$`, 'u');
    const random = seeded(5);
    const verdicts = new Set<boolean>();
    for (const count of counts) {
      for (let sample = 0; sample < 20; sample++) {
        const body = Array.from({ length: count }, () => units[Math.floor(random() * units.length)]!);
        if (sample % 4 === 3 && count > 0) body[Math.floor(random() * count)] = noise[Math.floor(random() * noise.length)]!;
        const text = prefix + body.join('') + suffix;
        const expected = engine === null ? accepts(copied, text) : engine.test(text);
        expect(accepts(virtual, text), `${pattern} ${JSON.stringify(text)}`).toBe(expected);
        expect(accepts(copied, text), `copied ${pattern} ${JSON.stringify(text)}`).toBe(expected);
        verdicts.add(expected);
      }
    }
    // The samples reach both sides of the bounds.
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it.each(cases)('/%s/: masks equal the oracle and the copied automaton along random walks', (pattern) => {
    walkTwins(...both(pattern), 9, 120, 3);
  });
});

// Intersections with a large counted operand count over the product (`TickRegion`); nested
// in another intersection they are copied as before.
const products: [counted: string, other: string, units: string[], counts: number[]][] = [
  ['[a-c]{0,80}', '(?:ab)+c?', ['ab'], [30, 39, 40, 41, 50]],
  ['[ab]{65,}', '(?:a|bb)*', ['a', 'bb'], [30, 40, 50, 66, 90]],
  ['[^x]{70,90}', '.*y.{3}', ['y', 'z', 'é'], [68, 70, 80, 90, 92]],
  ['[a-z]{66,70}', '(?:[a-z]{3})*', ['a', 'q'], [63, 66, 69, 70, 72]],
];

describe('large counted repetitions inside an intersection, counted against copied', () => {
  const pair = (counted: string, other: string): [CompiledGrammar, CompiledGrammar] => {
    const product = rx.and([regexToByteRegex(counted, { flags: 'u' }), regexToByteRegex(other, { flags: 'u' })]);
    return [lexemeGrammar(product), lexemeGrammar(copied(product))];
  };

  it.each(products)('/%s/ ∧ /%s/ on whole texts', (counted, other, units, counts) => {
    const [virtual, copied] = pair(counted, other);
    const engines = [new RegExp(`^(?:${counted})$`, 'u'), new RegExp(`^(?:${other})$`, 'u')];
    const random = seeded(3);
    const verdicts = new Set<boolean>();
    for (const count of counts) {
      for (let sample = 0; sample < 20; sample++) {
        const text = Array.from({ length: count }, () => units[Math.floor(random() * units.length)]!).join('');
        const expected = engines.every((engine) => engine.test(text));
        expect(accepts(virtual, text), `${JSON.stringify(text)}`).toBe(expected);
        expect(accepts(copied, text), `copied ${JSON.stringify(text)}`).toBe(expected);
        verdicts.add(expected);
      }
    }
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it.each(products)('/%s/ ∧ /%s/: masks equal the oracle and the copied automaton along random walks', (counted, other) => {
    walkTwins(...pair(counted, other), 13, 100, 3);
  });

  it('JSON Schema: a pattern or format with a long maxLength compiles, and never leads into a dead end', () => {
    const pairs = compileGrammar(jsonSchemaGrammar({ type: 'string', pattern: '^(ab)+$', minLength: 70, maxLength: 99 }).grammar);
    expect([68, 70, 98, 100].map((n) => accepts(pairs, JSON.stringify('ab'.repeat(n / 2))))).toEqual([false, true, true, false]);
    // 99 characters then: an odd count of (ab)+ can no longer end within the bound.
    expect(recognize(pairs, encoder.encode(`"${'ab'.repeat(49)}a`)).accepted).toBe(false);
    const email = compileGrammar(jsonSchemaGrammar({ type: 'string', format: 'email', maxLength: 1024 }).grammar);
    expect(accepts(email, JSON.stringify(`${'x'.repeat(1010)}@b.co`))).toBe(true);
    expect(accepts(email, JSON.stringify(`${'x'.repeat(1020)}@b.co`))).toBe(false);
  });

  it('one that no count the bounds allow can end matches nothing: no mask leads into it', () => {
    const index = vocab('stories260k');
    const decoder = new TextDecoder();
    const firstMask = (schema: object): string[] => {
      const matcher = new Matcher(compileGrammar(jsonSchemaGrammar(schema).grammar), index);
      return bitsetIds(matcher.computeMaskBitset(), index.tokenCount).map((id) => decoder.decode(index.tokenBytes(id)));
    };
    // The value is that string alone: nothing at all, not even the whitespace before it.
    expect(firstMask({ type: 'string', pattern: '^c$', minLength: 72 })).toEqual([]);
    expect(firstMask({ type: 'string', pattern: '^(ab)+$', minLength: 99, maxLength: 99 })).toEqual([]);
    expect(firstMask({ type: 'object', properties: { s: { type: 'string', pattern: '^\\S{1,3}$', minLength: 70 } }, required: ['s'] })).toEqual([]);
    // Beside another branch: that branch's tokens, no quote.
    const either = firstMask({ anyOf: [{ type: 'string', pattern: '^c$', minLength: 72 }, { type: 'integer' }] });
    expect(either).toContain('1');
    expect(either.filter((token) => token.includes('"'))).toEqual([]);
    // Where a count can end, the string begins.
    expect(firstMask({ type: 'string', pattern: '^(ab)+$', minLength: 98, maxLength: 99 })).toContain('"');
  });
});

describe('JSON Schema string lengths past the copy budget', () => {
  it('maxLength 32767 compiles to a small automaton and walks a long string', () => {
    const grammar = compileGrammar(
      jsonSchemaGrammar({ type: 'object', properties: { d: { type: 'string', minLength: 3000, maxLength: 32_767 } }, required: ['d'] }).grammar,
    );
    const text = (n: number): string => JSON.stringify({ d: 'é\n"x'.repeat(n / 4) });
    expect(accepts(grammar, text(2996))).toBe(false);
    expect(accepts(grammar, text(3000))).toBe(true);
    expect(accepts(grammar, text(8000))).toBe(true);
    const bounded = compileGrammar(jsonSchemaGrammar({ type: 'string', maxLength: 100 }).grammar);
    expect(accepts(bounded, JSON.stringify('\u00e9'.repeat(100)))).toBe(true);
    expect(accepts(bounded, JSON.stringify('\u00e9'.repeat(101)))).toBe(false);
    expect(accepts(bounded, `"${'\\u0001'.repeat(100)}"`)).toBe(true);
    expect(accepts(bounded, `"${'\\u0001'.repeat(101)}"`)).toBe(false);
  });
});

describe('counts of one unit in an intersection, merged', () => {
  // Each text over a few letters up to six long: the intersection against RegExp on every one.
  const texts = (letters: string, longest: number): string[] => {
    const all = [''];
    for (let i = 0; i < all.length && all[i]!.length < longest; i++) for (const c of letters) all.push(all[i]! + c);
    return all;
  };
  it.each([
    // A sequence of one item (sixty dots, here three) beside counts of wider units.
    [['...', '[a-c]*', '\\w{0,5}']],
    [['[ab]{2,4}', '[a-c]{3,6}']],
    [['[ab]{2}', '.{0,3}']],
    // Units that are no prefix code ("a" begins "ab"): not merged, still exact.
    [['(?:a|ab){2,3}', '(?:a|ab|b){0,2}']],
    [['(?:ab|c){1,2}', '(?:ab|c|d){2}', '(?:ab|c){1,2}']],
  ])('%j matches what RegExp says of each part', (patterns) => {
    const grammar = lexemeGrammar(rx.and(patterns.map((p) => regexToByteRegex(p, { flags: 'u' }))));
    const engines = patterns.map((p) => new RegExp(`^(?:${p})$`, 'u'));
    const verdicts = new Set<boolean>();
    for (const text of texts('abcd', 6)) {
      const expected = engines.every((engine) => engine.test(text));
      expect(accepts(grammar, text), JSON.stringify(text)).toBe(expected);
      verdicts.add(expected);
    }
    expect(verdicts.has(false)).toBe(true);
  });

  it('counts whose bounds do not meet match nothing', () => {
    const grammar = (patterns: string[]) => lexemeGrammar(rx.and(patterns.map((p) => regexToByteRegex(p, { flags: 'u' }))));
    expect(() => grammar(['[ab]{4}', '.{0,2}'])).toThrow(/matches nothing/);
    expect(() => grammar(['.....', '[a-c]{0,3}'])).toThrow(/matches nothing/);
  });

  it('a length a pattern spells beside maxLength, whose copies the other patterns would multiply past maxNfaStates, is counted: masks equal the copies', () => {
    // (Handwritten---allany17's shape: `^.{60}$` beside patterns whose product has thousands of
    // states; here thirty dots, and a maxNfaStates the copies pass.)
    const schema = {
      type: 'string',
      maxLength: 200,
      allOf: [{ pattern: `^${'.'.repeat(30)}$` }, ...['ab1', 'b12', 'bc1', 'c12', 'ca1', 'a12'].map((pattern) => ({ pattern }))],
    };
    const ir = jsonSchemaGrammar(schema).grammar;
    const counted = compileGrammar(ir, { maxNfaStates: 8_000 });
    const copies = compileGrammar(ir);
    const text = (tail: string): string => JSON.stringify(`ab12bc12ca12${tail}`);
    for (const grammar of [counted, copies]) {
      expect(accepts(grammar, text('x'.repeat(18)))).toBe(true);
      expect(accepts(grammar, text('x'.repeat(17)))).toBe(false);
      expect(accepts(grammar, text('x'.repeat(19)))).toBe(false);
      expect(accepts(grammar, text('\\n'.repeat(18)))).toBe(false);
    }
    walkTwins(counted, copies, 17, 60, 3);
  });
});
