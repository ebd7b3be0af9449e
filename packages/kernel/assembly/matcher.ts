// The grammar matcher on the per-token hot path: Earley parser over lexemes, a mirror of the
// host's lazily built lexer DFA, and the trie walk that computes a token mask. It is the
// same algorithm as @sieve/grammar's TypeScript `Matcher` (the reference it is tested
// against), laid out in flat arrays.
//
// The lexer DFA is built by the host on demand: when a transition (or the start state of a
// new parser set's expected lexemes) is missing, an operation returns STATUS_NEED_* and the
// host fills it in and calls again (commits restart; a mask walk resumes where it stopped).
// Token slices work the same way: which slices a lexer state accepts whole is asked for once
// per state (STATUS_NEED_SLICES). At the root of a mask walk the accepted slices' tokens are
// added at once and the trie subtrees they cover skipped; deeper, a subtree a slice covers,
// below a character boundary where the lexer state accepts that slice, has its tokens added
// without stepping the lexer.
// Nonterminals the host lowers lazily (permutation states) work the same way: predicting one
// whose rules are not built yet returns STATUS_NEED_RULES, the host grows the tables.
// Once warm, a mask is one call.
//
// Masks are cached per grammar under an exact matcher-state key: the canonical id of the
// top parser set (its items, with each origin replaced by the origin set's canonical id,
// interned) and the lexer state. Two charts with the same top id parse every continuation
// alike, so the key determines the mask.
//
// What a walk learns about its root lexer state alone is cached too ("lexical entries"):
// until a lexeme ends on a path, the walk depends on the lexer state only, so the tokens it
// accepts that way, and the nodes where a lexeme ends (the "frontier"), are the same for
// every chart. A later walk from the same lexer state copies those tokens and walks only the
// frontier's subtrees.
import {
  STATUS_INVALID,
  STATUS_LIMIT_CHART,
  STATUS_LIMIT_ITEMS,
  STATUS_LIMIT_TIME,
  STATUS_NEED_RULES,
  STATUS_NEED_SLICES,
  STATUS_NEED_START,
  STATUS_NEED_TRANSITION,
  STATUS_OK,
  STATUS_REJECTED,
  TABLE_DOT_LHS,
  TABLE_DOT_NEXT,
  TABLE_IGNORE,
  TABLE_NULLABLE,
  TABLE_PREDICT,
  TABLE_PREDICT_FROM,
  TABLE_PREDICT_TO,
} from '../src/abi';
import {
  MAX_TOKEN_SLICES,
  SLICE_NODE_BOUNDARY,
  TOKEN_EMPTY,
  TOKEN_SPECIAL,
  TRIE_BYTE_MASK,
  TRIE_DEPTH_SHIFT,
  TRIE_MAX_DEPTH,
  TRIE_SUBTREE_MASK,
  TRIE_TOKEN_SHIFT,
  VH_BYTES_AT,
  VH_FLAGS_AT,
  VH_OFFSETS_AT,
  VH_SLICE_COUNT,
  VH_SLICE_NODES_AT,
  VH_SLICE_TOKENS_AT,
  VH_SLICE_LENGTHS_AT,
  VH_TOKEN_COUNT,
  VH_TRIE_AT,
  VH_TRIE_NODE_COUNT,
} from '../../format/src/vocab-layout';
import { Vec, vecClone, vecFree, vecGet, vecNew, vecPush, vecResize, vecSet } from './vec';
import { bitsetOr } from './brle';
import {
  intern,
  Interner,
  internerClear,
  internerFree,
  internerNew,
  internerWords,
  MaskStore,
  maskStoreAdd,
  maskStoreBlock,
  maskStoreDropFrom,
  maskStoreFlag,
  maskStoreFree,
  maskStoreGet,
  maskStoreNew,
  maskStoreStat,
  mix,
} from './state-cache';
import { copyToDuplicates, headerWord } from './vocab';

@external('env', 'now')
declare function now(): f64;

const DEAD: i32 = 0;
const UNKNOWN: i32 = -1;
// A lexer row: 256 transitions of 4 bytes.
const ROW_BYTES: usize = 1024;

// ---------------------------------------------------------------------------------------
// Grammar: parser tables (filled by the host) and the lexer mirror.

@unmanaged
class Grammar {
  terminalCount: i32 = 0;
  ntCount: i32 = 0;
  startDot: i32 = 0;
  maxItems: i32 = 0;
  // Earley items in a whole chart (its memory: 16 bytes each).
  maxChartItems: i32 = 0;
  // Wall time one commit may take, in ms (0: no bound).
  maxCommitMs: f64 = 0;
  ignoreCount: i32 = 0;
  // Table capacities (the tables grow when the host builds lazily lowered nonterminals).
  ntCap: i32 = 0;
  dotCap: i32 = 0;
  predictCap: i32 = 0;
  dotNext: usize = 0;
  dotLhs: usize = 0;
  predictFrom: usize = 0;
  predictTo: usize = 0;
  predict: usize = 0;
  nullable: usize = 0;
  ignore: usize = 0;
  // Lexer DFA mirror: per state, a pointer to its row of 256 transitions (-1 unknown, 0
  // dead), and its winners. Rows are a cache: slot i holds the row `rowPtrs[i]` of state
  // `rowOwners[i]`; `lexerTrim` (between operations, never inside one: commits start over
  // after a need) drops them all when more than `rowCap` are in use, and their states point
  // at `unknownRow` again (the host fills what is needed, as for a new state).
  lexStates: i32 = 0;
  lexCap: i32 = 0;
  lexRows: usize = 0;
  unknownRow: usize = 0;
  rowCap: i32 = 0;
  rowPtrs: Vec = changetype<Vec>(0);
  rowOwners: Vec = changetype<Vec>(0);
  winStart: Vec = changetype<Vec>(0);
  winCount: Vec = changetype<Vec>(0);
  winLazy: Vec = changetype<Vec>(0);
  winners: Vec = changetype<Vec>(0);
  // Per state, -1 until the host says: the token slices it accepts whole (bit i: slice i) and
  // its length bound on slice 0 (SLICE_ENTRY_* below).
  slices: Vec = changetype<Vec>(0);
  // Lexer start states by expected-lexeme list: open addressing, slots (hash, list, state).
  startCap: i32 = 0;
  startUsed: i32 = 0;
  startSlots: usize = 0;
  startLists: Vec = changetype<Vec>(0);
  // Mask cache: canonical parser sets, and masks by (top set id, lexer state). `epoch`
  // changes when the sets are forgotten (their ids then mean nothing).
  sets: Interner = changetype<Interner>(0);
  masks: MaskStore = changetype<MaskStore>(0);
  maxSetWords: i32 = 0;
  epoch: i32 = 0;
}

/**
 * A grammar with empty tables. `maskCacheBytes` bounds the cached masks (0: no cache); the
 * canonical parser sets their keys refer to get a quarter of that (long charts of wide
 * objects key hundreds of sets: less made them start over, re-keying the whole chart).
 * `lexerRows` bounds the lexer rows kept between operations (1 KB each; see `lexerTrim`).
 */
export function grammarNew(terminalCount: i32, ntCount: i32, dotCount: i32, predictCount: i32, ignoreCount: i32, startDot: i32, maxItems: i32, maxChartItems: i32, maskCacheBytes: u32, maxCommitMs: f64, lexerRows: i32): usize {
  const g = changetype<Grammar>(heap.alloc(offsetof<Grammar>()));
  memory.fill(changetype<usize>(g), 0, offsetof<Grammar>());
  g.terminalCount = terminalCount;
  g.ntCount = ntCount;
  g.startDot = startDot;
  g.maxItems = maxItems;
  g.maxCommitMs = maxCommitMs;
  g.maxChartItems = maxChartItems;
  g.ignoreCount = ignoreCount;
  g.ntCap = max(ntCount, 1);
  g.dotCap = max(dotCount, 1);
  g.predictCap = max(predictCount, 1);
  g.dotNext = heap.alloc(<usize>g.dotCap << 2);
  g.dotLhs = heap.alloc(<usize>g.dotCap << 2);
  g.predictFrom = heap.alloc(<usize>g.ntCap << 2);
  g.predictTo = heap.alloc(<usize>g.ntCap << 2);
  g.predict = heap.alloc(<usize>g.predictCap << 2);
  g.nullable = heap.alloc(<usize>g.ntCap);
  g.ignore = heap.alloc(<usize>max(ignoreCount, 1) << 2);
  g.lexStates = 0;
  g.lexCap = 0;
  g.lexRows = 0;
  g.unknownRow = heap.alloc(ROW_BYTES);
  memory.fill(g.unknownRow, 0xff, ROW_BYTES);
  g.rowCap = max(lexerRows, 1);
  g.rowPtrs = vecNew(64);
  g.rowOwners = vecNew(64);
  g.winStart = vecNew(64);
  g.winCount = vecNew(64);
  g.winLazy = vecNew(64);
  g.winners = vecNew(64);
  g.slices = vecNew(64);
  g.startCap = 64;
  g.startUsed = 0;
  g.startSlots = heap.alloc(<usize>g.startCap * 12);
  memory.fill(g.startSlots, 0xff, <usize>g.startCap * 12);
  g.startLists = vecNew(64);
  g.sets = internerNew();
  g.masks = maskStoreNew(maskCacheBytes);
  g.maxSetWords = <i32>(maskCacheBytes >>> 4);
  g.epoch = 0;
  return changetype<usize>(g);
}

// A block of `used` bytes moved into a new block of `size` bytes.
function regrow(ptr: usize, used: usize, size: usize): usize {
  const grown = heap.alloc(size);
  memory.copy(grown, ptr, used);
  heap.free(ptr);
  return grown;
}

/**
 * Makes room for `ntCount` nonterminals, `dotCount` dotted rules and `predictCount`
 * predictions (the host then writes the new entries; table pointers may have moved). New
 * nonterminals start with no rules built (TABLE_PREDICT_FROM -1).
 */
export function grammarGrow(gp: usize, ntCount: i32, dotCount: i32, predictCount: i32): void {
  const g = changetype<Grammar>(gp);
  if (ntCount > g.ntCap) {
    const cap = max(ntCount, g.ntCap * 2);
    g.predictFrom = regrow(g.predictFrom, <usize>g.ntCount << 2, <usize>cap << 2);
    g.predictTo = regrow(g.predictTo, <usize>g.ntCount << 2, <usize>cap << 2);
    g.nullable = regrow(g.nullable, <usize>g.ntCount, <usize>cap);
    g.ntCap = cap;
  }
  if (ntCount > g.ntCount) {
    memory.fill(g.predictFrom + (<usize>g.ntCount << 2), 0xff, <usize>(ntCount - g.ntCount) << 2);
    memory.fill(g.predictTo + (<usize>g.ntCount << 2), 0xff, <usize>(ntCount - g.ntCount) << 2);
    memory.fill(g.nullable + <usize>g.ntCount, 0, <usize>(ntCount - g.ntCount));
    g.ntCount = ntCount;
  }
  if (dotCount > g.dotCap) {
    const cap = max(dotCount, g.dotCap * 2);
    g.dotNext = regrow(g.dotNext, <usize>g.dotCap << 2, <usize>cap << 2);
    g.dotLhs = regrow(g.dotLhs, <usize>g.dotCap << 2, <usize>cap << 2);
    g.dotCap = cap;
  }
  if (predictCount > g.predictCap) {
    const cap = max(predictCount, g.predictCap * 2);
    g.predict = regrow(g.predict, <usize>g.predictCap << 2, <usize>cap << 2);
    g.predictCap = cap;
  }
}

/** Where the host writes table `which` (TABLE_*). */
export function grammarTable(gp: usize, which: i32): usize {
  const g = changetype<Grammar>(gp);
  switch (which) {
    case TABLE_DOT_NEXT:
      return g.dotNext;
    case TABLE_DOT_LHS:
      return g.dotLhs;
    case TABLE_PREDICT_FROM:
      return g.predictFrom;
    case TABLE_PREDICT_TO:
      return g.predictTo;
    case TABLE_PREDICT:
      return g.predict;
    case TABLE_NULLABLE:
      return g.nullable;
    case TABLE_IGNORE:
      return g.ignore;
  }
  return 0;
}

export function grammarFree(gp: usize): void {
  const g = changetype<Grammar>(gp);
  heap.free(g.dotNext);
  heap.free(g.dotLhs);
  heap.free(g.predictTo);
  heap.free(g.predictFrom);
  heap.free(g.predict);
  heap.free(g.nullable);
  heap.free(g.ignore);
  if (g.lexRows) heap.free(g.lexRows);
  for (let slot = 0; slot < g.rowPtrs.len; slot++) heap.free(<usize>vecGet(g.rowPtrs, slot));
  vecFree(g.rowPtrs);
  vecFree(g.rowOwners);
  heap.free(g.unknownRow);
  vecFree(g.winStart);
  vecFree(g.winCount);
  vecFree(g.winLazy);
  vecFree(g.winners);
  vecFree(g.slices);
  heap.free(g.startSlots);
  vecFree(g.startLists);
  internerFree(g.sets);
  maskStoreFree(g.masks);
  heap.free(gp);
}

/** Makes room for `count` lexer states; new states have every transition unknown. */
export function lexerGrow(gp: usize, count: i32): void {
  const g = changetype<Grammar>(gp);
  if (count > g.lexCap) {
    let cap = max(g.lexCap << 1, 64);
    if (cap < count) cap = count;
    g.lexRows = g.lexRows ? heap.realloc(g.lexRows, <usize>cap << 2) : heap.alloc(<usize>cap << 2);
    for (let s = g.lexCap; s < cap; s++) store<usize>(g.lexRows + (<usize>s << 2), g.unknownRow);
    g.lexCap = cap;
  }
  for (let s = g.lexStates; s < count; s++) {
    vecPush(g.winStart, 0);
    vecPush(g.winCount, 0);
    vecPush(g.winLazy, 0);
    vecPush(g.slices, UNKNOWN);
  }
  if (count > g.lexStates) g.lexStates = count;
}

// The row of `state`, all unknown if it had none (a spare row, or a new one).
function lexerRow(g: Grammar, state: i32): usize {
  let row = load<usize>(g.lexRows + (<usize>state << 2));
  if (row !== g.unknownRow) return row;
  const slot = g.rowOwners.len;
  if (slot < g.rowPtrs.len) {
    row = <usize>vecGet(g.rowPtrs, slot);
  } else {
    row = heap.alloc(ROW_BYTES);
    vecPush(g.rowPtrs, <i32>row);
  }
  memory.fill(row, 0xff, ROW_BYTES);
  vecPush(g.rowOwners, state);
  store<usize>(g.lexRows + (<usize>state << 2), row);
  return row;
}

/**
 * Called by the host before an operation (not before running it again after a need): when
 * more than `rowCap` lexer rows are in use, all are dropped (their memory past `rowCap`
 * freed), to be filled again as needed.
 */
export function lexerTrim(gp: usize): void {
  const g = changetype<Grammar>(gp);
  if (g.rowOwners.len <= g.rowCap) return;
  for (let slot = 0; slot < g.rowOwners.len; slot++) store<usize>(g.lexRows + (<usize>vecGet(g.rowOwners, slot) << 2), g.unknownRow);
  for (let slot = g.rowCap; slot < g.rowPtrs.len; slot++) heap.free(<usize>vecGet(g.rowPtrs, slot));
  g.rowPtrs.len = g.rowCap;
  g.rowOwners.len = 0;
}

/** Sets the transitions of `state` on the bytes from `from` up to `to` (excluded), which all lead to `target`. */
export function lexerSetRun(gp: usize, state: i32, from: i32, to: i32, target: i32): void {
  const row = lexerRow(changetype<Grammar>(gp), state);
  for (let byte = from; byte < to; byte++) store<i32>(row + (<usize>byte << 2), target);
}

/** The lexemes a state hands to the parser when its lexeme ends (sorted), and whether one is lazy. */
export function lexerSetWinners(gp: usize, state: i32, list: usize, count: i32, lazy: i32): void {
  const g = changetype<Grammar>(gp);
  vecSet(g.winStart, state, g.winners.len);
  vecSet(g.winCount, state, count);
  vecSet(g.winLazy, state, lazy);
  for (let i = 0; i < count; i++) vecPush(g.winners, load<i32>(list + (<usize>i << 2)));
}

// A state's slice entry: its slices in the low byte; then, when it has a length bound on
// slice 0, the characters below which its slices hold slice 0's tokens already, and the
// bound plus one (0: no bound).
const SLICE_ENTRY_ABOVE_SHIFT = 8;
const SLICE_ENTRY_BOUND_SHIFT = 16;

/**
 * The token slices `state` accepts whole: from it, every token of slice i (bit i) is read
 * without the lexer dying or ending its lexeme, so the parser is not involved. `bound` >= 0:
 * also, of slice 0's tokens, it reads those of at most `bound` characters that way and
 * rejects the longer ones without ending a lexeme; its slices hold those of at most `above`.
 */
export function lexerSetSlices(gp: usize, state: i32, slices: i32, above: i32, bound: i32): void {
  const entry = bound < 0 ? slices : slices | (above << SLICE_ENTRY_ABOVE_SHIFT) | ((bound + 1) << SLICE_ENTRY_BOUND_SHIFT);
  vecSet(changetype<Grammar>(gp).slices, state, entry);
}

/** Mask cache counters: 0 hits, 1 misses, 2 entries stored (masks and lexical entries), 3 bytes stored. */
export function grammarMaskCacheStat(gp: usize, which: i32): i32 {
  return maskStoreStat(changetype<Grammar>(gp).masks, which);
}

// ---------------------------------------------------------------------------------------
// Matcher state.

@unmanaged
class Matcher {
  g: Grammar = changetype<Grammar>(0);
  vocab: usize = 0;
  vocabSerial: i32 = 0; // never the same for two loaded vocab indexes (the host numbers them)
  eos: Vec = changetype<Vec>(0);
  // Earley items (global arena), and per item slot the set's items sorted by next symbol.
  dots: Vec = changetype<Vec>(0);
  origins: Vec = changetype<Vec>(0);
  sorted: Vec = changetype<Vec>(0);
  keys: Vec = changetype<Vec>(0);
  // Per set: first item, accepting flag, lexer start state (-1 unknown).
  setStart: Vec = changetype<Vec>(0);
  setAccepting: Vec = changetype<Vec>(0);
  setLex: Vec = changetype<Vec>(0);
  setSerial: Vec = changetype<Vec>(0); // a number no other set of this matcher had
  serials: i32 = 0;
  chartLen: i32 = 0;
  lex: i32 = 0; // -1: the start state of the top set
  lexLen: i32 = 0;
  finished: i32 = 0;
  history: Vec = changetype<Vec>(0); // (lex, lexLen, chartLen) before each committed byte
  tokens: Vec = changetype<Vec>(0); // history length before each token (-1 - length for EOS)
  // Closure scratch: dedupe table with generation stamps, prediction stamps per nonterminal.
  hashKeys: usize = 0;
  hashGens: usize = 0;
  hashCap: i32 = 0;
  gen: i32 = 0;
  ntStamp: usize = 0;
  ntStampCap: i32 = 0;
  // Mask walk (resumable).
  walkNode: i32 = 0;
  walkPath: Vec = changetype<Vec>(0);
  walkBits: usize = 0;
  walkDeadline: f64 = 0;
  // While a commit runs: when it must be done by (0 otherwise; see closeSet).
  commitDeadline: f64 = 0;
  walkVisited: i32 = 0;
  walkSlices: i32 = 0; // the root state's slice entry (lexerSetSlices); -1 until known
  walkRootLex: i32 = 0; // the lexer state at the root (the top set's start state when between lexemes)
  walkEnd: i32 = 0; // the walk covers nodes [walkNode, walkEnd)
  walkPure: usize = 0; // recording: tokens accepted before any lexeme ends (words bits)
  walkFrontier: Vec = changetype<Vec>(0); // recording: (node, parent lexer state) pairs
  walkReplay: bool = false; // replaying a lexical entry's frontier (copied to walkFrontier), not recording
  walkFrontierAt: i32 = 0;
  walkStore: bool = false; // store the mask under walkKey0/1 when done
  walkKey0: i32 = 0;
  walkKey1: i32 = 0;
  // Canonical id of each parser set (UNKNOWN until a key needs it), valid for grammar epoch
  // canonEpoch; and the stack of sets whose ids are being found.
  setCanon: Vec = changetype<Vec>(0);
  canonStack: Vec = changetype<Vec>(0);
  canonEpoch: i32 = 0;
  canonOff: bool = false; // this matcher's chart is too big to key
  canonScratch: usize = 0;
  canonScratchCap: i32 = 0;
  // Bytes found by the last matcherForcedBytes.
  forcedCount: i32 = 0;
  // What the host must provide after a STATUS_NEED_*.
  needState: i32 = 0;
  needByte: i32 = 0; // after STATUS_NEED_TRANSITION: the byte whose transition is missing
  needList: Vec = changetype<Vec>(0);
  // Walk memo of ending a lexeme, per chart level above the root's (END_LEVELS of them):
  // walk stamp, serial of the top set, lexer state, END_* memo.
  endMemo: usize = 0;
  walkStamp: i32 = 0;
}

function allocScratch(m: Matcher): void {
  m.hashCap = 256;
  m.hashKeys = heap.alloc(<usize>m.hashCap << 3);
  m.hashGens = heap.alloc(<usize>m.hashCap << 2);
  memory.fill(m.hashGens, 0, <usize>m.hashCap << 2);
  m.gen = 0;
  m.ntStampCap = max(m.g.ntCount, 1);
  m.ntStamp = heap.alloc(<usize>m.ntStampCap << 2);
  memory.fill(m.ntStamp, 0, <usize>m.ntStampCap << 2);
  m.walkPath = vecNew(64);
  m.needList = vecNew(16);
  m.canonScratchCap = 64;
  m.canonScratch = heap.alloc(<usize>m.canonScratchCap << 3);
  m.canonStack = vecNew(16);
  m.walkPure = heap.alloc(<usize>((headerWord(m.vocab, VH_TOKEN_COUNT) + 31) >>> 5) << 2);
  m.walkFrontier = vecNew(64);
  m.endMemo = heap.alloc(<usize>END_LEVELS << 4);
  memory.fill(m.endMemo, 0, <usize>END_LEVELS << 4);
  m.walkStamp = 0;
}

/** A matcher at the start of the grammar. `eos` lists the EOS token ids. */
export function matcherNew(gp: usize, vocab: usize, vocabSerial: i32, eos: usize, eosCount: i32): usize {
  const m = changetype<Matcher>(heap.alloc(offsetof<Matcher>()));
  memory.fill(changetype<usize>(m), 0, offsetof<Matcher>()); // every field starts at 0 / false
  m.g = changetype<Grammar>(gp);
  m.vocab = vocab;
  m.vocabSerial = vocabSerial;
  m.eos = vecNew(eosCount);
  for (let i = 0; i < eosCount; i++) vecPush(m.eos, load<i32>(eos + (<usize>i << 2)));
  m.dots = vecNew(256);
  m.origins = vecNew(256);
  m.sorted = vecNew(256);
  m.keys = vecNew(256);
  m.setStart = vecNew(64);
  m.setAccepting = vecNew(64);
  m.setLex = vecNew(64);
  m.setSerial = vecNew(64);
  m.serials = 0;
  m.chartLen = 0;
  m.lexLen = 0;
  m.finished = 0;
  m.history = vecNew(256);
  m.tokens = vecNew(64);
  m.setCanon = vecNew(64);
  m.canonEpoch = m.g.epoch;
  m.canonOff = false;
  allocScratch(m);
  m.lex = UNKNOWN;
  return changetype<usize>(m);
}

/** Builds the initial parser set of a new matcher: STATUS_OK, or a need or limit status (then call again). */
export function matcherStart(mp: usize): i32 {
  const m = changetype<Matcher>(mp);
  if (m.chartLen > 0) return STATUS_OK;
  beginSet(m);
  addItem(m, m.g.startDot, 0);
  const status = closeSet(m);
  if (status !== STATUS_OK) restore(m, UNKNOWN, 0, 0);
  return status;
}

/** An independent copy. */
export function matcherFork(mp: usize): usize {
  const m = changetype<Matcher>(mp);
  const c = changetype<Matcher>(heap.alloc(offsetof<Matcher>()));
  memory.copy(changetype<usize>(c), mp, offsetof<Matcher>());
  c.eos = vecClone(m.eos);
  c.dots = vecClone(m.dots);
  c.origins = vecClone(m.origins);
  c.sorted = vecClone(m.sorted);
  c.keys = vecClone(m.keys);
  c.setStart = vecClone(m.setStart);
  c.setAccepting = vecClone(m.setAccepting);
  c.setLex = vecClone(m.setLex);
  c.setSerial = vecClone(m.setSerial);
  c.history = vecClone(m.history);
  c.tokens = vecClone(m.tokens);
  c.setCanon = vecClone(m.setCanon);
  allocScratch(c);
  return changetype<usize>(c);
}

export function matcherFree(mp: usize): void {
  const m = changetype<Matcher>(mp);
  vecFree(m.eos);
  vecFree(m.dots);
  vecFree(m.origins);
  vecFree(m.sorted);
  vecFree(m.keys);
  vecFree(m.setStart);
  vecFree(m.setAccepting);
  vecFree(m.setLex);
  vecFree(m.setSerial);
  vecFree(m.history);
  vecFree(m.tokens);
  heap.free(m.hashKeys);
  heap.free(m.hashGens);
  heap.free(m.ntStamp);
  vecFree(m.walkPath);
  vecFree(m.needList);
  vecFree(m.setCanon);
  heap.free(m.canonScratch);
  vecFree(m.canonStack);
  heap.free(m.walkPure);
  heap.free(m.endMemo);
  vecFree(m.walkFrontier);
  heap.free(mp);
}

export function matcherNeedState(mp: usize): i32 {
  return changetype<Matcher>(mp).needState;
}
/** After STATUS_NEED_TRANSITION: the byte whose transition from the needed state is missing. */
export function matcherNeedByte(mp: usize): i32 {
  return changetype<Matcher>(mp).needByte;
}
/** After STATUS_NEED_START: the expected lexemes (sorted i32s) whose start state is missing. */
export function matcherNeedList(mp: usize): usize {
  return changetype<Matcher>(mp).needList.ptr;
}
export function matcherNeedListLength(mp: usize): i32 {
  return changetype<Matcher>(mp).needList.len;
}
export function matcherTokenCount(mp: usize): i32 {
  return changetype<Matcher>(mp).tokens.len;
}
export function matcherIsFinished(mp: usize): i32 {
  return changetype<Matcher>(mp).finished;
}

/**
 * Registers the start state for the expected list of the last STATUS_NEED_START. (The set
 * that asked may be gone — a failed commit rolls back — so only the shared cache learns it.)
 */
export function matcherResolveStart(mp: usize, state: i32): void {
  const m = changetype<Matcher>(mp);
  startInsert(m.g, m.needList, state);
}

// ---------------------------------------------------------------------------------------
// Earley sets.

function beginSet(m: Matcher): void {
  truncateSets(m, m.chartLen);
  vecPush(m.setStart, m.dots.len);
  vecPush(m.setSerial, m.serials);
  m.serials = (m.serials + 1) & 0x3fffffff; // END_SET + serial stays a positive i32
  m.gen++;
  if (m.gen === 0x7fffffff) {
    memory.fill(m.hashGens, 0, <usize>m.hashCap << 2);
    memory.fill(m.ntStamp, 0, <usize>m.ntStampCap << 2);
    m.gen = 1;
  }
}

// Adds item (dot, origin) to the set being built unless it is there already.
function addItem(m: Matcher, dot: i32, origin: i32): bool {
  const key = (<u64>dot << 32) | <u64>(<u32>origin);
  const mask = m.hashCap - 1;
  let h = <i32>(mix(key) & <u32>mask);
  while (load<i32>(m.hashGens + (<usize>h << 2)) === m.gen) {
    if (load<u64>(m.hashKeys + (<usize>h << 3)) === key) return false;
    h = (h + 1) & mask;
  }
  store<i32>(m.hashGens + (<usize>h << 2), m.gen);
  store<u64>(m.hashKeys + (<usize>h << 3), key);
  vecPush(m.dots, dot);
  vecPush(m.origins, origin);
  const count = m.dots.len - vecGet(m.setStart, m.setStart.len - 1);
  if (count * 2 > m.hashCap) growHash(m);
  return true;
}

function growHash(m: Matcher): void {
  heap.free(m.hashKeys);
  heap.free(m.hashGens);
  m.hashCap <<= 1;
  m.hashKeys = heap.alloc(<usize>m.hashCap << 3);
  m.hashGens = heap.alloc(<usize>m.hashCap << 2);
  memory.fill(m.hashGens, 0, <usize>m.hashCap << 2);
  const mask = m.hashCap - 1;
  for (let i = vecGet(m.setStart, m.setStart.len - 1); i < m.dots.len; i++) {
    const key = (<u64>vecGet(m.dots, i) << 32) | <u64>(<u32>vecGet(m.origins, i));
    let h = <i32>(mix(key) & <u32>mask);
    while (load<i32>(m.hashGens + (<usize>h << 2)) === m.gen) h = (h + 1) & mask;
    store<i32>(m.hashGens + (<usize>h << 2), m.gen);
    store<u64>(m.hashKeys + (<usize>h << 3), key);
  }
}

@inline
function setEnd(m: Matcher, k: i32): i32 {
  return k + 1 < m.setStart.len ? vecGet(m.setStart, k + 1) : m.dots.len;
}

// First slot in [from, to) of the sorted keys with key >= symbol.
function lowerBound(m: Matcher, from: i32, to: i32, symbol: i32): i32 {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (vecGet(m.keys, mid) < symbol) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The grammar gained nonterminals since the stamps were allocated.
function growStamps(m: Matcher): void {
  const cap = max(m.g.ntCount, m.ntStampCap * 2);
  m.ntStamp = regrow(m.ntStamp, <usize>m.ntStampCap << 2, <usize>cap << 2);
  memory.fill(m.ntStamp + (<usize>m.ntStampCap << 2), 0, <usize>(cap - m.ntStampCap) << 2);
  m.ntStampCap = cap;
}

// Closes the set being built (the items added since beginSet): prediction and completion,
// then sorts its items by next symbol and looks up its lexer start state.
function closeSet(m: Matcher): i32 {
  const g = m.g;
  const k = m.setStart.len - 1;
  const start = vecGet(m.setStart, k);
  const T = g.terminalCount;
  // A highly ambiguous grammar makes completion cost grow with the input (each item can
  // complete with every earlier one): a commit checks its deadline as it works.
  let work = 0;
  for (let i = start; i < m.dots.len; i++) {
    if (m.dots.len - start > g.maxItems) return STATUS_LIMIT_ITEMS;
    if (m.dots.len > g.maxChartItems) return STATUS_LIMIT_CHART;
    if ((++work & 4095) === 0 && commitTimedOut(m)) return STATUS_LIMIT_TIME;
    const d = vecGet(m.dots, i);
    const o = vecGet(m.origins, i);
    const next = load<i32>(g.dotNext + (<usize>d << 2));
    if (next < 0) {
      if (o === k) continue; // ε-completions: covered by advancing over nullable nonterminals
      const lhs = load<i32>(g.dotLhs + (<usize>d << 2));
      const oEnd = setEnd(m, o);
      for (let j = lowerBound(m, vecGet(m.setStart, o), oEnd, lhs); j < oEnd && vecGet(m.keys, j) === lhs; j++) {
        const p = vecGet(m.sorted, j);
        addItem(m, vecGet(m.dots, p) + 1, vecGet(m.origins, p));
        if ((++work & 4095) === 0 && commitTimedOut(m)) return STATUS_LIMIT_TIME;
      }
    } else if (next >= T) {
      const nt = next - T;
      if (nt >= m.ntStampCap) growStamps(m);
      const stampAt = m.ntStamp + (<usize>nt << 2);
      if (load<i32>(stampAt) !== m.gen) {
        const from = load<i32>(g.predictFrom + (<usize>nt << 2));
        if (from < 0) {
          m.needState = nt;
          return STATUS_NEED_RULES;
        }
        store<i32>(stampAt, m.gen);
        const to = load<i32>(g.predictTo + (<usize>nt << 2));
        for (let r = from; r < to; r++) addItem(m, load<i32>(g.predict + (<usize>r << 2)), k);
      }
      if (load<u8>(g.nullable + <usize>nt)) addItem(m, d + 1, o);
    }
  }
  if (m.dots.len - start > g.maxItems) return STATUS_LIMIT_ITEMS;
  sortSet(m, start, m.dots.len);
  // Accepting: the start rule complete from origin 0. Expected lexemes: the keys in [0, T).
  let accepting = 0;
  const end = m.dots.len;
  const startDone = g.startDot + 1;
  for (let j = start; j < end && vecGet(m.keys, j) < 0; j++) {
    const p = vecGet(m.sorted, j);
    if (vecGet(m.dots, p) === startDone && vecGet(m.origins, p) === 0) accepting = 1;
  }
  vecPush(m.setAccepting, accepting);
  expectedList(m, k);
  vecPush(m.setLex, startLookup(g, m.needList));
  m.chartLen = k + 1;
  return STATUS_OK;
}

@inline
function commitTimedOut(m: Matcher): bool {
  return m.commitDeadline > 0 && now() > m.commitDeadline;
}

// Sorts item indices [from, to) by next symbol into `sorted`/`keys` (shell sort).
function sortSet(m: Matcher, from: i32, to: i32): void {
  vecResize(m.sorted, to);
  vecResize(m.keys, to);
  for (let i = from; i < to; i++) {
    vecSet(m.sorted, i, i);
    vecSet(m.keys, i, load<i32>(m.g.dotNext + (<usize>vecGet(m.dots, i) << 2)));
  }
  const n = to - from;
  for (let gap = n >>> 1; gap > 0; gap >>>= 1) {
    for (let i = from + gap; i < to; i++) {
      const key = vecGet(m.keys, i);
      const item = vecGet(m.sorted, i);
      let j = i;
      while (j - gap >= from && vecGet(m.keys, j - gap) > key) {
        vecSet(m.keys, j, vecGet(m.keys, j - gap));
        vecSet(m.sorted, j, vecGet(m.sorted, j - gap));
        j -= gap;
      }
      vecSet(m.keys, j, key);
      vecSet(m.sorted, j, item);
    }
  }
}

// The distinct expected lexemes of set k, into needList.
function expectedList(m: Matcher, k: i32): void {
  const end = setEnd(m, k);
  m.needList.len = 0;
  let last = -1;
  for (let j = lowerBound(m, vecGet(m.setStart, k), end, 0); j < end; j++) {
    const key = vecGet(m.keys, j);
    if (key >= m.g.terminalCount) break;
    if (key !== last) vecPush(m.needList, key);
    last = key;
  }
}

function listHash(list: Vec): u32 {
  let h: u32 = 2166136261;
  for (let i = 0; i < list.len; i++) h = (h ^ <u32>vecGet(list, i)) * 16777619;
  return h;
}

function startLookup(g: Grammar, list: Vec): i32 {
  const h = listHash(list);
  const mask = g.startCap - 1;
  let slot = <i32>(h & <u32>mask);
  let listAt = load<i32>(g.startSlots + <usize>slot * 12, 4);
  while (listAt >= 0) {
    const at = g.startSlots + <usize>slot * 12;
    if (load<u32>(at) === h && listEquals(g.startLists, listAt, list)) return load<i32>(at, 8);
    slot = (slot + 1) & mask;
    listAt = load<i32>(g.startSlots + <usize>slot * 12, 4);
  }
  return UNKNOWN;
}

function listEquals(lists: Vec, at: i32, list: Vec): bool {
  if (vecGet(lists, at) !== list.len) return false;
  for (let i = 0; i < list.len; i++) if (vecGet(lists, at + 1 + i) !== vecGet(list, i)) return false;
  return true;
}

function startInsert(g: Grammar, list: Vec, state: i32): void {
  if ((g.startUsed + 1) * 2 > g.startCap) {
    const oldSlots = g.startSlots;
    const oldCap = g.startCap;
    g.startCap <<= 1;
    g.startSlots = heap.alloc(<usize>g.startCap * 12);
    memory.fill(g.startSlots, 0xff, <usize>g.startCap * 12);
    for (let s = 0; s < oldCap; s++) {
      const at = oldSlots + <usize>s * 12;
      if (load<i32>(at, 4) >= 0) placeStart(g, load<u32>(at), load<i32>(at, 4), load<i32>(at, 8));
    }
    heap.free(oldSlots);
  }
  const listAt = g.startLists.len;
  vecPush(g.startLists, list.len);
  for (let i = 0; i < list.len; i++) vecPush(g.startLists, vecGet(list, i));
  placeStart(g, listHash(list), listAt, state);
  g.startUsed++;
}

function placeStart(g: Grammar, h: u32, listAt: i32, state: i32): void {
  const mask = g.startCap - 1;
  let slot = <i32>(h & <u32>mask);
  while (load<i32>(g.startSlots + <usize>slot * 12, 4) >= 0) slot = (slot + 1) & mask;
  const at = g.startSlots + <usize>slot * 12;
  store<u32>(at, h);
  store<i32>(at, listAt, 4);
  store<i32>(at, state, 8);
}

// ---------------------------------------------------------------------------------------
// Stepping one byte.

@inline
function restore(m: Matcher, lex: i32, lexLen: i32, chartLen: i32): void {
  m.lex = lex;
  m.lexLen = lexLen;
  // Also drops a set left half-built by a limit error.
  truncateSets(m, chartLen);
  if (m.setCanon.len > chartLen) m.setCanon.len = chartLen;
  m.chartLen = chartLen;
}

// Drops the parser sets from index `count` on (the arena keeps sets past chartLen until a
// new set is begun there: the mask walk reuses one, see endLexemeOnce).
@inline
function truncateSets(m: Matcher, count: i32): void {
  if (count < m.setStart.len) {
    m.dots.len = vecGet(m.setStart, count);
    m.origins.len = m.dots.len;
    m.setStart.len = count;
    m.setSerial.len = count;
  }
  if (m.setAccepting.len > count) m.setAccepting.len = count;
  if (m.setLex.len > count) m.setLex.len = count;
}

// Returns to a state saved on the mask walk's path, keeping the parser set just past it: the
// set a sibling node may get again by ending the same lexeme.
@inline
function restoreOnPath(m: Matcher, at: i32): void {
  const chartLen = vecGet(m.walkPath, at + 2);
  m.lex = vecGet(m.walkPath, at);
  m.lexLen = vecGet(m.walkPath, at + 1);
  truncateSets(m, chartLen + 1);
  if (m.setCanon.len > chartLen) m.setCanon.len = chartLen;
  m.chartLen = chartLen;
}

// Smallest trie subtree for which the walk asks whether the lexer state accepts a slice whole.
const MIN_FILL_NODES = 64;

// Walk memo of ending the lexeme of a path state (4th word of its path entry).
const END_UNKNOWN = 0;
const END_REJECTED = 1;
const END_IGNORED = 2;
const END_SET = 3; // + the serial of the set it built

// endLexeme for the mask walk from the path state at `at`: done once per path state, then
// reused (the set it built is still in the arena right past the chart, unless another set
// replaced it since).
function endLexemeOnce(m: Matcher, at: i32): i32 {
  const memo = vecGet(m.walkPath, at + 3);
  const k = m.chartLen;
  if (memo === END_REJECTED) return STATUS_REJECTED;
  if (memo === END_IGNORED || (memo >= END_SET && m.setSerial.len > k && m.setAccepting.len > k && vecGet(m.setSerial, k) === memo - END_SET)) {
    if (memo !== END_IGNORED) m.chartLen = k + 1;
    m.lex = UNKNOWN;
    m.lexLen = 0;
    return STATUS_OK;
  }
  // Ending a lexeme depends on the lexer state and the chart only; the chart is named by
  // the serial of its top set (a set is never changed while it lives).
  const level = k - vecGet(m.walkPath, 2);
  const lex = m.lex;
  const topSerial = vecGet(m.setSerial, k - 1);
  const slot = m.endMemo + (<usize>level << 4);
  const memoed = level < END_LEVELS && load<i32>(slot) === m.walkStamp && load<i32>(slot, 4) === topSerial && load<i32>(slot, 8) === lex;
  if (memoed) {
    const shared = load<i32>(slot, 12);
    if (shared === END_REJECTED) {
      vecSet(m.walkPath, at + 3, END_REJECTED);
      return STATUS_REJECTED;
    }
    if (shared === END_IGNORED || (shared >= END_SET && m.setSerial.len > k && m.setAccepting.len > k && vecGet(m.setSerial, k) === shared - END_SET)) {
      vecSet(m.walkPath, at + 3, shared);
      if (shared !== END_IGNORED) m.chartLen = k + 1;
      m.lex = UNKNOWN;
      m.lexLen = 0;
      return STATUS_OK;
    }
  }
  const status = endLexeme(m);
  let value = END_UNKNOWN;
  if (status === STATUS_REJECTED) value = END_REJECTED;
  else if (status === STATUS_OK) value = m.chartLen > k ? END_SET + vecGet(m.setSerial, k) : END_IGNORED;
  if (value !== END_UNKNOWN) {
    vecSet(m.walkPath, at + 3, value);
    if (level < END_LEVELS) {
      store<i32>(slot, m.walkStamp);
      store<i32>(slot, topSerial, 4);
      store<i32>(slot, lex, 8);
      store<i32>(slot, value, 12);
    }
  }
  return status;
}

const END_LEVELS = 32;

function isIgnored(g: Grammar, lexeme: i32): bool {
  for (let i = 0; i < g.ignoreCount; i++) if (load<i32>(g.ignore + (<usize>i << 2)) === lexeme) return true;
  return false;
}

// Ends the lexeme in progress: the parser scans the winning lexemes it expects, or the
// lexeme is skipped when it is ignored.
function endLexeme(m: Matcher): i32 {
  const g = m.g;
  const state = m.lex;
  const count = vecGet(g.winCount, state);
  if (count === 0) return STATUS_REJECTED;
  const first = vecGet(g.winStart, state);
  const k = m.chartLen - 1;
  const kStart = vecGet(m.setStart, k);
  const kEnd = setEnd(m, k);
  let scanned = false;
  let ignored = false;
  for (let w = 0; w < count; w++) {
    const lexeme = vecGet(g.winners, first + w);
    let j = lowerBound(m, kStart, kEnd, lexeme);
    if (j < kEnd && vecGet(m.keys, j) === lexeme) {
      if (!scanned) {
        beginSet(m);
        scanned = true;
      }
      for (; j < kEnd && vecGet(m.keys, j) === lexeme; j++) {
        const p = vecGet(m.sorted, j);
        addItem(m, vecGet(m.dots, p) + 1, vecGet(m.origins, p));
      }
    } else if (isIgnored(g, lexeme)) {
      ignored = true;
    }
  }
  if (scanned) {
    const status = closeSet(m);
    if (status !== STATUS_OK) return status;
  } else if (!ignored) {
    return STATUS_REJECTED;
  }
  m.lex = UNKNOWN;
  m.lexLen = 0;
  return STATUS_OK;
}

// The current lexer state, resolving "start state of the top set".
function currentLex(m: Matcher): i32 {
  if (m.lex !== UNKNOWN) return m.lex;
  const top = m.chartLen - 1;
  let state = vecGet(m.setLex, top);
  if (state === UNKNOWN) {
    expectedList(m, top);
    state = startLookup(m.g, m.needList);
    if (state !== UNKNOWN) vecSet(m.setLex, top, state);
  }
  return state;
}

function transition(m: Matcher, state: i32, byte: i32): i32 {
  const next = load<i32>(load<usize>(m.g.lexRows + (<usize>state << 2)) + (<usize>byte << 2));
  if (next === UNKNOWN) {
    m.needState = state;
    m.needByte = byte;
  }
  return next;
}

// One byte. `pathAt` >= 0: the mask walk, stepping from the path state at that offset.
function step(m: Matcher, byte: i32, pathAt: i32 = -1): i32 {
  let state = currentLex(m);
  if (state === UNKNOWN) return STATUS_NEED_START;
  let next = transition(m, state, byte);
  if (next === UNKNOWN) return STATUS_NEED_TRANSITION;
  if (next === DEAD) {
    if (m.lexLen === 0) return STATUS_REJECTED;
    const status = pathAt < 0 ? endLexeme(m) : endLexemeOnce(m, pathAt);
    if (status !== STATUS_OK) return status;
    state = currentLex(m);
    if (state === UNKNOWN) return STATUS_NEED_START;
    next = transition(m, state, byte);
    if (next === UNKNOWN) return STATUS_NEED_TRANSITION;
    if (next === DEAD) return STATUS_REJECTED;
  }
  m.lex = next;
  m.lexLen++;
  // Lazy lexemes end at their first match.
  if (vecGet(m.g.winLazy, next)) return endLexeme(m);
  return STATUS_OK;
}

// ---------------------------------------------------------------------------------------
// Public operations.

/** 1 if the output so far is complete, 0 if not, or a need or limit status. */
export function matcherIsAccepting(mp: usize): i32 {
  const m = changetype<Matcher>(mp);
  if (m.finished) return 1;
  if (m.lexLen === 0) return vecGet(m.setAccepting, m.chartLen - 1);
  const lex = m.lex;
  const lexLen = m.lexLen;
  const chartLen = m.chartLen;
  const status = endLexeme(m);
  const accepting = status === STATUS_OK ? vecGet(m.setAccepting, m.chartLen - 1) : 0;
  restore(m, lex, lexLen, chartLen);
  return status === STATUS_OK || status === STATUS_REJECTED ? accepting : status;
}

// A status from matcherIsAccepting that is not an answer (a need or a limit).
@inline
function notAnAnswer(accepting: i32): bool {
  return accepting < 0 || accepting > 1;
}

/** Feeds `length` bytes; on anything but STATUS_OK the matcher is left as before. */
export function matcherCommitBytes(mp: usize, bytes: usize, length: i32): i32 {
  const m = changetype<Matcher>(mp);
  m.commitDeadline = m.g.maxCommitMs > 0 ? now() + m.g.maxCommitMs : 0;
  const status = commitBytes(m, bytes, length);
  m.commitDeadline = 0;
  return status;
}

function commitBytes(m: Matcher, bytes: usize, length: i32): i32 {
  if (m.finished) return STATUS_REJECTED;
  const lex = m.lex;
  const lexLen = m.lexLen;
  const chartLen = m.chartLen;
  const historyLen = m.history.len;
  for (let i = 0; i < length; i++) {
    vecPush(m.history, m.lex);
    vecPush(m.history, m.lexLen);
    vecPush(m.history, m.chartLen);
    const status = step(m, load<u8>(bytes + <usize>i));
    if (status !== STATUS_OK) {
      restore(m, lex, lexLen, chartLen);
      m.history.len = historyLen;
      return status;
    }
  }
  return STATUS_OK;
}

function isEos(m: Matcher, token: i32): bool {
  for (let i = 0; i < m.eos.len; i++) if (vecGet(m.eos, i) === token) return true;
  return false;
}

/** Commits a token: STATUS_OK, STATUS_REJECTED (nothing changed), or a need/limit status. */
export function matcherCommitToken(mp: usize, token: i32): i32 {
  const m = changetype<Matcher>(mp);
  if (m.finished) return STATUS_REJECTED;
  if (isEos(m, token)) {
    const accepting = matcherIsAccepting(mp);
    if (notAnAnswer(accepting)) return accepting;
    if (!accepting) return STATUS_REJECTED;
    vecPush(m.tokens, -1 - m.history.len);
    m.finished = 1;
    return STATUS_OK;
  }
  const v = m.vocab;
  if (token < 0 || <u32>token >= headerWord(v, VH_TOKEN_COUNT)) return STATUS_REJECTED;
  if (load<u8>(v + headerWord(v, VH_FLAGS_AT) + <usize>token) & (TOKEN_SPECIAL | TOKEN_EMPTY)) return STATUS_REJECTED;
  const offsets = v + headerWord(v, VH_OFFSETS_AT);
  const from = load<u32>(offsets + (<usize>token << 2));
  const to = load<u32>(offsets + (<usize>(token + 1) << 2));
  const start = m.history.len;
  const status = matcherCommitBytes(mp, v + headerWord(v, VH_BYTES_AT) + from, <i32>(to - from));
  if (status === STATUS_OK) vecPush(m.tokens, start);
  return status;
}

/** Undoes the last `n` tokens. */
export function matcherRollback(mp: usize, n: i32): i32 {
  const m = changetype<Matcher>(mp);
  if (n < 0 || n > m.tokens.len) return STATUS_INVALID;
  if (n === 0) return STATUS_OK;
  const mark = vecGet(m.tokens, m.tokens.len - n);
  m.tokens.len -= n;
  const at = mark < 0 ? -1 - mark : mark;
  m.finished = 0;
  if (at < m.history.len) {
    restore(m, vecGet(m.history, at), vecGet(m.history, at + 1), vecGet(m.history, at + 2));
    m.history.len = at;
  }
  return STATUS_OK;
}

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
  // One path entry per depth (lex, lexLen, chartLen, END_* memo), the root's first.
  vecResize(m.walkPath, (TRIE_MAX_DEPTH + 1) << 2);
  vecSet(m.walkPath, 0, m.lex);
  vecSet(m.walkPath, 1, m.lexLen);
  vecSet(m.walkPath, 2, m.chartLen);
  vecSet(m.walkPath, 3, END_UNKNOWN);
  m.walkDeadline = now() + maxMs;
  m.walkVisited = 0;
  m.walkSlices = UNKNOWN;
  m.walkStamp++;
  m.walkStore = stateKey(m);
  if (m.walkStore) {
    const at = maskStoreGet(m.g.masks, m.vocabSerial, words, m.walkKey0, m.walkKey1);
    if (at !== 0) {
      m.g.masks.hits++;
      memory.copy(bits, maskStoreBlock(at), <usize>words << 2);
      if (maskStoreFlag(at)) addEos(m, bits);
      return STATUS_OK;
    }
    m.g.masks.misses++;
  }
  return matcherMaskResume(mp);
}

/**
 * Writes the matcher's exact state key to `out` (three i32s: the canonical id of the top
 * parser set, the lexer state or -1 between lexemes, and the grammar's cache epoch — ids of
 * different epochs are not comparable). Returns 1, or 0 when the grammar caches no masks or
 * the chart is too big to key. Two matchers of one grammar with equal keys allow the same
 * continuations: the ahead-of-time mask index numbers states by it.
 */
export function matcherStateKey(mp: usize, out: usize): i32 {
  const m = changetype<Matcher>(mp);
  if (m.finished || !stateKey(m)) return 0;
  store<i32>(out, m.walkKey0);
  store<i32>(out + 4, m.walkKey1);
  store<i32>(out + 8, m.g.epoch);
  return 1;
}

// Lexical entries are keyed (-2 - root lexer state, 1 when a lexeme is in progress), apart
// from masks' (canonical set id >= 0, ...).
@inline
function lexicalKey(state: i32): i32 {
  return -2 - state;
}

function addEos(m: Matcher, bits: usize): void {
  for (let i = 0; i < m.eos.len; i++) setBit(bits, <u32>vecGet(m.eos, i));
}

@inline
function setBit(bits: usize, id: u32): void {
  const w = bits + ((<usize>id >>> 5) << 2);
  store<u32>(w, load<u32>(w) | (<u32>1 << (id & 31)));
}

// Sets walkKey0/1 to the matcher's exact state key (computing the canonical ids it needs
// that are not known yet); false when the grammar caches no masks.
function stateKey(m: Matcher): bool {
  const g = m.g;
  if (g.masks.maxBytes === 0 || m.canonOff) return false;
  let cleared = false;
  if (internerWords(g.sets) > g.maxSetWords) {
    // Set ids start over: the masks keyed by them go, the lexical entries stay.
    internerClear(g.sets);
    maskStoreDropFrom(g.masks, 0, <usize>g.masks.words << 2);
    g.epoch++;
    cleared = true;
  }
  if (m.canonEpoch !== g.epoch) {
    m.setCanon.len = 0;
    m.canonEpoch = g.epoch;
  }
  while (m.setCanon.len < m.chartLen) vecPush(m.setCanon, UNKNOWN);
  const top = canonicalId(m, m.chartLen - 1);
  // A chart whose sets alone outgrow the budget would clear it at every mask: this matcher
  // stops caching instead.
  if (cleared && internerWords(g.sets) > g.maxSetWords) {
    m.canonOff = true;
    return false;
  }
  m.walkKey0 = top;
  m.walkKey1 = m.lexLen > 0 ? m.lex : UNKNOWN;
  return true;
}

// The canonical id of parser set k, finding first the ids of the sets it depends on (its
// items' origins, and theirs) that are not known yet: only the sets a key reaches are
// interned (a long chart's others, often most, never are).
function canonicalId(m: Matcher, k: i32): i32 {
  const stack = m.canonStack;
  stack.len = 0;
  vecPush(stack, k);
  while (stack.len > 0) {
    const at = vecGet(stack, stack.len - 1);
    if (vecGet(m.setCanon, at) !== UNKNOWN) {
      stack.len--;
      continue;
    }
    // Origins precede the set: each waits for its own origins before it is interned.
    const before = stack.len;
    const from = vecGet(m.setStart, at);
    const end = setEnd(m, at);
    for (let i = from; i < end; i++) {
      const origin = vecGet(m.origins, i);
      if (origin !== at && vecGet(m.setCanon, origin) === UNKNOWN) vecPush(stack, origin);
    }
    if (stack.len === before) {
      vecSet(m.setCanon, at, canonicalSet(m, at));
      stack.len--;
    }
  }
  return vecGet(m.setCanon, k);
}

// The canonical id of parser set k: its items as (dot, canonical id of the origin set + 1,
// or 0 for k itself), sorted and interned. Its origins' ids must be known.
function canonicalSet(m: Matcher, k: i32): i32 {
  const from = vecGet(m.setStart, k);
  const n = setEnd(m, k) - from;
  if (n > m.canonScratchCap) {
    heap.free(m.canonScratch);
    m.canonScratchCap = max(n, m.canonScratchCap * 2);
    m.canonScratch = heap.alloc(<usize>m.canonScratchCap << 3);
  }
  const items = m.canonScratch;
  for (let i = 0; i < n; i++) {
    const origin = vecGet(m.origins, from + i);
    const canonOrigin: u32 = origin === k ? 0 : <u32>vecGet(m.setCanon, origin) + 1;
    store<u64>(items + (<usize>i << 3), (<u64>vecGet(m.dots, from + i) << 32) | <u64>canonOrigin);
  }
  sortU64(items, n);
  return intern(m.g.sets, items, n);
}

// Shell sort of n u64s (gaps 3h + 1).
function sortU64(at: usize, n: i32): void {
  let gap = 1;
  while (gap < n / 3) gap = gap * 3 + 1;
  for (; gap > 0; gap = (gap - 1) / 3) {
    for (let i = gap; i < n; i++) {
      const value = load<u64>(at + (<usize>i << 3));
      let j = i;
      while (j >= gap && load<u64>(at + (<usize>(j - gap) << 3)) > value) {
        store<u64>(at + (<usize>j << 3), load<u64>(at + (<usize>(j - gap) << 3)));
        j -= gap;
      }
      store<u64>(at + (<usize>j << 3), value);
    }
  }
}

// The slice entry of the state at the root of the walk (its slices limited to the vocab's),
// or a need status.
function rootSlices(m: Matcher): i32 {
  const state = currentLex(m);
  if (state === UNKNOWN) return -STATUS_NEED_START;
  const entry = vecGet(m.g.slices, state);
  if (entry === UNKNOWN) {
    m.needState = state;
    return -STATUS_NEED_SLICES;
  }
  m.walkRootLex = state;
  const count = <i32>headerWord(m.vocab, VH_SLICE_COUNT);
  return count === 0 ? 0 : entry & ~0xff | (entry & ((1 << count) - 1));
}

// The walk's root accepts exactly slice 0's tokens of at most `bound` characters (its entry
// says so): those not in its slices yet go to `bits`, from the vocab's slice lengths.
function addSliceLengths(v: usize, entry: i32, bits: usize): void {
  const bound = (entry >>> SLICE_ENTRY_BOUND_SHIFT) - 1;
  if (bound < 0) return;
  const lengths = v + headerWord(v, VH_SLICE_LENGTHS_AT);
  const most = <i32>load<u32>(lengths);
  const from = (entry >>> SLICE_ENTRY_ABOVE_SHIFT) & 0xff;
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
    const at = m.walkStore ? maskStoreGet(m.g.masks, m.vocabSerial, words, lexicalKey(m.walkRootLex), m.lexLen > 0 ? 1 : 0) : 0;
    if (at !== 0) {
      const block = maskStoreBlock(at);
      memory.copy(bits, block, <usize>words << 2);
      // Its frontier is copied: the store may drop the block before the walk resumes.
      const count = load<i32>(block + (<usize>words << 2));
      vecResize(m.walkFrontier, count << 1);
      memory.copy(m.walkFrontier.ptr, block + (<usize>words << 2) + 4, <usize>count << 3);
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
  const rootLen = load<i32>(path, 4);
  const rootChart = load<i32>(path, 8);
  const lexRows = g.lexRows;
  const lazy = g.winLazy.ptr;
  const winCount = g.winCount.ptr;
  const pure = m.walkPure;
  const recording = !m.walkReplay;
  let node = m.walkNode;
  for (;;) {
  while (node < m.walkEnd) {
    const at = trie + (<usize>node << 3);
    const word0 = load<u32>(at);
    const word1 = load<u32>(at, 4);
    if (load<u8>(sliceNodes + <usize>node) & skipped) {
      node += <i32>(word1 & TRIE_SUBTREE_MASK);
      continue;
    }
    const depth = <i32>(word1 >>> TRIE_DEPTH_SHIFT);
    const parentAt = path + (<usize>(depth - 1) << 4);
    const parentLen = load<i32>(parentAt, 4);
    const byte = <i32>(word0 & TRIE_BYTE_MASK);
    let status = STATUS_NEED_TRANSITION; // not settled by a pure step
    let lex = 0;
    let lexLen = 0;
    let chartLen = 0;
    const parentPure = parentLen === rootLen + depth - 1;
    const from = depth === 1 ? rootLex : load<i32>(parentAt);
    if (parentPure) {
      const to = load<i32>(load<usize>(lexRows + (<usize>from << 2)) + (<usize>byte << 2));
      if (to > 0 && load<i32>(lazy + (<usize>to << 2)) === 0) {
        status = STATUS_OK;
        lex = to;
        lexLen = parentLen + 1;
        chartLen = rootChart;
      } else if (to === DEAD && (parentLen === 0 || load<i32>(winCount + (<usize>from << 2)) === 0)) {
        status = STATUS_REJECTED;
      }
    }
    // Pure nodes' tokens go to the lexical entry's bits (recording; a replay has none).
    const target = status === STATUS_OK ? pure : bits;
    if (status === STATUS_NEED_TRANSITION) {
      const saved = (depth - 1) << 2;
      restoreOnPath(m, saved);
      status = step(m, byte, saved);
      lex = m.lex;
      lexLen = m.lexLen;
      chartLen = m.chartLen;
      // A lexeme ends below a pure node: the frontier.
      // (Once: a node can be stepped again after a need status.)
      const frontier = m.walkFrontier;
      if (parentPure && recording && (status === STATUS_OK || status === STATUS_REJECTED) && (frontier.len === 0 || vecGet(frontier, frontier.len - 2) !== node)) {
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
        const accepts = vecGet(g.slices, lex);
        if (accepts === UNKNOWN) {
          m.needState = lex;
          m.walkNode = node;
          return STATUS_NEED_SLICES;
        }
        if ((accepts & covered) !== 0) {
          const end = node + <i32>(word1 & TRIE_SUBTREE_MASK);
          for (let n = node + 1; n < end; n++) {
            const t = load<u32>(trie + (<usize>n << 3)) >>> TRIE_TOKEN_SHIFT;
            if (t !== 0) setBit(target, t - 1);
          }
          node = end;
          continue;
        }
      }
      const here = path + (<usize>depth << 4);
      store<i32>(here, lex);
      store<i32>(here, lexLen, 4);
      store<i32>(here, chartLen, 8);
      store<i32>(here, END_UNKNOWN, 12);
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
  if (recording || m.walkFrontierAt << 1 >= m.walkFrontier.len) break;
  const entry = m.walkFrontier.ptr + (<usize>m.walkFrontierAt << 3);
  m.walkFrontierAt++;
  node = load<i32>(entry);
  const word1 = load<u32>(trie + (<usize>node << 3), 4);
  const depth = <i32>(word1 >>> TRIE_DEPTH_SHIFT);
  m.walkEnd = node + <i32>(word1 & TRIE_SUBTREE_MASK);
  const parentAt = path + (<usize>(depth - 1) << 4);
  // Siblings under equal parent states share the parent's entry (and its ended lexeme).
  if (depth > 1 && (load<i32>(parentAt) !== load<i32>(entry, 4) || load<i32>(parentAt, 4) !== rootLen + depth - 1 || load<i32>(parentAt, 8) !== rootChart)) {
    store<i32>(parentAt, load<i32>(entry, 4));
    store<i32>(parentAt, rootLen + depth - 1, 4);
    store<i32>(parentAt, rootChart, 8);
    store<i32>(parentAt, END_UNKNOWN, 12);
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
  if (accepting) addEos(m, bits);
  return STATUS_OK;
}

// Stores what the walk learned about its root lexer state: the tokens accepted before any
// lexeme ended, then the frontier (count, then node and parent state pairs).
function storeLexical(m: Matcher, words: i32): void {
  const frontier = m.walkFrontier;
  const bytes = (<usize>words << 2) + 4 + (<usize>frontier.len << 2);
  const block = maskStoreAdd(m.g.masks, m.vocabSerial, words, lexicalKey(m.walkRootLex), vecGet(m.walkPath, 1) > 0 ? 1 : 0, bytes, 0);
  if (block === 0) return;
  sortPairsBySecond(frontier.ptr, frontier.len >> 1);
  memory.copy(block, m.walkPure, <usize>words << 2);
  store<i32>(block + (<usize>words << 2), frontier.len >> 1);
  memory.copy(block + (<usize>words << 2) + 4, frontier.ptr, <usize>frontier.len << 2);
}

/**
 * Writes into `out` (at most `maxBytes`) the bytes the grammar forces next: while the output
 * is not complete and exactly one byte can follow, that byte. The count is read with
 * `matcherForcedCount`. The matcher is left unchanged; a need status means "fill in and call
 * again".
 */
export function matcherForcedBytes(mp: usize, out: usize, maxBytes: i32): i32 {
  const m = changetype<Matcher>(mp);
  m.forcedCount = 0;
  if (m.finished) return STATUS_OK;
  const lex = m.lex;
  const lexLen = m.lexLen;
  const chartLen = m.chartLen;
  let status = STATUS_OK;
  while (m.forcedCount < maxBytes) {
    const accepting = matcherIsAccepting(mp);
    if (accepting !== 0) {
      if (notAnAnswer(accepting)) status = accepting;
      break;
    }
    const here0 = m.lex;
    const here1 = m.lexLen;
    const here2 = m.chartLen;
    let only = -1;
    let several = false;
    for (let byte = 0; byte < 256 && !several; byte++) {
      const s = step(m, byte);
      restore(m, here0, here1, here2);
      if (s === STATUS_OK) {
        if (only >= 0) several = true;
        only = byte;
      } else if (s !== STATUS_REJECTED) {
        status = s;
        break;
      }
    }
    if (status !== STATUS_OK || several || only < 0) break;
    step(m, only);
    store<u8>(out + <usize>m.forcedCount, <u8>only);
    m.forcedCount++;
  }
  restore(m, lex, lexLen, chartLen);
  if (status !== STATUS_OK) m.forcedCount = 0;
  return status;
}

export function matcherForcedCount(mp: usize): i32 {
  return changetype<Matcher>(mp).forcedCount;
}

/** Returns the matcher to its state before the mask walk. */
export function matcherMaskAbort(mp: usize): void {
  const m = changetype<Matcher>(mp);
  if (m.walkPath.len >= 4) restore(m, vecGet(m.walkPath, 0), vecGet(m.walkPath, 1), vecGet(m.walkPath, 2));
}

// Stable sort of n (node, state) i32 pairs by state (insertion sort: frontiers are short
// and mostly grouped already).
function sortPairsBySecond(at: usize, n: i32): void {
  for (let i = 1; i < n; i++) {
    const node = load<i32>(at + (<usize>i << 3));
    const state = load<i32>(at + (<usize>i << 3), 4);
    let j = i;
    while (j > 0 && load<i32>(at + (<usize>(j - 1) << 3), 4) > state) {
      store<u64>(at + (<usize>j << 3), load<u64>(at + (<usize>(j - 1) << 3)));
      j--;
    }
    store<i32>(at + (<usize>j << 3), node);
    store<i32>(at + (<usize>j << 3), state, 4);
  }
}
