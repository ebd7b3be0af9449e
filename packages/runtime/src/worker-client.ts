/**
 * `SieveEngine` in a Web Worker: the same interface as the in-thread engine, proxied with
 * comlink. Abort signals become cancel calls, progress and token callbacks are proxied, errors
 * keep their class. If the worker dies, pending calls reject with `WorkerCrashedError` and
 * `restart()` starts a new one (loading the last model again).
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import { isZodSchema, jsonSchemaOf, type JsonSchemaOptions } from '@sieve/grammar';
import type { GrammarSpec } from './constraint-specs.ts';
import type { TokenEvent } from './decode-loop.ts';
import type { ChatCompletion, ChatCompletionRequest, EngineLoadOptions, JsonOf, GenerateRequest, GenerateResult, JsonResult, ModelInfo, SieveEngine } from './engine.ts';
import { WorkerCrashedError } from './errors.ts';
import { installErrorTransfer } from './transfer-errors.ts';
import type { EngineHost } from './worker-host.ts';

/** An engine in a worker; `restart()` after a crash. */
export interface WorkerEngine extends SieveEngine {
  /** Terminates the worker and starts a new one, loading the last loaded model again. */
  restart(): Promise<ModelInfo | null>;
}

/** Options of `createWorkerEngine`. */
export interface WorkerEngineOptions {
  /** Called when the worker dies (after pending calls reject); `restart()` brings it back. */
  readonly onCrash?: (error: WorkerCrashedError) => void;
}

/** Runs the engine in the worker `makeWorker` creates (called again on `restart`). */
export function createWorkerEngine(makeWorker: () => Worker, options: WorkerEngineOptions = {}): WorkerEngine {
  installErrorTransfer();
  let worker: Worker;
  let remote: Remote<EngineHost>;
  let crash: Promise<never>;
  let fail: (error: Error) => void = () => undefined;
  let lastLoad: EngineLoadOptions | null = null;
  let nextId = 1;

  const start = (): void => {
    worker = makeWorker();
    remote = wrap<EngineHost>(worker);
    crash = new Promise<never>((_, reject) => {
      fail = reject;
      worker.addEventListener('error', (event) => {
        const error = new WorkerCrashedError(`the engine's worker crashed: ${event.message || 'unknown error'}; call restart()`);
        reject(error);
        options.onCrash?.(error);
      });
    });
    crash.catch(() => undefined);
  };
  start();

  // Ends the worker; calls still waiting on it reject.
  const stop = (why: string): void => {
    fail(new WorkerCrashedError(`${why}: calls in progress were dropped`));
    remote[releaseProxy]();
    worker.terminate();
  };

  // Races a call against the worker's death.
  const call = <T>(run: () => Promise<T>): Promise<T> => Promise.race([run(), crash]);

  const cancellable = async <T>(signal: AbortSignal | undefined, run: (id: number) => Promise<T>): Promise<T> => {
    const id = nextId++;
    const cancel = (): void => void remote.cancel(id);
    signal?.addEventListener('abort', cancel, { once: true });
    if (signal?.aborted) cancel();
    try {
      return await call(() => run(id));
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };

  // Signals and callbacks cannot be cloned: the signal becomes cancel calls, the callback a proxy argument.
  const split = <R extends { signal?: AbortSignal; onToken?: (event: TokenEvent) => unknown }>(request: R): [Omit<R, 'signal' | 'onToken'>, ((event: TokenEvent) => Promise<void>) | undefined] => {
    const rest: Partial<R> = { ...request };
    delete rest.signal;
    delete rest.onToken;
    const onToken = request.onToken;
    return [rest as Omit<R, 'signal' | 'onToken'>, onToken === undefined ? undefined : proxy(async (event: TokenEvent) => void (await onToken(event)))];
  };

  const withoutSignal = (request: ChatCompletionRequest): Omit<ChatCompletionRequest, 'signal'> => {
    const { signal, ...rest } = request;
    void signal;
    return rest;
  };

  const engine: WorkerEngine = {
    async load(options: EngineLoadOptions): Promise<ModelInfo> {
      lastLoad = options;
      const { onProgress, ...rest } = options;
      return call(() => remote.load(rest, onProgress === undefined ? undefined : proxy(onProgress)));
    },
    compile: (spec: GrammarSpec) => call(() => remote.compile(spec)),
    release: (grammar) => call(() => remote.release(grammar)),
    generate: (request: GenerateRequest): Promise<GenerateResult> => cancellable(request.signal, (id) => remote.generate(id, ...split(request))),
    async generateJson<S, T = JsonOf<S>>(schema: S, request: Omit<GenerateRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions }): Promise<JsonResult<T>> {
      const result = await cancellable(request.signal, (id) => remote.generateJson(id, jsonSchemaOf(schema), ...split(request)));
      // A zod schema cannot cross the boundary: its parse (and transforms) run here.
      const value = isZodSchema(schema) ? (schema as unknown as { parse(v: unknown): T }).parse(result.value) : (result.value as T);
      return { ...result, value };
    },
    chat: {
      completions: {
        create: (request: ChatCompletionRequest): Promise<ChatCompletion> => cancellable(request.signal, (id) => remote.chatCompletion(id, withoutSignal(request))),
      },
    },
    async dispose(): Promise<void> {
      await call(() => remote.dispose()).catch(() => undefined);
      stop('the engine was disposed');
    },
    async restart(): Promise<ModelInfo | null> {
      stop('the engine was restarted');
      start();
      return lastLoad === null ? null : engine.load(lastLoad);
    },
  };
  return engine;
}
