/**
 * The lexer: every lexeme compiled to one Thompson NFA over bytes, and a DFA built lazily
 * from it by subset construction. A DFA state is a set of NFA states of the lexemes allowed
 * at the current boundary; its transitions are computed the first time a byte is tried and
 * cached, so steady-state lexing is one table lookup per byte.
 */
import type { ByteRegex } from './byte-regex.ts';
import { GrammarLimitError } from './errors.ts';
import type { LexemeDef } from './ir.ts';
import type { GrammarLimits } from './limits.ts';

/** The DFA state with no NFA states: nothing can follow. */
export const DEAD = 0;

class Nfa {
  readonly epsilon: number[][] = [];
  readonly edges: number[][] = []; // per state: lo, hi, target triples
  readonly accepts: number[] = []; // lexeme index, or -1

  constructor(private readonly maxStates: number) {}

  newState(): number {
    if (this.accepts.length >= this.maxStates) {
      throw new GrammarLimitError('maxNfaStates', this.maxStates, `the lexemes need more than ${this.maxStates} automaton states (maxNfaStates); simplify large counted repetitions such as {1,100000}`);
    }
    this.epsilon.push([]);
    this.edges.push([]);
    this.accepts.push(-1);
    return this.accepts.length - 1;
  }

  // Thompson construction: wires `regex` from state `from` to state `to`.
  build(regex: ByteRegex, from: number, to: number): void {
    switch (regex.kind) {
      case 'bytes':
        for (let i = 0; i < regex.ranges.length; i += 2) this.edges[from]!.push(regex.ranges[i]!, regex.ranges[i + 1]!, to);
        return;
      case 'seq': {
        let at = from;
        regex.items.forEach((item, i) => {
          const next = i === regex.items.length - 1 ? to : this.newState();
          this.build(item, at, next);
          at = next;
        });
        if (regex.items.length === 0) this.epsilon[from]!.push(to);
        return;
      }
      case 'alt':
        for (const item of regex.items) this.build(item, from, to);
        return;
      case 'repeat': {
        let at = from;
        for (let i = 0; i < regex.min; i++) {
          const next = this.newState();
          this.build(regex.item, at, next);
          at = next;
        }
        if (regex.max === Infinity) {
          const loop = this.newState();
          this.epsilon[at]!.push(loop);
          const back = this.newState();
          this.build(regex.item, loop, back);
          this.epsilon[back]!.push(loop);
          this.epsilon[loop]!.push(to);
          return;
        }
        this.epsilon[at]!.push(to);
        for (let i = regex.min; i < regex.max; i++) {
          const next = this.newState();
          this.build(regex.item, at, next);
          this.epsilon[next]!.push(to);
          at = next;
        }
        return;
      }
    }
  }
}

/** Lazily determinized lexer over a fixed list of lexemes. */
export class LexerDfa {
  readonly lexemes: readonly LexemeDef[];
  readonly #nfa: Nfa;
  readonly #starts: number[];
  readonly #maxStates: number;
  // Per DFA state: its NFA state set, the lexemes it accepts (sorted), and 256 transitions
  // (-1 = not computed yet).
  readonly #sets: Int32Array[] = [];
  readonly #accepting: Int32Array[] = [];
  #transitions = new Int32Array(0);
  readonly #winners: Int32Array[] = [];
  readonly #lazy: boolean[] = [];
  readonly #byKey = new Map<string, number>();
  readonly #startByAllowed = new Map<string, number>();
  readonly #ignore: readonly number[];

  constructor(lexemes: readonly LexemeDef[], ignore: readonly number[], limits: GrammarLimits) {
    this.lexemes = lexemes;
    this.#ignore = ignore;
    this.#maxStates = limits.maxLexerStates;
    this.#nfa = new Nfa(limits.maxNfaStates);
    this.#starts = lexemes.map((lexeme, index) => {
      const start = this.#nfa.newState();
      const accept = this.#nfa.newState();
      this.#nfa.accepts[accept] = index;
      this.#nfa.build(lexeme.regex, start, accept);
      return start;
    });
    this.#intern([]); // DEAD
  }

  /** Number of DFA states built so far. */
  get stateCount(): number {
    return this.#sets.length;
  }

  /** The state in which any of `expected` (sorted lexeme indices) or an ignored lexeme may start. */
  start(expected: ArrayLike<number>): number {
    const allowed = this.#ignore.length === 0 ? Array.from(expected) : [...new Set([...Array.from(expected), ...this.#ignore])].sort((a, b) => a - b);
    const key = allowed.join(',');
    let state = this.#startByAllowed.get(key);
    if (state === undefined) {
      state = this.#intern(this.#closure(allowed.map((i) => this.#starts[i]!)));
      this.#startByAllowed.set(key, state);
    }
    return state;
  }

  /** The state after `byte`, or DEAD. */
  next(state: number, byte: number): number {
    const at = state * 256 + byte;
    const known = this.#transitions[at]!;
    if (known >= 0) return known;
    const targets: number[] = [];
    for (const nfaState of this.#sets[state]!) {
      const edges = this.#nfa.edges[nfaState]!;
      for (let i = 0; i < edges.length; i += 3) if (edges[i]! <= byte && byte <= edges[i + 1]!) targets.push(edges[i + 2]!);
    }
    const target = this.#intern(this.#closure(targets));
    this.#transitions[at] = target;
    return target;
  }

  /** Lexemes that have a complete match in `state` (sorted indices). */
  accepting(state: number): Int32Array {
    return this.#accepting[state]!;
  }

  /** The complete lexemes of highest priority in `state`: what the parser scans when the lexeme ends. */
  winners(state: number): Int32Array {
    return this.#winners[state]!;
  }

  /** Whether a winner of `state` is lazy: the lexeme ends at once. */
  endsLazily(state: number): boolean {
    return this.#lazy[state]!;
  }

  #closure(seeds: readonly number[]): number[] {
    const seen = new Set<number>(seeds);
    const stack = [...seeds];
    while (stack.length > 0) {
      for (const next of this.#nfa.epsilon[stack.pop()!]!) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    // Only states with byte edges or acceptance matter for the DFA state's identity.
    return [...seen].filter((s) => this.#nfa.edges[s]!.length > 0 || this.#nfa.accepts[s]! >= 0).sort((a, b) => a - b);
  }

  #intern(set: number[]): number {
    const key = set.join(',');
    const known = this.#byKey.get(key);
    if (known !== undefined) return known;
    const id = this.#sets.length;
    if (id >= this.#maxStates) {
      throw new GrammarLimitError('maxLexerStates', this.#maxStates, `the lexer needs more than ${this.#maxStates} states (maxLexerStates)`);
    }
    this.#sets.push(Int32Array.from(set));
    const accepting = [...new Set(set.map((s) => this.#nfa.accepts[s]!).filter((l) => l >= 0))].sort((a, b) => a - b);
    this.#accepting.push(Int32Array.from(accepting));
    const priority = (l: number): number => this.lexemes[l]!.priority ?? 0;
    const best = Math.max(...accepting.map(priority));
    const winners = accepting.filter((l) => priority(l) === best);
    this.#winners.push(Int32Array.from(winners));
    this.#lazy.push(winners.some((l) => this.lexemes[l]!.mode === 'lazy'));
    if (this.#transitions.length < (id + 1) * 256) {
      const grown = new Int32Array(Math.max((id + 1) * 256, this.#transitions.length * 2)).fill(-1);
      grown.set(this.#transitions);
      this.#transitions = grown;
    }
    this.#byKey.set(key, id);
    return id;
  }
}
