// A growable array of i32 in linear memory (no managed objects: the kernel runs on the
// minimal runtime and owns every block explicitly).

@unmanaged
export class Vec {
  ptr: usize = 0;
  len: i32 = 0;
  cap: i32 = 0;
}

export function vecNew(cap: i32): Vec {
  const v = changetype<Vec>(heap.alloc(offsetof<Vec>()));
  v.cap = max(cap, 8);
  v.ptr = heap.alloc(<usize>v.cap << 2);
  v.len = 0;
  return v;
}

export function vecFree(v: Vec): void {
  heap.free(v.ptr);
  heap.free(changetype<usize>(v));
}

/** A copy with the same contents. */
export function vecClone(v: Vec): Vec {
  const copy = vecNew(v.len);
  memory.copy(copy.ptr, v.ptr, <usize>v.len << 2);
  copy.len = v.len;
  return copy;
}

export function vecReserve(v: Vec, n: i32): void {
  if (n <= v.cap) return;
  let cap = v.cap << 1;
  if (cap < n) cap = n;
  v.ptr = heap.realloc(v.ptr, <usize>cap << 2);
  v.cap = cap;
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
export function vecPush(v: Vec, x: i32): void {
  if (v.len === v.cap) vecReserve(v, v.len + 1);
  store<i32>(v.ptr + (<usize>v.len << 2), x);
  v.len++;
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
export function vecGet(v: Vec, i: i32): i32 {
  if (!ASC_NO_ASSERT) assert(<u32>i < <u32>v.len, 'Vec index out of range');
  return load<i32>(v.ptr + (<usize>i << 2));
}

// @ts-expect-error: decorator (AssemblyScript)
@inline
export function vecSet(v: Vec, i: i32, x: i32): void {
  if (!ASC_NO_ASSERT) assert(<u32>i < <u32>v.len, 'Vec index out of range');
  store<i32>(v.ptr + (<usize>i << 2), x);
}

/** Sets the length (growing fills nothing: callers write what they extend). */
export function vecResize(v: Vec, n: i32): void {
  vecReserve(v, n);
  v.len = n;
}
