export { SieveOutput } from './sieve-output.ts';
export type { SieveOutputKind } from './sieve-output.ts';
