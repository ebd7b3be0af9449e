/**
 * `<sieve-output>`: a web component that generates text a JSON Schema or grammar allows, with the engine in a Web Worker.
 *
 * @module @sieve/element
 */
export { SieveOutput } from './sieve-output.ts';
export type { SieveOutputKind } from './sieve-output.ts';
