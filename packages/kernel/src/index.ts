export { defaultKernelUrl, Kernel, KernelError, KernelVocab, loadKernel } from './kernel.ts';
export type { KernelErrorCode, KernelExports, KernelSource } from './kernel.ts';
export * as kernelAbi from './abi.ts';
