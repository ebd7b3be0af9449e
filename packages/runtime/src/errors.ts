/** The runtime's errors: each has a `code`, and keeps its class across the worker boundary. */

/** Raised when no token can continue: the constraint allows nothing (and no EOS). */
export class DeadEndError extends Error {
  override readonly name = 'DeadEndError';
  readonly code = 'dead_end';
}

/** The output ended before the JSON did (`maxTokens` or a stop string), so there is nothing to parse. */
export class IncompleteOutputError extends Error {
  override readonly name = 'IncompleteOutputError';
  readonly code = 'incomplete_output';
  constructor(
    message: string,
    readonly text: string,
  ) {
    super(message);
  }
}

/** Used before `load` finished. */
export class NotLoadedError extends Error {
  override readonly name = 'NotLoadedError';
  readonly code = 'not_loaded';
}

/** The model could not be loaded on any device. */
export class ModelLoadError extends Error {
  override readonly name = 'ModelLoadError';
  readonly code = 'model_load_failed';
}

/** `load` was aborted (its `signal`) before the model was ready. */
export class LoadAbortedError extends Error {
  override readonly name = 'LoadAbortedError';
  readonly code = 'aborted';
}

/**
 * The vocab index is not the loaded model's tokenizer's: `expected` is the tokenizer's
 * fingerprint (`tokenizerFingerprint`), `actual` the index's (of its token bytes, for an
 * index built before tokenizer fingerprints).
 */
export class VocabMismatchError extends Error {
  override readonly name = 'VocabMismatchError';
  readonly code = 'vocab_mismatch';
  constructor(
    message: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(message);
  }
}

/** The worker running the engine stopped (an uncaught error, or out of memory). */
export class WorkerCrashedError extends Error {
  override readonly name = 'WorkerCrashedError';
  readonly code = 'worker_crashed';
}

/**
 * A call's argument has the wrong shape: `path` names it (`request.sampling.topK`). The engine
 * checks every request, in-thread and in its worker, before it starts any work.
 */
export class InvalidRequestError extends TypeError {
  override readonly name = 'InvalidRequestError';
  readonly code = 'invalid_request';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}
