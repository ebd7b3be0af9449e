/**
 * `$ref` resolution within the document: fragments (`#`, `#/json/pointer`, `#anchor`) in the
 * resource around the reference, and URIs that an `$id` of the document names (resolved
 * against the base URIs around them); and the draft a document is written in, which decides
 * whether keywords beside a `$ref` count.
 */
import { InvalidSchemaError, pointerJoin, UnsupportedSchemaError } from './schema-error.ts';
import { ANNOTATIONS, KNOWN, type Schema, type SchemaObject } from './schema-keywords.ts';

/** A schema found by a reference, with its JSON pointer in the document. */
export interface ResolvedSchema {
  readonly schema: Schema;
  readonly pointer: string;
}

/** The draft the validator reads a document in (draft-4 spells exclusiveMinimum as a boolean). */
export type SchemaDraft = '4' | '7' | '2019-09' | '2020-12';

/** The draft a document declares in `$schema` (2020-12 when it declares none). */
export function schemaDraft(root: unknown): SchemaDraft {
  const declared = typeof root === 'object' && root !== null ? String((root as SchemaObject).$schema ?? '') : '';
  if (/draft-0[34]/.test(declared)) return '4';
  if (/draft-0[67]/.test(declared)) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * Whether a schema is its `$ref` alone: nothing else constrains it, or the draft (4 to 7)
 * says keywords beside a `$ref` are ignored.
 */
export function isOnlyRef(schema: SchemaObject, draft: SchemaDraft): boolean {
  return draft === '4' || draft === '7' || besideRef(schema).length === 0;
}

/** The keywords beside a schema's `$ref` that would assert something (drafts 4 to 7 ignore them). */
export const besideRef = (schema: SchemaObject): string[] => Object.keys(schema).filter((k) => k !== '$ref' && !ANNOTATIONS.has(k) && KNOWN.has(k));

/** The schema `ref` (met at `pointer`) points to in `root`, read in `draft`. */
export function resolveRef(root: unknown, ref: string, pointer: string, draft: SchemaDraft): ResolvedSchema {
  const { node, keys } = locate(root, ref, pointer, draft);
  return { schema: node as Schema, pointer: keys.reduce<string>(pointerJoin, '') };
}

/** A place in the document: the value there, and the keys (decoded) that lead to it from the root. */
interface Place {
  readonly node: unknown;
  readonly keys: readonly string[];
}

// The schema a reference names.
function locate(root: unknown, ref: string, pointer: string, draft: SchemaDraft): Place {
  const hash = ref.indexOf('#');
  const address = hash < 0 ? ref : ref.slice(0, hash);
  const path = hash < 0 ? '' : ref.slice(hash + 1);
  // A fragment alone is read in the resource the `$ref` stands in: the nearest schema around
  // it with an `$id` of its own (a base URI, not a fragment), or the document; a URI names a
  // resource of the document by its `$id` (resolved against the base URIs around it).
  const resource =
    address === '' ? resourceAround(root, pointer, draft) : address === ROOTED ? { node: root, keys: [] } : resourceNamed(root, address, ref, pointer, draft);
  if (path !== '' && !path.startsWith('/')) {
    // "#name": a plain-name anchor.
    const found = findAnchor(resource, ANCHOR_KEYWORDS[draft], path, draft);
    if (found === null) throw new InvalidSchemaError(pointer, '$ref', `no ${ANCHOR_KEYWORDS[draft].join(' or ')} named ${JSON.stringify(path)}`);
    return found;
  }
  let node: unknown = resource.node;
  const keys = [...resource.keys];
  for (const raw of path === '' ? [] : path.slice(1).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is not a valid URI fragment (bad percent-encoding)`);
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) {
      throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} points nowhere`);
    }
    node = (node as Record<string, unknown>)[key];
    keys.push(key);
  }
  if (typeof node !== 'boolean' && (typeof node !== 'object' || node === null)) {
    throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is not a schema`);
  }
  return { node, keys };
}

/**
 * The document with each `$ref` that names a place in it rewritten to name that place from
 * the root (`sieve:rooted#/properties/b/$defs/t`), so that equal references mean the same
 * wherever they are written: the compiler numbers a `$ref` by its text, and `#/$defs/t` in two
 * resources (schemas with an `$id`) may mean two schemas. A reference it cannot resolve stays
 * as written (its error comes when it is used, in its own resource). The document itself when
 * it has no resource but the root and no reference but fragments.
 */
export function rootedRefs(root: unknown): unknown {
  const draft = schemaDraft(root);
  let needed = false;
  walkSchemas(root, (node, keys) => {
    if (keys.length > 0 && resourceId(node, draft) !== undefined) needed = true;
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) needed = true;
  });
  if (!needed) return root;
  const rooted = (ref: string, keys: readonly string[]): string => {
    try {
      const target = locate(root, ref, keys.reduce<string>(pointerJoin, ''), draft).keys;
      return `${ROOTED}#${target.map((k) => `/${encodeURIComponent(k.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
    } catch (error) {
      // (A name no URI spells — a lone surrogate — keeps the reference as written too.)
      if (error instanceof InvalidSchemaError || error instanceof UnsupportedSchemaError || error instanceof URIError) return ref;
      throw error;
    }
  };
  return rewriteSchemas(root, (entries, keys) => entries.map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? rooted(v, keys) : v]));
}

// A copy of the document whose schema objects' entries `entries` rewrites (given the
// object's keys from the root); data (`const`, `enum`, …) is kept as it is.
export function rewriteSchemas(root: unknown, entries: (pairs: [string, unknown][], keys: readonly string[]) => [string, unknown][]): unknown {
  const rewrite = (node: unknown, keys: readonly string[], within: Within): unknown => {
    if (typeof node !== 'object' || node === null || within === 'data') return node;
    if (Array.isArray(node)) return node.map((item, i) => rewrite(item, [...keys, String(i)], 'schema'));
    const pairs = Object.entries(node);
    // (Defined, not assigned: a name such as `__proto__` stays a name.)
    return Object.fromEntries((within === 'schema' ? entries(pairs, keys) : pairs).map(([k, v]) => [k, rewrite(v, [...keys, k], childWithin(within, k))]));
  };
  return rewrite(root, [], 'schema');
}

// The address `rootedRefs` gives a reference it read from the root.
const ROOTED = 'sieve:rooted';

// What a value in the document is: a schema (or a list of them), a map of names to schemas
// (`properties`, `$defs`, …), or data (`const`, `enum`, `default`, …: no schema inside).
type Within = 'schema' | 'names' | 'data';
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
// Keywords whose values are data, not schemas: an anchor's or a reference's spelling there names nothing.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

// What the value under key `k` of a value that is `within` is.
function childWithin(within: Within, k: string): Within {
  if (within !== 'schema') return within === 'names' ? 'schema' : 'data';
  return DATA_KEYWORDS.has(k) ? 'data' : NAME_MAPS.has(k) ? 'names' : 'schema';
}

/**
 * Calls `visit` on every schema object of the document (not inside data: `const`, `enum`,
 * `default`, …), with its keys from the root; below a node for which it returns false, on none.
 */
export function walkSchemas(root: unknown, visit: (node: object, keys: readonly string[]) => boolean | void): void {
  const go = (node: unknown, keys: readonly string[], within: Within): void => {
    if (typeof node !== 'object' || node === null || within === 'data') return;
    if (within === 'schema' && !Array.isArray(node) && visit(node, keys) === false) return;
    for (const [k, v] of Object.entries(node)) go(v, [...keys, k], Array.isArray(node) ? 'schema' : childWithin(within, k));
  };
  go(root, [], 'schema');
}

// The schema objects on the way to `pointer` (the root first), each with its keys.
function schemasAlong(root: unknown, pointer: string): Place[] {
  const out: Place[] = [{ node: root, keys: [] }];
  let node = root;
  let within: Within = 'schema';
  const keys: string[] = [];
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) break;
    within = Array.isArray(node) ? 'schema' : childWithin(within, key);
    node = (node as Record<string, unknown>)[key];
    keys.push(key);
    if (within === 'data') break;
    if (within === 'schema' && typeof node === 'object' && node !== null && !Array.isArray(node)) out.push({ node, keys: [...keys] });
  }
  return out;
}

// A schema's `$id` (`id` in draft 4) when it names a resource (a URI, not a fragment alone:
// `"#name"` is drafts 4 to 7's anchor).
function resourceId(node: unknown, draft: SchemaDraft): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const id = (node as Record<string, unknown>)[draft === '4' ? 'id' : '$id'];
  return typeof id === 'string' && !id.startsWith('#') ? id : undefined;
}

// The base URI of a document with no `$id` of its own (what relative ones resolve against).
const DOCUMENT_BASE = 'https://sieve.invalid/document.json';

// A resource's URI from its `$id` and the base around it (undefined when it names none).
function resourceUri(node: unknown, base: string, draft: SchemaDraft): string | undefined {
  const id = resourceId(node, draft);
  if (id === undefined) return undefined;
  try {
    return withoutFragment(new URL(id, base).href);
  } catch {
    return undefined;
  }
}

const withoutFragment = (uri: string): string => {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
};

// The innermost schema on the way to `pointer` that starts a resource, else the root.
function resourceAround(root: unknown, pointer: string, draft: SchemaDraft): Place {
  const along = schemasAlong(root, pointer);
  for (let i = along.length - 1; i > 0; i--) if (resourceId(along[i]!.node, draft) !== undefined) return along[i]!;
  return along[0]!;
}

// The base URI at `pointer`: the document's, changed by every `$id` on the way.
function baseAt(root: unknown, pointer: string, draft: SchemaDraft): string {
  return schemasAlong(root, pointer).reduce((base, place) => resourceUri(place.node, base, draft) ?? base, DOCUMENT_BASE);
}

// The resource of the document whose URI `address` (met at `pointer`) names.
function resourceNamed(root: unknown, address: string, ref: string, pointer: string, draft: SchemaDraft): Place {
  let target: string;
  try {
    target = withoutFragment(new URL(address, baseAt(root, pointer, draft)).href);
  } catch {
    throw new UnsupportedSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is no URI reference this document's base URI resolves`);
  }
  const found = resourcesOf(root, draft).get(target);
  if (found === undefined) {
    throw new UnsupportedSchemaError(
      pointer,
      '$ref',
      `only references to schemas within the document are supported (by fragment, or by a URI an $id here names), not ${JSON.stringify(ref)}`,
    );
  }
  return found;
}

// Every resource of the document by its URI (the root under the document's base too).
const resourceMaps = new WeakMap<object, Map<string, Place>>();
function resourcesOf(root: unknown, draft: SchemaDraft): Map<string, Place> {
  let map = typeof root === 'object' && root !== null ? resourceMaps.get(root) : undefined;
  if (map !== undefined) return map;
  const found = new Map<string, Place>([[DOCUMENT_BASE, { node: root, keys: [] }]]);
  walkSchemas(root, (node, keys) => {
    const base = baseAt(root, keys.reduce<string>(pointerJoin, ''), draft);
    if (resourceId(node, draft) !== undefined && !found.has(base)) found.set(base, { node, keys });
  });
  map = found;
  if (typeof root === 'object' && root !== null) resourceMaps.set(root, map);
  return map;
}

// The keywords that name a plain-name anchor in each draft: drafts 4 to 7 spell it as an id
// that is a fragment alone (`"id": "#name"`), 2019-09 as `$anchor`, and 2020-12 also counts a
// `$dynamicAnchor` as a plain one.
const ANCHOR_KEYWORDS: Readonly<Record<SchemaDraft, readonly string[]>> = {
  '4': ['id'],
  '7': ['$id'],
  '2019-09': ['$anchor'],
  '2020-12': ['$anchor', '$dynamicAnchor'],
};

// A plain-name anchor in `resource`: not inside another resource (its anchors are its own).
function findAnchor(resource: Place, keywords: readonly string[], anchor: string, draft: SchemaDraft): Place | null {
  let found: Place | null = null;
  walkSchemas(resource.node, (node, keys) => {
    if (found !== null || (keys.length > 0 && resourceId(node, draft) !== undefined)) return false;
    const object = node as Record<string, unknown>;
    const names = (k: string): boolean => (k === 'id' || k === '$id' ? object[k] === `#${anchor}` : object[k] === anchor);
    if (keywords.some(names)) found = { node, keys: [...resource.keys, ...keys] };
    return true;
  });
  return found;
}

/** Whether `keyword` is a key of any object in the document. */
export function containsKeyword(node: unknown, keyword: string): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (!Array.isArray(node) && Object.hasOwn(node, keyword)) return true;
  return Object.values(node).some((v) => containsKeyword(v, keyword));
}
