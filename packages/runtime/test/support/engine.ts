import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VocabIndex } from '@sieve/format';
import type { Kernel } from '@sieve/kernel';
import { Grammar, type ConstraintContext } from '../../src/constraints.ts';
import { continuationEncoder, tokenLookup } from '../../src/continuation.ts';
import { InThreadEngine } from '../../src/engine.ts';

/** The real tiny model every generation test runs (see ../shared/models/stories260K/README.md). */
export const STORIES_260K = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'models', 'stories260K');
/** The vocab index `pnpm build` writes for it. */
export const STORIES_VOCAB = join(import.meta.dirname, '..', '..', '..', '..', 'public', 'vocab', 'stories260k.vocab');

/** An engine with stories260K loaded on the CPU (onnxruntime-node). */
export async function storiesEngine(): Promise<InThreadEngine> {
  const engine = new InThreadEngine();
  await engine.load({ model: STORIES_260K, device: 'cpu', vocab: new Uint8Array(readFileSync(STORIES_VOCAB)) });
  return engine;
}

/**
 * What a constraint and the decode loop need, for `vocabIndex` loaded into `kernel` (dispose
 * `vocab` when done): grammars compiled as asked, continuations encoded by `encodeText`.
 */
export function kernelContext(
  kernel: Kernel,
  vocabIndex: VocabIndex,
  encodeText: (text: string) => number[],
): ConstraintContext & { readonly tokenOf: (bytes: Uint8Array) => number | undefined } {
  return {
    kernel,
    vocab: kernel.loadVocab(vocabIndex.file),
    vocabIndex,
    eosTokenIds: vocabIndex.meta.eos_token_ids,
    encodeContinuation: continuationEncoder(vocabIndex, encodeText),
    grammar: (spec) => new Grammar(spec as never),
    tokenOf: tokenLookup(vocabIndex),
  };
}
