/**
 * Generations as async iterables, the way JavaScript streams: `engine.stream(request)` yields
 * token events as they are committed; `engine.streamJson(schema, request)` adds the partial
 * value parsed from the JSON so far. Both engines (in-thread and worker) build them on their
 * own `generate` with an `onToken` callback, so the events and the result are the same.
 *
 * Ending early: `break` (or `return()`) stops the generation and ends the iteration quietly;
 * aborting the request's `signal` makes the iterator reject with an `AbortError` (a
 * `DOMException`, as `fetch` and the streams standard do) once the events before it are read.
 * Either way `result` resolves, with `stopReason: 'abort'`, as `generate` does.
 */
import type { GenerateRequest, GenerateResult } from './engine.ts';
import type { TokenEvent } from './decode-loop.ts';

/** What `stream` takes: a generation request whose events the stream delivers. */
export type StreamRequest = Omit<GenerateRequest, 'onToken' | 'backpressure'>;

/** What a streamed generation runs with: the stream's signal and event sink. */
export interface StreamHooks {
  readonly signal: AbortSignal;
  readonly onToken: (event: TokenEvent) => void;
}

/** A generation's token events, in order, as an async iterable. */
export interface TokenStream<E = TokenEvent, R = GenerateResult> extends AsyncIterable<E> {
  /** The generation's result (resolves after the last event; rejects when it failed). */
  readonly result: Promise<R>;
}

/** A value being written: every object property and array element may still be missing. */
export type DeepPartial<T> = T extends readonly (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** A token event of a JSON stream, with the value of the JSON written so far. */
export interface JsonTokenEvent<T> extends TokenEvent {
  /** The output so far. */
  readonly json: string;
  /**
   * The value written so far (`partialJson`): strings as far as they go, containers closed,
   * an unfinished number, literal or key left out; undefined before any value starts.
   */
  readonly partial: DeepPartial<T> | undefined;
}

/**
 * Streams the generation `run` starts with the hooks given (`userSignal`: the request's):
 * events queue until read (a generation is bounded by `maxTokens`, so the queue is too).
 */
export function tokenStream<R extends GenerateResult>(
  userSignal: AbortSignal | undefined,
  run: (hooks: StreamHooks) => Promise<R>,
): TokenStream<TokenEvent, R> {
  const stop = new AbortController();
  const signal = userSignal === undefined ? stop.signal : AbortSignal.any([userSignal, stop.signal]);
  const queue: TokenEvent[] = [];
  let done = false;
  let failure: { readonly error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    wake?.();
    wake = null;
  };
  const result = run({ signal, onToken: (event) => void (queue.push(event), notify()) });
  result.then(
    () => {
      done = true;
      notify();
    },
    (error: unknown) => {
      done = true;
      failure = { error };
      notify();
    },
  );
  // The result never goes unhandled: its failure is the iterator's to report.
  result.catch(() => undefined);
  userSignal?.addEventListener('abort', notify, { once: true });
  const abortError = (): DOMException => new DOMException('The generation was aborted', 'AbortError');
  const iterator: AsyncIterator<TokenEvent> = {
    async next() {
      for (;;) {
        if (queue.length > 0) return { value: queue.shift()!, done: false };
        if (userSignal?.aborted === true && !stop.signal.aborted) throw abortError();
        if (failure !== null) throw failure.error;
        if (done) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return() {
      stop.abort();
      queue.length = 0;
      return { value: undefined, done: true };
    },
  };
  return { result, [Symbol.asyncIterator]: () => iterator };
}

/** `tokenStream` for JSON: each event also carries the output so far and its partial value. */
export function jsonStream<T, R extends GenerateResult>(
  userSignal: AbortSignal | undefined,
  run: (hooks: StreamHooks) => Promise<R>,
): TokenStream<JsonTokenEvent<T>, R> {
  const tokens = tokenStream(userSignal, run);
  return {
    result: tokens.result,
    async *[Symbol.asyncIterator]() {
      let json = '';
      for await (const event of tokens) {
        json += event.delta;
        yield { ...event, json, partial: partialJson(json) as DeepPartial<T> | undefined };
      }
    },
  };
}

// A whole number or literal; what may follow a number the text ends in; an unfinished one.
const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const NUMBER_TAIL = /[0-9.eE+-]*$/y;
const UNFINISHED = /(?:-?[0-9.eE+-]*|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?)$/y;

/**
 * The value of a prefix of a JSON text (what a constrained generation has written so far):
 * open strings end where the text does, open arrays and objects are closed, and what cannot
 * be read yet is left out — a number that may still grow (`1.`, `-`, or any number at the
 * very end), a partial `true`/`false`/`null`, an object key and its value until the value
 * starts. Undefined when no value has started. Text that is no JSON prefix throws `SyntaxError`.
 */
export function partialJson(text: string): unknown {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const end = (): boolean => at >= text.length;
  const fail = (): never => {
    throw new SyntaxError(`not a JSON prefix at offset ${at}: ${JSON.stringify(text.slice(at, at + 20))}`);
  };
  // A string from its opening quote; `complete` false when the text ends inside it.
  const string = (): { value: string; complete: boolean } => {
    let value = '';
    for (at++; !end();) {
      const c = text[at]!;
      if (c === '"') {
        at++;
        return { value, complete: true };
      }
      if (c !== '\\') {
        value += c;
        at++;
        continue;
      }
      const escape = text.slice(at, at + 6);
      const unicode = /^\\u[0-9a-fA-F]{4}/.test(escape);
      if (escape.length < 2 || (escape[1] === 'u' && !unicode)) {
        // An escape cut short by the end of the text: the string so far.
        if (at + escape.length < text.length || !/^\\(?:u[0-9a-fA-F]*)?$/.test(escape)) fail();
        at = text.length;
        break;
      }
      if (!'"\\/bfnrtu'.includes(escape[1]!)) fail();
      value += JSON.parse(`"${unicode ? escape : escape.slice(0, 2)}"`) as string;
      at += unicode ? 6 : 2;
    }
    return { value, complete: false };
  };
  const NONE = Symbol('none'); // nothing readable yet
  const value = (): unknown => {
    space();
    if (end()) return NONE;
    const c = text[at]!;
    if (c === '"') return string().value;
    if (c === '{' || c === '[') {
      // Items up to the closing bracket, a comma before each but the first.
      const close = c === '{' ? '}' : ']';
      const object: Record<string, unknown> = {};
      const array: unknown[] = [];
      at++;
      for (let first = true; ; first = false) {
        space();
        if (end()) break;
        if (text[at] === close) {
          at++;
          break;
        }
        if (!first) {
          if (text[at] !== ',') fail();
          at++;
          space();
          if (end()) break;
        }
        if (close === ']') {
          const item = value();
          if (item !== NONE) array.push(item);
          continue;
        }
        if (text[at] !== '"') fail();
        const key = string();
        space();
        if (!key.complete || end()) break;
        if (text[at] !== ':') fail();
        at++;
        const item = value();
        // (As JSON.parse does: `__proto__` is a key like any other, never the prototype.)
        if (item !== NONE) Object.defineProperty(object, key.value, { value: item, enumerable: true, writable: true, configurable: true });
      }
      return close === '}' ? object : array;
    }
    LITERAL.lastIndex = at;
    const literal = LITERAL.exec(text);
    // A number the text ends in (or in its fraction or exponent) may still grow; a literal
    // cut short is not readable yet.
    NUMBER_TAIL.lastIndex = at + (literal?.[0].length ?? 0);
    if (literal === null || (/^[-0-9]/.test(literal[0]) && NUMBER_TAIL.test(text))) {
      UNFINISHED.lastIndex = at;
      if (!UNFINISHED.test(text)) fail();
      at = text.length;
      return NONE;
    }
    at += literal[0].length;
    return JSON.parse(literal[0]) as unknown;
  };
  const result = value();
  space();
  if (!end()) fail();
  return result === NONE ? undefined : result;
}
