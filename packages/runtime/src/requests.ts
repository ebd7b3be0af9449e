/**
 * Checks of every request the engine takes, before any work starts: in-thread, and in the
 * worker on whatever arrives in a message. A bad value throws `InvalidRequestError` naming
 * its path (`request.sampling.topK`); unknown fields are errors too (a typo is never ignored).
 * Ranges of numbers the sampler and grammar compiler check themselves are left to them.
 * (A chat completion request is checked in chat-completions.ts, on the page for a worker
 * engine: a constraint's check here knows compiled grammars, and so imports the compiler.)
 */
import { DEFAULT_LIMITS, GRAMMAR_FORMATS, toolCallStart, type ToolCallFormat } from '@sieve/grammar/inputs';
import type { ConstraintInput } from './constraint-specs.ts';
import { Grammar, isCustom } from './constraints.ts';
import { InvalidRequestError } from './errors.ts';
import {
  arrayOf,
  boolean,
  bytesOrUrl,
  chatMessage,
  describe,
  either,
  expect,
  fields,
  func,
  integer,
  integerIn,
  nonEmptyString,
  number,
  oneOf,
  record,
  signal,
  string,
  type Check,
} from './request-checks.ts';

const limits = fields(Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((name) => [name, integer(0)])));
const whitespace = fields({ style: oneOf('compact', 'any'), maxRun: integer(1), separators: fields({ item: string, key: string }, ['item', 'key']) });
const repetition = fields({ maxItems: integer(0), maxProperties: integer(0), maxStringLength: integer(0) });
const schemaOptions = fields({
  strict: boolean,
  whitespace,
  repetition,
  lenient: boolean,
  maxRules: integer(1),
  integerFractions: boolean,
  formats: oneOf('assert', 'annotate'),
});
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
  'tool-calls': (value, path) => {
    fields(
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
    )(value, path);
    const { tools, format, after } = value as { tools: readonly unknown[]; format: ToolCallFormat; after?: string };
    if (tools.length === 0) throw new InvalidRequestError(`${path}.tools`, 'tool calls need at least one tool');
    if (after !== undefined && !toolCallStart(format).startsWith(after))
      throw new InvalidRequestError(`${path}.after`, `${JSON.stringify(after)} does not start a tool call (${JSON.stringify(toolCallStart(format))})`);
  },
  ...Object.fromEntries(GRAMMAR_FORMATS.map((format) => [format, fields({ type: string, grammar: string, index: bytesOrUrl }, ['grammar'])])),
  regex: fields({ type: string, grammar: string, flags: string, index: bytesOrUrl }, ['grammar']),
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

const sampling = fields({ temperature: number, topK: number, topP: number, minP: number, repetitionPenalty: number, seed: number, logitBias: bias });

const GENERATE_FIELDS: Readonly<Record<string, Check>> = {
  prompt: string,
  messages: arrayOf(chatMessage),
  chatTemplate: string,
  templateOptions: record,
  constraint: checkConstraint,
  sampling,
  maxTokens: integer(0),
  stop: arrayOf(string),
  stopBefore: string,
  fastForward: boolean,
  tokenHealing: boolean,
  beams: integer(1),
  reusePrefix: boolean,
  includeMask: boolean,
  logprobs: integerIn(0, 20),
  signal,
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

/** Checks `compile`'s options. */
export const checkCompileOptions: Check = fields({ warmUpMs: integer(0) });

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
    signal,
    vocab: bytesOrUrl,
    kernel: either('bytes, a WebAssembly.Module, a Response or a URL', string, record),
    limits,
  },
  ['model'],
);

/** Checks a value the caller passes to a method unchecked (e.g. generateJson's schema). */
export const checkSchema: Check = either('a JSON Schema (an object or a boolean)', record, boolean);
