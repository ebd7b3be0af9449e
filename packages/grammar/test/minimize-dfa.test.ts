// DFA minimization (src/lexer/minimize-dfa.ts), which the lexer applies to the operands of a
// product that would pass maxNfaStates before building it again: the language is kept (every string up to a length,
// against the automaton given), no two states left are equivalent (a string tells each pair
// apart), and dead states go unless kept. Then a product that was past maxNfaStates before
// it: numbers under anyOf/not of multipleOf, against ajv.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteAutomaton } from '../src/ir/byte-regex.ts';
import { minimizeDfa } from '../src/lexer/minimize-dfa.ts';
import { expectAgreement } from './support/schema-agreement.ts';
import { seeded } from './support/vocabs.ts';

// Byte ranges the random automata read, and a byte from each (and one no edge reads).
const RANGES: readonly (readonly [number, number])[] = [
  [0x61, 0x61],
  [0x62, 0x63],
  [0x64, 0x7a],
];
const BYTES = [0x61, 0x62, 0x63, 0x70, 0x30];

function randomDfa(random: () => number, total: boolean): ByteAutomaton {
  const n = 2 + Math.floor(random() * 10);
  const edges = Array.from({ length: n }, () => {
    const list: number[] = [];
    for (const [lo, hi] of RANGES) if (total || random() < 0.8) list.push(lo, hi, Math.floor(random() * n));
    if (total) list.push(0x00, 0x60, Math.floor(random() * n), 0x7b, 0xff, Math.floor(random() * n));
    return list;
  });
  return { edges, accepting: Array.from({ length: n }, () => random() < 0.35) };
}

// The state reached from `state` by `bytes` (-1: none).
function run({ edges }: ByteAutomaton, bytes: readonly number[], state = 0): number {
  for (const byte of bytes) {
    const list = edges[state]!;
    let next = -1;
    for (let i = 0; i < list.length; i += 3) if (list[i]! <= byte && byte <= list[i + 1]!) next = list[i + 2]!;
    if (next < 0) return -1;
    state = next;
  }
  return state;
}

const acceptsFrom = (automaton: ByteAutomaton, bytes: readonly number[], state = 0): boolean => {
  const end = run(automaton, bytes, state);
  return end >= 0 && automaton.accepting[end]!;
};

// Every string over BYTES up to `length` bytes.
function* strings(length: number): Generator<number[]> {
  yield [];
  if (length === 0) return;
  for (const shorter of strings(length - 1)) if (shorter.length === length - 1) for (const byte of BYTES) yield [...shorter, byte];
}

// Which pairs of states some string tells apart, by filling the table of pairs (Moore's
// method, not the partition refinement under test); a missing edge leads to a dead state,
// which every state of a trimmed automaton differs from.
function distinguishable(automaton: ByteAutomaton): (x: number, y: number) => boolean {
  const n = automaton.edges.length;
  const dead = n;
  const step = (state: number, byte: number): number => (state === dead ? dead : run(automaton, [byte], state) < 0 ? dead : run(automaton, [byte], state));
  const accepting = (state: number): boolean => state !== dead && automaton.accepting[state]!;
  const marked = new Uint8Array((n + 1) * (n + 1));
  for (let x = 0; x <= n; x++) for (let y = 0; y <= n; y++) if (accepting(x) !== accepting(y)) marked[x * (n + 1) + y] = 1;
  for (let changed = true; changed;) {
    changed = false;
    for (let x = 0; x <= n; x++) {
      for (let y = 0; y <= n; y++) {
        if (marked[x * (n + 1) + y] === 1) continue;
        if (BYTES.some((byte) => marked[step(x, byte) * (n + 1) + step(y, byte)] === 1)) {
          marked[x * (n + 1) + y] = 1;
          changed = true;
        }
      }
    }
  }
  return (x, y) => marked[x * (n + 1) + y] === 1;
}

describe('minimizeDfa', () => {
  it('keeps the language, leaves no two states equivalent, and drops dead states', () => {
    const random = seeded(3);
    let shrunk = 0;
    for (let sample = 0; sample < 200; sample++) {
      const dfa = randomDfa(random, false);
      const minimal = minimizeDfa(dfa, false, 1 << 20)!;
      expect(minimal.edges.length).toBeLessThanOrEqual(dfa.edges.length);
      if (minimal.edges.length < dfa.edges.length) shrunk++;
      for (const bytes of strings(5)) expect(acceptsFrom(minimal, bytes), `${sample}: ${bytes}`).toBe(acceptsFrom(dfa, bytes));
      if (minimal.edges.length === 1 && minimal.edges[0]!.length === 0 && !minimal.accepting[0]) continue; // matches nothing
      const distinct = distinguishable(minimal);
      for (let x = 0; x < minimal.edges.length; x++) {
        for (let y = x + 1; y < minimal.edges.length; y++) expect(distinct(x, y), `states ${x} and ${y} of sample ${sample} differ`).toBe(true);
      }
    }
    expect(shrunk).toBeGreaterThan(50);
  }, 60_000);

  it('keeps dead states and every byte when asked (a complement reads every byte)', () => {
    const random = seeded(5);
    for (let sample = 0; sample < 100; sample++) {
      const dfa = randomDfa(random, true);
      const minimal = minimizeDfa(dfa, true, 1 << 20)!;
      for (const list of minimal.edges) {
        const covered = new Uint8Array(256);
        for (let i = 0; i < list.length; i += 3) covered.fill(1, list[i]!, list[i + 1]! + 1);
        expect(covered.every((c) => c === 1)).toBe(true);
      }
      for (const bytes of strings(4)) expect(acceptsFrom(minimal, bytes)).toBe(acceptsFrom(dfa, bytes));
    }
  }, 60_000);

  it('an automaton that matches nothing is one state with no edges; a table past maxCells is null', () => {
    const empty: ByteAutomaton = {
      edges: [
        [0x61, 0x61, 1],
        [0x61, 0x61, 0],
      ],
      accepting: [false, false],
    };
    expect(minimizeDfa(empty, false, 1 << 20)).toEqual({ edges: [[]], accepting: [false] });
    const wide: ByteAutomaton = { edges: [[0x61, 0x61, 1], []], accepting: [false, true] };
    expect(minimizeDfa(wide, false, 3)).toBeNull();
  });
});

describe('products past maxNfaStates built again from minimized operands', () => {
  // MaskBench's Handwritten allany4: past 200,000 automaton states unminimized (the remainders
  // of 3, 5, 7, 8, 11 and 24 multiply); the language is the multiples of 3 that are not of 5,
  // 7 or 8.
  const schema = {
    type: 'number',
    allOf: [
      { minimum: 1 },
      { anyOf: [{ multipleOf: 3 }, { multipleOf: 5 }, { multipleOf: 7 }] },
      { anyOf: [{ allOf: [{ not: { multipleOf: 5 } }, { not: { multipleOf: 7 } }] }, { multipleOf: 24 }] },
      { anyOf: [{ not: { multipleOf: 8 } }, { multipleOf: 11 }] },
      { not: { multipleOf: 8 } },
    ],
  };

  it('anyOf and not of multipleOf agree with ajv', () => {
    const numbers = fc.oneof(
      fc.integer({ min: -50, max: 3000 }),
      fc.integer({ min: 1, max: 1000 }).map((n) => 3 * n),
      fc.integer({ min: -400, max: 4000 }).map((n) => n / 4),
    );
    const counts = expectAgreement(schema, numbers, { numRuns: 400, seed: 4 });
    expect(counts.valid).toBeGreaterThan(40);
    expect(counts.invalid).toBeGreaterThan(40);
  }, 60_000);
});
