// The MaskBench tally goes on past a file whose matcher fails after a successful compile
// (a limit hit mid-stream): the error counts against that file, later files still run.
import { GrammarLimitError } from '@sieve/grammar';
import { describe, expect, it } from 'vitest';
import { MaskBenchTally, type GrammarEngine, type MaskBenchCase } from '../src/maskbench-core.ts';

// An engine whose grammars accept every text, except that schema "fails" hits a lexer limit
// on its second token.
const engine: GrammarEngine = {
  name: 'sieve',
  async compile(schema) {
    return {
      async firstMask() {},
      async feed(tokens) {
        if (schema === 'fails' && tokens.length > 1) throw new GrammarLimitError('maxLexerStates', 20_000, 'the lexer needs more than 20000 states');
        return true;
      },
      dispose() {},
    };
  },
  dispose() {},
};

const file = (name: string, schema: string): MaskBenchCase => ({
  file: name,
  schema,
  tests: [
    { valid: true, serializations: [[1]] },
    { valid: true, serializations: [[1, 2]] },
    { valid: false, serializations: [[3]] },
  ],
});

describe('MaskBenchTally', () => {
  it('counts an error after compile against its file and goes on', async () => {
    const tally = new MaskBenchTally(engine, false);
    for (const c of [file('a.json', 'ok'), file('b.json', 'fails'), file('c.json', 'ok')]) await tally.add(c);
    const result = tally.result('test');
    expect(result.cases).toBe(3);
    expect(result.schemas_compiled).toBe(3);
    expect(result.errors_after_compile).toEqual({ 'limit_exceeded:maxLexerStates': 1 });
    expect(result.outcomes).toEqual({ 'a.json': 'ok:ppA', 'b.json': 'failed:limit_exceeded:maxLexerStates:p', 'c.json': 'ok:ppA' });
    // Only the instances that ran are counted.
    expect(result.valid_tested).toBe(5);
    expect(result.invalid_tested).toBe(2);
  });
});
