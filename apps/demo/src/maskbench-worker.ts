// The MaskBench bench page's worker: Sieve's kernel and the tokenizer's vocab index, and the
// MaskBench runner the CLI uses, over the cases the page sends.
import { VocabIndex } from '@sieve/format';
import { MaskBenchTally, sieveGrammarEngine, type MaskBenchCase, type MaskBenchResult } from '@sieve/bench';
import { loadKernel } from '@sieve/kernel';

export interface MaskBenchRequest {
  readonly tokenizer: string;
  readonly cases: readonly MaskBenchCase[];
  /** URLs of kernel.wasm and of the tokenizer's vocab index. */
  readonly kernel: string;
  readonly vocab: string;
}

export type MaskBenchResponse =
  | { readonly kind: 'progress'; readonly done: number }
  | { readonly kind: 'result'; readonly result: MaskBenchResult }
  | { readonly kind: 'error'; readonly message: string };

const reply = (message: MaskBenchResponse): void => postMessage(message);

self.onmessage = async ({ data }: MessageEvent<MaskBenchRequest>) => {
  try {
    const kernel = await loadKernel(data.kernel);
    const file = new Uint8Array(await (await fetch(data.vocab)).arrayBuffer());
    const vocab = kernel.loadVocab(file);
    const tally = new MaskBenchTally(sieveGrammarEngine(kernel, vocab, new VocabIndex(file).meta.eos_token_ids));
    for (const [i, c] of data.cases.entries()) {
      await tally.add(c);
      if (i % 10 === 9) reply({ kind: 'progress', done: i + 1 });
    }
    reply({ kind: 'result', result: tally.result(data.tokenizer) });
    vocab.dispose();
    kernel.dispose();
  } catch (error) {
    reply({ kind: 'error', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
};
