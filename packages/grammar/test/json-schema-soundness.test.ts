// Soundness of the JSON Schema compiler: whatever a model can be made to write under the mask
// is valid. Seeded random walks over the allowed tokens of stories260k (kernel matcher) for a
// spread of MaskBench-dev schemas and for the hand-written ones of json-schema-cases/; every
// walk that ends on EOS must be UTF-8, parse with JSON.parse and validate with ajv (draft
// 2020-12, formats asserted). Walks wind down after a random number of free steps (see
// support/schema-walks.ts) and are capped, so most but not all of them end.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrammarLimitError, KernelGrammar, KernelMatcher, recognize, SchemaError, type CompiledGrammar, type JsonSchemaOptions } from '../src/index.ts';
import { ajvValidator, compileSchema } from './support/json-schema-oracle.ts';
import { randomWalk, requiredWords, schemaWords, tokenTexts, wordTargets } from './support/schema-walks.ts';
import { seeded, vocab } from './support/vocabs.ts';

const MASKBENCH = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpora', 'maskbench-dev');
const SAMPLE_SIZE = 60;
const MASKBENCH_WALKS = 6;
const CASE_WALKS = 3;
const MAX_STEPS = 400;

interface Subject {
  readonly name: string;
  readonly schema: unknown;
  readonly options: JsonSchemaOptions;
  readonly walks: number;
  /** Nothing satisfies the schema (the table cases without valid instances): no walk may end. */
  readonly empty: boolean;
}

// MaskBench-dev files spread evenly over the sorted list.
const files = readdirSync(MASKBENCH)
  .filter((f) => f.endsWith('.json'))
  .sort();
const maskBench: Subject[] = Array.from({ length: SAMPLE_SIZE }, (_, i) => files[Math.floor((i * files.length) / SAMPLE_SIZE)]!).map((file) => {
  const { schema } = JSON.parse(readFileSync(join(MASKBENCH, file), 'utf8')) as { schema: unknown };
  return { name: file, schema, options: {}, walks: MASKBENCH_WALKS, empty: false };
});

// The hand-written schemas, with default whitespace and compact.
const casesDir = join(import.meta.dirname, 'json-schema-cases');
const handWritten: Subject[] = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap(
    (f) =>
      JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as {
        description: string;
        schema: unknown;
        options?: JsonSchemaOptions;
        valid?: unknown[];
        validTexts?: string[];
      }[],
  )
  .filter((c) => c.options === undefined)
  .flatMap((c) => {
    const empty = (c.valid?.length ?? 0) + (c.validTexts?.length ?? 0) === 0;
    return [
      { name: c.description, schema: c.schema, options: {}, walks: CASE_WALKS, empty },
      { name: `${c.description} (compact)`, schema: c.schema, options: { whitespace: { style: 'compact' as const } }, walks: CASE_WALKS, empty },
    ];
  });

interface Outcome {
  /** Why the schema was skipped: the compiler refused it with a typed error. */
  readonly skipped?: string;
  /** Anything else that went wrong compiling or walking. */
  readonly crashed?: string;
  readonly completed: number;
  readonly walks: number;
  /** Completed outputs that are not valid instances (compiler bugs), as readable lines. */
  readonly unsound: string[];
}

let kernel: Kernel;
let kernelVocab: KernelVocab;
const index = vocab('stories260k');
const texts = tokenTexts(index);
const eos = new Set(index.meta.eos_token_ids);
const utf8 = new TextDecoder('utf-8', { fatal: true });

beforeAll(async () => {
  kernel = await loadKernel();
  kernelVocab = kernel.loadVocab(index.file);
});
afterAll(() => kernel.dispose());

function explore(subject: Subject, seed: number): Outcome {
  let grammar: CompiledGrammar;
  try {
    // Walks compare outputs, not times: the per-mask time budget is lifted (a loaded CI
    // machine must not turn a slow mask into a failure).
    grammar = compileSchema(subject.schema, subject.options, { maxMaskMs: 600_000 });
  } catch (error) {
    if (error instanceof SchemaError || error instanceof GrammarLimitError)
      return { skipped: `${error.code}: ${error.message}`, completed: 0, walks: 0, unsound: [] };
    throw error;
  }
  const validate = ajvValidator(subject.schema);
  const kernelGrammar = new KernelGrammar(kernel, grammar);
  const words = wordTargets(schemaWords(subject.schema));
  const preferredWords = wordTargets(requiredWords(subject.schema));
  const random = seeded(seed);
  const unsound: string[] = [];
  let completed = 0;
  for (let w = 0; w < subject.walks; w++) {
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab, { eosTokenIds: [...eos] });
    const walk = randomWalk(matcher, texts, eos, { random, freeSteps: Math.floor(random() * 40), maxSteps: MAX_STEPS, words, preferredWords });
    matcher.dispose();
    if (!walk.completed) continue;
    completed++;
    const problem = (() => {
      const recognized = recognize(grammar, walk.bytes);
      if (!recognized.accepted || !recognized.complete) return 'the recognizer does not accept the walk';
      let text: string;
      try {
        text = utf8.decode(walk.bytes);
      } catch {
        return 'not UTF-8';
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return `not JSON (${(error as Error).message})`;
      }
      if (validate(value)) return null;
      // (A multiple past 2^53 is not judged, nor the combinations around it that its error fails.)
      const all = validate.errors ?? [];
      const unjudged = all.filter((e) => e.keyword === 'multipleOf' && beyondDoubles(valueAt(value, e.instancePath))).map((e) => e.instancePath);
      const errors = all.filter(
        (e) =>
          !unjudged.some((path) =>
            e.keyword === 'multipleOf' ? path === e.instancePath : COMBINATIONS.has(e.keyword) && `${path}/`.startsWith(`${e.instancePath}/`),
          ),
      );
      return errors.length === 0 ? null : `invalid: ${ajvErrors(errors)}`;
    })();
    if (problem !== null) unsound.push(`${problem}\n  output: ${JSON.stringify(new TextDecoder().decode(walk.bytes))}`);
  }
  return { completed, walks: subject.walks, unsound };
}

// Whether doubles cannot tell a number's multiples: past 2^53 every double is an integer and
// the text's digits are lost (ajv also compares the quotient with its parseInt, which reads
// 1e+21 as 1); `multipleOf` is not judged there.
const beyondDoubles = (value: unknown): boolean => typeof value === 'number' && Math.abs(value) >= 2 ** 53;
const COMBINATIONS = new Set(['anyOf', 'oneOf', 'not', 'if', 'then', 'else']);

// The value at a JSON pointer (ajv's instancePath) of a parsed instance.
function valueAt(value: unknown, pointer: string): unknown {
  let here = value;
  for (const part of pointer.split('/').slice(1)) here = (here as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return here;
}

function ajvErrors(errors: unknown): string {
  return JSON.stringify(
    (errors as { instancePath: string; keyword: string; message?: string }[] | null)?.map((e) => `${e.instancePath} ${e.keyword}: ${e.message}`),
  );
}

describe.each([
  ['MaskBench-dev sample', maskBench, 0.8],
  ['hand-written schemas', handWritten, 0.9],
] as const)('random walks over allowed tokens (%s)', (_, subjects, minCompleted) => {
  const outcomes = new Map<Subject, Outcome>();
  beforeAll(() => {
    subjects.forEach((subject, i) => {
      try {
        outcomes.set(subject, explore(subject, 1000 + i));
      } catch (error) {
        outcomes.set(subject, { crashed: String((error as Error).stack ?? error), completed: 0, walks: 0, unsound: [] });
      }
    });
  }, 60_000);

  it.for(subjects.map((s) => [s.name, s] as const))('%s: every completed output is a valid instance', ([, subject], ctx) => {
    const outcome = outcomes.get(subject)!;
    // Refused schemas show as skipped (the share of them is bounded below).
    if (outcome.skipped !== undefined) ctx.skip();
    expect(outcome.crashed).toBeUndefined();
    expect(outcome.unsound).toEqual([]);
  });

  it(`at least ${minCompleted * 100}% of the walks end (none on schemas nothing satisfies)`, () => {
    let walks = 0;
    let completed = 0;
    for (const subject of subjects) {
      const outcome = outcomes.get(subject)!;
      if (subject.empty) {
        expect(outcome.completed, `${subject.name} has no valid instance`).toBe(0);
        continue;
      }
      walks += outcome.walks;
      completed += outcome.completed;
    }
    expect(walks).toBeGreaterThan(subjects.length);
    expect(completed / walks).toBeGreaterThanOrEqual(minCompleted);
  });

  it('skips few schemas', () => {
    const skipped = subjects.filter((s) => outcomes.get(s)!.skipped !== undefined);
    expect(skipped.length, skipped.map((s) => `${s.name}: ${outcomes.get(s)!.skipped}`).join('\n')).toBeLessThanOrEqual(subjects.length / 5);
  });
});
