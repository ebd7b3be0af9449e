// A grammar as the kernel holds it: the parser tables (filled by the host, grown when it
// lowers nonterminals lazily), the mirror of the host's lazily built lexer DFA, and the lexer
// start states by expected-lexeme list. One grammar is shared by all its matchers.
//
// The lexer DFA is built by the host on demand: when a transition (or the start state of a
// new parser set's expected lexemes) is missing, an operation returns STATUS_NEED_* and the
// host fills it in and calls again (commits restart; a mask walk resumes where it stopped).
// Token slices work the same way: which slices a lexer state accepts whole is asked for once
// per state (STATUS_NEED_SLICES, see mask-walk.ts).
// Nonterminals the host lowers lazily (permutation states) work the same way: predicting one
// whose rules are not built yet returns STATUS_NEED_RULES, the host grows the tables.
import { COUNTED_FIELD_MASK, COUNTED_SHAPE_SHIFT, COUNTED_STATE, TABLE_DOT_LHS, TABLE_DOT_NEXT, TABLE_IGNORE, TABLE_NULLABLE, TABLE_PREDICT, TABLE_PREDICT_FROM, TABLE_PREDICT_TO } from '../src/abi';
import {
  UNKNOWN,
  LEXER_ROW_BYTES,
  SLICE_ENTRY_ABOVE_SHIFT,
  SLICE_ENTRY_BOUND_SHIFT,
  START_SLOT_BYTES,
  START_SLOT_HASH,
  START_SLOT_LIST,
  START_SLOT_STATE,
} from './layouts';
import { Interner, internerFree, internerNew, MaskStore, maskStoreFree, maskStoreNew, maskStoreStat } from './state-cache';
import { Vec, vecFree, vecGet, vecNew, vecPush, vecSet } from './vec';


/** Parser tables, lexer mirror and mask cache of one grammar, shared by its matchers. */
@unmanaged
export class Grammar {
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
  // Per state, UNKNOWN until the host says: the token slices it accepts whole (bit i:
  // slice i) and its length bound on slice 0 (SLICE_ENTRY_* in layouts.ts).
  slices: Vec = changetype<Vec>(0);
  // Per shape (COUNTED_STATE in the ABI): its state, the highest count its counted states
  // take, and the highest whose slices are the shape's (past it: none).
  shapeStates: Vec = changetype<Vec>(0);
  countHigh: Vec = changetype<Vec>(0);
  sliceHigh: Vec = changetype<Vec>(0);
  // Counted states past their shape's highest count, and the plain states they are: open
  // addressing, (key, value) i32 pairs, key -1 empty.
  concreteCap: i32 = 0;
  concreteUsed: i32 = 0;
  concreteSlots: usize = 0;
  // Lexer start states by expected-lexeme list: open addressing, START_SLOT_* slots.
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
  g.unknownRow = heap.alloc(LEXER_ROW_BYTES);
  memory.fill(g.unknownRow, 0xff, LEXER_ROW_BYTES);
  g.rowCap = max(lexerRows, 1);
  g.rowPtrs = vecNew(64);
  g.rowOwners = vecNew(64);
  g.winStart = vecNew(64);
  g.winCount = vecNew(64);
  g.winLazy = vecNew(64);
  g.winners = vecNew(64);
  g.slices = vecNew(64);
  g.shapeStates = vecNew(64);
  g.countHigh = vecNew(64);
  g.sliceHigh = vecNew(64);
  g.concreteCap = 64;
  g.concreteSlots = heap.alloc(<usize>g.concreteCap << 3);
  memory.fill(g.concreteSlots, 0xff, <usize>g.concreteCap << 3);
  g.startCap = 64;
  g.startUsed = 0;
  g.startSlots = heap.alloc(<usize>g.startCap * START_SLOT_BYTES);
  memory.fill(g.startSlots, 0xff, <usize>g.startCap * START_SLOT_BYTES);
  g.startLists = vecNew(64);
  g.sets = internerNew();
  g.masks = maskStoreNew(maskCacheBytes);
  g.maxSetWords = <i32>(maskCacheBytes >>> 4);
  g.epoch = 0;
  return changetype<usize>(g);
}

/** A block of `used` bytes moved into a new block of `size` bytes. */
export function regrow(ptr: usize, used: usize, size: usize): usize {
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
  vecFree(g.shapeStates);
  vecFree(g.countHigh);
  vecFree(g.sliceHigh);
  heap.free(g.concreteSlots);
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
    row = heap.alloc(LEXER_ROW_BYTES);
    vecPush(g.rowPtrs, <i32>row);
  }
  memory.fill(row, 0xff, LEXER_ROW_BYTES);
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

/**
 * Makes `state` shape number `shape` (COUNTED_STATE in the ABI; shapes are numbered in order
 * from 0): its row's targets are relative, its counted states go up to count `high`, and those
 * up to `sliceHigh` accept the slices it does (the others none).
 */
export function lexerSetCounted(gp: usize, shape: i32, state: i32, high: i32, sliceHigh: i32): void {
  const g = changetype<Grammar>(gp);
  if (!ASC_NO_ASSERT) assert(shape === g.shapeStates.len, 'shapes out of order');
  vecPush(g.shapeStates, state);
  vecPush(g.countHigh, high);
  vecPush(g.sliceHigh, sliceHigh);
}

/** The plain state a counted state past its shape's highest count is. */
export function lexerSetConcrete(gp: usize, counted: i32, state: i32): void {
  const g = changetype<Grammar>(gp);
  if ((g.concreteUsed + 1) * 2 > g.concreteCap) {
    const old = g.concreteSlots;
    const oldCap = g.concreteCap;
    g.concreteCap <<= 1;
    g.concreteSlots = heap.alloc(<usize>g.concreteCap << 3);
    memory.fill(g.concreteSlots, 0xff, <usize>g.concreteCap << 3);
    for (let i = 0; i < oldCap; i++) {
      const key = load<i32>(old + (<usize>i << 3));
      if (key >= 0) placeConcrete(g, key, load<i32>(old + (<usize>i << 3), 4));
    }
    heap.free(old);
  }
  if (placeConcrete(g, counted, state)) g.concreteUsed++;
}

// Whether the key was new.
function placeConcrete(g: Grammar, key: i32, value: i32): bool {
  const at = concreteSlot(g, key);
  const added = load<i32>(at) < 0;
  store<i32>(at, key);
  store<i32>(at, value, 4);
  return added;
}

function concreteOf(g: Grammar, key: i32): i32 {
  const at = concreteSlot(g, key);
  return load<i32>(at) === key ? load<i32>(at, 4) : UNKNOWN;
}

// The slot holding `key`, or the empty one where it would go.
function concreteSlot(g: Grammar, key: i32): usize {
  const mask = g.concreteCap - 1;
  let slot = <i32>((<u32>key * 2654435761) >>> 7) & mask;
  let at = g.concreteSlots + (<usize>slot << 3);
  while (load<i32>(at) >= 0 && load<i32>(at) !== key) {
    slot = (slot + 1) & mask;
    at = g.concreteSlots + (<usize>slot << 3);
  }
  return at;
}

/** The state whose row, winners and slices serve `state`: itself, or a counted state's shape. */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function lexReal(g: Grammar, state: i32): i32 {
  return (state & COUNTED_STATE) === 0 ? state : vecGet(g.shapeStates, (state >>> COUNTED_SHAPE_SHIFT) & COUNTED_FIELD_MASK);
}

/**
 * The state `entry` (read from the row of `lexReal(from)`) leads to from `from`: the entry
 * itself (a state, DEAD or UNKNOWN), or from a counted state, the relative target counted on
 * (UNKNOWN where it is a plain state the host has not named yet).
 */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function lexTarget(g: Grammar, from: i32, entry: i32): i32 {
  if (entry < COUNTED_STATE || from < COUNTED_STATE) return entry;
  const shape = (entry >>> COUNTED_SHAPE_SHIFT) & COUNTED_FIELD_MASK;
  const count = (from & COUNTED_FIELD_MASK) + (entry & COUNTED_FIELD_MASK);
  const target = COUNTED_STATE | (shape << COUNTED_SHAPE_SHIFT) | count;
  return count <= vecGet(g.countHigh, shape) ? target : concreteOf(g, target);
}

/** The slice entry of `state` (UNKNOWN until the host says): a counted state past its shape's slice bound accepts none. */
export function sliceEntry(g: Grammar, state: i32): i32 {
  if ((state & COUNTED_STATE) !== 0 && (state & COUNTED_FIELD_MASK) > vecGet(g.sliceHigh, (state >>> COUNTED_SHAPE_SHIFT) & COUNTED_FIELD_MASK)) return 0;
  return vecGet(g.slices, lexReal(g, state));
}

/** Sets the transitions of `state` on the bytes from `from` up to `to` (excluded), which all lead to `target`. */
export function lexerSetRun(gp: usize, state: i32, from: i32, to: i32, target: i32): void {
  const g = changetype<Grammar>(gp);
  if (!ASC_NO_ASSERT) assert(state >= 0 && state < g.lexStates && from >= 0 && to <= 256 && target >= UNKNOWN && (target < g.lexStates || (target & COUNTED_STATE) !== 0), 'lexer transition out of range');
  const row = lexerRow(g, state);
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

// FNV-1a of an expected-lexeme list.
function listHash(list: Vec): u32 {
  let h: u32 = 2166136261;
  for (let i = 0; i < list.len; i++) h = (h ^ <u32>vecGet(list, i)) * 16777619;
  return h;
}

/** The lexer start state for an expected-lexeme list, or UNKNOWN (the host is asked). */
export function startLookup(g: Grammar, list: Vec): i32 {
  const h = listHash(list);
  const mask = g.startCap - 1;
  let slot = <i32>(h & <u32>mask);
  let listAt = load<i32>(g.startSlots + <usize>slot * START_SLOT_BYTES, START_SLOT_LIST);
  while (listAt >= 0) {
    const at = g.startSlots + <usize>slot * START_SLOT_BYTES;
    if (load<u32>(at, START_SLOT_HASH) === h && listEquals(g.startLists, listAt, list)) return load<i32>(at, START_SLOT_STATE);
    slot = (slot + 1) & mask;
    listAt = load<i32>(g.startSlots + <usize>slot * START_SLOT_BYTES, START_SLOT_LIST);
  }
  return UNKNOWN;
}

function listEquals(lists: Vec, at: i32, list: Vec): bool {
  if (vecGet(lists, at) !== list.len) return false;
  for (let i = 0; i < list.len; i++) if (vecGet(lists, at + 1 + i) !== vecGet(list, i)) return false;
  return true;
}

/** Registers the lexer start state for an expected-lexeme list. */
export function startInsert(g: Grammar, list: Vec, state: i32): void {
  if ((g.startUsed + 1) * 2 > g.startCap) {
    const oldSlots = g.startSlots;
    const oldCap = g.startCap;
    g.startCap <<= 1;
    g.startSlots = heap.alloc(<usize>g.startCap * START_SLOT_BYTES);
    memory.fill(g.startSlots, 0xff, <usize>g.startCap * START_SLOT_BYTES);
    for (let s = 0; s < oldCap; s++) {
      const at = oldSlots + <usize>s * START_SLOT_BYTES;
      if (load<i32>(at, START_SLOT_LIST) >= 0) placeStart(g, load<u32>(at, START_SLOT_HASH), load<i32>(at, START_SLOT_LIST), load<i32>(at, START_SLOT_STATE));
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
  while (load<i32>(g.startSlots + <usize>slot * START_SLOT_BYTES, START_SLOT_LIST) >= 0) slot = (slot + 1) & mask;
  const at = g.startSlots + <usize>slot * START_SLOT_BYTES;
  store<u32>(at, h, START_SLOT_HASH);
  store<i32>(at, listAt, START_SLOT_LIST);
  store<i32>(at, state, START_SLOT_STATE);
}

/** Whether `lexeme` is skipped between the grammar's lexemes. */
export function isIgnored(g: Grammar, lexeme: i32): bool {
  for (let i = 0; i < g.ignoreCount; i++) if (load<i32>(g.ignore + (<usize>i << 2)) === lexeme) return true;
  return false;
}
