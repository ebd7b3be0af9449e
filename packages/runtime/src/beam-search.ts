/**
 * Constrained beam search: the output with the highest log probability per token under the
 * constraint, found by keeping the `beams` best partial outputs at every step. Each beam has
 * its own copy of the constraint and of the model's KV cache (shared on the CPU, see
 * `ModelSequence.fork`). Deterministic: sampling options other than the logit bias do not
 * apply; fast-forward, token healing and budget-aware ending are the sampling loop's.
 */
import type { ActiveConstraint } from './constraints.ts';
import { DeadEndError } from './errors.ts';
import {
  mergeBias,
  onlyEos,
  OutputText,
  settle,
  UNTIMED_STEPS,
  type DecodeContext,
  type DecodeOptions,
  type GenerationOutput,
  type StopReason,
} from './decode-loop.ts';
import type { ModelSequence } from './model.ts';
import { applyLogitBias, topCandidates } from './sampler.ts';

/** Widest beam search allowed: each beam is a forward pass per step. */
export const MAX_BEAMS = 16;

interface Beam {
  sequence: ModelSequence;
  constraint: ActiveConstraint;
  tokens: number[];
  score: number;
  pending: readonly number[];
}

interface Finished {
  readonly tokens: readonly number[];
  readonly score: number;
  readonly reason: StopReason;
  readonly complete: boolean | null;
}

export async function beamSearch(
  sequence: ModelSequence,
  constraint: ActiveConstraint,
  context: DecodeContext,
  options: DecodeOptions & { readonly beams: number },
): Promise<GenerationOutput> {
  const { beams: width, maxTokens } = options;
  if (!(Number.isInteger(width) && width >= 1 && width <= MAX_BEAMS)) throw new RangeError(`beams must be an integer from 1 to ${MAX_BEAMS}, not ${width}`);
  if (!(Number.isInteger(maxTokens) && maxTokens >= 1)) throw new RangeError(`maxTokens must be a positive integer, not ${maxTokens}`);
  if (options.promptTokens.length === 0) throw new RangeError('the prompt has no tokens (give a prompt, messages, or a tokenizer that adds BOS)');
  // Beams copy the constraint: one that cannot be copied fails here, before any work.
  const probe = constraint.fork();
  if (probe !== constraint) probe.dispose();
  const started = performance.now();
  const { kernel, vocabIndex } = context;
  const eos = new Set(context.eosTokenIds);
  let forwardMs = 0;
  let prefillMs = 0;
  let forwardPasses = 0;
  let maskUs = 0;
  let maskSteps = 0;
  let indexedMasks = 0;
  let active: Beam[] = [{ sequence, constraint, tokens: [], score: 0, pending: options.promptTokens }];
  let next: Beam[] = [];
  const finished: Finished[] = [];
  let stopped: StopReason | null = null;
  const finish = (beam: Beam, reason: StopReason): void =>
    void finished.push({ tokens: beam.tokens, score: beam.score, reason, complete: beam.constraint.accepting() });

  try {
    for (let step = 0; active.length > 0 && finished.length < width; step++) {
      if (options.signal?.aborted) {
        stopped = 'abort';
        for (const beam of active) finish(beam, 'abort');
        break;
      }
      if (step === maxTokens) {
        for (const beam of active) finish(beam, 'length');
        break;
      }
      const candidates: { beam: Beam; token: number; score: number }[] = [];
      for (const beam of active) {
        // 1. Mask. 2. Forward pass. 3. Mask and bias the logits.
        let t = performance.now();
        if (beam.constraint.maskIndexed()) indexedMasks++;
        const mask = beam.constraint.mask();
        maskUs += (performance.now() - t) * 1000;
        maskSteps++;
        if (mask.length > 0 && onlyEos(mask, eos)) {
          finish(beam, 'grammar');
          continue;
        }
        t = performance.now();
        const logits = await beam.sequence.forward(beam.pending);
        if (forwardPasses++ === 0) prefillMs = performance.now() - t;
        else forwardMs += performance.now() - t;
        if (mask.length === 0) logits.fill(-Infinity, vocabIndex.tokenCount);
        else kernel.applyBrle(logits, mask);
        applyLogitBias(logits, mergeBias(beam.constraint.bias, options.sampling.logitBias));
        // 4. The beam's `width` best continuations, by log probability.
        for (const { id, p } of topCandidates(logits, width)) candidates.push({ beam, token: id, score: beam.score + Math.log(p) });
      }
      candidates.sort((a, b) => b.score - a.score);
      // 5. The best `width` continuations survive; an EOS among them finishes its beam.
      const chosen = candidates.slice(0, width);
      const children = new Map<Beam, number[]>();
      for (const { beam, token, score } of chosen) {
        if (eos.has(token)) finished.push({ tokens: beam.tokens, score, reason: 'eos', complete: beam.constraint.accepting() });
        else children.set(beam, [...(children.get(beam) ?? []), token]);
      }
      next = [];
      for (const { beam, token, score } of chosen) {
        if (eos.has(token)) continue;
        const tokens = children.get(beam)!;
        // The last child takes the parent itself; the others get copies made before it commits.
        const child = tokens.length === 1 ? beam : await copy(beam);
        tokens.splice(tokens.indexOf(token), 1);
        next.push(child);
        if (!child.constraint.commit(token)) throw new Error(`internal: beam token ${token} is not allowed by the constraint that masked it`);
        child.tokens = [...child.tokens, token];
        child.score = score;
        child.pending = [token];
      }
      for (const beam of active) if (!next.includes(beam)) await release(beam, sequence);
      active = next;
      next = [];
    }
    if (finished.length === 0) throw new DeadEndError('no beam can continue: the constraint admits no continuation');
  } finally {
    for (const beam of new Set([...active, ...next])) await release(beam, sequence);
  }

  // Complete outputs first; then the best log probability per token.
  const normalized = (f: Finished): number => f.score / Math.max(1, f.tokens.length);
  const best = [...finished].sort((a, b) => Number(b.complete === true) - Number(a.complete === true) || normalized(b) - normalized(a))[0]!;
  const output = new OutputText(vocabIndex);
  for (const [index, token] of best.tokens.entries()) {
    const delta = output.push(token);
    await settle(options.onToken?.({ index, token, text: new TextDecoder().decode(vocabIndex.tokenBytes(token)), delta, forced: false, forwardMs: 0 }));
  }
  const totalMs = performance.now() - started;
  return {
    text: output.text(options.stop, options.stopBefore),
    tokens: best.tokens,
    forcedTokens: 0,
    stopReason: stopped ?? best.reason,
    complete: best.complete,
    healed: '',
    stats: {
      promptTokens: options.promptTokens.length,
      reusedPromptTokens: 0,
      stepUs: UNTIMED_STEPS,
      prefillMs,
      forwardMs,
      forwardPasses,
      maskUsMean: maskSteps === 0 ? 0 : maskUs / maskSteps,
      sampleUsMean: 0,
      indexedMasks,
      budgetRejections: 0,
      totalMs,
      tokensPerSecond: best.tokens.length / (totalMs / 1000),
    },
  };
}

// A copy of a beam: the constraint first (it may refuse), then the model sequence.
async function copy(beam: Beam): Promise<Beam> {
  const constraint = beam.constraint.fork();
  try {
    return { sequence: await beam.sequence.fork(), constraint, tokens: [...beam.tokens], score: beam.score, pending: [] };
  } catch (error) {
    constraint.dispose();
    throw error;
  }
}

// Frees a beam's copies (the caller's own sequence and constraint are freed by the caller).
async function release(beam: Beam, original: ModelSequence): Promise<void> {
  if (beam.sequence !== original) await beam.sequence.dispose();
  beam.constraint.dispose();
}
