// Greedy terminals that can swallow what follows them (`greedy-ends.ts`): every prefix the
// matcher allows must still complete, and the language must not change. The language is
// checked against the same grammar with an ignored byte that never occurs, which the
// rewrite leaves as it is (it skips grammars with ignored terminals).
import { describe, expect, it } from 'vitest';
import { compileGrammar, Matcher, parseGrammar, recognize, type CompiledGrammar } from '../src/index.ts';
import { seeded } from './support/vocabs.ts';

const encoder = new TextEncoder();
const ALPHABET = ['a', 'b', '0', '1'];

const compiled = (source: string): CompiledGrammar => compileGrammar(parseGrammar('lark', source));
// The same language, lexed as written: an ignored terminal keeps the rewrite away.
const asWritten = (source: string): CompiledGrammar => compiled(`${source}\n%ignore /\\x01/`);
const complete = (grammar: CompiledGrammar, text: string): boolean => {
  const result = recognize(grammar, encoder.encode(text));
  return result.accepted && result.complete;
};
const viable = (grammar: CompiledGrammar, text: string): boolean => recognize(grammar, encoder.encode(text)).accepted;

// Every string over the alphabet up to `length` characters.
function strings(length: number): string[] {
  const all = [''];
  for (let from = 0; all[all.length - 1]!.length < length;) {
    const end = all.length;
    for (let i = from; i < end; i++) for (const c of ALPHABET) all.push(all[i]! + c);
    from = end;
  }
  return all;
}

// Whether some text over the alphabet of at most `depth` more characters completes `matcher`'s output.
function completes(matcher: Matcher, depth: number): boolean {
  if (matcher.isAccepting()) return true;
  if (depth === 0) return false;
  for (const c of ALPHABET) {
    const next = matcher.fork();
    if (next.commitBytes(encoder.encode(c)) && completes(next, depth - 1)) return true;
  }
  return false;
}

// A prefix the matcher allows that nothing completes (searched up to `depth` more characters).
function deadEnd(grammar: CompiledGrammar, prefixes: readonly string[], depth: number): string | undefined {
  return prefixes.find((prefix) => {
    const matcher = new Matcher(grammar);
    if (!matcher.commitBytes(encoder.encode(prefix))) return false;
    const completion = matcher.shortestCompletion();
    if (completion !== null && matcher.completes(completion)) return false;
    return !completes(matcher, depth);
  });
}

describe('a terminal that would swallow what the grammar expects after it', () => {
  it.each([
    ['start: NUM "0" | "x"\nNUM: /[0-9]+/', ['1', '10'], ['x']],
    ['start: NAME "_" | NAME\nNAME: /[a-z_]+/', [], ['ab', 'ab_', 'a_b']],
    ['start: x "0" | "y" x "z"\nx: NUM\nNUM: /[0-9]+/', ['1', '10'], ['y1z', 'y12z']],
    ['start: NUM "px" | NUM\nNUM: /[0-9]+(px)?/', [], ['1', '1px', '1pxpx']],
    ['start: NUM "0" | NUM "a"\nNUM: /[0-9]+/', ['1b'], ['1a', '10a']],
  ])('%s', (source, refused, accepted) => {
    const grammar = compiled(source);
    for (const text of refused) expect(viable(grammar, text), `${JSON.stringify(text)} is a dead end`).toBe(false);
    for (const text of accepted) expect(complete(grammar, text), text).toBe(true);
    expect(deadEnd(grammar, strings(4), 6)).toBeUndefined();
  });

  it('refuses a grammar no text completes, naming the terminal', () => {
    for (const source of ['start: A "ab"\nA: /a+/', 'start: "<a>" A "</a>"\nA: /(.|\\n)+/']) {
      expect(() => compiled(source)).toThrow(
        expect.objectContaining({ code: 'empty_language', message: expect.stringContaining('greedy lexing never ends A before') }),
      );
    }
  });

  it('blames greedy lexing only when the grammar as written could complete', () => {
    // x has no rule that ends: empty as written, whatever NUM does.
    expect(() => compiled('start: x NUM "a" | x\nx: x "b"\nNUM: /[0-9]+/')).toThrow(
      expect.objectContaining({ code: 'empty_language', message: expect.not.stringContaining('greedy') }),
    );
  });

  it('leaves a grammar as written where the rewrite would cost too much', () => {
    // A rule too long to split, and a rewrite that would grow the grammar past MAX_GROWTH.
    const long = compiled(`start: NUM "0" | ${'"x" '.repeat(2000)}\nNUM: /[0-9]+/`);
    expect(long.swallowing).toEqual([]);
    const classes = Array.from({ length: 20 }, (_, i) => `"${String.fromCharCode(97 + i)}"`).join(' | ');
    const doubling = Array.from({ length: 12 }, (_, i) => `r${i}: r${i + 1} r${i + 1} | N`).join('\n');
    const grown = compiled(`start: r0 (${classes})\n${doubling}\nr12: N\nN: /[a-z]+/`);
    expect(grown.swallowing).toEqual([]);
  });

  it('rewrites only grammars that need it', () => {
    expect(compiled('start: NUM "," NUM\nNUM: /[0-9]+/').swallowing).toEqual([]);
    expect(compiled('start: NUM "0" | NUM "a"\nNUM: /[0-9]+/').swallowing).toEqual(['NUM']);
  });

  // Dropping a parse that never completes changes which terminals the parser expects, and so
  // how a text is lexed where terminals overlap: such grammars stay as written.
  it.each([
    ['start: "a" "b" | "ab" A "a"\nA: /a+/', 'ab'],
    ['start: "0" | P A "a"\nP.3: /0/\nA: /a+/', '0'],
    ['start: "0" M "a" | /0|9/ "a" "a"\nM: /a+|b/', '0aa'],
    ['start: "00" T0 T3 | "0" T3\nT0: /[^b]+/\nT3: /0|1/', '00'],
  ])('overlapping terminals: %s keeps refusing %j', (source, text) => {
    expect(complete(compiled(source), text)).toBe(false);
    expect(complete(asWritten(source), text)).toBe(false);
  });
});

describe('random grammars: the same language, and no dead ends where rewritten', () => {
  const TERMINALS = ['/[0-9]+/', '/[ab]+/', '/a+b?/', '/[ab]*b/', '"a"', '"0"', '"ab"', '"00"', '/[0-9a]+/', '/b[0-9]*/', '/0|1/', '/a(b0)*/', '/[^b]+/'];
  const random = seeded(11);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sequence = (items: readonly string[], most: number): string => Array.from({ length: 1 + Math.floor(random() * most) }, () => pick(items)).join(' ');
  const sources = Array.from({ length: 48 }, () => {
    const terminals = Array.from({ length: 3 }, () => pick(TERMINALS));
    const names = terminals.map((_, i) => `T${i}`);
    // Some terminals outrank the others (`T0.2:`).
    const definitions = terminals.map((t, i) => `${names[i]}${random() < 0.2 ? '.2' : ''}: ${t}`);
    const start = Array.from({ length: 1 + Math.floor(random() * 3) }, () => sequence([...names, 'x'], 3)).join(' | ');
    const x = Array.from({ length: 1 + Math.floor(random() * 2) }, () => sequence(names, 2)).join(' | ');
    return [`start: ${start}`, `x: ${x}`, ...definitions].join('\n');
  });
  const texts = strings(5);
  let rewritten = 0;

  it.each(sources.map((s) => [s]))('%s', (source) => {
    let grammar: CompiledGrammar;
    try {
      grammar = compiled(source);
    } catch (error) {
      // Only an empty language may fail, and it must be empty as written too.
      expect(error).toMatchObject({ code: 'empty_language' });
      expect(texts.filter((t) => complete(asWritten(source), t))).toEqual([]);
      return;
    }
    const written = asWritten(source);
    for (const text of texts) expect(complete(grammar, text), JSON.stringify(text)).toBe(complete(written, text));
    // Left as written: no terminal can swallow what follows it, or one expected beside it
    // overlaps it (see the module comment).
    if (grammar.swallowing.length === 0) return;
    rewritten++;
    expect(deadEnd(grammar, strings(4), 6)).toBeUndefined();
  });

  it('rewrote some of them', () => {
    expect(rewritten).toBeGreaterThan(5);
  });
});
