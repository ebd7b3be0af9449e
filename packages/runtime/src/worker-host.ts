/**
 * The worker side of `createWorkerEngine`: an in-thread engine plus what cannot be cloned
 * across the boundary (abort signals become cancel calls, callbacks arrive as comlink proxies).
 */
import { expose, transfer, transferHandlers, type Endpoint } from 'comlink';
import type { GrammarSpec } from './constraint-specs.ts';
import type { TokenEvent } from './decode-loop.ts';
import {
  InThreadEngine,
  type CompileOptions,
  type EngineLoadOptions,
  type GenerateRequest,
  type GenerateResult,
  type JsonResult,
  type ModelInfo,
} from './engine.ts';
import type { LoadProgress } from './model.ts';
import { InvalidRequestError } from './errors.ts';
import {
  checkCompileOptions,
  checkGenerateJsonRequest,
  checkGenerateRequest,
  checkGrammarHandle,
  checkGrammarSpec,
  checkLoadOptions,
  checkSchema,
} from './requests.ts';
import { installErrorTransfer } from './transfer-errors.ts';

/** A request as it crosses into the worker: no signal, no callback (that comes as its own argument, a proxy). */
export type RemoteRequest<R> = Omit<R, 'signal' | 'onToken'>;

/** What the worker exposes (see `createWorkerEngine` for the user-facing side). */
export class EngineHost {
  readonly #engine = new InThreadEngine();
  readonly #running = new Map<number, AbortController>();
  readonly #cancelled = new Set<number>();

  async load(id: number, options: Omit<EngineLoadOptions, 'onProgress' | 'signal'>, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
    checkCall(id, undefined);
    checkLoadOptions(options, 'options');
    checkCallback(onProgress, 'onProgress');
    return this.#cancellable(id, (signal, delivered) =>
      this.#engine.load({ ...options, signal, ...(onProgress === undefined ? {} : { onProgress: (p: LoadProgress) => delivered.track(onProgress(p)) }) }),
    );
  }

  async compile(spec: GrammarSpec, options: CompileOptions = {}): Promise<{ readonly type: 'grammar'; readonly id: number }> {
    checkGrammarSpec(spec, 'spec');
    checkCompileOptions(options, 'options');
    return this.#engine.compile(spec, options);
  }

  async release(grammar: { readonly type: 'grammar'; readonly id: number }): Promise<void> {
    checkGrammarHandle(grammar, 'grammar');
    return this.#engine.release(grammar);
  }

  async generate(id: number, request: RemoteRequest<GenerateRequest>, onToken?: (event: TokenEvent) => Promise<void>): Promise<GenerateResult> {
    checkCall(id, onToken);
    checkGenerateRequest(request);
    return this.#cancellable(id, (signal, delivered) =>
      this.#engine.generate({ ...request, signal, ...stream(onToken, delivered, request.backpressure ?? false) }),
    );
  }

  async generateJson(
    id: number,
    schema: unknown,
    request: RemoteRequest<GenerateRequest>,
    onToken?: (event: TokenEvent) => Promise<void>,
  ): Promise<JsonResult<unknown>> {
    checkCall(id, onToken);
    checkSchema(schema, 'schema');
    checkGenerateJsonRequest(request);
    return this.#cancellable(id, (signal, delivered) =>
      this.#engine.generateJson(schema, { ...request, signal, ...stream(onToken, delivered, request.backpressure ?? false) }),
    );
  }

  // A cancel can arrive before its call starts (the signal was aborted already): remembered.
  cancel(id: number): void {
    checkCall(id, undefined);
    const running = this.#running.get(id);
    if (running !== undefined) running.abort();
    else this.#cancelled.add(id);
  }

  dispose(): Promise<void> {
    return this.#engine.dispose();
  }

  /**
   * Takes the Web Lock `name` and holds it until this worker ends, so the page learns of its
   * end however it comes (the page asks for the same lock). False where there are no locks.
   */
  async holdLifetimeLock(name: string): Promise<boolean> {
    if (typeof name !== 'string' || !name.startsWith('sieve-engine-')) throw new InvalidRequestError('name', 'must be a sieve-engine- lock name');
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (locks === undefined) return false;
    await new Promise<void>((held) => void locks.request(name, () => (held(), new Promise<never>(() => undefined))));
    return true;
  }

  async #cancellable<T>(id: number, run: (signal: AbortSignal, delivered: Delivery) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const delivered = new Delivery();
    if (this.#cancelled.delete(id)) controller.abort();
    this.#running.set(id, controller);
    try {
      return await run(controller.signal, delivered);
    } finally {
      // Results and errors alike reach the page after the events that came before them.
      await delivered.all();
      this.#running.delete(id);
    }
  }
}

// Calls to proxied callbacks travel on channels of their own: a result is sent only after
// every callback made before it has arrived, so the page sees events before the result.
class Delivery {
  readonly #pending: Promise<unknown>[] = [];
  track(call: unknown): void {
    if (call instanceof Promise) this.#pending.push(call.catch(() => undefined));
  }
  all(): Promise<unknown> {
    return Promise.all(this.#pending);
  }
}

// Masks travel to the page transferred, not copied. With backpressure the loop waits for the
// page's handler (the proxied call resolves when it has returned, or its promise settled).
function stream(
  onToken: ((event: TokenEvent) => Promise<void>) | undefined,
  delivered: Delivery,
  backpressure: boolean,
): { onToken?: (event: TokenEvent) => unknown } {
  if (onToken === undefined) return {};
  return {
    onToken: (event) => {
      const call = onToken(event.mask === undefined ? event : transfer(event, [event.mask.buffer]));
      if (backpressure) return call;
      delivered.track(call);
      return undefined;
    },
  };
}

function checkCallback(callback: unknown, path: string): void {
  if (callback !== undefined && typeof callback !== 'function') throw new InvalidRequestError(path, 'must be a callback (a comlink proxy)');
}

function checkCall(id: unknown, onToken: unknown): void {
  if (!(Number.isSafeInteger(id) && (id as number) >= 1)) throw new InvalidRequestError('id', 'must be an integer ≥ 1');
  checkCallback(onToken, 'onToken');
}

// What the page may call, and how many arguments each takes (EngineHost's methods).
const METHODS: Readonly<Record<string, number>> = { load: 3, compile: 2, release: 1, generate: 3, generateJson: 4, cancel: 1, dispose: 0, holdLifetimeLock: 1 };

/**
 * The worker's message port, as comlink sees it: only calls of the host's methods (and the
 * release of the proxy) get through, with argument values plain data or callback proxies.
 * Anything else is answered with an `InvalidRequestError` (or dropped when it has no id to
 * answer), so no message can reach other properties or crash the worker.
 */
export function checkedEndpoint(port: Endpoint): Endpoint {
  const listeners = new Map<unknown, (event: Event) => void>();
  const problem = (data: unknown): string | null => {
    const message = data as { type?: unknown; path?: unknown; argumentList?: unknown };
    if (message.type === 'RELEASE') return null;
    if (message.type !== 'APPLY') return `message type ${JSON.stringify(message.type)} is not a call`;
    const path = message.path;
    const method = Array.isArray(path) && path.length === 1 && typeof path[0] === 'string' && Object.hasOwn(METHODS, path[0]) ? path[0] : null;
    if (method === null) return `${JSON.stringify(path)} is not one of the engine's methods (${Object.keys(METHODS).join(', ')})`;
    const args = message.argumentList;
    if (!Array.isArray(args) || args.length > METHODS[method]!) return `${method} takes at most ${METHODS[method]} arguments`;
    for (const arg of args as unknown[]) {
      const wire = arg as { type?: unknown; name?: unknown; value?: unknown } | null;
      const plain = wire?.type === 'RAW' && 'value' in wire;
      const callback = wire?.type === 'HANDLER' && wire.name === 'proxy' && wire.value instanceof MessagePort;
      if (!plain && !callback) return `${method}: an argument is neither data nor a callback`;
    }
    return null;
  };
  const reject = (id: string, why: string): void => {
    const [value, transferables] = transferHandlers.get('throw')!.serialize({ value: new InvalidRequestError('message', why) });
    port.postMessage({ id, type: 'HANDLER', name: 'throw', value }, transferables);
  };
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer),
    addEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const checked = (event: Event): void => {
        const data = (event as MessageEvent).data as { id?: unknown } | null;
        const id = typeof data === 'object' && data !== null && typeof data.id === 'string' ? data.id : null;
        const why = id === null ? 'no message id' : problem(data);
        if (why === null) return void (typeof listener === 'function' ? listener(event) : listener.handleEvent(event));
        if (id !== null) reject(id, why);
        else console.warn(`Sieve's engine worker ignored a message: ${why}`);
      };
      listeners.set(listener, checked);
      port.addEventListener(type, checked);
    },
    removeEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const checked = listeners.get(listener);
      if (checked !== undefined) port.removeEventListener(type, checked);
      listeners.delete(listener);
    },
  };
}

/** Exposes an engine on this worker's message port (the whole worker file is this call). */
export function exposeEngine(): void {
  installErrorTransfer();
  expose(new EngineHost(), checkedEndpoint(globalThis as unknown as Endpoint));
}
