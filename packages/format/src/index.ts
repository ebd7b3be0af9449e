/**
 * Binary formats shared by every stage: BRLE token masks, bitsets and the vocab index layout.
 *
 * @module @sieve/format
 */
export { bitsetAdd, bitsetHas, bitsetPut, bitsetWords, emptyBitset } from './bitset.ts';
export { applyBrle, brleAllowedIds, brleAllows, brleAnd, brleCount, brleFromBitset, brleLength, brleToBitset, BrleError } from './brle.ts';
export type { Brle } from './brle.ts';
export { fingerprint, MASK_INDEX_VERSION, MaskIndex, MaskIndexFormatError, NEXT_REJECTED, NEXT_UNINDEXED, writeMaskIndex } from './mask-index.ts';
export type { MaskIndexInput, MaskIndexMeta, MaskIndexStateInput } from './mask-index.ts';
export { TOKEN_SLICES, tokenInSlice, utf8CharCount, utf8Lead } from './token-slices.ts';
export type { TokenSlice } from './token-slices.ts';
export { VocabFormatError, VocabIndex, writeVocabIndex } from './vocab-index.ts';
export type { VocabMeta, VocabSections } from './vocab-index.ts';
export * as vocabLayout from './vocab-layout.ts';
