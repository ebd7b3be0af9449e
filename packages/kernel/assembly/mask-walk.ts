// The mask walk: one depth-first walk of the vocab trie per mask, stepping the matcher from
// the state saved at the parent node (the path holds one per depth), pruning a rejected
// node's whole subtree. It is resumable: a need status saves the node, the host fills in
// what is missing and calls matcherMaskResume.
//
// Token slices: at the root of a mask walk the accepted slices' tokens are added at once and
// the trie subtrees they cover skipped; deeper, a subtree a slice covers, below a character
// boundary where the lexer state accepts that slice, has its tokens added without stepping
// the lexer.
//
// Masks are cached under the exact state key (state-key.ts). What a walk learns about its
// root lexer state alone is cached too ("lexical entries"): until a lexeme ends on a path,
// the walk depends on the lexer state only, so the tokens it accepts that way, and the nodes
// where a lexeme ends (the "frontier"), are the same for every chart. A later walk from the
// same lexer state copies those tokens and walks only the frontier's subtrees.
import { COUNTED_FIELD_MASK, COUNTED_SHAPE_SHIFT, COUNTED_STATE, STATUS_LIMIT_TIME, STATUS_NEED_SLICES, STATUS_NEED_START, STATUS_NEED_TRANSITION, STATUS_OK, STATUS_REJECTED } from '../src/abi';
import {
  MAX_TOKEN_SLICES,
  SLICE_NODE_BOUNDARY,
  TRIE_BYTE_MASK,
  TRIE_DEPTH_SHIFT,
  TRIE_MAX_DEPTH,
  TRIE_SUBTREE_MASK,
  TRIE_TOKEN_SHIFT,
  VH_SLICE_COUNT,
  VH_SLICE_LENGTHS_AT,
  VH_SLICE_NODES_AT,
  VH_SLICE_TOKENS_AT,
  VH_MAX_TOKEN_BYTES,
  VH_TOKEN_COUNT,
  VH_TRIE_AT,
  VH_TRIE_NODE_COUNT,
} from '../../format/src/vocab-layout';
import { bitsetOr } from './brle';
import { matcherIsAccepting, notAnAnswer } from './commit';
import { restore, truncateSets } from './earley';
import { lexReal, lexTarget, sliceEntry } from './grammar';
import {
  END_UNKNOWN,
  FRONTIER_NODE,
  FRONTIER_PAIR_BYTES,
  FRONTIER_PAIR_SHIFT,
  FRONTIER_PAIR_WORDS,
  FRONTIER_PARENT_LEX,
  DEAD,
  UNKNOWN,
  LEXICAL_COUNT_BYTES,
  PATH_CHART_LEN,
  PATH_END,
  PATH_ENTRY_BYTES,
  PATH_ENTRY_SHIFT,
  PATH_LEX,
  PATH_LEX_LEN,
  SLICE_ENTRY_ABOVE_MASK,
  SLICE_ENTRY_ABOVE_SHIFT,
  SLICE_ENTRY_BOUND_SHIFT,
  SLICE_ENTRY_SLICES_MASK,
  TRIE_NODE_SHIFT,
  TRIE_NODE_WORD0,
  TRIE_NODE_WORD1,
} from './layouts';
import { Matcher, now } from './matcher';
import { maskStoreAdd, maskStoreBlock, maskStoreFlag, maskStoreGet } from './state-cache';
import { currentLex, step } from './step';
import { stateKey } from './state-key';
import { vecGet, vecPush, vecResize } from './vec';
import { copyToDuplicates, headerWord } from './vocab';

// Returns to the state saved on the mask walk's path at `depth`, keeping the parser set just
// past it: the set a sibling node may get again by ending the same lexeme.
// @ts-expect-error: decorator (AssemblyScript)
@inline
function restoreOnPath(m: Matcher, depth: i32): void {
  const entry = m.walkPath.ptr + (<usize>depth << PATH_ENTRY_SHIFT);
  const chartLen = load<i32>(entry, PATH_CHART_LEN);
  m.lex = load<i32>(entry, PATH_LEX);
  m.lexLen = load<i32>(entry, PATH_LEX_LEN);
  truncateSets(m, chartLen + 1);
  if (m.setCanon.len > chartLen) m.setCanon.len = chartLen;
  m.chartLen = chartLen;
}

// Smallest trie subtree for which the walk asks whether the lexer state accepts a slice whole.
const MIN_FILL_NODES = 64;

/**
 * Starts computing the mask into the zeroed bitset `bits`: every token allowed next (EOS
 * included when the output is complete). Returns STATUS_OK when done, or a need status
 * (fill it in, then `matcherMaskResume`), or a limit status (then `matcherMaskAbort`).
 */
export function matcherMaskBegin(mp: usize, bits: usize, maxMs: f64): i32 {
  const m = changetype<Matcher>(mp);
  const words = <i32>((headerWord(m.vocab, VH_TOKEN_COUNT) + 31) >>> 5);
  memory.fill(bits, 0, <usize>words << 2);
  if (m.finished) return STATUS_OK;
  m.walkBits = bits;
  m.walkNode = 1;
  m.walkEnd = <i32>headerWord(m.vocab, VH_TRIE_NODE_COUNT);
  m.walkReplay = false;
  m.walkFrontier.len = 0;
  memory.fill(m.walkPure, 0, <usize>words << 2);
  // One path entry per depth, the root's first.
  vecResize(m.walkPath, ((TRIE_MAX_DEPTH + 1) * PATH_ENTRY_BYTES) >> 2);
  const root = m.walkPath.ptr;
  store<i32>(root, m.lex, PATH_LEX);
  store<i32>(root, m.lexLen, PATH_LEX_LEN);
  store<i32>(root, m.chartLen, PATH_CHART_LEN);
  store<i32>(root, END_UNKNOWN, PATH_END);
  m.walkDeadline = now() + maxMs;
  m.walkVisited = 0;
  m.walkSlices = UNKNOWN;
  m.walkStamp++;
  m.walkStore = stateKey(m);
  if (m.walkStore) {
    m.walkKey1 = walkLexKey(m, m.walkKey1);
    const at = maskStoreGet(m.g.masks, m.vocabSerial, words, m.walkKey0, m.walkKey1);
    if (at !== 0) {
      m.g.masks.hits++;
      memory.copy(bits, maskStoreBlock(at), <usize>words << 2);
      eosBits(m, bits, maskStoreFlag(at) !== 0);
      return STATUS_OK;
    }
    m.g.masks.misses++;
  }
  return matcherMaskResume(mp);
}

// The lexer state a mask is cached under: itself, or for a counted state so far below its
// shape's slice bound that no token of the vocab reaches it, the shape at count 0 (no counted
// state has it): every count there walks alike, the count being read only near the bounds.
// (Not the state key `matcherStateKey` gives: states with different counts differ later.)
function walkLexKey(m: Matcher, lex: i32): i32 {
  if (lex < COUNTED_STATE) return lex;
  const reach = (lex & COUNTED_FIELD_MASK) + <i32>headerWord(m.vocab, VH_MAX_TOKEN_BYTES);
  return reach <= vecGet(m.g.sliceHigh, (lex >>> COUNTED_SHAPE_SHIFT) & COUNTED_FIELD_MASK) ? lex & ~COUNTED_FIELD_MASK : lex;
}

// Lexical entries are keyed (-2 - root lexer state, 1 when a lexeme is in progress), apart
// from masks' (canonical set id >= 0, ...).
// @ts-expect-error: decorator (AssemblyScript)
@inline
function lexicalKey(state: i32): i32 {
  return -2 - state;
}

// EOS ids allowed where the output is complete, and only there: an EOS id that is also a
// text token ends the output wherever it is committed. An id outside the vocabulary has no
// bit (as in the TypeScript matcher and the mask index): it would be written past the mask.
function eosBits(m: Matcher, bits: usize, accepting: bool): void {
  const tokens = headerWord(m.vocab, VH_TOKEN_COUNT);
  for (let i = 0; i < m.eos.len; i++) {
    const id = <u32>vecGet(m.eos, i);
    if (id >= tokens) continue;
    if (accepting) setBit(bits, id);
    else {
      const w = bits + ((<usize>id >>> 5) << 2);
      store<u32>(w, load<u32>(w) & ~(<u32>1 << (id & 31)));
    }
  }
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
function setBit(bits: usize, id: u32): void {
  const w = bits + ((<usize>id >>> 5) << 2);
  store<u32>(w, load<u32>(w) | (<u32>1 << (id & 31)));
}

// The slice entry of the state at the root of the walk (its slices limited to the vocab's),
// or a need status.
function rootSlices(m: Matcher): i32 {
  const state = currentLex(m);
  if (state === UNKNOWN) return -STATUS_NEED_START;
  const entry = sliceEntry(m.g, state);
  if (entry === UNKNOWN) {
    m.needState = state;
    return -STATUS_NEED_SLICES;
  }
  m.walkRootLex = state;
  const count = <i32>headerWord(m.vocab, VH_SLICE_COUNT);
  return count === 0 ? 0 : entry & ~SLICE_ENTRY_SLICES_MASK | (entry & ((1 << count) - 1));
}

// The walk's root accepts exactly slice 0's tokens of at most `bound` characters (its entry
// says so): those not in its slices yet go to `bits`, from the vocab's slice lengths.
function addSliceLengths(v: usize, entry: i32, bits: usize): void {
  const bound = (entry >>> SLICE_ENTRY_BOUND_SHIFT) - 1;
  if (bound < 0) return;
  const lengths = v + headerWord(v, VH_SLICE_LENGTHS_AT);
  const most = <i32>load<u32>(lengths);
  const from = (entry >>> SLICE_ENTRY_ABOVE_SHIFT) & SLICE_ENTRY_ABOVE_MASK;
  const to = bound < most ? bound : most;
  if (from >= to) return;
  // Tokens of c characters are ids starts[c] to starts[c + 1] (starts at word 1, ids after).
  const ids = lengths + (<usize>(most + 3) << 2);
  const end = load<u32>(lengths + (<usize>(to + 2) << 2));
  for (let i = load<u32>(lengths + (<usize>(from + 2) << 2)); i < end; i++) setBit(bits, load<u32>(ids + (<usize>i << 2)));
}

export function matcherMaskResume(mp: usize): i32 {
  const m = changetype<Matcher>(mp);
  const v = m.vocab;
  const trie = v + headerWord(v, VH_TRIE_AT);
  const nodeCount = <i32>headerWord(v, VH_TRIE_NODE_COUNT);
  const bits = m.walkBits;
  const words = <i32>((headerWord(v, VH_TOKEN_COUNT) + 31) >>> 5);
  if (m.walkSlices === UNKNOWN) {
    const slices = rootSlices(m);
    if (slices < 0) return -slices;
    m.walkSlices = slices;
    // A lexical entry for the root lexer state: start from its tokens, walk its frontier.
    const at = m.walkStore ? maskStoreGet(m.g.masks, m.vocabSerial, words, lexicalKey(walkLexKey(m, m.walkRootLex)), m.lexLen > 0 ? 1 : 0) : 0;
    if (at !== 0) {
      const block = maskStoreBlock(at);
      memory.copy(bits, block, <usize>words << 2);
      // Its frontier is copied: the store may drop the block before the walk resumes.
      const count = load<i32>(block + (<usize>words << 2));
      vecResize(m.walkFrontier, count * FRONTIER_PAIR_WORDS);
      memory.copy(m.walkFrontier.ptr, block + (<usize>words << 2) + LEXICAL_COUNT_BYTES, <usize>count << FRONTIER_PAIR_SHIFT);
      m.walkReplay = true;
      m.walkFrontierAt = 0;
      m.walkNode = m.walkEnd;
    }
  }
  const slices = <u8>m.walkSlices;
  // Subtrees skipped: those of slices the root accepts, and with a length bound slice 0's
  // (its tokens that fit are added from the slice lengths, the others are rejected).
  const skipped = m.walkSlices >>> SLICE_ENTRY_BOUND_SHIFT !== 0 ? slices | 1 : slices;
  const sliceNodes = v + headerWord(v, VH_SLICE_NODES_AT);
  const sliceBits = (1 << <i32>headerWord(v, VH_SLICE_COUNT)) - 1;
  const g = m.g;
  // While no lexeme has ended on the path ("pure" nodes), stepping a node is one lexer
  // transition: taken here directly; everything else goes through `step`.
  const path = m.walkPath.ptr;
  const rootLex = m.walkRootLex;
  const rootLen = load<i32>(path, PATH_LEX_LEN);
  const rootChart = load<i32>(path, PATH_CHART_LEN);
  const lexRows = g.lexRows;
  const lazy = g.winLazy.ptr;
  const winCount = g.winCount.ptr;
  const pure = m.walkPure;
  const recording = !m.walkReplay;
  let node = m.walkNode;
  for (;;) {
  while (node < m.walkEnd) {
    const at = trie + (<usize>node << TRIE_NODE_SHIFT);
    const word0 = load<u32>(at, TRIE_NODE_WORD0);
    const word1 = load<u32>(at, TRIE_NODE_WORD1);
    if (load<u8>(sliceNodes + <usize>node) & skipped) {
      node += <i32>(word1 & TRIE_SUBTREE_MASK);
      continue;
    }
    const depth = <i32>(word1 >>> TRIE_DEPTH_SHIFT);
    if (!ASC_NO_ASSERT) assert(depth >= 1 && depth <= TRIE_MAX_DEPTH, 'trie node depth out of range');
    const parentAt = path + (<usize>(depth - 1) << PATH_ENTRY_SHIFT);
    const parentLen = load<i32>(parentAt, PATH_LEX_LEN);
    const byte = <i32>(word0 & TRIE_BYTE_MASK);
    let status = STATUS_NEED_TRANSITION; // not settled by a pure step
    let lex = 0;
    let lexLen = 0;
    let chartLen = 0;
    const parentPure = parentLen === rootLen + depth - 1;
    const from = depth === 1 ? rootLex : load<i32>(parentAt, PATH_LEX);
    if (parentPure) {
      const real = lexReal(g, from);
      const to = lexTarget(g, from, load<i32>(load<usize>(lexRows + (<usize>real << 2)) + (<usize>byte << 2)));
      if (to > 0 && load<i32>(lazy + (<usize>lexReal(g, to) << 2)) === 0) {
        status = STATUS_OK;
        lex = to;
        lexLen = parentLen + 1;
        chartLen = rootChart;
      } else if (to === DEAD && (parentLen === 0 || load<i32>(winCount + (<usize>real << 2)) === 0)) {
        status = STATUS_REJECTED;
      }
    }
    // Pure nodes' tokens go to the lexical entry's bits (recording; a replay has none).
    const target = status === STATUS_OK ? pure : bits;
    if (status === STATUS_NEED_TRANSITION) {
      restoreOnPath(m, depth - 1);
      status = step(m, byte, depth - 1);
      lex = m.lex;
      lexLen = m.lexLen;
      chartLen = m.chartLen;
      // A lexeme ends below a pure node: the frontier.
      // (Once: a node can be stepped again after a need status.)
      const frontier = m.walkFrontier;
      if (parentPure && recording && (status === STATUS_OK || status === STATUS_REJECTED) && (frontier.len === 0 || vecGet(frontier, frontier.len - FRONTIER_PAIR_WORDS) !== node)) {
        // A pair, fields in FRONTIER_* order.
        vecPush(m.walkFrontier, node);
        vecPush(m.walkFrontier, from);
      }
    }
    if (status === STATUS_OK) {
      const token = word0 >>> TRIE_TOKEN_SHIFT;
      if (token !== 0) setBit(target, token - 1);
      // Below a character boundary, a subtree of slice tokens the lexer state accepts whole
      // (asked only where the subtree is big enough to pay for the check).
      const covered = <i32>load<u8>(sliceNodes + <usize>node);
      if ((covered & SLICE_NODE_BOUNDARY) !== 0 && (covered & sliceBits) !== 0 && lex !== UNKNOWN && <i32>(word1 & TRIE_SUBTREE_MASK) >= MIN_FILL_NODES) {
        const accepts = sliceEntry(g, lex);
        if (accepts === UNKNOWN) {
          m.needState = lex;
          m.walkNode = node;
          return STATUS_NEED_SLICES;
        }
        if ((accepts & covered) !== 0) {
          const end = node + <i32>(word1 & TRIE_SUBTREE_MASK);
          for (let n = node + 1; n < end; n++) {
            const t = load<u32>(trie + (<usize>n << TRIE_NODE_SHIFT), TRIE_NODE_WORD0) >>> TRIE_TOKEN_SHIFT;
            if (t !== 0) setBit(target, t - 1);
          }
          node = end;
          continue;
        }
      }
      const here = path + (<usize>depth << PATH_ENTRY_SHIFT);
      store<i32>(here, lex, PATH_LEX);
      store<i32>(here, lexLen, PATH_LEX_LEN);
      store<i32>(here, chartLen, PATH_CHART_LEN);
      store<i32>(here, END_UNKNOWN, PATH_END);
      node++;
    } else if (status === STATUS_REJECTED) {
      node += <i32>(word1 & TRIE_SUBTREE_MASK);
    } else {
      m.walkNode = node;
      return status;
    }
    if ((++m.walkVisited & 8191) === 0 && now() > m.walkDeadline) {
      m.walkNode = node;
      return STATUS_LIMIT_TIME;
    }
  }
  // Replaying: on to the next frontier node's subtree, from its parent's state.
  if (recording || m.walkFrontierAt * FRONTIER_PAIR_WORDS >= m.walkFrontier.len) break;
  const entry = m.walkFrontier.ptr + (<usize>m.walkFrontierAt << FRONTIER_PAIR_SHIFT);
  m.walkFrontierAt++;
  node = load<i32>(entry, FRONTIER_NODE);
  if (!ASC_NO_ASSERT) assert(node > 0 && node < nodeCount, 'frontier node out of range');
  const word1 = load<u32>(trie + (<usize>node << TRIE_NODE_SHIFT), TRIE_NODE_WORD1);
  const depth = <i32>(word1 >>> TRIE_DEPTH_SHIFT);
  m.walkEnd = node + <i32>(word1 & TRIE_SUBTREE_MASK);
  const parentAt = path + (<usize>(depth - 1) << PATH_ENTRY_SHIFT);
  const parentLex = load<i32>(entry, FRONTIER_PARENT_LEX);
  // Siblings under equal parent states share the parent's entry (and its ended lexeme).
  if (depth > 1 && (load<i32>(parentAt, PATH_LEX) !== parentLex || load<i32>(parentAt, PATH_LEX_LEN) !== rootLen + depth - 1 || load<i32>(parentAt, PATH_CHART_LEN) !== rootChart)) {
    store<i32>(parentAt, parentLex, PATH_LEX);
    store<i32>(parentAt, rootLen + depth - 1, PATH_LEX_LEN);
    store<i32>(parentAt, rootChart, PATH_CHART_LEN);
    store<i32>(parentAt, END_UNKNOWN, PATH_END);
  }
  }
  m.walkNode = node; // done: a resume after a need below goes straight here
  matcherMaskAbort(mp);
  if (recording) {
    // Tokens accepted before any lexeme ends: the slices the root accepts, and pure nodes'.
    for (let i = 0; i < MAX_TOKEN_SLICES; i++) {
      if ((<i32>slices >> i) & 1) bitsetOr(pure, v + headerWord(v, VH_SLICE_TOKENS_AT) + (<usize>(i * words) << 2), <u32>words);
    }
    addSliceLengths(v, m.walkSlices, pure);
    bitsetOr(bits, pure, <u32>words);
    if (m.walkStore) storeLexical(m, words);
  }
  copyToDuplicates(v, bits);
  const accepting = matcherIsAccepting(mp);
  if (notAnAnswer(accepting)) return accepting;
  if (m.walkStore) {
    const block = maskStoreAdd(m.g.masks, m.vocabSerial, words, m.walkKey0, m.walkKey1, <usize>words << 2, accepting);
    if (block !== 0) memory.copy(block, bits, <usize>words << 2);
  }
  eosBits(m, bits, accepting !== 0);
  return STATUS_OK;
}

// Stores what the walk learned about its root lexer state: a lexical entry (LEXICAL_* in
// layouts.ts).
function storeLexical(m: Matcher, words: i32): void {
  const frontier = m.walkFrontier;
  const pairs = frontier.len / FRONTIER_PAIR_WORDS;
  const bytes = (<usize>words << 2) + LEXICAL_COUNT_BYTES + <usize>pairs * FRONTIER_PAIR_BYTES;
  const block = maskStoreAdd(m.g.masks, m.vocabSerial, words, lexicalKey(walkLexKey(m, m.walkRootLex)), load<i32>(m.walkPath.ptr, PATH_LEX_LEN) > 0 ? 1 : 0, bytes, 0);
  if (block === 0) return;
  sortPairsBySecond(frontier.ptr, pairs);
  memory.copy(block, m.walkPure, <usize>words << 2);
  store<i32>(block + (<usize>words << 2), pairs);
  memory.copy(block + (<usize>words << 2) + LEXICAL_COUNT_BYTES, frontier.ptr, <usize>pairs * FRONTIER_PAIR_BYTES);
}

/** Returns the matcher to its state before the mask walk. */
export function matcherMaskAbort(mp: usize): void {
  const m = changetype<Matcher>(mp);
  const root = m.walkPath.ptr;
  if (m.walkPath.len > 0) restore(m, load<i32>(root, PATH_LEX), load<i32>(root, PATH_LEX_LEN), load<i32>(root, PATH_CHART_LEN)); // a walk has begun
}

// Stable sort of n frontier pairs by parent lexer state (insertion sort: frontiers are short
// and mostly grouped already).
function sortPairsBySecond(at: usize, n: i32): void {
  for (let i = 1; i < n; i++) {
    const pair = at + (<usize>i << FRONTIER_PAIR_SHIFT);
    const node = load<i32>(pair, FRONTIER_NODE);
    const state = load<i32>(pair, FRONTIER_PARENT_LEX);
    let j = i;
    while (j > 0 && load<i32>(at + (<usize>(j - 1) << FRONTIER_PAIR_SHIFT), FRONTIER_PARENT_LEX) > state) {
      // A whole pair moves as one u64.
      store<u64>(at + (<usize>j << FRONTIER_PAIR_SHIFT), load<u64>(at + (<usize>(j - 1) << FRONTIER_PAIR_SHIFT)));
      j--;
    }
    store<i32>(at + (<usize>j << FRONTIER_PAIR_SHIFT), node, FRONTIER_NODE);
    store<i32>(at + (<usize>j << FRONTIER_PAIR_SHIFT), state, FRONTIER_PARENT_LEX);
  }
}
