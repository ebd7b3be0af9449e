// What the kernel costs before the first mask: kernel.wasm's size and instantiation time, and
// per tokenizer the vocab index's size, the time to load it into the kernel (copy and checks)
// and the linear memory it then takes. Reads the .vocab files `pnpm build` writes to
// public/vocab/ (plus any other given on the command line). Prints one JSON document on
// stdout and a table on stderr. Run with `pnpm bench`.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKernel } from '../src/index.ts';

const wasmPath = fileURLToPath(new URL('../build/kernel.wasm', import.meta.url));
const vocabDir = fileURLToPath(new URL('../../../public/vocab/', import.meta.url));
const files = [
  ...readdirSync(vocabDir)
    .filter((f) => f.endsWith('.vocab'))
    .map((f) => join(vocabDir, f)),
  ...process.argv.slice(2),
];

const median = (times: number[]): number => {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.round(sorted[sorted.length >> 1]! * 1000) / 1000;
};
const timed = async (runs: number, fn: () => Promise<void> | void): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
};

const wasm = readFileSync(wasmPath);
const instantiateMs = await timed(20, async () => (await loadKernel(wasm)).dispose());
const tokenizers: Record<string, { file_bytes: number; load_ms: number; memory_bytes: number }> = {};
for (const file of files) {
  const bytes = readFileSync(file);
  const kernel = await loadKernel(wasm);
  // Linear memory the first load adds to a fresh kernel's.
  const before = kernel.exports.memory.buffer.byteLength;
  kernel.loadVocab(bytes).dispose();
  const memoryBytes = kernel.exports.memory.buffer.byteLength - before;
  const loadMs = await timed(10, () => kernel.loadVocab(bytes).dispose());
  tokenizers[basename(file, '.vocab')] = { file_bytes: bytes.length, load_ms: loadMs, memory_bytes: memoryBytes };
  kernel.dispose();
}
const report = { bench: 'vocab', kernel_wasm_bytes: wasm.length, kernel_instantiate_ms: instantiateMs, tokenizers };
console.log(JSON.stringify(report, null, 2));
console.error(`kernel.wasm ${wasm.length} bytes, instantiated in ${instantiateMs} ms`);
for (const [name, r] of Object.entries(tokenizers))
  console.error(`${name}: ${r.file_bytes} bytes, loaded in ${r.load_ms} ms, ${r.memory_bytes} bytes of linear memory`);
