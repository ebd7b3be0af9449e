/**
 * The matcher: where generation stands in the grammar, byte by byte, and which tokens may
 * come next. A mask is exact by construction: the trie walk runs the very step function that
 * committing uses, descending one trie node per byte and pruning whole subtrees when a byte
 * is rejected.
 *
 * State after each byte: the lexer DFA state of the lexeme in progress, how many bytes it has,
 * and the Earley chart (one set per lexeme boundary). History keeps that triple for every
 * committed byte, so rollback and fork are cheap.
 */
import { bitsetAdd, bitsetPut, emptyBitset, brleFromBitset, vocabLayout as L, type Brle, type VocabIndex } from '@sieve/format';
import type { CompiledGrammar } from '../parser/compile-grammar.ts';
import { UniqueItems, withoutRepeatedItems } from './unique-items.ts';
import { completionCandidates } from '../completion/completion-candidates.ts';
import { initialSet, scanSet, type EarleySet } from '../parser/earley.ts';
import { GrammarLimitError } from '../grammar-error.ts';
import { DEAD } from '../lexer/lexer-dfa.ts';

/** What the runtime needs of a matcher; `Matcher` (TypeScript) and `KernelMatcher` (WASM) implement it. */
export interface TokenMatcher {
  commitToken(id: number): boolean;
  commitBytes(bytes: Uint8Array): boolean;
  computeMask(): Brle;
  computeMaskBitset(): Uint32Array;
  isAccepting(): boolean;
  /** Whether feeding `bytes` would leave the output complete; the matcher is unchanged. */
  completes(bytes: Uint8Array): boolean;
  readonly isFinished: boolean;
  readonly tokenCount: number;
  rollback(n: number): void;
  fork(): TokenMatcher;
  forcedBytes(maxBytes?: number): Uint8Array;
  forcedTokens(encode: (bytes: Uint8Array) => readonly number[]): ForcedContinuation;
  dispose(): void;
}

/** `n` for `rollback`: an integer from 0 to the tokens committed, else a RangeError. */
export function checkRollback(n: number, committed: number): void {
  if (!(Number.isInteger(n) && n >= 0 && n <= committed)) throw new RangeError(`cannot roll back ${n} of ${committed} tokens`);
}

/** `maxBytes` for `forcedBytes`: a non-negative integer, else a RangeError. */
export function checkByteCap(maxBytes: number): void {
  if (!(Number.isInteger(maxBytes) && maxBytes >= 0)) throw new RangeError(`forcedBytes takes a non-negative integer cap, not ${maxBytes}`);
}

/** The bytes a grammar forces next, and the tokens to append for them without sampling. */
export interface ForcedContinuation {
  readonly bytes: Uint8Array;
  readonly tokens: number[];
}

/**
 * The forced continuation of `matcher`: `encode` is the tokenizer's own (canonical) encoder;
 * its last token is held back, because the bytes that follow the forced text could merge with
 * it. Every returned token is checked to be allowed in turn.
 */
export function forcedTokensOf(matcher: TokenMatcher, encode: (bytes: Uint8Array) => readonly number[]): ForcedContinuation {
  const bytes = matcher.forcedBytes();
  if (bytes.length === 0) return { bytes, tokens: [] };
  const probe = matcher.fork();
  const tokens: number[] = [];
  try {
    for (const token of encode(bytes).slice(0, -1)) {
      if (!probe.commitToken(token)) break;
      tokens.push(token);
    }
  } finally {
    probe.dispose();
  }
  return { bytes, tokens };
}

/** Options of a matcher. */
export interface MatcherOptions {
  /** Token ids that end generation; default: the vocab index's `eos_token_ids`. */
  readonly eosTokenIds?: readonly number[];
}

/** Result of feeding bytes to a fresh matcher (the byte-level recognizer). */
export interface Recognition {
  /** Every byte was accepted. */
  readonly accepted: boolean;
  /** The input is a complete sentence of the grammar. */
  readonly complete: boolean;
  /** Offset of the first rejected byte, or -1. */
  readonly rejectedAt: number;
}

// Completions `shortestCompletion` tries, shortest first, before it gives up.
const MAX_COMPLETION_CANDIDATES = 8;
// Bytes a repair tries in place of one the matcher refused: letters and digits first, then
// the rest of printable ASCII.
const REPAIR_BYTES = [...'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c) => c.charCodeAt(0));
for (let byte = 0x20; byte < 0x7f; byte++) if (!REPAIR_BYTES.includes(byte)) REPAIR_BYTES.push(byte);

// Start states of the lexer per Earley set (expected terminals ∪ ignored lexemes).
const lexerStarts = new WeakMap<EarleySet, number>();

/** Matches one output stream against a compiled grammar (the TypeScript reference). */
export class Matcher implements TokenMatcher {
  readonly grammar: CompiledGrammar;
  readonly vocab: VocabIndex | null;
  readonly #eos: readonly number[];
  #chart: EarleySet[];
  #lex: number;
  #lexLen = 0;
  #finished = false;
  // Per committed byte, the state before it: lex, lexLen, chart length.
  #history: number[] = [];
  // Per committed token: history length before it (EOS tokens store -1 - length).
  #tokens: number[] = [];

  // Arrays whose items must be distinct (`unique-items.ts`): the cursor, and its state
  // before each committed token (for rollback). Null when the grammar has none.
  #unique: UniqueItems | null;
  #uniqueBefore: (UniqueItems | null)[] = [];

  constructor(grammar: CompiledGrammar, vocab: VocabIndex | null = null, options: MatcherOptions = {}) {
    this.grammar = grammar;
    this.vocab = vocab;
    this.#eos = options.eosTokenIds ?? vocab?.meta.eos_token_ids ?? [];
    this.#chart = [initialSet(grammar)];
    this.#lex = this.#startState();
    this.#unique = grammar.ir.uniqueArrays === undefined ? null : new UniqueItems(grammar.ir.uniqueArrays);
  }

  /** Whether the output so far is a complete sentence (so EOS is allowed). */
  isAccepting(): boolean {
    if (this.#finished) return true;
    if (this.#lexLen === 0) return this.#last.accepting;
    const saved = this.#save();
    try {
      return this.#endLexeme() && this.#last.accepting;
    } finally {
      this.#restore(saved);
    }
  }

  /** Whether feeding `bytes` would leave the output complete; the matcher is unchanged. */
  completes(bytes: Uint8Array): boolean {
    if (this.#finished) return bytes.length === 0;
    return this.#tentatively(() => this.commitBytes(bytes) && this.isAccepting());
  }

  // Runs `run`, then puts the matcher back as it was (bytes committed in it are undone).
  #tentatively<T>(run: () => T): T {
    const saved = this.#save();
    const historyLength = this.#history.length;
    const unique = this.#unique;
    try {
      return run();
    } finally {
      this.#restore(saved);
      this.#history.length = historyLength;
      this.#unique = unique;
    }
  }

  /** Whether EOS has been committed: nothing more may follow. */
  get isFinished(): boolean {
    return this.#finished;
  }

  /** Number of committed tokens (EOS included). */
  get tokenCount(): number {
    return this.#tokens.length;
  }

  /** Feeds bytes. On rejection the state is left as before the call and `false` returned. */
  commitBytes(bytes: Uint8Array): boolean {
    if (this.#finished) return false;
    const saved = this.#save();
    const historyLength = this.#history.length;
    const undo = (): false => {
      this.#restore(saved);
      this.#history.length = historyLength;
      return false;
    };
    for (const byte of bytes) {
      this.#history.push(this.#lex, this.#lexLen, this.#chart.length);
      if (!this.#step(byte)) return undo();
    }
    // The items kept distinct are read after the grammar took the bytes (the cursor follows
    // JSON the grammar accepts, not any bytes).
    const unique = this.#unique?.copy() ?? null;
    if (unique !== null && !unique.feed(bytes)) return undo();
    this.#unique = unique;
    return true;
  }

  /** Commits a token. Returns `false`, changing nothing, if the grammar does not allow it. */
  commitToken(id: number): boolean {
    const vocab = this.#requireVocab();
    if (this.#finished) return false;
    const before = this.#unique;
    if (this.#eos.includes(id)) {
      if (!this.isAccepting()) return false;
      this.#tokens.push(-1 - this.#history.length);
      this.#uniqueBefore.push(before);
      this.#finished = true;
      return true;
    }
    if (!Number.isInteger(id) || id < 0 || id >= vocab.tokenCount || !vocab.isTextToken(id)) return false;
    const start = this.#history.length;
    if (!this.commitBytes(vocab.tokenBytes(id))) return false;
    this.#tokens.push(start);
    this.#uniqueBefore.push(before);
    return true;
  }

  /** Undoes the last `n` committed tokens. */
  rollback(n: number): void {
    checkRollback(n, this.#tokens.length);
    if (n === 0) return;
    const mark = this.#tokens[this.#tokens.length - n]!;
    this.#tokens.length -= n;
    this.#unique = this.#uniqueBefore[this.#uniqueBefore.length - n]!;
    this.#uniqueBefore.length -= n;
    const at = mark < 0 ? -1 - mark : mark;
    this.#finished = false;
    if (at < this.#history.length) {
      this.#restore([this.#history[at]!, this.#history[at + 1]!, this.#history[at + 2]!]);
      this.#history.length = at;
    }
  }

  /** An independent copy of this matcher (cheap: Earley sets are shared, never mutated). */
  fork(): Matcher {
    const copy = new Matcher(this.grammar, this.vocab, { eosTokenIds: this.#eos });
    copy.#chart = this.#chart.slice();
    copy.#lex = this.#lex;
    copy.#lexLen = this.#lexLen;
    copy.#finished = this.#finished;
    copy.#history = this.#history.slice();
    copy.#tokens = this.#tokens.slice();
    copy.#unique = this.#unique?.copy() ?? null;
    copy.#uniqueBefore = this.#uniqueBefore.slice();
    return copy;
  }

  /** The exact set of allowed next tokens as a packed bitset over the vocabulary. */
  computeMaskBitset(): Uint32Array {
    const vocab = this.#requireVocab();
    const bits = emptyBitset(vocab.tokenCount);
    if (this.#finished) return bits;
    const { trie, trieNodeCount } = vocab;
    const saved = this.#save();
    const deadline = performance.now() + this.grammar.limits.maxMaskMs;
    // States at each depth of the current trie path (3 numbers per depth).
    const path: number[] = [...saved];
    try {
      let node = 1;
      let visited = 0;
      while (node < trieNodeCount) {
        const word0 = trie[node * 2]!;
        const word1 = trie[node * 2 + 1]!;
        const depth = word1 >>> L.TRIE_DEPTH_SHIFT;
        const at = (depth - 1) * 3;
        this.#restore([path[at]!, path[at + 1]!, path[at + 2]!]);
        if (this.#step(word0 & L.TRIE_BYTE_MASK)) {
          const token = word0 >>> L.TRIE_TOKEN_SHIFT;
          if (token !== 0) bitsetAdd(bits, token - 1);
          path[depth * 3] = this.#lex;
          path[depth * 3 + 1] = this.#lexLen;
          path[depth * 3 + 2] = this.#chart.length;
          node++;
        } else {
          node += word1 & L.TRIE_SUBTREE_MASK;
        }
        if ((++visited & 1023) === 0 && performance.now() > deadline) {
          throw new GrammarLimitError(
            'maxMaskMs',
            this.grammar.limits.maxMaskMs,
            `computing the mask took longer than ${this.grammar.limits.maxMaskMs} ms (maxMaskMs)`,
          );
        }
      }
    } finally {
      this.#restore(saved);
    }
    const duplicates = vocab.duplicates;
    for (let i = 0; i < duplicates.length; i += 2) {
      const primary = duplicates[i + 1]!;
      if ((bits[primary >>> 5]! >>> (primary & 31)) & 1) bitsetAdd(bits, duplicates[i]!);
    }
    // An EOS id ends the output wherever it is committed (a text token too): allowed only
    // where the output is complete.
    const accepting = this.isAccepting();
    for (const id of this.#eos) if (id >= 0 && id < vocab.tokenCount) bitsetPut(bits, id, accepting);
    if (this.#unique !== null) withoutRepeatedItems(this.#unique, bits, vocab, vocab.tokenCount, (id) => vocab.tokenBytes(id));
    return bits;
  }

  /** The exact mask of allowed next tokens, BRLE-encoded. */
  computeMask(): Brle {
    return brleFromBitset(this.computeMaskBitset(), this.#requireVocab().tokenCount);
  }

  /**
   * The bytes the grammar forces next: while exactly one byte can follow and the output is
   * not complete, that byte is forced. Empty when there is a choice.
   */
  forcedBytes(maxBytes = 4096): Uint8Array {
    checkByteCap(maxBytes);
    const probe = this.fork();
    const forced: number[] = [];
    while (forced.length < maxBytes && !probe.isAccepting()) {
      let only = -1;
      for (let byte = 0; byte < 256; byte++) {
        const saved = probe.#save();
        const ok = probe.#step(byte);
        probe.#restore(saved);
        if (!ok) continue;
        if (only >= 0) return Uint8Array.from(forced);
        only = byte;
      }
      if (only < 0) break;
      probe.#step(only);
      forced.push(only);
    }
    return Uint8Array.from(forced);
  }

  /** The forced continuation for fast-forward (see `forcedTokensOf`). */
  forcedTokens(encode: (bytes: Uint8Array) => readonly number[]): ForcedContinuation {
    return forcedTokensOf(this, encode);
  }

  /**
   * Bytes that complete the output (output + bytes is a sentence), as short as the grammar
   * analysis of `completion-candidates.ts` finds them: its candidates, shortest first, are
   * fed here and rolled back until one ends complete; null when none does. Empty when the
   * output is complete.
   */
  shortestCompletion(): Uint8Array | null {
    if (this.#finished || this.isAccepting()) return new Uint8Array(0);
    return this.#tentatively(() => this.#completion(true));
  }

  // The candidates, checked. Where the matcher refuses them all at a byte the grammar allows
  // (its checks beyond the grammar: a member name written twice, an item repeated), one
  // repair: the first candidate up to that byte, another byte there, then the candidates
  // from there (`bytes` committed on the way: the caller undoes them).
  #completion(repair: boolean): Uint8Array | null {
    const candidates = completionCandidates(this.grammar, this.#chart, this.#lex, this.#lexLen, MAX_COMPLETION_CANDIDATES);
    for (const bytes of candidates) if (this.completes(bytes)) return bytes;
    const first = candidates[0];
    if (!repair || first === undefined) return null;
    let kept = 0;
    while (kept < first.length && this.commitBytes(first.subarray(kept, kept + 1))) kept++;
    if (kept === first.length) return null;
    for (const byte of REPAIR_BYTES) {
      if (byte === first[kept]) continue;
      const rest = this.#tentatively(() => (this.commitBytes(Uint8Array.of(byte)) ? this.#completion(false) : null));
      if (rest !== null) return Uint8Array.of(...first.subarray(0, kept), byte, ...rest);
    }
    return null;
  }

  /** Nothing to free (the kernel matcher needs this). */
  dispose(): void {}

  get #last(): EarleySet {
    return this.#chart[this.#chart.length - 1]!;
  }

  #requireVocab(): VocabIndex {
    if (this.vocab === null) throw new Error('this matcher was created without a vocab index: only byte-level calls are available');
    return this.vocab;
  }

  #save(): [number, number, number] {
    return [this.#lex, this.#lexLen, this.#chart.length];
  }

  #restore([lex, lexLen, chartLength]: readonly number[]): void {
    this.#lex = lex!;
    this.#lexLen = lexLen!;
    this.#chart.length = chartLength!;
  }

  #startState(): number {
    const set = this.#last;
    let state = lexerStarts.get(set);
    if (state === undefined) {
      state = this.grammar.lexer.start(set.expected);
      lexerStarts.set(set, state);
    }
    return state;
  }

  // One byte. Greedy lexemes continue while they can; when the byte cannot continue the
  // lexeme in progress, that lexeme ends (if complete) and the byte starts the next one.
  #step(byte: number): boolean {
    const lexer = this.grammar.lexer;
    let next = lexer.next(this.#lex, byte);
    if (next === DEAD) {
      if (this.#lexLen === 0 || !this.#endLexeme()) return false;
      next = lexer.next(this.#lex, byte);
      if (next === DEAD) return false;
    }
    this.#lex = next;
    this.#lexLen++;
    return this.#lazyEnd();
  }

  // Lazy lexemes end at their first complete match.
  #lazyEnd(): boolean {
    return this.grammar.lexer.endsLazily(this.#lex) ? this.#endLexeme() : true;
  }

  // Ends the lexeme in progress: the parser scans the complete lexemes of highest priority.
  #endLexeme(): boolean {
    const accepting = this.grammar.lexer.winners(this.#lex);
    if (accepting.length === 0) return false;
    const expected = this.#last.expected;
    const scanned = accepting.filter((l) => binarySearch(expected, l));
    if (scanned.length > 0) {
      const set = scanSet(this.grammar, this.#chart, scanned);
      if (set === null) return false;
      this.#chart.push(set);
    } else if (!accepting.some((l) => this.grammar.ignore.includes(l))) {
      return false;
    }
    this.#lex = this.#startState();
    this.#lexLen = 0;
    return true;
  }
}

/** Feeds `bytes` to a fresh matcher: the byte-level recognizer. */
export function recognize(grammar: CompiledGrammar, bytes: Uint8Array): Recognition {
  const matcher = new Matcher(grammar);
  for (let i = 0; i < bytes.length; i++) {
    if (!matcher.commitBytes(bytes.subarray(i, i + 1))) return { accepted: false, complete: false, rejectedAt: i };
  }
  return { accepted: true, complete: matcher.isAccepting(), rejectedAt: -1 };
}

function binarySearch(sorted: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
