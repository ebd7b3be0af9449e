// MaskBench in a Chromium Web Worker against Node, on the same cases in one run: the cases
// (an evenly spread sample of MaskBench-dev, llama3.1, tokenized here) go through the CLI's
// runner in this Node process, then through the same runner in the demo's bench page
// (apps/demo/maskbench.html). Prints both summaries and the browser/Node ratios as JSON.
// Part of `pnpm bench`; SIEVE_MASKBENCH_LIMIT sets the sample size (default 100).
import { prepareMaskBench, tallyMaskBench, unpackMaskBenchCase } from '../../packages/cli/src/conformance.ts';
import type { BrowserMaskBenchReport, MaskBenchResult, MaskBenchSummary } from '../../packages/bench/src/index.ts';
import { runBenchPage } from './bench-page.ts';

const TOKENIZER = 'llama3.1';
const limit = Number(process.env.SIEVE_MASKBENCH_LIMIT ?? 100);
const dir = new URL('../../../shared/corpora/maskbench-dev', import.meta.url).pathname;

const { cases, engine } = await prepareMaskBench(dir, TOKENIZER, limit);
const node = await tallyMaskBench(cases, engine, TOKENIZER);
const browser = (await runBenchPage('/maskbench.html', {
  '/maskbench-cases.json': JSON.stringify({ tokenizer: TOKENIZER, cases: cases.map(unpackMaskBenchCase) }),
})) as MaskBenchResult & { user_agent: string };

// A summary without per-file outcomes (and, from the page, without its browser facts).
const summary = (result: MaskBenchResult): MaskBenchSummary => {
  const { outcomes, user_agent, hardware_concurrency, ...rest } = result as MaskBenchResult & { user_agent?: string; hardware_concurrency?: number };
  void [outcomes, user_agent, hardware_concurrency];
  return rest;
};
const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
const report: BrowserMaskBenchReport = {
  bench: 'maskbench-browser',
  tokenizer: TOKENIZER,
  cases: cases.length,
  user_agent: browser.user_agent,
  // Exactness does not depend on where the kernel runs: the same outcome for every instance.
  outcomes_equal: JSON.stringify(node.outcomes) === JSON.stringify(browser.outcomes),
  node: summary(node),
  browser: summary(browser),
  browser_over_node: {
    mask_mean: ratio(browser.mask_us.mean, node.mask_us.mean),
    mask_p50: ratio(browser.mask_us.p50, node.mask_us.p50),
    mask_p99: ratio(browser.mask_us.p99, node.mask_us.p99),
    compile_p50: ratio(browser.compile_ms.p50, node.compile_ms.p50),
    compile_p99: ratio(browser.compile_ms.p99, node.compile_ms.p99),
  },
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
