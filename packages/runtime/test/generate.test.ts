// Generation with the real stories260K model (onnxruntime-node): every output is valid for its
// constraint (ajv for JSON Schema, the byte-level recognizer for text grammars), greedy and
// sampled, with budget-aware ending keeping outputs whole when maxTokens cuts in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Matcher, recognize } from '@sieve/grammar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { Gbnf, JsonSchema, Lark, Regex, type GrammarSpec } from '../src/constraint-specs.ts';
import { Grammar } from '../src/constraints.ts';
import type { InThreadEngine } from '../src/engine.ts';
import { storiesEngine } from './support/engine.ts';

const MASKBENCH = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpora', 'maskbench-dev');
const SAMPLE = 16;
const SEEDS = [1, 2];
const PROMPT = 'Once upon a time, there was a little girl named Lily.';

// A fixed copy of the generation benchmark's schema-heavy order (apps/demo/src/generation-bench.ts):
// the pinned tokens below were recorded with it, so it must not follow the benchmark's changes.
const ORDER = {
  type: 'object',
  properties: {
    order_identifier: { type: 'string', maxLength: 12 },
    customer_information: {
      type: 'object',
      properties: {
        full_name: { type: 'string', maxLength: 20 },
        preferred_contact_method: { enum: ['electronic_mail', 'telephone_call', 'postal_letter'] },
      },
      required: ['full_name', 'preferred_contact_method'],
      additionalProperties: false,
    },
    shipping_priority: { enum: ['standard_delivery', 'express_delivery', 'overnight_delivery'] },
    gift_wrapping_requested: { type: 'boolean' },
  },
  required: ['order_identifier', 'customer_information', 'shipping_priority', 'gift_wrapping_requested'],
  additionalProperties: false,
};

let engine: InThreadEngine;
beforeAll(async () => {
  engine = await storiesEngine();
});
afterAll(() => engine.dispose());

// Shortest output the grammar allows, in bytes (null: not known).
function shortestOutput(spec: GrammarSpec): number | null {
  const grammar = new Grammar(spec);
  return new Matcher(grammar.compiled).shortestCompletion()?.length ?? null;
}

interface SchemaSubject {
  readonly name: string;
  readonly schema: unknown;
}

const handWritten: SchemaSubject[] = [
  {
    name: 'person',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 16 },
        age: { type: 'integer', minimum: 0, maximum: 120 },
        pets: { type: 'array', items: { enum: ['cat', 'dog', 'fish'] }, maxItems: 3 },
      },
      required: ['name', 'age'],
      additionalProperties: false,
    },
  },
  { name: 'numbers', schema: { type: 'array', items: { type: 'number', exclusiveMinimum: 0, maximum: 10 }, minItems: 2, maxItems: 5 } },
  { name: 'one of', schema: { oneOf: [{ type: 'string', pattern: '^[a-z]+$' }, { type: 'boolean' }, { type: 'null' }] } },
  {
    name: 'tree',
    schema: {
      $defs: {
        node: {
          type: 'object',
          properties: { label: { type: 'string', maxLength: 8 }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['label', 'children'],
          additionalProperties: false,
        },
      },
      $ref: '#/$defs/node',
    },
  },
];

// MaskBench-dev files spread evenly over the sorted list; those the compiler supports and
// whose shortest instance leaves room to generate.
const files = readdirSync(MASKBENCH)
  .filter((f) => f.endsWith('.json'))
  .sort();
const maskBench: SchemaSubject[] = Array.from({ length: SAMPLE }, (_, i) => files[Math.floor((i * files.length) / SAMPLE)]!)
  .map((file) => ({ name: file, schema: (JSON.parse(readFileSync(join(MASKBENCH, file), 'utf8')) as { schema: unknown }).schema }))
  .filter(({ schema }) => {
    try {
      const shortest = shortestOutput({ type: 'json-schema', schema });
      return shortest !== null && shortest <= 160;
    } catch {
      return false;
    }
  });

describe('JSON Schema generation', () => {
  it('has enough MaskBench-dev schemas to test', () => {
    expect(maskBench.length).toBeGreaterThanOrEqual(8);
  });

  for (const subject of [...handWritten, ...maskBench]) {
    it(`${subject.name}: greedy and sampled outputs are complete and valid`, async () => {
      const validate = ajvValidator(subject.schema);
      const shortest = shortestOutput({ type: 'json-schema', schema: subject.schema })!;
      // Room for the shortest instance and then some: the budget decides when to wrap up.
      const maxTokens = shortest + 48;
      for (const sampling of [{ temperature: 0 }, ...SEEDS.map((seed) => ({ seed, temperature: 1 }))]) {
        const result = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(subject.schema), sampling, maxTokens });
        expect(result.complete, `${JSON.stringify(sampling)}: ${result.text}`).toBe(true);
        expect(result.tokens.length).toBeLessThanOrEqual(maxTokens);
        const value: unknown = JSON.parse(result.text);
        expect(validate(value), `${JSON.stringify(sampling)}: ${result.text}\n${JSON.stringify(validate.errors)}`).toBe(true);
      }
    });
  }

  it('a recursive schema with a small budget still ends valid (budget-aware ending)', async () => {
    const tree = handWritten.find((s) => s.name === 'tree')!.schema;
    const validate = ajvValidator(tree);
    const shortest = shortestOutput({ type: 'json-schema', schema: tree })!;
    for (const maxTokens of [shortest, shortest + 3, shortest + 10]) {
      for (const seed of [1, 2, 3, 4, 5]) {
        // A hot temperature opens many arrays and objects: without the budget most would be cut.
        const result = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(tree), sampling: { seed, temperature: 2 }, maxTokens });
        expect(result.complete, result.text).toBe(true);
        expect(result.tokens.length).toBeLessThanOrEqual(maxTokens);
        expect(validate(JSON.parse(result.text))).toBe(true);
      }
    }
  });

  it('a grammar that may go on after a complete output ends complete at every budget', async () => {
    const lines = Gbnf('root ::= ([a-z ]{1,12} "\\n")+');
    for (const maxTokens of [4, 6, 9, 13]) {
      for (const sampling of [{ temperature: 0 }, { seed: 1 }, { seed: 2, temperature: 1.5 }]) {
        const result = await engine.generate({ prompt: PROMPT, constraint: lines, sampling, maxTokens });
        expect(result.complete, `${maxTokens} ${JSON.stringify(sampling)}: ${JSON.stringify(result.text)}`).toBe(true);
        expect(result.text).toMatch(/^([a-z ]{1,12}\n)+$/);
      }
    }
  });

  // Budget-aware ending decides token by token (a draw refused, the proof's token taken after
  // 64 refusals), so how it is computed must not change what it decides: these tokens were
  // written before its checks were made cheaper, and must stay exactly the same.
  it.each([
    [
      2,
      160,
      64,
      '126,436,419,107,417,339,299,98,427,325,304,275,422,436,467,410,436,419,119,412,264,295,418,98,418,411,421,417,363,436,432,410,436,414,117,418,285,98,292,377,417,431,417,285,436,467,410,436,336,317,426,410,37,432,410,436,428,417,431,413,98,424,420,412,339,299,98,276,456,425,411,356,266,436,467,410,431,100,421,372,432,313,429,425,356,287,285,98,271,431,304,423,294,417,289,436,467,410,126,436,427,276,431,285,420,266,98,429,289,413,412,429,413,98,423,316,415,414,418,436,467,410,436,413,104,305,427,415,289,411,98,429,388,436,432,313,431,425,306,98,416,314,411,436,467,410,436,262,423,290,266,261,306,426,410,453,420,436,128,128',
    ],
    [
      3,
      140,
      40,
      '126,436,419,107,417,339,299,98,427,325,304,275,422,436,467,410,436,419,119,412,264,295,418,98,418,411,421,417,363,436,432,410,436,428,417,431,413,98,424,420,412,339,299,98,276,456,425,411,356,266,436,467,259,117,425,411,432,313,429,120,356,287,285,98,271,431,304,423,294,417,289,436,467,410,126,436,427,276,431,285,420,266,98,429,289,413,412,429,413,98,423,316,415,414,418,436,467,313,413,104,305,427,415,289,411,98,429,388,436,432,313,431,425,306,98,416,314,411,436,467,313,436,128,432,313,304,418,285,98,292,377,417,431,417,285,436,467,313,436,128',
    ],
  ])('the budget’s decisions are pinned: seed %i, %i tokens (%i refusals)', async (seed, maxTokens, refusals, tokens) => {
    const result = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(ORDER), sampling: { seed, temperature: 0.8, topK: 0, topP: 1 }, maxTokens });
    expect(result.stats.budgetRejections).toBe(refusals);
    expect(result.tokens.join()).toBe(tokens);
    expect(result.complete).toBe(true);
  });

  it('without enough budget for the shortest instance, nothing is promised', async () => {
    const person = handWritten[0]!.schema;
    const result = await engine.generate({ prompt: PROMPT, constraint: JsonSchema(person), sampling: { temperature: 0 }, maxTokens: 3 });
    expect(result.stopReason).toBe('length');
    expect(result.complete).toBe(false);
  });
});

describe('text grammar generation', () => {
  const grammars: { name: string; spec: GrammarSpec }[] = [
    { name: 'regex date', spec: Regex('[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9]') as GrammarSpec },
    { name: 'regex words', spec: Regex('[A-Z][a-z]+( [a-z]+){2,5}\\.') as GrammarSpec },
    { name: 'gbnf arithmetic', spec: Gbnf('root ::= expr\nexpr ::= term (("+" | "-") term)*\nterm ::= [0-9]+ | "(" expr ")"') as GrammarSpec },
    { name: 'lark list', spec: Lark('start: "[" item ("," " " item)* "]"\nitem: WORD\nWORD: /[a-z]{1,6}/') as GrammarSpec },
  ];
  for (const { name, spec } of grammars) {
    it(`${name}: every output is a sentence of the grammar`, async () => {
      const grammar = new Grammar(spec);
      const maxTokens = new Matcher(grammar.compiled).shortestCompletion()!.length + 24;
      for (const sampling of [{ temperature: 0 }, ...[1, 2, 3].map((seed) => ({ seed }))]) {
        const result = await engine.generate({ prompt: PROMPT, constraint: grammar, sampling, maxTokens });
        const recognized = recognize(grammar.compiled, new TextEncoder().encode(result.text));
        expect(recognized, `${JSON.stringify(sampling)}: ${JSON.stringify(result.text)}`).toEqual({ accepted: true, complete: true, rejectedAt: -1 });
      }
      grammar.dispose();
    });
  }
});

describe('reuse of the KV cache for a shared prompt prefix', () => {
  it('feeds only what follows the prefix the previous prompt shared, with the same tokens as feeding it all', async () => {
    const person = handWritten[0]!.schema;
    const prompts = [`${PROMPT} She had a dog.`, `${PROMPT} She had a cat.`, `${PROMPT} One day`];
    const run = async (reusePrefix: boolean): Promise<{ tokens: readonly number[]; reused: number }[]> => {
      const results = [];
      for (const prompt of prompts) {
        const result = await engine.generate({ prompt, constraint: JsonSchema(person), sampling: { seed: 5 }, maxTokens: 40, reusePrefix });
        results.push({ tokens: result.tokens, reused: result.stats.reusedPromptTokens });
      }
      return results;
    };
    const without = await run(false);
    const withReuse = await run(true);
    expect(without.map((r) => r.reused)).toEqual([0, 0, 0]);
    // The first prompt follows the last run's third one: PROMPT's tokens are shared.
    for (const result of withReuse) expect(result.reused).toBeGreaterThan(10);
    expect(withReuse.map((r) => r.tokens)).toEqual(without.map((r) => r.tokens));
  });
});
