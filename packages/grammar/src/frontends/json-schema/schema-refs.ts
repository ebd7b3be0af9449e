/**
 * `$ref` resolution: local references only (`#`, `#/json/pointer`, `#anchor`), against the
 * root document; and the draft a document is written in, which decides whether keywords
 * beside a `$ref` count.
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
  if (!ref.startsWith('#')) {
    throw new UnsupportedSchemaError(pointer, '$ref', `only local references ("#…") are supported, not ${JSON.stringify(ref)}`);
  }
  const path = ref.slice(1);
  // A fragment is read in the resource the `$ref` stands in: the nearest schema around it with
  // an `$id` of its own (a base URI, not a fragment), or the document.
  const resource = resourceAround(root, pointer, draft);
  if (path !== '' && !path.startsWith('/')) {
    // "#name": a plain-name anchor.
    const found = findAnchor(resource.node, ANCHOR_KEYWORDS[draft], path, resource.pointer, draft);
    if (found === null) throw new InvalidSchemaError(pointer, '$ref', `no ${ANCHOR_KEYWORDS[draft].join(' or ')} named ${JSON.stringify(path)}`);
    return found;
  }
  let node: unknown = resource.node;
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
  }
  if (typeof node !== 'boolean' && (typeof node !== 'object' || node === null)) {
    throw new InvalidSchemaError(pointer, '$ref', `${JSON.stringify(ref)} is not a schema`);
  }
  return { schema: node as Schema, pointer: resource.pointer + path };
}

// Whether a schema (not the document's root) starts a resource of its own: an `$id` (`id` in
// draft 4) that is a URI, not a fragment alone (`"#name"`, drafts 4 to 7's anchor).
function startsResource(node: unknown, draft: SchemaDraft): boolean {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  const id = (node as Record<string, unknown>)[draft === '4' ? 'id' : '$id'];
  return typeof id === 'string' && !id.startsWith('#');
}

// The innermost schema on the way to `pointer` that starts a resource, else the root.
function resourceAround(root: unknown, pointer: string, draft: SchemaDraft): { node: unknown; pointer: string } {
  let resource = { node: root, pointer: '' };
  let node = root;
  let at = '';
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) break;
    node = (node as Record<string, unknown>)[key];
    at = `${at}/${raw}`;
    if (startsResource(node, draft)) resource = { node, pointer: at };
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

// A plain-name anchor in the resource at `node`: not inside another resource (its anchors are
// its own).
function findAnchor(node: unknown, keywords: readonly string[], anchor: string, pointer: string, draft: SchemaDraft, top = true): ResolvedSchema | null {
  if (typeof node !== 'object' || node === null) return null;
  if (!top && startsResource(node, draft)) return null;
  if (!Array.isArray(node)) {
    const object = node as Record<string, unknown>;
    const names = (k: string): boolean => (k === 'id' || k === '$id' ? object[k] === `#${anchor}` : object[k] === anchor);
    if (keywords.some(names)) return { schema: node as Schema, pointer };
  }
  for (const [k, v] of Object.entries(node)) {
    if (!Array.isArray(node) && DATA_KEYWORDS.has(k)) continue;
    const found = findAnchor(v, keywords, anchor, pointerJoin(pointer, k), draft, false);
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
