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

  load(options: Omit<EngineLoadOptions, 'onProgress'>, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
    return this.#engine.load({ ...options, ...(onProgress === undefined ? {} : { onProgress }) });
  }

  compile(spec: GrammarSpec): Promise<{ readonly type: 'grammar'; readonly id: number }> {
    return this.#engine.compile(spec);
  }

  generate(id: number, request: RemoteRequest<GenerateRequest>, onToken?: (event: TokenEvent) => void): Promise<GenerateResult> {
    return this.#cancellable(id, (signal) => this.#engine.generate({ ...request, signal, ...this.#stream(onToken) }));
  }

  generateJson(id: number, schema: unknown, request: RemoteRequest<GenerateRequest>, onToken?: (event: TokenEvent) => void): Promise<JsonResult<unknown>> {
    return this.#cancellable(id, (signal) => this.#engine.generateJson(schema, { ...request, signal, ...this.#stream(onToken) }));
  }

  chatCompletion(id: number, request: Omit<ChatCompletionRequest, 'signal'>): Promise<ChatCompletion> {
    return this.#cancellable(id, (signal) => this.#engine.chat.completions.create({ ...request, signal }));
  }

  cancel(id: number): void {
    this.#running.get(id)?.abort();
  }

  dispose(): Promise<void> {
    return this.#engine.dispose();
  }

  async #cancellable<T>(id: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.#running.set(id, controller);
    try {
      return await run(controller.signal);
    } finally {
      this.#running.delete(id);
    }
  }

  // Masks travel to the page transferred, not copied.
  #stream(onToken: ((event: TokenEvent) => void) | undefined): { onToken?: (event: TokenEvent) => void } {
    if (onToken === undefined) return {};
    return { onToken: (event) => void onToken(event.mask === undefined ? event : transfer(event, [event.mask.buffer])) };
  }
}

/** Exposes an engine on this worker's message port (the whole worker file is this call). */
export function exposeEngine(): void {
  installErrorTransfer();
  expose(new EngineHost());
}
