// The two tables behind the mask cache (used by state-key.ts and mask-walk.ts): an interner that gives equal
// sequences of u64s one id (compared in full, never by hash alone), and a map from a
// two-word key to a stored block (a mask, or what a mask walk learned about a lexer state).
// Both belong to one grammar and are cleared wholesale when they outgrow their budget (when
// the interner is, the matcher drops only the masks keyed by its ids).
import { MASK_SLOT_BLOCK, MASK_SLOT_BYTES, MASK_SLOT_FLAG, MASK_SLOT_KEY0, MASK_SLOT_KEY1 } from './layouts';
import { Vec, vecFree, vecGet, vecNew, vecPush } from './vec';

/** A 64-bit mixer (murmur3's finalizer), for hash tables. */
// @ts-expect-error: decorator (AssemblyScript)
@inline
export function mix(key: u64): u32 {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccd;
  key ^= key >> 33;
  return <u32>key;
}

// ---------------------------------------------------------------------------------------
// Interner.

@unmanaged
export class Interner {
  // Per id: offset of its values in `data` (u64 values stored as two i32s), count, hash.
  at: Vec = changetype<Vec>(0);
  count: Vec = changetype<Vec>(0);
  hash: Vec = changetype<Vec>(0);
  data: Vec = changetype<Vec>(0);
  // Open addressing: i32 per slot, id + 1 (0: empty).
  slots: usize = 0;
  cap: i32 = 0;
}

export function internerNew(): Interner {
  const t = changetype<Interner>(heap.alloc(offsetof<Interner>()));
  t.at = vecNew(64);
  t.count = vecNew(64);
  t.hash = vecNew(64);
  t.data = vecNew(256);
  t.cap = 256;
  t.slots = heap.alloc(<usize>t.cap << 2);
  memory.fill(t.slots, 0, <usize>t.cap << 2);
  return t;
}

export function internerFree(t: Interner): void {
  vecFree(t.at);
  vecFree(t.count);
  vecFree(t.hash);
  vecFree(t.data);
  heap.free(t.slots);
  heap.free(changetype<usize>(t));
}

export function internerClear(t: Interner): void {
  t.at.len = 0;
  t.count.len = 0;
  t.hash.len = 0;
  t.data.len = 0;
  memory.fill(t.slots, 0, <usize>t.cap << 2);
}

/** Number of i32s stored (the interner's size for its budget). */
export function internerWords(t: Interner): i32 {
  return t.data.len;
}

/** The id of the `n` u64s at `values`, new if no equal sequence was interned before. */
export function intern(t: Interner, values: usize, n: i32): i32 {
  let h: u32 = 0x9e3779b9 ^ <u32>n;
  for (let i = 0; i < n; i++) h = mix(<u64>h ^ load<u64>(values + (<usize>i << 3)));
  const mask = t.cap - 1;
  let slot = <i32>(h & <u32>mask);
  for (;;) {
    const entry = load<i32>(t.slots + (<usize>slot << 2));
    if (entry === 0) break;
    const id = entry - 1;
    if (<u32>vecGet(t.hash, id) === h && vecGet(t.count, id) === n && memory.compare(t.data.ptr + (<usize>vecGet(t.at, id) << 2), values, <usize>n << 3) === 0) return id;
    slot = (slot + 1) & mask;
  }
  const id = t.at.len;
  vecPush(t.at, t.data.len);
  vecPush(t.count, n);
  vecPush(t.hash, <i32>h);
  for (let i = 0; i < n; i++) {
    const value = load<u64>(values + (<usize>i << 3));
    vecPush(t.data, <i32>value);
    vecPush(t.data, <i32>(value >> 32));
  }
  store<i32>(t.slots + (<usize>slot << 2), id + 1);
  if ((id + 1) * 2 > t.cap) rehash(t);
  return id;
}

function rehash(t: Interner): void {
  heap.free(t.slots);
  t.cap <<= 1;
  t.slots = heap.alloc(<usize>t.cap << 2);
  memory.fill(t.slots, 0, <usize>t.cap << 2);
  const mask = t.cap - 1;
  for (let id = 0; id < t.at.len; id++) {
    let slot = <i32>(<u32>vecGet(t.hash, id) & <u32>mask);
    while (load<i32>(t.slots + (<usize>slot << 2)) !== 0) slot = (slot + 1) & mask;
    store<i32>(t.slots + (<usize>slot << 2), id + 1);
  }
}

// ---------------------------------------------------------------------------------------
// Mask store: key (two i32s) → a block of bytes and a flag, for one vocab index (`words`
// words per mask). Open addressing over MASK_SLOT_* slots (layouts.ts).

@unmanaged
export class MaskStore {
  slots: usize = 0;
  cap: i32 = 0;
  used: i32 = 0;
  vocab: i32 = 0; // the serial of the vocab index whose masks are stored
  words: i32 = 0;
  bytes: usize = 0;
  maxBytes: usize = 0;
  hits: i32 = 0;
  misses: i32 = 0;
}

export function maskStoreNew(maxBytes: usize): MaskStore {
  const s = changetype<MaskStore>(heap.alloc(offsetof<MaskStore>()));
  s.cap = 64;
  s.slots = heap.alloc(<usize>s.cap * MASK_SLOT_BYTES);
  memory.fill(s.slots, 0, <usize>s.cap * MASK_SLOT_BYTES);
  s.used = 0;
  s.vocab = 0;
  s.words = 0;
  s.bytes = 0;
  s.maxBytes = maxBytes;
  s.hits = 0;
  s.misses = 0;
  return s;
}

export function maskStoreClear(s: MaskStore): void {
  for (let i = 0; i < s.cap; i++) {
    const ptr = load<u32>(s.slots + <usize>i * MASK_SLOT_BYTES, MASK_SLOT_BLOCK);
    if (ptr !== 0) heap.free(ptr);
  }
  memory.fill(s.slots, 0, <usize>s.cap * MASK_SLOT_BYTES);
  s.used = 0;
  s.bytes = 0;
}

/**
 * Drops the blocks whose first key word is `minKey0` or more (each `blockBytes` long),
 * keeping the others: the matcher keeps what walks learned about lexer states when the
 * parser set ids its masks are keyed by start over.
 */
export function maskStoreDropFrom(s: MaskStore, minKey0: i32, blockBytes: usize): void {
  moveSlots(s, s.cap, minKey0, blockBytes);
}

export function maskStoreFree(s: MaskStore): void {
  maskStoreClear(s);
  heap.free(s.slots);
  heap.free(changetype<usize>(s));
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
function slotOf(s: MaskStore, key0: i32, key1: i32): usize {
  const mask = s.cap - 1;
  let slot = <i32>(mix((<u64>(<u32>key0) << 32) | <u64>(<u32>key1)) & <u32>mask);
  let at = s.slots + <usize>slot * MASK_SLOT_BYTES;
  while (load<u32>(at, MASK_SLOT_BLOCK) !== 0 && (load<i32>(at, MASK_SLOT_KEY0) !== key0 || load<i32>(at, MASK_SLOT_KEY1) !== key1)) {
    slot = (slot + 1) & mask;
    at = s.slots + <usize>slot * MASK_SLOT_BYTES;
  }
  return at;
}

/** The slot holding the block stored under the key, or 0. */
export function maskStoreGet(s: MaskStore, vocab: i32, words: i32, key0: i32, key1: i32): usize {
  if (s.maxBytes === 0 || vocab !== s.vocab || words !== s.words) return 0;
  const at = slotOf(s, key0, key1);
  return load<u32>(at, MASK_SLOT_BLOCK) === 0 ? 0 : at;
}

/** The block of a slot from `maskStoreGet`. */
export function maskStoreBlock(at: usize): usize {
  return <usize>load<u32>(at, MASK_SLOT_BLOCK);
}

export function maskStoreFlag(at: usize): i32 {
  return load<i32>(at, MASK_SLOT_FLAG);
}

/**
 * A new block of `bytes` under the key, for the caller to fill (0 when it cannot be stored:
 * over budget, or the key is taken). The store is emptied first when it would outgrow its
 * budget.
 */
export function maskStoreAdd(s: MaskStore, vocab: i32, words: i32, key0: i32, key1: i32, bytes: usize, flag: i32): usize {
  if (bytes > s.maxBytes) return 0;
  if (vocab !== s.vocab || words !== s.words || s.bytes + bytes > s.maxBytes) {
    maskStoreClear(s);
    s.vocab = vocab;
    s.words = words;
  }
  if ((s.used + 1) * 2 > s.cap) grow(s);
  const at = slotOf(s, key0, key1);
  if (load<u32>(at, MASK_SLOT_BLOCK) !== 0) return 0;
  const block = heap.alloc(bytes);
  store<i32>(at, key0, MASK_SLOT_KEY0);
  store<i32>(at, key1, MASK_SLOT_KEY1);
  store<u32>(at, <u32>block, MASK_SLOT_BLOCK);
  store<i32>(at, flag, MASK_SLOT_FLAG);
  s.used++;
  s.bytes += bytes;
  return block;
}

function grow(s: MaskStore): void {
  moveSlots(s, s.cap << 1, i32.MAX_VALUE, 0);
}

// Moves the slots into a new table of `cap` slots, dropping (and freeing) the blocks whose
// first key word is `minKey0` or more, each `blockBytes` long.
function moveSlots(s: MaskStore, cap: i32, minKey0: i32, blockBytes: usize): void {
  const old = s.slots;
  const oldCap = s.cap;
  s.cap = cap;
  s.slots = heap.alloc(<usize>cap * MASK_SLOT_BYTES);
  memory.fill(s.slots, 0, <usize>cap * MASK_SLOT_BYTES);
  for (let i = 0; i < oldCap; i++) {
    const from = old + <usize>i * MASK_SLOT_BYTES;
    const ptr = load<u32>(from, MASK_SLOT_BLOCK);
    if (ptr === 0) continue;
    if (load<i32>(from, MASK_SLOT_KEY0) >= minKey0) {
      heap.free(ptr);
      s.used--;
      s.bytes -= blockBytes;
      continue;
    }
    memory.copy(slotOf(s, load<i32>(from, MASK_SLOT_KEY0), load<i32>(from, MASK_SLOT_KEY1)), from, MASK_SLOT_BYTES);
  }
  heap.free(old);
}

/** Counters (which: 0 hits, 1 misses, 2 blocks stored, 3 bytes stored); the matcher counts hits and misses. */
export function maskStoreStat(s: MaskStore, which: i32): i32 {
  if (which === 0) return s.hits;
  if (which === 1) return s.misses;
  if (which === 2) return s.used;
  return <i32>s.bytes;
}
