import { withRoom } from './typed-arrays.ts';

/**
 * Sets of small integers (NFA states), each stored once and numbered in the order added:
 * how the lexer names its DFA states and the slice checks their thread sets. Compared
 * element by element (callers pass them sorted), found by a hash of the contents, so
 * without building a key string. All sets share one pool and the hash table is open
 * addressing in a typed array: thousands of sets are a handful of objects for the GC (one
 * array each made every scavenge while a lexer grew copy thousands of small objects).
 */
export class SetTable {
  // Set i is #pool[#start[i], #start[i + 1]).
  #pool = new Int32Array(256);
  #start = new Int32Array(64);
  #hashes = new Int32Array(64);
  #size = 0;
  // Ids + 1 by hash, 0 = empty; linear probing, at most half full.
  #slots = new Int32Array(128);

  /** Number of sets added. */
  get size(): number {
    return this.#size;
  }

  /** The set numbered `id` (a view; the contents never change). */
  get(id: number): Int32Array {
    return this.#pool.subarray(this.#start[id]!, this.#start[id + 1]!);
  }

  /** The id of `set` (compared by contents), or -1 when it was never added. */
  find(set: Int32Array): number {
    const hash = hashOf(set);
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; this.#slots[slot] !== 0; slot = (slot + 1) & mask) {
      const id = this.#slots[slot]! - 1;
      if (this.#hashes[id] === hash && this.#holds(id, set)) return id;
    }
    return -1;
  }

  /** The id of `set`, added when new. */
  intern(set: Int32Array): number {
    const known = this.find(set);
    return known >= 0 ? known : this.add(set);
  }

  /** Adds a copy of `set` (which `find` does not know) and returns its id. */
  add(set: Int32Array): number {
    const id = this.#size;
    const at = this.#start[id]!;
    this.#start = withRoom(this.#start, id + 2);
    this.#hashes = withRoom(this.#hashes, id + 1);
    this.#pool = withRoom(this.#pool, at + set.length);
    this.#pool.set(set, at);
    this.#start[id + 1] = at + set.length;
    this.#hashes[id] = hashOf(set);
    this.#size++;
    if (2 * this.#size > this.#slots.length) {
      this.#slots = new Int32Array(2 * this.#slots.length);
      for (let known = 0; known < this.#size; known++) this.#place(known);
    } else {
      this.#place(id);
    }
    return id;
  }

  #place(id: number): void {
    const mask = this.#slots.length - 1;
    let slot = this.#hashes[id]! & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = id + 1;
  }

  #holds(id: number, set: Int32Array): boolean {
    const from = this.#start[id]!;
    if (this.#start[id + 1]! - from !== set.length) return false;
    for (let i = 0; i < set.length; i++) if (this.#pool[from + i] !== set[i]) return false;
    return true;
  }
}

function hashOf(set: Int32Array): number {
  let hash = set.length;
  for (let i = 0; i < set.length; i++) hash = Math.imul(hash ^ set[i]!, 0x01000193);
  return hash & 0x3fffffff;
}
