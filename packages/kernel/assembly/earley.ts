// Earley parser sets, in one arena per matcher: items as (dotted rule, origin set), each set
// closed under prediction and completion, then sorted by the symbol after the dot (scanning
// and completing look up a symbol by binary search) and given its lexer start state.
import { STATUS_LIMIT_CHART, STATUS_LIMIT_ITEMS, STATUS_LIMIT_TIME, STATUS_NEED_RULES, STATUS_OK } from '../src/abi';
import { regrow, startLookup } from './grammar';
import { ITEM_DOT_SHIFT, ITEM_HASH_GEN_SHIFT, ITEM_HASH_KEY_SHIFT } from './layouts';
import { Matcher, now } from './matcher';
import { mix } from './state-cache';
import { vecGet, vecPush, vecResize, vecSet } from './vec';

/** Begins a new parser set at the chart's end (dropping any sets past it). */
export function beginSet(m: Matcher): void {
  truncateSets(m, m.chartLen);
  vecPush(m.setStart, m.dots.len);
  vecPush(m.setSerial, m.serials);
  m.serials = (m.serials + 1) & 0x3fffffff; // END_SET + serial stays a positive i32
  m.gen++;
  if (m.gen === 0x7fffffff) {
    memory.fill(m.hashGens, 0, <usize>m.hashCap << ITEM_HASH_GEN_SHIFT);
    memory.fill(m.ntStamp, 0, <usize>m.ntStampCap << 2);
    m.gen = 1;
  }
}

// Adds item (dot, origin) to the set being built unless it is there already.
export function addItem(m: Matcher, dot: i32, origin: i32): bool {
  if (!ASC_NO_ASSERT) assert(dot >= 0 && dot < m.g.dotCap && origin >= 0 && origin < m.setStart.len, 'Earley item out of range');
  const key = (<u64>dot << ITEM_DOT_SHIFT) | <u64>(<u32>origin);
  const mask = m.hashCap - 1;
  let h = <i32>(mix(key) & <u32>mask);
  while (load<i32>(m.hashGens + (<usize>h << ITEM_HASH_GEN_SHIFT)) === m.gen) {
    if (load<u64>(m.hashKeys + (<usize>h << ITEM_HASH_KEY_SHIFT)) === key) return false;
    h = (h + 1) & mask;
  }
  store<i32>(m.hashGens + (<usize>h << ITEM_HASH_GEN_SHIFT), m.gen);
  store<u64>(m.hashKeys + (<usize>h << ITEM_HASH_KEY_SHIFT), key);
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
  m.hashKeys = heap.alloc(<usize>m.hashCap << ITEM_HASH_KEY_SHIFT);
  m.hashGens = heap.alloc(<usize>m.hashCap << ITEM_HASH_GEN_SHIFT);
  memory.fill(m.hashGens, 0, <usize>m.hashCap << ITEM_HASH_GEN_SHIFT);
  const mask = m.hashCap - 1;
  for (let i = vecGet(m.setStart, m.setStart.len - 1); i < m.dots.len; i++) {
    const key = (<u64>vecGet(m.dots, i) << ITEM_DOT_SHIFT) | <u64>(<u32>vecGet(m.origins, i));
    let h = <i32>(mix(key) & <u32>mask);
    while (load<i32>(m.hashGens + (<usize>h << ITEM_HASH_GEN_SHIFT)) === m.gen) h = (h + 1) & mask;
    store<i32>(m.hashGens + (<usize>h << ITEM_HASH_GEN_SHIFT), m.gen);
    store<u64>(m.hashKeys + (<usize>h << ITEM_HASH_KEY_SHIFT), key);
  }
}

/** The end of set k's items (the next set's start, or the arena's end). */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function setEnd(m: Matcher, k: i32): i32 {
  return k + 1 < m.setStart.len ? vecGet(m.setStart, k + 1) : m.dots.len;
}

// First slot in [from, to) of the sorted keys with key >= symbol.
export function lowerBound(m: Matcher, from: i32, to: i32, symbol: i32): i32 {
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
export function closeSet(m: Matcher): i32 {
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

// @ts-expect-error: decorator (AssemblyScript)
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
export function expectedList(m: Matcher, k: i32): void {
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

/** Returns the matcher to (lex, lexLen, chartLen), a state it was in before. */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function restore(m: Matcher, lex: i32, lexLen: i32, chartLen: i32): void {
  m.lex = lex;
  m.lexLen = lexLen;
  // Also drops a set left half-built by a limit error.
  truncateSets(m, chartLen);
  if (m.setCanon.len > chartLen) m.setCanon.len = chartLen;
  m.chartLen = chartLen;
}

// Drops the parser sets from index `count` on (the arena keeps sets past chartLen until a
// new set is begun there: the mask walk reuses one, see endLexemeOnce in step.ts).
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function truncateSets(m: Matcher, count: i32): void {
  if (count < m.setStart.len) {
    m.dots.len = vecGet(m.setStart, count);
    m.origins.len = m.dots.len;
    m.setStart.len = count;
    m.setSerial.len = count;
  }
  if (m.setAccepting.len > count) m.setAccepting.len = count;
  if (m.setLex.len > count) m.setLex.len = count;
}
