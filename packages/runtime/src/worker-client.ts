/**
 * `SieveEngine` in a Web Worker: the same interface as the in-thread engine, proxied with
 * comlink. Abort signals become cancel calls, progress and token callbacks are proxied, errors
 * keep their class. If the worker dies (an uncaught error, or killed: out of memory, closed —
 * seen through a Web Lock it holds for its lifetime), pending calls reject with
 * `WorkerCrashedError` and a new worker starts, loading the last model and compiling the
 * grammars compiled so far again: grammar handles stay valid.
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import type { JsonSchemaOptions } from '@sieve/grammar';
import { isZodSchema, jsonSchemaOf } from '@sieve/grammar/inputs';
import type { GrammarSpec } from './constraint-specs.ts';
import type { TokenEvent } from './decode-loop.ts';
import type { CompileOptions, EngineLoadOptions, JsonOf, GenerateRequest, GenerateResult, JsonResult, ModelInfo, SieveEngine } from './engine.ts';
import { NotLoadedError, WorkerCrashedError } from './errors.ts';
import { installErrorTransfer } from './transfer-errors.ts';
import type { EngineHost } from './worker-host.ts';
import { chatCompletions } from './chat-completions.ts';
import { jsonStream, tokenStream, type JsonTokenEvent, type StreamRequest, type TokenStream } from './streams.ts';

/** An engine in a worker; `restart()` after a crash. */
export interface WorkerEngine extends SieveEngine {
  /** Terminates the worker and starts a new one, loading the last loaded model again. */
  restart(): Promise<ModelInfo | null>;
}

/** Options of `createWorkerEngine`. */
export interface WorkerEngineOptions {
  /** Called when the worker dies (after pending calls reject with `error`); `restarting`: a new one is on its way. */
  readonly onCrash?: (error: WorkerCrashedError, restarting: boolean) => void;
  /**
   * Restart a crashed worker by itself at most this many times in a row (default 3; 0: never,
   * call `restart()`); a generation that completes resets the count.
   */
  readonly autoRestart?: number;
  /** Called when an automatic restart has finished, with what its `load` gave. */
  readonly onRestart?: (outcome: PromiseSettledResult<ModelInfo | null>) => void;
}

type GrammarHandle = { readonly type: 'grammar'; readonly id: number };

/** Runs the engine in the worker `makeWorker` creates (called again on `restart`). */
export function createWorkerEngine(makeWorker: () => Worker, options: WorkerEngineOptions = {}): WorkerEngine {
  installErrorTransfer();
  let worker: Worker;
  let remote: Remote<EngineHost>;
  let crash: Promise<never>;
  let fail: (error: Error) => void = () => undefined;
  let lastLoad: EngineLoadOptions | null = null;
  let nextId = 1;
  let generation = 0;
  let restartsInARow = 0;
  const autoRestart = options.autoRestart ?? 3;
  // Grammar handles the page holds (its ids) → the spec, and the current worker's id for it.
  const grammars = new Map<number, { readonly spec: GrammarSpec; readonly options: CompileOptions; workerId: number | null }>();
  let nextGrammar = 1;

  const crashed = (started: number, why: string): void => {
    if (started !== generation) return; // an earlier worker, already replaced
    generation++; // this worker's later events (and its lock) are no longer news
    const error = new WorkerCrashedError(`the engine's worker ${why}${autoRestart > 0 ? '' : '; call restart()'}`);
    fail(error);
    const restarting = restartsInARow < autoRestart;
    options.onCrash?.(error, restarting);
    if (!restarting) return;
    restartsInARow++;
    void engine.restart().then(
      (info) => options.onRestart?.({ status: 'fulfilled', value: info }),
      (reason: unknown) => options.onRestart?.({ status: 'rejected', reason }),
    );
  };

  const start = (): void => {
    const started = ++generation;
    worker = makeWorker();
    remote = wrap<EngineHost>(worker);
    crash = new Promise<never>((_, reject) => (fail = reject));
    crash.catch(() => undefined);
    worker.addEventListener('error', (event) => crashed(started, `crashed: ${(event as ErrorEvent).message || 'unknown error'}`));
    // The worker holds a Web Lock for as long as it lives: when this page gets it, the worker
    // is gone, even if it died without an error event (killed, out of memory, closed).
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (locks !== undefined) {
      const name = `sieve-engine-${crypto.randomUUID()}`;
      const held = remote.holdLifetimeLock(name) as Promise<boolean>;
      held.then(
        (ok) => void (ok && locks.request(name, () => crashed(started, 'stopped (killed, or out of memory)'))),
        () => undefined,
      );
    }
  };
  start();

  // The model the worker has loaded (its id names chat completions).
  let loaded: ModelInfo | null = null;
  const load = async (options: EngineLoadOptions): Promise<ModelInfo> => {
    lastLoad = options;
    loaded = null;
    const { onProgress, signal, ...rest } = options;
    return (loaded = await withCancel(signal, (id) => remote.load(id, rest, onProgress === undefined ? undefined : proxy(onProgress))));
  };
  const model = (): ModelInfo => {
    if (loaded === null) throw new NotLoadedError('no model is loaded: call load() first');
    return loaded;
  };

  // The worker's id for a page-side handle (compiled in this worker on first use after a restart).
  const workerGrammar = async (handle: GrammarHandle): Promise<GrammarHandle> => {
    const entry = grammars.get(handle.id);
    if (entry === undefined) return handle; // not one of ours: the worker says what is wrong
    entry.workerId ??= (await remote.compile(entry.spec, entry.options)).id;
    return { type: 'grammar', id: entry.workerId };
  };

  // A constraint with page-side grammar handles replaced by the worker's.
  const translate = async <T>(input: T): Promise<T> => {
    const spec = input as { type?: unknown; constraints?: unknown; then?: unknown; id?: unknown } | undefined;
    if (typeof spec !== 'object' || spec === null) return input;
    if (spec.type === 'grammar' && typeof spec.id === 'number') return (await workerGrammar(spec as GrammarHandle)) as T;
    if (spec.type === 'all-of' && Array.isArray(spec.constraints)) return { ...spec, constraints: await Promise.all(spec.constraints.map(translate)) } as T;
    if (spec.type === 'think') return { ...spec, then: await translate(spec.then) } as T;
    return input;
  };

  // Ends the worker; calls still waiting on it reject.
  const stop = (why: string): void => {
    generation++;
    fail(new WorkerCrashedError(`${why}: calls in progress were dropped`));
    remote[releaseProxy]();
    worker.terminate();
  };

  // Races a call against the worker's death.
  const call = <T>(run: () => Promise<T>): Promise<T> => Promise.race([run(), crash]);

  // A call the signal cancels (in the worker, by its id).
  const withCancel = async <T>(signal: AbortSignal | undefined, run: (id: number) => Promise<T>): Promise<T> => {
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

  // A generation: one that completes ends a run of crashes (a load does not: restarts load).
  const cancellable = async <T>(signal: AbortSignal | undefined, run: (id: number) => Promise<T>): Promise<T> => {
    const result = await withCancel(signal, run);
    restartsInARow = 0;
    return result;
  };

  // Signals and callbacks cannot be cloned: the signal becomes cancel calls, the callback a proxy argument.
  const split = async <R extends { signal?: AbortSignal; onToken?: (event: TokenEvent) => unknown; constraint?: unknown }>(
    request: R,
  ): Promise<[Omit<R, 'signal' | 'onToken'>, ((event: TokenEvent) => Promise<void>) | undefined]> => {
    const rest: Partial<R> = { ...request };
    delete rest.signal;
    delete rest.onToken;
    if (request.constraint !== undefined) rest.constraint = await translate(request.constraint);
    const onToken = request.onToken;
    return [rest as Omit<R, 'signal' | 'onToken'>, onToken === undefined ? undefined : proxy(async (event: TokenEvent) => void (await onToken(event)))];
  };

  const engine: WorkerEngine = {
    async load(options: EngineLoadOptions): Promise<ModelInfo> {
      // As in-thread: loading a model drops the grammars compiled for the last one.
      grammars.clear();
      return load(options);
    },
    async compile(spec: GrammarSpec, options: CompileOptions = {}): Promise<GrammarHandle> {
      const { id: workerId } = await call(() => remote.compile(spec, options));
      const id = nextGrammar++;
      grammars.set(id, { spec, options, workerId });
      return { type: 'grammar', id };
    },
    async release(grammar: GrammarHandle): Promise<void> {
      const entry = grammars.get(grammar?.id);
      grammars.delete(grammar?.id);
      if (entry === undefined) return call(() => remote.release(grammar));
      if (entry.workerId !== null) await call(() => remote.release({ type: 'grammar', id: entry.workerId! }));
    },
    generate: (request: GenerateRequest): Promise<GenerateResult> => cancellable(request.signal, async (id) => remote.generate(id, ...(await split(request)))),
    async generateJson<S, T = JsonOf<S>>(
      schema: S,
      request: Omit<GenerateRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
    ): Promise<JsonResult<T>> {
      const result = await cancellable(request.signal, async (id) => remote.generateJson(id, jsonSchemaOf(schema), ...(await split(request))));
      // A zod schema cannot cross the boundary: its parse (and transforms) run here.
      const value = isZodSchema(schema) ? (schema as unknown as { parse(v: unknown): T }).parse(result.value) : (result.value as T);
      return { ...result, value };
    },
    stream: (request: StreamRequest): TokenStream => tokenStream(request.signal, (hooks) => engine.generate({ ...request, ...hooks })),
    streamJson<S, T = JsonOf<S>>(
      schema: S,
      request: Omit<StreamRequest, 'constraint'> & { readonly schemaOptions?: JsonSchemaOptions },
    ): TokenStream<JsonTokenEvent<T>, JsonResult<T>> {
      return jsonStream(request.signal, (hooks) => engine.generateJson<S, T>(schema, { ...request, ...hooks }));
    },
    // On the page, over the worker's generations.
    chat: {
      completions: chatCompletions({ generate: (request) => engine.generate(request), stream: (request) => engine.stream(request), model: () => model() }),
    },
    async dispose(): Promise<void> {
      await call(() => remote.dispose()).catch(() => undefined);
      stop('the engine was disposed');
      grammars.clear();
    },
    async restart(): Promise<ModelInfo | null> {
      stop('the engine was restarted');
      start();
      // Grammars are compiled again in the new worker when next used.
      for (const entry of grammars.values()) entry.workerId = null;
      return lastLoad === null ? null : load(lastLoad);
    },
  };
  return engine;
}
