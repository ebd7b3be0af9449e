// Large automata (a format's, a multipleOf's) go into the lexer as blocks of states whose edges
// are copied in from rows made once per automaton (`Nfa.#sharedAutomaton` in
// src/lexer/lexer-dfa.ts). Inside an intersection they are still built edge by edge, so
// `A ∧ (any bytes)` is the same language made the old way: the independent construction to
// check the blocks against, on whole texts and on every mask of random walks, besides
// arithmetic on whole texts.
import { describe, expect, it } from 'vitest';
import { leapSecondTimes } from '../src/frontends/json-schema/string-formats.ts';
import { multipleOfAutomaton } from '../src/frontends/json-schema/numbers.ts';
import { recognize, rx, type ByteRegex, type CompiledGrammar } from '../src/index.ts';
import { accepts, copied, lexemeGrammar, walkTwins } from './support/twin-grammars.ts';
import { seeded } from './support/vocabs.ts';

const encoder = new TextEncoder();

// The regex with its automata as blocks, and copied (as an intersection's operand).
const both = (regex: ByteRegex): [CompiledGrammar, CompiledGrammar] => [lexemeGrammar(regex), lexemeGrammar(copied(regex))];

const pad = (n: number): string => String(n).padStart(2, '0');
const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`;
const leap = leapSecondTimes();
const multiples = rx.automaton(multipleOfAutomaton(257)!);

describe('large automata as blocks, against copied', () => {
  it('the automata are large enough to be blocks', () => {
    expect(leap.kind === 'automaton' && leap.automaton.edges.length).toBeGreaterThan(10_000);
    expect(multiples.kind === 'automaton' && multiples.automaton.edges.length).toBeGreaterThanOrEqual(257);
  });

  it('leap seconds, quoted and beside other times: whole texts against arithmetic', () => {
    const regex = rx.seq([rx.literal('"'), rx.alt([leap, rx.literal('12:00:00Z')]), rx.literal('"')]);
    const [shared, copied] = both(regex);
    const random = seeded(11);
    let valid = 0;
    for (let sample = 0; sample < 600; sample++) {
      const local = Math.floor(random() * 1440);
      const exact = random() < 0.5;
      const sign = random() < 0.5 ? 1 : -1;
      const offset = sign > 0 ? (local + 1) % 1440 : 1439 - local;
      const near = exact ? offset : (offset + 1 + Math.floor(random() * 1438)) % 1440;
      const fraction = random() < 0.3 ? '.25' : '';
      const text = `"${clock(local)}:60${fraction}${sign > 0 ? '+' : '-'}${clock(near)}"`;
      if (exact) valid++;
      expect(accepts(shared, text), text).toBe(exact);
      expect(accepts(copied, text), `copied ${text}`).toBe(exact);
    }
    expect(accepts(shared, '"12:00:00Z"')).toBe(true);
    expect(accepts(shared, '"23:59:60Z"')).toBe(true);
    expect(accepts(shared, '"23:59:60+00:01"')).toBe(false);
    expect(valid).toBeGreaterThan(200);
  });

  it('multiples of 257: whole texts against arithmetic', () => {
    const [shared, copied] = both(multiples);
    const random = seeded(7);
    const verdicts = new Set<boolean>();
    for (let sample = 0; sample < 400; sample++) {
      const n = sample % 2 === 0 ? 257 * Math.floor(random() * 100_000) : Math.floor(random() * 30_000_000);
      const text = String(n);
      const expected = n % 257 === 0;
      expect(accepts(shared, text), text).toBe(expected);
      expect(accepts(copied, text), `copied ${text}`).toBe(expected);
      verdicts.add(expected);
    }
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it.each([
    ['leap seconds', rx.seq([rx.literal('"'), leap, rx.literal('"')])],
    ['multiples of 257 in a list', rx.seq([rx.literal('['), multiples, rx.repeat(rx.seq([rx.literal(','), multiples]), 0, Infinity), rx.literal(']')])],
  ])('%s: masks equal the oracle and the copied automaton along random walks', (_, regex) => {
    walkTwins(...both(regex), 17, 40, 4);
  });

  it('a block that leads nowhere is pruned: no mask leads into it, and alone it matches nothing', () => {
    const dead = rx.seq([leap, rx.nothing]);
    const [shared] = both(rx.alt([dead, rx.literal('12:00')]));
    expect(accepts(shared, '12:00')).toBe(true);
    expect(recognize(shared, encoder.encode('23:59:60Z')).accepted).toBe(false);
    expect(recognize(shared, encoder.encode('2')).accepted).toBe(false);
    expect(() => lexemeGrammar(dead)).toThrow(/matches nothing/);
  });
});
