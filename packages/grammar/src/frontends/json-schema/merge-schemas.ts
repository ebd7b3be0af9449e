/**
 * Intersections of schemas as one schema (`allOf` members, a `$ref` beside other keywords,
 * `anyOf`/`oneOf` branches with their siblings), keyword by keyword: the merged schema
 * accepts exactly the instances both sides accept, or the merge reports what it cannot keep
 * exact.
 */
import { defineName } from '../../own-names.ts';
import { ALL_TYPES, ANNOTATIONS, KNOWN, matchingSchemas, memberSides, typeList, type MemberSide, type SchemaObject } from './schema-keywords.ts';

/** Deep equality of JSON values (numbers by value, objects regardless of key order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  const valueA = a as Record<string, unknown>;
  const valueB = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => k in valueB && jsonEqual(valueA[k], valueB[k]));
}

/** How a merge reports a keyword it cannot keep exact. */
export type ReportUnsupported = (pointer: string, keyword: string, message: string) => void;

/**
 * The intersection of two schemas as one schema, keyword by keyword (false when nothing can
 * match). Keywords that cannot be merged exactly are reported through `unsupported`.
 */
export function mergeSchemas(a: SchemaObject, b: SchemaObject, pointer: string, unsupported: ReportUnsupported): SchemaObject | false {
  const out: Record<string, unknown> = { ...a };
  b = alignProperties(a, b, out, pointer, unsupported);
  b = alignItems(a, b, out);
  for (const [k, v] of Object.entries(b)) {
    if (ANNOTATIONS.has(k) || !(k in out)) {
      if (!ANNOTATIONS.has(k)) out[k] = v;
      continue;
    }
    if (jsonEqual(out[k], v)) continue;
    if (!mergeKeyword(out, k, v, pointer, unsupported)) return false;
  }
  if (!requiresNothingValid(out)) return out;
  // No object has the member; values of the other types still pass (`required` and
  // `properties` speak of objects only).
  const others = (out.type === undefined ? ALL_TYPES : typeList(out.type, pointer)).filter((t) => t !== 'object');
  return others.length === 0 ? false : { ...out, type: others };
}

// Whether a required member's schema allows no value by its constants alone: the
// intersections of discriminators (`if` one `kind`, then again another) are cut here, so
// conditionals on one member make a branch per value instead of one per subset.
function requiresNothingValid(schema: SchemaObject): boolean {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties === undefined || !Array.isArray(schema.required)) return false;
  return schema.required.some((name) => Object.hasOwn(properties, name as string) && constantsOf(properties[name as string])?.length === 0);
}

/**
 * The values a schema allows at most by its `const`, `enum` and `allOf` (null: not finite by
 * those); other keywords may only take values away. Beside a `$ref` none are read (drafts 4
 * to 7 ignore them there).
 */
export function constantsOf(schema: unknown): unknown[] | null {
  if (schema === false) return [];
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as SchemaObject;
  if (s.$ref !== undefined) return null;
  let values: unknown[] | null = s.const !== undefined ? [s.const] : Array.isArray(s.enum) ? s.enum : null;
  for (const member of Array.isArray(s.allOf) ? s.allOf : []) {
    const more = constantsOf(member);
    if (more !== null) values = values === null ? more : values.filter((x) => more.some((y) => jsonEqual(x, y)));
  }
  return values;
}

// additionalProperties only sees its own schema's properties: bring each side's properties
// into the other first (into `out`, a copy of `a`), so the merged keywords mean the same.
// Returns what is left of `b` to merge.
function alignProperties(a: SchemaObject, b: SchemaObject, out: Record<string, unknown>, pointer: string, unsupported: ReportUnsupported): SchemaObject {
  const touches = (s: SchemaObject): boolean => s.additionalProperties !== undefined || s.patternProperties !== undefined;
  if (!touches(a) && !touches(b)) return b;
  // A side's patterns hold for its own declared names too: carried by those names' schemas,
  // they survive wherever the patterns go below (dropped, or a side of their own).
  [a, b] = [withOwnPatterns(a), withOwnPatterns(b)];
  const patternsA = (a.patternProperties ?? {}) as Record<string, unknown>;
  const patternsB = (b.patternProperties ?? {}) as Record<string, unknown>;
  const both = Object.keys(patternsA).length > 0 && Object.keys(patternsB).length > 0;
  const declaredB = Object.keys((b.properties ?? {}) as Record<string, unknown>);
  out.properties = crossProperties(a, b);
  b = { ...b, properties: crossProperties(b, a) };
  if (both) {
    if (jsonEqual(patternsA, patternsB)) return b;
    // Keys matching only one side's patterns fall under the other's additionalProperties:
    // with none on either side, every pattern holds where it matches; else `b`'s patterns
    // and additionalProperties hold as a side of their own (`MemberSide`).
    const open = (s: SchemaObject): boolean => s.additionalProperties === undefined || s.additionalProperties === true;
    if (open(a) && open(b)) {
      out.patternProperties = byName(patternsA, patternsB, intersection);
      return Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'patternProperties'));
    }
    const side: MemberSide = { patternProperties: patternsB, ...(b.additionalProperties !== undefined && { additionalProperties: b.additionalProperties }) };
    out.__memberSides = [...memberSides(a), side, ...memberSides(b)];
    return Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'patternProperties' && k !== 'additionalProperties' && k !== '__memberSides'));
  }
  // Keys matching one side's patterns fall under the other side's additionalProperties, unless
  // that side declares them: its declared names already carry the patterns' schemas (above).
  const patternsOnA = Object.keys(patternsA).length > 0;
  const [patterns, otherAdditional, otherDeclared] = patternsOnA
    ? [patternsA, b.additionalProperties, declaredB]
    : [patternsB, a.additionalProperties, Object.keys((a.properties ?? {}) as Record<string, unknown>)];
  if (Object.keys(patterns).length === 0) return b;
  const rest = Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'patternProperties'));
  const shadowed = otherDeclared.find((name) => matchingSchemas(Object.entries(patterns), name).length > 0);
  if (shadowed !== undefined && otherAdditional !== undefined && otherAdditional !== true) {
    // With `false`, the other side allows its declared names only, so the patterns bind no
    // other key: leaving them out is exact. A schema there would reach the undeclared keys
    // the patterns match but not the declared ones, which one patternProperties cannot say.
    if (otherAdditional !== false) {
      unsupported(
        pointer,
        'patternProperties',
        `patternProperties on one side of an intersection matching ${JSON.stringify(shadowed)}, which the other side declares beside an additionalProperties schema, are not supported`,
      );
    }
    delete out.patternProperties;
    return rest;
  }
  out.patternProperties = Object.fromEntries(Object.entries(patterns).map(([p, schema]) => [p, intersection(schema, otherAdditional)]));
  return rest;
}

// items only sees its own schema's prefixItems: both sides as one tuple in 2020-12 spelling
// (into `out`). Returns what is left of `b` to merge.
function alignItems(a: SchemaObject, b: SchemaObject, out: Record<string, unknown>): SchemaObject {
  const tupleLike = (s: SchemaObject): boolean => Array.isArray(s.prefixItems) || Array.isArray(s.items);
  if (!tupleLike(a) && !tupleLike(b)) return b;
  const [pa, ra] = tuple(a);
  const [pb, rb] = tuple(b);
  const length = Math.max(pa.length, pb.length);
  const at = (p: unknown[], r: unknown, i: number): unknown => (i < p.length ? p[i] : r);
  out.prefixItems = Array.from({ length }, (_, i) => intersection(at(pa, ra, i), at(pb, rb, i)));
  out.items = intersection(ra, rb);
  delete out.additionalItems;
  const restB: Record<string, unknown> = { ...b };
  for (const k of ['prefixItems', 'items', 'additionalItems']) delete restB[k];
  return restB;
}

// Merges `v` into keyword `k` of `out`, which holds a different value; false when the two
// leave nothing to match.
function mergeKeyword(out: Record<string, unknown>, k: string, v: unknown, pointer: string, unsupported: ReportUnsupported): boolean {
  const mine = out[k];
  if (LOWER_BOUNDS.has(k) || UPPER_BOUNDS.has(k)) {
    out[k] = tighter(mine, v, LOWER_BOUNDS.has(k) ? Math.max : Math.min);
    return true;
  }
  switch (k) {
    case 'type': {
      const ta = typeList(mine, pointer);
      const tb = typeList(v, pointer);
      const both = ta.filter((t) => tb.includes(t) || (t === 'integer' && tb.includes('number')));
      for (const t of tb) if (t === 'integer' && ta.includes('number') && !both.includes('integer')) both.push('integer');
      if (both.length === 0) return false;
      out.type = both;
      return true;
    }
    case 'required':
      out.required = namesOfBoth(mine, v);
      return true;
    case 'properties':
      out.properties = byName(mine, v, intersection);
      return true;
    case 'items':
    case 'additionalProperties':
    case 'propertyNames':
    case 'additionalItems':
      out[k] = intersection(mine, v);
      return true;
    case 'enum': {
      const values = (mine as unknown[]).filter((x) => (v as unknown[]).some((y) => jsonEqual(x, y)));
      if (values.length === 0) return false;
      out.enum = values;
      return true;
    }
    case 'const':
      return false;
    case 'uniqueItems':
      out.uniqueItems = mine === true || v === true;
      return true;
    case 'dependentRequired':
      out[k] = byName(mine, v, namesOfBoth);
      return true;
    case 'dependentSchemas':
      out[k] = byName(mine, v, intersection);
      return true;
    case 'dependencies':
      // Draft 4-7: a list of names to require, or a schema; a list beside a schema is the
      // schema `{required: list}`.
      out[k] = byName(mine, v, (x, y) =>
        Array.isArray(x) && Array.isArray(y) ? namesOfBoth(x, y) : intersection(Array.isArray(x) ? { required: x } : x, Array.isArray(y) ? { required: y } : y),
      );
      return true;
    case 'pattern':
    case 'multipleOf':
      // Both must hold: the string (number) keywords intersect every pattern (multiple) in the list.
      out[k] = [...[mine].flat(), ...[v].flat()];
      return true;
    case '__notValues':
    case '__notPatterns':
    case '__notFormats':
    case '__conditions':
    case '__contains':
    case '__notMultipleOf':
    case '__stringTests':
    case '__multipleTests':
    case '__someMember':
    case '__otherWitness':
    case '__oneOf':
    case '__memberSides':
      // Excluded (conditional, witnessed) on either side: both lists hold.
      out[k] = [...(mine as unknown[]), ...(v as unknown[])];
      return true;
    case 'anyOf':
      out[k] = (mine as unknown[]).flatMap((x) => (v as unknown[]).map((y) => ({ allOf: [x, y] })));
      return true;
    case 'oneOf':
      // Both hold: the second waits in a list, for the branches of the first.
      out.__oneOf = [...((out.__oneOf as unknown[] | undefined) ?? []), v];
      return true;
    case 'not':
      out.not = { anyOf: [mine, v] };
      return true;
    default:
      // Unknown keywords are annotations: nothing to merge.
      if (KNOWN.has(k)) unsupported(pointer, k, `${k} appears twice in an intersection and cannot be merged`);
      return true;
  }
}

// Bounds: of two, the tighter holds.
const LOWER_BOUNDS = new Set(['minimum', 'minLength', 'minItems', 'minProperties', 'exclusiveMinimum']);
const UPPER_BOUNDS = new Set(['maximum', 'maxLength', 'maxItems', 'maxProperties', 'exclusiveMaximum']);

// The tighter of two bounds: numbers by `pick`; draft-4 boolean flags (exclusiveMinimum) by "or".
function tighter(mine: unknown, v: unknown, pick: (x: number, y: number) => number): unknown {
  return typeof mine === 'number' && typeof v === 'number' ? pick(mine, v) : mine === true || v === true;
}

// A schema whose declared properties also carry the schemas of its patterns their names match.
function withOwnPatterns(s: SchemaObject): SchemaObject {
  const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, unknown>);
  if (patterns.length === 0 || s.properties === undefined) return s;
  const properties = Object.fromEntries(
    Object.entries(s.properties as Record<string, unknown>).map(([name, schema]) => {
      const matching = matchingSchemas(patterns, name);
      return [name, matching.length === 0 ? schema : { allOf: [schema, ...matching] }];
    }),
  );
  return { ...s, properties };
}

// The properties of `self`, plus those only `other` declares, which in `self` fall under its
// matching patternProperties, or else its additionalProperties, and so for each of its member
// sides (and must satisfy them too).
function crossProperties(self: SchemaObject, other: SchemaObject): Record<string, unknown> {
  const mine = (self.properties ?? {}) as Record<string, unknown>;
  const theirs = (other.properties ?? {}) as Record<string, unknown>;
  const sides: MemberSide[] = [
    { patternProperties: (self.patternProperties ?? {}) as Record<string, unknown>, additionalProperties: self.additionalProperties },
    ...memberSides(self),
  ];
  const out: Record<string, unknown> = { ...mine };
  for (const name of Object.keys(theirs)) {
    if (Object.hasOwn(out, name)) continue;
    const schemas = sides.flatMap(({ patternProperties, additionalProperties }) => {
      const matching = matchingSchemas(Object.entries(patternProperties), name);
      return matching.length > 0 ? matching : additionalProperties !== undefined && additionalProperties !== true ? [additionalProperties] : [];
    });
    if (schemas.length > 0) defineName(out, name, schemas.length === 1 ? schemas[0] : { allOf: schemas });
  }
  return out;
}

// An array schema as (prefix item schemas, schema of the rest), in either draft's spelling.
function tuple(s: SchemaObject): [unknown[], unknown] {
  if (Array.isArray(s.items)) return [s.items, s.additionalItems ?? true];
  return [Array.isArray(s.prefixItems) ? s.prefixItems : [], s.items ?? true];
}

// Two lists of names (required, dependent) as one, each name once.
const namesOfBoth = (a: unknown, b: unknown): string[] => [...new Set([...(a as string[]), ...(b as string[])])];

// Two maps from names to values as one, the values of a name on both sides joined.
function byName(a: unknown, b: unknown, join: (x: unknown, y: unknown) => unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [name, value] of Object.entries(b as Record<string, unknown>))
    defineName(merged, name, Object.hasOwn(merged, name) ? join(merged[name], value) : value);
  return merged;
}

// Two schemas that must both hold, as one: without wrapping when one is `true` (or absent)
// or both are equal, so merging again with the same schemas gives the same result.
function intersection(x: unknown, y: unknown): unknown {
  if (x === undefined || x === true) return y ?? true;
  if (y === undefined || y === true || jsonEqual(x, y)) return x;
  return { allOf: [x, y] };
}
