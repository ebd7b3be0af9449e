// Matcher.shortestCompletion: from any prefix of a sentence, the bytes it returns finish the
// output (the recognizer accepts prefix + completion as a whole sentence), on every grammar
// case, on MaskBench-dev schemas (objects with many optional members included) and on
// hand-picked states where the shortest completion is known.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGrammar, GrammarError, jsonGrammar, Matcher, parseGrammar, pythonJson, recognize, type CompiledGrammar } from '../src/index.ts';
import { compileSchema } from './support/json-schema-oracle.ts';
import { loadCases } from './support/cases.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Every byte prefix of `sentence`: the completion exists, and finishes it.
function checkPrefixes(grammar: CompiledGrammar, sentence: string): void {
  const bytes = encoder.encode(sentence);
  const matcher = new Matcher(grammar);
  for (let i = 0; i <= bytes.length; i++) {
    if (i > 0) expect(matcher.commitBytes(bytes.subarray(i - 1, i))).toBe(true);
    const completion = matcher.shortestCompletion();
    const prefix = decoder.decode(bytes.subarray(0, i));
    expect(completion, `after ${JSON.stringify(prefix)}`).not.toBe(null);
    const whole = new Uint8Array([...bytes.subarray(0, i), ...completion!]);
    expect(recognize(grammar, whole), `${JSON.stringify(prefix)} + ${JSON.stringify(decoder.decode(completion!))}`).toMatchObject({
      accepted: true,
      complete: true,
    });
    // Never longer than the rest of a sentence we know.
    if (i === bytes.length) expect(completion!.length).toBe(0);
  }
}

const grammarCases = loadCases();

// Today 19 cases with 80 sentences; a floor a little under, so that losing the cases fails.
it('has grammar cases to check', () => {
  expect(grammarCases.length).toBeGreaterThanOrEqual(17);
  expect(grammarCases.reduce((n, c) => n + c.accept.filter((s) => s.length > 0).length, 0)).toBeGreaterThanOrEqual(72);
});

describe.each(grammarCases)('$name', (grammarCase) => {
  const grammar = compileGrammar(parseGrammar(grammarCase.format, grammarCase.grammar));
  it.each(grammarCase.accept.filter((s) => s.length > 0).map((s) => [s]))('finishes every prefix of %j', (sentence) => checkPrefixes(grammar, sentence));
});

describe('JSON Schema', () => {
  const MASKBENCH = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpora', 'maskbench-dev');
  const files = readdirSync(MASKBENCH)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const sample = Array.from({ length: 24 }, (_, i) => files[Math.floor((i * files.length) / 24)]!);
  // What the sample checked, so that a change that makes schemas fail to compile (or their
  // instances go unchecked) fails here instead of passing with nothing checked.
  const checked = { schemas: 0, instances: 0 };

  it.each(sample.map((f) => [f]))(
    '%s: finishes every prefix of its valid instances',
    (file) => {
      const { schema, tests } = JSON.parse(readFileSync(join(MASKBENCH, file), 'utf8')) as { schema: unknown; tests: { data: unknown; valid: boolean }[] };
      let grammar: CompiledGrammar;
      try {
        grammar = compileSchema(schema);
      } catch (error) {
        if (error instanceof GrammarError) return; // unsupported: nothing to complete
        throw error;
      }
      checked.schemas++;
      for (const test of tests.filter((t) => t.valid).slice(0, 2)) {
        const text = pythonJson(test.data);
        if (!recognize(grammar, encoder.encode(text)).complete) continue;
        checkPrefixes(grammar, text);
        checked.instances++;
      }
      // Completions are checked, not timed: a loaded machine must not turn this into a failure.
    },
    120_000,
  );

  // Runs after the sample (tests in a file run in order). Today all 24 schemas compile and
  // 29 instances are checked; the floors sit a little under.
  it('checked most of the sample', () => {
    expect(checked.schemas).toBeGreaterThanOrEqual(22);
    expect(checked.instances).toBeGreaterThanOrEqual(26);
  });

  it('an object with 24 optional members and 3 required ones: writes only the required', () => {
    const properties = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`optional_${i}`, { type: 'string' }]));
    const grammar = compileSchema(
      {
        type: 'object',
        properties: { ...properties, a: { type: 'integer' }, b: { type: 'boolean' }, c: { type: 'null' } },
        required: ['a', 'b', 'c'],
        additionalProperties: false,
      },
      { whitespace: { style: 'compact' } },
    );
    const matcher = new Matcher(grammar);
    matcher.commitBytes(encoder.encode('{"optional_7":"x",'));
    const completion = decoder.decode(matcher.shortestCompletion()!);
    expect(completion.length).toBe('"a":0,"b":true,"c":null}'.length);
    expect(JSON.parse('{"optional_7":"x",' + completion)).toMatchObject({ a: 0, b: true, c: null });
  });
});

describe('known shortest completions', () => {
  const cases: [string, () => CompiledGrammar, string, string][] = [
    ['nested JSON', () => compileGrammar(jsonGrammar({ style: 'compact' })), '[{"a":[1,{"b":"c', '"}]}]'],
    ['a number in progress', () => compileGrammar(jsonGrammar({ style: 'compact' })), '[-', '0]'],
    [
      'GBNF parentheses',
      () => compileGrammar(parseGrammar('gbnf', 'root ::= "(" expr ")"\nexpr ::= term ("+" term)*\nterm ::= [0-9]+ | "(" expr ")"')),
      '((1+(2',
      ')))',
    ],
    ['a regex with a long mandatory tail', () => compileGrammar(parseGrammar('regex', '[a-z]+@example\\.(com|org)')), 'me', '@example.com'],
  ];
  it.each(cases)('%s', (_, make, prefix, expected) => {
    const matcher = new Matcher(make());
    expect(matcher.commitBytes(encoder.encode(prefix))).toBe(true);
    expect(decoder.decode(matcher.shortestCompletion()!)).toBe(expected);
  });

  it('finds a way past the checks beyond the grammar: a name written before, an item repeated', () => {
    // The grammar's shortest candidates write the empty name again (the matcher keeps names
    // distinct here) or repeat the item: a repair writes another byte where they are refused.
    const cases: [object, string, string][] = [
      [{ type: 'object', not: { additionalProperties: { type: 'string' } } }, '{"":"","b":"', '","a":0}'],
      [{ type: 'array', items: { type: 'string' }, uniqueItems: true, minItems: 2 }, '["",', '"a"]'],
    ];
    for (const [schema, prefix, expected] of cases) {
      const matcher = new Matcher(compileSchema(schema));
      expect(matcher.commitBytes(encoder.encode(prefix))).toBe(true);
      const completion = matcher.shortestCompletion();
      expect(completion === null ? null : decoder.decode(completion), prefix).toBe(expected);
      // The matcher is as it was: the completion commits after the prefix, and ends it.
      expect(matcher.commitBytes(completion!)).toBe(true);
      expect(matcher.isAccepting()).toBe(true);
    }
  });

  it('is empty for a complete output, null for a grammar with no sentence', () => {
    const matcher = new Matcher(compileGrammar(parseGrammar('regex', 'ab')));
    matcher.commitBytes(encoder.encode('ab'));
    expect(matcher.shortestCompletion()).toEqual(new Uint8Array(0));
    const nothing = compileSchema(false);
    expect(new Matcher(nothing).shortestCompletion()).toBe(null);
  });
});
