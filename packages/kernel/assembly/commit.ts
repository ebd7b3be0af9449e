// Committing bytes and tokens, rolling tokens back, and the questions asked without
// committing: is the output complete, which bytes are forced. A commit that fails leaves the
// matcher as it was; the history of states before each byte makes rollback a restore.
import { STATUS_INVALID, STATUS_OK, STATUS_REJECTED } from '../src/abi';
import { TOKEN_EMPTY, TOKEN_SPECIAL, VH_BYTES_AT, VH_FLAGS_AT, VH_OFFSETS_AT, VH_TOKEN_COUNT } from '../../format/src/vocab-layout';
import { addItem, beginSet, closeSet, restore, truncateSets } from './earley';
import { lexReal } from './grammar';
import { DEAD, END_IGNORED, END_REJECTED, END_UNKNOWN, HISTORY_CHART_LEN, HISTORY_LEX, HISTORY_LEX_LEN, HISTORY_WORDS, UNKNOWN } from './layouts';
import { Matcher, now } from './matcher';
import { currentLex, endLexeme, endLexemeForced, FORCED_STEP, step } from './step';
import { vecGet, vecPush } from './vec';
import { headerWord } from './vocab';

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

/** Whether a status from matcherIsAccepting is not an answer (a need or a limit). */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function notAnAnswer(accepting: i32): bool {
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
    // One HISTORY_WORDS entry, fields in order.
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

/**
 * 1 if feeding `length` bytes would leave the output complete, 0 if not (the bytes are not
 * allowed, or end short of a complete output), or a need or limit status (then call again).
 * The matcher is left unchanged.
 */
export function matcherCompletes(mp: usize, bytes: usize, length: i32): i32 {
  const m = changetype<Matcher>(mp);
  if (m.finished) return length === 0 ? 1 : 0;
  const lex = m.lex;
  const lexLen = m.lexLen;
  const chartLen = m.chartLen;
  const historyLen = m.history.len;
  const status = matcherCommitBytes(mp, bytes, length);
  if (status !== STATUS_OK) return status === STATUS_REJECTED ? 0 : status;
  const accepting = matcherIsAccepting(mp);
  restore(m, lex, lexLen, chartLen);
  m.history.len = historyLen;
  return accepting;
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
  if (!ASC_NO_ASSERT) assert(at % HISTORY_WORDS === 0 && at <= m.history.len, 'a token mark off the history');
  if (at < m.history.len) {
    restore(m, vecGet(m.history, at + HISTORY_LEX), vecGet(m.history, at + HISTORY_LEX_LEN), vecGet(m.history, at + HISTORY_CHART_LEN));
    m.history.len = at;
  }
  return STATUS_OK;
}

/**
 * Writes into `out` (at most `maxBytes`) the bytes the grammar forces next: while the output
 * is not complete and exactly one byte can follow, that byte. The count is read with
 * `matcherForcedCount`. The matcher is left unchanged; a need status means "fill in and call
 * again". At each position the lexeme in progress is ended once for all the bytes tried
 * (FORCED_STEP), not once per byte it cannot take.
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
    const here0 = m.lex;
    const here1 = m.lexLen;
    const here2 = m.chartLen;
    m.forcedEnd = END_UNKNOWN;
    // Complete here (as matcherIsAccepting, with the lexeme's end memoized): nothing is forced.
    let accepting = 0;
    if (here1 === 0) accepting = vecGet(m.setAccepting, here2 - 1);
    else {
      const ended = endLexemeForced(m);
      if (ended === STATUS_OK) accepting = vecGet(m.setAccepting, m.chartLen - 1);
      else if (ended !== STATUS_REJECTED) status = ended;
      restoreKeepingNext(m, here0, here1, here2);
    }
    if (status !== STATUS_OK || accepting !== 0) break;
    // Bytes whose lexer transitions say `step` would refuse them are skipped without it: DEAD
    // from the lexeme in progress, and either nothing to end, ending refused, or DEAD again
    // from the state after the end. (Unknown transitions and states go through `step`,
    // which asks the host for them.)
    const lexHere = here0 === UNKNOWN ? currentLex(m) : here0;
    const row: usize = lexHere === UNKNOWN ? 0 : lexRow(m, lexHere);
    const ended = m.forcedEnd;
    let after: usize = 0;
    if (here1 > 0 && ended !== END_REJECTED && ended !== END_UNKNOWN) {
      const top = ended === END_IGNORED ? here2 - 1 : here2;
      const start = m.setLex.len > top ? vecGet(m.setLex, top) : UNKNOWN;
      if (start !== UNKNOWN) after = lexRow(m, start);
    }
    const noEnd = here1 === 0 || ended === END_REJECTED;
    let only = -1;
    let several = false;
    for (let byte = 0; byte < 256 && !several; byte++) {
      if (row !== 0 && load<i32>(row + (<usize>byte << 2)) === DEAD && (noEnd || (after !== 0 && load<i32>(after + (<usize>byte << 2)) === DEAD))) continue;
      const s = step(m, byte, FORCED_STEP);
      restoreKeepingNext(m, here0, here1, here2);
      if (s === STATUS_OK) {
        if (only >= 0) several = true;
        only = byte;
      } else if (s !== STATUS_REJECTED) {
        status = s;
        break;
      }
    }
    if (status !== STATUS_OK || several || only < 0) break;
    step(m, only, FORCED_STEP);
    store<u8>(out + <usize>m.forcedCount, <u8>only);
    m.forcedCount++;
  }
  restore(m, lex, lexLen, chartLen);
  if (status !== STATUS_OK) m.forcedCount = 0;
  return status;
}

// The transitions of lexer state `state` (256 i32s: a state, DEAD or UNKNOWN; relative
// targets for a counted state, but DEAD all the same).
// @ts-expect-error: decorator (AssemblyScript)
@inline
function lexRow(m: Matcher, state: i32): usize {
  const real = lexReal(m.g, state);
  if (!ASC_NO_ASSERT) assert(real >= 0 && real < m.g.lexStates, 'lexer state out of range');
  return load<usize>(m.g.lexRows + (<usize>real << 2));
}

// Returns to (lex, lexLen, chartLen) keeping the parser set just past the chart, which
// ending the same lexeme again reuses (see endLexemeForced in step.ts).
// @ts-expect-error: decorator (AssemblyScript)
@inline
function restoreKeepingNext(m: Matcher, lex: i32, lexLen: i32, chartLen: i32): void {
  m.lex = lex;
  m.lexLen = lexLen;
  truncateSets(m, chartLen + 1);
  if (m.setCanon.len > chartLen) m.setCanon.len = chartLen;
  m.chartLen = chartLen;
}

export function matcherForcedCount(mp: usize): i32 {
  return changetype<Matcher>(mp).forcedCount;
}
