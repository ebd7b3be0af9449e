/**
 * Everything: the in-thread engine (loads transformers.js), the worker client, constraints.
 * Pages that run the engine in a worker import `@sieve/runtime/client` instead.
 *
 * @module @sieve/runtime
 */
export * from './client.ts';
export { Grammar } from './constraints.ts';
export { continuationEncoder, tokenLookup } from './continuation.ts';
export { createEngine, InThreadEngine } from './engine.ts';
export { buildSpecMaskIndex } from './spec-mask-index.ts';
export type { SpecMaskIndexOptions } from './spec-mask-index.ts';
export { loadModel } from './model.ts';
export type { LoadedModel, ModelSequence } from './model.ts';
export { argmax, Rng, sampleToken, samplingDistribution } from './sampler.ts';
export { EngineHost, exposeEngine } from './worker-host.ts';
