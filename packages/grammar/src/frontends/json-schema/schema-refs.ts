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
  if (draft === '4' || draft === '7') return true;
  return Object.keys(schema).every((k) => k === '$ref' || ANNOTATIONS.has(k) || !KNOWN.has(k));
}

/** The schema `ref` (met at `pointer`) points to in `root`, read in `draft`. */
export function resolveRef(root: unknown, ref: string, pointer: string, draft: SchemaDraft): ResolvedSchema {
  const { schema, keys } = locate(root, ref, pointer, draft);
  return { schema, pointer: keys.reduce<string>(pointerJoin, '') };
}

// A reference's target and the keys (decoded) that lead to it from the root.
function locate(root: unknown, ref: string, pointer: string, draft: SchemaDraft): { schema: Schema; keys: string[] } {
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
    const found = findAnchor(resource.node, ANCHOR_KEYWORDS[draft], path, resource.keys, draft);
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
  return { schema: node as Schema, keys };
}

/**
 * The document with each `$ref` that names a place in it rewritten to name that place from
 * the root (`sieve:rooted#/properties/b/$defs/t`), so that equal references mean the same
 * wherever they are written: the compiler numbers a `$ref` by its text, and `#/$defs/t` in two
 * resources (schemas with an `$id`) may mean two schemas. A reference it cannot resolve stays
 * as written (its error comes when it is used). The document itself when it has no resource
 * but the root and no reference but fragments.
 */
export function rootedRefs(root: unknown): unknown {
  const draft = schemaDraft(root);
  if (!hasResourcesOrUris(root, draft, true)) return root;
  const rewrite = (node: unknown, keys: string[]): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map((item, i) => rewrite(item, [...keys, String(i)]));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(k)) out[k] = v;
      else if (k === '$ref' && typeof v === 'string') out[k] = rooted(v, keys);
      else out[k] = rewrite(v, [...keys, k]);
    }
    return out;
  };
  const rooted = (ref: string, keys: string[]): string => {
    try {
      const target = locate(root, ref, keys.reduce<string>(pointerJoin, ''), draft).keys;
      return `${ROOTED}#${target.map((k) => `/${encodeURIComponent(k.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
    } catch (error) {
      if (error instanceof InvalidSchemaError || error instanceof UnsupportedSchemaError) return ref;
      throw error;
    }
  };
  return rewrite(root, []);
}

// The address `rootedRefs` gives a reference it read from the root.
const ROOTED = 'sieve:rooted';

// Whether the document has a resource other than the root, or a `$ref` with a URI.
function hasResourcesOrUris(node: unknown, draft: SchemaDraft, top: boolean): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (!Array.isArray(node)) {
    if (!top && startsResource(node, draft)) return true;
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) return true;
  }
  return Object.entries(node).some(([k, v]) => !(DATA_KEYWORDS.has(k) && !Array.isArray(node)) && hasResourcesOrUris(v, draft, false));
}

// The base URI of a document with no `$id` of its own (what relative ones resolve against).
const DOCUMENT_BASE = 'https://sieve.invalid/document.json';

// The resource of the document whose URI `address` (met at `pointer`) names.
function resourceNamed(root: unknown, address: string, ref: string, pointer: string, draft: SchemaDraft): { node: unknown; keys: string[] } {
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

const withoutFragment = (uri: string): string => {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
};

// A resource's URI from its `$id` and the base around it (undefined when it names none).
function resourceUri(node: unknown, base: string, draft: SchemaDraft): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const id = (node as Record<string, unknown>)[draft === '4' ? 'id' : '$id'];
  if (typeof id !== 'string' || id.startsWith('#')) return undefined;
  try {
    return withoutFragment(new URL(id, base).href);
  } catch {
    return undefined;
  }
}

// The base URI at `pointer`: the document's, changed by every `$id` on the way.
function baseAt(root: unknown, pointer: string, draft: SchemaDraft): string {
  let base = resourceUri(root, DOCUMENT_BASE, draft) ?? DOCUMENT_BASE;
  let node = root;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) break;
    node = (node as Record<string, unknown>)[key];
    base = resourceUri(node, base, draft) ?? base;
  }
  return base;
}

// Every resource of the document by its URI (the root under the document's base too).
const resourceMaps = new WeakMap<object, Map<string, { node: unknown; keys: string[] }>>();
function resourcesOf(root: unknown, draft: SchemaDraft): Map<string, { node: unknown; keys: string[] }> {
  let map = typeof root === 'object' && root !== null ? resourceMaps.get(root) : undefined;
  if (map !== undefined) return map;
  map = new Map([[DOCUMENT_BASE, { node: root, keys: [] }]]);
  const found = map;
  const visit = (node: unknown, keys: string[], base: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const uri = resourceUri(node, base, draft);
    if (uri !== undefined && !found.has(uri)) found.set(uri, { node, keys });
    const here = uri ?? base;
    for (const [k, v] of Object.entries(node)) if (Array.isArray(node) || !DATA_KEYWORDS.has(k)) visit(v, [...keys, k], here);
  };
  visit(root, [], DOCUMENT_BASE);
  if (typeof root === 'object' && root !== null) resourceMaps.set(root, map);
  return map;
}

// Whether a schema (not the document's root) starts a resource of its own: an `$id` (`id` in
// draft 4) that is a URI, not a fragment alone (`"#name"`, drafts 4 to 7's anchor).
function startsResource(node: unknown, draft: SchemaDraft): boolean {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  const id = (node as Record<string, unknown>)[draft === '4' ? 'id' : '$id'];
  return typeof id === 'string' && !id.startsWith('#');
}

// The innermost schema on the way to `pointer` that starts a resource, else the root.
function resourceAround(root: unknown, pointer: string, draft: SchemaDraft): { node: unknown; keys: string[] } {
  let resource = { node: root, keys: [] as string[] };
  let node = root;
  const keys: string[] = [];
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) break;
    node = (node as Record<string, unknown>)[key];
    keys.push(key);
    if (startsResource(node, draft)) resource = { node, keys: [...keys] };
  }
  return resource;
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
// Keywords whose values are data, not schemas: an anchor's spelling there names nothing.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

// A plain-name anchor in the resource at `node` (reached by `keys`): not inside another
// resource (its anchors are its own).
function findAnchor(
  node: unknown,
  keywords: readonly string[],
  anchor: string,
  keys: string[],
  draft: SchemaDraft,
  top = true,
): { schema: Schema; keys: string[] } | null {
  if (typeof node !== 'object' || node === null) return null;
  if (!top && startsResource(node, draft)) return null;
  if (!Array.isArray(node)) {
    const object = node as Record<string, unknown>;
    const names = (k: string): boolean => (k === 'id' || k === '$id' ? object[k] === `#${anchor}` : object[k] === anchor);
    if (keywords.some(names)) return { schema: node as Schema, keys };
  }
  for (const [k, v] of Object.entries(node)) {
    if (!Array.isArray(node) && DATA_KEYWORDS.has(k)) continue;
    const found = findAnchor(v, keywords, anchor, [...keys, k], draft, false);
    if (found) return found;
  }
  return null;
}

/** Whether `keyword` is a key of any object in the document. */
export function containsKeyword(node: unknown, keyword: string): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (!Array.isArray(node) && Object.hasOwn(node, keyword)) return true;
  return Object.values(node).some((v) => containsKeyword(v, keyword));
}
