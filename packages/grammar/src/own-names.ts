/**
 * Maps keyed by the member names an instance or a schema writes: any text is a name, so one
 * may be `__proto__`, `constructor` or `toString`, which a plain object would take for its
 * prototype or find inherited. The schema compiler and the matcher read and write such maps
 * through these two.
 */

/** Sets member `name` as the map's own property (assigned, `__proto__` would set the prototype). */
export function defineName<T>(map: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
}

/** Member `name` of a name-keyed map, if the map has it as its own (`constructor` or `__proto__` are inherited otherwise). */
export function ownName<T>(map: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, name) ? map[name] : undefined;
}
