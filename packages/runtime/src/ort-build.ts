/** The onnxruntime-web build the runtime loads from `wasmPaths` (the asyncify variant: WASM and WebGPU in one binary). */
export const ORT_WASM = 'ort-wasm-simd-threaded.asyncify';
