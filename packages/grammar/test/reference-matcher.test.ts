// Matcher API: rollback, fork, EOS, forced continuation.
import { TokenizerLoader } from '@lenml/tokenizers';
import { brleCount } from '@sieve/format';
import { loadTokenizer } from '@sieve/vocab/presets';
import { describe, expect, it } from 'vitest';
import { loadKernel } from '@sieve/kernel';
import { compileGrammar, KernelGrammar, KernelMatcher, Matcher, parseGrammar, type TokenMatcher } from '../src/index.ts';
import { vocab } from './support/vocabs.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// (The TypeScript matcher walks the whole 128k vocabulary for a mask: no time limit, a loaded
// machine takes seconds.)
const form = compileGrammar(parseGrammar('gbnf', 'root ::= "{\\"name\\": \\"" [a-z]+ "\\", \\"age\\": " [0-9]+ "}"\n'), { maxMaskMs: Infinity });

function llamaEncoder(): (bytes: Uint8Array) => number[] {
  const tokenizer = loadTokenizer('llama3.1');
  const library = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizer.json as never, tokenizerConfig: (tokenizer.tokenizerConfig ?? {}) as never });
  return (bytes) => library.encode(decoder.decode(bytes), { add_special_tokens: false });
}

describe('Matcher', () => {
  const index = vocab('llama3.1');
  const tokensOf = llamaEncoder();

  it('rolls back tokens to the exact earlier state', () => {
    const matcher = new Matcher(form, index);
    const ids = tokensOf(encoder.encode('{"name": "lily", "age": 3}'));
    const masks: string[] = [];
    for (const id of ids) {
      masks.push(Array.from(matcher.computeMask()).join());
      expect(matcher.commitToken(id)).toBe(true);
    }
    expect(matcher.isAccepting()).toBe(true);
    expect(matcher.commitToken(index.meta.eos_token_ids[0]!)).toBe(true);
    expect(matcher.isFinished).toBe(true);
    expect(brleCount(matcher.computeMask(), index.tokenCount)).toBe(0);
    matcher.rollback(1); // the EOS
    expect(matcher.isFinished).toBe(false);
    for (let n = ids.length - 1; n >= 0; n--) {
      matcher.rollback(1);
      expect(Array.from(matcher.computeMask()).join(), `after rolling back to ${n} tokens`).toBe(masks[n]);
    }
    expect(() => matcher.rollback(1)).toThrow(RangeError);
  });

  it('refuses disallowed tokens without changing state', () => {
    const matcher = new Matcher(form, index);
    const before = Array.from(matcher.computeMask()).join();
    expect(matcher.commitToken(tokensOf(encoder.encode('['))[0]!)).toBe(false);
    expect(matcher.commitToken(index.meta.eos_token_ids[0]!)).toBe(false);
    expect(matcher.commitToken(128000)).toBe(false); // <|begin_of_text|>: special
    expect(Array.from(matcher.computeMask()).join()).toBe(before);
    expect(matcher.tokenCount).toBe(0);
  });

  it('forks into independent matchers', () => {
    const a = new Matcher(form, index);
    a.commitBytes(encoder.encode('{"name": "'));
    const b = a.fork();
    expect(b.commitBytes(encoder.encode('x", "age": 1}'))).toBe(true);
    expect(b.isAccepting()).toBe(true);
    expect(a.isAccepting()).toBe(false);
    expect(a.commitBytes(encoder.encode('y'))).toBe(true);
  });

  it.each(['TypeScript', 'kernel'] as const)('finds the forced continuation and its canonical tokens, holding back the last (%s)', async (kind) => {
    const kernel = kind === 'kernel' ? await loadKernel() : null;
    const matcher: TokenMatcher = kernel
      ? new KernelMatcher(new KernelGrammar(kernel, form), kernel.loadVocab(index.file), { eosTokenIds: index.meta.eos_token_ids })
      : new Matcher(form, index);
    expect(decoder.decode(matcher.forcedBytes())).toBe('{"name": "');
    const { bytes, tokens } = matcher.forcedTokens(tokensOf);
    expect(decoder.decode(bytes)).toBe('{"name": "');
    const canonical = tokensOf(bytes);
    expect(tokens).toEqual(canonical.slice(0, -1));
    for (const token of tokens) expect(matcher.commitToken(token)).toBe(true);
    // What was held back is still forced.
    const rest = decoder.decode(matcher.forcedBytes());
    expect('{"name": "'.endsWith(rest)).toBe(true);
    expect(rest.length).toBeGreaterThan(0);
    // No choice, no forced bytes.
    matcher.commitBytes(encoder.encode(rest));
    expect(matcher.forcedBytes().length).toBe(0);
    matcher.commitBytes(encoder.encode('ab'));
    expect(matcher.forcedBytes().length).toBe(0);
    matcher.commitBytes(encoder.encode('"'));
    expect(decoder.decode(matcher.forcedBytes())).toBe(', "age": ');
    kernel?.dispose();
  });
});
