// The engine's Web Worker: all of it is the runtime's worker entry.
import '@sieve/runtime/worker';
