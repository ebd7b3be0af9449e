/**
 * Checks of every request the engine takes, before any work starts: in-thread, and in the
 * worker on whatever arrives in a message. A bad value throws `InvalidRequestError` naming
 * its path (`request.sampling.topK`); unknown fields are errors too (a typo is never ignored).
 * Ranges of numbers the sampler and grammar compiler check themselves are left to them.
 */
import { DEFAULT_LIMITS, GRAMMAR_FORMATS } from '@sieve/grammar';
import type { ConstraintInput } from './constraint-specs.ts';
import { Grammar, isCustom } from './constraints.ts';
import { InvalidRequestError } from './errors.ts';

type Check = (value: unknown, path: string) => void;

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return `${typeof value} ${String(value)}`;
}

function expect(ok: boolean, path: string, what: string, value: unknown): void {
  if (!ok) throw new InvalidRequestError(path, `must be ${what}, not ${describe(value)}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const string: Check = (value, path) => expect(typeof value === 'string', path, 'a string', value);
const nonEmptyString: Check = (value, path) => expect(typeof value === 'string' && value !== '', path, 'a non-empty string', value);
const boolean: Check = (value, path) => expect(typeof value === 'boolean', path, 'true or false', value);
const number: Check = (value, path) => expect(typeof value === 'number' && !Number.isNaN(value), path, 'a number', value);
const func: Check = (value, path) => expect(typeof value === 'function', path, 'a function', value);
const bytesOrUrl: Check = (value, path) => expect(typeof value === 'string' || value instanceof Uint8Array, path, 'a Uint8Array or a URL string', value);
const record: Check = (value, path) => expect(isRecord(value), path, 'an object', value);

const integer =
  (min: number): Check =>
  (value, path) =>
    expect(Number.isSafeInteger(value) && (value as number) >= min, path, `an integer ≥ ${min}`, value);

const integerIn =
  (min: number, max: number): Check =>
  (value, path) =>
    expect(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max, path, `an integer from ${min} to ${max}`, value);

const oneOf =
  (...values: readonly unknown[]): Check =>
  (value, path) =>
    expect(values.includes(value), path, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, value);

const arrayOf =
  (item: Check, limit = 1_000_000): Check =>
  (value, path) => {
    expect(Array.isArray(value) && value.length <= limit, path, `an array (of at most ${limit} items)`, value);
    (value as unknown[]).forEach((v, i) => item(v, `${path}[${i}]`));
  };

const either =
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
function fields(shape: Readonly<Record<string, Check>>, required: readonly string[] = []): Check {
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

const limits = fields(Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((name) => [name, integer(0)])));
const whitespace = fields({ style: oneOf('compact', 'any'), maxRun: integer(1), separators: fields({ item: string, key: string }, ['item', 'key']) });
const repetition = fields({ maxItems: integer(0), maxProperties: integer(0), maxStringLength: integer(0) });
const schemaOptions = fields({ strict: boolean, whitespace, repetition, lenient: boolean, maxRules: integer(1) });
const tokenIds = arrayOf(integer(0));
const bias = (value: unknown, path: string): void => {
  record(value, path);
  for (const [id, b] of Object.entries(value as Record<string, unknown>)) {
    expect(/^\d+$/.test(id), `${path}`, 'keyed by token ids', id);
    number(b, `${path}.${id}`);
  }
};

const GRAMMAR_SPECS: Readonly<Record<string, Check>> = {
  'json-schema': fields(
    { type: string, schema: either('a JSON Schema (an object or a boolean)', record, boolean), options: schemaOptions, index: bytesOrUrl },
    ['schema'],
  ),
  json: fields({ type: string, whitespace, repetition, index: bytesOrUrl }),
  'tool-calls': fields(
    {
      type: string,
      tools: arrayOf(
        fields({ name: nonEmptyString, parameters: either('a JSON Schema (an object or a boolean)', record, boolean) }, ['name', 'parameters']),
        128,
      ),
      format: fields({ open: string, close: string, between: string, argumentsKey: nonEmptyString }, ['open', 'close', 'between', 'argumentsKey']),
      parallel: boolean,
      after: string,
      index: bytesOrUrl,
    },
    ['tools', 'format'],
  ),
  ...Object.fromEntries(GRAMMAR_FORMATS.map((format) => [format, fields({ type: string, grammar: string, index: bytesOrUrl }, ['grammar'])])),
};

/** Checks a grammar spec (what `compile` takes). */
export const checkGrammarSpec: Check = (value, path) => {
  record(value, path);
  const type = (value as { type?: unknown }).type;
  const check = GRAMMAR_SPECS[type as string];
  if (check === undefined) throw new InvalidRequestError(`${path}.type`, `must be one of ${Object.keys(GRAMMAR_SPECS).join(', ')}, not ${describe(type)}`);
  check(value, path);
};

/** Checks a grammar handle (what `compile` returned). */
export const checkGrammarHandle: Check = fields({ type: oneOf('grammar'), id: integer(1) }, ['type', 'id']);

// Nested constraints deeper than this are refused (a message could nest them without end).
const MAX_CONSTRAINT_DEPTH = 32;

function checkConstraintAt(depth: number): Check {
  return (value, path) => {
    if (depth > MAX_CONSTRAINT_DEPTH) throw new InvalidRequestError(path, `nests constraints more than ${MAX_CONSTRAINT_DEPTH} deep`);
    record(value, path);
    // A custom constraint or a compiled `Grammar` (objects with methods: in-thread only).
    if (isCustom(value as ConstraintInput) || value instanceof Grammar) return;
    const nested = checkConstraintAt(depth + 1);
    const spec = value as { type?: unknown };
    switch (spec.type) {
      case 'ban-tokens':
        return fields({ type: string, tokens: tokenIds }, ['tokens'])(value, path);
      case 'logit-bias':
        return fields({ type: string, bias }, ['bias'])(value, path);
      case 'all-of':
        return fields({ type: string, constraints: arrayOf(nested, 64) }, ['constraints'])(value, path);
      case 'think':
        return fields({ type: string, trigger: nonEmptyString, then: nested, optional: boolean }, ['trigger', 'then'])(value, path);
      case 'grammar':
        return checkGrammarHandle(value, path);
      default:
        return checkGrammarSpec(value, path);
    }
  };
}

/** Checks a constraint: a spec, a compiled grammar or handle, or a custom `step()` object. */
export const checkConstraint: Check = checkConstraintAt(0);

const message = fields({ role: string, content: string, tool_calls: arrayOf(record), tool_call_id: string, name: string }, ['role', 'content']);
const sampling = fields({ temperature: number, topK: number, topP: number, minP: number, repetitionPenalty: number, seed: number, logitBias: bias });

const GENERATE_FIELDS: Readonly<Record<string, Check>> = {
  prompt: string,
  messages: arrayOf(message),
  chatTemplate: string,
  templateOptions: record,
  constraint: checkConstraint,
  sampling,
  maxTokens: integer(0),
  stop: arrayOf(string),
  fastForward: boolean,
  tokenHealing: boolean,
  beams: integer(1),
  reusePrefix: boolean,
  includeMask: boolean,
  logprobs: integerIn(0, 20),
  signal: (value, path) => expect(typeof AbortSignal !== 'undefined' && value instanceof AbortSignal, path, 'an AbortSignal', value),
  onToken: func,
  backpressure: boolean,
};

function promptOrMessages(value: unknown, path: string): void {
  const request = value as { prompt?: unknown; messages?: unknown };
  if ((request.prompt === undefined) === (request.messages === undefined)) throw new InvalidRequestError(path, 'give exactly one of prompt and messages');
}

/** Checks a `generate` request. */
export function checkGenerateRequest(value: unknown, path = 'request'): void {
  fields(GENERATE_FIELDS)(value, path);
  promptOrMessages(value, path);
  const request = value as { beams?: number; logprobs?: number };
  if ((request.beams ?? 1) > 1 && request.logprobs !== undefined)
    throw new InvalidRequestError(`${path}.logprobs`, 'comes with sampling only, not beam search');
}

/** Checks a `generateJson` request (no `constraint`: the schema is; `schemaOptions` for it). */
export function checkGenerateJsonRequest(value: unknown, path = 'request'): void {
  const { constraint, ...rest } = GENERATE_FIELDS;
  void constraint;
  fields({ ...rest, schemaOptions })(value, path);
  promptOrMessages(value, path);
}

/** Checks a chat completion request (the OpenAI fields Sieve implements; `model` is ignored). */
export const checkChatRequest: Check = fields(
  {
    model: string,
    messages: arrayOf(message),
    response_format: (value, path) => {
      record(value, path);
      const type = (value as { type?: unknown }).type;
      if (type === 'json_schema')
        return fields(
          {
            type: string,
            json_schema: fields(
              { name: string, schema: either('a JSON Schema (an object or a boolean)', record, boolean), strict: boolean, description: string },
              ['schema'],
            ),
          },
          ['json_schema'],
        )(value, path);
      oneOf('text', 'json_object', 'json_schema', 'grammar')(type, `${path}.type`);
      // web-llm's shapes: a JSON object with its schema (often a JSON string), an EBNF grammar.
      if (type === 'json_object') return fields({ type: string, schema: either('a JSON Schema, or its JSON text', record, string) })(value, path);
      if (type === 'grammar') return fields({ type: string, grammar: string }, ['grammar'])(value, path);
      fields({ type: string })(value, path);
    },
    max_tokens: integer(0),
    max_completion_tokens: integer(0),
    temperature: number,
    top_p: number,
    seed: number,
    stop: either('a string or an array of strings', string, arrayOf(string)),
    n: integerIn(1, 64),
    stream: boolean,
    stream_options: fields({ include_usage: boolean }),
    signal: GENERATE_FIELDS['signal']!,
    chatTemplate: string,
    chat_template_kwargs: record,
    extra_body: fields({ enable_thinking: boolean }),
    tools: arrayOf(
      fields(
        {
          type: oneOf('function'),
          function: fields(
            { name: nonEmptyString, description: string, parameters: either('a JSON Schema (an object or a boolean)', record, boolean), strict: boolean },
            ['name'],
          ),
        },
        ['type', 'function'],
      ),
      128,
    ),
    tool_choice: (value, path) =>
      typeof value === 'string'
        ? oneOf('none', 'auto', 'required')(value, path)
        : fields({ type: oneOf('function'), function: fields({ name: nonEmptyString }, ['name']) }, ['type', 'function'])(value, path),
    parallel_tool_calls: boolean,
    logprobs: boolean,
    top_logprobs: integerIn(0, 20),
  },
  ['messages'],
);

/** Checks `load` options. */
export const checkLoadOptions: Check = fields(
  {
    model: nonEmptyString,
    dtype: either('a data type name or an object of them', string, record),
    device: oneOf('auto', 'webgpu', 'wasm', 'cpu'),
    cache: boolean,
    wasmPaths: string,
    onProgress: func,
    hub: nonEmptyString,
    signal: GENERATE_FIELDS['signal']!,
    vocab: bytesOrUrl,
    kernel: either('bytes, a WebAssembly.Module, a Response or a URL', string, record),
    limits,
  },
  ['model'],
);

/** Checks a value the caller passes to a method unchecked (e.g. generateJson's schema). */
export const checkSchema: Check = either('a JSON Schema (an object or a boolean)', record, boolean);
