export { bitsetAdd, bitsetHas, bitsetWords, emptyBitset } from './bitset.ts';
export {
  applyBrle,
  brleAllowedIds,
  brleAllows,
  brleAnd,
  brleCount,
  brleFromBitset,
  brleLength,
  brleToBitset,
  BrleError,
} from './brle.ts';
export type { Brle } from './brle.ts';
export { TOKEN_SLICES, tokenInSlice, utf8CharCount, utf8Lead } from './token-slices.ts';
export type { TokenSlice } from './token-slices.ts';
export { VocabFormatError, VocabIndex, writeVocabIndex } from './vocab-index.ts';
export type { VocabMeta, VocabSections } from './vocab-index.ts';
export * as vocabLayout from './vocab-layout.ts';
