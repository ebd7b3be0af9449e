// The worker client against a real EngineHost on the other end of a MessageChannel (what a
// Web Worker's port is): proxied callbacks, cancellation, error classes, crash and restart.
import { InvalidSchemaError } from '@sieve/grammar';
import { expose } from 'comlink';
import { readFileSync } from 'node:fs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonSchema } from '../src/constraint-specs.ts';
import { WorkerCrashedError } from '../src/errors.ts';
import { installErrorTransfer } from '../src/transfer-errors.ts';
import { createWorkerEngine, type WorkerEngine } from '../src/worker-client.ts';
import { EngineHost } from '../src/worker-host.ts';
import { STORIES_260K, STORIES_VOCAB } from './support/engine.ts';

const PERSON = { type: 'object', properties: { name: { type: 'string', maxLength: 10 } }, required: ['name'], additionalProperties: false };

// A stand-in for `Worker`: its port talks to an EngineHost; `crash()` fires the error event a
// dying worker fires.
class ChannelWorker extends EventTarget {
  readonly #port: MessagePort;
  readonly #host: MessagePort;
  terminated = false;
  constructor() {
    super();
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#host = port2;
    installErrorTransfer();
    expose(new EngineHost(), port2 as never);
    port1.on('message', (data: unknown) => this.dispatchEvent(Object.assign(new Event('message'), { data })));
  }
  postMessage(message: unknown, transfer?: Transferable[]): void {
    this.#port.postMessage(message, transfer as never);
  }
  terminate(): void {
    this.terminated = true;
    this.#port.close();
    this.#host.close();
  }
  crash(message: string): void {
    this.dispatchEvent(Object.assign(new Event('error'), { message }));
  }
}

const workers: ChannelWorker[] = [];
let engine: WorkerEngine;
const crashes: string[] = [];
const newEngine = (): WorkerEngine =>
  createWorkerEngine(
    () => {
      const worker = new ChannelWorker();
      workers.push(worker);
      return worker as unknown as Worker;
    },
    { onCrash: (error) => crashes.push(error.message) },
  );
const load = (e: WorkerEngine) => e.load({ model: STORIES_260K, device: 'cpu', vocab: new Uint8Array(readFileSync(STORIES_VOCAB)) });

afterEach(async () => {
  await engine?.dispose();
  workers.length = 0;
});

describe('createWorkerEngine', () => {
  it('generates through the port, streaming through a proxied callback, with masks transferred', async () => {
    engine = newEngine();
    const progress: string[] = [];
    const info = await engine.load({ model: STORIES_260K, device: 'cpu', vocab: new Uint8Array(readFileSync(STORIES_VOCAB)), onProgress: (p) => progress.push(p.kind) });
    expect(info.tokenCount).toBe(512);
    expect(progress.at(-1)).toBe('ready');
    const masks: Uint32Array[] = [];
    const result = await engine.generate({ prompt: 'Lily', constraint: JsonSchema(PERSON), sampling: { seed: 1 }, maxTokens: 40, includeMask: true, onToken: (e) => e.mask && masks.push(e.mask) });
    expect(result.complete).toBe(true);
    expect(JSON.parse(result.text)).toHaveProperty('name');
    expect(masks.length).toBe(result.tokens.length - result.forcedTokens);
    expect(masks.every((m) => m instanceof Uint32Array && m.length > 0)).toBe(true);
  });

  it('with backpressure, a promise returned by onToken pauses generation (step-through)', async () => {
    engine = newEngine();
    await load(engine);
    const seen: number[] = [];
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const running = engine.generate({
      prompt: 'Lily',
      maxTokens: 6,
      sampling: { seed: 4 },
      backpressure: true,
      onToken: (e) => {
        seen.push(e.index);
        return e.index === 1 ? paused : undefined;
      },
    });
    // Wait for the paused token, then give the worker time it would use to go on.
    while (!seen.includes(1)) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(seen).toEqual([0, 1]);
    resume();
    const result = await running;
    expect(seen).toEqual(result.tokens.map((_, i) => i));
  });

  it('turns an abort signal into a cancel call', async () => {
    engine = newEngine();
    await load(engine);
    const controller = new AbortController();
    const result = await engine.generate({ prompt: 'Lily', maxTokens: 200, sampling: { seed: 2 }, signal: controller.signal, onToken: (e) => e.index === 1 && controller.abort() });
    expect(result.stopReason).toBe('abort');
    expect(result.tokens.length).toBeLessThan(200);
    // A signal aborted before the call: the worker does not start.
    const early = await engine.generate({ prompt: 'Lily', maxTokens: 50, signal: AbortSignal.abort() });
    expect(early.stopReason).toBe('abort');
    expect(early.tokens).toEqual([]);
  });

  it('rejects with the error class and fields thrown in the worker', async () => {
    engine = newEngine();
    await load(engine);
    const error = await engine.generate({ prompt: 'Lily', constraint: JsonSchema({ properties: { a: { minimum: 'x' } } }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSchemaError);
    expect(error).toMatchObject({ code: 'invalid_schema', pointer: '/properties/a', keyword: 'minimum' });
  });

  it('reports a crash to pending calls and restarts with the last model', async () => {
    engine = newEngine();
    await load(engine);
    const pending = engine.generate({ prompt: 'Lily', maxTokens: 400, sampling: { seed: 3 } });
    workers[0]!.crash('out of memory');
    await expect(pending).rejects.toBeInstanceOf(WorkerCrashedError);
    expect(crashes.at(-1)).toMatch(/out of memory/);
    await expect(engine.generate({ prompt: 'Lily', maxTokens: 2 })).rejects.toThrow(/crashed: out of memory; call restart/);
    const info = await engine.restart();
    expect(workers[0]!.terminated).toBe(true);
    expect(workers.length).toBe(2);
    expect(info?.tokenCount).toBe(512);
    const result = await engine.generate({ prompt: 'Lily', constraint: JsonSchema(PERSON), sampling: { seed: 3 }, maxTokens: 40 });
    expect(result.complete).toBe(true);
  });
});
