// Counted lexer states (`isCounted` in src/lexer/lexer-dfa.ts): where a pattern meets a count
// of characters (a word-count pattern beside maxLength), a lexer state far from the count's
// bounds is a count on a shape, whose transitions serve every count. Checked against the same
// language with every count copied (no counting of any kind: `copied`) mask by mask, against
// RegExp on whole texts, and by the states a long string builds.
import { loadKernel, type Kernel } from '@sieve/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGrammar, jsonSchemaGrammar, KernelGrammar, KernelMatcher, Matcher, regexToByteRegex, rx, type CompiledGrammar } from '../src/index.ts';
import { bitsetIds, oracleAllowed } from './support/oracle.ts';
import { accepts, copied, lexemeGrammar, walkTwins, withCopiedCounts } from './support/twin-grammars.ts';
import { randomSplit, seeded, tokensByBytes, vocab } from './support/vocabs.ts';

// Lexer states that are shapes, of those built so far.
const shapes = (grammar: CompiledGrammar): number =>
  Array.from({ length: grammar.lexer.stateCount }, (_, state) => grammar.lexer.shape(state)).filter((shape) => shape !== undefined).length;

// A count of characters beside a pattern counting words; the words' automaton is large for
// `maxNfaStates` 2,000 (it must have counted states then) and small for the default.
const cases: [counted: string, words: string, texts: string[]][] = [
  [
    '[ a-z]{0,150}',
    '(?:[a-z]+ ){0,70}[a-z]+',
    ['a', `${'a '.repeat(70)}a`, `${'a '.repeat(71)}a`, `${'ab '.repeat(37)}abc`, `${'ab '.repeat(37)}abcd`, 'a  b', 'q'.repeat(150), 'q'.repeat(151)],
  ],
  ['[ a-z]{70,150}', '(?:[a-z]+ ){0,70}[a-z]+', ['a', `${'abc '.repeat(17)}ab`, `${'abc '.repeat(17)}abc`, `${'q'.repeat(150)}`, `${'q'.repeat(151)}`]],
];

describe('counted lexer states, against copied counts', () => {
  const product = (counted: string, words: string) => rx.and([regexToByteRegex(counted, { flags: 'u' }), regexToByteRegex(words, { flags: 'u' })]);

  it.each(cases)('/%s/ ∧ /%s/ on whole texts', (counted, words, texts) => {
    const regex = product(counted, words);
    const [large, small, twin] = [lexemeGrammar(regex, { maxNfaStates: 2_000 }), lexemeGrammar(regex), lexemeGrammar(copied(regex))];
    const engines = [new RegExp(`^(?:${counted})$`, 'u'), new RegExp(`^(?:${words})$`, 'u')];
    const verdicts = new Set<boolean>();
    for (const text of texts) {
      const expected = engines.every((engine) => engine.test(text));
      for (const [name, grammar] of Object.entries({ large, small, twin })) expect(accepts(grammar, text), `${name} ${JSON.stringify(text)}`).toBe(expected);
      verdicts.add(expected);
    }
    expect([...verdicts].sort()).toEqual([false, true]);
    expect(shapes(large)).toBeGreaterThan(0);
    expect(shapes(small)).toBeGreaterThan(0);
    expect(shapes(twin)).toBe(0);
  });

  it.each(cases)(
    "/%s/ ∧ /%s/: masks equal the copied counts' and the oracle along random walks",
    (counted, words) => {
      const regex = product(counted, words);
      const counting = lexemeGrammar(regex, { maxNfaStates: 2_000 });
      walkTwins(counting, lexemeGrammar(copied(regex)), 17, 150, 3);
      expect(shapes(counting)).toBeGreaterThan(0);
    },
    60_000,
  );

  it('where its lexeme counts again after it: plain states for a small pattern, refused at compile for a large one (lexer states per count)', () => {
    const twice = rx.seq([product('[ a-z]{0,150}', '(?:[a-z]+ ){0,70}[a-z]+'), regexToByteRegex('x[a-z]{0,100}', { flags: 'u' })]);
    expect(() => lexemeGrammar(twice, { maxNfaStates: 2_000 })).toThrow(/more counting after it/);
    const plain = lexemeGrammar(twice);
    expect([`${'ab '.repeat(40)}abxq`, `${'ab '.repeat(40)}ab x`, `${'ab '.repeat(40)}abx${'q'.repeat(101)}`].map((text) => accepts(plain, text))).toEqual([
      true,
      false,
      false,
    ]);
    expect(shapes(plain)).toBe(0);
    const once = rx.seq([product('[ a-z]{0,150}', '(?:[a-z]+ ){0,70}[a-z]+'), regexToByteRegex('x[a-z]{0,10}', { flags: 'u' })]);
    expect(accepts(lexemeGrammar(once, { maxNfaStates: 2_000 }), 'ab cxq')).toBe(true);
  });

  it('a long string builds as many states as a short one', () => {
    const regex = product('[ a-z]{0,20000}', '(?:[a-z]+ ){0,70}[a-z]+');
    const grammar = lexemeGrammar(regex, { maxNfaStates: 2_000 });
    const states = (text: string): number => {
      expect(accepts(grammar, text)).toBe(true);
      return grammar.lexer.stateCount;
    };
    const short = states(`${'abc'.repeat(100)} ${'abc'.repeat(100)}`);
    expect(states(`${'abc'.repeat(3000)} ${'abc'.repeat(3000)}`)).toBe(short);
    expect(accepts(grammar, `${'abc'.repeat(3334)} ${'abc'.repeat(3333)}`)).toBe(false); // 20,002 characters
  });
});

describe('JSON Schema: a word-count pattern beside maxLength at the default limits', () => {
  // A pattern of any size beside a count of characters has counted states: one counting few
  // words (a small automaton) once built a plain lexer state per count, 5 to 15 times the
  // states and masks of 100 ms and more (measured on MaskBench files).
  it.each([
    [200, 19],
    [120, 9],
  ])('maxLength %i beside %i words and one: the same words, longer, build no new states', (maxLength, words) => {
    const schema = { type: 'string', minLength: 1, maxLength, pattern: `^(?:\\S+\\s+){0,${words}}\\S+$` };
    const index = vocab('stories260k');
    const grammar = compileGrammar(jsonSchemaGrammar(schema).grammar);
    const states = (letters: number): number => {
      const matcher = new Matcher(grammar, index);
      for (const b of new TextEncoder().encode(JSON.stringify(Array(words).fill('wordy'.slice(0, letters)).join(' ')))) {
        matcher.computeMask();
        expect(matcher.commitBytes(Uint8Array.of(b))).toBe(true);
      }
      expect(matcher.isAccepting()).toBe(true);
      return grammar.lexer.stateCount;
    };
    // Words of 3 letters, then of 5: the longer words meet the same shapes at other counts.
    const short = states(3);
    expect(states(5)).toBe(short);
    expect(shapes(grammar)).toBeGreaterThan(0);
  });
});

describe('JSON Schema: a word-count pattern beside maxLength, in the kernel', () => {
  let kernel: Kernel;
  beforeAll(async () => {
    kernel = await loadKernel();
  });
  afterAll(() => kernel.dispose());
  const index = vocab('llama3.1');
  const eos = index.meta.eos_token_ids;
  const schema = (maxLength: number): unknown => ({ type: 'string', pattern: '^(?:\\S+\\s+){0,66}\\S+$', maxLength });

  // Walks where `next` picks each token from the mask (null: the walk ends): every kernel mask
  // of `grammar` equals `twin`'s, the 46th the oracle's (with `oracle`), and rolling back
  // replays them.
  function walkAgainst(
    grammar: CompiledGrammar,
    twin: CompiledGrammar,
    { walks, oracle }: { readonly walks: number; readonly oracle: boolean },
    next: (mask: number[], step: number) => number | null,
  ): KernelGrammar {
    const kernelVocab = kernel.loadVocab(index.file);
    const [kernelGrammar, kernelTwin] = [new KernelGrammar(kernel, grammar), new KernelGrammar(kernel, twin)];
    try {
      for (let walk = 0; walk < walks; walk++) {
        const [matcher, other] = [kernelGrammar, kernelTwin].map((g) => new KernelMatcher(g, kernelVocab, { eosTokenIds: eos })) as [
          KernelMatcher,
          KernelMatcher,
        ];
        const reference = new Matcher(grammar, index);
        const masks: number[][] = [];
        for (let step = 0; ; step++) {
          const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
          expect(mask, `walk ${walk} step ${step}`).toEqual(bitsetIds(other.computeMaskBitset(), index.tokenCount));
          if (oracle && walk === 0 && step === 45) expect(mask).toEqual(oracleAllowed(reference));
          masks.push(mask);
          const id = next(mask, step);
          if (id === null) break;
          for (const m of [matcher, other, reference]) expect(m.commitToken(id)).toBe(true);
        }
        expect(masks.length).toBeGreaterThan(45);
        while (matcher.tokenCount > 0) {
          matcher.rollback(1);
          expect(bitsetIds(matcher.computeMaskBitset(), index.tokenCount)).toEqual(masks[matcher.tokenCount]);
        }
        matcher.dispose();
        other.dispose();
      }
      return kernelGrammar;
    } finally {
      kernelTwin.dispose();
      kernelVocab.dispose();
    }
  }

  it("random walks to maxLength 160: masks equal the copied counts' and the oracle (llama3.1)", () => {
    const ir = jsonSchemaGrammar(schema(160)).grammar;
    const shaped = compileGrammar(ir);
    const plain = compileGrammar(withCopiedCounts(ir), { maxNfaStates: 4_000_000 });
    const random = seeded(29);
    walkAgainst(shaped, plain, { walks: 2, oracle: true }, (mask, step) => {
      const text = mask.filter((id) => !eos.includes(id));
      if (text.length === 0 || step >= 80) return null;
      // Mostly short tokens, so that walks reach the bound.
      const short = text.filter((id) => index.tokenBytes(id).length <= 3);
      const from = short.length > 0 && random() < 0.8 ? short : text;
      return from[Math.floor(random() * from.length)]!;
    }).dispose();
    expect(shapes(shaped)).toBeGreaterThan(0);
    expect(shapes(plain)).toBe(0);
  }, 120_000);

  it('words up to maxLength 400: cached masks (keyed by the shape alone far from the bound) equal masks never cached', () => {
    const ir = jsonSchemaGrammar({ type: 'array', items: schema(400) }).grammar;
    // Inside a word the shape stays while the count grows. Words of 6 letters, then of 10 up to
    // 395 characters: the second string meets the first's shapes at other counts, under another
    // parser set (what a walk learned about a lexer state alone serves both).
    const text = `["${'abcdef '.repeat(10)}abcdef", "${'abcdefghij '.repeat(35)}abcdefghij"]`;
    const path = randomSplit(new TextEncoder().encode(text), tokensByBytes(index), seeded(31), 8);
    const kernelGrammar = walkAgainst(
      compileGrammar(ir),
      compileGrammar(ir, { maskCacheBytes: 0 }),
      { walks: 1, oracle: false },
      (_, step) => path[step] ?? null,
    );
    expect(kernelGrammar.maskCacheStats().hits).toBeGreaterThan(0);
    kernelGrammar.dispose();
  }, 120_000);
});
