// The engine's Web Worker for <sieve-output>.
import '@sieve/runtime/worker';
