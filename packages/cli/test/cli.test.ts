import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MaskIndex } from '@sieve/format';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(
    args,
    (s) => (stdout += s + '\n'),
    (s) => (stderr += s + '\n'),
  );
  return { code, stdout, stderr };
}

describe('the sieve command', () => {
  it('runs from its bin script, the TypeScript sources loaded with their types stripped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sieve-bin-'));
    const grammar = join(dir, 'ab.regex');
    writeFileSync(grammar, 'a+b');
    const out = execFileSync(
      process.execPath,
      [join(import.meta.dirname, '..', 'bin', 'sieve.js'), 'compile', '--format', 'regex', '--grammar', grammar, '--json'],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toMatchObject({ format: 'regex', lexemes: 1 });
  });
});

describe('sieve vocab', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-cli-'));

  it('builds an index and reports the documented fields', async () => {
    const file = join(dir, 'stories.vocab');
    const built = await run('vocab', 'build', 'stories260k', '-o', file, '--json');
    expect(built.code).toBe(0);
    expect(JSON.parse(built.stdout)).toMatchObject({ file, tokens: 512, special_tokens: 3 });

    const info = await run('vocab', 'info', file, '--json');
    expect(info.code).toBe(0);
    const data = JSON.parse(info.stdout);
    expect(data).toMatchObject({ tokens: 512, special_tokens: 3, eos_token_ids: [2], bos_token_id: 1, decoder: 'sentencepiece' });
    expect(data.file_bytes).toBeGreaterThan(512);
    expect(typeof data.build_ms).toBe('number');
  });

  it('prints text for people without --json', async () => {
    const info = await run('vocab', 'info', 'stories260k');
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/tokens\s+512/);
  });

  it('builds from a tokenizer.json path', async () => {
    const file = join(dir, 'from-path.vocab');
    const built = await run('vocab', 'build', '../shared/models/stories260K/tokenizer.json', '-o', file, '--json');
    expect(JSON.parse(built.stdout).tokens).toBe(512);
  });

  it('reports unknown targets, damaged files and bad usage as JSON errors with exit 2', async () => {
    const missing = await run('vocab', 'info', 'no-such-tokenizer', '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toBe('not_found');

    const damaged = join(dir, 'damaged.vocab');
    writeFileSync(damaged, 'not a vocab index, just some text that is long enough to hold a header. '.repeat(4));
    const bad = await run('vocab', 'info', damaged, '--json');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('bad_magic');

    const usage = await run('vocab', 'frobnicate', 'x');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown command/);
  });
});

describe('sieve index build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-index-'));
  const schema = join(dir, 'size.schema.json');
  writeFileSync(schema, JSON.stringify({ type: 'object', properties: { size: { enum: ['S', 'M', 'L'] } }, required: ['size'], additionalProperties: false }));

  it('writes a mask index the reader accepts, for a preset or a .vocab file alike', async () => {
    const output = join(dir, 'size.sieve');
    const built = await run('index', 'build', '--format', 'json-schema', '--grammar', schema, '--tokenizer', 'stories260k', '-o', output, '--json');
    expect(built.code).toBe(0);
    const summary = JSON.parse(built.stdout);
    expect(summary).toMatchObject({ output, complete: true, tokenizer: 'stories260k' });
    const index = new MaskIndex(new Uint8Array(readFileSync(output)));
    expect(index.stateCount).toBe(summary.states);
    expect(index.meta.grammar).toBe('json-schema size.schema.json');
    const vocabFile = join(dir, 'stories.vocab');
    await run('vocab', 'build', 'stories260k', '-o', vocabFile);
    const fromVocab = await run('index', 'build', '--format', 'json-schema', '--grammar', schema, '--tokenizer', vocabFile, '-o', join(dir, 'again.sieve'));
    expect(fromVocab.code).toBe(0);
    expect(fromVocab.stdout).toMatch(/every reachable state is indexed/);
    // The same tokenizer either way: the same vocabulary fingerprint and states.
    const again = new MaskIndex(new Uint8Array(readFileSync(join(dir, 'again.sieve'))));
    expect(again.vocabFingerprint).toBe(index.vocabFingerprint);
    expect(again.grammarFingerprint).toBe(index.grammarFingerprint);
    expect(again.stateCount).toBe(index.stateCount);
  });

  it('says when the state budget cut the index short', async () => {
    const regex = join(dir, 'words.regex');
    writeFileSync(regex, '[a-z]{1,8}( [a-z]{1,8})*');
    const cut = await run(
      'index',
      'build',
      '--format',
      'regex',
      '--grammar',
      regex,
      '--tokenizer',
      'stories260k',
      '--max-states',
      '2',
      '-o',
      join(dir, 'cut.sieve'),
    );
    expect(cut.code).toBe(0);
    expect(cut.stdout).toMatch(/incomplete: the grammar reaches more than 2 states/);
  });

  it('needs a tokenizer and a valid budget (exit 2)', async () => {
    expect((await run('index', 'build', '--format', 'json-schema', '--grammar', schema)).code).toBe(2);
    const bad = await run('index', 'build', '--format', 'json-schema', '--grammar', schema, '--tokenizer', 'stories260k', '--max-states', 'lots', '--json');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.message).toMatch(/--max-states/);
  });
});

describe('sieve compile and sieve check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-grammar-'));
  const grammar = join(dir, 'parens.gbnf');
  writeFileSync(grammar, 'root ::= "(" root ")" | [0-9]+\n');
  const input = (text: string): string => {
    const file = join(dir, `input-${text.length}-${Math.random()}.txt`);
    writeFileSync(file, text);
    return file;
  };

  it('names the greedy terminals that could swallow what follows them', async () => {
    const lark = join(dir, 'swallow.lark');
    writeFileSync(lark, 'start: NUM "0" | NUM ","\nNUM: /[0-9]+/\n');
    const result = await run('compile', '--format', 'lark', '--grammar', lark, '--json');
    expect(result.code).toBe(0);
    // (Lexemes: the grammar's own three; terminals: those the rewrite leaves, variants included.)
    expect(JSON.parse(result.stdout)).toMatchObject({ format: 'lark', lexemes: 3, swallowing: ['NUM'], terminals: expect.any(Number) });
    expect(JSON.parse((await run('compile', '--format', 'gbnf', '--grammar', grammar, '--json')).stdout)).not.toHaveProperty('swallowing');
  });

  it('compiles and reports stats, with the first mask for a tokenizer', async () => {
    const result = await run('compile', '--format', 'gbnf', '--grammar', grammar, '--tokenizer', 'stories260k', '--json');
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout);
    expect(stats).toMatchObject({ format: 'gbnf', rules: 1, tokenizer: 'stories260k' });
    expect(stats.first_mask_allowed).toBeGreaterThan(0);
  });

  it('reports compile errors with code, span, line and column (exit 2)', async () => {
    const bad = join(dir, 'bad.gbnf');
    writeFileSync(bad, 'root ::= "(" rot ")"\n');
    const result = await run('compile', '--format', 'gbnf', '--grammar', bad, '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toEqual({ code: 'unknown_rule', message: 'unknown rule rot', span: { start: 13, end: 16, line: 1, col: 14 } });
    const text = await run('check', '--format', 'gbnf', '--grammar', bad, '--input', input('1'));
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('^^^');
  });

  it.each([
    ['((12))', undefined, 0, { accepted: true, complete: true, rejected_at: null }],
    ['((12)', undefined, 1, { accepted: true, complete: false, rejected_at: null }],
    ['((1x2))', undefined, 1, { accepted: false, complete: false, rejected_byte: 3 }],
    ['((12))', 'llama3.1', 0, { accepted: true, complete: true }],
    ['((1x2))', 'llama3.1', 1, { accepted: false, rejected_byte: 3 }],
    ['((12))', 'stories260k', 0, { accepted: true, complete: true }],
  ] as const)('checks %j (tokenizer %s) → exit %i', async (text, tokenizer, code, expected) => {
    const args = ['check', '--format', 'gbnf', '--grammar', grammar, '--input', input(text), '--json', ...(tokenizer ? ['--tokenizer', tokenizer] : [])];
    const result = await run(...args);
    expect(result.code).toBe(code);
    expect(JSON.parse(result.stdout)).toMatchObject(expected);
  });

  it('checks the input bytes as they are: a byte that is no UTF-8 is refused, not read as U+FFFD', async () => {
    const notA = join(dir, 'not-a.ebnf');
    writeFileSync(notA, 'root ::= [^a]+\n');
    const fffd = join(dir, 'fffd.gbnf');
    writeFileSync(fffd, 'root ::= "\uFFFD"\n');
    const bytesFile = (name: string, bytes: number[]): string => {
      const path = join(dir, name);
      writeFileSync(path, Uint8Array.from(bytes));
      return path;
    };
    // E2 A1 A1 is U+2861; the last A1 continues nothing.
    const cut = await run('check', '--format', 'ebnf', '--grammar', notA, '--input', bytesFile('cut.bin', [0xe2, 0xa1, 0xa1, 0xa1]), '--json');
    expect(cut.code).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatchObject({ accepted: false, rejected_byte: 3, tokens: 4 });
    const ff = await run('check', '--format', 'gbnf', '--grammar', fffd, '--input', bytesFile('ff.bin', [0xff]), '--json');
    expect(JSON.parse(ff.stdout)).toMatchObject({ accepted: false, rejected_byte: 0 });
    const real = await run('check', '--format', 'gbnf', '--grammar', fffd, '--input', bytesFile('fffd.bin', [0xef, 0xbf, 0xbd]), '--json');
    expect(real.code).toBe(0);
    // A tokenizer splits text: bytes that are no UTF-8 are a usage error with one.
    const tokenized = await run(
      'check',
      '--format',
      'gbnf',
      '--grammar',
      fffd,
      '--input',
      bytesFile('ff2.bin', [0xff]),
      '--tokenizer',
      'stories260k',
      '--json',
    );
    expect(tokenized.code).toBe(2);
    expect(JSON.parse(tokenized.stdout).error.code).toBe('usage');
  });

  it('--flags gives a regex its RegExp flags (u for \\p{L}); with another format it is a usage error', async () => {
    const letters = join(dir, 'letters.regex');
    writeFileSync(letters, '\\p{L}+\n');
    const withU = await run('check', '--format', 'regex', '--grammar', letters, '--flags', 'u', '--input', input('éa'), '--json');
    expect(withU.code).toBe(0);
    const without = await run('compile', '--format', 'regex', '--grammar', letters, '--json');
    expect(without.code).toBe(2);
    expect(JSON.parse(without.stdout).error.message).toMatch(/--flags u/);
    const misplaced = await run('compile', '--format', 'gbnf', '--grammar', grammar, '--flags', 'u', '--json');
    expect(misplaced.code).toBe(2);
    expect(JSON.parse(misplaced.stdout).error.code).toBe('usage');
  });

  it('rejects an unknown format', async () => {
    const result = await run('compile', '--format', 'yaml', '--grammar', grammar, '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.code).toBe('usage');
  });
});

describe('sieve compile and sieve check --format json-schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-schema-'));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const person = file(
    'person.json',
    JSON.stringify(
      { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 0, maximum: 150 } }, required: ['name'] },
      null,
      2,
    ),
  );
  const unsupported = file('dynamic.json', JSON.stringify({ type: 'object', properties: { a: { type: 'string', $dynamicRef: '#node' } } }));

  it('compiles a schema and reports stats, warnings and the first mask', async () => {
    const result = await run('compile', '--format', 'json-schema', '--grammar', person, '--tokenizer', 'stories260k', '--json');
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout);
    expect(stats).toMatchObject({ format: 'json-schema', warnings: [], tokenizer: 'stories260k' });
    expect(stats.rules).toBeGreaterThan(0);
    // The first token must open the object (or be whitespace): far from all 512.
    expect(stats.first_mask_allowed).toBeGreaterThan(0);
    expect(stats.first_mask_allowed).toBeLessThan(512);
  });

  it('reports an unsupported keyword with its pointer and keyword (exit 2), or a warning with --lenient', async () => {
    const result = await run('compile', '--format', 'json-schema', '--grammar', unsupported, '--json');
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: 'unsupported', pointer: '/properties/a', keyword: '$dynamicRef' });
    expect(error.message).toContain('$dynamicRef');
    expect(error).not.toHaveProperty('span');
    const text = await run('check', '--format', 'json-schema', '--grammar', unsupported, '--input', file('a.json', '{}'));
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('/properties/a');

    const lenient = await run('compile', '--format', 'json-schema', '--grammar', unsupported, '--lenient', '--json');
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout).warnings).toEqual([
      { pointer: '/properties/a', keyword: '$dynamicRef', message: expect.stringContaining('$dynamicRef') },
    ]);
    const lenientText = await run('compile', '--format', 'json-schema', '--grammar', unsupported, '--lenient');
    expect(lenientText.stderr).toMatch(/warning: \/properties\/a: .*\$dynamicRef/);
  });

  it('reports a limit error with the limit and the pointer of the schema part that needed it (exit 2)', async () => {
    const huge = file(
      'huge.json',
      JSON.stringify({ type: 'object', properties: { name: { type: 'string', maxLength: 40000, pattern: '^(xy|z){1,30000}$' } } }),
    );
    const result = await run('compile', '--format', 'json-schema', '--grammar', huge, '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'limit_exceeded', limit: 'maxNfaStates', value: 200000, pointer: '/properties/name' });
  });

  it('reports a schema file that is not JSON as invalid_schema (exit 2), with a span where the parser gives the offset', async () => {
    const truncated = await run(
      'compile',
      '--format',
      'json-schema',
      '--grammar',
      file('truncated.json', '{"type": "object",\n "properties": {"a": 1'),
      '--json',
    );
    expect(truncated.code).toBe(2);
    const { error } = JSON.parse(truncated.stdout);
    expect(error.code).toBe('invalid_schema');
    expect(error.message).toMatch(/^not valid JSON/);
    expect(error.span).toEqual({ start: 41, end: 41, line: 2, col: 23 });
    const garbage = await run('compile', '--format', 'json-schema', '--grammar', file('garbage.json', '{"type": }'), '--json');
    expect(garbage.code).toBe(2);
    expect(JSON.parse(garbage.stdout).error.code).toBe('invalid_schema');
  });

  it.each([
    ['stories260k', '{"name": "Ann", "age": 30}', 0, { accepted: true, complete: true, rejected_at: null }],
    ['stories260k', '{"name": "Ann", "age": 300}', 1, { accepted: false, rejected_byte: 25 }],
    ['stories260k', '{"name": "Ann"', 1, { accepted: true, complete: false }],
    ['llama3.1', '{"name": "Ann", "age": 30}\n', 0, { accepted: true, complete: true, warnings: [] }],
    ['llama3.1', '{"age": 30}', 1, { accepted: false, complete: false }],
    ['llama3.1', '{"name": "Annabelle Lee"}', 1, { accepted: false }],
  ] as const)('checks with %s: %s → exit %i', async (tokenizer, text, code, expected) => {
    const result = await run(
      'check',
      '--format',
      'json-schema',
      '--grammar',
      person,
      '--input',
      file(`instance-${Math.random()}.json`, text),
      '--tokenizer',
      tokenizer,
      '--json',
    );
    expect(result.code).toBe(code);
    expect(JSON.parse(result.stdout)).toMatchObject(expected);
  });

  it('--strict reads a missing additionalProperties as false; it applies to json-schema only', async () => {
    const input = file('extra.json', '{"name": "Ann", "x": 1}');
    const loose = await run('check', '--format', 'json-schema', '--grammar', person, '--input', input, '--json');
    expect(loose.code).toBe(0);
    const strict = await run('check', '--format', 'json-schema', '--grammar', person, '--input', input, '--strict', '--json');
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout).accepted).toBe(false);
    const usage = await run('compile', '--format', 'gbnf', '--grammar', person, '--strict', '--json');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error.code).toBe('usage');
  });

  it('--annotate-formats reads format as an annotation, as the default vocabulary does', async () => {
    const email = file('email.json', '{"type": "string", "format": "email"}');
    const input = file('not-email.json', '"not an email"');
    expect((await run('check', '--format', 'json-schema', '--grammar', email, '--input', input, '--json')).code).toBe(1);
    expect((await run('check', '--format', 'json-schema', '--grammar', email, '--input', input, '--annotate-formats', '--json')).code).toBe(0);
  });
});

describe('sieve bench maskbench', () => {
  // A MaskBench-shaped directory: a schema with valid and invalid instances.
  const dir = mkdtempSync(join(tmpdir(), 'sieve-maskbench-'));
  writeFileSync(
    join(dir, 'Local---person.json'),
    JSON.stringify({
      schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] },
      tests: [
        { valid: true, data: { name: 'Ann', age: 30 } },
        { valid: true, data: { age: 1, name: 'Bo' } },
        { valid: false, data: { age: 30 } },
        { valid: false, data: { name: 'Ann', age: 'x' } },
      ],
    }),
  );

  const summaryOf = async (engine: string): Promise<{ summary: Record<string, unknown>; outcome: string }> => {
    const outcomes = join(dir, `${engine}.outcomes`);
    const result = await run('bench', 'maskbench', '--dir', dir, '--tokenizer', 'llama3.1', '--engine', engine, '--outcomes', outcomes, '--json');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return { summary: JSON.parse(result.stdout), outcome: JSON.parse(readFileSync(outcomes, 'utf8'))['Local---person.json'] };
  };

  it('--engine sieve decides every instance right', async () => {
    const { summary, outcome } = await summaryOf('sieve');
    expect(summary).toMatchObject({
      engine: 'sieve',
      tokenizer: 'llama3.1',
      cases: 1,
      schemas_compiled: 1,
      valid_tested: 2,
      valid_rejected: 0,
      invalid_tested: 2,
      invalid_accepted: 0,
    });
    expect(outcome).toBe('ok:pppp');
    expect(summary.tokens).toBeGreaterThan(10);
    expect(Object.keys(summary.mask_us as object)).toEqual(['mean', 'p50', 'p90', 'p99', 'p999', 'max']);
    // The slowest mask is named: its file, which of the file's timed tokens, and the max.
    const slowest = summary.slowest_mask as { file: string; token: number; us: number };
    expect(slowest.file).toBe('Local---person.json');
    expect(slowest.token).toBeGreaterThanOrEqual(0);
    expect(slowest.token).toBeLessThan(summary.tokens as number);
    expect(slowest.us).toBe((summary.mask_us as { max: number }).max);
  }, 60_000);

  it('--engine xgrammar gives the same summary for the peer, with its known relaxations', async () => {
    const { summary, outcome } = await summaryOf('xgrammar');
    expect(summary).toMatchObject({
      engine: 'xgrammar',
      tokenizer: 'llama3.1',
      cases: 1,
      schemas_compiled: 1,
      valid_tested: 2,
      valid_rejected: 1,
      invalid_tested: 2,
      invalid_accepted: 1,
    });
    // Declared order only (the reordered valid instance is refused); a declared key written
    // again as an "additional" property escapes its schema ({"age": "x"} is accepted).
    expect(outcome).toBe('ok:pRpA');
    expect(summary.tokens).toBeGreaterThan(10);
    expect(Object.keys(summary).sort()).toEqual(Object.keys((await summaryOf('sieve')).summary).sort());
  }, 60_000);

  it('refuses an unknown engine', async () => {
    const result = await run('bench', 'maskbench', '--dir', dir, '--tokenizer', 'llama3.1', '--engine', 'outlines', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.code).toBe('usage');
  });
});

describe('sieve bench report', () => {
  const run1 = {
    engine: 'sieve',
    tokenizer: 'llama3.1',
    cases: 200,
    schemas_compiled: 180,
    compile_errors: 20,
    unsupported_by_keyword: {},
    valid_tested: 100,
    valid_rejected: 0,
    invalid_tested: 90,
    invalid_accepted: 0,
    tokens: 5000,
    mask_us: { mean: 40, p50: 20, p90: 60, p99: 400, p999: 900, max: 5000 },
    compile_ms: { p50: 2, p90: 8, p99: 40, max: 90 },
    slowest_mask: { file: 'Github_easy---o1.json', token: 7, us: 5000 },
  };
  const run2 = {
    ...run1,
    engine: 'xgrammar',
    note: 'from an earlier run',
    mask_us: { mean: 100, p50: 50, p90: 120, p99: 2000, p999: 4000, max: 9000 },
    compile_ms: { p50: 500, p90: 900, p99: 5000, max: 9000 },
  };
  const brle = {
    bench: 'brle',
    vocab_size: 128256,
    results: { 'encode/sparse': { kernel: { median_us: 10, p99_us: 12 }, typescript: { median_us: 30, p99_us: 40 }, speedup_median: 3 } },
  };
  const vocab = {
    bench: 'vocab',
    kernel_wasm_bytes: 24000,
    kernel_instantiate_ms: 0.5,
    tokenizers: { 'llama3.1': { file_bytes: 3 * 2 ** 20, load_ms: 1.25, memory_bytes: 4 * 2 ** 20 } },
  };

  it('renders the page from concatenated JSON documents, with ratios on the same files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sieve-report-'));
    const input = join(dir, 'bench.json');
    // As pnpm bench prints them: pretty and compact documents, strings with braces.
    writeFileSync(
      input,
      `${JSON.stringify(brle, null, 2)}\n${JSON.stringify(vocab)}\n${JSON.stringify({ ...run1, unsupported_by_keyword: { 'pattern:{x}': 1 } })}\n${JSON.stringify(run2)}\n`,
    );
    const output = join(dir, 'benchmarks.md');
    const result = await run('bench', 'report', '--input', input, '-o', output);
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(output, 'utf8');
    expect(page).toContain('| sieve (llama3.1) | 200 | 180 (90.00%) |');
    expect(page).toContain('| 200 | 0.40× | 0.20× | 0.56× | 0.0040× | 0.0080× |');
    expect(page).toContain('| encode/sparse | 10 | 12 | 30 | 40 | 3× |');
    expect(page).toContain('kernel.wasm: 24,000 bytes');
    expect(page).toContain('- xgrammar, 200 files: from an earlier run');
    expect(page).toContain(
      'sieve (llama3.1, 200 files): Github_easy---o1.json, its timed token 7, 5.0 ms; xgrammar (llama3.1, 200 files): Github_easy---o1.json',
    );
    expect(page).toContain('| llama3.1 | 3.0 MiB | 1.25 ms | 4.0 MiB |');
    expect(page).toMatch(/Machine: .*Node v/);
  });

  it('renders a generation report: what constraining adds to a step, from each step’s total (its p99 too)', async () => {
    const part = (mean: number, p99: number) => ({ mean, p99 });
    const side = (total: { mean: number; p99: number; steps: number }) => ({
      tokens: 50,
      tokens_per_s: 500,
      forward_ms_per_pass: 1,
      forward_passes: 20,
      mask_us_per_step: 100,
      sample_us_per_step: 300,
      forced_fraction: 0.5,
      step_us: { mask: part(100, 900), apply: part(50, 800), sample: part(300, 700), commit: part(40, 600), other: part(10, 500) },
      step_total_us: total,
    });
    const generation = {
      bench: 'generation',
      model: 'onnx-community/gemma-3-270m-it-ONNX',
      tokens: 262145,
      device: 'wasm',
      runs: 5,
      user_agent: 'HeadlessChrome',
      schemas: [
        {
          schema: 'order',
          compile_ms: 12,
          first_run: { steps: 26, mean: 900, max: 15000, ms: 23.4 },
          constrained: side({ ...part(500, 1400), steps: 130 }),
          unconstrained: side({ ...part(2000, 2600), steps: 250 }),
          speed_ratio: 2,
          complete: 5,
          runs: 5,
        },
      ],
    };
    const dir = mkdtempSync(join(tmpdir(), 'sieve-report-'));
    const input = join(dir, 'bench.json');
    writeFileSync(input, `${JSON.stringify(generation)}\n`);
    const output = join(dir, 'benchmarks.md');
    expect((await run('bench', 'report', '--input', input, '-o', output)).code).toBe(0);
    // (Not the sum of the parts' p99s, 3,500 on either side.) Percentiles over every run's steps, counted.
    const page = readFileSync(output, 'utf8');
    expect(page).toMatch(/\| 500\.0 \/ 1400\.0 \| 2000\.0 \/ 2600\.0 \| -1500\.0 \/ -1200\.0 \| [-\d.]+ \| 130 \/ 250 \| 900\.0 \/ 15000\.0, 23\.4 \|/);
    expect(page).toContain('mean / p99 over the sampled steps of every run');
  });

  it('needs --input', async () => {
    expect((await run('bench', 'report', '--json')).code).toBe(2);
  });
});

describe('sieve generate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-generate-'));
  const model = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'models', 'stories260K');
  const schema = {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 1, maximum: 9 } },
    required: ['name', 'age'],
    additionalProperties: false,
  };

  it('writes output the schema accepts, with the documented fields', async () => {
    const file = join(dir, 'person.json');
    writeFileSync(file, JSON.stringify(schema));
    const out = await run(
      'generate',
      '--model',
      model,
      '--format',
      'json-schema',
      '--grammar',
      file,
      '--prompt',
      'Once upon a time',
      '--seed',
      '1',
      '--max-tokens',
      '60',
      '--json',
    );
    expect(out.code, out.stdout + out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(Object.keys(result).sort()).toEqual(['chat', 'forced_tokens', 'mask_us_mean', 'ms_per_token', 'prompt_tokens', 'stop_reason', 'text', 'tokens']);
    const value = JSON.parse(result.text);
    expect(Object.keys(value).sort()).toEqual(['age', 'name']);
    expect(Number.isInteger(value.age) && value.age >= 1 && value.age <= 9).toBe(true);
    expect(result.forced_tokens).toBeGreaterThan(0);
    expect(result.tokens).toBeLessThanOrEqual(60);
  });

  it('generates under a regex, and without a grammar', async () => {
    const file = join(dir, 'date.regex');
    writeFileSync(file, '[0-9]{4}-[0-9]{2}-[0-9]{2}\n');
    const constrained = JSON.parse(
      (await run('generate', '--model', model, '--format', 'regex', '--grammar', file, '--prompt', 'Today is', '--temperature', '0', '--json')).stdout,
    );
    expect(constrained.text).toMatch(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/);
    expect(constrained.stop_reason).toBe('grammar');
    const free = JSON.parse(
      (await run('generate', '--model', model, '--prompt', 'Once upon a time', '--temperature', '0', '--max-tokens', '8', '--json')).stdout,
    );
    expect(free.tokens).toBe(8);
    expect(free.stop_reason).toBe('length');
  });

  it('exits 2 on a bad grammar or bad flags, before loading the model', async () => {
    const file = join(dir, 'bad.gbnf');
    writeFileSync(file, 'root ::= "a" missing\n');
    const bad = await run('generate', '--model', model, '--format', 'gbnf', '--grammar', file, '--prompt', 'x', '--json');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'unknown_rule', span: { line: 1 } });
    const flags = await run('generate', '--model', model, '--prompt', 'x', '--temperature', 'hot', '--json');
    expect(flags.code).toBe(2);
    expect(JSON.parse(flags.stdout).error.message).toMatch(/--temperature must be a number/);
  });
});
