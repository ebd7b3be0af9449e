import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spanOfPointer } from '../src/json-locate.ts';

describe('spanOfPointer', () => {
  const text = '{\n  "type": "object",\n  "properties": { "a/b": { "minimum": "x" }, "list": [1, {"k": true}] }\n}';
  const at = (pointer: string): string | null => {
    const span = spanOfPointer(text, pointer);
    return span === null ? null : text.slice(span.start, span.end);
  };

  it('finds the value a pointer names, escapes included', () => {
    expect(at('/type')).toBe('"object"');
    expect(at('/properties/a~1b/minimum')).toBe('"x"');
    expect(at('/properties/list/1/k')).toBe('true');
    expect(at('')).toBe(text);
    expect(at('/nothing')).toBe(null);
  });

  it('ends on any text, JSON or not (never loops)', () => {
    for (const broken of ['{"a": [}', '["a", "b"\n}', '{"a" 1}', '[[[', '{', '}', '{"a": {"b": [1, 2}'])
      expect(() => spanOfPointer(broken, '/a/0')).not.toThrow();
    fc.assert(
      fc.property(fc.string(), fc.string(), (s, p) => void spanOfPointer(s, `/${p}`)),
      { numRuns: 500 },
    );
  });
});
