/**
 * The WASM kernel: its typed loader, the vocab index it reads, and its ABI.
 *
 * @module @sieve/kernel
 */
export { defaultKernelUrl, Kernel, KernelError, KernelVocab, loadKernel } from './kernel.ts';
export type { KernelErrorCode, KernelExports, KernelSource } from './kernel.ts';
export * as kernelAbi from './abi.ts';
