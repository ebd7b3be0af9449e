import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InThreadEngine } from '../../src/engine.ts';

/** The real tiny model every generation test runs (see ../shared/models/stories260K/README.md). */
export const STORIES_260K = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'models', 'stories260K');
/** The vocab index `pnpm build` writes for it. */
export const STORIES_VOCAB = join(import.meta.dirname, '..', '..', '..', '..', 'public', 'vocab', 'stories260k.vocab');

/** An engine with stories260K loaded on the CPU (onnxruntime-node). */
export async function storiesEngine(): Promise<InThreadEngine> {
  const engine = new InThreadEngine();
  await engine.load({ model: STORIES_260K, device: 'cpu', vocab: new Uint8Array(readFileSync(STORIES_VOCAB)) });
  return engine;
}
