// Runs inside a Web Worker: loads kernel.wasm and the stories260k vocab index from the
// app's static files and computes one exact mask, proving the hot path works off-thread.
import { brleCount } from '@sieve/format';
import { loadKernel } from '@sieve/kernel';
import { expose } from 'comlink';

/** What the probe found. */
export interface ProbeReport {
  readonly inWorker: boolean;
  readonly crossOriginIsolated: boolean;
  readonly webgpu: boolean;
  readonly vocabTokens: number;
  readonly literal: string;
  readonly allowedTokens: number;
  readonly kernelMemoryBytes: number;
}

const probe = {
  async run(literal: string): Promise<ProbeReport> {
    const kernel = await loadKernel(new URL('/kernel.wasm', self.location.href));
    try {
      const response = await fetch(new URL('/vocab/stories260k.vocab', self.location.href));
      if (!response.ok) throw new Error(`vocab index: HTTP ${response.status} (run \`pnpm build\`)`);
      const vocab = kernel.loadVocab(new Uint8Array(await response.arrayBuffer()));
      const mask = vocab.maskLiteral(new TextEncoder().encode(literal));
      return {
        inWorker: typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope,
        crossOriginIsolated: self.crossOriginIsolated,
        webgpu: 'gpu' in navigator,
        vocabTokens: vocab.tokenCount,
        literal,
        allowedTokens: brleCount(mask),
        kernelMemoryBytes: kernel.memoryBytes,
      };
    } finally {
      kernel.dispose();
    }
  },
};

export type Probe = typeof probe;
expose(probe);

declare const WorkerGlobalScope: { new (): unknown } | undefined;
