/**
 * Typed loader for `kernel.wasm`. Works in Node and in a (Web) Worker. All data crosses the
 * boundary through scratch regions of the kernel's linear memory that grow on demand and
 * are reused, so steady-state calls allocate nothing inside the kernel.
 */
import { bitsetWords, VocabIndex, type Brle } from '@sieve/format';
import * as abi from './abi.ts';

/** The raw exports of kernel.wasm (pointers and sizes are byte offsets and counts). */
export interface KernelExports {
  readonly memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  brleEncode(bits: number, vocabSize: number, out: number, capacity: number): number;
  brleDecode(brle: number, runCount: number, vocabSize: number, bits: number): number;
  bitsetAndBrle(bits: number, vocabSize: number, brle: number, runCount: number): number;
  bitsetAnd(dst: number, src: number, words: number): void;
  bitsetOr(dst: number, src: number, words: number): void;
  bitsetCount(bits: number, words: number): number;
  applyBitset(logits: number, count: number, bits: number, vocabSize: number): number;
  applyBrle(logits: number, count: number, brle: number, runCount: number): number;
  vocabCheck(vocab: number, length: number): number;
  maskLiteral(vocab: number, text: number, textLength: number, bits: number): void;
  // Grammar matcher (assembly/grammar.ts, matcher.ts, commit.ts, mask-walk.ts, state-key.ts); statuses in abi.ts.
  grammarNew(
    terminalCount: number,
    ntCount: number,
    dotCount: number,
    predictCount: number,
    ignoreCount: number,
    startDot: number,
    maxItems: number,
    maxChartItems: number,
    maskCacheBytes: number,
    maxCommitMs: number,
    lexerRows: number,
  ): number;
  grammarMaskCacheStat(grammar: number, which: number): number;
  grammarTable(grammar: number, which: number): number;
  grammarGrow(grammar: number, ntCount: number, dotCount: number, predictCount: number): void;
  grammarFree(grammar: number): void;
  lexerGrow(grammar: number, count: number): void;
  lexerSetWinners(grammar: number, state: number, list: number, count: number, lazy: number): void;
  lexerSetSlices(grammar: number, state: number, slices: number, above: number, bound: number): void;
  lexerSetRun(grammar: number, state: number, from: number, to: number, target: number): void;
  lexerSetCounted(grammar: number, shape: number, state: number, high: number, sliceHigh: number): void;
  lexerSetConcrete(grammar: number, counted: number, state: number): void;
  lexerTrim(grammar: number): void;
  matcherNew(grammar: number, vocab: number, vocabSerial: number, eos: number, eosCount: number): number;
  matcherStart(matcher: number): number;
  matcherFork(matcher: number): number;
  matcherFree(matcher: number): void;
  matcherCommitToken(matcher: number, token: number): number;
  matcherCommitBytes(matcher: number, bytes: number, length: number): number;
  matcherIsAccepting(matcher: number): number;
  matcherCompletes(matcher: number, bytes: number, length: number): number;
  matcherIsFinished(matcher: number): number;
  matcherTokenCount(matcher: number): number;
  matcherRollback(matcher: number, n: number): number;
  matcherMaskBegin(matcher: number, bits: number, maxMs: number): number;
  matcherMaskResume(matcher: number): number;
  matcherMaskAbort(matcher: number): void;
  matcherNeedState(matcher: number): number;
  matcherNeedByte(matcher: number): number;
  matcherNeedList(matcher: number): number;
  matcherNeedListLength(matcher: number): number;
  matcherResolveStart(matcher: number, state: number): void;
  matcherForcedBytes(matcher: number, out: number, maxBytes: number): number;
  matcherForcedCount(matcher: number): number;
  matcherStateKey(matcher: number, out: number): number;
  kernelAbiVersion?(): number;
}

/** Where to get kernel.wasm: bytes, a compiled module, a URL (file: URLs read from disk in Node), or a fetch response. */
export type KernelSource = BufferSource | WebAssembly.Module | URL | string | Response;

/** Error codes of the kernel and its loader. */
export type KernelErrorCode = 'length_mismatch' | 'bad_magic' | 'bad_version' | 'truncated' | 'capacity' | 'disposed' | 'abort' | 'load_failed';

/** A failure reported by the kernel (as a status code) or by its loader. */
export class KernelError extends Error {
  override readonly name = 'KernelError';
  constructor(
    readonly code: KernelErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const statusCodes: ReadonlyMap<number, KernelErrorCode> = new Map([
  [abi.STATUS_LENGTH_MISMATCH, 'length_mismatch'],
  [abi.STATUS_BAD_MAGIC, 'bad_magic'],
  [abi.STATUS_BAD_VERSION, 'bad_version'],
  [abi.STATUS_TRUNCATED, 'truncated'],
  [abi.STATUS_CAPACITY, 'capacity'],
]);

function check(status: number, what: string): void {
  if (status === abi.STATUS_OK) return;
  const code = statusCodes.get(status) ?? 'abort';
  throw new KernelError(code, `${what}: ${code.replace('_', ' ')} (kernel status ${status})`);
}

/**
 * The default kernel.wasm: the one built beside this package. In Node, with the environment
 * variable `SIEVE_KERNEL=debug` (the unit tests set it), the debug build beside it instead:
 * the same kernel with its assertions checked.
 */
export function defaultKernelUrl(): URL {
  const release = new URL('../build/kernel.wasm', import.meta.url);
  // (`process` read through globalThis: browsers have none, and this file is typed for both.)
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.['SIEVE_KERNEL'] === 'debug' ? new URL('kernel.debug.wasm', release) : release;
}

/** Instantiates the kernel. */
export async function loadKernel(source: KernelSource = defaultKernelUrl()): Promise<Kernel> {
  let instance: WebAssembly.Instance | undefined;
  const imports = {
    env: {
      now: (): number => performance.now(),
      abort(message: number, file: number, line: number, column: number): never {
        // The release build aborts only when an allocation fails; the debug build also on a
        // failed assertion. The kernel passes what and where (its static strings).
        const memory = instance?.exports['memory'] as WebAssembly.Memory | undefined;
        const what = memory && message ? `${kernelString(memory, message)} at ${kernelString(memory, file)}:${line}:${column}` : 'out of memory?';
        throw new KernelError('abort', `kernel aborted (${what})`);
      },
    },
  };
  try {
    if (source instanceof WebAssembly.Module) {
      instance = await WebAssembly.instantiate(source, imports);
    } else {
      const bytes = await kernelBytes(source as BufferSource | URL | string | Response);
      instance = (await WebAssembly.instantiate(bytes, imports)).instance;
    }
  } catch (error) {
    throw new KernelError('load_failed', `could not load kernel.wasm: ${error instanceof Error ? error.message : String(error)}`);
  }
  const exports = instance.exports as unknown as KernelExports;
  const version = exports.kernelAbiVersion?.();
  if (version !== abi.KERNEL_ABI_VERSION) {
    throw new KernelError(
      'bad_version',
      `kernel.wasm speaks ABI ${version ?? '1 or older'}, this loader ${abi.KERNEL_ABI_VERSION}: rebuild it (pnpm build) or serve the one built with this package`,
    );
  }
  return new Kernel(exports);
}

// A string in the kernel's static data (UTF-16, its byte length in the word before it).
function kernelString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return '?';
  const bytes = new DataView(memory.buffer).getUint32(ptr - 4, true);
  return new TextDecoder('utf-16le').decode(new Uint8Array(memory.buffer, ptr, bytes));
}

async function kernelBytes(source: BufferSource | URL | string | Response): Promise<BufferSource> {
  if (source instanceof Response) return source.arrayBuffer();
  if (typeof source !== 'string' && !(source instanceof URL)) return source;
  const url = new URL(source, typeof location === 'undefined' ? undefined : location.href);
  if (url.protocol === 'file:') {
    // Node only; the specifier is a variable so that bundlers leave it alone.
    const fs = 'node:fs/promises';
    const { readFile } = (await import(/* @vite-ignore */ fs)) as { readFile(path: URL): Promise<Uint8Array> };
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.href}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

// A reusable region of linear memory for one kind of data crossing the boundary.
class Scratch {
  ptr = 0;
  bytes = 0;
  constructor(private readonly kernel: KernelExports) {}
  reserve(bytes: number): number {
    if (bytes > this.bytes) {
      if (this.ptr !== 0) this.kernel.free(this.ptr);
      this.bytes = Math.max(bytes, this.bytes * 2, 64);
      this.ptr = this.kernel.alloc(this.bytes) >>> 0;
    }
    return this.ptr;
  }
}

/** A loaded kernel instance. Call `dispose()` when done; it then refuses further calls. */
export class Kernel {
  #exports: KernelExports | null;
  // One scratch region per kind of data, so that no call's input overlaps its output.
  readonly #bits: Scratch;
  readonly #runs: Scratch;
  readonly #out: Scratch;
  readonly #logits: Scratch;
  readonly #vocabs = new Set<KernelVocab>();

  constructor(exports: KernelExports) {
    this.#exports = exports;
    this.#bits = new Scratch(exports);
    this.#runs = new Scratch(exports);
    this.#out = new Scratch(exports);
    this.#logits = new Scratch(exports);
  }

  /** The raw exports, for callers that manage linear memory themselves. */
  get exports(): KernelExports {
    if (this.#exports === null) throw new KernelError('disposed', 'the kernel was disposed');
    return this.#exports;
  }

  /** Bytes of linear memory the kernel currently holds. */
  get memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
  }

  /** Encodes the first `vocabSize` bits of a packed bitset as BRLE. */
  brleFromBitset(bits: Uint32Array, vocabSize: number): Brle {
    const words = bitsetWords(vocabSize);
    const bitsPtr = this.#bits.reserve(words * 4);
    this.#u32(bitsPtr, words).set(bits.subarray(0, words));
    return this.brleFromBitsetAt(bitsPtr, vocabSize);
  }

  /** Encodes a packed bitset that already lives in linear memory at `bitsPtr`. */
  brleFromBitsetAt(bitsPtr: number, vocabSize: number): Brle {
    const k = this.exports;
    // A canonical BRLE has at most vocabSize + 1 runs: one pass into a scratch region that size.
    const capacity = vocabSize + 1;
    const outPtr = this.#out.reserve(capacity * 4);
    const runs = k.brleEncode(bitsPtr, vocabSize, outPtr, capacity) >>> 0;
    return this.#u32(outPtr, runs).slice();
  }

  /** Decodes a BRLE into a packed bitset (an empty BRLE allows everything). */
  brleToBitset(brle: Brle, vocabSize: number): Uint32Array {
    const k = this.exports;
    const runsPtr = this.#copyRuns([brle]);
    const bitsPtr = this.#bits.reserve(bitsetWords(vocabSize) * 4);
    check(k.brleDecode(runsPtr, brle.length, vocabSize, bitsPtr), 'brleToBitset');
    return this.#u32(bitsPtr, bitsetWords(vocabSize)).slice();
  }

  /** AND of several masks over `vocabSize` tokens; empty masks do not restrict. */
  brleAnd(masks: readonly Brle[], vocabSize: number): Brle {
    const k = this.exports;
    const restricting = masks.filter((m) => m.length > 0);
    if (restricting.length === 0) return new Uint32Array(0);
    let runsPtr = this.#copyRuns(restricting);
    const bitsPtr = this.#bits.reserve(bitsetWords(vocabSize) * 4);
    check(k.brleDecode(runsPtr, restricting[0]!.length, vocabSize, bitsPtr), 'brleAnd');
    for (let i = 1; i < restricting.length; i++) {
      runsPtr += restricting[i - 1]!.length * 4;
      check(k.bitsetAndBrle(bitsPtr, vocabSize, runsPtr, restricting[i]!.length), 'brleAnd');
    }
    return this.brleFromBitsetAt(bitsPtr, vocabSize);
  }

  /** Sets masked logits to -Infinity in place (logits past the mask's vocabulary too). */
  applyBrle(logits: Float32Array, brle: Brle): void {
    const k = this.exports;
    if (brle.length === 0) return;
    const runsPtr = this.#copyRuns([brle]);
    const logitsPtr = this.#logits.reserve(logits.byteLength);
    this.#f32(logitsPtr, logits.length).set(logits);
    check(k.applyBrle(logitsPtr, logits.length, runsPtr, brle.length), 'applyBrle');
    logits.set(this.#f32(logitsPtr, logits.length));
  }

  /** Loads a vocab index file into linear memory after validating it. */
  loadVocab(file: Uint8Array): KernelVocab {
    const k = this.exports;
    const ptr = k.alloc(file.byteLength) >>> 0;
    new Uint8Array(k.memory.buffer, ptr, file.byteLength).set(file);
    const status = k.vocabCheck(ptr, file.byteLength);
    if (status !== abi.STATUS_OK) {
      k.free(ptr);
      check(status, 'loadVocab');
    }
    const vocab = new KernelVocab(this, ptr, file.byteLength, () => this.#vocabs.delete(vocab));
    this.#vocabs.add(vocab);
    return vocab;
  }

  /** Frees everything and makes the kernel refuse further calls. */
  dispose(): void {
    for (const vocab of [...this.#vocabs]) vocab.dispose();
    this.#exports = null;
  }

  // Copies several masks back to back into the runs region; returns where the first starts.
  #copyRuns(masks: readonly Brle[]): number {
    const total = masks.reduce((n, m) => n + m.length, 0);
    let at = this.#runs.reserve(Math.max(total, 1) * 4);
    const start = at;
    for (const mask of masks) {
      this.#u32(at, mask.length).set(mask);
      at += mask.length * 4;
    }
    return start;
  }

  #u32(ptr: number, length: number): Uint32Array {
    return new Uint32Array(this.exports.memory.buffer, ptr, length);
  }

  #f32(ptr: number, length: number): Float32Array {
    return new Float32Array(this.exports.memory.buffer, ptr, length);
  }
}

/** A vocab index held in the kernel's linear memory. */
// Loaded vocab indexes are numbered (from 1) so a kernel's caches never mistake a new index
// for one freed before it at the same address.
let vocabSerials = 0;

export class KernelVocab {
  #ptr: number;
  readonly tokenCount: number;
  /** Never the same for two loaded vocab indexes. */
  readonly serial = ++vocabSerials;

  constructor(
    private readonly kernel: Kernel,
    ptr: number,
    readonly byteLength: number,
    private readonly onDispose: () => void,
  ) {
    this.#ptr = ptr;
    this.tokenCount = new Uint32Array(kernel.exports.memory.buffer, ptr, 16)[2]!;
  }

  /** Byte offset of the index in linear memory (for other kernel exports). */
  get ptr(): number {
    if (this.#ptr === 0) throw new KernelError('disposed', 'the vocab index was disposed');
    return this.#ptr;
  }

  /** The index as loaded: a view of kernel memory, valid until the memory grows (then made again). */
  get index(): VocabIndex {
    const buffer = this.kernel.exports.memory.buffer;
    if (this.#index?.file.buffer !== buffer) this.#index = new VocabIndex(new Uint8Array(buffer, this.ptr, this.byteLength));
    return this.#index;
  }
  #index: VocabIndex | undefined;

  /** The exact mask (as BRLE) of a constraint that only allows the literal bytes `text`. */
  maskLiteral(text: Uint8Array): Brle {
    const k = this.kernel.exports;
    const words = bitsetWords(this.tokenCount);
    const scratch = k.alloc(words * 4 + text.byteLength) >>> 0;
    try {
      new Uint32Array(k.memory.buffer, scratch, words).fill(0);
      new Uint8Array(k.memory.buffer, scratch + words * 4, text.byteLength).set(text);
      k.maskLiteral(this.ptr, scratch + words * 4, text.byteLength, scratch);
      return this.kernel.brleFromBitsetAt(scratch, this.tokenCount);
    } finally {
      k.free(scratch);
    }
  }

  /** Frees the index's memory. */
  dispose(): void {
    if (this.#ptr === 0) return;
    this.kernel.exports.free(this.#ptr);
    this.#ptr = 0;
    this.onDispose();
  }
}
