// Streaming: `partialJson` on every prefix of JSON texts, and `stream`/`streamJson` on the
// real stories260K model — events in order whose deltas make the output, `break` and abort.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InThreadEngine } from '../src/engine.ts';
import { partialJson } from '../src/streams.ts';
import { storiesEngine } from './support/engine.ts';

describe('partialJson', () => {
  it.each([
    ['', undefined],
    ['  ', undefined],
    ['{', {}],
    ['{"na', {}],
    ['{"name"', {}],
    ['{"name": ', {}],
    ['{"name": "Li', { name: 'Li' }],
    ['{"name": "Lily", "age": 1', { name: 'Lily' }],
    ['{"name": "Lily", "age": 12,', { name: 'Lily', age: 12 }],
    ['{"ok": tr', {}],
    ['{"ok": true', { ok: true }],
    ['{"n": null}', { n: null }],
    ['[1, 2.', [1]],
    ['[1, -', [1]],
    ['[1, 2e', [1]],
    ['[[1], [', [[1], []]],
    ['"a\\', 'a'],
    ['"a\\u00', 'a'],
    ['"a\\u00e9b', 'aéb'],
    ['"tab\\tend"', 'tab\tend'],
    ['3', undefined],
    ['3 ', 3],
  ])('%j', (text, expected) => {
    expect(partialJson(text)).toEqual(expected);
  });

  it('refuses what is no JSON prefix', () => {
    for (const text of ['{a', '[1 2', '"a\\uzz', '"a\\q', 'tx', '{"a" 1', '{"a": 1 "b"', '1}']) expect(() => partialJson(text), text).toThrow(SyntaxError);
  });

  it('reads every prefix of any JSON text, ending at the value itself', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        for (let end = 0; end < text.length; end++) partialJson(text.slice(0, end));
        expect(partialJson(text + ' ')).toEqual(JSON.parse(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe('engine.stream on stories260K', () => {
  let engine: InThreadEngine;
  beforeAll(async () => {
    engine = await storiesEngine();
  });
  afterAll(() => engine.dispose());
  const PROMPT = 'Once upon a time, there was a little girl named Lily.';

  it('yields every token in order; the deltas make the output', async () => {
    const stream = engine.stream({ prompt: PROMPT, maxTokens: 24, sampling: { temperature: 0.8, seed: 3 } });
    const events = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(events.map((e) => e.index)).toEqual(result.tokens.map((_, i) => i));
    expect(events.map((e) => e.token)).toEqual(result.tokens);
    expect(events.map((e) => e.delta).join('')).toBe(result.text);
  });

  it('break stops the generation; the result says abort', async () => {
    const stream = engine.stream({ prompt: PROMPT, maxTokens: 64 });
    let seen = 0;
    for await (const event of stream) {
      void event;
      if (++seen === 3) break;
    }
    const result = await stream.result;
    expect(result.stopReason).toBe('abort');
    expect(result.tokens.length).toBeLessThan(64);
  });

  it('aborting the signal rejects the iteration with an AbortError after the events before it', async () => {
    const controller = new AbortController();
    const stream = engine.stream({ prompt: PROMPT, maxTokens: 64, signal: controller.signal });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const event of stream) {
          seen.push(event.index);
          if (event.index === 2) controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.slice(0, 3)).toEqual([0, 1, 2]);
    expect((await stream.result).stopReason).toBe('abort');
  });

  it('streamJson: each event carries the partial value; the last is the parsed result', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 12 },
        age: { type: 'integer', minimum: 1, maximum: 99 },
        pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 2 },
      },
      required: ['name', 'age', 'pets'],
      additionalProperties: false,
    };
    const stream = engine.streamJson<typeof schema, { name: string; age: number; pets: string[] }>(schema, {
      prompt: PROMPT,
      maxTokens: 96,
      sampling: { temperature: 0.8, seed: 5 },
    });
    const partials: unknown[] = [];
    let json = '';
    for await (const event of stream) {
      json = event.json;
      partials.push(event.partial);
    }
    const result = await stream.result;
    expect(json).toBe(result.text);
    expect(partials.at(-1)).toEqual(result.value);
    expect(partials.filter((p) => p !== undefined).length).toBeGreaterThan(1);
  });
});
