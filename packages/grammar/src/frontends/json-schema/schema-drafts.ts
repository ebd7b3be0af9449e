/**
 * A document read in the draft its `$schema` declares: the keywords that draft does not have
 * are dropped once (they are unknown there, annotations), so that the compiler and the
 * validator of constants (which reads them in every draft) agree; and a draft-3 document is
 * said again in draft 4, which the compiler reads.
 */
import { rewriteSchemas, schemaDraft, walkSchemas, type SchemaDraft } from './schema-refs.ts';

// Keywords of later drafts: in a document of an earlier one they are unknown, annotations.
// (Drafts 4 to 7 read `const`, `propertyNames` and the dependent keywords as later ones do.)
// Draft 6 is read as 7 elsewhere, but has no conditionals.
const LATER_KEYWORDS: Readonly<Record<SchemaDraft | '6', readonly string[]>> = {
  '4': ['if', 'then', 'else', 'contains', 'minContains', 'maxContains', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems'],
  '6': ['if', 'then', 'else', 'minContains', 'maxContains', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems'],
  '7': ['minContains', 'maxContains', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems'],
  '2019-09': ['prefixItems'],
  '2020-12': [],
};

// Keywords draft 3 does not have (besides draft 4's later ones): unknown there. Its
// `required` is a property's boolean, read by the object that holds the property.
const NOT_IN_DRAFT_3 = new Set([
  ...LATER_KEYWORDS['4'],
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'minProperties',
  'maxProperties',
  'multipleOf',
  'const',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'required',
]);

/** The document as its declared draft reads it (see above). */
export function inDeclaredDraft(root: unknown): unknown {
  if (declares(root, /draft-03/)) return fromDraft3(root);
  const later = LATER_KEYWORDS[declares(root, /draft-06/) ? '6' : schemaDraft(root)];
  let found = false;
  walkSchemas(root, (node) => {
    if (later.some((k) => Object.hasOwn(node, k))) found = true;
  });
  return found ? rewriteSchemas(root, (entries) => entries.filter(([k]) => !later.includes(k))) : root;
}

function declares(root: unknown, draft: RegExp): boolean {
  return typeof root === 'object' && root !== null && draft.test(String((root as { $schema?: unknown }).$schema ?? ''));
}

/**
 * A draft-3 document in draft 4: `divisibleBy` is `multipleOf`; `extends` (a schema or a
 * list), a `type` list that holds schemas or `any`, and `disallow` become `allOf`, `anyOf`
 * and `not`; a property whose schema says `required: true` (any value Python takes as true) joins its
 * object's `required`; a dependency on one name is a list of it; keywords draft 3 does not
 * have are dropped. (A `$ref` into a place that moves — inside `extends` or a `type` list —
 * then names nothing, an `InvalidSchemaError`.)
 */
function fromDraft3(root: unknown): unknown {
  const names = (map: unknown, each: (value: unknown) => unknown): unknown =>
    isObject(map) ? Object.fromEntries(Object.entries(map).map(([name, value]) => [name, each(value)])) : map;
  // A `type` (or `disallow`) value as a draft-4 schema: null for `any`, which allows
  // everything; names and schemas listed are the union of the named types and the schemas.
  const types = (value: unknown): Record<string, unknown> | null => {
    const listed = Array.isArray(value) ? value : [value];
    if (listed.includes('any')) return null;
    const named = listed.filter((t) => typeof t === 'string');
    const schemas = listed.filter((t) => typeof t !== 'string').map(schema);
    if (schemas.length === 0) return { type: value };
    return { anyOf: [...(named.length > 0 ? [{ type: named }] : []), ...schemas] };
  };
  function schema(node: unknown): unknown {
    if (!isObject(node)) return node;
    const kept: [string, unknown][] = [];
    const all: unknown[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties') {
        kept.push([key, names(value, schema)]);
        const required = isObject(value) ? Object.keys(value).filter((name) => isObject(value[name]) && truthy(value[name].required)) : [];
        if (required.length > 0) kept.push(['required', required]);
      } else if (key === 'patternProperties' || key === 'definitions' || key === '$defs') kept.push([key, names(value, schema)]);
      else if (key === 'dependencies') kept.push([key, names(value, (needs) => (typeof needs === 'string' ? [needs] : schema(needs)))]);
      else if (key === 'items') kept.push([key, Array.isArray(value) ? value.map(schema) : schema(value)]);
      else if (key === 'additionalItems' || key === 'additionalProperties') kept.push([key, schema(value)]);
      else if (key === 'divisibleBy') kept.push(['multipleOf', value]);
      else if (key === 'extends') all.push(...(Array.isArray(value) ? value : [value]).map(schema));
      else if (key === 'type') {
        const union = types(value);
        if (union !== null && 'type' in union) kept.push(['type', value]);
        else if (union !== null) all.push(union);
      } else if (key === 'disallow') all.push({ not: types(value) ?? {} });
      // (Any other object may be a schema a `$ref` reaches, `#/x`; data is kept as written.)
      else if (!NOT_IN_DRAFT_3.has(key)) kept.push([key, DATA.has(key) ? value : schema(value)]);
    }
    if (all.length > 0) kept.push(['allOf', all]);
    return Object.fromEntries(kept);
  }
  return schema(root);
}

// Keywords whose values are data, never schemas.
const DATA = new Set(['enum', 'default', 'examples']);

// Python's truth of a JSON value (`required: []` is false there).
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return value !== null && value !== false && value !== 0 && value !== '' && value !== undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
