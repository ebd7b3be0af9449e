// The worker client against a real EngineHost on the other end of a MessageChannel (what a
// Web Worker's port is): proxied callbacks, cancellation, error classes, crash and restart.
import { InvalidSchemaError } from '@sieve/grammar';
import { expose } from 'comlink';
import { readFileSync } from 'node:fs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonSchema } from '../src/constraint-specs.ts';
import { InvalidRequestError, WorkerCrashedError } from '../src/errors.ts';
import { installErrorTransfer } from '../src/transfer-errors.ts';
import { createWorkerEngine, type WorkerEngine, type WorkerEngineOptions } from '../src/worker-client.ts';
import { checkedEndpoint, EngineHost } from '../src/worker-host.ts';
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
    expose(new EngineHost(), checkedEndpoint(port2 as never));
    port1.on('message', (data: unknown) => this.dispatchEvent(Object.assign(new Event('message'), { data })));
  }
  /** Sends a raw message to the host and resolves with its raw answer. */
  ask(message: object): Promise<unknown> {
    return new Promise((resolve) => {
      const answer = (data: { id?: unknown }): void => {
        if (data.id !== (message as { id?: unknown }).id) return;
        this.#port.off('message', answer);
        resolve(data);
      };
      this.#port.on('message', answer);
      this.#port.postMessage(message);
    });
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
const restarts: PromiseSettledResult<unknown>[] = [];
const newEngine = (options: WorkerEngineOptions = {}): WorkerEngine =>
  createWorkerEngine(
    () => {
      const worker = new ChannelWorker();
      workers.push(worker);
      return worker as unknown as Worker;
    },
    { onCrash: (error) => crashes.push(error.message), onRestart: (outcome) => restarts.push(outcome), ...options },
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
    const info = await engine.load({
      model: STORIES_260K,
      device: 'cpu',
      vocab: new Uint8Array(readFileSync(STORIES_VOCAB)),
      onProgress: (p) => progress.push(p.kind),
    });
    expect(info.tokenCount).toBe(512);
    expect(progress.at(-1)).toBe('ready');
    const masks: Uint32Array[] = [];
    const result = await engine.generate({
      prompt: 'Lily',
      constraint: JsonSchema(PERSON),
      sampling: { seed: 1 },
      maxTokens: 40,
      includeMask: true,
      onToken: (e) => e.mask && masks.push(e.mask),
    });
    expect(result.complete).toBe(true);
    expect(JSON.parse(result.text)).toHaveProperty('name');
    expect(masks.length).toBe(result.tokens.length - result.forcedTokens);
    expect(masks.every((m) => m instanceof Uint32Array && m.length > 0)).toBe(true);
  });

  it('streams across the port: every event before the result, partial values for JSON, break cancels', async () => {
    engine = newEngine();
    await load(engine);
    const stream = engine.streamJson(PERSON, { prompt: 'Lily', sampling: { seed: 2 }, maxTokens: 40 });
    const events = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(events.map((e) => e.token)).toEqual(result.tokens);
    expect(events.at(-1)?.json).toBe(result.text);
    expect(events.at(-1)?.partial).toEqual(result.value);
    const cut = engine.stream({ prompt: 'Lily', maxTokens: 64 });
    for await (const event of cut) if (event.index === 1) break;
    expect((await cut.result).stopReason).toBe('abort');
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
    const result = await engine.generate({
      prompt: 'Lily',
      maxTokens: 200,
      sampling: { seed: 2 },
      signal: controller.signal,
      onToken: (e) => e.index === 1 && controller.abort(),
    });
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

  it('with autoRestart 0, reports a crash to pending calls and restarts with the last model when told', async () => {
    engine = newEngine({ autoRestart: 0 });
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

  it('checks every request in the worker: a wrong field is an InvalidRequestError naming its path', async () => {
    engine = newEngine();
    await load(engine);
    const wrong = async (run: () => Promise<unknown>): Promise<InvalidRequestError> => {
      const error = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidRequestError);
      return error as InvalidRequestError;
    };
    expect((await wrong(() => engine.generate({ prompt: 'Lily', maxTokens: '12' as never }))).path).toBe('request.maxTokens');
    expect((await wrong(() => engine.generate({ prompt: 'Lily', max_tokens: 5 } as never))).message).toMatch(/request\.max_tokens: is not a field here/);
    expect((await wrong(() => engine.generate({ prompt: 'Lily', sampling: { temperature: 'hot' as never } }))).path).toBe('request.sampling.temperature');
    expect((await wrong(() => engine.generate({ prompt: 'Lily', constraint: { type: 'regexp', grammar: 'a' } as never }))).path).toBe(
      'request.constraint.type',
    );
    expect((await wrong(() => engine.compile({ type: 'gbnf' } as never))).path).toBe('spec.grammar');
    expect((await wrong(() => engine.compile({ type: 'regex', grammar: 'a+' }, { warmUpMs: -1 }))).path).toBe('options.warmUpMs');
    expect((await wrong(() => engine.generate({ prompt: 'Lily', messages: [] }))).message).toMatch(/exactly one of prompt and messages/);
    expect((await wrong(() => engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], functions: [] } as never))).path).toBe(
      'request.functions',
    );
    expect((await wrong(() => engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], n: 0 }))).path).toBe('request.n');
    expect((await wrong(() => engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], n: 65 }))).path).toBe('request.n');
    // And the engine goes on.
    expect((await engine.generate({ prompt: 'Lily', maxTokens: 3 })).tokens.length).toBeGreaterThan(0);
  });

  it('answers messages that are not calls of its methods with an error, and never crashes on them', async () => {
    engine = newEngine();
    await load(engine);
    const worker = workers[0]!;
    const crashed = crashes.length;
    const refused = async (message: object, why: RegExp): Promise<void> => {
      const answer = (await worker.ask(message)) as { type: string; name: string; value: { isError: boolean; value: { name: string; message: string } } };
      expect(answer).toMatchObject({ type: 'HANDLER', name: 'throw', value: { isError: true, value: { name: 'InvalidRequestError' } } });
      expect(answer.value.value.message).toMatch(why);
    };
    await refused({ id: 'a', type: 'GET', path: ['constructor'] }, /"GET" is not a call/);
    await refused({ id: 'b', type: 'SET', path: ['cancel'], value: { type: 'RAW', value: 1 } }, /is not a call/);
    await refused({ id: 'c', type: 'APPLY', path: ['constructor'], argumentList: [] }, /is not one of the engine's methods/);
    await refused({ id: 'd', type: 'APPLY', path: ['generate', 'call'], argumentList: [] }, /is not one of the engine's methods/);
    await refused(
      {
        id: 'e',
        type: 'APPLY',
        path: ['cancel'],
        argumentList: [
          { type: 'RAW', value: 1 },
          { type: 'RAW', value: 2 },
        ],
      },
      /at most 1 arguments/,
    );
    // An unknown transfer handler would throw inside comlink, outside its try: a crash.
    await refused({ id: 'f', type: 'APPLY', path: ['generate'], argumentList: [{ type: 'HANDLER', name: 'nope', value: 1 }] }, /neither data nor a callback/);
    await refused(
      { id: 'g', type: 'APPLY', path: ['generate'], argumentList: [{ type: 'HANDLER', name: 'proxy', value: 'not a port' }] },
      /neither data nor a callback/,
    );
    // Well-formed calls with bad values: the method's own checks answer.
    await refused({ id: 'h', type: 'APPLY', path: ['cancel'], argumentList: [{ type: 'RAW', value: -1 }] }, /^id: must be an integer/);
    await refused(
      {
        id: 'i',
        type: 'APPLY',
        path: ['generate'],
        argumentList: [
          { type: 'RAW', value: 7 },
          { type: 'RAW', value: 'Lily' },
        ],
      },
      /^request: must be an object/,
    );
    // Without an id there is no one to answer: ignored.
    worker.postMessage({ type: 'APPLY', path: ['dispose'], argumentList: [] });
    worker.postMessage(null);
    expect(crashes.length).toBe(crashed);
    expect((await engine.generate({ prompt: 'Lily', maxTokens: 3 })).tokens.length).toBeGreaterThan(0);
  });

  it('restarts a crashed worker by itself; grammar handles stay valid', async () => {
    engine = newEngine();
    await load(engine);
    const person = await engine.compile({ type: 'json-schema', schema: PERSON });
    const before = await engine.generate({ prompt: 'Lily', constraint: person, sampling: { seed: 5 }, maxTokens: 40 });
    const restarted = restarts.length;
    const pending = engine.generate({ prompt: 'Lily', maxTokens: 400, sampling: { seed: 3 } });
    workers.at(-1)!.crash('out of memory');
    await expect(pending).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect.poll(() => restarts.length).toBe(restarted + 1);
    expect(restarts.at(-1)).toMatchObject({ status: 'fulfilled', value: { tokenCount: 512 } });
    expect(workers.at(-2)!.terminated).toBe(true);
    // The handle compiled in the dead worker works in the new one, with the same result.
    const after = await engine.generate({ prompt: 'Lily', constraint: { type: 'all-of', constraints: [person] }, sampling: { seed: 5 }, maxTokens: 40 });
    expect(after.text).toBe(before.text);
    await engine.release(person);
    await expect(engine.generate({ prompt: 'Lily', constraint: person, maxTokens: 4 })).rejects.toThrow(/no compiled grammar/);
  });

  it('stops restarting a worker that crashes every time (until a generation completes)', async () => {
    engine = newEngine({ autoRestart: 2 });
    await load(engine);
    const restarted = restarts.length;
    for (let i = 0; i < 2; i++) {
      workers.at(-1)!.crash(`crash ${i}`);
      await expect.poll(() => restarts.length).toBe(restarted + i + 1);
    }
    const count = workers.length;
    workers.at(-1)!.crash('crash 2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workers.length).toBe(count);
    expect(crashes.at(-1)).toMatch(/crash 2/);
    await expect(engine.generate({ prompt: 'Lily', maxTokens: 2 })).rejects.toBeInstanceOf(WorkerCrashedError);
    // Restarted by hand, a completed generation resets the count: the next crash restarts again.
    await engine.restart();
    await engine.generate({ prompt: 'Lily', maxTokens: 2 });
    workers.at(-1)!.crash('crash 3');
    await expect.poll(() => restarts.length).toBe(restarted + 3);
  });
});
