/**
 * Sieve's masks inside a generation transformers.js runs: a logits processor for
 * `model.generate({ logits_processor: [processor] })` or a `pipeline('text-generation')` call,
 * for apps that already generate with transformers.js. Each step it reads the tokens
 * generated since its last call, commits them to the constraint and sets every logit the
 * mask refuses to -Infinity, so whatever sampler transformers.js runs draws an allowed token.
 *
 * Masks only: fast-forward (forced tokens without a forward pass), token healing,
 * budget-aware ending (finishing the output within `max_new_tokens`), streaming events and
 * the step timings need Sieve's own loop (`createEngine`). One sequence (batch size 1, no
 * beams); `reset()` before reusing the processor for another generation.
 *
 * @module @sieve/runtime/transformers
 */
import type { KernelSource } from '@sieve/kernel';
import { loadKernel } from '@sieve/kernel';
import type { GrammarLimits } from '@sieve/grammar';
import type { TokenizerConfig, TokenizerJson } from '@sieve/vocab';
import type { ConstraintInput, GrammarSpec } from './constraint-specs.ts';
import { activate, Grammar, type ActiveConstraint, type ConstraintContext } from './constraints.ts';
import { continuationEncoder } from './continuation.ts';
import { modelVocab } from './model-vocab.ts';
import { allowedRanges } from './sampler.ts';

/** The parts of a transformers.js tokenizer the processor reads. */
export interface TransformersTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
}

/** The parts of a transformers.js `Tensor` of logits the processor writes: `[batch, vocab]`. */
export interface LogitsTensor {
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

export interface SieveLogitsProcessorOptions {
  /** The tokenizer's vocab index (`sieve vocab build`); else built from the tokenizer (and cached in the browser). */
  readonly vocab?: Uint8Array;
  /** Where `kernel.wasm` is (default: next to the kernel package). */
  readonly kernel?: KernelSource;
  readonly limits?: Partial<GrammarLimits>;
  /** Cache a vocab index built here in the Cache API (default true). */
  readonly cache?: boolean;
}

/** A logits processor that applies a constraint's masks (call `dispose()` when done). */
export interface SieveLogitsProcessor {
  (inputIds: readonly (readonly (bigint | number)[])[], logits: LogitsTensor): LogitsTensor;
  /** Whether the output so far is complete for the constraint (null: it cannot tell). */
  complete(): boolean | null;
  /** Starts over for a new generation (same constraint). */
  reset(): void;
  dispose(): void;
}

/** A logits processor for `constraint`, for the model whose `tokenizer` is given. */
export async function sieveLogitsProcessor(
  tokenizer: TransformersTokenizer,
  constraint: ConstraintInput,
  options: SieveLogitsProcessorOptions = {},
): Promise<SieveLogitsProcessor> {
  const files = tokenizer as unknown as { _tokenizerJSON?: TokenizerJson; _tokenizerConfig?: TokenizerConfig };
  if (files._tokenizerJSON === undefined) throw new TypeError('sieveLogitsProcessor needs a transformers.js tokenizer (AutoTokenizer.from_pretrained)');
  const kernel = await loadKernel(options.kernel);
  const { index: vocabIndex } = await modelVocab(
    options.vocab,
    { json: files._tokenizerJSON, config: files._tokenizerConfig ?? {}, eosTokenIds: [] },
    'transformers.js tokenizer',
    options.cache ?? true,
  );
  const vocab = kernel.loadVocab(vocabIndex.file);
  const grammars = new Map<string, Grammar>();
  const context: ConstraintContext = {
    kernel,
    vocab,
    vocabIndex,
    eosTokenIds: vocabIndex.meta.eos_token_ids,
    encodeContinuation: continuationEncoder(vocabIndex, (text) => tokenizer.encode(text, { add_special_tokens: false })),
    grammar: (spec) => {
      if (spec.type === 'grammar') throw new TypeError('a grammar handle belongs to an engine: give the spec itself');
      const key = JSON.stringify(spec);
      let grammar = grammars.get(key);
      if (grammar === undefined) grammars.set(key, (grammar = new Grammar(spec as GrammarSpec, options.limits)));
      return grammar;
    },
  };
  let active: ActiveConstraint = activate(constraint, context);
  let seen = -1; // tokens of the sequence already committed (-1: the prompt is not known yet)
  const processor = ((inputIds, logits) => {
    if (inputIds.length !== 1) throw new RangeError(`sieveLogitsProcessor masks one sequence; this generation has ${inputIds.length} (batch or beams)`);
    const row = inputIds[0]!;
    if (seen < 0) seen = row.length;
    for (; seen < row.length; seen++) {
      const token = Number(row[seen]);
      if (!active.commit(token)) throw new RangeError(`token ${token} was generated against the constraint's mask (another logits processor after Sieve's?)`);
    }
    const mask = active.mask();
    const width = logits.dims.at(-1)!;
    const ranges = mask.length === 0 ? Int32Array.of(0, Math.min(width, vocabIndex.tokenCount)) : allowedRanges(mask, Math.min(width, vocabIndex.tokenCount));
    // Everything outside the allowed runs (and logits past the vocab index's tokens) goes.
    const data = logits.data;
    let from = 0;
    for (let r = 0; r <= ranges.length; r += 2) {
      const to = r < ranges.length ? ranges[r]! : width;
      data.fill(-Infinity, from, to);
      from = r < ranges.length ? ranges[r + 1]! : width;
    }
    return logits;
  }) as SieveLogitsProcessor;
  processor.complete = () => active.accepting();
  processor.reset = () => {
    active.dispose();
    active = activate(constraint, context);
    seen = -1;
  };
  processor.dispose = () => {
    active.dispose();
    for (const grammar of grammars.values()) grammar.dispose();
    vocab.dispose();
    kernel.dispose();
  };
  return processor;
}
