/**
 * The schemas a schema may stand for where it applies, for questions asked of every schema
 * that may describe a value (`unique-paths.ts`, `array-schema.ts`): flattened, with its
 * `anyOf`/`oneOf` branches apart (each with its siblings), `if` as `then` and as `else`, and
 * `dependentSchemas` each apart too. A superset of what holds: an answer true of all of them
 * is true of the value.
 */
import { mergeSchemas } from './merge-schemas.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import type { Schema, SchemaObject } from './schema-keywords.ts';

// How deep branches are expanded within branches.
const MAX_EXPANSION_DEPTH = 16;

/** The schemas `schema` may stand for (see above); `pointer` names it in errors. */
export function candidates(compiler: SchemaCompiler, schema: Schema, pointer: string, depth = 0): SchemaObject[] {
  if (schema === false) return [];
  const flat = compiler.flatten(schema === true ? {} : schema, pointer);
  if (flat === false) return [];
  if (depth >= MAX_EXPANSION_DEPTH)
    compiler.unsupported(pointer, 'uniqueItems', `uniqueItems checked while matching, beside branches nested more than ${MAX_EXPANSION_DEPTH} deep`);
  const within = (rest: SchemaObject, branch: Schema): SchemaObject[] => {
    const both = branch === true ? rest : branch === false ? false : compiler.flatten(branch, pointer);
    const merged = both === false ? false : both === rest ? rest : mergeSchemas(rest, both, pointer, () => {});
    return merged === false ? [] : candidates(compiler, merged, pointer, depth + 1);
  };
  const without = (...keywords: string[]): SchemaObject => {
    const rest: Record<string, unknown> = { ...flat };
    for (const k of keywords) delete rest[k];
    return rest;
  };
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(flat[keyword])) return (flat[keyword] as Schema[]).flatMap((branch) => within(without(keyword), branch));
  }
  if (Array.isArray(flat.__oneOf)) {
    const [next, ...more] = flat.__oneOf as Schema[][];
    const rest: Record<string, unknown> = { ...without('__oneOf'), ...(more.length > 0 && { __oneOf: more }) };
    return next!.flatMap((branch) => within(rest, branch));
  }
  if (flat.if !== undefined || flat.then !== undefined || flat.else !== undefined) {
    const rest = without('if', 'then', 'else');
    return [...within(rest, (flat.then ?? true) as Schema), ...within(rest, (flat.else ?? true) as Schema)];
  }
  const dependents = Object.values({ ...((flat.dependentSchemas ?? {}) as object), ...((flat.dependencies ?? {}) as object) }).filter(
    (d): d is Schema => !Array.isArray(d),
  );
  if (dependents.length > 0) {
    const rest = without('dependentSchemas', 'dependencies');
    return [...candidates(compiler, rest, pointer, depth + 1), ...dependents.flatMap((d) => within(rest, d))];
  }
  return [flat];
}
