/**
 * Sets of small integers (NFA states), each stored once and numbered in the order added:
 * how the lexer names its DFA states and the slice checks their thread sets. Compared
 * element by element (callers pass them sorted), found by a hash of the contents, so
 * without building a key string.
 */
export class SetTable {
  readonly #sets: Int32Array[] = [];
  // Ids by hash; sets with the same hash are chained through #sameHash (-1 ends a chain).
  readonly #byHash = new Map<number, number>();
  readonly #sameHash: number[] = [];

  /** Number of sets added. */
  get size(): number {
    return this.#sets.length;
  }

  /** The set numbered `id`. */
  get(id: number): Int32Array {
    return this.#sets[id]!;
  }

  /** The id of `set` (compared by contents), or -1 when it was never added. */
  find(set: Int32Array): number {
    for (let id = this.#byHash.get(hashOf(set)) ?? -1; id >= 0; id = this.#sameHash[id]!) if (sameSet(this.#sets[id]!, set)) return id;
    return -1;
  }

  /** Adds a copy of `set` (which `find` does not know) and returns its id. */
  add(set: Int32Array): number {
    const hash = hashOf(set);
    const id = this.#sets.length;
    this.#sets.push(set.slice());
    this.#sameHash.push(this.#byHash.get(hash) ?? -1);
    this.#byHash.set(hash, id);
    return id;
  }
}

function hashOf(set: Int32Array): number {
  let hash = set.length;
  for (let i = 0; i < set.length; i++) hash = Math.imul(hash ^ set[i]!, 0x01000193);
  return hash & 0x3fffffff; // a small integer: a cheap Map key
}

function sameSet(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
