// The decode loop's behaviours on the real stories260K model: fast-forward, cancellation,
// composition, custom constraints, think-then-constrain, stops, token healing, the
// distribution masked sampling draws from, and the engine's APIs and errors.
import { brleAllowedIds, brleFromBitset, bitsetAdd, bitsetWords, VocabIndex } from '@sieve/format';
import { InvalidSchemaError, Matcher } from '@sieve/grammar';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { AllOf, BanTokens, JsonSchema, LogitBias, Regex, ThinkThen, type Constraint } from '../src/constraint-specs.ts';
import { activate, Grammar, keptCompletions, type ConstraintContext } from '../src/constraints.ts';
import { tokenLookup } from '../src/continuation.ts';
import { beamSearch } from '../src/beam-search.ts';
import type { ChatCompletionChunk } from '../src/chat-completions.ts';
import { decode, greedySpelling, OutputText, type DecodeOptions } from '../src/decode-loop.ts';
import { InThreadEngine } from '../src/engine.ts';
import { DeadEndError, NotLoadedError } from '../src/errors.ts';
import { loadModel, type LoadedModel, type LoadProgress, type ModelSequence } from '../src/model.ts';
import { Rng, sampleToken, samplingDistribution } from '../src/sampler.ts';
import { stepTiming } from '../src/step-timing.ts';
import { chiSquare, chiSquareCritical } from './support/chi-square.ts';
import { kernelContext, STORIES_260K, STORIES_VOCAB, storiesEngine } from './support/engine.ts';
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';

const PROMPT = 'Once upon a time, there was a little girl named Lily.';
const PERSON = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 12 }, friends: { type: 'array', items: { type: 'string', maxLength: 8 }, maxItems: 3 } },
  required: ['name', 'friends'],
  additionalProperties: false,
};

let engine: InThreadEngine;
let vocabIndex: VocabIndex;
beforeAll(async () => {
  engine = await storiesEngine();
  vocabIndex = new VocabIndex(new Uint8Array(readFileSync(STORIES_VOCAB)));
});
afterAll(() => engine.dispose());

describe('fast-forward', () => {
  // The decode loop run directly, to compare feeding forced tokens in one forward pass with
  // feeding them one pass each.
  let model: LoadedModel;
  let kernel: Kernel;
  let vocab: KernelVocab;
  let context: ConstraintContext;
  beforeAll(async () => {
    model = await loadModel({ model: STORIES_260K, device: 'cpu' });
    kernel = await loadKernel();
    context = kernelContext(kernel, vocabIndex, (text) => model.tokenizer.encode(text, { add_special_tokens: false }));
    vocab = context.vocab;
  });
  afterAll(async () => {
    vocab.dispose();
    kernel.dispose();
    await model.dispose();
  });

  const options = (overrides: Partial<DecodeOptions>): DecodeOptions => ({
    promptTokens: model.tokenizer.encode(PROMPT),
    sampling: { temperature: 0 },
    maxTokens: 80,
    stop: [],
    stopBefore: null,
    fastForward: true,
    tokenHealing: false,
    includeMask: false,
    logprobs: null,
    signal: undefined,
    onToken: undefined,
    ...overrides,
  });
  const run = async (sequence: ModelSequence, overrides: Partial<DecodeOptions>): Promise<{ tokens: readonly number[]; forced: number; passes: number }> => {
    const constraint = activate(JsonSchema(PERSON), context);
    try {
      const out = await decode(
        sequence,
        constraint,
        { kernel, vocabIndex, eosTokenIds: context.eosTokenIds, tokenOf: tokenLookup(vocabIndex), encodeContinuation: context.encodeContinuation },
        options(overrides),
      );
      return { tokens: out.tokens, forced: out.forcedTokens, passes: out.stats.forwardPasses };
    } finally {
      constraint.dispose();
      await sequence.dispose();
    }
  };
  // A sequence that feeds every token in a forward pass of its own.
  const oneByOne = (inner: ModelSequence): ModelSequence => ({
    get length() {
      return inner.length;
    },
    get tokens() {
      return inner.tokens;
    },
    prefix: () => null,
    async forward(tokens) {
      let logits: Float32Array = new Float32Array(0);
      for (const t of tokens) logits = await inner.forward([t]);
      return logits;
    },
    fork: () => inner.fork(),
    dispose: () => inner.dispose(),
  });

  it('feeds forced tokens in one pass with the same greedy output as one pass each', async () => {
    const batched = await run(model.startSequence(), {});
    const stepwise = await run(oneByOne(model.startSequence()), {});
    expect(batched.forced).toBeGreaterThan(5);
    expect(batched.tokens).toEqual(stepwise.tokens);
    // Forced tokens ride along with the next pass: fewer passes than tokens.
    expect(batched.passes).toBeLessThan(batched.tokens.length);
  });

  it('beam search with one beam is greedy decoding', async () => {
    const context2 = { kernel, vocabIndex, eosTokenIds: context.eosTokenIds, tokenOf: tokenLookup(vocabIndex), encodeContinuation: context.encodeContinuation };
    const greedy = activate(JsonSchema(PERSON), context);
    const beam = activate(JsonSchema(PERSON), context);
    const [a, b] = [model.startSequence(), model.startSequence()];
    try {
      const plain = await decode(a, greedy, context2, options({ fastForward: false }));
      const beamed = await beamSearch(b, beam, context2, { ...options({}), beams: 1 });
      expect(beamed.tokens).toEqual(plain.tokens);
    } finally {
      greedy.dispose();
      beam.dispose();
      await a.dispose();
      await b.dispose();
    }
  });

  it('a forked sequence continues exactly like the original', async () => {
    const original = model.startSequence();
    await original.forward(model.tokenizer.encode(PROMPT));
    const copy = await original.fork();
    const next = model.tokenizer.encode(' She', { add_special_tokens: false });
    expect(Array.from(await copy.forward(next))).toEqual(Array.from(await original.forward(next)));
    expect(copy.length).toBe(original.length);
    await copy.dispose();
    await original.dispose();
  });

  it('appends only tokens the grammar forces, in the tokenizer’s canonical split', async () => {
    const forcedTexts: string[] = [];
    await engine.generate({
      prompt: PROMPT,
      constraint: JsonSchema(PERSON),
      sampling: { temperature: 0 },
      maxTokens: 80,
      onToken: (e) => e.forced && forcedTexts.push(e.text),
    });
    // Once a key is chosen its rest is forced (`ame": ` after `"n`): canonical tokens, not bytes.
    expect(forcedTexts.join('')).toContain('": ');
    expect(forcedTexts.length).toBeLessThan(forcedTexts.join('').length);
  });

  it('can be turned off: every token is then sampled', async () => {
    const result = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(PERSON), sampling: { temperature: 0 }, maxTokens: 80, fastForward: false });
    expect(result.forcedTokens).toBe(0);
    expect(ajvValidator(PERSON)(JSON.parse(result.text))).toBe(true);
  });
});

describe('streaming, stopping and cancelling', () => {
  it('streams every token with its step stats', async () => {
    const events: Parameters<NonNullable<Parameters<InThreadEngine['generate']>[0]['onToken']>>[0][] = [];
    const result = await engine.generate({
      prompt: PROMPT,
      constraint: JsonSchema(PERSON),
      sampling: { seed: 3 },
      maxTokens: 60,
      includeMask: true,
      onToken: (e) => events.push(e),
    });
    expect(events.map((e) => e.token)).toEqual(result.tokens);
    expect(events.map((e) => e.index)).toEqual(result.tokens.map((_, i) => i));
    for (const e of events.filter((e) => !e.forced)) {
      expect(e.allowed).toBeGreaterThan(0);
      expect(e.allowedMass).toBeGreaterThan(0);
      expect(e.allowedMass).toBeLessThanOrEqual(1 + 1e-9);
      expect(e.topAfter!.length).toBeGreaterThan(0);
      // The sampled token was allowed by the mask it came with.
      const allowed = new Set(brleAllowedIds(e.mask!));
      expect(allowed.has(e.token)).toBe(true);
      expect(e.topAfter!.every((c) => allowed.has(c.id))).toBe(true);
    }
    // Each step's total is the sum of its parts: its mean is theirs, its p99 at most the sum of theirs.
    const { total, ...parts } = result.stats.stepUs;
    const sum = (key: 'mean' | 'p99'): number => Object.values(parts).reduce((s, part) => s + part[key], 0);
    expect(total.mean).toBeGreaterThan(0);
    expect(Math.abs(total.mean - sum('mean'))).toBeLessThanOrEqual(0.6);
    expect(total.p99).toBeLessThanOrEqual(sum('p99') + 0.6);
    expect(total.p99).toBeGreaterThanOrEqual(Math.max(...Object.values(parts).map((part) => part.p99)) - 0.1);
    // Every sampled step's values are kept, in order: the mean and p99 are theirs, a total is its parts' sum.
    const sampled = events.filter((e) => !e.forced).length;
    for (const timing of [total, ...Object.values(parts)]) {
      expect(timing.values).toHaveLength(sampled);
      const pooled = stepTiming(timing.values);
      expect(pooled.p99).toBe(timing.p99);
      expect(Math.abs(pooled.mean - timing.mean)).toBeLessThanOrEqual(0.1 + 1e-9); // (of the values rounded)
    }
    total.values.forEach((value, i) => expect(Math.abs(value - Object.values(parts).reduce((s, part) => s + part.values[i]!, 0))).toBeLessThanOrEqual(0.6));
  });

  it('stops within one step of an abort', async () => {
    const controller = new AbortController();
    const result = await engine.generate({
      prompt: PROMPT,
      maxTokens: 100,
      sampling: { seed: 1 },
      signal: controller.signal,
      onToken: (e) => e.index === 2 && controller.abort(),
    });
    expect(result.stopReason).toBe('abort');
    expect(result.tokens.length).toBe(3);
  });

  it('stops at a stop string and cuts the text before it', async () => {
    const result = await engine.generate({ prompt: PROMPT, sampling: { temperature: 0 }, maxTokens: 100, stop: ['.'] });
    expect(result.stopReason).toBe('stop');
    expect(result.text).not.toContain('.');
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('ends on the grammar: only EOS allowed means done, without another forward pass', async () => {
    const result = await engine.generate({ prompt: PROMPT, constraint: Regex('(yes|no)'), sampling: { temperature: 0 } });
    expect(result.stopReason).toBe('grammar');
    expect(['yes', 'no']).toContain(result.text);
    expect(result.complete).toBe(true);
  });
});

describe('composition and custom constraints', () => {
  it('AllOf with BanTokens: banned tokens never appear, the schema still holds', async () => {
    // Ban every token spelling a vowel-only piece of a name's likely start.
    const banned: number[] = [];
    for (let id = 0; id < vocabIndex.tokenCount; id++) if (/^ ?[A-Z]/.test(new TextDecoder().decode(vocabIndex.tokenBytes(id)))) banned.push(id);
    expect(banned.length).toBeGreaterThan(10);
    for (const seed of [1, 2, 3]) {
      const result = await engine.generate({ prompt: PROMPT, constraint: AllOf(JsonSchema(PERSON), BanTokens(banned)), sampling: { seed }, maxTokens: 80 });
      expect(result.tokens.filter((t) => banned.includes(t))).toEqual([]);
      expect(result.complete).toBe(true);
      expect(ajvValidator(PERSON)(JSON.parse(result.text))).toBe(true);
    }
  });

  it('bans hold for fast-forwarded tokens and for the budget’s completions too', async () => {
    // Multi-byte tokens with an m, an f or a colon are banned: the forced keys ("name",
    // "friends") and separators must be written with other tokens.
    const banned: number[] = [];
    for (let id = 0; id < vocabIndex.tokenCount; id++) {
      const bytes = vocabIndex.tokenBytes(id);
      if (bytes.length > 1 && (bytes.includes(0x6d) || bytes.includes(0x66) || bytes.includes(0x3a))) banned.push(id);
    }
    expect(banned.length).toBeGreaterThan(3);
    for (const maxTokens of [40, 80]) {
      const result = await engine.generate({ prompt: PROMPT, constraint: AllOf(JsonSchema(PERSON), BanTokens(banned)), sampling: { seed: 2 }, maxTokens });
      expect(result.tokens.filter((t) => banned.includes(t))).toEqual([]);
      expect(result.complete, result.text).toBe(true);
      const bias = Object.fromEntries(banned.map((id) => [id, -Infinity]));
      const biased = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(PERSON), sampling: { seed: 2, logitBias: bias }, maxTokens });
      expect(biased.tokens.filter((t) => banned.includes(t))).toEqual([]);
      expect(biased.complete, biased.text).toBe(true);
    }
  });

  it('a ThinkThen’s inner bias applies once the trigger is out', async () => {
    const the = tokenLookup(vocabIndex)(new TextEncoder().encode(' the'))!;
    const free = await engine.generate({ prompt: PROMPT, sampling: { temperature: 0 }, maxTokens: 40 });
    const cut = free.text.indexOf('.');
    expect(cut).toBeGreaterThanOrEqual(0);
    const result = await engine.generate({
      prompt: PROMPT,
      constraint: ThinkThen('.', LogitBias({ [the]: -Infinity })),
      sampling: { temperature: 0 },
      maxTokens: 40,
    });
    const after = result.tokens.slice(
      result.tokens.findIndex((_, i) =>
        new TextDecoder().decode(Uint8Array.from(result.tokens.slice(0, i + 1).flatMap((t) => [...vocabIndex.tokenBytes(t)]))).includes('.'),
      ) + 1,
    );
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContain(the);
    expect(free.tokens).toContain(the);
  });

  it('a custom step() constraint sees the accepted tokens and restricts the next one', async () => {
    const seen: number[][] = [];
    const even: Constraint = {
      step(accepted) {
        seen.push([...accepted]);
        const bits = new Uint32Array(bitsetWords(vocabIndex.tokenCount));
        for (let id = 4; id < vocabIndex.tokenCount; id += 2) bitsetAdd(bits, id);
        return brleFromBitset(bits, vocabIndex.tokenCount);
      },
    };
    const result = await engine.generate({ prompt: PROMPT, constraint: even, sampling: { seed: 5 }, maxTokens: 12 });
    expect(result.tokens.length).toBe(12);
    expect(result.tokens.every((t) => t % 2 === 0)).toBe(true);
    expect(seen[0]).toEqual([]);
    expect(seen.slice(1).flat()).toEqual(result.tokens.slice(0, -1));
  });

  it('a custom constraint returning a mask of the wrong length is an error', async () => {
    const bad: Constraint = { step: () => Uint32Array.of(0, 3) };
    await expect(engine.generate({ prompt: PROMPT, constraint: bad, maxTokens: 3 })).rejects.toThrow(/BRLE over 3 tokens/);
  });

  it('a constraint that allows nothing is a dead end, reported', async () => {
    const none: Constraint = { step: () => Uint32Array.of(vocabIndex.tokenCount) };
    await expect(engine.generate({ prompt: PROMPT, constraint: none, maxTokens: 3 })).rejects.toBeInstanceOf(DeadEndError);
    // A schema no value satisfies compiles (as `false` does) and says so at the first step.
    for (const schema of [
      { type: 'string', minLength: 2, maxLength: 1 },
      { type: 'string', format: 'uuid', maxLength: 27 },
    ])
      await expect(engine.generate({ prompt: PROMPT, constraint: JsonSchema(schema), maxTokens: 3 })).rejects.toThrow(
        /at the start: the constraint admits no output/,
      );
  });

  it('LogitBias pushes a token up; -Infinity bans it', async () => {
    const the = tokenLookup(vocabIndex)(new TextEncoder().encode(' the'))!;
    const pushed = await engine.generate({ prompt: PROMPT, constraint: LogitBias({ [the]: 50 }), sampling: { temperature: 0 }, maxTokens: 4 });
    expect(pushed.tokens).toEqual([the, the, the, the]);
    const free = await engine.generate({ prompt: PROMPT, sampling: { temperature: 0 }, maxTokens: 30 });
    const banned = await engine.generate({ prompt: PROMPT, sampling: { temperature: 0, logitBias: { [free.tokens[0]!]: -Infinity } }, maxTokens: 30 });
    expect(banned.tokens).not.toContain(free.tokens[0]);
  });

  it('ThinkThen: free text until the trigger, then the grammar from the next byte', async () => {
    for (const seed of [1, 2, 3]) {
      const result = await engine.generate({ prompt: PROMPT, constraint: ThinkThen('.', Regex(' [0-9]{2}!')), sampling: { seed }, maxTokens: 80 });
      const at = result.text.indexOf('.');
      expect(at, result.text).toBeGreaterThanOrEqual(0);
      expect(result.text.slice(at + 1), result.text).toMatch(/^ [0-9]{2}!$/);
      expect(result.stopReason).toBe('grammar');
    }
  });

  it('a precompiled grammar is reused across generations', async () => {
    const grammar = await engine.compile({ type: 'regex', grammar: '[a-z]{3,6}' });
    const a = await engine.generate({ prompt: PROMPT, constraint: grammar, sampling: { seed: 1 } });
    const b = await engine.generate({ prompt: PROMPT, constraint: grammar, sampling: { seed: 2 } });
    for (const r of [a, b]) expect(r.text).toMatch(/^[a-z]{3,6}$/);
    await engine.release(grammar);
    await expect(engine.generate({ prompt: PROMPT, constraint: grammar })).rejects.toThrow(/no compiled grammar/);
  });
});

describe('budget-aware ending', () => {
  it('tries the completion it knew before a token, and the parts of it the token leaves', () => {
    const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
    const kept = (token: string, known: string): string[] => [...keptCompletions(bytes(token), bytes(known))].map((b) => new TextDecoder().decode(b));
    // Inside free text; opening it where the completion leaves it empty; closing it.
    expect(kept('abc', '"}')).toEqual(['"}']);
    expect(kept(' "ab', ' "", "b": 1}')).toEqual([' "", "b": 1}', '", "b": 1}']);
    expect(kept('ab",', '", "b": 1}')).toEqual(['", "b": 1}', ' "b": 1}']);
    // A token that writes the completion's start whole is not this case (the loop advances the proof).
    expect(kept('"}', '"}')).toEqual(['"}', '']);
  });
});

describe('beam search', () => {
  it('keeps several beams and returns a complete, valid, deterministic output', async () => {
    const run = () => engine.generate({ prompt: PROMPT, constraint: JsonSchema(PERSON), beams: 4, maxTokens: 60 });
    const [first, second] = [await run(), await run()];
    expect(first.complete).toBe(true);
    expect(ajvValidator(PERSON)(JSON.parse(first.text))).toBe(true);
    expect(second.tokens).toEqual(first.tokens);
    // Every beam is a forward pass per step: more passes than tokens.
    expect(first.stats.forwardPasses).toBeGreaterThan(first.tokens.length);
    const words = await engine.generate({ prompt: PROMPT, constraint: Regex('(She|He|They) (was|is) [a-z]+\\.'), beams: 3, maxTokens: 20 });
    expect(words.text).toMatch(/^(She|He|They) (was|is) [a-z]+\.$/);
  });

  it('refuses what it cannot do, with clear errors', async () => {
    const custom: Constraint = { step: () => new Uint32Array(0) };
    await expect(engine.generate({ prompt: PROMPT, constraint: custom, beams: 2, maxTokens: 4 })).rejects.toThrow(
      /custom step\(\) constraint cannot be copied/,
    );
    await expect(engine.generate({ prompt: PROMPT, beams: 99 })).rejects.toThrow(/beams must be an integer from 1 to 16/);
  });
});

describe('token healing', () => {
  it('gives the last prompt token back and lets the first token extend it', async () => {
    const prompt = 'Once upon a ti';
    const healed = await engine.generate({ prompt, sampling: { temperature: 0 }, maxTokens: 6 });
    const plain = await engine.generate({ prompt, sampling: { temperature: 0 }, maxTokens: 6, tokenHealing: false });
    expect(healed.healed.length).toBeGreaterThan(0);
    expect(plain.healed).toBe('');
    // The first token starts with the given-back text, and the output text does not repeat it.
    const first = new TextDecoder().decode(vocabIndex.tokenBytes(healed.tokens[0]!));
    expect(first.startsWith(healed.healed) || healed.healed.startsWith(first)).toBe(true);
    expect((prompt + healed.text).startsWith(prompt)).toBe(true);
  });

  it('is off by default for chat messages (the template ends the prompt on a boundary), on when asked', async () => {
    const messages = [{ role: 'user', content: 'Once upon a ti' }];
    const chatTemplate = '{{ messages[0].content }}';
    const chat = await engine.generate({ messages, chatTemplate, sampling: { temperature: 0 }, maxTokens: 6 });
    const asked = await engine.generate({ messages, chatTemplate, sampling: { temperature: 0 }, maxTokens: 6, tokenHealing: true });
    expect(chat.healed).toBe('');
    expect(asked.healed.length).toBeGreaterThan(0);
  });

  it('keeps the budget’s promise: where the shortest output fits in maxTokens, the output is complete', async () => {
    // A healing token may write bytes the output then has to complete ("ti" → " tim"), and
    // giving a token back costs one: the loop declines healing where only then the shortest
    // output (spelled by the longest tokens) would no longer fit, and checks healing tokens
    // against a completion that fits, as it checks every token after them.
    let healedWithRefusals = 0;
    for (const regex of ['a|b', 'x1', '[a-z]+\\.', '[0-9]{2,4}', ' (yes|no)', 'me|[a-z]{3}']) {
      const grammar = new Grammar({ type: 'regex', grammar: regex });
      const matcher = new Matcher(grammar.compiled, vocabIndex);
      const shortest = greedySpelling(matcher.shortestCompletion()!, vocabIndex, () => false)!.length;
      grammar.dispose();
      for (const prompt of ['Once upon a ti', 'She was very ha', 'Tom had a b'])
        for (let maxTokens = shortest; maxTokens <= shortest + 2; maxTokens++)
          for (const seed of [1, 2, 3, 4]) {
            const sampling = { temperature: 1.5, seed };
            const result = await engine.generate({ prompt, constraint: Regex(regex), sampling, maxTokens, tokenHealing: true });
            expect(result, `${regex} after ${JSON.stringify(prompt)} in ${maxTokens}`).toMatchObject({ complete: true });
            expect(result.text).toMatch(new RegExp(`^(?:${regex})$`));
            if (result.healed !== '' && result.stats.budgetRejections > 0) healedWithRefusals++;
          }
    }
    expect(healedWithRefusals).toBeGreaterThan(0);
  });

  it('under a grammar, the healed token carries grammar bytes that the grammar checks', async () => {
    for (const seed of [1, 2, 3]) {
      const result = await engine.generate({ prompt: 'The answer is', constraint: Regex(' (yes|no)'), sampling: { seed } });
      expect([' yes', ' no']).toContain(result.text);
    }
  });
});

describe('masked sampling keeps the model’s distribution', () => {
  it('draws allowed tokens with the renormalised model probabilities (chi-square, fixed seed)', async () => {
    const model = await loadModel({ model: STORIES_260K, device: 'cpu' });
    const kernel = await loadKernel();
    const vocab = kernel.loadVocab(vocabIndex.file);
    const grammar = new Grammar({ type: 'regex', grammar: '(the|a|an|one|two|some|every|his|her) [a-z]+' });
    const matcher = grammar.matcher({ kernel, vocab, vocabIndex, eosTokenIds: vocabIndex.meta.eos_token_ids });
    const sequence = model.startSequence();
    try {
      const logits = await sequence.forward(model.tokenizer.encode('Once upon a time,'));
      const masked = logits.slice();
      kernel.applyBrle(masked, matcher.computeMask());
      // The target: the model's softmax over the allowed tokens, renormalised.
      const allowed = Array.from(brleAllowedIds(matcher.computeMask()));
      expect(allowed.length).toBeGreaterThan(5);
      const top = Math.max(...allowed.map((id) => logits[id]!));
      const weights = allowed.map((id) => Math.exp(logits[id]! - top));
      const total = weights.reduce((a, b) => a + b, 0);
      const expected = weights.map((w) => w / total);
      expect(samplingDistribution(masked, {}).ids.length).toBe(allowed.length);
      const rng = new Rng(2024);
      const counts = new Map<number, number>();
      const n = 40_000;
      for (let i = 0; i < n; i++) {
        const t = sampleToken(masked, {}, rng);
        counts.set(t, (counts.get(t) ?? 0) + 1);
      }
      expect([...counts.keys()].every((t) => allowed.includes(t))).toBe(true);
      const { statistic, df } = chiSquare(
        allowed.map((id) => counts.get(id) ?? 0),
        expected,
      );
      expect(df).toBeGreaterThan(3);
      expect(statistic).toBeLessThan(chiSquareCritical(df, 0.001));
      // And the test has power: the unmasked distribution does not fit.
      const skewed = chiSquare(
        allowed.map((id) => counts.get(id) ?? 0),
        allowed.map(() => 1 / allowed.length),
      );
      expect(skewed.statistic).toBeGreaterThan(chiSquareCritical(skewed.df, 0.001));
    } finally {
      matcher.dispose();
      grammar.dispose();
      vocab.dispose();
      kernel.dispose();
      await sequence.dispose();
      await model.dispose();
    }
  });
});

describe('engine API', () => {
  it('generateJson returns the parsed value, typed by a zod schema', async () => {
    const schema = z.strictObject({ name: z.string().max(10), age: z.number().int().min(1).max(9) });
    const { value, text } = await engine.generateJson(schema, { prompt: PROMPT, sampling: { seed: 4 }, maxTokens: 60 });
    expect(value).toEqual(JSON.parse(text));
    expect(value.age).toBeGreaterThanOrEqual(1);
    expect(typeof value.name).toBe('string');
  });

  it('chat.completions.create follows response_format json_schema', async () => {
    const chatTemplate = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}';
    const completion = await engine.chat.completions.create({
      messages: [{ role: 'user', content: 'Tell me about Lily.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON, strict: true } },
      max_tokens: 60,
      seed: 1,
      chatTemplate,
    });
    const content = completion.choices[0]!.message.content!;
    expect(ajvValidator(PERSON)(JSON.parse(content))).toBe(true);
    expect(completion.choices[0]!.message.parsed).toEqual(JSON.parse(content));
    expect(completion.usage.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage.total_tokens).toBe(completion.usage.prompt_tokens + completion.usage.completion_tokens);
  });

  describe('chat.completions.create, wider', () => {
    const chatTemplate = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}';
    const messages = [{ role: 'user', content: 'Tell me about Lily.' }] as const;

    it('n choices, each its own seed; json_object means an object', async () => {
      const completion = await engine.chat.completions.create({
        messages,
        chatTemplate,
        n: 3,
        seed: 7,
        max_tokens: 40,
        response_format: { type: 'json_object' },
      });
      expect(completion.choices.map((c) => c.index)).toEqual([0, 1, 2]);
      for (const choice of completion.choices) {
        if (choice.finish_reason === 'stop') expect(JSON.parse(choice.message.content!)).toBeTypeOf('object');
        expect(choice.message.content!.startsWith('{')).toBe(true);
      }
      // Choice 1 is what a single request with seed 8 gives.
      const again = await engine.chat.completions.create({ messages, chatTemplate, seed: 8, max_tokens: 40, response_format: { type: 'json_object' } });
      expect(again.choices[0]!.message.content).toBe(completion.choices[1]!.message.content);
    });

    it("stream: chunks in OpenAI's shape whose content is the completion, usage last when asked", async () => {
      const request = {
        messages,
        chatTemplate,
        seed: 3,
        max_tokens: 50,
        n: 2,
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON } },
      } as const;
      const whole = await engine.chat.completions.create(request);
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of await engine.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
      expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
      for (const index of [0, 1]) {
        const own = chunks.flatMap((c) => c.choices.filter((choice) => choice.index === index));
        expect(own[0]!.delta.role).toBe('assistant');
        expect(own.map((c) => c.delta.content ?? '').join('')).toBe(whole.choices[index]!.message.content);
        expect(own.at(-1)!.finish_reason).toBe(whole.choices[index]!.finish_reason);
        expect(own.slice(0, -1).every((c) => c.finish_reason === null)).toBe(true);
      }
      expect(chunks.at(-1)!.choices).toEqual([]);
      expect(chunks.at(-1)!.usage).toEqual(whole.usage);
    });

    it("web-llm's shapes: json_object with a schema (as JSON text), an EBNF grammar, extra_body.enable_thinking", async () => {
      const withSchema = await engine.chat.completions.create({
        messages,
        chatTemplate,
        seed: 2,
        max_tokens: 60,
        response_format: { type: 'json_object', schema: JSON.stringify(PERSON) },
      });
      const value = JSON.parse(withSchema.choices[0]!.message.content!) as unknown;
      expect(ajvValidator(PERSON)(value)).toBe(true);
      expect(withSchema.choices[0]!.message.parsed).toEqual(value);
      const grammar = await engine.chat.completions.create({
        messages,
        chatTemplate,
        seed: 2,
        max_tokens: 20,
        response_format: { type: 'grammar', grammar: 'root ::= ("yes" | "no") "."' },
      });
      expect(grammar.choices[0]!.message.content).toMatch(/^(yes|no)\.$/);
      const thinking = '{% if enable_thinking is false %}[no thinking] {% endif %}' + chatTemplate;
      const quiet = await engine.chat.completions.create({ messages, chatTemplate: thinking, seed: 2, max_tokens: 5, extra_body: { enable_thinking: false } });
      expect(quiet.usage.prompt_tokens).toBeGreaterThan(
        (await engine.chat.completions.create({ messages, chatTemplate: thinking, seed: 2, max_tokens: 5 })).usage.prompt_tokens,
      );
      await expect(
        engine.chat.completions.create({ messages, chatTemplate, response_format: { type: 'json_object', schema: '{not json' } }),
      ).rejects.toMatchObject({ path: 'request.response_format.schema' });
    });

    it('stream with a stop string: no chunk holds text past it', async () => {
      const free = await engine.chat.completions.create({ messages, chatTemplate, seed: 5, max_tokens: 40 });
      const text = free.choices[0]!.message.content!;
      const stop = text.slice(10, 13);
      expect(stop.length).toBe(3);
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of await engine.chat.completions.create({ messages, chatTemplate, seed: 5, max_tokens: 40, stop, stream: true }))
        chunks.push(chunk);
      const streamed = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      expect(streamed).toBe(text.slice(0, text.indexOf(stop)));
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    });
  });

  it('a load aborted after its files are read (the vocab index being built) still rejects with LoadAbortedError', async () => {
    const fresh = new InThreadEngine();
    const controller = new AbortController();
    const progress = (p: LoadProgress): void => void (p.kind === 'ready' && controller.abort());
    await expect(fresh.load({ model: STORIES_260K, device: 'cpu', cache: false, signal: controller.signal, onProgress: progress })).rejects.toMatchObject({
      name: 'LoadAbortedError',
      code: 'aborted',
    });
    expect(fresh.info).toBeNull();
    await fresh.dispose();
  });

  it('dispose stops a generation in progress and waits for it', async () => {
    const fresh = await storiesEngine();
    const running = fresh.generate({ prompt: PROMPT, maxTokens: 400, sampling: { seed: 1 }, constraint: LogitBias({ 2: -Infinity }) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fresh.dispose();
    const result = await running;
    expect(result.stopReason).toBe('abort');
    expect(result.tokens.length).toBeLessThan(400);
  });

  it('reports bad input as typed errors', async () => {
    const fresh = new InThreadEngine();
    await expect(fresh.generate({ prompt: 'x' })).rejects.toBeInstanceOf(NotLoadedError);
    await expect(engine.generate({ prompt: PROMPT, constraint: JsonSchema({ type: 5 }) })).rejects.toBeInstanceOf(InvalidSchemaError);
    await expect(engine.generate({ prompt: PROMPT, sampling: { temperature: -1 } })).rejects.toThrow(/temperature/);
    await expect(engine.generate({ prompt: PROMPT, maxTokens: 0 })).rejects.toThrow(/maxTokens/);
    await expect(engine.generate({})).rejects.toThrow(/exactly one of prompt and messages/);
  });

  it('loads with progress events, building the vocab index when none is given', async () => {
    const events: LoadProgress[] = [];
    const fresh = new InThreadEngine();
    const info = await fresh.load({ model: STORIES_260K, device: 'cpu', onProgress: (p) => events.push(p) });
    try {
      expect(info.tokenCount).toBe(vocabIndex.tokenCount);
      expect(info.device).toBe('cpu');
      expect(events.some((e) => e.kind === 'file' && e.file === 'onnx/model.onnx' && e.loadedBytes === e.totalBytes && e.totalBytes > 1_000_000)).toBe(true);
      expect(events.at(-1)!.kind).toBe('ready');
      // The load's parts: the model, then the vocab index built from its tokenizer.
      expect(info.loadSteps.modelMs).toBeGreaterThan(0);
      expect(info.loadSteps.vocabMs).toBeGreaterThan(0);
      expect(info.loadSteps.modelMs + info.loadSteps.vocabMs).toBeLessThanOrEqual(info.loadMs + 1e-6);
    } finally {
      await fresh.dispose();
    }
  });
});

describe('stop strings before a tool call starts', () => {
  // Text written a byte token at a time; per byte, whether a stop was seen.
  const stopsAt = (text: string, stop: readonly string[], before: string | null): { seen: boolean[]; text: string } => {
    const byteToken = new Map<number, number>();
    for (let id = 0; id < vocabIndex.tokenCount; id++) {
      const bytes = vocabIndex.tokenBytes(id);
      if (bytes.length === 1 && !byteToken.has(bytes[0]!)) byteToken.set(bytes[0]!, id);
    }
    const output = new OutputText(vocabIndex);
    const seen = [...new TextEncoder().encode(text)].map((byte) => {
      output.push(byteToken.get(byte)!);
      return output.hasStop(stop, before);
    });
    return { seen, text: output.text(stop, before) };
  };
  it('end only the text before it: a call is not cut, text before it is', () => {
    const call = 'Hi <tool_call>\n{"a": {"b": 1}}\n</tool_call>';
    expect(stopsAt(call, ['}'], '<tool_call>')).toEqual({ seen: [...call].map(() => false), text: call });
    expect(stopsAt(call, ['}'], null).seen.indexOf(true)).toBe(call.indexOf('}'));
    expect(stopsAt(call, ['}'], null).text).toBe(call.slice(0, call.indexOf('}')));
    const early = 'Hi} <tool_call>\n{}';
    expect(stopsAt(early, ['}'], '<tool_call>')).toMatchObject({ text: 'Hi' });
    expect(stopsAt(early, ['}'], '<tool_call>').seen.indexOf(true)).toBe(2);
  });
  it('a beginning of it at the end waits; a stop string across its start does not count', () => {
    expect(stopsAt('a<tool_call>{}', ['<t'], '<tool_call>')).toEqual({ seen: Array(14).fill(false), text: 'a<tool_call>{}' });
    expect(stopsAt('a<tx', ['<t'], '<tool_call>')).toEqual({ seen: [false, false, false, true], text: 'a' });
    expect(stopsAt('ab<tool_call>', ['b<to'], '<tool_call>').seen.includes(true)).toBe(false);
  });
});
