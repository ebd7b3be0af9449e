/**
 * The matcher on the WASM hot path: the same algorithm as `Matcher`, run by kernel.wasm
 * (packages/kernel/assembly/, from matcher.ts) over flat tables compiled here. Per-token work — commit and the
 * trie-walk mask — is one kernel call once the lazily built lexer is warm; while it is cold,
 * the kernel asks for missing lexer transitions (STATUS_NEED_*), which this side computes
 * with the shared `LexerDfa` and hands over, and the kernel resumes. Lazily lowered
 * nonterminals (permutation states) are built the same way (STATUS_NEED_RULES), and so is
 * the list of token slices a lexer state accepts whole (STATUS_NEED_SLICES).
 */
import { bitsetWords, type Brle } from '@sieve/format';
import { kernelAbi as abi, KernelError, type Kernel, type KernelExports, type KernelVocab } from '@sieve/kernel';
import type { CompiledGrammar } from '../parser/compile-grammar.ts';
import { GrammarLimitError } from '../grammar-error.ts';
import { lexerRows } from '../limits.ts';
import { isCounted } from '../lexer/lexer-dfa.ts';
import { SLICE_TICKS_MOST, sliceLengthBound, sliceMask, widestSlices } from '../lexer/slice-acceptance.ts';
import { checkByteCap, checkRollback, forcedTokensOf, type ForcedContinuation, type TokenMatcher } from './reference-matcher.ts';
import { UniqueItems, withoutRepeatedItems } from './unique-items.ts';

/** A compiled grammar loaded into a kernel. Share it between matchers; `dispose()` when done. */
export class KernelGrammar {
  readonly kernel: Kernel;
  readonly grammar: CompiledGrammar;
  #ptr: number;
  #syncedStates = 0;
  #syncedNonterminals = 0;
  #syncedDots = 0;
  #syncedPredictions = 0;
  #syncedExpansions = 0;
  readonly #matchers = new Set<KernelMatcher>();
  // Scratch: the run of bytes a transition need is answered for.
  readonly #run = new Int32Array(2);

  constructor(kernel: Kernel, grammar: CompiledGrammar) {
    this.kernel = kernel;
    this.grammar = grammar;
    const g = grammar;
    this.#ptr =
      kernel.exports.grammarNew(
        g.terminalCount,
        0,
        0,
        0,
        g.ignore.length,
        g.ruleDot[g.startRule]!,
        g.limits.maxParserItems,
        g.limits.maxChartItems,
        g.limits.maskCacheBytes,
        g.limits.maxMaskMs,
        lexerRows(g.limits),
      ) >>> 0;
    new Int32Array(kernel.exports.memory.buffer, kernel.exports.grammarTable(this.#ptr, abi.TABLE_IGNORE) >>> 0, g.ignore.length).set(g.ignore);
    this.syncRules();
    this.syncLexer();
  }

  /**
   * Mirrors parser tables built since the last sync: new nonterminals, dotted rules, and the
   * predictions of nonterminals whose rules were built (lazily lowered ones included).
   */
  syncRules(): void {
    const g = this.grammar;
    const k = this.kernel.exports;
    const ntCount = g.nonterminalNames.length;
    const dotCount = g.dotNext.length;
    const built: number[] = [];
    for (let nt = this.#syncedNonterminals; nt < ntCount; nt++) if (g.rulesOf[nt] !== null) built.push(nt);
    for (let i = this.#syncedExpansions; i < g.expanded.length; i++) {
      const nt = g.expanded[i]! - g.terminalCount;
      if (nt < this.#syncedNonterminals) built.push(nt);
    }
    const predictCount = built.reduce((n, nt) => n + g.rulesOf[nt]!.length, this.#syncedPredictions);
    if (ntCount === this.#syncedNonterminals && dotCount === this.#syncedDots && built.length === 0) return;
    k.grammarGrow(this.ptr, ntCount, dotCount, predictCount);
    // Views after growing: the tables may have moved.
    const table = (which: number, from: number, to: number): Int32Array =>
      new Int32Array(k.memory.buffer, (k.grammarTable(this.#ptr, which) >>> 0) + 4 * from, to - from);
    const dotNext = table(abi.TABLE_DOT_NEXT, this.#syncedDots, dotCount);
    const dotLhs = table(abi.TABLE_DOT_LHS, this.#syncedDots, dotCount);
    for (let d = this.#syncedDots; d < dotCount; d++) {
      dotNext[d - this.#syncedDots] = g.dotNext[d]!;
      dotLhs[d - this.#syncedDots] = g.ruleLhs[g.dotRule[d]!]!;
    }
    new Uint8Array(k.memory.buffer, k.grammarTable(this.#ptr, abi.TABLE_NULLABLE) >>> 0, ntCount).set(
      g.nullable.slice(this.#syncedNonterminals),
      this.#syncedNonterminals,
    );
    const predict = table(abi.TABLE_PREDICT, this.#syncedPredictions, predictCount);
    const from = table(abi.TABLE_PREDICT_FROM, 0, ntCount);
    const to = table(abi.TABLE_PREDICT_TO, 0, ntCount);
    let at = this.#syncedPredictions;
    for (const nt of built) {
      from[nt] = at;
      for (const r of g.rulesOf[nt]!) predict[at++ - this.#syncedPredictions] = g.ruleDot[r]!;
      to[nt] = at;
    }
    this.#syncedNonterminals = ntCount;
    this.#syncedDots = dotCount;
    this.#syncedPredictions = predictCount;
    this.#syncedExpansions = g.expanded.length;
  }

  /** Pointer of the grammar in linear memory. */
  get ptr(): number {
    if (this.#ptr === 0) throw new KernelError('disposed', 'the kernel grammar was disposed');
    return this.#ptr;
  }

  /** Mirrors lexer states built since the last sync (their transitions start unknown). */
  syncLexer(): void {
    const lexer = this.grammar.lexer;
    const count = lexer.stateCount;
    if (count === this.#syncedStates) return;
    const k = this.kernel.exports;
    k.lexerGrow(this.ptr, count);
    let scratch = 0;
    try {
      for (let state = this.#syncedStates; state < count; state++) {
        const winners = lexer.winners(state);
        if (winners.length > 0 && scratch === 0) scratch = k.alloc(4 * lexer.lexemes.length + 4) >>> 0;
        if (winners.length > 0) new Int32Array(k.memory.buffer, scratch, winners.length).set(winners);
        k.lexerSetWinners(this.ptr, state, scratch, winners.length, lexer.endsLazily(state) ? 1 : 0);
        const shape = lexer.shape(state);
        if (shape !== undefined) k.lexerSetCounted(this.ptr, shape.index, state, shape.high, shape.high - SLICE_TICKS_MOST);
      }
    } finally {
      if (scratch !== 0) k.free(scratch);
    }
    this.#syncedStates = count;
  }

  /** Answers a kernel's STATUS_NEED_* for `matcher`. */
  resolveNeed(status: number, matcher: number): void {
    const k = this.kernel.exports;
    const lexer = this.grammar.lexer;
    if (status === abi.STATUS_NEED_RULES) {
      this.grammar.expand(k.matcherNeedState(matcher) + this.grammar.terminalCount);
      this.syncRules();
    } else if (status === abi.STATUS_NEED_TRANSITION) {
      // Only the run of bytes that leads where the needed byte does: a walk below the root
      // tries few of a state's bytes, and each state built costs (one per run, eagerly,
      // was four times the states a walk uses).
      const state = k.matcherNeedState(matcher);
      const byte = k.matcherNeedByte(matcher);
      if (isCounted(state)) {
        // The shape's relative transition, and where the count passes the target shape's
        // highest, the plain state that count is.
        const entry = lexer.shapeRun(lexer.shapeOf(state), byte, this.#run);
        const named = lexer.countedTarget(state, entry);
        const target = lexer.next(state, byte);
        this.syncLexer();
        k.lexerSetRun(this.ptr, lexer.shapeOf(state), this.#run[0]!, this.#run[1]!, entry);
        if (target !== named) k.lexerSetConcrete(this.ptr, named, target);
      } else {
        const target = lexer.nextRun(state, byte, this.#run);
        this.syncLexer();
        k.lexerSetRun(this.ptr, state, this.#run[0]!, this.#run[1]!, target);
      }
    } else if (status === abi.STATUS_NEED_SLICES) {
      const state = k.matcherNeedState(matcher);
      // The widest accepted slice of each kind is enough: the narrower ones lie inside it.
      const accepted = sliceMask(lexer, state);
      // (A counted state's slices serve its shape's every count up to the slice bound; a length
      // bound would not.)
      const length = isCounted(state) ? null : sliceLengthBound(lexer, state);
      this.syncLexer();
      k.lexerSetSlices(this.ptr, lexer.shapeOf(state), widestSlices(accepted), length?.above ?? 0, length?.bound ?? -1);
    } else {
      const list = new Int32Array(k.memory.buffer, k.matcherNeedList(matcher) >>> 0, k.matcherNeedListLength(matcher)).slice();
      const state = lexer.start(list);
      this.syncLexer();
      k.matcherResolveStart(matcher, state);
    }
  }

  /**
   * The mask cache's counters: masks served from it (`hits`), computed (`misses`), and what
   * it holds now (`entries`: masks, and what walks learned about their root lexer states).
   */
  maskCacheStats(): { readonly hits: number; readonly misses: number; readonly entries: number; readonly bytes: number } {
    const stat = (which: number): number => this.kernel.exports.grammarMaskCacheStat(this.ptr, which) >>> 0;
    return { hits: stat(0), misses: stat(1), entries: stat(2), bytes: stat(3) };
  }

  /** @internal */
  track(matcher: KernelMatcher, add: boolean): void {
    if (add) this.#matchers.add(matcher);
    else this.#matchers.delete(matcher);
  }

  /** Frees the grammar and every matcher on it. */
  dispose(): void {
    if (this.#ptr === 0) return;
    for (const matcher of [...this.#matchers]) matcher.dispose();
    this.kernel.exports.grammarFree(this.#ptr);
    this.#ptr = 0;
  }
}

/** Options of a kernel matcher. */
export interface KernelMatcherOptions {
  /** Token ids that end generation. */
  readonly eosTokenIds: readonly number[];
}

/** A matcher whose state lives in the kernel. API as `Matcher`; call `dispose()` when done. */
export class KernelMatcher implements TokenMatcher {
  readonly grammar: KernelGrammar;
  readonly vocab: KernelVocab;
  readonly #eos: readonly number[];
  #ptr: number;
  #bits = 0;
  // The last view of the mask (made again only when kernel memory grew).
  #view: Uint32Array | undefined;
  // Arrays whose items must be distinct (`unique-items.ts`): the cursor, and its state
  // before each committed token (for rollback). Null when the grammar has none.
  #unique: UniqueItems | null;
  #uniqueBefore: UniqueItems[] = [];

  constructor(grammar: KernelGrammar, vocab: KernelVocab, options: KernelMatcherOptions, fromPtr?: number, from?: KernelMatcher) {
    this.grammar = grammar;
    this.vocab = vocab;
    this.#eos = options.eosTokenIds;
    const table = grammar.grammar.ir.uniqueArrays;
    this.#unique = table === undefined ? null : new UniqueItems(table);
    if (from !== undefined && from.#unique !== null) {
      this.#unique = from.#unique.copy();
      this.#uniqueBefore = from.#uniqueBefore.slice();
    }
    const k = this.#k;
    if (fromPtr !== undefined) {
      this.#ptr = fromPtr;
    } else {
      const eos = k.alloc(4 * Math.max(1, this.#eos.length)) >>> 0;
      new Int32Array(k.memory.buffer, eos, this.#eos.length).set(this.#eos);
      this.#ptr = k.matcherNew(grammar.ptr, vocab.ptr, vocab.serial, eos, this.#eos.length) >>> 0;
      k.free(eos);
    }
    grammar.track(this, true);
    try {
      this.#run(() => k.matcherStart(this.#m));
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  get #k(): KernelExports {
    return this.grammar.kernel.exports;
  }

  get #m(): number {
    if (this.#ptr === 0) throw new KernelError('disposed', 'the matcher was disposed');
    return this.#ptr;
  }

  /** Whether the output so far is complete (so EOS is allowed). */
  isAccepting(): boolean {
    return this.#run(() => this.#k.matcherIsAccepting(this.#m)) === 1;
  }

  /** Whether feeding `bytes` would leave the output complete; the matcher is unchanged. */
  completes(bytes: Uint8Array): boolean {
    // (The grammar first: the cursor of distinct items follows JSON the grammar accepts.)
    if (this.#withBytes(bytes, (ptr) => this.#run(() => this.#k.matcherCompletes(this.#m, ptr, bytes.length))) !== 1) return false;
    return this.#unique === null || this.#unique.copy().feed(bytes);
  }

  get isFinished(): boolean {
    return this.#k.matcherIsFinished(this.#m) === 1;
  }

  get tokenCount(): number {
    return this.#k.matcherTokenCount(this.#m);
  }

  /** Commits a token; `false`, changing nothing, if the grammar does not allow it. */
  commitToken(id: number): boolean {
    // (No closure: this and the mask are the per-token path. An id the kernel would read as
    // another, 1.5 or 2^32 + 3, is no token.)
    if (!(id >= 0 && id <= 0x7fffffff && Number.isInteger(id))) return false;
    const k = this.#k;
    const m = this.#m;
    k.lexerTrim(this.grammar.ptr);
    let status = k.matcherCommitToken(m, id);
    while (this.#answered(status)) status = k.matcherCommitToken(m, id);
    if (this.#checked(status) !== abi.STATUS_OK) return false;
    // The items kept distinct are read after the grammar took the token (the cursor follows
    // JSON the grammar accepts, not any bytes).
    const before = this.#unique;
    if (before === null) return true;
    const after = this.#eos.includes(id) ? before : this.#fed(before, this.vocab.index.tokenBytes(id));
    if (after === undefined) {
      k.matcherRollback(m, 1);
      return false;
    }
    this.#uniqueBefore.push(before);
    this.#unique = after;
    return true;
  }

  /** Feeds bytes; `false`, changing nothing, if they are not allowed. */
  commitBytes(bytes: Uint8Array): boolean {
    if (this.#unique === null) return this.#grammarTakes(bytes);
    // The grammar reads the bytes first, on a fork: the cursor of distinct items follows JSON
    // the grammar accepts, not any bytes.
    const probe = this.fork();
    let taken: boolean;
    try {
      taken = probe.#grammarTakes(bytes);
    } finally {
      probe.dispose();
    }
    const after = taken ? this.#fed(this.#unique, bytes) : undefined;
    if (after === undefined || !this.#grammarTakes(bytes)) return false;
    this.#unique = after;
    return true;
  }

  // Feeds bytes to the grammar alone.
  #grammarTakes(bytes: Uint8Array): boolean {
    return this.#withBytes(bytes, (ptr) => this.#run(() => this.#k.matcherCommitBytes(this.#m, ptr, bytes.length)) === abi.STATUS_OK);
  }

  // The cursor after `bytes` (a copy), or undefined when they repeat an item.
  #fed(cursor: UniqueItems, bytes: Uint8Array): UniqueItems | undefined {
    const after = cursor.copy();
    return after.feed(bytes) ? after : undefined;
  }

  /**
   * The matcher's exact state key (see the kernel's `matcherStateKey`): equal keys of one
   * grammar (in one cache epoch) allow the same continuations. Null when the grammar caches
   * no masks, the chart is too big to key, or the matcher is finished.
   */
  stateKey(): { readonly key: string; readonly epoch: number } | null {
    // With items to keep distinct, what may follow depends on the items written too.
    if (this.#unique !== null) return null;
    const k = this.#k;
    const out = k.alloc(12) >>> 0;
    try {
      if (k.matcherStateKey(this.#m, out) !== 1) return null;
      const [top, lex, epoch] = new Int32Array(k.memory.buffer, out, 3);
      return { key: `${top} ${lex}`, epoch: epoch! };
    } finally {
      k.free(out);
    }
  }

  /** Undoes the last `n` tokens. */
  rollback(n: number): void {
    checkRollback(n, this.tokenCount);
    if (this.#k.matcherRollback(this.#m, n) !== abi.STATUS_OK) throw new RangeError(`cannot roll back ${n} of ${this.tokenCount} tokens`);
    if (this.#unique !== null && n > 0) {
      this.#unique = this.#uniqueBefore[this.#uniqueBefore.length - n]!;
      this.#uniqueBefore.length -= n;
    }
  }

  /** An independent copy (dispose it too). */
  fork(): KernelMatcher {
    return new KernelMatcher(this.grammar, this.vocab, { eosTokenIds: this.#eos }, this.#k.matcherFork(this.#m) >>> 0, this);
  }

  /** The exact set of allowed next tokens as a packed bitset (a copy). */
  computeMaskBitset(): Uint32Array {
    return this.computeMaskView().slice();
  }

  /**
   * The same bitset without a copy: a view of the matcher's buffer in kernel memory, valid
   * until the matcher's next call (or any call that grows kernel memory).
   */
  computeMaskView(): Uint32Array {
    const bits = this.#maskInKernel();
    const buffer = this.#k.memory.buffer;
    if (this.#view?.buffer !== buffer || this.#view.byteOffset !== bits) this.#view = new Uint32Array(buffer, bits, bitsetWords(this.vocab.tokenCount));
    return this.#view;
  }

  /** The exact mask of allowed next tokens, BRLE-encoded (encoded inside the kernel). */
  computeMask(): Brle {
    return this.grammar.kernel.brleFromBitsetAt(this.#maskInKernel(), this.vocab.tokenCount);
  }

  /**
   * The bytes the grammar forces next: while exactly one byte can follow and the output is
   * not complete, that byte. Empty when there is a choice.
   */
  forcedBytes(maxBytes = 4096): Uint8Array {
    checkByteCap(maxBytes);
    const k = this.#k;
    const out = k.alloc(maxBytes) >>> 0;
    try {
      this.#run(() => k.matcherForcedBytes(this.#m, out, maxBytes));
      return new Uint8Array(k.memory.buffer, out, k.matcherForcedCount(this.#m)).slice();
    } finally {
      k.free(out);
    }
  }

  /** The forced continuation for fast-forward (see `forcedTokensOf`). */
  forcedTokens(encode: (bytes: Uint8Array) => readonly number[]): ForcedContinuation {
    return forcedTokensOf(this, encode);
  }

  /** Frees the matcher's kernel memory. */
  dispose(): void {
    if (this.#ptr === 0) return;
    const k = this.#k;
    k.matcherFree(this.#ptr);
    if (this.#bits !== 0) k.free(this.#bits);
    this.#ptr = 0;
    this.#bits = 0;
    this.#view = undefined;
    this.grammar.track(this, false);
  }

  #maskInKernel(): number {
    const k = this.#k;
    if (this.#bits === 0) this.#bits = k.alloc(4 * bitsetWords(this.vocab.tokenCount)) >>> 0;
    const m = this.#m;
    try {
      k.lexerTrim(this.grammar.ptr);
      let status = k.matcherMaskBegin(m, this.#bits, this.grammar.grammar.limits.maxMaskMs);
      while (this.#answered(status)) status = k.matcherMaskResume(m);
      this.#checked(status);
    } catch (error) {
      k.matcherMaskAbort(this.#m);
      throw error;
    }
    if (this.#unique !== null) {
      // The grammar's mask less the tokens that would repeat an item (in the matcher's own buffer).
      const count = this.vocab.tokenCount;
      const bits = new Uint32Array(k.memory.buffer, this.#bits, bitsetWords(count));
      const index = this.vocab.index;
      withoutRepeatedItems(this.#unique, bits, this.vocab, count, (id) => index.tokenBytes(id));
    }
    return this.#bits;
  }

  // Runs a kernel operation, answering its needs until it completes (it starts over after
  // each: lexer rows are dropped only before it); limits become errors.
  // `use` of a copy of `bytes` in kernel memory (at the pointer it is given).
  #withBytes<T>(bytes: Uint8Array, use: (ptr: number) => T): T {
    const k = this.#k;
    const ptr = k.alloc(Math.max(1, bytes.length)) >>> 0;
    try {
      new Uint8Array(k.memory.buffer, ptr, bytes.length).set(bytes);
      return use(ptr);
    } finally {
      k.free(ptr);
    }
  }

  #run(operation: () => number): number {
    this.#k.lexerTrim(this.grammar.ptr);
    let status = operation();
    while (this.#answered(status)) status = operation();
    return this.#checked(status);
  }

  // Whether `status` was a need of the kernel (now answered: run the operation again).
  #answered(status: number): boolean {
    if (status !== abi.STATUS_NEED_TRANSITION && status !== abi.STATUS_NEED_START && status !== abi.STATUS_NEED_RULES && status !== abi.STATUS_NEED_SLICES)
      return false;
    this.grammar.resolveNeed(status, this.#m);
    return true;
  }

  // `status`, unless it is a limit: then the limit's error.
  #checked(status: number): number {
    const limits = this.grammar.grammar.limits;
    if (status === abi.STATUS_LIMIT_ITEMS) {
      throw new GrammarLimitError(
        'maxParserItems',
        limits.maxParserItems,
        `a parser step needs more than ${limits.maxParserItems} Earley items (maxParserItems); the grammar is too ambiguous here`,
      );
    }
    if (status === abi.STATUS_LIMIT_CHART) {
      throw new GrammarLimitError(
        'maxChartItems',
        limits.maxChartItems,
        `the output's parse needs more than ${limits.maxChartItems} Earley items in all (maxChartItems); a long repetition is parsed at a quadratic cost here`,
      );
    }
    if (status === abi.STATUS_LIMIT_TIME) {
      throw new GrammarLimitError(
        'maxMaskMs',
        limits.maxMaskMs,
        `a mask or a commit took longer than ${limits.maxMaskMs} ms (maxMaskMs); the grammar is too ambiguous or too large here`,
      );
    }
    return status;
  }
}
