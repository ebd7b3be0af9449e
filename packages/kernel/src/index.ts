export { defaultKernelUrl, Kernel, KernelError, KernelVocab, loadKernel } from './kernel.ts';
export type { KernelErrorCode, KernelSource } from './kernel.ts';
