// Generation benchmark: a model in the engine's Web Worker (WASM execution provider), tokens
// per second with a JSON Schema constraint against the same number of tokens without one, and
// the time of a step split into forward pass, mask, applying it, sampling, commit and the
// rest. stories260K by default; ?model=HUB_ID&hub=URL takes a model from a hub (the fixture
// models' local stand-in), prompted through its chat template, and also times its first load
// (download, tokenizer, vocab index), a cached second load and the schemas' compiles.
// `pnpm bench` opens this page in headless Chromium (e2e/bench/generation.bench.ts) and
// reads <body data-report>.
import { STEP_PARTS, type GenerationLoad, type GenerationReport, type GenerationSchemaResult, type GenerationSide } from '@sieve/bench/reports';
import { publishReport } from './bench-report.ts';
import { createWorkerEngine, LogitBias, stepTiming, type EngineLoadOptions, type GenerateResult } from '@sieve/runtime/client';

/** Schema-heavy JSON: long keys, enums and nesting, where much of the text is forced. */
const SCHEMAS: Record<string, unknown> = {
  'order (nested, enums)': {
    type: 'object',
    properties: {
      order_identifier: { type: 'string', maxLength: 12 },
      customer_information: {
        type: 'object',
        properties: {
          full_name: { type: 'string', maxLength: 20 },
          preferred_contact_method: { enum: ['electronic_mail', 'telephone_call', 'postal_letter'] },
        },
        required: ['full_name', 'preferred_contact_method'],
        additionalProperties: false,
      },
      shipping_priority: { enum: ['standard_delivery', 'express_delivery', 'overnight_delivery'] },
      gift_wrapping_requested: { type: 'boolean' },
    },
    required: ['order_identifier', 'customer_information', 'shipping_priority', 'gift_wrapping_requested'],
    additionalProperties: false,
  },
  'function call (BFCL-like)': {
    type: 'object',
    properties: {
      function_name: { const: 'calculate_compound_interest' },
      arguments: {
        type: 'object',
        properties: {
          principal_amount: { type: 'integer', minimum: 1, maximum: 100000 },
          annual_interest_rate: { type: 'number', minimum: 0, maximum: 1 },
          compounding_frequency: { enum: ['monthly', 'quarterly', 'annually'] },
          number_of_years: { type: 'integer', minimum: 1, maximum: 50 },
        },
        required: ['principal_amount', 'annual_interest_rate', 'compounding_frequency', 'number_of_years'],
        additionalProperties: false,
      },
    },
    required: ['function_name', 'arguments'],
    additionalProperties: false,
  },
  'list of records': {
    type: 'array',
    minItems: 2,
    maxItems: 3,
    items: {
      type: 'object',
      properties: { character_name: { type: 'string', maxLength: 10 }, favourite_activity: { enum: ['playing_outside', 'reading_books', 'baking_cookies'] } },
      required: ['character_name', 'favourite_activity'],
      additionalProperties: false,
    },
  },
};

const PROMPT = 'Once upon a time, there was a little girl named Lily.';
// Seeds per schema: their sampled steps pool into the p99s (a few hundred steps, not its worst two).
const RUNS = 10;
const MAX_TOKENS = 160;
const SAMPLING = { temperature: 0.8, topK: 0, topP: 1 };

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

function summarize(results: readonly GenerateResult[]): GenerationSide {
  return {
    tokens: median(results.map((r) => r.tokens.length)),
    tokens_per_s: round(median(results.map((r) => r.stats.tokensPerSecond)), 1),
    forward_ms_per_pass: round(median(results.map((r) => (r.stats.prefillMs + r.stats.forwardMs) / r.stats.forwardPasses)), 3),
    forward_passes: median(results.map((r) => r.stats.forwardPasses)),
    mask_us_per_step: round(median(results.map((r) => r.stats.maskUsMean)), 1),
    sample_us_per_step: round(median(results.map((r) => r.stats.sampleUsMean)), 1),
    forced_fraction: round(median(results.map((r) => r.forcedTokens / Math.max(1, r.tokens.length))), 3),
    step_us: Object.fromEntries(STEP_PARTS.map((part) => [part, acrossRuns(results, part)])) as NonNullable<GenerationSide['step_us']>,
    step_total_us: acrossRuns(results, 'total'),
  };
}

// A step part's (or the total's) mean and p99 over every sampled step of the runs (a run's
// own p99, of a few dozen steps, is its slowest step).
function acrossRuns(results: readonly GenerateResult[], part: keyof GenerateResult['stats']['stepUs']): { mean: number; p99: number; steps: number } {
  const { mean, p99, values } = stepTiming(results.flatMap((r) => r.stats.stepUs[part].values));
  return { mean, p99, steps: values.length };
}

const params = new URLSearchParams(location.search);
const hubModel = params.get('model');

async function run(): Promise<GenerationReport> {
  const here = (path: string): string => new URL(path, location.href).href;
  const newEngine = () => createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }));
  const common = { device: 'wasm', kernel: here('/kernel.wasm'), wasmPaths: here('/ort/') } as const;
  const options: EngineLoadOptions =
    hubModel === null
      ? { ...common, model: '/models/stories260K', dtype: 'fp32', vocab: here('/vocab/stories260k.vocab') }
      : { ...common, model: hubModel, hub: params.get('hub')! };
  let engine = newEngine();
  let started = performance.now();
  let info = await engine.load(options);
  const firstLoad: GenerationLoad = {
    ms: round(performance.now() - started, 0),
    model_ms: round(info.loadSteps.modelMs, 0),
    vocab_ms: round(info.loadSteps.vocabMs, 0),
    vocab: info.vocabOrigin,
  };
  let cachedLoad: GenerationLoad | null = null;
  if (hubModel !== null) {
    // Again, in a new worker: files and vocab index come from the Cache API.
    await engine.dispose();
    engine = newEngine();
    started = performance.now();
    info = await engine.load(options);
    cachedLoad = {
      ms: round(performance.now() - started, 0),
      model_ms: round(info.loadSteps.modelMs, 0),
      vocab_ms: round(info.loadSteps.vocabMs, 0),
      vocab: info.vocabOrigin,
    };
  }
  // Chat models are prompted through their template (and keep no prefix: each run feeds it all).
  const prompt = hubModel === null ? { prompt: PROMPT } : { messages: [{ role: 'user', content: `Write the JSON for this: ${PROMPT}` }], reusePrefix: false };
  // Unconstrained runs may not end early: EOS is banned, and they write as many tokens as the constrained run did.
  const noEos = LogitBias(Object.fromEntries(info.eosTokenIds.map((id) => [id, -Infinity])));
  await engine.generate({ ...prompt, maxTokens: 8 }); // warm-up
  const schemas: GenerationSchemaResult[] = [];
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const constrained: GenerateResult[] = [];
    const unconstrained: GenerateResult[] = [];
    started = performance.now();
    const compiled = await engine.compile({ type: 'json-schema', schema });
    const compileMs = round(performance.now() - started, 1);
    // (compile rehearses the grammar.) The first run after it builds what the rehearsal's walk
    // did not need (lexer states, lazily lowered rules, masks): a one-time cost, timed apart.
    const first = await engine.generate({ ...prompt, constraint: compiled, maxTokens: MAX_TOKENS, sampling: { ...SAMPLING, seed: 0 } });
    const firstSteps = first.stats.stepUs.total.values;
    for (let seed = 1; seed <= RUNS; seed++) {
      const sampling = { ...SAMPLING, seed };
      const c = await engine.generate({ ...prompt, constraint: compiled, maxTokens: MAX_TOKENS, sampling });
      constrained.push(c);
      unconstrained.push(await engine.generate({ ...prompt, constraint: noEos, maxTokens: c.tokens.length, sampling }));
    }
    await engine.release(compiled);
    const a = summarize(constrained);
    const b = summarize(unconstrained);
    schemas.push({
      schema: name,
      compile_ms: compileMs,
      first_run: {
        steps: firstSteps.length,
        mean: stepTiming(firstSteps).mean,
        max: Math.max(0, ...firstSteps),
        ms: round(firstSteps.reduce((sum, us) => sum + us, 0) / 1000, 1),
      },
      constrained: a,
      unconstrained: b,
      speed_ratio: round(a.tokens_per_s / b.tokens_per_s, 2),
      complete: constrained.filter((r) => r.complete === true).length,
      runs: RUNS,
    });
    document.querySelector('#status')!.textContent = `${name}: ${a.tokens_per_s} vs ${b.tokens_per_s} tokens/s`;
  }
  await engine.dispose();
  const loads = hubModel === null ? {} : { first_load: firstLoad, cached_load: cachedLoad };
  return {
    bench: 'generation',
    model: hubModel ?? 'stories260K',
    tokens: info.tokenCount,
    device: info.device,
    runs: RUNS,
    ...loads,
    user_agent: navigator.userAgent,
    hardware_concurrency: navigator.hardwareConcurrency,
    cross_origin_isolated: self.crossOriginIsolated,
    schemas,
  };
}

publishReport(run());
