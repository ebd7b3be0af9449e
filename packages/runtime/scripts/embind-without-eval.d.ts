/** Stands in for `new Function(names, body)` on the method callers embind generates. */
export function embindFunction(
  names: readonly string[],
  body: string,
): (...values: unknown[]) => (handle: number, methodName: number, destructorsRef: number, args: number) => unknown;
