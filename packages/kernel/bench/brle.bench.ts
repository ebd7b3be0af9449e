// BRLE encode / AND / apply on a 128k vocabulary: kernel.wasm (through its TypeScript API,
// copies in and out included) against the plain TypeScript implementation in @sieve/format.
// Prints one JSON document on stdout and a table on stderr. Run with `pnpm bench`.
import { applyBrle, brleAnd, brleFromBitset, type Brle } from '@sieve/format';
import { loadKernel } from '../src/index.ts';

const VOCAB = 128_256; // Llama 3.1
const WORDS = (VOCAB + 31) >>> 5;

// Deterministic masks shaped like real ones.
function rng(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
function maskBits(kind: 'sparse' | 'dense' | 'noisy', seed: number): Uint32Array {
  const random = rng(seed);
  const bits = new Uint32Array(WORDS);
  for (let id = 0; id < VOCAB; id++) {
    const on = kind === 'sparse' ? random() < 0.002 : kind === 'dense' ? random() > 0.01 : random() < 0.5;
    if (on) bits[id >>> 5] |= 1 << (id & 31);
  }
  return bits;
}

interface Stats {
  median_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
  runs: number;
}
function measure(fn: () => unknown, runs = 400): Stats {
  for (let i = 0; i < 50; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 100) / 100;
  return { median_us: at(0.5), p90_us: at(0.9), p99_us: at(0.99), max_us: at(1), runs };
}

const kernel = await loadKernel();
const results: Record<string, { kernel: Stats; typescript: Stats; speedup_median: number }> = {};
const compare = (name: string, wasm: () => unknown, ts: () => unknown): void => {
  const k = measure(wasm);
  const t = measure(ts);
  results[name] = { kernel: k, typescript: t, speedup_median: Math.round((t.median_us / k.median_us) * 100) / 100 };
};

for (const kind of ['sparse', 'dense', 'noisy'] as const) {
  const bits = maskBits(kind, 1);
  compare(
    `encode/${kind}`,
    () => kernel.brleFromBitset(bits, VOCAB),
    () => brleFromBitset(bits, VOCAB),
  );
  const masks: Brle[] = [brleFromBitset(bits, VOCAB), brleFromBitset(maskBits('dense', 2), VOCAB), brleFromBitset(maskBits('dense', 3), VOCAB)];
  compare(
    `and3/${kind}`,
    () => kernel.brleAnd(masks, VOCAB),
    () => brleAnd(masks),
  );
  const logits = new Float32Array(VOCAB);
  const fresh = Float32Array.from({ length: VOCAB }, (_, i) => Math.sin(i));
  compare(
    `apply/${kind}`,
    () => (logits.set(fresh), kernel.applyBrle(logits, masks[0]!)),
    () => (logits.set(fresh), applyBrle(logits, masks[0]!)),
  );
}
kernel.dispose();

const report = { bench: 'brle', vocab_size: VOCAB, node: process.version, arch: process.arch, results };
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
const rows = Object.entries(results).map(
  ([name, r]) =>
    `${name.padEnd(14)} kernel ${String(r.kernel.median_us).padStart(8)} µs (p99 ${String(r.kernel.p99_us).padStart(8)})   ts ${String(r.typescript.median_us).padStart(8)} µs (p99 ${String(r.typescript.p99_us).padStart(8)})   ×${r.speedup_median}`,
);
process.stderr.write(`BRLE on ${VOCAB} tokens, medians (lower is better)\n${rows.join('\n')}\n`);
