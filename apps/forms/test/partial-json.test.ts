import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partialJson } from '../src/partial-json.ts';

describe('partialJson', () => {
  it('reads what a prefix says so far', () => {
    expect(partialJson('')).toBe(undefined);
    expect(partialJson('{"name": "An')).toEqual({ name: 'An' });
    expect(partialJson('{"name": "Ann", "ag')).toEqual({ name: 'Ann' });
    expect(partialJson('{"lines": [{"q": 1, "p": 12.')).toEqual({ lines: [{ q: 1, p: 12 }] });
    expect(partialJson('[1, 2.')).toEqual([1, 2]);
    expect(partialJson('[tr')).toEqual([]);
    expect(partialJson('{"a": "x\\')).toEqual({ a: 'x' });
    expect(partialJson('{"a": "\\u00')).toEqual({ a: '' });
    // "__proto__" is a key like any other (found by the property below).
    const proto = partialJson('{"__proto__": {"x": 1}}') as object;
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });

  it('ends on every prefix of any JSON, and reads the whole text as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        for (let i = 0; i <= text.length; i++) partialJson(text.slice(0, i));
        expect(partialJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300, seed: 684404447 },
    );
  });
});
