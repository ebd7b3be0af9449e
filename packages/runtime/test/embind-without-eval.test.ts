// The eval-free stand-in for embind's generated method callers must behave exactly as the
// generated source does under `new Function` (the oracle, allowed in Node).
import { describe, expect, it } from 'vitest';
import { embindFunction } from '../scripts/embind-without-eval.js';

// Builds the factory's names, values and source the way onnxruntime-web's glue
// (`_emval_get_method_caller`) does: kind 0 call, 1 method, 2 construct, 3 last argument.
function generated(kind: 0 | 1 | 2 | 3, argCount: number, returns: boolean, log: unknown[]) {
  const values: Record<string, unknown> = { toValue: (handle: number) => handles[handle] };
  const args = Array.from({ length: argCount }, (_, p) => {
    values[`argFromPtr${p}`] = (pointer: number) => ({ arg: p, pointer });
    return `argFromPtr${p}(args${p ? '+' + 8 * p : ''})`;
  });
  let h = ['toValue(handle)', 'toValue(handle)[getStringOrSymbol(methodName)]', 'new (toValue(handle))', ''][kind]!;
  if (kind === 1) values['getStringOrSymbol'] = (id: number) => `method${id}`;
  h += `(${args.join(', ')})`;
  if (returns) {
    values['toReturnWire'] = (destructors: unknown[], value: unknown) => ({ wire: value, destructors });
    values['emval_returnValue'] = (toWire: (d: unknown[], v: unknown) => unknown, destructorsRef: number, value: unknown) => {
      log.push(['return', destructorsRef]);
      return toWire([], value);
    };
    h = `return emval_returnValue(toReturnWire, destructorsRef, ${h})`;
  }
  const body = `return function (handle, methodName, destructorsRef, args) {\n  ${h}\n  }`;
  return { names: Object.keys(values), values: Object.values(values), body };
}

class Point {
  readonly args: unknown[];
  constructor(...args: unknown[]) {
    this.args = args;
  }
}
const handles: unknown[] = [
  (...args: unknown[]) => ({ called: args }),
  {
    method7(this: unknown, ...args: unknown[]) {
      return { self: this === handles[1], args };
    },
  },
  Point,
];

describe('embindFunction', () => {
  for (const kind of [0, 1, 2, 3] as const) {
    for (const argCount of kind === 3 ? [1, 2, 3] : [0, 1, 3]) {
      for (const returns of [true, false]) {
        it(`matches new Function for kind ${kind}, ${argCount} arguments, ${returns ? 'a' : 'no'} return value`, () => {
          const log: unknown[] = [];
          const { names, values, body } = generated(kind, argCount, returns, log);
          const expected = (new Function(names.join(','), body) as (...v: unknown[]) => (...a: number[]) => unknown)(...values);
          const actual = embindFunction(names, body)(...values);
          const handle = kind === 3 ? 0 : ([0, 1, 2] as const)[kind];
          const run = (caller: (...a: number[]) => unknown): unknown => caller(handle, 7, 99, 1000);
          const want = run(expected);
          const logged = log.splice(0);
          expect(run(actual)).toEqual(want);
          expect(log).toEqual(logged);
        });
      }
    }
  }

  it('refuses source it does not know, naming it', () => {
    expect(() => embindFunction(['x'], 'return x')).toThrow(/does not know: "return x"/);
    expect(() =>
      embindFunction(['argFromPtr0'], 'return function (handle, methodName, destructorsRef, args) {\n  toValue(handle)(argFromPtr0(args+4))\n  }'),
    ).toThrow(/does not know/);
    expect(() => embindFunction([], 'return function (handle, methodName, destructorsRef, args) {\n  alert(1)\n  }')).toThrow(/does not know/);
  });
});
