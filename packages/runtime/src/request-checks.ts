/**
 * The checks requests are built from: a value's type, an object's fields (unknown ones are
 * errors: a typo is never ignored), arrays, alternatives. A bad value throws
 * `InvalidRequestError` naming its path (`request.sampling.topK`). Nothing here knows the
 * engine or the compiler, so the page's chat facade checks its requests with them too.
 */
import { InvalidRequestError } from './errors.ts';

export type Check = (value: unknown, path: string) => void;

/** A value as an error message names it. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return `${typeof value} ${String(value)}`;
}

/** Throws `InvalidRequestError` at `path` unless `ok`: `value` must be `what`. */
export function expect(ok: boolean, path: string, what: string, value: unknown): void {
  if (!ok) throw new InvalidRequestError(path, `must be ${what}, not ${describe(value)}`);
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const string: Check = (value, path) => expect(typeof value === 'string', path, 'a string', value);
export const nonEmptyString: Check = (value, path) => expect(typeof value === 'string' && value !== '', path, 'a non-empty string', value);
export const boolean: Check = (value, path) => expect(typeof value === 'boolean', path, 'true or false', value);
export const number: Check = (value, path) => expect(typeof value === 'number' && !Number.isNaN(value), path, 'a number', value);
export const func: Check = (value, path) => expect(typeof value === 'function', path, 'a function', value);
export const bytesOrUrl: Check = (value, path) => expect(typeof value === 'string' || value instanceof Uint8Array, path, 'a Uint8Array or a URL string', value);
export const record: Check = (value, path) => expect(isRecord(value), path, 'an object', value);
export const signal: Check = (value, path) => expect(typeof AbortSignal !== 'undefined' && value instanceof AbortSignal, path, 'an AbortSignal', value);

export const integer =
  (min: number): Check =>
  (value, path) =>
    expect(Number.isSafeInteger(value) && (value as number) >= min, path, `an integer ≥ ${min}`, value);

export const integerIn =
  (min: number, max: number): Check =>
  (value, path) =>
    expect(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max, path, `an integer from ${min} to ${max}`, value);

export const oneOf =
  (...values: readonly unknown[]): Check =>
  (value, path) =>
    expect(values.includes(value), path, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, value);

export const arrayOf =
  (item: Check, limit = 1_000_000): Check =>
  (value, path) => {
    expect(Array.isArray(value) && value.length <= limit, path, `an array (of at most ${limit} items)`, value);
    (value as unknown[]).forEach((v, i) => item(v, `${path}[${i}]`));
  };

export const either =
  (what: string, ...checks: Check[]): Check =>
  (value, path) => {
    const ok = checks.some((check) => {
      try {
        check(value, path);
        return true;
      } catch {
        return false;
      }
    });
    expect(ok, path, what, value);
  };

/** An object with these fields (`required` must be present); any other field is an error. */
export function fields(shape: Readonly<Record<string, Check>>, required: readonly string[] = []): Check {
  return (value, path) => {
    record(value, path);
    const object = value as Record<string, unknown>;
    for (const key of required) if (object[key] === undefined) throw new InvalidRequestError(`${path}.${key}`, 'is required');
    for (const [key, field] of Object.entries(object)) {
      const check = shape[key];
      if (check === undefined) throw new InvalidRequestError(`${path}.${key}`, `is not a field here (known: ${Object.keys(shape).join(', ')})`);
      if (field !== undefined) check(field, `${path}.${key}`);
    }
  };
}

/** A chat message (`generate`'s `messages`, a chat completion's). */
export const chatMessage = fields({ role: string, content: string, tool_calls: arrayOf(record), tool_call_id: string, name: string }, ['role', 'content']);
