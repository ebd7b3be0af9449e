/**
 * The decode loop: one generation from prompt tokens to a stop, step by step. Every step is
 * numbered below as in the package README:
 *   1. constraint mask (a BRLE computed in the kernel; only EOS allowed means done)
 *   2. forward pass over the tokens the model has not seen (prefill first, KV cache after)
 *   3. mask applied to the logits: its allowed runs are what sampling draws from (a mask that
 *      allows most tokens is written into them instead); then the bias
 *   4. sampling
 *   5. commit (constraint, output, stream event); stop checks come first in the next round
 * Fast-forward skips 1–4: when the constraint forces text, its canonical tokens are committed
 * and reach the model with the next forward pass, all at once.
 */
import { bitsetAdd, bitsetWords, brleAllows, brleCount, brleFromBitset, type Brle, type VocabIndex } from '@sieve/format';
import type { Kernel } from '@sieve/kernel';
import { concatBytes, type ActiveConstraint } from './constraints.ts';
import { DeadEndError } from './errors.ts';
import { stepTiming, type StepTiming } from './step-timing.ts';
import type { ModelSequence } from './model.ts';
import {
  allowedMass,
  allowedRanges,
  applyLogitBias,
  applyMask,
  checkSampling,
  Draws,
  logprobsWithin,
  penalizeRepetition,
  Rng,
  topCandidates,
  type SamplingOptions,
} from './sampler.ts';

/** Why a generation stopped. */
export type StopReason = 'grammar' | 'eos' | 'length' | 'stop' | 'abort';

/** A candidate token with its probability (softmax at temperature 1). */
export interface Candidate {
  readonly id: number;
  readonly text: string;
  readonly p: number;
}

/** One generated token, streamed as it is committed. */
export interface TokenEvent {
  /** Position in the output (0 = first generated token). */
  readonly index: number;
  readonly token: number;
  /** The token's bytes as text (a partial UTF-8 character shows as U+FFFD). */
  readonly text: string;
  /**
   * What the token adds to the output's text: a character split across tokens comes whole
   * with the token that completes it, and healed prompt bytes are left out. The deltas in
   * order make the output (before any cut at a stop string).
   */
  readonly delta: string;
  /** Appended by fast-forward, without sampling. */
  readonly forced: boolean;
  /** Tokens the mask allowed (sampled tokens only). */
  readonly allowed?: number;
  /**
   * With `includeMask` (each costs a pass over the vocabulary): the mask this token was
   * sampled under (BRLE), the probability mass the model put on the allowed tokens, and the
   * most likely tokens before and after masking.
   */
  readonly mask?: Uint32Array;
  readonly allowedMass?: number;
  readonly topBefore?: readonly Candidate[];
  readonly topAfter?: readonly Candidate[];
  readonly maskUs?: number;
  readonly sampleUs?: number;
  /** With `logprobs`: the token's log probability (`TokenLogprob`). */
  readonly logprob?: TokenLogprob;
  /** The forward pass that produced this token's logits (0 for forced tokens: no pass of their own). */
  readonly forwardMs: number;
}

/**
 * A token's log probability under the distribution it was drawn from: the model's (after
 * logit bias and repetition penalty, at temperature 1) restricted to the tokens the mask
 * allowed and renormalized — so a forced token (the only one allowed) has 0 — and the most
 * likely alternatives there.
 */
export interface TokenLogprob {
  /** The token's text (a partial UTF-8 character shows as U+FFFD) and its exact bytes. */
  readonly text: string;
  readonly bytes: Uint8Array;
  readonly logprob: number;
  readonly top: readonly { readonly id: number; readonly text: string; readonly bytes: Uint8Array; readonly logprob: number }[];
}

/** Timings of a generation. */
export interface GenerationStats {
  readonly promptTokens: number;
  /** Prompt tokens whose KV cache was kept from the previous generation (a shared prefix): the prefill they saved. */
  readonly reusedPromptTokens: number;
  readonly prefillMs: number;
  readonly forwardMs: number;
  readonly forwardPasses: number;
  readonly maskUsMean: number;
  readonly sampleUsMean: number;
  /**
   * Sampled steps (each beam's steps in beam search) whose mask was read from the constraint's
   * precomputed mask index (a spec's `index`); the others' masks were computed live. 0
   * without an index.
   */
  readonly indexedMasks: number;
  /**
   * Per sampled step, in µs (mean and p99): the mask, applying it (and the bias) to the
   * logits, sampling, committing (forced tokens included), and the rest of the loop
   * (fast-forward, the budget, bookkeeping); the forward pass and callbacks are not in them.
   * `total`: each step's sum of those parts (its p99 is that of the sums, not a sum of p99s).
   * `values`: every sampled step's, in order (percentiles over several generations pool them).
   */
  readonly stepUs: Readonly<Record<'mask' | 'apply' | 'sample' | 'commit' | 'other' | 'total', StepTiming>>;
  /** Draws refused by budget-aware ending (each followed by another draw). */
  readonly budgetRejections: number;
  readonly totalMs: number;
  readonly tokensPerSecond: number;
}

/** What a generation produced. */
export interface GenerationOutput {
  readonly text: string;
  readonly tokens: readonly number[];
  /** How many of `tokens` fast-forward appended. */
  readonly forcedTokens: number;
  readonly stopReason: StopReason;
  /** The constraint accepts the output as a whole (null: it cannot tell, e.g. no constraint). */
  readonly complete: boolean | null;
  /** Prompt text given back by token healing (the output starts with it, `text` does not). */
  readonly healed: string;
  /** With `logprobs`: per token of `tokens`, its log probability. */
  readonly logprobs?: readonly TokenLogprob[];
  readonly stats: GenerationStats;
}

/** Options of one decode loop. */
export interface DecodeOptions {
  readonly promptTokens: readonly number[];
  readonly sampling: SamplingOptions;
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /** Stop strings end only the text before this one (see `GenerateRequest.stopBefore`). */
  readonly stopBefore: string | null;
  readonly fastForward: boolean;
  readonly tokenHealing: boolean;
  readonly includeMask: boolean;
  /** Log probabilities per token with this many alternatives (null: none). */
  readonly logprobs: number | null;
  readonly signal: AbortSignal | undefined;
  /** Called per committed token; a promise it returns is awaited before the next step. */
  readonly onToken: ((event: TokenEvent) => unknown) | undefined;
}

/** What the loop needs besides the model sequence and constraint. */
export interface DecodeContext {
  readonly kernel: Kernel;
  readonly vocabIndex: VocabIndex;
  readonly eosTokenIds: readonly number[];
  /** The text token spelled exactly these bytes, if any. */
  readonly tokenOf: (bytes: Uint8Array) => number | undefined;
  /** The tokenizer's canonical tokens for bytes continuing the output. */
  readonly encodeContinuation: (bytes: Uint8Array) => number[];
}

// Draws the budget may refuse before the proof's first token is taken.
const MAX_BUDGET_REJECTIONS = 64;

export async function decode(sequence: ModelSequence, constraint: ActiveConstraint, context: DecodeContext, options: DecodeOptions): Promise<GenerationOutput> {
  checkSampling(options.sampling);
  if (!(Number.isInteger(options.maxTokens) && options.maxTokens >= 1)) throw new RangeError(`maxTokens must be a positive integer, not ${options.maxTokens}`);
  if (options.promptTokens.length === 0) throw new RangeError('the prompt has no tokens (give a prompt, messages, or a tokenizer that adds BOS)');
  const { vocabIndex } = context;
  const started = performance.now();
  const rng = new Rng(options.sampling.seed ?? Math.floor(Math.random() * 2 ** 32));
  const eos = new Set(context.eosTokenIds);
  // The logit bias, merged once per step (a ThinkThen's inner bias starts with its trigger).
  let bias = mergeBias(constraint.bias, options.sampling.logitBias);
  // Tokens no completion may use: banned by the constraint or by a -Infinity bias.
  const excluded = (token: number): boolean => constraint.banned(token) || bias?.[token] === -Infinity;
  const tokens: number[] = [];
  // Tokens in the context, for the repetition penalty.
  const penalty = options.sampling.repetitionPenalty ?? 1;
  const seen = new Set<number>(penalty === 1 ? [] : options.promptTokens);
  let forcedCount = 0;
  let maskUs = 0;
  let sampleUs = 0;
  let sampledSteps = 0;
  let indexedMasks = 0;
  let forwardMs = 0;
  let forwardPasses = 0;
  // Budget-aware ending: `proof` is a completion of the output that fits in the tokens left,
  // kept true after every commit; null while the budget is off (no completion known, or none
  // fits yet), which is checked again at every step after token healing.
  let proof: Proof | null = null;
  let budgetRejections = 0;
  // A proof for `completion` in `left` tokens, or null: spelled by the longest tokens of the
  // vocabulary (a trie walk), else by the tokenizer (canonical, or a token per byte).
  const proofWithin = (completion: Uint8Array, left: number): Proof | null => {
    const greedy = greedySpelling(completion, vocabIndex, excluded);
    if (greedy !== null && greedy.length <= left) return { bytes: completion, tokens: greedy };
    const spelled = spell(completion, context, excluded);
    return spelled !== null && spelled.length <= left ? { bytes: completion, tokens: spelled } : null;
  };
  // Commits a token; with the budget on, only if a completion still fits after it. The
  // proof's own next token always does; a token writing the proof's next bytes does when the
  // rest of the proof fits; any other keeps the proof if its bytes still complete the output
  // after it (most tokens inside free text), else asks the grammar for the shortest completion.
  let commitMs = 0;
  const commitToken = (token: number): boolean => {
    const t0 = performance.now();
    try {
      return commitWithinBudget(token);
    } finally {
      commitMs += performance.now() - t0;
    }
  };
  const commitWithinBudget = (token: number): boolean => {
    if (proof === null) return constraint.commit(token);
    const bytes = vocabIndex.tokenBytes(token);
    const left = options.maxTokens - tokens.length - 1;
    const rest =
      token === proof.tokens[0]
        ? { bytes: proof.bytes.subarray(bytes.length), tokens: proof.tokens.slice(1) }
        : bytes.length > 0 && startsWith(proof.bytes, bytes)
          ? proofWithin(proof.bytes.subarray(bytes.length), left)
          : null;
    if (rest !== null) {
      if (!constraint.commit(token)) return false;
      proof = rest;
      return true;
    }
    // The proof's bytes, when they still complete the output after the token, keep its tokens.
    const known = proof;
    let next: Proof | null = null;
    const fits = (completion: Uint8Array): boolean =>
      (next = completion === known.bytes ? (known.tokens.length <= left ? known : null) : proofWithin(completion, left)) !== null;
    if (!constraint.commitWithin(token, fits, known.bytes)) return false;
    proof = next;
    return true;
  };
  // During healing the budget holds through `healProof`, a spelling of the healed bytes left
  // and a completion after them, found again at every healing step: a healing token fits when
  // it is the proof's first, or a prefix of the healed bytes after which the rest of the proof
  // is spelled in the tokens left, or an extension after whose extra bytes a completion is.
  let healProof: Proof | null = null;
  const healingFits = (token: number, heal: Uint8Array, proof: Proof): boolean => {
    if (token === proof.tokens[0]) return true;
    const bytes = vocabIndex.tokenBytes(token);
    const left = options.maxTokens - tokens.length - 1;
    if (bytes.length <= heal.length) return proofWithin(proof.bytes.subarray(bytes.length), left) !== null;
    const extra = bytes.subarray(heal.length);
    if (startsWith(proof.bytes, bytes) && proofWithin(proof.bytes.subarray(bytes.length), left) !== null) return true;
    const probe = constraint.fork();
    try {
      const completion = probe.commitBytes(extra) ? probe.completion() : null;
      return completion !== null && proofWithin(completion, left) !== null;
    } finally {
      probe.dispose();
    }
  };
  const output = new OutputText(vocabIndex);
  const logprobs: TokenLogprob[] | null = options.logprobs === null ? null : [];
  const tokenText = (id: number): string => new TextDecoder().decode(vocabIndex.tokenBytes(id));
  const tokenBytes = (id: number): Uint8Array => vocabIndex.tokenBytes(id).slice();

  // Token healing: give the last prompt token back, so the first output token may extend it
  // — unless the output then no longer fits in the budget where it would without healing.
  let prompt = options.promptTokens;
  let heal = options.tokenHealing ? healableBytes(prompt, vocabIndex, constraint) : null;
  // (The constraint takes nothing while healing lasts: its completion is found once.)
  const healCompletion = heal === null ? null : constraint.completion();
  if (heal !== null && healCompletion !== null) {
    if (proofWithin(concatBytes(heal, healCompletion), options.maxTokens) === null && proofWithin(healCompletion, options.maxTokens) !== null) heal = null;
  }
  if (heal !== null) prompt = prompt.slice(0, -1);
  output.skip(heal?.length ?? 0);
  const healed = new TextDecoder().decode(heal ?? new Uint8Array(0));

  // Tokens the model has not seen yet: the prompt, then each committed token. They are fed
  // in one forward pass when logits are next needed, so forced tokens ride along.
  // A sequence may hold a prefix of the prompt already (a kept KV cache): not fed again.
  const reused = sequence.length;
  if (reused >= prompt.length || sequence.tokens.some((token, i) => token !== prompt[i]))
    throw new RangeError(`the sequence's ${reused} tokens are not a proper prefix of the prompt`);
  let pending: readonly number[] = prompt.slice(reused);
  let prefillMs = 0;

  const finish = (reason: StopReason): GenerationOutput => {
    const totalMs = performance.now() - started;
    return {
      text: output.text(options.stop, options.stopBefore),
      tokens,
      forcedTokens: forcedCount,
      stopReason: reason,
      complete: heal === null && reason !== 'stop' ? constraint.accepting() : false,
      healed,
      ...(logprobs === null ? {} : { logprobs }),
      stats: {
        promptTokens: options.promptTokens.length,
        reusedPromptTokens: reused,
        prefillMs,
        forwardMs,
        forwardPasses,
        maskUsMean: sampledSteps === 0 ? 0 : maskUs / sampledSteps,
        sampleUsMean: sampledSteps === 0 ? 0 : sampleUs / sampledSteps,
        indexedMasks,
        stepUs: {
          mask: stepTiming(stepTimes.mask),
          apply: stepTiming(stepTimes.apply),
          sample: stepTiming(stepTimes.sample),
          commit: stepTiming(stepTimes.commit),
          other: stepTiming(stepTimes.other),
          total: stepTiming(stepTimes.total),
        },
        budgetRejections,
        totalMs,
        tokensPerSecond: tokens.length / (totalMs / 1000),
      },
    };
  };

  // Per sampled step, µs; a step runs from the end of the last sampled one.
  const stepTimes = {
    mask: [] as number[],
    apply: [] as number[],
    sample: [] as number[],
    commit: [] as number[],
    other: [] as number[],
    total: [] as number[],
  };
  let stepStart = performance.now();
  let stepCallbackMs = 0;
  let stepCommitMsBefore = 0;
  for (;;) {
    bias = mergeBias(constraint.bias, options.sampling.logitBias);
    if (options.signal?.aborted) return finish('abort');
    if (output.hasStop(options.stop, options.stopBefore)) return finish('stop');
    if (tokens.length >= options.maxTokens) return finish('length');

    if (proof === null && heal === null) {
      const completion = constraint.completion();
      proof = completion === null ? null : proofWithin(completion, options.maxTokens - tokens.length);
    } else if (heal !== null) {
      healProof = healCompletion === null ? null : proofWithin(concatBytes(heal, healCompletion), options.maxTokens - tokens.length);
    }

    // Fast-forward: commit what the constraint forces; the model sees it with the next pass.
    // A forced token a bias bans, or the budget refuses, ends the run: the rest is sampled.
    if (options.fastForward && heal === null) {
      const forced: number[] = [];
      for (const token of constraint.forced()) {
        if (tokens.length >= options.maxTokens || bias?.[token] === -Infinity || !commitToken(token)) break;
        tokens.push(token);
        if (penalty !== 1) seen.add(token);
        const delta = output.push(token);
        forced.push(token);
        // The only token allowed: probability 1.
        const logprob =
          logprobs === null
            ? undefined
            : {
                text: tokenText(token),
                bytes: tokenBytes(token),
                logprob: 0,
                top: options.logprobs! > 0 ? [{ id: token, text: tokenText(token), bytes: tokenBytes(token), logprob: 0 }] : [],
              };
        if (logprob !== undefined) logprobs!.push(logprob);
        forcedCount++;
        const called = performance.now();
        await settle(
          options.onToken?.({
            index: tokens.length - 1,
            token,
            text: tokenText(token),
            delta,
            forced: true,
            forwardMs: 0,
            ...(logprob === undefined ? {} : { logprob }),
          }),
        );
        stepCallbackMs += performance.now() - called;
      }
      if (forced.length > 0) {
        pending = [...pending, ...forced];
        continue;
      }
    }

    // 1. The constraint's mask (during healing: tokens that extend the healed bytes).
    let t = performance.now();
    const fromIndex = heal === null && constraint.maskIndexed();
    const mask = heal === null ? constraint.mask() : healingMask(heal, vocabIndex, constraint);
    const stepMaskUs = (performance.now() - t) * 1000;
    maskUs += stepMaskUs;
    // The output is complete and nothing may follow: only EOS is allowed.
    if (heal === null && mask.length > 0 && onlyEos(mask, eos)) return finish('grammar');

    // 2. Forward pass over the tokens the model has not seen (the prompt first: prefill).
    t = performance.now();
    const logits = await sequence.forward(pending);
    const lastForwardMs = performance.now() - t;
    if (forwardPasses === 0) prefillMs = lastForwardMs;
    else forwardMs += lastForwardMs;
    forwardPasses++;
    if (options.signal?.aborted) return finish('abort');

    // 3. The mask's allowed runs become the ranges the sampler draws from (no copy of the
    // logits, nothing written per masked token) — or, where it allows most of the vocabulary,
    // it is written into the logits (-Infinity over its fewer disallowed runs) and the draw
    // reads them all, as an unconstrained one does (`applyMask`). Special tokens past the
    // model's logits, Gemma 3's image token, are out of range. Then the logit bias is added in
    // place. The logits as the model gave them are kept only for a stream that shows the mask's effect.
    t = performance.now();
    const before = options.includeMask && options.onToken !== undefined ? logits.slice() : null;
    const allowed = applyMask(logits, mask, Math.min(logits.length, vocabIndex.tokenCount));
    applyLogitBias(logits, bias);
    const stepApplyUs = (performance.now() - t) * 1000;
    t = performance.now();
    const commitMsBeforeSample = commitMs;

    // 4. Sample. With the budget on, a token after which the output cannot be completed in
    // the tokens left is refused and the draw repeated (sampling from the renormalised
    // feasible set, from the first draw's weights); after many refusals the proof's first
    // token is taken. (5. commits it.)
    if (penalty !== 1) penalizeRepetition(logits, seen, penalty);
    // (Before budget refusals take tokens out: the distribution the draw started from.)
    const drawn = logprobs === null ? null : logprobsWithin(logits, options.logprobs!, allowed);
    const draws = new Draws(logits, options.sampling, rng, allowed);
    let token = draws.next();
    let committed = false;
    if (heal === null) {
      for (let refused = 1; token >= 0 && !eos.has(token); refused++) {
        if (commitToken(token)) {
          committed = true;
          break;
        }
        budgetRejections++;
        draws.refuse(token);
        if (refused < MAX_BUDGET_REJECTIONS || proof === null) {
          token = draws.next();
          continue;
        }
        // Many refusals: follow the proof — its first token, or EOS when the output is complete.
        if (proof.tokens.length === 0) {
          token = context.eosTokenIds.find((id) => mask.length === 0 || brleAllows(mask, id)) ?? -1;
          break;
        }
        token = proof.tokens[0]!;
        if (!commitToken(token)) throw new Error(`internal: the budget's proof token ${token} was refused`);
        committed = true;
        break;
      }
    } else if (healProof !== null) {
      for (let refused = 1; token >= 0 && !healingFits(token, heal, healProof); refused++) {
        budgetRejections++;
        draws.refuse(token);
        if (refused < MAX_BUDGET_REJECTIONS) {
          token = draws.next();
          continue;
        }
        token = healProof.tokens[0]!;
        break;
      }
    }
    const stepSampleUs = (performance.now() - t - (commitMs - commitMsBeforeSample)) * 1000;
    sampleUs += stepSampleUs;
    sampledSteps++;
    if (fromIndex) indexedMasks++;
    if (token < 0)
      throw new DeadEndError(
        tokens.length === 0
          ? 'no token is allowed at the start: the constraint admits no output (a JSON Schema no value satisfies, such as false or bounds that contradict each other, a grammar that matches nothing, or every token it needs banned)'
          : `no token is allowed after ${tokens.length} generated tokens (${JSON.stringify(output.text([]))}): the constraint admits no continuation`,
      );

    // 5. Commit.
    if (eos.has(token) && heal === null) return finish('eos');
    if (heal !== null) {
      const bytes = vocabIndex.tokenBytes(token);
      if (bytes.length <= heal.length) {
        heal = bytes.length === heal.length ? null : heal.subarray(bytes.length);
      } else {
        if (!constraint.commitBytes(bytes.subarray(heal.length))) throw new Error(`internal: healing token ${token} was rejected`);
        heal = null;
      }
    } else if (!committed) {
      throw new Error(`internal: sampled token ${token} is not allowed by the constraint that masked it`);
    }
    tokens.push(token);
    if (penalty !== 1) seen.add(token);
    const delta = output.push(token);
    pending = [token];
    const logprob =
      drawn === null
        ? undefined
        : {
            text: tokenText(token),
            bytes: tokenBytes(token),
            logprob: drawn.of(token),
            top: drawn.top.map(({ id, logprob }) => ({ id, text: tokenText(id), bytes: tokenBytes(id), logprob })),
          };
    if (logprob !== undefined) logprobs!.push(logprob);
    const stepCommitUs = (commitMs - stepCommitMsBefore) * 1000;
    const stepTotalUs = (performance.now() - stepStart - stepCallbackMs - lastForwardMs) * 1000;
    stepTimes.mask.push(stepMaskUs);
    stepTimes.apply.push(stepApplyUs);
    stepTimes.sample.push(stepSampleUs);
    stepTimes.commit.push(stepCommitUs);
    stepTimes.other.push(Math.max(0, stepTotalUs - stepMaskUs - stepApplyUs - stepSampleUs - stepCommitUs));
    stepTimes.total.push(Math.max(stepTotalUs, stepMaskUs + stepApplyUs + stepSampleUs + stepCommitUs));
    if (options.onToken !== undefined) {
      const candidates = (source: Float32Array, ranges?: Int32Array): Candidate[] =>
        topCandidates(source, 5, ranges).map(({ id, p }) => ({ id, p, text: tokenText(id) }));
      await settle(
        options.onToken({
          index: tokens.length - 1,
          token,
          text: tokenText(token),
          delta,
          forced: false,
          ...(logprob === undefined ? {} : { logprob }),
          allowed: brleCount(mask, vocabIndex.tokenCount),
          // What the mask did to the distribution (a pass over the vocabulary each): with the mask only.
          ...(before === null
            ? {}
            : {
                mask: mask.slice(),
                // (The mask's own runs: `allowed` may be every id, the mask written into the logits.)
                allowedMass: allowedMass(before, allowedRanges(mask, Math.min(before.length, vocabIndex.tokenCount))),
                topBefore: candidates(before),
                topAfter: candidates(logits, allowed),
              }),
          maskUs: stepMaskUs,
          sampleUs: stepSampleUs,
          forwardMs: lastForwardMs,
        }),
      );
    }
    stepStart = performance.now();
    stepCallbackMs = 0;
    stepCommitMsBefore = commitMs;
  }
}

/** A completion of the output: its bytes, and tokens that write them. */
interface Proof {
  readonly bytes: Uint8Array;
  readonly tokens: readonly number[];
}

/** `stepUs` of a search that does not time its steps one by one (beam search). */
export const UNTIMED_STEPS: GenerationStats['stepUs'] = {
  mask: stepTiming([]),
  apply: stepTiming([]),
  sample: stepTiming([]),
  commit: stepTiming([]),
  other: stepTiming([]),
  total: stepTiming([]),
};

/**
 * Tokens that write `bytes` exactly: the tokenizer's canonical split when it spells them, else
 * one token per byte; null when neither exists. Its length is what finishing costs in tokens.
 */
function spell(bytes: Uint8Array, context: DecodeContext, excluded: (token: number) => boolean): number[] | null {
  const canonical = context.encodeContinuation(bytes);
  let at = 0;
  for (const id of canonical) {
    const piece = context.vocabIndex.tokenBytes(id);
    for (let i = 0; i < piece.length; i++) if (bytes[at + i] !== piece[i]) at = -Infinity;
    at += piece.length;
  }
  if (at === bytes.length && !canonical.some(excluded)) return canonical;
  const perByte = Array.from(bytes, (b) => context.tokenOf(Uint8Array.of(b)));
  return perByte.every((id) => id !== undefined && !excluded(id)) ? (perByte as number[]) : null;
}

/** `bytes` written by the longest token at each point (none excluded), or null where none can. */
export function greedySpelling(bytes: Uint8Array, vocab: VocabIndex, excluded: (token: number) => boolean): number[] | null {
  const tokens: number[] = [];
  for (let at = 0; at < bytes.length;) {
    const { token, length } = vocab.longestTokenAt(bytes, at);
    if (token < 0 || excluded(token)) return null;
    tokens.push(token);
    at += length;
  }
  return tokens;
}

/** Awaits `value` if it is a promise (what `onToken` returned), else nothing. */
export async function settle(value: unknown): Promise<void> {
  if (value instanceof Promise) await value;
}

export function onlyEos(mask: Brle, eos: ReadonlySet<number>): boolean {
  let allowed = 0;
  for (const id of eos) if (brleAllows(mask, id)) allowed++;
  return allowed > 0 && brleCount(mask) === allowed;
}

export function mergeBias(
  a: Readonly<Record<number, number>> | undefined,
  b: Readonly<Record<number, number>> | undefined,
): Readonly<Record<number, number>> | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const sum: Record<number, number> = { ...a };
  for (const [id, value] of Object.entries(b)) sum[Number(id)] = (sum[Number(id)] ?? 0) + value;
  return sum;
}

/**
 * The last prompt token's bytes if healing it can matter: it is a text token, some longer
 * token starts with its bytes, and the constraint can judge bytes (a custom constraint or a
 * token ban cannot). Null otherwise.
 */
function healableBytes(prompt: readonly number[], vocab: VocabIndex, constraint: ActiveConstraint): Uint8Array | null {
  if (prompt.length < 2) return null;
  const last = prompt[prompt.length - 1]!;
  if (!vocab.isTextToken(last) || constraint.acceptsBytes(new Uint8Array(0)) !== true) return null;
  const bytes = vocab.tokenBytes(last);
  let extensions = 0;
  for (let id = 0; id < vocab.tokenCount; id++) {
    if (id !== last && vocab.isTextToken(id) && vocab.tokenBytes(id).length > bytes.length && startsWith(vocab.tokenBytes(id), bytes)) extensions++;
  }
  // Each extension is checked against the constraint on a copy of its matcher: a prompt ending
  // in a piece thousands of tokens extend (a space, on a large vocabulary) is not healed.
  return extensions > 0 && extensions <= MAX_HEALING_EXTENSIONS ? bytes.slice() : null;
}

// Tokens that may extend the healed piece, at most (see healableBytes).
const MAX_HEALING_EXTENSIONS = 2048;

/** Tokens that may come next while `heal` (the given-back prompt bytes) is not yet written again. */
function healingMask(heal: Uint8Array, vocab: VocabIndex, constraint: ActiveConstraint): Brle {
  const bits = new Uint32Array(bitsetWords(vocab.tokenCount));
  for (let id = 0; id < vocab.tokenCount; id++) {
    if (!vocab.isTextToken(id)) continue;
    const bytes = vocab.tokenBytes(id);
    if (bytes.length === 0) continue;
    if (bytes.length <= heal.length ? startsWith(heal, bytes) : startsWith(bytes, heal) && constraint.acceptsBytes(bytes.subarray(heal.length)) === true)
      bitsetAdd(bits, id);
  }
  return brleFromBitset(bits, vocab.tokenCount);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** The output as bytes, decoded as it grows; skips the healed prompt bytes at its start. */
export class OutputText {
  readonly #vocab: VocabIndex;
  readonly #decoder = new TextDecoder();
  #bytes = new Uint8Array(256);
  #length = 0;
  #skip = 0;
  // Text decoded so far (a partial character at the end waits), and how far stops were searched.
  #text = '';
  #searched = 0;
  // Where `before` of `hasStop` begins in the text, once written (-1: not yet).
  #before = -1;

  constructor(vocab: VocabIndex) {
    this.#vocab = vocab;
  }

  skip(bytes: number): void {
    this.#skip = bytes;
  }

  /** Appends `token`; returns the text it adds (a partial character waits for the rest). */
  push(token: number): string {
    const bytes = this.#vocab.tokenBytes(token);
    if (this.#length + bytes.length > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + bytes.length));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(bytes, this.#length);
    const skipped = Math.max(0, Math.min(bytes.length, this.#skip - this.#length));
    this.#length += bytes.length;
    const delta = this.#decoder.decode(bytes.subarray(skipped), { stream: true });
    this.#text += delta;
    return delta;
  }

  /** The text, cut before the first stop string that lies wholly before `before` (if any). */
  text(stop: readonly string[], before: string | null = null): string {
    const text = new TextDecoder().decode(this.#bytes.subarray(Math.min(this.#skip, this.#length), this.#length));
    const at = before === null ? -1 : text.indexOf(before);
    const free = text.slice(0, at < 0 ? text.length : at);
    let end = text.length;
    for (const s of stop) {
      const found = free.indexOf(s);
      if (found >= 0 && found < end) end = found;
    }
    return text.slice(0, end);
  }

  /**
   * Whether a stop string appeared before `before` (if any): only the text new since the last
   * call is searched, and a beginning of `before` at the end waits (it may be one yet).
   */
  hasStop(stop: readonly string[], before: string | null = null): boolean {
    if (stop.length === 0) return false;
    const longest = stop.reduce((most, s) => Math.max(most, s.length), 0);
    const from = Math.max(0, this.#searched - longest + 1);
    const end = this.#freeTextEnd(before);
    if (end <= this.#searched) return false;
    this.#searched = end;
    const tail = this.#text.slice(from, end);
    return stop.some((s) => tail.includes(s));
  }

  // Where the text may hold stop strings: before the first `before`, and short of a beginning
  // of it at the end. (It cannot begin before the text searched: a beginning of it waits.)
  #freeTextEnd(before: string | null): number {
    const text = this.#text;
    if (before === null || before === '') return text.length;
    if (this.#before < 0) this.#before = text.indexOf(before, this.#searched);
    if (this.#before >= 0) return this.#before;
    for (let n = Math.min(before.length - 1, text.length); n > 0; n--) if (text.endsWith(before.slice(0, n))) return text.length - n;
    return text.length;
  }
}
