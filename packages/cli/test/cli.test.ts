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
