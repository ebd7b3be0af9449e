// The JSON Schema oracle (ajv, draft 2020-12 with ajv-formats) and the ways a JSON value is
// written as text: JSON.stringify, Python's json.dumps, and indented.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import {
  compileGrammar,
  jsonSchemaGrammar,
  pythonJson,
  recognize,
  SchemaError,
  type CompiledGrammar,
  type GrammarLimits,
  type JsonSchemaOptions,
} from '../../src/index.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

// Patterns as Sieve reads them: ECMAScript with the u flag, and identity escapes such as `\"`
// or `\-`, which the u flag refuses, as JavaScript reads them without it (Annex B).
const schemaRegExp = Object.assign(
  (pattern: string, flags: string): RegExp => {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      if (!flags.includes('u')) throw error;
      return new RegExp(pattern, flags.replace('u', ''));
    }
  },
  { code: 'new RegExp' },
);
const ajv = new Ajv2020({ strict: false, validateSchema: false, logger: false, allErrors: false, code: { regExp: schemaRegExp } });
// The formats draft 2020-12 defines; ajv-formats' extra ones (int32, float, ...) are OpenAPI's
// and stay annotations, as the spec and Sieve have them.
addFormats(ajv, [
  'date',
  'time',
  'date-time',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'uri-template',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
  'regex',
]);
// ajv-formats' uri wants a non-empty hier-part; RFC 3986 also allows an empty path ("about:",
// "urn:?q"). Checked by giving the empty path one character.
const ajvUri = fullFormats.uri as (uri: string) => boolean;
const isUri = (s: string): boolean => ajvUri(s) || (/^[a-z][a-z0-9+\-.]*:(?=[?#]|$)/i.test(s) && ajvUri(s.replace(':', ':x')));
ajv.addFormat('uri', isUri);
// ajv-formats' uri-template refuses what RFC 6570, as the JSON Schema test suite reads it,
// allows: an apostrophe in a literal and a dot between the characters of a variable name.
// Checked with those spelled as characters it takes.
const ajvUriTemplate = fullFormats['uri-template'] as RegExp;
const dotInName = /(?<=[A-Za-z0-9_]|%[0-9a-fA-F]{2})\.(?=[A-Za-z0-9_%])/g;
ajv.addFormat('uri-template', (s: string) => ajvUriTemplate.test(s.replace(/\{[^}]*\}|'/g, (m) => (m === "'" ? 'a' : m.replace(dotInName, '_')))));
// IRIs (RFC 3987), which ajv-formats lacks: an IRI is a URI once its characters beyond ASCII,
// which must be ucschar (or iprivate in the query), are percent-encoded (section 3.1).
const ucschar = (c: number): boolean =>
  c >= 0xa0 &&
  c < 0xf0000 &&
  !(c >= 0xd800 && c < 0xf900) &&
  !(c >= 0xfdd0 && c < 0xfdf0) &&
  !(c >= 0xfff0 && c <= 0xffff) &&
  (c & 0xfffe) !== 0xfffe &&
  !(c >= 0xe0000 && c < 0xe1000);
const iprivate = (c: number): boolean => (c >= 0xe000 && c <= 0xf8ff) || (c >= 0xf0000 && (c & 0xfffe) !== 0xfffe);
function iriAsUri(iri: string): string | null {
  let part: 'path' | 'query' | 'fragment' = 'path';
  let uri = '';
  for (const ch of iri) {
    if (ch === '#') part = 'fragment';
    else if (ch === '?' && part === 'path') part = 'query';
    const c = ch.codePointAt(0)!;
    if (c < 0x80) uri += ch;
    else if (ucschar(c) || (part === 'query' && iprivate(c))) uri += encodeURIComponent(ch);
    else return null;
  }
  return uri;
}
const ajvUriReference = fullFormats['uri-reference'] as RegExp;
ajv.addFormat('iri', (s: string) => {
  const uri = iriAsUri(s);
  return uri !== null && isUri(uri);
});
ajv.addFormat('iri-reference', (s: string) => {
  const uri = iriAsUri(s);
  return uri !== null && ajvUriReference.test(uri);
});
// ajv-formats' email wants a dot in the domain, and takes neither quoted local parts nor
// address literals; RFC 5321's Mailbox has all three ("user@localhost", `"joe bloggs"@x.org`,
// `joe@[127.0.0.1]`, `joe@[IPv6:::1]`, valid in the JSON-Schema-Test-Suite). Checked by parts:
// a quoted local part by RFC 5321's Quoted-string, the rest by ajv's email (a one-label
// domain given a second label), an address literal by ajv's ipv4 or ipv6.
const ajvEmail = fullFormats.email as RegExp;
const ajvIpv4 = fullFormats.ipv4 as RegExp;
const ajvIpv6 = fullFormats.ipv6 as RegExp;
ajv.addFormat('email', (s: string) => {
  const at = s.lastIndexOf('@');
  if (at < 0) return false;
  const local = /^"(?:[ !#-[\]-~]|\\[ -~])*"$/.test(s.slice(0, at)) ? 'quoted' : s.slice(0, at);
  const domain = s.slice(at + 1);
  const literal = /^\[(IPv6:)?(.*)\]$/s.exec(domain);
  if (literal !== null) return (literal[1] === undefined ? ajvIpv4 : ajvIpv6).test(literal[2]!) && ajvEmail.test(`${local}@x.x`);
  return ajvEmail.test(`${local}@${domain.includes('.') ? domain : `${domain}.x`}`);
});

/** An ajv validator for `schema` (draft 2020-12, formats asserted; see `draft2020`). */
export function ajvValidator(schema: unknown): ValidateFunction {
  return ajv.compile(draft2020(schema) as object);
}

function isLegacyDraft(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && /draft-0[4-7]/.test(String((schema as { $schema?: unknown }).$schema ?? ''));
}

// Draft 4 has no conditionals: there these are unknown keywords.
const CONDITIONALS = new Set(['if', 'then', 'else']);
function isDraft4(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && /draft-0[34]/.test(String((schema as { $schema?: unknown }).$schema ?? ''));
}

const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
// Keywords whose values map names to schemas: the names are no keywords (a property may be
// called `dependencies` or `if`).
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

// What may stay beside a `$ref` in drafts 4-7, where its other siblings are ignored.
const BESIDE_LEGACY_REF = new Set(['$ref', '$schema', '$id', 'definitions', '$defs']);

/**
 * The draft 4-7 spellings real schemas use, in their 2020-12 form (as the compiler reads them):
 * `items: [...]` + `additionalItems` as `prefixItems` + `items`, boolean `exclusiveMinimum`/
 * `exclusiveMaximum` as numbers, `dependencies` as `dependentRequired`/`dependentSchemas`, the
 * draft-4 `id` dropped (ajv refuses it) or, as a legacy `$id`, an `$anchor` when it is a fragment
 * alone (`"#name"`), and, when the root's `$schema` names draft 4 to 7,
 * the keywords beside a `$ref` dropped (those drafts ignore them), and under draft 4 `if`/`then`/`else`
 * dropped (unknown keywords there).
 */
export function draft2020(schema: unknown, legacyRef = isLegacyDraft(schema), draft4 = isDraft4(schema)): unknown {
  if (Array.isArray(schema)) return schema.map((s) => draft2020(s, legacyRef, draft4));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    // Draft 4's `id`, and a legacy draft's `$id`, that is a fragment alone names an anchor.
    if ((k === 'id' && typeof v === 'string') || (k === '$id' && legacyRef && typeof v === 'string' && v.startsWith('#'))) {
      if (v.startsWith('#') && (k === '$id' || draft4)) out.$anchor = v.slice(1);
      continue;
    }
    if (legacyRef && typeof s.$ref === 'string' && !BESIDE_LEGACY_REF.has(k)) continue;
    if (draft4 && CONDITIONALS.has(k)) continue;
    if (DATA_KEYWORDS.has(k)) out[k] = v;
    else if (SCHEMA_MAPS.has(k) && v !== null && typeof v === 'object' && !Array.isArray(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, draft2020(sub, legacyRef, draft4)]));
    else out[k] = draft2020(v, legacyRef, draft4);
  }
  // Draft 4-7 `dependencies`: lists of names are dependentRequired, schemas dependentSchemas.
  if (s.dependencies !== null && typeof s.dependencies === 'object' && !Array.isArray(s.dependencies)) {
    const entries = Object.entries(s.dependencies as Record<string, unknown>);
    const lists = entries.filter(([, v]) => Array.isArray(v));
    const schemas = entries.filter(([, v]) => !Array.isArray(v));
    delete out.dependencies;
    // (Beside the 2020-12 keywords, when a schema has both: both hold, name by name.)
    const both = (keyword: string, entries: [string, unknown][], join: (x: unknown, y: unknown) => unknown): Record<string, unknown> => {
      const map = { ...((out[keyword] as Record<string, unknown> | undefined) ?? {}) };
      for (const [k, v] of entries) map[k] = Object.hasOwn(map, k) ? join(map[k], v) : v;
      return map;
    };
    if (lists.length > 0) out.dependentRequired = both('dependentRequired', lists, (x, y) => [...(x as string[]), ...(y as string[])]);
    if (schemas.length > 0) {
      out.dependentSchemas = both(
        'dependentSchemas',
        schemas.map(([k, v]) => [k, draft2020(v, legacyRef, draft4)]),
        (x, y) => ({ allOf: [x, y] }),
      );
    }
  }
  if (Array.isArray(s.items)) {
    out.prefixItems = out.items;
    delete out.items;
    if (s.additionalItems !== undefined) out.items = out.additionalItems;
    delete out.additionalItems;
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof s[flag] !== 'boolean') continue;
    if (s[flag] === true && typeof s[bound] === 'number') {
      out[flag] = s[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
  return out;
}

/** Compiles a schema to a grammar (throws `SchemaError`). */
export function compileSchema(schema: unknown, options: JsonSchemaOptions = {}, limits: Partial<GrammarLimits> = {}): CompiledGrammar {
  return compileGrammar(jsonSchemaGrammar(schema, options).grammar, limits);
}

const encoder = new TextEncoder();

/** Whether the grammar accepts `text` as a complete sentence. */
export function accepts(grammar: CompiledGrammar, text: string): boolean {
  const result = recognize(grammar, encoder.encode(text));
  return result.accepted && result.complete;
}

/** The distinct texts of one value: JSON.stringify, Python style, and (optionally) indented. */
export function jsonTexts(value: unknown, indented: boolean): string[] {
  const texts = [JSON.stringify(value), pythonJson(value)];
  if (indented) texts.push(JSON.stringify(value, null, 2));
  return [...new Set(texts)];
}

/** The longest run of whitespace outside strings in a JSON text. */
export function longestWhitespaceRun(text: string): number {
  let longest = 0;
  let run = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      longest = Math.max(longest, ++run);
      continue;
    }
    run = 0;
    if (c === '"') inString = true;
  }
  return longest;
}

/** The `SchemaError` compiling `schema` throws, or undefined when it compiles. */
export function schemaErrorOf(schema: unknown, options: JsonSchemaOptions = {}): SchemaError | undefined {
  try {
    jsonSchemaGrammar(schema, options);
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  return undefined;
}
