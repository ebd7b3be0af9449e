/**
 * Ahead-of-time mask indexes for grammar specs: what `sieve index build` and the Vite
 * plugin's `?sieve` imports run. The spec is compiled exactly as the engine compiles it, so
 * the index's grammar fingerprint matches at generation time.
 */
import { VocabIndex } from '@sieve/format';
import { buildMaskIndex, type BuiltMaskIndex, type GrammarLimits, type MaskIndexBuildOptions } from '@sieve/grammar';
import { loadKernel, type KernelSource } from '@sieve/kernel';
import type { GrammarSpec } from './constraint-specs.ts';
import { Grammar } from './constraints.ts';

/** Options of `buildSpecMaskIndex`. */
export interface SpecMaskIndexOptions extends MaskIndexBuildOptions {
  /** The limits the engine will compile with (`EngineLoadOptions.limits`). */
  readonly limits?: Partial<GrammarLimits>;
  /** Where to load kernel.wasm from (default: the one built beside @sieve/kernel). */
  readonly kernel?: KernelSource;
}

/** Builds the mask index of `spec` for the tokenizer of `vocabFile` (a `.vocab` vocab index). */
export async function buildSpecMaskIndex(spec: GrammarSpec, vocabFile: Uint8Array, options: SpecMaskIndexOptions = {}): Promise<BuiltMaskIndex> {
  const { limits, kernel: kernelSource, ...buildOptions } = options;
  // The grammar alone: an index the spec may carry is what is being built.
  const plain = { ...spec };
  delete (plain as { index?: unknown }).index;
  const grammar = new Grammar(plain, limits);
  const vocabIndex = new VocabIndex(vocabFile);
  const kernel = await loadKernel(kernelSource);
  try {
    return buildMaskIndex(grammar.compiled, kernel, kernel.loadVocab(vocabIndex.file), vocabIndex, buildOptions);
  } finally {
    kernel.dispose();
    grammar.dispose();
  }
}
