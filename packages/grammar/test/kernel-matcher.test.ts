// The WASM matcher against the TypeScript reference (itself checked against the oracle):
// identical masks, commits, acceptance, rollback and fork along random walks.
import { loadKernel, type Kernel, type KernelVocab } from '@sieve/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGrammar, jsonGrammar, jsonSchemaGrammar, KernelGrammar, KernelMatcher, Matcher, parseGrammar, type CompiledGrammar } from '../src/index.ts';
import { loadCases } from './support/cases.ts';
import { bitsetIds, oracleAllowed } from './support/oracle.ts';
import { seeded, vocab } from './support/vocabs.ts';

let kernel: Kernel;
const kernelVocabs = new Map<string, KernelVocab>();
beforeAll(async () => {
  kernel = await loadKernel();
});
afterAll(() => kernel.dispose());

function kernelVocab(preset: 'stories260k' | 'llama3.1'): KernelVocab {
  let loaded = kernelVocabs.get(preset);
  if (loaded === undefined) kernelVocabs.set(preset, (loaded = kernel.loadVocab(vocab(preset).file)));
  return loaded;
}

// The TypeScript reference matcher walks all 128k tokens of llama3.1 per mask, which a loaded
// CI machine can stretch past the default time budget: these tests compare results, not
// times, so the budget is lifted (limits have their own tests).
const UNTIMED = { maxMaskMs: 600_000 };
const WIDE_OBJECT = {
  type: 'object',
  properties: {
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`k${i}`, i % 3 === 0 ? { type: 'integer' } : i % 3 === 1 ? { enum: ['a', 'b'] } : { type: 'boolean' }]),
    ),
    inner: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } }, required: ['y'], additionalProperties: false },
  },
  required: ['k1', 'inner'],
  additionalProperties: false,
};
const grammars: [string, () => CompiledGrammar][] = [
  ...loadCases().map((c): [string, () => CompiledGrammar] => [c.name, () => compileGrammar(parseGrammar(c.format, c.grammar), UNTIMED)]),
  ['any JSON', () => compileGrammar(jsonGrammar(), UNTIMED)],
  // Objects are permutations: their parser states are built lazily (STATUS_NEED_RULES).
  ['JSON Schema objects in any order', () => compileGrammar(jsonSchemaGrammar(WIDE_OBJECT).grammar, UNTIMED)],
  [
    'lazy lexeme',
    () => {
      const g = parseGrammar('lark', 'start: "<" BODY ">"\nBODY: /[a-z]+/\n');
      return compileGrammar({ ...g, lexemes: g.lexemes.map((l) => (l.name === 'BODY' ? { ...l, mode: 'lazy' as const } : l)) });
    },
  ],
];

describe.each(grammars)('%s', (_, make) => {
  it.each(['stories260k', 'llama3.1'] as const)(
    'kernel and TypeScript matchers agree along random walks (%s)',
    (preset) => {
      const grammar = make();
      const index = vocab(preset);
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      const eos = index.meta.eos_token_ids;
      const random = seeded(preset === 'stories260k' ? 17 : 23);
      try {
        for (let walk = 0; walk < (preset === 'stories260k' ? 3 : 1); walk++) {
          const reference = new Matcher(grammar, index);
          const matcher = new KernelMatcher(kernelGrammar, kernelVocab(preset), { eosTokenIds: eos });
          const masks: string[] = [];
          for (let step = 0; step < (preset === 'stories260k' ? 30 : 8); step++) {
            const expected = reference.computeMaskBitset();
            const mask = matcher.computeMaskBitset();
            expect(Array.from(mask), `walk ${walk} step ${step}`).toEqual(Array.from(expected));
            expect(Array.from(matcher.computeMask())).toEqual(Array.from(reference.computeMask()));
            expect(matcher.isAccepting()).toBe(reference.isAccepting());
            if (preset === 'stories260k') expect(Array.from(matcher.forcedBytes())).toEqual(Array.from(reference.forcedBytes()));
            masks.push(Array.from(mask).join());
            const allowed = bitsetIds(mask, index.tokenCount).filter((id) => !eos.includes(id));
            // A disallowed token is refused by both, without a change.
            const refused = random() * index.tokenCount;
            const probe = Math.floor(refused);
            expect(matcher.fork().commitToken(probe)).toBe(reference.fork().commitToken(probe));
            if (allowed.length === 0 || (reference.isAccepting() && random() < 0.2)) break;
            const id = allowed[Math.floor(random() * allowed.length)]!;
            expect(matcher.commitToken(id)).toBe(true);
            expect(reference.commitToken(id)).toBe(true);
          }
          // Rolling back replays the same masks.
          const forked = matcher.fork();
          for (let n = masks.length - 2; n >= 0 && matcher.tokenCount > 0; n--) {
            matcher.rollback(1);
            expect(Array.from(matcher.computeMaskBitset()).join()).toBe(masks[matcher.tokenCount]);
          }
          // The fork kept the end state.
          expect(forked.tokenCount).toBe(reference.tokenCount);
          expect(Array.from(forked.computeMaskBitset())).toEqual(Array.from(reference.computeMaskBitset()));
          forked.dispose();
          matcher.dispose();
        }
      } finally {
        kernelGrammar.dispose();
      }
    },
    120_000,
  );
});

describe('a cold kernel grammar commits whole texts before any mask', () => {
  it.each(loadCases().filter((c) => c.accept.length > 0))(
    '$name',
    (grammarCase) => {
      const grammar = compileGrammar(parseGrammar(grammarCase.format, grammarCase.grammar));
      const index = vocab('stories260k');
      for (const text of grammarCase.accept) {
        // A fresh kernel grammar each time: every lexer transition and start state is missing.
        const kernelGrammar = new KernelGrammar(kernel, compileGrammar(parseGrammar(grammarCase.format, grammarCase.grammar)));
        const matcher = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: index.meta.eos_token_ids });
        const half = new TextEncoder().encode(text.slice(0, Math.ceil(text.length / 2)));
        expect(matcher.commitBytes(half), text).toBe(true);
        const reference = new Matcher(grammar, index);
        reference.commitBytes(half);
        expect(Array.from(matcher.computeMaskBitset()), text).toEqual(Array.from(reference.computeMaskBitset()));
        expect(matcher.commitBytes(new TextEncoder().encode(text.slice(half.length === 0 ? 0 : Math.ceil(text.length / 2))))).toBe(true);
        expect(matcher.isAccepting()).toBe(true);
        kernelGrammar.dispose();
      }
    },
    60_000,
  );
});

describe('completes() agrees with the reference at every byte of accepted texts, and changes nothing', () => {
  it.each(loadCases().filter((c) => c.accept.length > 0))(
    '$name',
    (grammarCase) => {
      const grammar = compileGrammar(parseGrammar(grammarCase.format, grammarCase.grammar));
      const index = vocab('stories260k');
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      try {
        for (const text of grammarCase.accept) {
          const bytes = new TextEncoder().encode(text).subarray(0, 300);
          const whole = bytes.length === new TextEncoder().encode(text).length;
          const matcher = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: index.meta.eos_token_ids });
          const reference = new Matcher(grammar, index);
          let completing = 0;
          for (let at = 0; at <= bytes.length; at++) {
            const rest = bytes.subarray(at);
            for (const probe of [rest, rest.subarray(0, Math.max(0, rest.length - 1)), Uint8Array.of(0xff, ...rest.subarray(0, 8))]) {
              const expected = reference.completes(probe);
              expect(matcher.completes(probe), `${text} at ${at}`).toBe(expected);
              if (expected) completing++;
            }
            if (whole) expect(reference.completes(rest)).toBe(true);
            // Nothing changed: the same acceptance, and the next byte still commits.
            expect(matcher.isAccepting()).toBe(reference.isAccepting());
            if (at < bytes.length) {
              expect(matcher.commitBytes(bytes.subarray(at, at + 1))).toBe(true);
              expect(reference.commitBytes(bytes.subarray(at, at + 1))).toBe(true);
            }
          }
          if (whole) expect(completing).toBeGreaterThan(bytes.length);
          matcher.dispose();
        }
      } finally {
        kernelGrammar.dispose();
      }
    },
    60_000,
  );
});

describe('forced bytes agree with the reference at every byte of accepted texts', () => {
  // The kernel ends the lexeme in progress once per position for all the bytes it tries: ends
  // that scan, that skip an ignored lexeme, that are refused, and lazy lexemes are all met here.
  const ORDER = {
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 4 },
      customer: {
        type: 'object',
        properties: { name: { type: 'string' }, contact: { enum: ['mail', 'phone'] } },
        required: ['name', 'contact'],
        additionalProperties: false,
      },
      priority: { enum: ['standard_delivery', 'express_delivery'] },
      gift: { type: 'boolean' },
    },
    required: ['id', 'customer', 'priority', 'gift'],
    additionalProperties: false,
  };
  const texts: [string, string, () => CompiledGrammar][] = [
    ...loadCases().flatMap((c) =>
      c.accept.map((text): [string, string, () => CompiledGrammar] => [c.name, text, () => compileGrammar(parseGrammar(c.format, c.grammar))]),
    ),
    [
      'order schema',
      '{"id": "a1", "customer": {"name": "Jo", "contact": "phone"}, "priority": "express_delivery", "gift": true}',
      () => compileGrammar(jsonSchemaGrammar(ORDER).grammar),
    ],
    [
      'order schema',
      '{"gift":false,"priority":"standard_delivery","customer":{"contact":"mail","name":""},"id":""}',
      () => compileGrammar(jsonSchemaGrammar(ORDER).grammar),
    ],
  ];
  it.each(texts)('%s: %s', (_, text, make) => {
    const grammar = make();
    const index = vocab('stories260k');
    const kernelGrammar = new KernelGrammar(kernel, make());
    try {
      const matcher = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: index.meta.eos_token_ids });
      const reference = new Matcher(grammar, index);
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at <= bytes.length; at++) {
        // Twice: cold (the kernel asks for lexer transitions and start states), then warm.
        for (let pass = 0; pass < 2; pass++)
          expect(Array.from(matcher.forcedBytes()), `${text.slice(0, at)} (pass ${pass})`).toEqual(Array.from(reference.forcedBytes()));
        if (at < bytes.length) {
          expect(matcher.commitBytes(bytes.subarray(at, at + 1))).toBe(true);
          expect(reference.commitBytes(bytes.subarray(at, at + 1))).toBe(true);
        }
      }
    } finally {
      kernelGrammar.dispose();
    }
  });
});

describe('a cold kernel grammar builds permutation states itself', () => {
  it.each([
    '{"inner": {"y": 1, "x": 2}, "k11": true, "k1": "b", "k0": 5}',
    '{"k1":"a","k9":7,"k3":0,"inner":{"y":0},"k2":false,"k10":"b","k4":"a","k5":true,"k6":1,"k7":"a","k8":false,"k11":true,"k0":3}',
  ])('%s', (text) => {
    const index = vocab('stories260k');
    // The kernel's grammar is compiled on its own, so every state is first asked for by the kernel.
    const kernelGrammar = new KernelGrammar(kernel, compileGrammar(jsonSchemaGrammar(WIDE_OBJECT).grammar));
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: index.meta.eos_token_ids });
    const reference = new Matcher(compileGrammar(jsonSchemaGrammar(WIDE_OBJECT).grammar), index);
    try {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; at += 7) {
        const piece = bytes.subarray(at, at + 7);
        expect(matcher.commitBytes(piece), text.slice(0, at + 7)).toBe(true);
        reference.commitBytes(piece);
        expect(Array.from(matcher.computeMaskBitset())).toEqual(Array.from(reference.computeMaskBitset()));
      }
      expect(matcher.isAccepting()).toBe(true);
      // A repeated key is refused.
      const repeated = new TextEncoder().encode(text.replace(/}$/, ', "k1": "a"}'));
      const again = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: index.meta.eos_token_ids });
      expect(again.commitBytes(repeated)).toBe(false);
    } finally {
      kernelGrammar.dispose();
    }
  });
});

describe('kernel matcher against the oracle, llama3.1', () => {
  it.each(['json.gbnf', 'any JSON', 'email.regex'])(
    '%s: sampled states over the whole vocabulary',
    (name) => {
      const grammar = grammars.find(([n]) => n === name)![1]();
      const index = vocab('llama3.1');
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: index.meta.eos_token_ids });
      const reference = new Matcher(grammar, index);
      const random = seeded(99);
      for (let step = 0; step < 3; step++) {
        const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
        expect(mask).toEqual(oracleAllowed(reference));
        const text = mask.filter((id) => !index.meta.eos_token_ids.includes(id));
        if (text.length === 0) break;
        const id = text[Math.floor(random() * text.length)]!;
        matcher.commitToken(id);
        reference.commitToken(id);
      }
      kernelGrammar.dispose();
    },
    120_000,
  );

  // Inside a string of bounded length the mask adds slice 0's tokens by character count and
  // skips its subtrees (`sliceLengthBound`): every position checked against the oracle.
  it.each([
    ['maxLength 9', { type: 'string', minLength: 2, maxLength: 9 }],
    ['maxLength 40', { type: 'string', maxLength: 40 }],
    ['an enum key before it', { type: 'object', properties: { k: { enum: ['x', 'yy'] }, s: { type: 'string', maxLength: 6 } }, required: ['k', 's'] }],
  ])(
    'strings of bounded length (%s): every position over the whole vocabulary',
    (_, schema) => {
      const grammar = compileGrammar(jsonSchemaGrammar(schema).grammar);
      const index = vocab('llama3.1');
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: index.meta.eos_token_ids });
      const reference = new Matcher(grammar, index);
      const random = seeded(7);
      let masks = 0;
      for (let step = 0; step < 20; step++) {
        const mask = bitsetIds(matcher.computeMaskBitset(), index.tokenCount);
        expect(mask).toEqual(oracleAllowed(reference));
        masks++;
        // Mostly short tokens, so that many positions of the string are met.
        const text = mask.filter((id) => !index.meta.eos_token_ids.includes(id));
        if (text.length === 0) break;
        const short = text.filter((id) => index.tokenBytes(id).length <= 3);
        const pool = short.length > 0 && random() < 0.8 ? short : text;
        const id = pool[Math.floor(random() * pool.length)]!;
        matcher.commitToken(id);
        reference.commitToken(id);
      }
      expect(masks).toBeGreaterThan(4);
      kernelGrammar.dispose();
    },
    300_000,
  );

  it('reports limits as typed errors and stays usable', () => {
    const index = vocab('llama3.1');
    // Lowercase words: no token slice covers them, so the mask walks tens of thousands of tokens.
    const grammar = compileGrammar(parseGrammar('gbnf', 'root ::= "[" [a-z ]* "]"\n'), { maxMaskMs: 0 });
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: index.meta.eos_token_ids });
    matcher.commitBytes(new TextEncoder().encode('['));
    expect(() => matcher.computeMaskBitset()).toThrow(expect.objectContaining({ limit: 'maxMaskMs' }));
    expect(matcher.commitBytes(new TextEncoder().encode('a]'))).toBe(true);
    expect(matcher.isAccepting()).toBe(true);

    const ambiguous = compileGrammar(parseGrammar('gbnf', 'root ::= x*\nx ::= "a" | "a" "a" | x x\n'), { maxParserItems: 50 });
    const ambiguousKernel = new KernelGrammar(kernel, ambiguous);
    const m = new KernelMatcher(ambiguousKernel, kernelVocab('llama3.1'), { eosTokenIds: [] });
    expect(() => m.commitBytes(new TextEncoder().encode('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'))).toThrow(expect.objectContaining({ limit: 'maxParserItems' }));
    expect(m.commitBytes(new TextEncoder().encode('a'))).toBe(true);
    kernelGrammar.dispose();
    ambiguousKernel.dispose();
  });
});

describe('token slices, llama3.1: masks where the walk adds slices whole match the oracle', () => {
  const KEYS_AND_MORE = {
    type: 'object',
    properties: {
      hostNetwork: { type: 'boolean' },
      hostPID: { type: 'boolean' },
      name: { type: 'string' },
      short: { type: 'string', maxLength: 5 },
      mid: { type: 'string', maxLength: 40 },
      long: { type: 'string', maxLength: 100 },
    },
  };
  const NAMED_KEYS = { type: 'object', patternProperties: { 'Red|Blue': { type: 'string' } }, additionalProperties: false };
  it.each([
    // Inside a string: the root state accepts plain string content whole.
    ['{"name": "Jo', KEYS_AND_MORE],
    // A key of an open object: declared names and any other name; slices apply below the first character.
    ['{"hostPID": true, "', KEYS_AND_MORE],
    ['{"hos', KEYS_AND_MORE],
    // Counted characters: only short slices can apply, and only while enough characters remain.
    ['{"short": "ab', KEYS_AND_MORE],
    ['{"short": "abcd', KEYS_AND_MORE],
    // Wider bounds: 38, 70 and 60 characters left.
    ['{"mid": "ab', KEYS_AND_MORE],
    [`{"long": "${'x'.repeat(30)}`, KEYS_AND_MORE],
    [`{"long": "${'y'.repeat(40)}`, KEYS_AND_MORE],
    // A key that must contain a name (an unanchored pattern): the free-text thread never dies.
    ['{"xRe', NAMED_KEYS],
    ['{"', NAMED_KEYS],
    // After a three-byte character.
    ['{"name": "\u65e5', KEYS_AND_MORE],
  ] as const)(
    'after %j',
    (prefix, schema) => {
      const index = vocab('llama3.1');
      const grammar = compileGrammar(jsonSchemaGrammar(schema).grammar, UNTIMED);
      const kernelGrammar = new KernelGrammar(kernel, grammar);
      try {
        const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: index.meta.eos_token_ids });
        const reference = new Matcher(grammar, index);
        const bytes = new TextEncoder().encode(prefix);
        expect(matcher.commitBytes(bytes)).toBe(true);
        reference.commitBytes(bytes);
        expect(bitsetIds(matcher.computeMaskBitset(), index.tokenCount)).toEqual(oracleAllowed(reference));
      } finally {
        kernelGrammar.dispose();
      }
    },
    120_000,
  );

  it('after half a UTF-8 character', () => {
    const index = vocab('llama3.1');
    const grammar = compileGrammar(jsonGrammar(), UNTIMED);
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: index.meta.eos_token_ids });
    const reference = new Matcher(grammar, index);
    const bytes = Uint8Array.of(0x5b, 0x22, 0xe6, 0x97); // ["  and two of the three bytes of 日
    expect(matcher.commitBytes(bytes)).toBe(true);
    reference.commitBytes(bytes);
    expect(bitsetIds(matcher.computeMaskBitset(), index.tokenCount)).toEqual(oracleAllowed(reference));
    kernelGrammar.dispose();
  }, 120_000);
});

describe('the mask cache', () => {
  // Random walks, then the same token sequences again in new matchers: the second time every
  // mask is served from the cache, and each must still equal the reference's.
  const replay = (maskCacheBytes: number): { hits: number; masks: number } => {
    const index = vocab('llama3.1');
    const grammar = compileGrammar(jsonSchemaGrammar(WIDE_OBJECT).grammar, { ...UNTIMED, maskCacheBytes });
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    const eos = index.meta.eos_token_ids;
    const random = seeded(5);
    const walks: number[][] = [];
    let masks = 0;
    try {
      for (let pass = 0; pass < 2; pass++) {
        for (let walk = 0; walk < 2; walk++) {
          const reference = new Matcher(grammar, index);
          const matcher = new KernelMatcher(kernelGrammar, kernelVocab('llama3.1'), { eosTokenIds: eos });
          const tokens = pass === 0 ? [] : walks[walk]!;
          for (let step = 0; step < 10; step++) {
            const mask = matcher.computeMaskBitset();
            masks += pass;
            expect(Array.from(mask), `pass ${pass} walk ${walk} step ${step}`).toEqual(Array.from(reference.computeMaskBitset()));
            let id: number | undefined;
            if (pass === 0) {
              const allowed = bitsetIds(mask, index.tokenCount).filter((t) => !eos.includes(t));
              id = allowed[Math.floor(random() * allowed.length)];
              if (id !== undefined) tokens.push(id);
            } else {
              id = tokens[step];
            }
            if (id === undefined) break;
            expect(matcher.commitToken(id)).toBe(true);
            reference.commitToken(id);
          }
          if (pass === 0) walks.push(tokens);
          matcher.dispose();
        }
      }
      return { hits: kernelGrammar.maskCacheStats().hits, masks };
    } finally {
      kernelGrammar.dispose();
    }
  };

  it('serves repeated matcher states exactly', () => {
    const { hits, masks } = replay(16 << 20);
    expect(hits).toBeGreaterThanOrEqual(masks);
  }, 120_000);

  it('stays exact when its budget holds one mask, and is off at 0 bytes', () => {
    replay(20_000);
    expect(replay(0).hits).toBe(0);
  }, 240_000);
});

describe('lexer rows are a cache', () => {
  // A long string makes a lexer state per character: with the fewest rows kept (16 on each
  // side), rows are dropped and rebuilt all along, and nothing may change.
  it('masks with 16 rows kept equal those with all kept, and the oracle, along a 3,000-character string', () => {
    const schema = {
      type: 'object',
      properties: { description: { type: 'string', maxLength: 3000 }, n: { type: 'integer' } },
      required: ['description', 'n'],
      additionalProperties: false,
    };
    const tiny = compileGrammar(jsonSchemaGrammar(schema).grammar, { ...UNTIMED, lexerCacheBytes: 0 });
    const roomy = compileGrammar(jsonSchemaGrammar(schema).grammar, UNTIMED);
    const index = vocab('stories260k');
    const eos = index.meta.eos_token_ids;
    const tinyKernel = new KernelGrammar(kernel, tiny);
    const roomyKernel = new KernelGrammar(kernel, roomy);
    const matchers = [
      new KernelMatcher(tinyKernel, kernelVocab('stories260k'), { eosTokenIds: eos }),
      new KernelMatcher(roomyKernel, kernelVocab('stories260k'), { eosTokenIds: eos }),
    ];
    const reference = new Matcher(tiny, index);
    const opening = new TextEncoder().encode('{"description": "');
    for (const matcher of [...matchers, reference]) expect(matcher.commitBytes(opening)).toBe(true);
    const random = seeded(31);
    const plain = (id: number): boolean => index.isTextToken(id) && !index.tokenBytes(id).some((byte) => byte === 0x22 || byte === 0x5c);
    let written = 0;
    try {
      for (let step = 0; step < 5000 && !reference.isAccepting(); step++) {
        const mask = bitsetIds(matchers[0]!.computeMaskBitset(), index.tokenCount);
        expect(mask, `step ${step}`).toEqual(bitsetIds(matchers[1]!.computeMaskBitset(), index.tokenCount));
        if (step % 100 === 0) expect(mask, `step ${step}`).toEqual(oracleAllowed(reference));
        const text = mask.filter((id) => !eos.includes(id));
        const inString = text.filter(plain);
        const choices = inString.length > 0 ? inString : text;
        const id = choices[Math.floor(random() * choices.length)]!;
        if (inString.length > 0) written += new TextDecoder().decode(index.tokenBytes(id)).length;
        for (const matcher of [...matchers, reference]) expect(matcher.commitToken(id)).toBe(true);
      }
      expect(written).toBeGreaterThanOrEqual(2990);
      expect(reference.isAccepting()).toBe(true);
      expect(tiny.lexer.stateCount).toBeGreaterThan(3000);
    } finally {
      tinyKernel.dispose();
      roomyKernel.dispose();
    }
  }, 120_000);
});

describe('EOS ids outside the vocabulary', () => {
  it('have no bit in the mask (none written past it), and end the output where it is complete, as in TypeScript', () => {
    const index = vocab('stories260k');
    const grammar = compileGrammar(parseGrammar('regex', 'a|ab'));
    const kernelGrammar = new KernelGrammar(kernel, grammar);
    // Past the last word of the mask, at its edge, negative, and one inside.
    const eosTokenIds = [index.tokenCount + 40, index.tokenCount, -1, ...index.meta.eos_token_ids];
    try {
      const matcher = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds });
      const reference = new Matcher(grammar, index, { eosTokenIds });
      const neighbour = new KernelMatcher(kernelGrammar, kernelVocab('stories260k'), { eosTokenIds: [] });
      const before = Array.from(neighbour.computeMaskBitset());
      for (const text of ['', 'a']) {
        expect(matcher.commitBytes(new TextEncoder().encode(text)) && reference.commitBytes(new TextEncoder().encode(text))).toBe(true);
        expect(Array.from(matcher.computeMaskBitset()), text).toEqual(Array.from(reference.computeMaskBitset()));
      }
      expect(Array.from(neighbour.computeMaskBitset())).toEqual(before);
      expect(matcher.commitToken(index.tokenCount + 40)).toBe(reference.commitToken(index.tokenCount + 40));
      expect(matcher.isAccepting()).toBe(true);
      for (const m of [matcher, neighbour]) m.dispose();
    } finally {
      kernelGrammar.dispose();
    }
  });
});
