import { describe, expect, it } from 'vitest';
import { compileGrammar, Matcher, parseGrammar, recognize } from '../src/index.ts';
import { loadCases } from './support/cases.ts';
import { randomSplit, seeded, tokensByBytes, vocab } from './support/vocabs.ts';

const encoder = new TextEncoder();

describe.each(loadCases())('$name', (grammarCase) => {
  const grammar = compileGrammar(parseGrammar(grammarCase.format, grammarCase.grammar));

  it.each(grammarCase.accept.map((s) => [s]))('accepts %j', (input) => {
    expect(recognize(grammar, encoder.encode(input))).toEqual({ accepted: true, complete: true, rejectedAt: -1 });
  });

  it.each(grammarCase.reject.map((s) => [s]))('rejects %j', (input) => {
    const result = recognize(grammar, encoder.encode(input));
    expect(result.accepted && result.complete).toBe(false);
  });

  if (grammarCase.format === 'regex') {
    it('agrees with the JavaScript regex engine on its cases', () => {
      const re = new RegExp(`^(?:${grammarCase.grammar.trim()})$`, 'u');
      for (const s of grammarCase.accept) expect(re.test(s), s).toBe(true);
      for (const s of grammarCase.reject) expect(re.test(s), s).toBe(false);
    });
  }

  it.each(['stories260k', 'llama3.1'] as const)('accepts random non-canonical token splits (%s)', (preset) => {
    const index = vocab(preset);
    const byBytes = tokensByBytes(index);
    const random = seeded(42);
    for (const input of grammarCase.accept) {
      for (let trial = 0; trial < 5; trial++) {
        const ids = randomSplit(encoder.encode(input), byBytes, random);
        const matcher = new Matcher(grammar, index);
        ids.forEach((id, i) => expect(matcher.commitToken(id), `${JSON.stringify(input)} token ${i}`).toBe(true));
        expect(matcher.isAccepting()).toBe(true);
        expect(matcher.commitToken(index.meta.eos_token_ids[0]!)).toBe(true);
      }
    }
  });
});
