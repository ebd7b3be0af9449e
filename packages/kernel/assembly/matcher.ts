// The grammar matcher on the per-token hot path: Earley parser over lexemes, a mirror of the
// host's lazily built lexer DFA, and the trie walk that computes a token mask. It is the
// same algorithm as @sieve/grammar's TypeScript `Matcher` (the reference it is tested
// against), laid out in flat arrays. Once warm, a mask is one call.
//
// This file holds the matcher's state and its lifetime; the rest is one file per concern:
//   layouts.ts      the records in linear memory read by offset (sizes, field offsets)
//   grammar.ts      parser tables, lexer DFA mirror, lexer start states (shared per grammar)
//   earley.ts       Earley parser sets: building, closing, truncating
//   step.ts         stepping one byte: lexer transition, ending a lexeme into the parser
//   commit.ts       commit, rollback, accepting, forced bytes
//   state-key.ts    the exact state key that masks are cached under (canonical parser sets)
//   mask-walk.ts    the resumable trie walk that computes a mask
//   state-cache.ts  the interner and mask store behind the cache
//   vec.ts          the growable i32 array most of the state lives in
import { VH_TOKEN_COUNT } from '../../format/src/vocab-layout';
import { Grammar, startInsert } from './grammar';
import { END_LEVELS, END_MEMO_SHIFT, ITEM_HASH_GEN_SHIFT, ITEM_HASH_KEY_SHIFT, UNKNOWN } from './layouts';
import { Vec, vecClone, vecFree, vecNew, vecPush } from './vec';
import { headerWord } from './vocab';

/** The host's clock, in ms (deadlines of commits and mask walks). */
// @ts-expect-error: decorator (AssemblyScript)
@external('env', 'now')
export declare function now(): f64;

/** One output's parse state over a grammar (the host holds it by pointer). */
@unmanaged
export class Matcher {
  g: Grammar = changetype<Grammar>(0);
  vocab: usize = 0;
  vocabSerial: i32 = 0; // never the same for two loaded vocab indexes (the host numbers them)
  eos: Vec = changetype<Vec>(0);
  // Earley items (global arena), and per item slot the set's items sorted by next symbol.
  dots: Vec = changetype<Vec>(0);
  origins: Vec = changetype<Vec>(0);
  sorted: Vec = changetype<Vec>(0);
  keys: Vec = changetype<Vec>(0);
  // Per set: first item, accepting flag, lexer start state (UNKNOWN until looked up).
  setStart: Vec = changetype<Vec>(0);
  setAccepting: Vec = changetype<Vec>(0);
  setLex: Vec = changetype<Vec>(0);
  setSerial: Vec = changetype<Vec>(0); // a number no other set of this matcher had
  serials: i32 = 0;
  chartLen: i32 = 0;
  lex: i32 = 0; // UNKNOWN: the start state of the top set
  lexLen: i32 = 0;
  finished: i32 = 0;
  history: Vec = changetype<Vec>(0); // a HISTORY_* entry (lex, lexLen, chartLen) before each committed byte
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
  walkPath: Vec = changetype<Vec>(0); // PATH_ENTRY_BYTES per trie depth
  walkBits: usize = 0;
  walkDeadline: f64 = 0;
  // While a commit runs: when it must be done by (0 otherwise; see closeSet in earley.ts).
  commitDeadline: f64 = 0;
  walkVisited: i32 = 0;
  walkSlices: i32 = 0; // the root state's slice entry (lexerSetSlices); UNKNOWN until known
  walkRootLex: i32 = 0; // the lexer state at the root (the top set's start state when between lexemes)
  walkEnd: i32 = 0; // the walk covers nodes [walkNode, walkEnd)
  walkPure: usize = 0; // recording: tokens accepted before any lexeme ends (words bits)
  walkFrontier: Vec = changetype<Vec>(0); // recording: FRONTIER_PAIR_* (node, parent lexer state)
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
  // While matcherForcedBytes tries the bytes at one position: the END_* memo of ending the
  // lexeme there (every byte the lexeme cannot take ends it the same way).
  forcedEnd: i32 = 0;
  // What the host must provide after a STATUS_NEED_*.
  needState: i32 = 0;
  needByte: i32 = 0; // after STATUS_NEED_TRANSITION: the byte whose transition is missing
  needList: Vec = changetype<Vec>(0);
  // Walk memo of ending a lexeme, per chart level above the root's: END_LEVELS END_MEMO_*
  // entries.
  endMemo: usize = 0;
  walkStamp: i32 = 0;
}

function allocScratch(m: Matcher): void {
  m.hashCap = 256;
  m.hashKeys = heap.alloc(<usize>m.hashCap << ITEM_HASH_KEY_SHIFT);
  m.hashGens = heap.alloc(<usize>m.hashCap << ITEM_HASH_GEN_SHIFT);
  memory.fill(m.hashGens, 0, <usize>m.hashCap << ITEM_HASH_GEN_SHIFT);
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
  m.endMemo = heap.alloc(<usize>END_LEVELS << END_MEMO_SHIFT);
  memory.fill(m.endMemo, 0, <usize>END_LEVELS << END_MEMO_SHIFT);
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
