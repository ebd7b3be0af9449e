/**
 * Dependencies between an object's properties, in the forms a grammar of members can
 * enforce: `dependentRequired` (and draft 4-7 `dependencies` whose values are arrays) as
 * name → names it requires; `dependencies` / `dependentSchemas` of the form
 * `{not: {required: [...]}}` as sets of names that may not all be present. Other dependent
 * schemas are conditionals (`if: {required: [name]}, then: schema`), split off when a schema
 * is flattened (`dependentConditions`).
 */
import { defineName } from '../../own-names.ts';
import { InvalidSchemaError, pointerJoin } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { KNOWN, type SchemaObject } from './schema-keywords.ts';

/** What an object's dependency keywords require of its members. */
export interface PropertyDependencies {
  /** Name → the names that must be present when it is. */
  readonly dependencies: Map<string, string[]>;
  /** Sets of names that may not all be present. */
  readonly exclusive: string[][];
}

/** The dependencies of an object schema. */
export function propertyDependencies(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): PropertyDependencies {
  const dependencies = new Map<string, string[]>();
  const exclusive: string[][] = [];
  const dependentSchemas = schema.dependentSchemas;
  if (dependentSchemas !== undefined && typeof dependentSchemas === 'object' && dependentSchemas !== null) {
    const sets = Object.entries(dependentSchemas).map(([name, dependent]) => exclusiveSet(name, dependent));
    if (sets.every((set) => set !== null)) exclusive.push(...(sets as string[][]));
    else compiler.unsupported(pointer, 'dependentSchemas', 'dependentSchemas is only supported as {not: {required: [...]}}');
  }
  for (const keyword of ['dependentRequired', 'dependencies'] as const) {
    const value = schema[keyword];
    if (value === undefined) continue;
    const at = pointerJoin(pointer, keyword);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidSchemaError(pointer, keyword, `${keyword} must be an object`);
    }
    for (const [name, needs] of Object.entries(value)) {
      if (!Array.isArray(needs)) {
        if (keyword === 'dependentRequired') {
          throw new InvalidSchemaError(at, keyword, 'dependentRequired values must be arrays of property names');
        }
        const set = exclusiveSet(name, needs);
        if (set !== null) exclusive.push(set);
        else compiler.unsupported(pointer, keyword, 'dependencies with a schema is only supported as {not: {required: [...]}}');
        continue;
      }
      if (needs.some((n) => typeof n !== 'string')) throw new InvalidSchemaError(at, keyword, `${keyword} lists must hold property names`);
      const required = (needs as string[]).filter((n) => n !== name);
      dependencies.set(name, [...new Set([...(dependencies.get(name) ?? []), ...required])]);
    }
  }
  return { dependencies, exclusive };
}

// `name`'s dependent schema `{not: {required: [...]}}` as the set of names that may not all
// be present (null: another form).
function exclusiveSet(name: string, dependent: unknown): string[] | null {
  if (typeof dependent !== 'object' || dependent === null) return null;
  const keys = Object.keys(dependent).filter((k) => KNOWN.has(k));
  const not = (dependent as SchemaObject).not as SchemaObject | undefined;
  if (keys.length !== 1 || keys[0] !== 'not' || typeof not !== 'object' || not === null) return null;
  const notKeys = Object.keys(not).filter((k) => KNOWN.has(k));
  if (notKeys.length !== 1 || notKeys[0] !== 'required') return null;
  if (!Array.isArray(not.required) || not.required.some((n) => typeof n !== 'string')) return null;
  return [...new Set([name, ...(not.required as string[])])];
}

/**
 * Moves the dependent schemas of `own` (`dependentSchemas`, and `dependencies` with schema
 * values) that are not exclusive sets out of it, as `[if, then, else]` conditionals: a
 * dependent schema holds when its property is present.
 */
export function dependentConditions(own: Record<string, unknown>): unknown[][] {
  const conditions: unknown[][] = [];
  for (const keyword of ['dependentSchemas', 'dependencies']) {
    const value = own[keyword];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const kept: Record<string, unknown> = {};
    for (const [name, dependent] of Object.entries(value)) {
      if (Array.isArray(dependent) || exclusiveSet(name, dependent) !== null || (typeof dependent !== 'object' && typeof dependent !== 'boolean'))
        defineName(kept, name, dependent);
      // (An object with the member: other values pass whatever the dependent schema says.)
      else if (dependent !== true) conditions.push([{ type: 'object', required: [name] }, dependent, true]);
    }
    if (Object.keys(kept).length > 0) own[keyword] = kept;
    else delete own[keyword];
  }
  return conditions;
}

/**
 * Every dependency of `schema` (`dependentRequired`, `dependencies`, the exclusive sets left in
 * `dependentSchemas`) as a conditional: for objects whose member count is bounded, which the
 * permutation does not check dependencies beside. Null when there are none.
 */
export function dependenciesAsConditions(schema: SchemaObject): SchemaObject | null {
  const out: Record<string, unknown> = { ...schema };
  const conditions: unknown[][] = [];
  for (const keyword of ['dependentRequired', 'dependencies', 'dependentSchemas']) {
    const value = schema[keyword];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    for (const [name, dependent] of Object.entries(value)) {
      conditions.push([{ type: 'object', required: [name] }, Array.isArray(dependent) ? { required: dependent } : dependent, true]);
    }
    delete out[keyword];
  }
  if (conditions.length === 0) return null;
  out.__conditions = [...((schema.__conditions as unknown[][] | undefined) ?? []), ...conditions];
  return out;
}
