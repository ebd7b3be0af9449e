// Masks against the oracle (every token's bytes fed to the byte-level recognizer), in states
// reached by random walks over allowed tokens; the walks also show there are no dead ends
// and that finished walks are sentences of the grammar.
import { brleFromBitset, brleToBitset } from '@sieve/format';
import { describe, expect, it } from 'vitest';
import { compileGrammar, jsonGrammar, Matcher, parseGrammar, recognize, type CompiledGrammar } from '../src/index.ts';
import { loadCases } from './support/cases.ts';
import { bitsetIds, oracleAllowed } from './support/oracle.ts';
import { seeded, vocab } from './support/vocabs.ts';

const grammars: [string, CompiledGrammar][] = [
  ...loadCases().map((c): [string, CompiledGrammar] => [c.name, compileGrammar(parseGrammar(c.format, c.grammar))]),
  ['any JSON', compileGrammar(jsonGrammar())],
  ['any JSON, compact', compileGrammar(jsonGrammar({ style: 'compact' }))],
];

describe.each(grammars)('%s', (_, grammar) => {
  it('masks exactly along random walks (stories260k, every token checked)', () => {
    const index = vocab('stories260k');
    const eos = new Set(index.meta.eos_token_ids);
    const random = seeded(7);
    for (let walk = 0; walk < 4; walk++) {
      const matcher = new Matcher(grammar, index);
      const output: number[] = [];
      for (let step = 0; step < 40; step++) {
        const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
        expect(mask, `walk ${walk} step ${step}`).toEqual(oracleAllowed(matcher));
        expect(mask.length, 'a dead end: nothing is allowed').toBeGreaterThan(0);
        const canEnd = mask.some((id) => eos.has(id));
        const text = mask.filter((id) => !eos.has(id));
        if (canEnd && (text.length === 0 || random() < 0.25)) break;
        const id = text[Math.floor(random() * text.length)]!;
        expect(matcher.commitToken(id)).toBe(true);
        output.push(...index.tokenBytes(id));
      }
      const result = recognize(grammar, Uint8Array.from(output));
      expect(result.accepted).toBe(true);
      expect(result.complete).toBe(matcher.isAccepting());
    }
    // Walks compare masks, not times: a loaded machine must not turn them into failures.
  }, 60_000);

  it('BRLE and bitset masks agree', () => {
    const index = vocab('stories260k');
    const matcher = new Matcher(grammar, index);
    const bits = matcher.computeMaskBitset();
    expect(Array.from(brleToBitset(matcher.computeMask(), index.tokenCount))).toEqual(Array.from(bits));
    expect(Array.from(matcher.computeMask())).toEqual(Array.from(brleFromBitset(bits, index.tokenCount)));
  });
});

describe('llama3.1 (128k tokens), sampled states', () => {
  const index = vocab('llama3.1');
  const sampled = grammars.filter(([name]) => ['json.gbnf', 'json.lark', 'arithmetic.gbnf', 'email.regex', 'any JSON'].includes(name));
  it.each(sampled)(
    '%s: the mask equals the oracle over the whole vocabulary',
    (_, grammar) => {
      const random = seeded(3);
      const matcher = new Matcher(grammar, index);
      for (let step = 0; step < 3; step++) {
        const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
        expect(mask).toEqual(oracleAllowed(matcher));
        const text = mask.filter((id) => !index.meta.eos_token_ids.includes(id));
        if (text.length === 0) break;
        matcher.commitToken(text[Math.floor(random() * text.length)]!);
      }
    },
    120_000,
  );
});
