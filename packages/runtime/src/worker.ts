// The engine's Web Worker: `new Worker(new URL('@sieve/runtime/worker', import.meta.url), { type: 'module' })`.
import { exposeEngine } from './worker-host.ts';

exposeEngine();
