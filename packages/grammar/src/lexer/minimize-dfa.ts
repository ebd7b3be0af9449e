/**
 * The smallest deterministic automaton of a language given by a deterministic one
 * (Hopcroft's partition refinement). Bytes are read in classes: the runs between every edge
 * boundary of the automaton, so a UTF-8 automaton has tens of symbols, not 256.
 */
import type { ByteAutomaton } from '../ir/byte-regex.ts';

/**
 * `automaton` (start state 0, at most one target per byte) with its equivalent states
 * merged, start state 0 again. States that cannot reach acceptance are dropped, and edges
 * into them, unless `keepDead` (a complement's states read every byte, and must go on to).
 * Null when its transition table would take more than `maxCells` entries (states × classes).
 */
export function minimizeDfa(automaton: ByteAutomaton, keepDead: boolean, maxCells: number): ByteAutomaton | null {
  const { edges, accepting } = automaton;
  const n = edges.length;
  // Byte classes: a class starts at every edge boundary.
  const cut = new Uint8Array(257);
  cut[0] = cut[256] = 1;
  for (const list of edges) for (let i = 0; i < list.length; i += 3) cut[list[i]!] = cut[list[i + 1]! + 1] = 1;
  const classStart: number[] = [];
  const classOf = new Int32Array(256);
  for (let b = 0; b < 256; b++) {
    if (cut[b] === 1) classStart.push(b);
    classOf[b] = classStart.length - 1;
  }
  classStart.push(256);
  const k = classStart.length - 1;
  // The full table, with a sink (state n) for the bytes a state does not read.
  const size = n + 1;
  if (size * k > maxCells) return null;
  const delta = new Int32Array(size * k).fill(n);
  edges.forEach((list, s) => {
    for (let i = 0; i < list.length; i += 3) for (let c = classOf[list[i]!]!; c <= classOf[list[i + 1]!]!; c++) delta[s * k + c] = list[i + 2]!;
  });
  const blockOf = refine(delta, size, k, (s) => (s < n && accepting[s] ? 1 : 0));
  return rebuild(automaton, delta, k, classStart, blockOf, keepDead);
}

// Hopcroft's algorithm: the coarsest partition of the states (by `initial` label) that the
// transitions respect. Returns each state's block.
function refine(delta: Int32Array, size: number, k: number, initial: (s: number) => number): Int32Array {
  // Predecessors by (target, class), compressed.
  const predStart = new Int32Array(size * k + 1);
  for (let i = 0; i < delta.length; i++) predStart[delta[i]! * k + (i % k) + 1]!++;
  for (let i = 0; i < size * k; i++) predStart[i + 1]! += predStart[i]!;
  const preds = new Int32Array(delta.length);
  const fill = predStart.slice(0, size * k);
  for (let i = 0; i < delta.length; i++) preds[fill[delta[i]! * k + (i % k)]!++] = Math.floor(i / k);
  // Blocks as ranges of `elements`; `position` is where each state sits there.
  const elements = new Int32Array(size);
  const position = new Int32Array(size);
  const blockOf = new Int32Array(size);
  const first = new Int32Array(size);
  const end = new Int32Array(size);
  const marked = new Int32Array(size);
  let blocks = 0;
  const labels = new Map<number, number[]>();
  for (let s = 0; s < size; s++) {
    const label = initial(s);
    let group = labels.get(label);
    if (group === undefined) labels.set(label, (group = []));
    group.push(s);
  }
  let at = 0;
  for (const group of labels.values()) {
    first[blocks] = at;
    for (const s of group) {
      elements[at] = s;
      position[s] = at++;
      blockOf[s] = blocks;
    }
    end[blocks++] = at;
  }
  // Splitters (block, class) waiting; every initial block but one is enough.
  const waiting: number[] = [];
  const inWaiting = new Uint8Array(size * k);
  const wait = (block: number, c: number): void => {
    inWaiting[block * k + c] = 1;
    waiting.push(block * k + c);
  };
  for (let b = 1; b < blocks; b++) for (let c = 0; c < k; c++) wait(b, c);
  const found: number[] = [];
  const touched: number[] = [];
  while (waiting.length > 0) {
    const splitter = waiting.pop()!;
    inWaiting[splitter] = 0;
    const block = Math.floor(splitter / k);
    const c = splitter % k;
    found.length = 0;
    for (let i = first[block]!; i < end[block]!; i++) {
      const key = elements[i]! * k + c;
      for (let p = predStart[key]!; p < predStart[key + 1]!; p++) found.push(preds[p]!);
    }
    // Move each state found to the front of its block (each state is found at most once: the
    // automaton is deterministic).
    touched.length = 0;
    for (const s of found) {
      const b = blockOf[s]!;
      if (marked[b] === 0) touched.push(b);
      const to = first[b]! + marked[b]!++;
      const other = elements[to]!;
      const from = position[s]!;
      elements[to] = s;
      position[s] = to;
      elements[from] = other;
      position[other] = from;
    }
    for (const b of touched) {
      const count = marked[b]!;
      marked[b] = 0;
      if (count === end[b]! - first[b]!) continue;
      const split = blocks++;
      first[split] = first[b]!;
      end[split] = first[b]! + count;
      first[b] = end[split]!;
      for (let i = first[split]!; i < end[split]!; i++) blockOf[elements[i]!] = split;
      const smaller = count <= end[b]! - first[b]! ? split : b;
      for (let d = 0; d < k; d++) wait(inWaiting[b * k + d] === 1 ? split : smaller, d);
    }
  }
  return blockOf;
}

// The automaton of the blocks: each block's edges are its first state's, by class runs.
function rebuild(
  { edges, accepting }: ByteAutomaton,
  delta: Int32Array,
  k: number,
  classStart: readonly number[],
  blockOf: Int32Array,
  keepDead: boolean,
): ByteAutomaton {
  const n = edges.length;
  // Blocks reachable from the start, numbered in the order met (the start's block first).
  const id = new Map<number, number>([[blockOf[0]!, 0]]);
  const members: number[] = [0];
  for (let i = 0; i < members.length; i++) {
    for (let c = 0; c < k; c++) {
      const t = delta[members[i]! * k + c]!;
      if (t < n && !id.has(blockOf[t]!)) {
        id.set(blockOf[t]!, members.length);
        members.push(t);
      }
    }
  }
  // Blocks that reach acceptance (all of them when dead ones stay).
  const live = new Uint8Array(members.length).fill(keepDead ? 1 : 0);
  if (!keepDead) {
    const into: number[][] = members.map(() => []);
    members.forEach((s, b) => {
      for (let c = 0; c < k; c++) {
        const t = delta[s * k + c]!;
        if (t < n) into[id.get(blockOf[t]!)!]!.push(b);
      }
    });
    const stack = members.flatMap((s, b) => (accepting[s] ? [b] : []));
    for (const b of stack) live[b] = 1;
    while (stack.length > 0) {
      for (const p of into[stack.pop()!]!) {
        if (live[p] === 0) {
          live[p] = 1;
          stack.push(p);
        }
      }
    }
  }
  if (live[0] === 0) return { edges: [[]], accepting: [false] }; // matches nothing
  // The blocks kept, numbered anew.
  const kept = new Int32Array(members.length).fill(-1);
  const keptMembers = members.filter((_, b) => live[b] === 1);
  keptMembers.forEach((s, i) => (kept[id.get(blockOf[s]!)!] = i));
  const targetOf = (s: number, c: number): number => {
    const t = delta[s * k + c]!;
    return t < n ? kept[id.get(blockOf[t]!)!]! : -1;
  };
  return {
    edges: keptMembers.map((s) => {
      const list: number[] = [];
      for (let c = 0; c < k;) {
        const target = targetOf(s, c);
        let next = c + 1;
        while (next < k && targetOf(s, next) === target) next++;
        if (target >= 0) list.push(classStart[c]!, classStart[next]! - 1, target);
        c = next;
      }
      return list;
    }),
    accepting: keptMembers.map((s) => accepting[s]!),
  };
}
