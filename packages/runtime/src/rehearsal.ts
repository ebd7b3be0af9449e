/**
 * A compiled grammar's rehearsal (`compile`'s warm-up): the decode loop run once over it with
 * a stand-in model whose logits are all equal, so each step draws uniformly among the tokens
 * the mask allows. What the grammar builds on first use — lexer states and their token
 * slices, lazily lowered rules, masks in its cache, the completion analysis budget-aware
 * ending reads, the forced-token encodings — is then built at compile time, within a time
 * budget, instead of in the first generation's steps. It changes no result: only caches.
 */
import { activate, type ConstraintContext, type Grammar } from './constraints.ts';
import { decode, type DecodeContext } from './decode-loop.ts';
import type { ModelSequence } from './model.ts';

/** Tokens a rehearsal writes at most (budget-aware ending closes the output within them). */
export const REHEARSAL_TOKENS = 256;

/** What a rehearsal did: its tokens, and whether the output was complete. */
export interface Rehearsal {
  readonly tokens: number;
  readonly complete: boolean;
}

/**
 * Rehearses `grammar` for at most `budgetMs` (stopped at the first step past it, or when
 * `signal` aborts), with a model of `logitCount` logits. Errors the walk meets (a dead end, a
 * limit) are not thrown: a generation taking that path meets them.
 */
export async function rehearse(
  grammar: Grammar,
  context: ConstraintContext & DecodeContext,
  logitCount: number,
  budgetMs: number,
  signal?: AbortSignal,
): Promise<Rehearsal> {
  const started = performance.now();
  const stop = new AbortController();
  signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const constraint = activate(grammar, context);
  try {
    const output = await decode(new EvenLogits(logitCount), constraint, context, {
      promptTokens: [0],
      sampling: { seed: 1, temperature: 1 },
      maxTokens: REHEARSAL_TOKENS,
      stop: [],
      stopBefore: null,
      fastForward: true,
      tokenHealing: false,
      includeMask: false,
      logprobs: null,
      signal: stop.signal,
      onToken: () => {
        if (performance.now() - started >= budgetMs) stop.abort();
      },
    });
    return { tokens: output.tokens.length, complete: output.complete === true };
  } catch {
    return { tokens: 0, complete: false };
  } finally {
    constraint.dispose();
  }
}

// The stand-in model: every logit 0 (one buffer, reset at each pass: the loop writes to it).
class EvenLogits implements ModelSequence {
  readonly #logits: Float32Array;
  readonly #tokens: number[] = [];

  constructor(size: number) {
    this.#logits = new Float32Array(size);
  }

  get length(): number {
    return this.#tokens.length;
  }

  get tokens(): readonly number[] {
    return this.#tokens;
  }

  prefix(): null {
    return null;
  }

  async forward(tokens: readonly number[]): Promise<Float32Array> {
    for (const token of tokens) this.#tokens.push(token);
    return this.#logits.fill(0);
  }

  async fork(): Promise<ModelSequence> {
    throw new Error('internal: a rehearsal has one sequence');
  }

  async dispose(): Promise<void> {}
}
