/**
 * The page side of a worker engine: constraint builders, the worker client, errors and types.
 * Nothing here loads transformers.js or compiles a grammar, and none of their code is bundled
 * with it: of @sieve/grammar, only its compiler-free entries (test/client-bundle.test.ts).
 *
 * @module @sieve/runtime/client
 */
export { AllOf, AnyJson, BanTokens, Ebnf, Gbnf, GENERATION_JSON_WHITESPACE, JsonSchema, Lark, LogitBias, Regex, ThinkThen } from './constraint-specs.ts';
export type { Constraint, ConstraintInput, ConstraintSpec, GrammarSpec, MaskIndexSource } from './constraint-specs.ts';
export type { Candidate, GenerationOutput, GenerationStats, StopReason, TokenEvent } from './decode-loop.ts';
export type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ChatCompletions, FinishReason, ResponseFormat } from './chat-completions.ts';
export type { ChatMessage, CompileOptions, EngineLoadOptions, GenerateRequest, GenerateResult, JsonOf, JsonResult, ModelInfo, SieveEngine } from './engine.ts';
export {
  DeadEndError,
  IncompleteOutputError,
  InvalidRequestError,
  LoadAbortedError,
  ModelLoadError,
  NotLoadedError,
  VocabMismatchError,
  WorkerCrashedError,
} from './errors.ts';
export type { DeviceChoice, LoadModelOptions, LoadProgress } from './model.ts';
export { deleteCachedModel, listCachedModels } from './model-cache.ts';
export { catalogueModel, estimatedDownloadBytes, formatBytes, MODEL_CATALOGUE, modelDownloadSize, modelFiles } from './model-catalogue.ts';
export type { CatalogueModel, DownloadSize } from './model-catalogue.ts';
export type { CachedModel } from './model-cache.ts';
export type { SamplingOptions } from './sampler.ts';
export { stepTiming } from './step-timing.ts';
export type { StepTiming } from './step-timing.ts';
export { partialJson } from './streams.ts';
export type { DeepPartial, JsonTokenEvent, StreamRequest, TokenStream } from './streams.ts';
export { createWorkerEngine } from './worker-client.ts';
export type { WorkerEngine, WorkerEngineOptions } from './worker-client.ts';
