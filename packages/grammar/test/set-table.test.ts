// The sets the lexer names its states by: found by contents, stored as copies.
import { describe, expect, it } from 'vitest';
import { SetTable } from '../src/lexer/set-table.ts';

describe('SetTable', () => {
  it('numbers sets in the order added and finds them by contents', () => {
    const table = new SetTable();
    expect(table.find(Int32Array.of(1, 2))).toBe(-1);
    expect(table.add(Int32Array.of(1, 2))).toBe(0);
    expect(table.add(Int32Array.of())).toBe(1);
    expect(table.add(Int32Array.of(2, 1))).toBe(2);
    expect(table.find(new Int32Array([1, 2]))).toBe(0);
    expect(table.find(new Int32Array(0))).toBe(1);
    expect(table.find(Int32Array.of(2, 1))).toBe(2);
    expect(table.find(Int32Array.of(1, 2, 3))).toBe(-1);
    expect(table.size).toBe(3);
  });

  it('interns: an unknown set is added, a known one found', () => {
    const table = new SetTable();
    expect(table.intern(Int32Array.of(4, 8))).toBe(0);
    expect(table.intern(Int32Array.of(4))).toBe(1);
    expect(table.intern(Int32Array.of(4, 8))).toBe(0);
    expect(table.size).toBe(2);
  });

  it('keeps a copy: a scratch view may change after it is added', () => {
    const table = new SetTable();
    const scratch = Int32Array.of(5, 6, 7);
    const id = table.add(scratch.subarray(0, 2));
    scratch[0] = 9;
    expect(Array.from(table.get(id))).toEqual([5, 6]);
    expect(table.find(Int32Array.of(9, 6))).toBe(-1);
  });

  it('tells apart many sets', () => {
    const table = new SetTable();
    const sets: Int32Array[] = [];
    for (let a = 0; a < 60; a++) for (let b = a; b < 60; b++) sets.push(a === b ? Int32Array.of(a) : Int32Array.of(a, b * 1024 + a));
    sets.forEach((set, i) => expect(table.add(set)).toBe(i));
    sets.forEach((set, i) => expect(table.find(set)).toBe(i));
  });

  it('chains sets whose hashes are equal', () => {
    // {3001} and {2, 3000} have the same hash (found by search).
    const table = new SetTable();
    const one = table.add(Int32Array.of(3001));
    expect(table.find(Int32Array.of(2, 3000))).toBe(-1);
    const two = table.add(Int32Array.of(2, 3000));
    expect(two).not.toBe(one);
    expect(table.find(Int32Array.of(3001))).toBe(one);
    expect(table.find(Int32Array.of(2, 3000))).toBe(two);
  });
});
