/**
 * The worker side of `createWorkerEngine`: an in-thread engine plus what cannot be cloned
 * across the boundary (abort signals become cancel calls, callbacks arrive as comlink proxies).
 */
import { expose, transfer } from 'comlink';
import type { GrammarSpec } from './constraint-specs.ts';
import type { TokenEvent } from './decode-loop.ts';
import { InThreadEngine, type ChatCompletion, type ChatCompletionRequest, type EngineLoadOptions, type GenerateRequest, type GenerateResult, type JsonResult, type ModelInfo } from './engine.ts';
import type { LoadProgress } from './model.ts';
import { installErrorTransfer } from './transfer-errors.ts';

/** A request as it crosses into the worker: no signal, no callback (that comes as its own argument, a proxy). */
export type RemoteRequest<R> = Omit<R, 'signal' | 'onToken'>;

/** What the worker exposes (see `createWorkerEngine` for the user-facing side). */
export class EngineHost {
  readonly #engine = new InThreadEngine();
  readonly #running = new Map<number, AbortController>();
  readonly #cancelled = new Set<number>();

  async load(options: Omit<EngineLoadOptions, 'onProgress'>, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
    const delivered = new Delivery();
    const info = await this.#engine.load({ ...options, ...(onProgress === undefined ? {} : { onProgress: (p: LoadProgress) => delivered.track(onProgress(p)) }) });
    await delivered.all();
    return info;
  }

  compile(spec: GrammarSpec): Promise<{ readonly type: 'grammar'; readonly id: number }> {
    return this.#engine.compile(spec);
  }

  release(grammar: { readonly type: 'grammar'; readonly id: number }): Promise<void> {
    return this.#engine.release(grammar);
  }

  generate(id: number, request: RemoteRequest<GenerateRequest>, onToken?: (event: TokenEvent) => Promise<void>): Promise<GenerateResult> {
    return this.#cancellable(id, (signal, delivered) => this.#engine.generate({ ...request, signal, ...stream(onToken, delivered, request.backpressure ?? false) }));
  }

  generateJson(id: number, schema: unknown, request: RemoteRequest<GenerateRequest>, onToken?: (event: TokenEvent) => Promise<void>): Promise<JsonResult<unknown>> {
    return this.#cancellable(id, (signal, delivered) => this.#engine.generateJson(schema, { ...request, signal, ...stream(onToken, delivered, request.backpressure ?? false) }));
  }

  chatCompletion(id: number, request: Omit<ChatCompletionRequest, 'signal'>): Promise<ChatCompletion> {
    return this.#cancellable(id, (signal) => this.#engine.chat.completions.create({ ...request, signal }));
  }

  // A cancel can arrive before its call starts (the signal was aborted already): remembered.
  cancel(id: number): void {
    const running = this.#running.get(id);
    if (running !== undefined) running.abort();
    else this.#cancelled.add(id);
  }

  dispose(): Promise<void> {
    return this.#engine.dispose();
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
function stream(onToken: ((event: TokenEvent) => Promise<void>) | undefined, delivered: Delivery, backpressure: boolean): { onToken?: (event: TokenEvent) => unknown } {
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

/** Exposes an engine on this worker's message port (the whole worker file is this call). */
export function exposeEngine(): void {
  installErrorTransfer();
  expose(new EngineHost());
}
