/**
 * Reader and writer of the vocab index binary. The layout is documented, and its constants
 * defined, in `vocab-layout.ts`.
 */
import { bitsetWords } from './bitset.ts';
import { fingerprint } from './mask-index.ts';
import {
  MAX_TOKEN_SLICES,
  TOKEN_EMPTY,
  TOKEN_SPECIAL,
  TRIE_BYTE_MASK,
  TRIE_NODE_WORDS,
  TRIE_SUBTREE_MASK,
  TRIE_TOKEN_SHIFT,
  VH_BYTES_AT,
  VH_BYTES_LENGTH,
  VH_DUPLICATE_COUNT,
  VH_DUPLICATES_AT,
  VH_FILE_LENGTH,
  VH_FLAGS_AT,
  VH_MAGIC,
  VH_MAX_TOKEN_BYTES,
  VH_META_AT,
  VH_META_LENGTH,
  VH_OFFSETS_AT,
  VH_SLICE_COUNT,
  VH_SLICE_NODES_AT,
  VH_SLICE_TOKENS_AT,
  VH_SLICE_LENGTHS_AT,
  VH_SLICE_LENGTHS_WORDS,
  VH_TOKEN_COUNT,
  VH_TRIE_AT,
  VH_TRIE_NODE_COUNT,
  VH_VERSION,
  VOCAB_HEADER_WORDS,
  VOCAB_MAGIC,
  VOCAB_SECTION_ALIGN,
  VOCAB_VERSION,
} from './vocab-layout.ts';

/** Metadata stored with a vocab index. */
export interface VocabMeta {
  /** Preset name or file name of the tokenizer. */
  readonly name: string;
  /** Where the tokenizer.json came from (path or package). */
  readonly source: string;
  /**
   * `tokenizerFingerprint` of the tokenizer.json it was built from (indexes built before it
   * existed lack it: their tokenizer is then checked token by token).
   */
  readonly tokenizer_fingerprint?: string;
  /** How token bytes were derived, e.g. `byte-level` or `sentencepiece`. */
  readonly decoder: string;
  readonly bos_token_id: number | null;
  readonly eos_token_ids: readonly number[];
  /** Wall time the build took, in milliseconds. */
  readonly build_ms: number;
}

/** Everything a vocab index holds, as flat typed arrays. */
export interface VocabSections {
  readonly offsets: Uint32Array;
  readonly flags: Uint8Array;
  readonly bytes: Uint8Array;
  readonly trie: Uint32Array;
  readonly duplicates: Uint32Array;
  /** Per trie node, bit `i` set when its whole subtree is in token slice `i` (`token-slices.ts`). */
  readonly sliceNodes: Uint8Array;
  /** Per token slice, the packed bitset of its tokens, one after the other. */
  readonly sliceTokens: Uint32Array;
  /** Slice 0's tokens by character count (`sliceLengths` in `vocab-layout.ts`). */
  readonly sliceLengths: Uint32Array;
  readonly meta: VocabMeta;
}

/** Thrown when bytes are not a vocab index this version can read. */
export class VocabFormatError extends Error {
  override readonly name = 'VocabFormatError';
  constructor(
    readonly code: 'bad_magic' | 'bad_version' | 'truncated' | 'bad_section',
    message: string,
  ) {
    super(message);
  }
}

/** A read-only view of a vocab index (no copies of the big sections). */
export class VocabIndex implements VocabSections {
  readonly tokenCount: number;
  readonly trieNodeCount: number;
  readonly maxTokenBytes: number;
  readonly offsets: Uint32Array;
  readonly flags: Uint8Array;
  readonly bytes: Uint8Array;
  readonly trie: Uint32Array;
  readonly duplicates: Uint32Array;
  readonly sliceCount: number;
  readonly sliceNodes: Uint8Array;
  readonly sliceTokens: Uint32Array;
  readonly sliceLengths: Uint32Array;
  readonly meta: VocabMeta;

  /** Parses and validates `file`; the arrays alias its buffer. */
  constructor(readonly file: Uint8Array) {
    if (file.byteLength < VOCAB_HEADER_WORDS * 4) throw new VocabFormatError('truncated', 'file is shorter than the vocab index header');
    const header = new DataView(file.buffer, file.byteOffset, VOCAB_HEADER_WORDS * 4);
    const word = (i: number): number => header.getUint32(i * 4, true);
    if (word(VH_MAGIC) !== VOCAB_MAGIC) throw new VocabFormatError('bad_magic', 'not a Sieve vocab index (bad magic number)');
    if (word(VH_VERSION) !== VOCAB_VERSION) {
      throw new VocabFormatError(
        'bad_version',
        `vocab index version ${word(VH_VERSION)}, this build reads version ${VOCAB_VERSION}: rebuild it with \`sieve vocab build\``,
      );
    }
    if (word(VH_FILE_LENGTH) !== file.byteLength) {
      throw new VocabFormatError('truncated', `header says ${word(VH_FILE_LENGTH)} bytes, file has ${file.byteLength}`);
    }
    if (file.byteOffset % 4 !== 0) file = file.slice();
    this.file = file;
    this.tokenCount = word(VH_TOKEN_COUNT);
    this.trieNodeCount = word(VH_TRIE_NODE_COUNT);
    this.maxTokenBytes = word(VH_MAX_TOKEN_BYTES);
    const section = <T>(at: number, length: number, make: (buffer: ArrayBufferLike, offset: number, length: number) => T, unit: number): T => {
      if (at % unit !== 0 || at + length * unit > file.byteLength)
        throw new VocabFormatError('bad_section', `section at byte ${at} (${length} × ${unit} bytes) is outside the file`);
      return make(file.buffer, file.byteOffset + at, length);
    };
    const u32 = (b: ArrayBufferLike, o: number, n: number): Uint32Array => new Uint32Array(b, o, n);
    const u8 = (b: ArrayBufferLike, o: number, n: number): Uint8Array => new Uint8Array(b, o, n);
    this.offsets = section(word(VH_OFFSETS_AT), this.tokenCount + 1, u32, 4);
    this.flags = section(word(VH_FLAGS_AT), this.tokenCount, u8, 1);
    this.bytes = section(word(VH_BYTES_AT), word(VH_BYTES_LENGTH), u8, 1);
    this.trie = section(word(VH_TRIE_AT), this.trieNodeCount * TRIE_NODE_WORDS, u32, 4);
    this.duplicates = section(word(VH_DUPLICATES_AT), word(VH_DUPLICATE_COUNT) * 2, u32, 4);
    this.sliceCount = word(VH_SLICE_COUNT);
    if (this.sliceCount > MAX_TOKEN_SLICES) throw new VocabFormatError('bad_section', `${this.sliceCount} token slices; at most ${MAX_TOKEN_SLICES} fit`);
    this.sliceNodes = section(word(VH_SLICE_NODES_AT), this.trieNodeCount, u8, 1);
    this.sliceTokens = section(word(VH_SLICE_TOKENS_AT), this.sliceCount * bitsetWords(this.tokenCount), u32, 4);
    this.sliceLengths = section(word(VH_SLICE_LENGTHS_AT), word(VH_SLICE_LENGTHS_WORDS), u32, 4);
    checkSliceLengths(this.sliceLengths, this.tokenCount);
    if (this.offsets[this.tokenCount] !== this.bytes.length) throw new VocabFormatError('bad_section', 'token offsets do not end at the byte section length');
    const metaBytes = section(word(VH_META_AT), word(VH_META_LENGTH), u8, 1);
    this.meta = JSON.parse(new TextDecoder().decode(metaBytes)) as VocabMeta;
  }

  /**
   * A fingerprint of everything token masks depend on (token bytes and flags), equal for
   * two builds of the same tokenizer; mask indexes record it (see mask-index.ts).
   */
  get fingerprint(): string {
    this.#fingerprint ??= fingerprint([new Uint8Array(this.offsets.buffer, this.offsets.byteOffset, this.offsets.byteLength), this.flags, this.bytes]);
    return this.#fingerprint;
  }
  #fingerprint: string | undefined;

  /** The exact bytes token `id` stands for (a view, not a copy). */
  tokenBytes(id: number): Uint8Array {
    return this.bytes.subarray(this.offsets[id], this.offsets[id + 1]);
  }

  /**
   * The longest text token that `bytes` spells from `at` on (a walk down the trie): its id
   * (-1 if none) and length. Greedy spelling with it writes any bytes a tokenizer can.
   */
  longestTokenAt(bytes: Uint8Array, at: number): { readonly token: number; readonly length: number } {
    const trie = this.trie;
    let node = 0;
    let token = -1;
    let length = 0;
    for (let depth = 0; at + depth < bytes.length; depth++) {
      const byte = bytes[at + depth]!;
      const end = node + (trie[node * TRIE_NODE_WORDS + 1]! & TRIE_SUBTREE_MASK);
      let child = node + 1;
      // Children are sorted by byte; the next sibling is a subtree further on.
      while (child < end && (trie[child * TRIE_NODE_WORDS]! & TRIE_BYTE_MASK) < byte) child += trie[child * TRIE_NODE_WORDS + 1]! & TRIE_SUBTREE_MASK;
      if (child >= end || (trie[child * TRIE_NODE_WORDS]! & TRIE_BYTE_MASK) !== byte) break;
      node = child;
      const id = (trie[node * TRIE_NODE_WORDS]! >>> TRIE_TOKEN_SHIFT) - 1;
      if (id >= 0) {
        token = id;
        length = depth + 1;
      }
    }
    return { token, length };
  }

  /** Whether grammar text can ever produce token `id` (it is in the trie). */
  isTextToken(id: number): boolean {
    return (this.flags[id]! & (TOKEN_SPECIAL | TOKEN_EMPTY)) === 0;
  }

  /** Number of tokens flagged TOKEN_SPECIAL. */
  get specialTokenCount(): number {
    let n = 0;
    for (let i = 0; i < this.tokenCount; i++) if ((this.flags[i]! & TOKEN_SPECIAL) !== 0) n++;
    return n;
  }
}

/** Serializes the sections into one vocab index file. */
export function writeVocabIndex(sections: VocabSections): Uint8Array {
  const tokenCount = sections.flags.length;
  if (sections.offsets.length !== tokenCount + 1) throw new VocabFormatError('bad_section', 'offsets must have tokenCount + 1 entries');
  const sliceCount = sections.sliceTokens.length / bitsetWords(tokenCount);
  if (!Number.isInteger(sliceCount) || sliceCount > MAX_TOKEN_SLICES)
    throw new VocabFormatError('bad_section', 'slice tokens must be whole bitsets, at most MAX_TOKEN_SLICES');
  if (sections.sliceNodes.length !== sections.trie.length / TRIE_NODE_WORDS)
    throw new VocabFormatError('bad_section', 'slice nodes must have one byte per trie node');
  const metaBytes = new TextEncoder().encode(JSON.stringify(sections.meta));
  const parts: [number, Uint8Array][] = [];
  let at = VOCAB_HEADER_WORDS * 4;
  const place = (data: ArrayBufferView): number => {
    at = align(at);
    const start = at;
    parts.push([start, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)]);
    at += data.byteLength;
    return start;
  };
  const header = new Uint32Array(VOCAB_HEADER_WORDS);
  header[VH_MAGIC] = VOCAB_MAGIC;
  header[VH_VERSION] = VOCAB_VERSION;
  header[VH_TOKEN_COUNT] = tokenCount;
  header[VH_TRIE_NODE_COUNT] = sections.trie.length / TRIE_NODE_WORDS;
  header[VH_DUPLICATE_COUNT] = sections.duplicates.length / 2;
  let maxTokenBytes = 0;
  for (let t = 0; t < tokenCount; t++) maxTokenBytes = Math.max(maxTokenBytes, sections.offsets[t + 1]! - sections.offsets[t]!);
  header[VH_MAX_TOKEN_BYTES] = maxTokenBytes;
  header[VH_OFFSETS_AT] = place(sections.offsets);
  header[VH_FLAGS_AT] = place(sections.flags);
  header[VH_BYTES_AT] = place(sections.bytes);
  header[VH_BYTES_LENGTH] = sections.bytes.length;
  header[VH_TRIE_AT] = place(sections.trie);
  header[VH_DUPLICATES_AT] = place(sections.duplicates);
  header[VH_SLICE_COUNT] = sliceCount;
  header[VH_SLICE_NODES_AT] = place(sections.sliceNodes);
  header[VH_SLICE_TOKENS_AT] = place(sections.sliceTokens);
  checkSliceLengths(sections.sliceLengths, tokenCount);
  header[VH_SLICE_LENGTHS_AT] = place(sections.sliceLengths);
  header[VH_SLICE_LENGTHS_WORDS] = sections.sliceLengths.length;
  header[VH_META_AT] = place(metaBytes);
  header[VH_META_LENGTH] = metaBytes.length;
  const fileLength = align(at);
  header[VH_FILE_LENGTH] = fileLength;
  const file = new Uint8Array(fileLength);
  file.set(new Uint8Array(header.buffer), 0);
  for (const [start, data] of parts) file.set(data, start);
  return file;
}

// The slice lengths section's shape: starts that rise to the end of its ids, ids in range.
function checkSliceLengths(lengths: Uint32Array, tokenCount: number): void {
  const most = lengths[0];
  const fail = (why: string): never => {
    throw new VocabFormatError('bad_section', `slice lengths section: ${why}`);
  };
  if (most === undefined || lengths.length < most + 3) fail('shorter than its starts');
  const ids = lengths.length - (most! + 3);
  for (let c = 0; c <= most!; c++) if (lengths[c + 1]! > lengths[c + 2]!) fail('starts go down');
  if (lengths[1] !== 0 || lengths[most! + 2] !== ids) fail(`starts do not span its ${ids} ids`);
  for (let i = most! + 3; i < lengths.length; i++) if (lengths[i]! >= tokenCount) fail(`token ${lengths[i]} is out of range`);
}

function align(n: number): number {
  return Math.ceil(n / VOCAB_SECTION_ALIGN) * VOCAB_SECTION_ALIGN;
}
