/**
 * The lexer: every lexeme compiled to one Thompson NFA over bytes (those with an
 * intersection or complement when first allowed, if they surely match something), and a DFA
 * built lazily from it by subset construction. A DFA state is a set of NFA states of the
 * lexemes allowed at the current boundary; its transitions are computed the first time a
 * byte is tried (for every byte that behaves alike at once) and cached, so steady-state
 * lexing is one table lookup per byte.
 */
import { isNullable, languageFacts, nonEmpty, type ByteAutomaton, type ByteRegex } from '../ir/byte-regex.ts';
import { GrammarLimitError } from '../grammar-error.ts';
import type { LexemeDef } from '../ir/grammar-ir.ts';
import { kernelAbi } from '@sieve/kernel';
import { DEFAULT_LIMITS, lexerRows, type GrammarLimits } from '../limits.ts';
import { minimizeDfa } from './minimize-dfa.ts';
import { foldOperands } from './product-operands.ts';
import { SetTable } from './set-table.ts';
import { withRoom } from './typed-arrays.ts';

/** The DFA state with no NFA states: nothing can follow. */
export const DEAD = 0;
// DFA states per block of transitions (64 KB).
const ROW_BLOCK = 64;
// Most pairs of operand states a product keys in a flat table (4 bytes each) rather than a map.
const PAIR_TABLE_MAX = 1 << 20;
// The largest product operand copied as a shadow (`Nfa.#noteShadows`).
const MAX_SHADOW_STATES = 4096;

// A growable list of 32-bit integers.
class IntList {
  data = new Int32Array(64);
  length = 0;

  push(value: number): number {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length] = value;
    return this.length++;
  }

  // Appends `count` copies of `value`.
  fill(value: number, count: number): void {
    if (this.length + count > this.data.length) this.data = withRoom(this.data, this.length + count);
    this.data.fill(value, this.length, this.length + count);
    this.length += count;
  }
}

// The index of the first of `cuts` (sorted, 0 and 256 included) above `byte`.
function cutAfter(cuts: ArrayLike<number>, byte: number): number {
  let i = 1;
  while (cuts[i]! <= byte) i++;
  return i;
}

// Unlinks, from the list of `state` (first entries in `heads`, links in `links`), the
// entries whose target is not live.
function keepLive(heads: IntList, links: IntList, targets: IntList, state: number, isLive: (target: number) => boolean): void {
  let kept = -1;
  for (let at = heads.data[state]!; at >= 0;) {
    const next = links.data[at]!;
    if (isLive(targets.data[at]!)) {
      links.data[at] = kept;
      kept = at;
    }
    at = next;
  }
  heads.data[state] = kept;
}

/**
 * A Thompson NFA over bytes, stored flat (typed arrays, no object per state): each state's
 * ε-moves and byte edges are linked lists through the move and edge arrays (-1 ends a list).
 */
class Nfa {
  readonly #accepts = new IntList(); // per state: lexeme index, or -1
  readonly #firstMove = new IntList(); // per state
  readonly #firstEdge = new IntList(); // per state
  readonly #moveTo = new IntList();
  readonly #moveNext = new IntList();
  readonly #edgeLo = new IntList();
  readonly #edgeHi = new IntList();
  readonly #edgeTo = new IntList();
  readonly #edgeNext = new IntList();
  // Products whose states get a stand-in for the slice checks (`frozen` copies them in).
  readonly #shadows: PendingShadow[] = [];
  // Automata whose states are here but whose edges `frozen` copies in (`#sharedAutomaton`).
  readonly #blocks: AutomatonBlock[] = [];
  // Moves and edges when `frozen` last ran.
  #frozenMoves = 0;
  #frozenEdges = 0;

  /**
   * Counted repetitions this automaton counts virtually (`CountedRegion`), or null where
   * every copy is built (automata of products' operands, whose pairing needs every state).
   */
  readonly regions: CountedRegion[] | null;
  /** Products with a counted operand (`TickRegion`), where `regions` is not null. */
  readonly ticking: TickRegion[] = [];
  #nextVirtual = VIRTUAL_BASE;
  // Inside a counted region's template, counts are copied (a virtual copy of a virtual copy
  // would need a second counter).
  #inTemplate = false;

  constructor(
    readonly maxStates: number,
    countsVirtually = false,
  ) {
    this.regions = countsVirtually ? [] : null;
  }

  get stateCount(): number {
    return this.#accepts.length;
  }

  newState(): number {
    this.#room(1);
    this.#firstMove.push(-1);
    this.#firstEdge.push(-1);
    return this.#accepts.push(-1);
  }

  // Throws unless `count` more states stay within `maxStates`.
  #room(count: number): void {
    if (this.#accepts.length + count > this.maxStates) {
      throw new GrammarLimitError(
        'maxNfaStates',
        this.maxStates,
        `the lexemes need more than ${this.maxStates} automaton states (maxNfaStates); simplify large counted repetitions such as {1,100000}`,
      );
    }
  }

  setAccepts(state: number, lexeme: number): void {
    this.#accepts.data[state] = lexeme;
  }

  addMove(from: number, to: number): void {
    this.#moveTo.push(to);
    this.#firstMove.data[from] = this.#moveNext.push(this.#firstMove.data[from]!);
  }

  addEdge(from: number, lo: number, hi: number, to: number): void {
    this.#edgeLo.push(lo);
    this.#edgeHi.push(hi);
    this.#edgeTo.push(to);
    this.#firstEdge.data[from] = this.#edgeNext.push(this.#firstEdge.data[from]!);
  }

  /**
   * The states from `first` on as compressed rows, once the shadows noted since are copied
   * in: state first + i's ε-move targets are entries moveStart[i] to moveStart[i + 1] of
   * moveTo, its edges likewise; per state, its life proxy (`#buildShadows`) or -1.
   */
  frozen(first: number): FrozenNfa {
    const proxies = this.#buildShadows();
    const count = this.stateCount - first;
    const moveStart = new Int32Array(count + 1);
    const edgeStart = new Int32Array(count + 1);
    // The states' moves and edges were all added since the last freeze (the blocks' too).
    const blocks = this.#blocks.splice(0);
    const moveTo = new Int32Array(this.#moveTo.length - this.#frozenMoves);
    const edgeLo = new Uint8Array(this.#edgeTo.length - this.#frozenEdges + blocks.reduce((sum, block) => sum + block.automaton.edgeTo.length, 0));
    const edgeHi = new Uint8Array(edgeLo.length);
    const edgeTo = new Int32Array(edgeLo.length);
    let moves = 0;
    let edges = 0;
    let block = 0;
    for (let i = 0; i < count; i++) {
      moveStart[i] = moves;
      for (let m = this.#firstMove.data[first + i]!; m >= 0; m = this.#moveNext.data[m]!) moveTo[moves++] = this.#moveTo.data[m]!;
      if (block < blocks.length && blocks[block]!.first === first + i) {
        // A block's rows as they are, its targets shifted to where its states are.
        const { first: at, automaton } = blocks[block++]!;
        const n = automaton.accepting.length;
        const base = edges;
        edgeLo.set(automaton.edgeLo, base);
        edgeHi.set(automaton.edgeHi, base);
        for (let e = 0; e < automaton.edgeTo.length; e++) edgeTo[base + e] = automaton.edgeTo[e]! + at;
        for (let x = 0; x < n; x++) {
          edgeStart[i + x] = base + automaton.edgeStart[x]!;
          if (x > 0) {
            moveStart[i + x] = moves;
            for (let m = this.#firstMove.data[first + i + x]!; m >= 0; m = this.#moveNext.data[m]!) moveTo[moves++] = this.#moveTo.data[m]!;
          }
        }
        edges = base + automaton.edgeTo.length;
        i += n - 1;
        continue;
      }
      edgeStart[i] = edges;
      for (let e = this.#firstEdge.data[first + i]!; e >= 0; e = this.#edgeNext.data[e]!, edges++) {
        edgeLo[edges] = this.#edgeLo.data[e]!;
        edgeHi[edges] = this.#edgeHi.data[e]!;
        edgeTo[edges] = this.#edgeTo.data[e]!;
      }
    }
    moveStart[count] = moves;
    edgeStart[count] = edges;
    this.#frozenMoves = this.#moveTo.length;
    this.#frozenEdges = this.#edgeTo.length;
    const lifeProxy = new Int32Array(count).fill(-1);
    for (let i = 0; i < proxies.length; i += 2) lifeProxy[proxies[i]! - first] = proxies[i + 1]!;
    return {
      moveStart,
      moveTo: moveTo.subarray(0, moves),
      edgeStart,
      edgeLo: edgeLo.subarray(0, edges),
      edgeHi: edgeHi.subarray(0, edges),
      edgeTo: edgeTo.subarray(0, edges),
      accepts: this.#accepts.data.slice(first, first + count),
      lifeProxy,
    };
  }

  // Copies in the shadows noted by products (now that no pruning can touch them: nothing
  // leads into them, and they lead to no lexeme's end); (state, its shadow) pairs.
  #buildShadows(): number[] {
    const proxies: number[] = [];
    for (const { operand, blocked, pairs } of this.#shadows) {
      const A = operand.nfa;
      if (this.stateCount + A.stateCount > this.maxStates) continue;
      const copy = new Int32Array(A.stateCount).fill(-1);
      const queue: number[] = [];
      const copyOf = (x: number): number => {
        if (copy[x]! < 0) {
          copy[x] = this.newState();
          queue.push(x);
        }
        return copy[x]!;
      };
      for (let i = 0; i < pairs.length; i += 2) proxies.push(pairs[i]!, copyOf(pairs[i + 1]!));
      for (let at = 0; at < queue.length; at++) {
        const x = queue[at]!;
        for (let m = A.#firstMove.data[x]!; m >= 0; m = A.#moveNext.data[m]!) if (!blocked.has(-1 - m)) this.addMove(copy[x]!, copyOf(A.#moveTo.data[m]!));
        for (let e = A.#firstEdge.data[x]!; e >= 0; e = A.#edgeNext.data[e]!)
          if (!blocked.has(e)) this.addEdge(copy[x]!, A.#edgeLo.data[e]!, A.#edgeHi.data[e]!, copyOf(A.#edgeTo.data[e]!));
      }
    }
    this.#shadows.length = 0;
    return proxies;
  }

  // Thompson construction: wires `regex` from state `from` to state `to`.
  build(regex: ByteRegex, from: number, to: number): void {
    switch (regex.kind) {
      case 'bytes':
        for (let i = 0; i < regex.ranges.length; i += 2) this.addEdge(from, regex.ranges[i]!, regex.ranges[i + 1]!, to);
        return;
      case 'seq': {
        let at = from;
        regex.items.forEach((item, i) => {
          const next = i === regex.items.length - 1 ? to : this.newState();
          this.build(item, at, next);
          at = next;
        });
        if (regex.items.length === 0) this.addMove(from, to);
        return;
      }
      case 'alt':
        for (const item of regex.items) this.build(item, from, to);
        return;
      case 'repeat': {
        if (this.regions !== null && !this.#inTemplate && countsLarge(regex)) {
          this.#counted(regex.item, regex.min, regex.max, from, to);
          return;
        }
        let at = from;
        for (let i = 0; i < regex.min; i++) {
          const next = this.newState();
          this.build(regex.item, at, next);
          at = next;
        }
        if (regex.max === Infinity) {
          const loop = this.newState();
          this.addMove(at, loop);
          const back = this.newState();
          this.build(regex.item, loop, back);
          this.addMove(back, loop);
          this.addMove(loop, to);
          return;
        }
        this.addMove(at, to);
        for (let i = regex.min; i < regex.max; i++) {
          const next = this.newState();
          this.build(regex.item, at, next);
          this.addMove(next, to);
          at = next;
        }
        return;
      }
      case 'and':
        this.#product(regex.items, from, to);
        return;
      case 'not':
        this.#complement(regex.item, from, to);
        return;
      case 'automaton': {
        const shared = this.regions !== null && !this.#inTemplate ? sharedAutomaton(regex.automaton) : undefined;
        if (shared !== undefined) {
          this.#sharedAutomaton(shared, from, to);
          return;
        }
        const { edges, accepting } = regex.automaton;
        const states = edges.map(() => this.newState());
        this.addMove(from, states[0]!);
        edges.forEach((list, s) => {
          for (let i = 0; i < list.length; i += 3) this.addEdge(states[s]!, list[i]!, list[i + 1]!, states[list[i + 2]!]!);
          if (accepting[s]) this.addMove(states[s]!, to);
        });
        return;
      }
    }
  }

  // A large automaton (a format's, built once per process) as a block of states whose edges
  // `frozen` copies in from its flat rows, shifted: no edge list to build per compile. Its
  // states are all live (`sharedAutomaton` keeps only trimmed ones), so dead-end pruning
  // only needs that its start lives when an accepting state does (`#coReachable`).
  #sharedAutomaton(automaton: SharedAutomaton, from: number, to: number): void {
    const n = automaton.accepting.length;
    this.#room(n);
    const first = this.stateCount;
    this.#accepts.fill(-1, n);
    this.#firstMove.fill(-1, n);
    this.#firstEdge.fill(-1, n);
    this.#blocks.push({ first, automaton });
    this.addMove(from, first);
    for (let x = 0; x < n; x++) if (automaton.accepting[x] === 1) this.addMove(first + x, to);
  }

  // A large counted repetition: the item built once (the template, copy 0) and its further
  // copies virtual, numbered after the real states; the lexer steps them as the template's
  // states, and its exit goes on to the next copy or out by the count (`LexerDfa.#close`).
  #counted(item: ByteRegex, min: number, max: number, from: number, to: number): void {
    // Empty copies only help reach the minimum: R{m,n} with ε in R is R'{0,n}, R' = R − ε.
    if (isNullable(item)) [item, min] = [nonEmpty(item), 0];
    if (max === Infinity) {
      // R{m,} = R{m} R*
      const middle = this.newState();
      this.#counted(item, min, min, from, middle);
      this.build({ kind: 'repeat', item, min: 0, max: Infinity }, middle, to);
      return;
    }
    if (min === 0) this.addMove(from, to);
    if (max === 0) return;
    const entry = this.newState();
    const exit = this.newState();
    this.#inTemplate = true;
    try {
      this.build(item, entry, exit);
    } finally {
      this.#inTemplate = false;
    }
    const size = this.stateCount - entry;
    this.addMove(from, entry);
    // Read by the lexer as "out, once the count allows"; for pruning it keeps the template live.
    this.addMove(exit, to);
    const base = this.#nextVirtual;
    if (base + (max - 1) * size > 0x7fffffff)
      throw new GrammarLimitError('maxNfaStates', this.maxStates, 'counted repetitions number more copies than 2^30 automaton states');
    this.#nextVirtual = base + (max - 1) * size;
    this.regions!.push({ entry, exit, size, min, max, to, base });
  }

  // Complement: the item's automaton determinized, acceptance flipped, and a sink that
  // accepts everything once the item can no longer match.
  #complement(item: ByteRegex, from: number, to: number): void {
    this.#copyIn(this.#complementOf(item), from, to);
  }

  // The complement of `item` as an automaton of its own.
  #complementOf(item: ByteRegex): ProductOperand {
    const sub = new Nfa(this.maxStates);
    const start = sub.newState();
    const accept = sub.newState();
    sub.build(item, start, accept);
    return sub.#subsets(start, accept, true)!;
  }

  /**
   * This automaton from `start` to `accept` by subset construction (one target per run of
   * bytes between edge boundaries) into a new, deterministic one: a state per set of the
   * states that matter (those with byte edges, and `accept`). Its complement (`complement`):
   * a move to the new accept state from each set without `accept`, and every byte read (the
   * empty set is the sink, which accepts everything); else a move from each set with
   * `accept`, and no edge into the empty set. Undefined past `maxSets` sets.
   */
  #subsets(start: number, accept: number, complement: boolean, maxSets = Infinity): ProductOperand | undefined {
    const dfa = new Nfa(this.maxStates);
    const dfaAccept = dfa.newState();
    const sets = new SetTable(); // set i is state i + 1
    // Closure scratch: a generation mark per state, a stack, the states found.
    const mark = new Int32Array(this.stateCount);
    let generation = 0;
    const stack = new Int32Array(this.stateCount);
    const found = new Int32Array(this.stateCount);
    let top = 0;
    const push = (s: number): void => {
      if (mark[s] === generation) return;
      mark[s] = generation;
      stack[top++] = s;
    };
    const close = (): Int32Array => {
      let count = 0;
      while (top > 0) {
        const s = stack[--top]!;
        if (s === accept || this.#firstEdge.data[s]! >= 0) found[count++] = s;
        for (let m = this.#firstMove.data[s]!; m >= 0; m = this.#moveNext.data[m]!) push(this.#moveTo.data[m]!);
      }
      return found.subarray(0, count).sort();
    };
    const stateOf = (set: Int32Array): number => {
      if (!complement && set.length === 0) return -1; // dead
      const known = sets.find(set);
      if (known >= 0) return known + 1;
      sets.add(set);
      const id = dfa.newState();
      if (set.includes(accept) !== complement) dfa.addMove(id, dfaAccept);
      return id;
    };
    // The edges of the set being expanded (lo, hi, target triples), and its byte cuts.
    let edges = new Int32Array(48);
    const cut = new Uint8Array(257);
    // Runs of bytes between cuts: each byte's run, each run's first byte, and the targets of
    // the edges over each run (entries bucketStart[r] to bucketStart[r + 1] of `bucket`).
    const runOf = new Int32Array(256);
    const runFirst = new Int32Array(257);
    const bucketStart = new Int32Array(258);
    let bucket = new Int32Array(64);
    generation++;
    push(start);
    const dfaStart = stateOf(close());
    if (dfaStart < 0) return undefined;
    for (let id = 1; id <= sets.size; id++) {
      if (sets.size > maxSets) return undefined;
      let edgeCount = 0;
      cut.fill(0);
      cut[0] = cut[256] = 1;
      for (const s of sets.get(id - 1)) {
        for (let e = this.#firstEdge.data[s]!; e >= 0; e = this.#edgeNext.data[e]!) {
          if (edgeCount + 3 > edges.length) edges = withRoom(edges, edgeCount + 3);
          const lo = this.#edgeLo.data[e]!;
          const hi = this.#edgeHi.data[e]!;
          edges[edgeCount++] = lo;
          edges[edgeCount++] = hi;
          edges[edgeCount++] = this.#edgeTo.data[e]!;
          cut[lo] = cut[hi + 1] = 1;
        }
      }
      // The targets of each run between cuts (bucketed by run: a set of many states has many
      // edges, and scanning them all per run took most of a large determinization).
      let runs = 0;
      for (let b = 0; b < 256; b++) {
        if (cut[b] === 1) runFirst[runs++] = b;
        runOf[b] = runs - 1;
      }
      runFirst[runs] = 256;
      bucketStart.fill(0, 0, runs + 1);
      for (let e = 0; e < edgeCount; e += 3) for (let r = runOf[edges[e]!]!; r <= runOf[edges[e + 1]!]!; r++) bucketStart[r + 1]!++;
      for (let r = 0; r < runs; r++) bucketStart[r + 1]! += bucketStart[r]!;
      if (bucket.length < bucketStart[runs]!) bucket = new Int32Array(2 * bucketStart[runs]!);
      const filled = bucketStart.slice(0, runs);
      for (let e = 0; e < edgeCount; e += 3) for (let r = runOf[edges[e]!]!; r <= runOf[edges[e + 1]!]!; r++) bucket[filled[r]!++] = edges[e + 2]!;
      // One target per run; adjacent runs with the same target make one edge.
      let runStart = 0;
      let runTarget = -1;
      for (let r = 0; r < runs; r++) {
        const lo = runFirst[r]!;
        generation++;
        for (let i = bucketStart[r]!; i < bucketStart[r + 1]!; i++) push(bucket[i]!);
        const target = stateOf(close());
        if (target !== runTarget) {
          if (runTarget >= 0) dfa.addEdge(id, runStart, lo - 1, runTarget);
          runStart = lo;
          runTarget = target;
        }
      }
      if (runTarget >= 0) dfa.addEdge(id, runStart, 255, runTarget);
    }
    return { nfa: dfa, start: dfaStart, accept: dfaAccept, ...(complement && { total: true }) };
  }

  // Copies `operand`'s automaton in, wired from `from` to `to`.
  #copyIn(operand: ProductOperand, from: number, to: number): void {
    const A = operand.nfa;
    const copy = new Int32Array(A.stateCount);
    for (let x = 0; x < A.stateCount; x++) copy[x] = x === operand.accept ? to : this.newState();
    this.addMove(from, copy[operand.start]!);
    for (let x = 0; x < A.stateCount; x++) {
      if (x === operand.accept) continue;
      for (let m = A.#firstMove.data[x]!; m >= 0; m = A.#moveNext.data[m]!) this.addMove(copy[x]!, copy[A.#moveTo.data[m]!]!);
      for (let e = A.#firstEdge.data[x]!; e >= 0; e = A.#edgeNext.data[e]!)
        this.addEdge(copy[x]!, A.#edgeLo.data[e]!, A.#edgeHi.data[e]!, copy[A.#edgeTo.data[e]!]!);
    }
  }

  /**
   * Removes moves and edges into states (built since `first`) from which `accept` cannot be
   * reached, so a live lexer state always has a way to finish its lexeme (masks never lead
   * into a dead end). Intersections and empty alternatives create such states. Returns
   * whether `first` (the start) is live, i.e. the lexeme matches anything.
   */
  pruneDeadEnds(first: number, accept: number): boolean {
    const live = this.#coReachable(first, this.stateCount - first, accept);
    const isLive = (t: number): boolean => t < first || live[t - first] === 1;
    // Unlink what leads into dead states.
    for (let s = first; s < this.stateCount; s++) {
      keepLive(this.#firstMove, this.#moveNext, this.#moveTo, s, isLive);
      keepLive(this.#firstEdge, this.#edgeNext, this.#edgeTo, s, isLive);
    }
    return live[0] === 1;
  }

  // Per state from `first` (`count` of them, in order): 1 when `target` (one of them, or a
  // state before them) can be reached from it.
  #coReachable(first: number, count: number, target: number): Uint8Array {
    const end = first + count;
    const live = new Uint8Array(count);
    const seeds = new Int32Array(count);
    let top = 0;
    if (target >= first && target < end) {
      live[target - first] = 1;
      seeds[top++] = target;
    }
    // Who moves or steps into each state (compressed rows, by counting); a state that moves
    // into an outside target is a seed.
    const start = new Int32Array(count + 1);
    const lists = [
      [this.#firstMove.data, this.#moveNext.data, this.#moveTo.data],
      [this.#firstEdge.data, this.#edgeNext.data, this.#edgeTo.data],
    ] as const;
    for (const [heads, links, targets] of lists) {
      for (let s = first; s < end; s++) {
        for (let l = heads[s]!; l >= 0; l = links[l]!) {
          const to = targets[l]!;
          if (to >= first && to < end) start[to - first + 1]!++;
          else if (to === target && live[s - first] === 0) {
            live[s - first] = 1;
            seeds[top++] = s;
          }
        }
      }
    }
    // A block's start reaches each of its accepting states (by edges not listed here).
    const blocks = this.#blocks.filter((block) => block.first >= first && block.first < end);
    const eachBlockExit = (visit: (start: number, exit: number) => void): void => {
      for (const { first: at, automaton } of blocks) for (let x = 0; x < automaton.accepting.length; x++) if (automaton.accepting[x] === 1) visit(at, at + x);
    };
    eachBlockExit((_, exit) => start[exit - first + 1]!++);
    for (let t = 0; t < count; t++) start[t + 1]! += start[t]!;
    const sources = new Int32Array(start[count]!);
    const filled = start.slice(0, count);
    for (const [heads, links, targets] of lists) {
      for (let s = first; s < end; s++) {
        for (let l = heads[s]!; l >= 0; l = links[l]!) {
          const to = targets[l]!;
          if (to >= first && to < end) sources[filled[to - first]!++] = s;
        }
      }
    }
    eachBlockExit((at, exit) => (sources[filled[exit - first]!++] = at));
    while (top > 0) {
      const t = seeds[--top]! - first;
      for (let i = start[t]!; i < start[t + 1]!; i++) {
        const s = sources[i]! - first;
        if (live[s] === 0) {
          live[s] = 1;
          seeds[top++] = s + first;
        }
      }
    }
    return live;
  }

  // Intersection by product construction, two operands at a time (the product of the first
  // two, then of that and the third, ...); each partial product is pruned of dead ends, and
  // an empty one ends the construction (nothing leads to `to`). Equal operands count once and
  // counts of one unit are merged (`foldOperands`); a large count is counted virtually, and
  // so is a small one whose copies would take more than maxNfaStates.
  // Complements go last: a product whose last operand is one gets shadows (`#noteShadows`).
  #product(operands: readonly ByteRegex[], from: number, to: number): void {
    const unordered = foldOperands(operands, (regex) => matchesSomething(regex, MAX_FOLD_PROOF_STATES) === false);
    const items = [...unordered.filter((item) => item.kind !== 'not'), ...unordered.filter((item) => item.kind === 'not')];
    if (items.length < 2) {
      if (items.length === 1) this.build(items[0]!, from, to);
      else this.build({ kind: 'repeat', item: { kind: 'bytes', ranges: [0, 255] }, min: 0, max: Infinity }, from, to);
      return;
    }
    const counts = this.regions !== null && !this.#inTemplate;
    const countedProduct = (counted: number): boolean =>
      this.#countedProduct(
        items.filter((_, i) => i !== counted),
        items[counted] as RepeatRegex,
        from,
        to,
      );
    const large = counts ? items.findIndex(countsLarge) : -1;
    if (large >= 0 && countedProduct(large)) return;
    const mark = this.#mark(from);
    try {
      this.#copiedProduct(items, from, to);
    } catch (error) {
      const small =
        counts && error instanceof GrammarLimitError ? items.findIndex((item) => item.kind === 'repeat' && item.max !== Infinity && item.max > 1) : -1;
      if (small < 0 || small === large) throw error;
      this.#rollBack(mark, from);
      if (!countedProduct(small)) throw error;
    }
  }

  // `#product` with every count copied.
  #copiedProduct(items: readonly ByteRegex[], from: number, to: number): void {
    const left = this.#productOf(items.slice(0, -1));
    if (left === null) return;
    const [a, b, product] = this.#pairOrCompact(left, this.#operand(items[items.length - 1]!), from, to);
    if (b.total && a.nfa.stateCount <= MAX_SHADOW_STATES) this.#noteShadows(a, b, product, to);
  }

  // The product of `items` (one at least) as an operand of its own, null when it is empty. A
  // large partial product is compacted before it meets the next item: products of many
  // patterns stay near the size of their minimal automaton.
  #productOf(items: readonly ByteRegex[]): ProductOperand | null {
    let left = this.#operand(items[0]!);
    for (let i = 1; i < items.length; i++) {
      const nfa = new Nfa(this.maxStates);
      const start = nfa.newState();
      const accept = nfa.newState();
      nfa.#pairOrCompact(left, this.#operand(items[i]!), start, accept);
      if (!nfa.pruneDeadEnds(start, accept)) return null;
      left = { nfa, start, accept };
      // (Its subsets looked for up to a few per state: past that, its minimal automaton is
      // seldom smaller than itself.)
      if (nfa.stateCount > MAX_DETERMINIZED_OPERAND && i < items.length - 1) left = this.#compact(left, PARTIAL_PRODUCT_SETS * nfa.stateCount);
    }
    return left;
  }

  // `#pair`, and where that takes more than maxNfaStates, the same with both operands
  // determinized and minimized first (`#compact`: a product of complements or of patterns
  // with counts of their own may be far smaller so). Returns the operands paired.
  #pairOrCompact(a: ProductOperand, b: ProductOperand, from: number, to: number): [ProductOperand, ProductOperand, Product] {
    const mark = this.#mark(from);
    try {
      return [a, b, this.#pair(a, b, from, to)];
    } catch (error) {
      if (!(error instanceof GrammarLimitError)) throw error;
      const [smallA, smallB] = [this.#compact(a), this.#compact(b)];
      if (smallA === a && smallB === b) throw error;
      this.#rollBack(mark, from);
      return [smallA, smallB, this.#pair(smallA, smallB, from, to)];
    }
  }

  // How many states, moves and edges there are, and the first move from `from`: what
  // `#rollBack` returns to.
  #mark(from: number): number[] {
    return [this.#accepts.length, this.#moveTo.length, this.#edgeTo.length, this.#firstMove.data[from]!];
  }

  // Back to `mark`: the states, moves and edges added since, and the moves from `from`, gone.
  #rollBack(mark: readonly number[], from: number): void {
    for (const list of [this.#accepts, this.#firstMove, this.#firstEdge]) list.length = mark[0]!;
    for (const list of [this.#moveTo, this.#moveNext]) list.length = mark[1]!;
    for (const list of [this.#edgeLo, this.#edgeHi, this.#edgeTo, this.#edgeNext]) list.length = mark[2]!;
    this.#firstMove.data[from] = mark[3]!;
  }

  // `others` ∧ `repeat` with a large count: the product of the others with the repeated item
  // unbounded (R*), whose moves closing a copy of R are ticks, counted virtually over the
  // whole product (`TickRegion`). False when the others are too large an automaton for that
  // (a pattern with many copies of its own): the caller then builds the copies.
  #countedProduct(others: readonly ByteRegex[], repeat: RepeatRegex, from: number, to: number): boolean {
    let { item, min } = repeat;
    if (isNullable(item)) [item, min] = [nonEmpty(item), 0];
    const saturates = repeat.max === Infinity;
    const cap = saturates ? min : repeat.max;
    // The others as one operand (their own product when there are several), made as small as
    // it goes where the count has a cap counted states can hold (`shaped`: a lexer state far
    // from the count's bounds is a shape and a count, see `LexerDfa`), since it has as many
    // subsets in use at every count: a pattern that counts words beside a count of characters
    // built thousands of new lexer states per mask otherwise (measured). A large one must have
    // them (refused where it cannot); a small one has them where its lexeme allows.
    let rest = this.#productOf(others);
    if (rest === null) return true;
    const largest = this.maxStates / MAX_TICK_TEMPLATE_SHARE;
    const shaped = !saturates && cap < MAX_SHAPED_COUNT;
    let mustShape = shaped && rest.nfa.stateCount > this.maxStates / MAX_UNSHAPED_SHARE;
    if (shaped) rest = this.#compact(rest);
    if (rest.nfa.stateCount > largest * (mustShape ? MAX_TICK_TEMPLATE_SHARE / 4 : 1)) return false;
    // R* with its loop and the state closing a copy of R (the tick goes from there to the loop).
    const unit = new Nfa(this.maxStates);
    const start = unit.newState();
    const accept = unit.newState();
    const loop = unit.newState();
    const back = unit.newState();
    unit.addMove(start, loop);
    unit.build(item, loop, back);
    unit.addMove(back, loop);
    unit.addMove(loop, accept);
    const entry = this.stateCount;
    const mark = this.#mark(from);
    const { pairs } = this.#pair(rest, { nfa: unit, start, accept }, from, to);
    const size = this.stateCount - entry;
    const loopOf = new Map<number, number>(); // rest state → its pair with the loop
    for (let i = 0; i < pairs.length; i += 3) if (pairs[i + 1] === loop) loopOf.set(pairs[i]!, pairs[i + 2]!);
    const ticks = new Map<number, number>(); // pair with `back` → pair with the loop
    for (let i = 0; i < pairs.length; i += 3) if (pairs[i + 1] === back) ticks.set(pairs[i + 2]!, loopOf.get(pairs[i]!)!);
    const base = this.#nextVirtual;
    if (base + cap * size > 0x7fffffff)
      throw new GrammarLimitError('maxNfaStates', this.maxStates, 'counted repetitions number more copies than 2^30 automaton states');
    this.#nextVirtual = base + cap * size;
    // A large product (a pattern with many copies of its own) makes as many lexer states per
    // count as it has subsets in use: counted states then, or refused here rather than at
    // maxLexerStates mid-output.
    if (size > largest) {
      if (!shaped)
        throw new GrammarLimitError(
          'maxNfaStates',
          this.maxStates,
          `a counted repetition inside an intersection of more than ${Math.floor(largest)} automaton states (maxNfaStates / ${MAX_TICK_TEMPLATE_SHARE})`,
        );
      mustShape = true;
    }
    const tickEnds = this.#tickEnds(entry, size, ticks, to, cap, saturates);
    // No count the bounds allow ends the product (`^c$` with minLength 72): nothing, as an
    // empty product is, so that the lexeme is known to match nothing.
    if (!endsWithin(tickEnds, 0, min, saturates ? Infinity : cap)) {
      this.#rollBack(mark, from);
      this.#nextVirtual = base;
      return true;
    }
    this.ticking.push({ entry, size, min, cap, saturates, to, base, ticks, shaped, mustShape, ...tickEnds });
    return true;
  }

  // Which states of a tick region (`entry`, `size` states) reach `to` with exactly k ticks,
  // for k = 0, 1, …: set k + 1 follows from set k alone (the states ticking into it, and what
  // reaches those without a tick), so the sets run into a cycle: they are kept up to the first
  // repeat (`period` > 0, cycling back to `tail`) or up to `cap` (all a query can ask about).
  #tickEnds(
    entry: number,
    size: number,
    ticks: ReadonlyMap<number, number>,
    to: number,
    cap: number,
    saturates: boolean,
  ): Pick<TickRegion, 'ends' | 'tail' | 'period'> {
    const words = (size >> 5) + 1;
    const plain: number[][] = Array.from({ length: size }, () => []); // predecessors without a tick
    const ticked: number[][] = Array.from({ length: size }, () => []); // predecessors by a tick
    const first = new Uint32Array(words);
    const inside = (t: number): boolean => t >= entry && t < entry + size;
    for (let s = entry; s < entry + size; s++) {
      for (let m = this.#firstMove.data[s]!; m >= 0; m = this.#moveNext.data[m]!) {
        const t = this.#moveTo.data[m]!;
        if (t === to) first[(s - entry) >> 5] |= 1 << ((s - entry) & 31);
        else if (inside(t)) (ticks.get(s) === t ? ticked : plain)[t - entry]!.push(s - entry);
      }
      for (let e = this.#firstEdge.data[s]!; e >= 0; e = this.#edgeNext.data[e]!) {
        const t = this.#edgeTo.data[e]!;
        if (inside(t)) plain[t - entry]!.push(s - entry);
      }
    }
    const has = (set: Uint32Array, x: number): boolean => ((set[x >> 5]! >>> (x & 31)) & 1) === 1;
    const closeBack = (set: Uint32Array): void => {
      const stack: number[] = [];
      for (let x = 0; x < size; x++) if (has(set, x)) stack.push(x);
      while (stack.length > 0) {
        for (const p of plain[stack.pop()!]!) {
          if (!has(set, p)) {
            set[p >> 5] |= 1 << (p & 31);
            stack.push(p);
          }
        }
      }
    };
    closeBack(first);
    const ends: Uint32Array[] = [first];
    const seen = new Map<string, number>([[first.join(), 0]]);
    for (;;) {
      if (!saturates && ends.length > cap) return { ends, tail: 0, period: 0 };
      if (ends.length > MAX_TICK_SETS)
        throw new GrammarLimitError('maxNfaStates', this.maxStates, `a counted repetition inside an intersection needs more than ${MAX_TICK_SETS} tick sets`);
      const last = ends[ends.length - 1]!;
      const next = new Uint32Array(words);
      for (let t = 0; t < size; t++) if (has(last, t)) for (const p of ticked[t]!) next[p >> 5] |= 1 << (p & 31);
      closeBack(next);
      const key = next.join();
      const before = seen.get(key);
      if (before !== undefined) return { ends, tail: before, period: ends.length - before };
      seen.set(key, ends.length);
      ends.push(next);
    }
  }

  // An operand of a product, built as its own automaton (a complement's as it is determinized).
  // A small one is determinized too, where that stays small: a nondeterministic operand (a
  // pattern like `.+(Z|[+-]…)`) pairs each state of the other with several of its own, and a
  // product with a large automaton (a date-time format's) would grow by as much.
  #operand(item: ByteRegex): ProductOperand {
    if (item.kind === 'not') return this.#complementOf(item.item);
    const nfa = new Nfa(this.maxStates);
    const start = nfa.newState();
    const accept = nfa.newState();
    nfa.build(item, start, accept);
    const deterministic = nfa.stateCount <= MAX_DETERMINIZED_OPERAND ? nfa.#subsets(start, accept, false, MAX_DETERMINIZED_OPERAND) : undefined;
    return deterministic ?? { nfa, start, accept };
  }

  // `operand` determinized (up to MAX_COMPACTED_SETS states; a complement is already) and
  // minimized, where that makes it smaller: for a product that would otherwise pass
  // maxNfaStates (`#pairOrCompact`), and a large partial product (`#productOf`).
  #compact(operand: ProductOperand, maxSets = MAX_COMPACTED_SETS): ProductOperand {
    const { nfa, start, accept } = operand;
    const deterministic = operand.total === true ? operand : nfa.#subsets(start, accept, false, Math.min(maxSets, MAX_COMPACTED_SETS));
    if (deterministic === undefined) return operand;
    const minimal = this.#minimal(deterministic);
    return minimal.nfa.stateCount < nfa.stateCount ? minimal : operand;
  }

  // A deterministic operand (`#subsets`' output) with its equivalent states merged.
  #minimal(operand: ProductOperand): ProductOperand {
    const automaton = minimizeDfa(operand.nfa.#automatonOf(operand), operand.total === true, MAX_MINIMIZED_CELLS);
    if (automaton === null || automaton.edges.length + 2 >= operand.nfa.stateCount) return operand;
    const nfa = new Nfa(this.maxStates);
    const start = nfa.newState();
    const accept = nfa.newState();
    nfa.build({ kind: 'automaton', automaton }, start, accept);
    return { nfa, start, accept, ...(operand.total === true && { total: true }) };
  }

  // A deterministic operand as a `ByteAutomaton` (its start state 0): each state's edges,
  // and whether it moves to the accept state.
  #automatonOf({ start, accept }: ProductOperand): ByteAutomaton {
    const index = new Map<number, number>([[start, 0]]);
    const order = [start];
    const edges: number[][] = [];
    const accepting: boolean[] = [];
    for (let i = 0; i < order.length; i++) {
      const s = order[i]!;
      const list: number[] = [];
      for (let e = this.#firstEdge.data[s]!; e >= 0; e = this.#edgeNext.data[e]!) {
        const t = this.#edgeTo.data[e]!;
        if (!index.has(t)) {
          index.set(t, order.length);
          order.push(t);
        }
        list.push(this.#edgeLo.data[e]!, this.#edgeHi.data[e]!, index.get(t)!);
      }
      let accepts = false;
      for (let m = this.#firstMove.data[s]!; m >= 0; m = this.#moveNext.data[m]!) accepts ||= this.#moveTo.data[m] === accept;
      edges.push(list);
      accepting.push(accepts);
    }
    return { edges, accepting };
  }

  // The slice checks need how long a lexer state surely lives, from its threads; a product
  // of `a` and a complement `b` has a state per pair of theirs, so many (a long name list
  // in `b`, say) that exploring them is too costly. But `b` never stops a byte (every state
  // of a complement has an edge for each byte), so a live pair (x, y) reads what x reads,
  // except where that would lead to a dead pair (a declared name just closed, say). So a
  // copy of `a` without those edges (the shadow; x's copy is what (x, y) reads, whatever
  // y) dies no later than any pair of x: a lower bound on the pair's life, which is all a
  // slice check needs, found on a graph the size of `a`.
  #noteShadows(a: ProductOperand, b: ProductOperand, product: Product, to: number): void {
    const { pairs, edgeBase, edgeOrigin, moveBase, moveOrigin } = product;
    const first = pairs[2]!;
    const count = pairs.length / 3;
    const live = this.#coReachable(first, count, to);
    const dead = (state: number): boolean => state >= first && live[state - first] === 0;
    // A's edges (e) and moves (-1 - m) that lead some live pair to a dead one.
    const blocked = new Set<number>();
    const shadowed: number[] = [];
    for (let i = 0; i < count; i++) {
      const pair = first + i;
      if (live[i] === 0 || b.nfa.#firstEdge.data[pairs[3 * i + 1]!]! < 0) continue;
      shadowed.push(pair, pairs[3 * i]!);
      for (let m = this.#firstMove.data[pair]!; m >= 0; m = this.#moveNext.data[m]!) {
        const origin = moveOrigin[m - moveBase]!;
        if (origin >= 0 && dead(this.#moveTo.data[m]!)) blocked.add(-1 - origin);
      }
      for (let e = this.#firstEdge.data[pair]!; e >= 0; e = this.#edgeNext.data[e]!) if (dead(this.#edgeTo.data[e]!)) blocked.add(edgeOrigin[e - edgeBase]!);
    }
    this.#shadows.push({ operand: a, blocked, pairs: shadowed });
  }

  // The reachable pairs of states of `a` and `b` become states here: ε-moves one operand at
  // a time, byte moves on the overlap of an edge of each.
  #pair(a: ProductOperand, b: ProductOperand, from: number, to: number): Product {
    const A = a.nfa;
    const B = b.nfa;
    // Pair ids by x * |B| + y: a table when it is small enough, else a map.
    const size = A.stateCount * B.stateCount;
    const table = size <= PAIR_TABLE_MAX ? new Int32Array(size).fill(-1) : undefined;
    const ids = table === undefined ? new Map<number, number>() : undefined;
    const pairs: number[] = []; // x, y, id per pair found
    // Per move and edge added: the move or edge of A it follows (-1: a move of B).
    const moveBase = this.#moveTo.length;
    const edgeBase = this.#edgeTo.length;
    const moveOrigin: number[] = [];
    const edgeOrigin: number[] = [];
    const stateOf = (x: number, y: number): number => {
      const key = x * B.stateCount + y;
      let id = table === undefined ? ids!.get(key) : table[key]!;
      if (id === undefined || id < 0) {
        id = this.newState();
        if (table === undefined) ids!.set(key, id);
        else table[key] = id;
        pairs.push(x, y, id);
        if (x === a.accept && y === b.accept) {
          this.addMove(id, to);
          moveOrigin.push(-1);
        }
      }
      return id;
    };
    this.addMove(from, stateOf(a.start, b.start));
    moveOrigin.push(-1);
    for (let at = 0; at < pairs.length; at += 3) {
      const x = pairs[at]!;
      const y = pairs[at + 1]!;
      const id = pairs[at + 2]!;
      for (let m = A.#firstMove.data[x]!; m >= 0; m = A.#moveNext.data[m]!) {
        this.addMove(id, stateOf(A.#moveTo.data[m]!, y));
        moveOrigin.push(m);
      }
      for (let m = B.#firstMove.data[y]!; m >= 0; m = B.#moveNext.data[m]!) {
        this.addMove(id, stateOf(x, B.#moveTo.data[m]!));
        moveOrigin.push(-1);
      }
      for (let e = A.#firstEdge.data[x]!; e >= 0; e = A.#edgeNext.data[e]!) {
        for (let f = B.#firstEdge.data[y]!; f >= 0; f = B.#edgeNext.data[f]!) {
          const lo = Math.max(A.#edgeLo.data[e]!, B.#edgeLo.data[f]!);
          const hi = Math.min(A.#edgeHi.data[e]!, B.#edgeHi.data[f]!);
          if (lo > hi) continue;
          this.addEdge(id, lo, hi, stateOf(A.#edgeTo.data[e]!, B.#edgeTo.data[f]!));
          edgeOrigin.push(e);
        }
      }
    }
    return { pairs, moveBase, moveOrigin, edgeBase, edgeOrigin };
  }
}

interface ProductOperand {
  readonly nfa: Nfa;
  readonly start: number;
  readonly accept: number;
  /** Built from a complement: every state with edges has one for each byte. */
  readonly total?: boolean;
}

/**
 * The states of a product: (x, y, state) triples, states consecutive; and per move and edge
 * it added (from index `moveBase`, `edgeBase` on), the move or edge of its first operand
 * followed (-1: a move of the second).
 */
interface Product {
  readonly pairs: readonly number[];
  readonly moveBase: number;
  readonly moveOrigin: readonly number[];
  readonly edgeBase: number;
  readonly edgeOrigin: readonly number[];
}

/**
 * A counted repetition `R{min,max}` built once: the template (states `entry` to `entry +
 * size - 1`, copy 0, from `entry` to `exit`) stands for every copy; copy j ≥ 1 of template
 * state t is the virtual state `base + (j - 1) · size + (t − entry)`, with the template's
 * edges and moves shifted along. After copy j the exit goes to copy j + 1 while j + 1 <
 * max, and to `to` once j + 1 ≥ min. A DFA state holds virtual states like real ones, so the
 * lexer is exactly the one the copies would make, and the automaton's size does not grow
 * with the count.
 */
interface CountedRegion {
  readonly entry: number;
  readonly exit: number;
  readonly size: number;
  readonly min: number;
  readonly max: number;
  readonly to: number;
  readonly base: number;
}
/**
 * A product with a large counted operand, `P ∧ R{min,max}`: built once as `P ∧ R*` (states
 * `entry` to `entry + size - 1`, copy 0: no copy of R closed yet); its moves that close a
 * copy of R (`ticks`, from a state to the state it moves to) go from copy c to copy c + 1,
 * whose states are virtual, `base + (c − 1) · size + (s − entry)`, up to `cap` (past it
 * the thread dies, or stays at `cap` when `saturates`: no maximum). The move out to `to` needs
 * c ≥ min. A thread lives only if it can still end with a count the bounds allow: `ends`
 * says with how many more ticks each state can reach `to`.
 */
interface TickRegion {
  readonly entry: number;
  readonly size: number;
  readonly min: number;
  readonly cap: number;
  readonly saturates: boolean;
  readonly to: number;
  readonly base: number;
  readonly ticks: ReadonlyMap<number, number>;
  /** `ends[k]`: the template states that reach `to` with exactly k more ticks (bitsets). */
  readonly ends: readonly Uint32Array[];
  /** Past the kept sets they repeat from `tail`, every `period` (0: none are needed past them). */
  readonly tail: number;
  readonly period: number;
  /** Whether its lexer states far from the bounds are counted states (a shape and a count), where its lexeme allows (`LexerDfa.#room`). */
  readonly shaped: boolean;
  /** Whether it is too large for a plain lexer state per count: refused where its lexeme does not allow counted states. */
  readonly mustShape: boolean;
}
// Whether template state `x` of a tick region reaches its way out with some number of ticks
// from `low` to `high` (`TickRegion.ends`).
function endsWithin({ ends, tail, period }: Pick<TickRegion, 'ends' | 'tail' | 'period'>, x: number, low: number, high: number): boolean {
  const reaches = (k: number): boolean => ((ends[k]![x >> 5]! >>> (x & 31)) & 1) === 1;
  for (let k = low; k <= Math.min(high, ends.length - 1); k++) if (reaches(k)) return true;
  // Counts past the kept sets repeat the cycle: at most one turn of it is new.
  if (period > 0 && high >= ends.length) {
    const from = Math.max(low, ends.length);
    const last = Math.min(high, from + period - 1);
    for (let k = from; k <= last; k++) if (reaches(tail + ((k - tail) % period))) return true;
  }
  return false;
}

/** A shape of counted states: its number, its region, and the counts its counted states take (`LexerDfa`). */
interface Shape {
  readonly index: number;
  readonly region: TickRegion;
  readonly low: number;
  readonly high: number;
}

// Most automaton states a proof about the units of two counts may build (`foldOperands`).
const MAX_FOLD_PROOF_STATES = 2_000;
// Product operands of at most this many states are determinized, if their DFA is no larger.
const MAX_DETERMINIZED_OPERAND = 2_000;
// Operands of a product that would pass maxNfaStates, and partial products past
// MAX_DETERMINIZED_OPERAND, are determinized up to this many states before they are
// minimized (`Nfa.#compact`).
const MAX_COMPACTED_SETS = 100_000;
// A partial product is determinized up to this many subsets per state of its own.
const PARTIAL_PRODUCT_SETS = 4;
// Most entries (states × byte classes) of the table a minimization fills.
const MAX_MINIMIZED_CELLS = 1 << 22;
// A tick region's product may take this share of maxNfaStates at most (8,000 states by default).
const MAX_TICK_TEMPLATE_SHARE = 25;
// Beside other operands past this share of maxNfaStates (2,000 states by default: too large
// to have been determinized as an operand), a tick region must have counted states.
const MAX_UNSHAPED_SHARE = 100;
// Most tick sets a tick region keeps (the cycle of a pattern's lengths is usually short).
const MAX_TICK_SETS = 100_000;
// Counted states (`COUNTED_STATE` in the kernel's ABI): a shape and a count, 15 bits each.
const { COUNTED_STATE, COUNTED_SHAPE_SHIFT, COUNTED_FIELD_MASK } = kernelAbi;
// Tick regions counting up to this may have counted states.
const MAX_SHAPED_COUNT = COUNTED_FIELD_MASK;
const countedState = (shape: number, count: number): number => COUNTED_STATE | (shape << COUNTED_SHAPE_SHIFT) | count;
/** Whether lexer state `state` is a counted one (a count on a shape: see `LexerDfa`). */
export const isCounted = (state: number): boolean => state >= COUNTED_STATE;
const shapeIndex = (state: number): number => (state >>> COUNTED_SHAPE_SHIFT) & COUNTED_FIELD_MASK;
const countOf = (state: number): number => state & COUNTED_FIELD_MASK;
type RepeatRegex = Extract<ByteRegex, { kind: 'repeat' }>;
// State `state` of a tick region's template in copy `copy` (0: the template itself).
const tickCopy = (region: TickRegion, state: number, copy: number): number =>
  copy === 0 ? state : region.base + (copy - 1) * region.size + (state - region.entry);
// Whether a regex is a repetition counted virtually.
const countsLarge = (regex: ByteRegex): boolean =>
  regex.kind === 'repeat' && (regex.min > VIRTUAL_COUNT_FROM || (regex.max !== Infinity && regex.max > VIRTUAL_COUNT_FROM));

// Virtual states are numbered from here (real ones stay far below: see `maxNfaStates`).
const VIRTUAL_BASE = 1 << 30;
// Repetitions counting past this are counted virtually; smaller ones are copied.
const VIRTUAL_COUNT_FROM = 64;

/** Part of an automaton as compressed rows (`Nfa.frozen`). */
interface FrozenNfa {
  readonly moveStart: Int32Array;
  readonly moveTo: Int32Array;
  readonly edgeStart: Int32Array;
  readonly edgeLo: Uint8Array;
  readonly edgeHi: Uint8Array;
  readonly edgeTo: Int32Array;
  readonly accepts: Int32Array;
  readonly lifeProxy: Int32Array;
}

/** A product's shadow to copy in: `operand` without the `blocked` edges and moves (-1 - m), for (state, x) `pairs`. */
interface PendingShadow {
  readonly operand: ProductOperand;
  readonly blocked: ReadonlySet<number>;
  readonly pairs: readonly number[];
}

/**
 * Whether `regex` matches some byte string, exactly: its automaton built (every copy of a
 * counted repetition, products and complements included) and pruned of the states that
 * cannot reach acceptance. Null when that takes more than `maxStates` states.
 */
export function matchesSomething(regex: ByteRegex, maxStates: number): boolean | null {
  const nfa = new Nfa(maxStates);
  try {
    const start = nfa.newState();
    const accept = nfa.newState();
    nfa.build(regex, start, accept);
    return nfa.pruneDeadEnds(start, accept);
  } catch (error) {
    if (error instanceof GrammarLimitError) return null;
    throw error;
  }
}

/** A regex's DFA built whole, states numbered from 0 (the start): `rows[s][b]` the next state or -1. */
export interface ExplicitDfa {
  readonly rows: readonly Int32Array[];
  readonly accepting: readonly boolean[];
}

/**
 * The DFA of `regex`, every state of it reachable and reaching acceptance (none at all when
 * it matches nothing), or null past `maxStates` states or the `limits` given.
 */
export function explicitDfa(regex: ByteRegex, maxStates: number, limits: Partial<GrammarLimits> = {}): ExplicitDfa | null {
  try {
    const dfa = new LexerDfa([{ name: 'strings', regex }], [], { ...DEFAULT_LIMITS, ...limits, maxLexerStates: maxStates + 1 });
    const start = dfa.start([0]);
    if (start === DEAD) return { rows: [], accepting: [] };
    const ids = new Map([[start, 0]]);
    const order = [start];
    const rows: Int32Array[] = [];
    for (let i = 0; i < order.length; i++) {
      const targets = dfa.row(order[i]!).slice();
      const row = new Int32Array(256).fill(-1);
      for (let b = 0; b < 256; b++) {
        const target = targets[b]!;
        if (target === DEAD) continue;
        let id = ids.get(target);
        if (id === undefined) {
          if (order.length >= maxStates) return null;
          id = order.length;
          ids.set(target, id);
          order.push(target);
        }
        row[b] = id;
      }
      rows.push(row);
    }
    return { rows, accepting: order.map((state) => dfa.accepting(state).length > 0) };
  } catch (error) {
    if (error instanceof GrammarLimitError) return null;
    throw error;
  }
}

// Each state's successors, once each.
const successors = (dfa: ExplicitDfa): number[][] => dfa.rows.map((row) => [...new Set(row.filter((t) => t >= 0))]);

/**
 * Whether every prefix of the strings `regex` matches has endlessly many completions among
 * them, proven on its DFA (built whole): every state reachable from the start reaches a
 * cycle. Then no finite set of strings can take all the completions of a prefix. False when
 * some prefix has finitely many, or the DFA has more than `maxStates` states.
 */
export function endlessCompletions(regex: ByteRegex, maxStates: number): boolean {
  const dfa = explicitDfa(regex, maxStates);
  if (dfa === null) return false;
  const next = successors(dfa);
  // States on a cycle (in a strongly connected component with an edge inside it), then every
  // state that reaches one: all must.
  const n = next.length;
  const reaches = new Uint8Array(n);
  for (const component of stronglyConnected(next)) {
    if (component.length > 1 || next[component[0]!]!.includes(component[0]!)) for (const v of component) reaches[v] = 1;
  }
  const into: number[][] = Array.from({ length: n }, () => []);
  next.forEach((targets, v) => targets.forEach((t) => into[t]!.push(v)));
  const stack = [...reaches.keys()].filter((v) => reaches[v] === 1);
  while (stack.length > 0) {
    for (const u of into[stack.pop()!]!) {
      if (reaches[u] === 0) {
        reaches[u] = 1;
        stack.push(u);
      }
    }
  }
  return reaches.every((r) => r === 1);
}

/**
 * How many strings `regex` matches (Infinity where endlessly many, and past what a double
 * holds), counted on its DFA built whole; null when it has more than `maxStates` states.
 */
export function stringCount(regex: ByteRegex, maxStates: number): number | null {
  const dfa = explicitDfa(regex, maxStates);
  if (dfa === null) return null;
  const next = successors(dfa);
  // (A cycle among states that reach acceptance makes endlessly many; the others count 0.)
  const live = dfa.accepting.slice();
  for (let changed = true; changed;) {
    changed = false;
    next.forEach((targets, v) => {
      if (!live[v] && targets.some((t) => live[t])) changed = live[v] = true;
    });
  }
  for (const component of stronglyConnected(next)) {
    const v = component[0]!;
    if (live[v] && (component.length > 1 || next[v]!.includes(v))) return Infinity;
  }
  // Acyclic where it counts: the strings from each state, successors first.
  const count = new Float64Array(next.length).fill(-1);
  const stack = [0];
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    const pending = live[v] ? next[v]!.filter((t) => count[t]! < 0) : [];
    if (pending.length > 0) {
      stack.push(...pending);
      continue;
    }
    stack.pop();
    let total = dfa.accepting[v] ? 1 : 0;
    if (live[v]) for (const t of dfa.rows[v]!) if (t >= 0) total += count[t]!;
    count[v] = total;
  }
  return next.length === 0 ? 0 : count[0]!;
}

// The strongly connected components of a graph given by successor lists (Tarjan's, without
// recursion).
function stronglyConnected(next: readonly (readonly number[])[]): number[][] {
  const n = next.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [v, i] = frame;
      if (i < next[v]!.length) {
        frame[1]++;
        const w = next[v]![i]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w] === 1) {
          low[v] = Math.min(low[v]!, index[w]!);
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
    }
  }
  return components;
}

/**
 * A `ByteAutomaton` as flat rows (state x's edges are entries edgeStart[x] to edgeStart[x +
 * 1], targets numbered from 0), every state reachable and able to accept.
 */
interface SharedAutomaton {
  readonly edgeStart: Int32Array;
  readonly edgeLo: Uint8Array;
  readonly edgeHi: Uint8Array;
  readonly edgeTo: Int32Array;
  readonly accepting: Uint8Array;
}

/** A shared automaton's states in an `Nfa`, from `first` on. */
interface AutomatonBlock {
  readonly first: number;
  readonly automaton: SharedAutomaton;
}

// Automata of at least this many states are copied in as blocks (`Nfa.#sharedAutomaton`).
const SHARED_AUTOMATON_FROM = 256;
const sharedAutomata = new WeakMap<ByteAutomaton, SharedAutomaton | null>();

// `automaton`'s flat rows (made once per automaton), or undefined when it is small or has a
// state that is unreachable or cannot accept (pruning would need to look inside it).
function sharedAutomaton(automaton: ByteAutomaton): SharedAutomaton | undefined {
  let shared = sharedAutomata.get(automaton);
  if (shared === undefined) {
    shared = flatRows(automaton);
    sharedAutomata.set(automaton, shared);
  }
  return shared ?? undefined;
}

function flatRows({ edges, accepting }: ByteAutomaton): SharedAutomaton | null {
  const n = edges.length;
  if (n < SHARED_AUTOMATON_FROM) return null;
  const edgeStart = new Int32Array(n + 1);
  for (let x = 0; x < n; x++) edgeStart[x + 1] = edgeStart[x]! + edges[x]!.length / 3;
  const edgeLo = new Uint8Array(edgeStart[n]!);
  const edgeHi = new Uint8Array(edgeLo.length);
  const edgeTo = new Int32Array(edgeLo.length);
  const reached = new Uint8Array(n);
  const into: number[][] = Array.from({ length: n }, () => []);
  for (let x = 0; x < n; x++) {
    const list = edges[x]!;
    for (let i = 0, e = edgeStart[x]!; i < list.length; i += 3, e++) {
      edgeLo[e] = list[i]!;
      edgeHi[e] = list[i + 1]!;
      edgeTo[e] = list[i + 2]!;
      into[list[i + 2]!]!.push(x);
    }
  }
  // Every state reachable from the start, and every state reaching an accepting one.
  const search = (seeds: number[], next: (x: number) => Iterable<number>): boolean => {
    reached.fill(0);
    for (const x of seeds) reached[x] = 1;
    for (let stack = [...seeds]; stack.length > 0;) {
      for (const y of next(stack.pop()!)) {
        if (reached[y] === 0) {
          reached[y] = 1;
          stack.push(y);
        }
      }
    }
    return reached.every((r) => r === 1);
  };
  const acceptingStates = [...accepting.keys()].filter((x) => accepting[x]);
  if (!search([0], (x) => edgeTo.subarray(edgeStart[x]!, edgeStart[x + 1]!)) || !search(acceptingStates, (x) => into[x]!)) return null;
  return { edgeStart, edgeLo, edgeHi, edgeTo, accepting: Uint8Array.from(accepting, Number) };
}

/** Lazily determinized lexer over a fixed list of lexemes. */
export class LexerDfa {
  readonly lexemes: readonly LexemeDef[];
  readonly hasLazyLexemes: boolean;
  // Whether some lexeme excludes others: excluded lexemes then have a second automaton, a
  // guard (automaton n + e for lexeme e, of n), that runs wherever a lexeme excluding e
  // may start and accepts for no parser, only to take its texts from that lexeme.
  readonly #excluding: boolean;
  // Automata (lexemes and guards) a start state may need that are not built yet.
  #unbuilt: number;
  readonly #maxStates: number;
  // The NFA of the lexemes built so far (kept while some are not: see `#build`), and per
  // automaton (the n lexemes, then their guards) its start state there (-1: not built yet).
  #nfa: Nfa | undefined;
  readonly #starts: number[];
  // The NFA frozen into flat arrays: the byte edges of NFA state s are entries edgeStart[s]
  // to edgeStart[s + 1] of edgeLo/edgeHi/edgeTo, its ε-moves likewise; `kept` marks the
  // states that matter to a DFA state's identity (byte edges or acceptance). Lexemes built
  // later append their states (the arrays have room to spare).
  #edgeStart: Int32Array = new Int32Array(1);
  #edgeLo: Uint8Array = new Uint8Array(0);
  #edgeHi: Uint8Array = new Uint8Array(0);
  #edgeTo: Int32Array = new Int32Array(0);
  #epsilonStart: Int32Array = new Int32Array(1);
  #epsilonTo: Int32Array = new Int32Array(0);
  #acceptOf: Int32Array = new Int32Array(0);
  // Per NFA state: a state that dies no later than it on any input (a product's shadow), or -1.
  #lifeProxy: Int32Array = new Int32Array(0);
  #kept: Uint8Array = new Uint8Array(0);
  // Scratch for closures: a generation mark per NFA state, a stack, and the closure found.
  #mark: Uint32Array = new Uint32Array(0);
  #generation = 0;
  #stack: Int32Array = new Int32Array(0);
  #found: Int32Array = new Int32Array(0);
  // Counted regions (by `base`, increasing) and the template exits among real states.
  readonly #regions: (CountedRegion | TickRegion)[] = [];
  readonly #exits = new Map<number, CountedRegion>();
  // The tick region of each state of its template.
  readonly #ticking = new Map<number, TickRegion>();
  // Closure marks of virtual states (this generation's only).
  readonly #virtualMarks = new Set<number>();
  readonly #cutScratch = new Uint8Array(257);
  readonly #runScratch = new Int32Array(2);
  // Per DFA state: its NFA state set, and a row of 256 transitions (-1 = not computed yet).
  // Rows are a cache of #rowCap slots, in blocks of ROW_BLOCK (growing never copies them):
  // #rowSlot holds a state's slot + 1 (0: no row), #slotState the reverse; when all slots
  // are taken, the oldest row is dropped (its transitions are computed again if needed).
  readonly #sets = new SetTable();
  readonly #rows: Int32Array[] = [];
  #rowSlot = new Int32Array(0);
  readonly #slotState: number[] = [];
  readonly #rowCap: number;
  #rowHand = 0;
  // Per DFA state: the ids in #lists of the lexemes it accepts, of its winners, and of its
  // byte cuts (+ 1: 0 until known). Lists many states share, each stored once (a small array
  // per state was thousands of objects for each scavenge to copy while the lexer grew).
  readonly #lists = new SetTable();
  #acceptingList = new Int32Array(0);
  #winnersList = new Int32Array(0);
  #cutsList = new Int32Array(0);
  readonly #lazy: boolean[] = [];
  // Per state: the state and byte it was first reached by (state * 256 + byte), -1 for starts.
  readonly #origins: number[] = [];
  readonly #startByAllowed = new Map<string, number>();
  readonly #ignore: readonly number[];
  readonly #empty = new Set<number>();
  // Counted states (`isCounted`). In a tick region that allows them (`TickRegion.shaped`), a
  // set of threads whose copies all lie far enough from the count's bounds behaves as the same
  // threads shifted by any other such count: it is a count on a shape. The shape is a state of
  // its own (its threads shifted down to count 0, after a -1 mark that keeps it apart from a
  // plain state); its row holds relative targets (a shape and the ticks the count goes up by,
  // or a plain state), computed from its threads at its lowest count. A count past the target
  // shape's highest is a plain state (`#concrete`).
  readonly #shapes: (Shape | undefined)[] = [];
  // Shapes' states by their number (`Shape.index`), which counted states hold.
  readonly #shapeStates: number[] = [];
  readonly #concrete = new Map<number, number>();
  // Per tick region allowing counted states: how many counts below its cap they stay (null: none).
  readonly #rooms = new Map<TickRegion, number | null>();
  #shapedRegions = false;
  // Per NFA state: whether it lies in a counted template or can reach one (for `#nfaStates` states).
  #regional: Uint8Array = new Uint8Array(0);
  #nfaStates = 0;

  constructor(lexemes: readonly LexemeDef[], ignore: readonly number[], limits: GrammarLimits) {
    this.lexemes = lexemes;
    this.hasLazyLexemes = lexemes.some((lexeme) => lexeme.mode === 'lazy');
    this.#excluding = lexemes.some((lexeme) => (lexeme.excludes?.length ?? 0) > 0);
    this.#ignore = ignore;
    this.#maxStates = limits.maxLexerStates;
    this.#rowCap = lexerRows(limits);
    this.#nfa = new Nfa(limits.maxNfaStates, true);
    const n = lexemes.length;
    this.#starts = new Array<number>(2 * n).fill(-1);
    const automata = [...lexemes.keys(), ...new Set(lexemes.flatMap((lexeme) => (lexeme.excludes ?? []).map((e) => n + e)))];
    this.#unbuilt = automata.length;
    // A lexeme with an intersection or complement is built when a start state first allows
    // it, if its structure proves it matches something (a product takes most of a compile).
    this.#build(
      automata.filter((index) => {
        const facts = languageFacts(lexemes[index % n]!.regex);
        return !(facts.costly && facts.some);
      }),
    );
    this.#intern(this.#found.subarray(0, 0)); // DEAD
  }

  // Builds the automata of `indices` (lexemes and guards not built yet) and appends their
  // states to the flat arrays. A lexeme that matches nothing is noted as such.
  #build(indices: readonly number[]): void {
    const nfa = this.#nfa!;
    const first = nfa.stateCount;
    for (const index of indices) {
      const lexeme = this.lexemes[index % this.lexemes.length]!;
      let start: number;
      let accept: number;
      try {
        start = nfa.newState();
        accept = nfa.newState();
        nfa.setAccepts(accept, index);
        nfa.build(lexeme.regex, start, accept);
      } catch (error) {
        if (!(error instanceof GrammarLimitError)) throw error;
        const where = lexeme.origin === undefined ? lexeme.name : `${lexeme.name} at ${lexeme.origin || '#'}`;
        throw new GrammarLimitError(error.limit, error.value, `${error.message}; lexeme ${where}`, error.span, {
          name: lexeme.name,
          ...(lexeme.origin !== undefined && { origin: lexeme.origin }),
        });
      }
      if (!nfa.pruneDeadEnds(start, accept)) this.#empty.add(index);
      this.#starts[index] = start;
    }
    const part = nfa.frozen(first);
    const count = nfa.stateCount;
    const known = new Set(this.#regions);
    for (const region of nfa.regions!) {
      if (known.has(region)) continue;
      this.#regions.push(region);
      this.#exits.set(region.exit, region);
    }
    const shaped: TickRegion[] = [];
    for (const region of nfa.ticking) {
      if (known.has(region)) continue;
      this.#regions.push(region);
      if (region.shaped) shaped.push(region);
      for (let s = region.entry; s < region.entry + region.size; s++) this.#ticking.set(s, region);
    }
    this.#regions.sort((a, b) => a.base - b.base);
    const edges = this.#edgeStart[first]!;
    const moves = this.#epsilonStart[first]!;
    this.#edgeStart = withRoom(this.#edgeStart, count + 1);
    this.#epsilonStart = withRoom(this.#epsilonStart, count + 1);
    for (let i = 1; i <= count - first; i++) {
      this.#edgeStart[first + i] = edges + part.edgeStart[i]!;
      this.#epsilonStart[first + i] = moves + part.moveStart[i]!;
    }
    this.#edgeLo = withRoom(this.#edgeLo, edges + part.edgeTo.length);
    this.#edgeHi = withRoom(this.#edgeHi, edges + part.edgeTo.length);
    this.#edgeTo = withRoom(this.#edgeTo, edges + part.edgeTo.length);
    this.#edgeLo.set(part.edgeLo, edges);
    this.#edgeHi.set(part.edgeHi, edges);
    this.#edgeTo.set(part.edgeTo, edges);
    this.#epsilonTo = withRoom(this.#epsilonTo, moves + part.moveTo.length);
    this.#epsilonTo.set(part.moveTo, moves);
    this.#acceptOf = withRoom(this.#acceptOf, count);
    this.#acceptOf.set(part.accepts, first);
    this.#lifeProxy = withRoom(this.#lifeProxy, count);
    this.#lifeProxy.set(part.lifeProxy, first);
    this.#kept = withRoom(this.#kept, count);
    for (let s = first; s < count; s++) this.#kept[s] = this.#edgeStart[s + 1]! > this.#edgeStart[s]! || this.#acceptOf[s]! >= 0 ? 1 : 0;
    // Marks of new room are 0, below any generation to come.
    this.#mark = withRoom(this.#mark, count);
    this.#stack = withRoom(this.#stack, count);
    this.#found = withRoom(this.#found, count);
    this.#nfaStates = count;
    this.#unbuilt -= indices.length;
    if (this.#unbuilt === 0) this.#nfa = undefined;
    // A product too large for plain states that cannot have counted states would build lexer
    // states per count: refused here rather than at maxLexerStates mid-output.
    if (shaped.some((region) => region.mustShape && this.#room(region) === null))
      throw new GrammarLimitError(
        'maxNfaStates',
        nfa.maxStates,
        'a large counted repetition inside an intersection, with more counting after it in its lexeme',
      );
    if (shaped.some((region) => this.#room(region) !== null)) this.#shapedRegions = true;
  }

  /** Whether lexeme `index` matches no string at all. */
  matchesNothing(index: number): boolean {
    return this.#empty.has(index);
  }

  /** Number of DFA states built so far. */
  get stateCount(): number {
    return this.#sets.size;
  }

  /**
   * The state in which any of `expected` (sorted lexeme indices) or an ignored lexeme may
   * start, and the lexemes they exclude (which take the texts they match).
   */
  start(expected: ArrayLike<number>): number {
    const key = Array.prototype.join.call(expected, ',');
    let state = this.#startByAllowed.get(key);
    if (state === undefined) {
      const running = new Set([...Array.from(expected), ...this.#ignore]);
      for (const lexeme of [...running]) for (const excluded of this.lexemes[lexeme]!.excludes ?? []) running.add(this.lexemes.length + excluded);
      const allowed = [...running].sort((a, b) => a - b);
      const unbuilt = allowed.filter((lexeme) => this.#starts[lexeme]! < 0);
      if (unbuilt.length > 0) this.#build(unbuilt);
      const generation = this.#nextGeneration();
      let top = 0;
      for (const lexeme of allowed) top = this.#push(this.#starts[lexeme]!, generation, top);
      state = this.#intern(this.#close(generation, top));
      this.#startByAllowed.set(key, state);
    }
    return state;
  }

  /** The state after `byte`, or DEAD. */
  next(state: number, byte: number): number {
    if (state >= COUNTED_STATE) return this.#countedNext(state, byte, this.#runScratch);
    const slot = this.#rowSlot[state]! - 1;
    if (slot >= 0) {
      const known = this.#rows[Math.floor(slot / ROW_BLOCK)]![(slot % ROW_BLOCK) * 256 + byte]!;
      if (known >= 0) return known;
    }
    return this.nextRun(state, byte, this.#runScratch);
  }

  /**
   * `next(state, byte)`, and the run of bytes around `byte` that lead there too, written to
   * `run` as [first, last + 1).
   */
  nextRun(state: number, byte: number, run: Int32Array): number {
    if (state >= COUNTED_STATE) return this.#countedNext(state, byte, run);
    const row = this.#rowAround(state, byte, run);
    const known = row[byte]!;
    return known >= 0 ? known : this.#fillRun(state, row, byte, run[0], run[1]);
  }

  // The row of `state`, and in `run` the run of bytes around `byte` that lead where it does.
  #rowAround(state: number, byte: number, run: Int32Array): Int32Array {
    const cuts = this.byteCuts(state);
    const i = cutAfter(cuts, byte);
    run[0] = cuts[i - 1]!;
    run[1] = cuts[i]!;
    return this.#row(state);
  }

  /** All 256 transitions of `state` (a view, valid until another state's row is taken; building the states they lead to). */
  row(state: number): Int32Array {
    const cuts = this.byteCuts(state);
    if (state >= COUNTED_STATE) {
      const targets = new Int32Array(256);
      for (let i = 0; i + 1 < cuts.length; i++) targets.fill(this.next(state, cuts[i]!), cuts[i]!, cuts[i + 1]!);
      return targets;
    }
    const row = this.#row(state);
    for (let i = 0; i + 1 < cuts.length; i++) if (row[cuts[i]!]! < 0) this.#fillRun(state, row, cuts[i]!, cuts[i]!, cuts[i + 1]!);
    return row;
  }

  // The row of `state` (a view), empty if it had none: a new slot while there is room, else
  // the oldest (its state's transitions are computed again when asked for).
  #row(state: number): Int32Array {
    let slot = this.#rowSlot[state]! - 1;
    if (slot < 0) {
      if (this.#slotState.length < this.#rowCap) {
        slot = this.#slotState.length;
        this.#slotState.push(state);
        if (slot % ROW_BLOCK === 0) this.#rows.push(new Int32Array(ROW_BLOCK * 256));
      } else {
        slot = this.#rowHand;
        this.#rowHand = (slot + 1) % this.#rowCap;
        this.#rowSlot[this.#slotState[slot]!] = 0;
        this.#slotState[slot] = state;
      }
      this.#rowSlot[state] = slot + 1;
      const at = (slot % ROW_BLOCK) * 256;
      return this.#rows[Math.floor(slot / ROW_BLOCK)]!.fill(-1, at, at + 256).subarray(at, at + 256);
    }
    const at = (slot % ROW_BLOCK) * 256;
    return this.#rows[Math.floor(slot / ROW_BLOCK)]!.subarray(at, at + 256);
  }

  // Computes the transitions of `state` (its `row`) on the bytes from `from` up to `to`,
  // which lie between two cuts and so lead to one state, stepping `byte` (one of them,
  // recorded as the origin of a new state); returns that state.
  #fillRun(state: number, row: Int32Array, byte: number, from: number, to: number): number {
    const count = this.#sets.size;
    const target = this.#intern(this.#step(this.#sets.get(state), byte));
    if (target === count) this.#origins[target] = state * 256 + byte;
    row.fill(target, from, to);
    return target;
  }

  /** Lexemes that have a complete match in `state` (sorted indices). */
  accepting(state: number): Int32Array {
    return this.#lists.get(this.#acceptingList[this.shapeOf(state)]!);
  }

  /** The complete lexemes of highest priority in `state`: what the parser scans when the lexeme ends. */
  winners(state: number): Int32Array {
    return this.#lists.get(this.#winnersList[this.shapeOf(state)]!);
  }

  /** Whether a winner of `state` is lazy: the lexeme ends at once. */
  endsLazily(state: number): boolean {
    return this.#lazy[this.shapeOf(state)]!;
  }

  /**
   * The bytes at which the transitions of `state` may change, sorted, 0 and 256 included:
   * every byte from one cut up to the next leads to the same state.
   */
  byteCuts(state: number): Int32Array {
    state = this.shapeOf(state);
    let list = this.#cutsList[state]! - 1;
    if (list < 0) {
      const shape = this.#shapes[state];
      list = this.#listId(this.threadCuts(shape === undefined ? this.#sets.get(state) : this.#materialize(state, shape.low)));
      this.#cutsList[state] = list + 1;
    }
    return this.#lists.get(list);
  }

  // The id in #lists of `list` (sorted).
  #listId(list: readonly number[]): number {
    return this.#lists.intern(Int32Array.from(list));
  }

  /** How `state` was first reached: `[state, byte]` before it, or undefined for a start state. */
  origin(state: number): readonly [from: number, byte: number] | undefined {
    const origin = state >= COUNTED_STATE ? -1 : (this.#origins[state] ?? -1);
    return origin < 0 ? undefined : [Math.floor(origin / 256), origin % 256];
  }

  /**
   * A thread that dies no later than `thread` whatever the input: itself, or for a state of
   * a product with a complement, its stand-in on the other operand (far fewer states to
   * explore). What slice checks measure lives on.
   */
  lifeProxy(thread: number): number {
    if (thread >= VIRTUAL_BASE) return thread;
    const proxy = this.#lifeProxy[thread]!;
    return proxy < 0 ? thread : proxy;
  }

  /** The threads of `state`: its NFA states (sorted). */
  threads(state: number): Int32Array {
    return state >= COUNTED_STATE ? this.#materialize(this.shapeOf(state), countOf(state)) : this.#sets.get(state);
  }

  /** The state whose transitions (relative ones), winners and slices serve `state`: a counted state's shape, else itself. */
  shapeOf(state: number): number {
    return state >= COUNTED_STATE ? this.#shapeStates[shapeIndex(state)]! : state;
  }

  /** For a shape (see `isCounted`): its number and the highest count of its counted states; undefined for other states. */
  shape(state: number): { readonly index: number; readonly high: number } | undefined {
    return this.#shapes[state];
  }

  /**
   * The transition of shape `shape` on `byte` (its run of bytes written to `run`): DEAD, a plain
   * state, or relative, `COUNTED_STATE | target shape << COUNTED_SHAPE_SHIFT | ticks`.
   */
  shapeRun(shape: number, byte: number, run: Int32Array): number {
    const row = this.#rowAround(shape, byte, run);
    const known = row[byte]!;
    if (known !== -1) return known;
    const { region, low } = this.#shapes[shape]!;
    const set = this.#step(this.#materialize(shape, low), byte);
    const counted = this.#counted(set);
    let entry: number;
    if (counted !== undefined) {
      entry = countedState(this.#shapes[this.#shape(set, counted)]!.index, counted.base - low);
    } else {
      // Nothing of the region left (it cannot be entered anew from a shape: see `#counted`).
      if (set.some((thread) => thread >= VIRTUAL_BASE || this.#ticking.get(thread) === region))
        throw new Error('a counted state stepped to an uncounted set of its region');
      entry = this.#intern(set);
    }
    row.fill(entry, run[0], run[1]);
    return entry;
  }

  /** The state a shape's transition `entry` (`shapeRun`) names from counted state `from`: a plain entry is itself. */
  countedTarget(from: number, entry: number): number {
    return entry < COUNTED_STATE ? entry : countedState(shapeIndex(entry), countOf(from) + countOf(entry));
  }

  // `next` from a counted state.
  #countedNext(state: number, byte: number, run: Int32Array): number {
    const target = this.countedTarget(state, this.shapeRun(this.shapeOf(state), byte, run));
    if (target < COUNTED_STATE || countOf(target) <= this.#shapes[this.shapeOf(target)]!.high) return target;
    let plain = this.#concrete.get(target);
    if (plain === undefined) {
      plain = this.#intern(this.#materialize(this.shapeOf(target), countOf(target)));
      this.#concrete.set(target, plain);
    }
    return plain;
  }

  // The threads of `shape` at count `count`.
  #materialize(shape: number, count: number): Int32Array {
    const key = this.#sets.get(shape);
    const region = this.#shapes[shape]!.region;
    const set = new Int32Array(key.length - 1);
    for (let i = 1; i < key.length; i++) set[i - 1] = this.#shifted(key[i]!, region, count);
    return set.sort();
  }

  // `thread` moved `by` copies up when it lies in `region`'s template or copies.
  #shifted(thread: number, region: TickRegion, by: number): number {
    let copy: number;
    if (thread < VIRTUAL_BASE) {
      if (this.#ticking.get(thread) !== region) return thread;
      copy = 0;
    } else {
      if (thread < region.base || thread >= region.base + region.cap * region.size) return thread;
      copy = Math.floor((thread - region.base) / region.size) + 1;
    }
    return tickCopy(region, this.#real(thread), copy + by);
  }

  // `set` as a count on a shape, where it may be one: its threads in one tick region that allows
  // counted states, at copies `base` to `base + width`, and its others outside every counted
  // template and unable to reach one (so no thread enters the region anew: a shape's successors
  // are shapes or plain states of no region, whatever the count).
  #counted(set: ArrayLike<number>): { readonly region: TickRegion; readonly base: number; readonly width: number } | undefined {
    if (!this.#shapedRegions) return undefined;
    let region: TickRegion | undefined;
    let low = Infinity;
    let high = -1;
    for (let i = 0; i < set.length; i++) {
      const thread = set[i]!;
      let copy = 0;
      let of: CountedRegion | TickRegion | undefined;
      if (thread < VIRTUAL_BASE) {
        of = this.#ticking.get(thread);
        if (of === undefined) {
          if (this.#regionalStates()[thread] === 1) return undefined;
          continue;
        }
      } else {
        of = this.#regionOf(thread);
        copy = Math.floor((thread - of.base) / of.size) + 1;
      }
      if (!('ticks' in of) || (region !== undefined && of !== region)) return undefined;
      region = of;
      low = Math.min(low, copy);
      high = Math.max(high, copy);
    }
    return region === undefined || this.#room(region) === null ? undefined : { region, base: low, width: high - low };
  }

  // The shape of `set` (`#counted` says how), a new state if it is new.
  #shape(set: ArrayLike<number>, { region, base, width }: { readonly region: TickRegion; readonly base: number; readonly width: number }): number {
    const key = new Int32Array(set.length + 1);
    key[0] = -1;
    for (let i = 0; i < set.length; i++) key[i + 1] = this.#shifted(set[i]!, region, -base);
    key.subarray(1).sort();
    const known = this.#sets.find(key);
    if (known >= 0) return known;
    const index = this.#shapeStates.length;
    if (index > COUNTED_FIELD_MASK)
      throw new GrammarLimitError('maxLexerStates', this.#maxStates, `the lexer needs more than ${COUNTED_FIELD_MASK + 1} shapes of counted states`);
    const [low, high] = this.#counts(region, width);
    const threads = new Int32Array(set.length);
    for (let i = 0; i < set.length; i++) threads[i] = this.#shifted(set[i]!, region, low - base);
    const id = this.#add(key, threads);
    this.#shapes[id] = { index, region, low, high };
    this.#shapeStates.push(id);
    return id;
  }

  // The counts a shape of `region` whose copies span `width` more takes: from the minimum (at
  // least 1: copy 0 is the template itself) to `#room` below the cap.
  #counts(region: TickRegion, width: number): [low: number, high: number] {
    return [Math.max(region.min, 1), region.cap - this.#room(region)! - width];
  }

  // How many counts below its cap a counted state of `region` stays, or null where it has none:
  // one more than the most ticks a template state needs to end, so that from every count up to
  // there a thread lives exactly when it can end at all (as `#countAllows` decides), and a tick
  // never meets the cap. None where the region's way out leads into a counted template again.
  #room(region: TickRegion): number | null {
    let room = this.#rooms.get(region);
    if (room === undefined) {
      room = null;
      if (region.shaped && this.#regionalStates()[region.to] === 0) {
        const fewest = new Int32Array(region.size).fill(-1);
        region.ends.forEach((set, k) => {
          for (let x = 0; x < region.size; x++) if (fewest[x]! < 0 && ((set[x >> 5]! >>> (x & 31)) & 1) === 1) fewest[x] = k;
        });
        // (A loop: a region's states may outnumber the arguments a call can spread.)
        room = fewest.reduce((most, k) => Math.max(most, k), 0) + 1;
      }
      this.#rooms.set(region, room);
    }
    return room;
  }

  // Per NFA state: 1 where it lies in a counted template (either kind) or can reach one.
  #regionalStates(): Uint8Array {
    const n = this.#nfaStates;
    if (this.#regional.length === n) return this.#regional;
    const regional = new Uint8Array(n);
    const queue: number[] = [];
    for (const region of this.#regions) {
      for (let s = region.entry; s < region.entry + region.size; s++) {
        regional[s] = 1;
        queue.push(s);
      }
    }
    // Predecessors by byte edges and ε-moves (compressed rows).
    const start = new Int32Array(n + 1);
    const each = (visit: (from: number, to: number) => void): void => {
      for (let s = 0; s < n; s++) {
        for (let e = this.#edgeStart[s]!, end = this.#edgeStart[s + 1]!; e < end; e++) visit(s, this.#edgeTo[e]!);
        for (let e = this.#epsilonStart[s]!, end = this.#epsilonStart[s + 1]!; e < end; e++) visit(s, this.#epsilonTo[e]!);
      }
    };
    each((_, to) => {
      if (to < n) start[to + 1]!++;
    });
    for (let s = 0; s < n; s++) start[s + 1]! += start[s]!;
    const fill = start.slice(0, n);
    const from = new Int32Array(start[n]!);
    each((source, to) => {
      if (to < n) from[fill[to]!++] = source;
    });
    while (queue.length > 0) {
      const s = queue.pop()!;
      for (let i = start[s]!; i < start[s + 1]!; i++) {
        const p = from[i]!;
        if (regional[p] === 0) {
          regional[p] = 1;
          queue.push(p);
        }
      }
    }
    this.#regional = regional;
    return regional;
  }

  /**
   * The threads after `byte` from `threads`, as a DFA state would hold them (empty: dead);
   * a view of scratch memory, valid until the lexer steps again.
   */
  stepThreads(threads: ArrayLike<number>, byte: number): Int32Array {
    return this.#step(threads, byte);
  }

  /** `byteCuts` for any set of threads. */
  threadCuts(threads: ArrayLike<number>): number[] {
    // The edges' bounds, each once (marked in scratch, unmarked after), sorted by insertion
    // (usually a dozen or two; cheaper than scanning all 257 marks).
    const marked = this.#cutScratch;
    const cuts = [0, 256];
    marked[0] = marked[256] = 1;
    const add = (byte: number): void => {
      if (marked[byte] === 1) return;
      marked[byte] = 1;
      let i = cuts.length - 1;
      cuts.push(256);
      for (; cuts[i - 1]! > byte; i--) cuts[i] = cuts[i - 1]!;
      cuts[i] = byte;
    };
    for (let t = 0; t < threads.length; t++) {
      const thread = this.#real(threads[t]!);
      for (let e = this.#edgeStart[thread]!, end = this.#edgeStart[thread + 1]!; e < end; e++) {
        add(this.#edgeLo[e]!);
        add(this.#edgeHi[e]! + 1);
      }
    }
    for (const byte of cuts) marked[byte] = 0;
    return cuts;
  }

  // The closure of the targets of `byte` from `threads` (a view into scratch memory, valid
  // until the next closure).
  #step(threads: ArrayLike<number>, byte: number): Int32Array {
    const generation = this.#nextGeneration();
    let top = 0;
    for (let t = 0; t < threads.length; t++) {
      const thread = threads[t]!;
      const real = this.#real(thread);
      // A virtual copy's edges are its template's, shifted (they stay inside the template).
      const shift = thread - real;
      for (let e = this.#edgeStart[real]!, end = this.#edgeStart[real + 1]!; e < end; e++) {
        if (this.#edgeLo[e]! <= byte && byte <= this.#edgeHi[e]!) top = this.#push(this.#edgeTo[e]! + shift, generation, top);
      }
    }
    return this.#close(generation, top);
  }

  // Whether a thread in a tick region can still end with a count its bounds allow (other
  // threads: yes).
  #countAllows(state: number): boolean {
    const real = this.#real(state);
    const region = this.#ticking.get(real);
    if (region === undefined) return true;
    const copy = state === real ? 0 : Math.floor((state - region.base) / region.size) + 1;
    return endsWithin(region, real - region.entry, Math.max(0, region.min - copy), region.saturates ? Infinity : region.cap - copy);
  }

  // Whether NFA state `real` has no byte edges.
  #readsNoByte(real: number): boolean {
    return this.#edgeStart[real + 1] === this.#edgeStart[real];
  }

  // The template state a virtual state copies (a real state is its own).
  #real(thread: number): number {
    if (thread < VIRTUAL_BASE) return thread;
    const region = this.#regionOf(thread);
    return region.entry + ((thread - region.base) % region.size);
  }

  // The counted region a virtual state belongs to: the last whose base is not above it
  // (binary search: a schema may have hundreds of long strings).
  #regionOf(thread: number): CountedRegion | TickRegion {
    const regions = this.#regions;
    let low = 0;
    let high = regions.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (regions[mid]!.base <= thread) low = mid;
      else high = mid - 1;
    }
    return regions[low]!;
  }

  #nextGeneration(): number {
    this.#virtualMarks.clear();
    if (this.#generation === 0xffffffff) {
      this.#mark.fill(0);
      this.#generation = 0;
    }
    return ++this.#generation;
  }

  // Pushes `state` onto the closure stack unless this generation has seen it; the new top.
  #push(state: number, generation: number, top: number): number {
    if (this.#ticking.size > 0 && !this.#countAllows(state)) return top;
    if (state >= VIRTUAL_BASE) {
      if (this.#virtualMarks.has(state)) return top;
      this.#virtualMarks.add(state);
    } else {
      if (this.#mark[state] === generation) return top;
      this.#mark[state] = generation;
    }
    // Virtual states may outnumber the room real ones were given.
    if (top >= this.#stack.length) this.#stack = withRoom(this.#stack, top + 1);
    this.#stack[top] = state;
    return top + 1;
  }

  // The ε-closure of the stack's `top` states, kept states only, sorted (a scratch view).
  #close(generation: number, top: number): Int32Array {
    let found = 0;
    while (top > 0) {
      const state = this.#stack[--top]!;
      const real = this.#real(state);
      if (this.#kept[real] === 1) {
        if (found >= this.#found.length) this.#found = withRoom(this.#found, found + 1);
        this.#found[found++] = state;
      }
      const region = this.#exits.get(real);
      const ticking = region === undefined && this.#ticking.size > 0 ? this.#ticking.get(real) : undefined;
      if (ticking !== undefined) {
        // A product with a counted operand: ticks move on a copy, the way out needs the minimum.
        const copy = state === real ? 0 : Math.floor((state - ticking.base) / ticking.size) + 1;
        const tickTo = ticking.ticks.get(real);
        for (let e = this.#epsilonStart[real]!, end = this.#epsilonStart[real + 1]!; e < end; e++) {
          const target = this.#epsilonTo[e]!;
          if (target === ticking.to) {
            if (copy >= ticking.min) top = this.#push(target, generation, top);
          } else if (target === tickTo) {
            const next = copy < ticking.cap ? copy + 1 : ticking.saturates ? copy : -1;
            if (next >= 0) top = this.#push(tickCopy(ticking, target, next), generation, top);
          } else {
            top = this.#push(tickCopy(ticking, target, copy), generation, top);
          }
        }
      } else if (region === undefined) {
        const shift = state - real;
        for (let e = this.#epsilonStart[real]!, end = this.#epsilonStart[real + 1]!; e < end; e++)
          top = this.#push(this.#epsilonTo[e]! + shift, generation, top);
      } else {
        // The end of copy j (0 for the template): on to copy j + 1, or out, as the count allows.
        const done = state === real ? 1 : Math.floor((state - region.base) / region.size) + 2;
        if (done < region.max) top = this.#push(region.base + (done - 1) * region.size, generation, top);
        if (done >= region.min) top = this.#push(region.to, generation, top);
      }
    }
    return this.#found.subarray(0, found).sort();
  }

  // The DFA state holding `set` (a scratch view; copied when the state is new): a counted
  // state where it is one.
  #intern(set: Int32Array): number {
    const counted = this.#counted(set);
    if (counted !== undefined) {
      const [low, high] = this.#counts(counted.region, counted.width);
      if (counted.base >= low && counted.base <= high) return countedState(this.#shapes[this.#shape(set, counted)]!.index, counted.base);
    }
    return this.#add(set, set);
  }

  // The plain state holding `key` (its lexemes those of `threads`: for a shape, its threads at
  // some count).
  #add(key: Int32Array, threads: Int32Array): number {
    const known = this.#sets.find(key);
    if (known >= 0) return known;
    const id = this.#sets.size;
    if (id >= this.#maxStates) {
      throw new GrammarLimitError('maxLexerStates', this.#maxStates, `the lexer needs more than ${this.#maxStates} states (maxLexerStates)`);
    }
    // Accepted lexemes (sorted, distinct; none whose text a guard takes), and the winners
    // among them: highest priority.
    let accepting: number[] = [];
    for (const thread of threads) {
      if (thread >= VIRTUAL_BASE) continue; // copies inside a repetition accept nothing
      const lexeme = this.#acceptOf[thread]!;
      if (lexeme >= 0 && !accepting.includes(lexeme)) accepting.push(lexeme);
    }
    if (this.#excluding) {
      const n = this.lexemes.length;
      const taken = accepting.filter((l) => l >= n).map((l) => l - n);
      accepting = accepting.filter((l) => l < n && !(taken.length > 0 && this.lexemes[l]!.excludes?.some((e) => taken.includes(e))));
      // A state that now accepts nothing and reads no more bytes is a dead end: DEAD. (The
      // only one exclusion makes where it is used: see `LexemeDef.excludes`.)
      if (accepting.length === 0 && threads.length > 0 && threads.every((thread) => this.#readsNoByte(this.#real(thread)))) return DEAD;
    }
    this.#sets.add(key);
    let best = -Infinity;
    for (const lexeme of accepting) best = Math.max(best, this.lexemes[lexeme]!.priority ?? 0);
    accepting.sort((a, b) => a - b);
    const winners = accepting.filter((l) => (this.lexemes[l]!.priority ?? 0) === best);
    this.#acceptingList = withRoom(this.#acceptingList, id + 1);
    this.#winnersList = withRoom(this.#winnersList, id + 1);
    this.#cutsList = withRoom(this.#cutsList, id + 1);
    this.#acceptingList[id] = this.#listId(accepting);
    this.#winnersList[id] = this.#listId(winners);
    this.#lazy.push(winners.some((l) => this.lexemes[l]!.mode === 'lazy'));
    this.#rowSlot = withRoom(this.#rowSlot, id + 1);
    return id;
  }
}
