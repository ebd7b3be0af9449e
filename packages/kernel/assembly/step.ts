// Stepping one byte: a lexer transition, and when the lexeme in progress cannot go on, ending
// it (the parser scans the lexemes it hands over, building a new parser set) and starting the
// next from the new set's lexer start state. The mask walk steps from states saved on its
// path and memoizes ending their lexemes.
import { STATUS_NEED_START, STATUS_NEED_TRANSITION, STATUS_OK, STATUS_REJECTED } from '../src/abi';
import { TRIE_MAX_DEPTH } from '../../format/src/vocab-layout';
import { isIgnored, lexReal, lexTarget, startLookup } from './grammar';
import { addItem, beginSet, closeSet, expectedList, lowerBound, setEnd } from './earley';
import {
  END_IGNORED,
  END_LEVELS,
  END_MEMO_LEX,
  END_MEMO_SHIFT,
  END_MEMO_STAMP,
  END_MEMO_TOP_SERIAL,
  END_MEMO_VALUE,
  END_REJECTED,
  END_SET,
  END_UNKNOWN,
  DEAD,
  UNKNOWN,
  PATH_CHART_LEN,
  PATH_END,
  PATH_ENTRY_SHIFT,
} from './layouts';
import { Matcher } from './matcher';
import { vecGet, vecSet } from './vec';

/**
 * endLexeme for the mask walk from the path state at `depth`: done once per path state, then
 * reused (the set it built is still in the arena right past the chart, unless another set
 * replaced it since).
 */
function endLexemeOnce(m: Matcher, depth: i32): i32 {
  if (!ASC_NO_ASSERT) assert(depth >= 0 && depth <= TRIE_MAX_DEPTH, 'path depth out of range');
  const entry = m.walkPath.ptr + (<usize>depth << PATH_ENTRY_SHIFT);
  const memo = load<i32>(entry, PATH_END);
  const k = m.chartLen;
  if (endHolds(m, k, memo)) return applyEnd(m, k, memo);
  // Ending a lexeme depends on the lexer state and the chart only; the chart is named by
  // the serial of its top set (a set is never changed while it lives).
  const level = k - load<i32>(m.walkPath.ptr, PATH_CHART_LEN);
  if (!ASC_NO_ASSERT) assert(level >= 0, 'a path state below the root\'s chart');
  const lex = m.lex;
  const topSerial = vecGet(m.setSerial, k - 1);
  const slot = m.endMemo + (<usize>level << END_MEMO_SHIFT);
  const memoed = level < END_LEVELS && load<i32>(slot, END_MEMO_STAMP) === m.walkStamp && load<i32>(slot, END_MEMO_TOP_SERIAL) === topSerial && load<i32>(slot, END_MEMO_LEX) === lex;
  if (memoed) {
    const shared = load<i32>(slot, END_MEMO_VALUE);
    if (endHolds(m, k, shared)) {
      store<i32>(entry, shared, PATH_END);
      return applyEnd(m, k, shared);
    }
  }
  const status = endLexeme(m);
  const value = endValue(m, k, status);
  if (value !== END_UNKNOWN) {
    store<i32>(entry, value, PATH_END);
    if (level < END_LEVELS) {
      store<i32>(slot, m.walkStamp, END_MEMO_STAMP);
      store<i32>(slot, topSerial, END_MEMO_TOP_SERIAL);
      store<i32>(slot, lex, END_MEMO_LEX);
      store<i32>(slot, value, END_MEMO_VALUE);
    }
  }
  return status;
}

/**
 * endLexeme for matcherForcedBytes, which tries every byte from one state: done once per
 * position (`m.forcedEnd`, reset there), then reused as endLexemeOnce does (the set it built
 * is kept right past the chart by restoreKeepingNext).
 */
export function endLexemeForced(m: Matcher): i32 {
  const k = m.chartLen;
  if (endHolds(m, k, m.forcedEnd)) return applyEnd(m, k, m.forcedEnd);
  const status = endLexeme(m);
  const value = endValue(m, k, status);
  if (value !== END_UNKNOWN) m.forcedEnd = value;
  return status;
}

// A remembered end of the lexeme in progress (END_* of a chart `k` sets long) holds while the
// set it built is still right past the chart (a rejection or an ignored lexeme always does).
function endHolds(m: Matcher, k: i32, memo: i32): bool {
  return memo === END_REJECTED || memo === END_IGNORED || (memo >= END_SET && m.setSerial.len > k && m.setAccepting.len > k && vecGet(m.setSerial, k) === memo - END_SET);
}

// Takes a remembered end that holds (endHolds) again, without running it: the status it had.
function applyEnd(m: Matcher, k: i32, memo: i32): i32 {
  if (memo === END_REJECTED) return STATUS_REJECTED;
  if (memo !== END_IGNORED) m.chartLen = k + 1;
  m.lex = UNKNOWN;
  m.lexLen = 0;
  return STATUS_OK;
}

// What to remember of an end just run from a chart `k` sets long (END_UNKNOWN: neither rejected nor done).
function endValue(m: Matcher, k: i32, status: i32): i32 {
  if (status === STATUS_REJECTED) return END_REJECTED;
  if (status === STATUS_OK) return m.chartLen > k ? END_SET + vecGet(m.setSerial, k) : END_IGNORED;
  return END_UNKNOWN;
}

/** `step`'s `pathDepth` for matcherForcedBytes: ending the lexeme is memoized per position (endLexemeForced). */
export const FORCED_STEP = -2;

/**
 * Ends the lexeme in progress: the parser scans the winning lexemes it expects, or the
 * lexeme is skipped when it is ignored.
 */
export function endLexeme(m: Matcher): i32 {
  const g = m.g;
  const state = lexReal(g, m.lex);
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

/** The current lexer state, resolving "start state of the top set" (UNKNOWN: the host is asked). */
export function currentLex(m: Matcher): i32 {
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

// The transition of `state` on `byte` (UNKNOWN: the host is asked, needState/needByte say for what).
function transition(m: Matcher, state: i32, byte: i32): i32 {
  const g = m.g;
  const real = lexReal(m.g, state);
  if (!ASC_NO_ASSERT) assert(real >= 0 && real < g.lexStates, 'lexer state out of range');
  const next = lexTarget(g, state, load<i32>(load<usize>(g.lexRows + (<usize>real << 2)) + (<usize>byte << 2)));
  if (next === UNKNOWN) {
    m.needState = state;
    m.needByte = byte;
  }
  return next;
}

/**
 * One byte. `pathDepth` >= 0: the mask walk, stepping from the path state at that depth;
 * FORCED_STEP: matcherForcedBytes, trying bytes from one state.
 */
export function step(m: Matcher, byte: i32, pathDepth: i32 = -1): i32 {
  let state = currentLex(m);
  if (state === UNKNOWN) return STATUS_NEED_START;
  let next = transition(m, state, byte);
  if (next === UNKNOWN) return STATUS_NEED_TRANSITION;
  if (next === DEAD) {
    if (m.lexLen === 0) return STATUS_REJECTED;
    const status = pathDepth === FORCED_STEP ? endLexemeForced(m) : pathDepth < 0 ? endLexeme(m) : endLexemeOnce(m, pathDepth);
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
  if (vecGet(m.g.winLazy, lexReal(m.g, next))) return endLexeme(m);
  return STATUS_OK;
}
