// Sieve as a Vercel AI SDK model, run through the `ai` package itself on stories260K:
// generateText, streamText, generateObject / streamObject (outputs checked by ajv and zod)
// and a tool call round trip.
import type { JSONSchema7 } from '@ai-sdk/provider';
import { generateObject, generateText, jsonSchema, streamObject, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ajvValidator } from '../../grammar/test/support/json-schema-oracle.ts';
import { sieveLanguageModel } from '../src/ai-sdk-provider.ts';
import type { InThreadEngine } from '../src/engine.ts';
import { storiesEngine } from './support/engine.ts';

const TEMPLATE = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}';

describe('the AI SDK over a Sieve engine (stories260K)', () => {
  let engine: InThreadEngine;
  beforeAll(async () => {
    engine = await storiesEngine();
  });
  afterAll(() => engine.dispose());
  // stories260K has no chat template: the model is given one.
  const model = () => sieveLanguageModel(engine, { chatTemplate: TEMPLATE });

  it('generateText and streamText: the same text for the same seed', async () => {
    const generated = await generateText({ model: model(), prompt: 'Tell me about Lily.', maxOutputTokens: 20, seed: 3 });
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.usage.outputTokens).toBeGreaterThan(0);
    const streamed = streamText({ model: model(), prompt: 'Tell me about Lily.', maxOutputTokens: 20, seed: 3 });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe(generated.text);
  });

  it('generateObject and streamObject: values valid against the schema', async () => {
    const schema = z.object({ name: z.string().max(10), age: z.number().int().min(1).max(9) });
    const { object } = await generateObject({ model: model(), schema, prompt: 'Describe Lily.', maxOutputTokens: 60, seed: 2 });
    expect(schema.parse(object)).toEqual(object);
    const raw: JSONSchema7 = {
      type: 'object',
      properties: { pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 2 } },
      required: ['pets'],
      additionalProperties: false,
    };
    const stream = streamObject({ model: model(), schema: jsonSchema(raw), prompt: 'Which pets?', maxOutputTokens: 40, seed: 1 });
    const partials: unknown[] = [];
    for await (const partial of stream.partialObjectStream) partials.push(partial);
    const final = await stream.object;
    expect(ajvValidator(raw)(final)).toBe(true);
    expect(partials.length).toBeGreaterThan(0);
  });

  it('tool calls: the call validates against the tool; its result goes back to the model', async () => {
    const parameters: JSONSchema7 = {
      type: 'object',
      properties: { a: { type: 'integer', minimum: 0, maximum: 9 }, b: { type: 'integer', minimum: 0, maximum: 9 } },
      required: ['a', 'b'],
      additionalProperties: false,
    };
    const seen: unknown[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'Add two numbers.',
      tools: {
        add: tool({
          description: 'Adds',
          inputSchema: jsonSchema<{ a: number; b: number }>(parameters),
          execute: async (input) => (seen.push(input), input.a + input.b),
        }),
      },
      toolChoice: 'required',
      maxOutputTokens: 120,
      seed: 5,
    });
    expect(result.toolCalls.length).toBeGreaterThan(0);
    for (const call of result.toolCalls) expect(ajvValidator(parameters)(call.input)).toBe(true);
    expect(seen.length).toBe(result.toolCalls.length);
    expect(result.toolResults.map((r) => r.output)).toEqual(seen.map((input) => (input as { a: number; b: number }).a + (input as { a: number; b: number }).b));
  });
});
