// kernel.wasm exports. Every export takes and returns integers and pointers into linear
// memory; errors are status codes (../src/abi.ts), never traps or exceptions.
import { KERNEL_ABI_VERSION } from '../src/abi';

/** The ABI this build speaks (`loadKernel` checks it). */
export function kernelAbiVersion(): i32 {
  return KERNEL_ABI_VERSION;
}

export { applyBitset, applyBrle } from './logits';
export { bitsetAnd, bitsetAndBrle, bitsetCount, bitsetOr, brleDecode, brleEncode } from './brle';
export { maskLiteral, vocabCheck } from './vocab';
export { grammarFree, grammarGrow, grammarMaskCacheStat, grammarNew, grammarTable, lexerGrow, lexerSetConcrete, lexerSetCounted, lexerSetRun, lexerSetSlices, lexerSetWinners, lexerTrim } from './grammar';
export {
  matcherFork,
  matcherFree,
  matcherIsFinished,
  matcherNeedByte,
  matcherNeedList,
  matcherNeedListLength,
  matcherNeedState,
  matcherNew,
  matcherResolveStart,
  matcherTokenCount,
} from './matcher';
export { matcherCommitBytes, matcherCommitToken, matcherCompletes, matcherForcedBytes, matcherForcedCount, matcherIsAccepting, matcherRollback, matcherStart } from './commit';
export { matcherMaskAbort, matcherMaskBegin, matcherMaskResume } from './mask-walk';
export { matcherStateKey } from './state-key';

/** Allocates `size` bytes, 16-byte aligned. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block from `alloc`. */
export function free(ptr: usize): void {
  heap.free(ptr);
}
