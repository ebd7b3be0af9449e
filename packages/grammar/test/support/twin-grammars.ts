// One lexeme's grammar, and random walks comparing two grammars of the same language built in
// different ways (counted virtually or copied, blocks or edge by edge) mask by mask.
import { expect } from 'vitest';
import {
  compileGrammar,
  expr,
  GrammarBuilder,
  Matcher,
  recognize,
  rx,
  type ByteRegex,
  type CompiledGrammar,
  type GrammarIR,
  type GrammarLimits,
} from '../../src/index.ts';
import { bitsetIds, oracleAllowed } from './oracle.ts';
import { seeded, vocab } from './vocabs.ts';

const encoder = new TextEncoder();

// (A complement, not a count of bytes, which a product would merge with a count of `regex`'s.)
const ANY_BYTES = rx.not(rx.nothing);

/** `regex` ∧ any bytes: its language built as an intersection's operand, its counts copied. */
export const copied = (regex: ByteRegex): ByteRegex => ({ kind: 'and', items: [regex, ANY_BYTES] });

/** `grammar` with every lexeme `copied`: the same language without counting of any kind. */
export const withCopiedCounts = (grammar: GrammarIR): GrammarIR => ({
  ...grammar,
  lexemes: grammar.lexemes.map((lexeme) => ({ ...lexeme, regex: copied(lexeme.regex) })),
});

/** The grammar whose one lexeme is `regex`. */
export function lexemeGrammar(regex: ByteRegex, limits: Partial<GrammarLimits> = {}): CompiledGrammar {
  const builder = new GrammarBuilder();
  builder.rules.set('start', expr.lexeme(builder.lexeme({ name: 'x', regex })));
  return compileGrammar(builder.build('start'), limits);
}

/** Whether `grammar` accepts `text` whole. */
export function accepts(grammar: CompiledGrammar, text: string): boolean {
  const result = recognize(grammar, encoder.encode(text));
  return result.accepted && result.complete;
}

/**
 * `walks` random walks over `grammar`'s masks (stories260k): every mask equals `twin`'s,
 * every tenth the oracle's, and none is a dead end.
 */
export function walkTwins(grammar: CompiledGrammar, twin: CompiledGrammar, seed: number, steps: number, walks: number): void {
  const index = vocab('stories260k');
  const random = seeded(seed);
  for (let walk = 0; walk < walks; walk++) {
    const matcher = new Matcher(grammar, index);
    const other = new Matcher(twin, index);
    for (let step = 0; step < steps; step++) {
      const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
      expect(mask, `walk ${walk} step ${step}`).toEqual(bitsetIds(other.computeMaskBitset(), index.tokenCount));
      if (step % 10 === 0) expect(mask).toEqual(oracleAllowed(matcher));
      expect(mask.length, 'a dead end').toBeGreaterThan(0);
      const text = mask.filter((id) => !index.meta.eos_token_ids.includes(id));
      if (text.length === 0) break;
      const id = text[Math.floor(random() * text.length)]!;
      expect(matcher.commitToken(id)).toBe(true);
      expect(other.commitToken(id)).toBe(true);
    }
  }
}
