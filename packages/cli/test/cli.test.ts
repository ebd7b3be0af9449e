import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'));
  return { code, stdout, stderr };
}

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
    writeFileSync(damaged, 'not a vocab index, just some text that is long enough to hold a header');
    const bad = await run('vocab', 'info', damaged, '--json');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('bad_magic');

    const usage = await run('vocab', 'frobnicate', 'x');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown command/);
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

  it('rejects an unknown format', async () => {
    const result = await run('compile', '--format', 'yaml', '--grammar', grammar, '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.code).toBe('usage');
  });
});
