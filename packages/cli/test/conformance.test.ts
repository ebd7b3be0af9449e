// Conformance ratchets: per-test outcomes on the JSON-Schema-Test-Suite (draft 2020-12,
// required + optional/format) and on a fixed MaskBench-dev sample are compared with the
// committed baselines. A test that passed and no longer does fails here; when tests improve,
// a local run rewrites the baseline (commit it), CI never writes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMaskBench, runSuite } from '../src/conformance.ts';

const corpora = join(import.meta.dirname, '../../../../shared/corpora');
const baselines = join(import.meta.dirname, 'baselines');
const MASKBENCH_SAMPLE = 2000;

function ratchet(name: string, outcomes: Record<string, string>, isPass: (o: string) => boolean): void {
  const file = join(baselines, `${name}.json`);
  // CI compares with a committed baseline; only a local run may start one.
  expect(existsSync(file) || !process.env.CI, `${file} is missing`).toBe(true);
  const baseline: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const regressions = Object.entries(baseline).filter(([id, before]) => isPass(before) && !isPass(outcomes[id] ?? 'missing'));
  expect(regressions.map(([id, before]) => `${id}: ${before} → ${outcomes[id] ?? 'missing'}`)).toEqual([]);
  const changed = Object.keys(outcomes).some((id) => outcomes[id] !== baseline[id]) || Object.keys(baseline).length !== Object.keys(outcomes).length;
  if (changed && !process.env.CI) writeFileSync(file, JSON.stringify(outcomes, null, 1) + '\n');
}

describe('conformance ratchets', () => {
  it('JSON-Schema-Test-Suite: no passing test regresses, no invalid instance is accepted', async () => {
    const result = await runSuite(join(corpora, 'json-schema-test-suite'));
    expect(result.failed_invalid_accepted).toBe(0);
    ratchet('json-schema-test-suite', result.outcomes, (o) => o === 'passed');
  }, 300_000);

  it(`MaskBench-dev sample (${MASKBENCH_SAMPLE} files): no passing file regresses, no invalid instance is accepted`, async () => {
    const result = await runMaskBench(join(corpora, 'maskbench-dev'), 'llama3.1', MASKBENCH_SAMPLE, false);
    expect(result.invalid_accepted).toBe(0);
    // A file passes when it compiles and every instance behaves.
    ratchet('maskbench-sample', result.outcomes, (o) => o.startsWith('ok:') && !/[RA]/.test(o));
  }, 600_000);
});
