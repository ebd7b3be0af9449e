// The exact matcher-state key masks are cached under (per grammar): the canonical id of the
// top parser set (its items, with each origin replaced by the origin set's canonical id,
// interned) and the lexer state. Two charts with the same top id parse every continuation
// alike, so the key determines the mask.
import { ITEM_DOT_SHIFT, UNKNOWN, STATE_KEY_EPOCH, STATE_KEY_LEX, STATE_KEY_TOP } from './layouts';
import { setEnd } from './earley';
import { Matcher } from './matcher';
import { intern, internerClear, internerWords, maskStoreDropFrom } from './state-cache';
import { vecGet, vecPush, vecSet } from './vec';

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
  store<i32>(out, m.walkKey0, STATE_KEY_TOP);
  store<i32>(out, m.walkKey1, STATE_KEY_LEX);
  store<i32>(out, m.g.epoch, STATE_KEY_EPOCH);
  return 1;
}

/**
 * Sets walkKey0/1 to the matcher's exact state key (computing the canonical ids it needs
 * that are not known yet); false when the grammar caches no masks.
 */
export function stateKey(m: Matcher): bool {
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
    store<u64>(items + (<usize>i << 3), (<u64>vecGet(m.dots, from + i) << ITEM_DOT_SHIFT) | <u64>canonOrigin);
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
