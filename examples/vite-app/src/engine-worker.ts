// The engine's Web Worker: one line.
import '@sieve/runtime/worker';
