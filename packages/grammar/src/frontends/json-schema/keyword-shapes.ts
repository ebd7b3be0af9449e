/**
 * Keywords must hold values of their shape (schemas where schemas go, strings where names
 * go): checked before any is used, so a wrong value is an InvalidSchemaError at its place,
 * not a failure deep in the compiler. Numbers are checked where they are read.
 */
import { InvalidSchemaError } from './schema-error.ts';
import type { SchemaObject } from './schema-keywords.ts';

const isSchema = (value: unknown): boolean => typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
const isNameList = (value: unknown): boolean => Array.isArray(value) && value.every((v) => typeof v === 'string');

// Keywords whose value is a schema, a non-empty list of schemas, or a map of schemas.
const SUBSCHEMA = [
  'not',
  'additionalProperties',
  'additionalItems',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** Throws an `InvalidSchemaError` at `pointer` for the first keyword whose value has the wrong shape. */
export function checkKeywordShapes(schema: SchemaObject, pointer: string): void {
  const wrong = (keyword: string, what: string): never => {
    throw new InvalidSchemaError(pointer, keyword, `${keyword} must be ${what}`);
  };
  for (const keyword of SUBSCHEMA) {
    if (schema[keyword] !== undefined && !isSchema(schema[keyword])) wrong(keyword, 'a schema (an object or a boolean)');
  }
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = schema[keyword];
    if (list !== undefined && !(Array.isArray(list) && list.length > 0 && list.every(isSchema))) wrong(keyword, 'a non-empty array of schemas');
  }
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = schema[keyword];
    const isMap = isSchema(map) && typeof map === 'object' && Object.values(map as object).every(isSchema);
    if (map !== undefined && !isMap) wrong(keyword, 'an object whose values are schemas');
  }
  const items = schema.items;
  if (items !== undefined && !isSchema(items) && !(Array.isArray(items) && items.every(isSchema))) {
    wrong('items', 'a schema (or, before draft 2020-12, an array of schemas)');
  }
  if (schema.required !== undefined && !isNameList(schema.required) && typeof schema.required !== 'boolean') {
    wrong('required', 'an array of property names');
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) wrong('enum', 'an array');
  for (const keyword of ['pattern', 'format', '$ref']) {
    if (schema[keyword] !== undefined && typeof schema[keyword] !== 'string') wrong(keyword, 'a string');
  }
  const dependent = schema.dependentRequired;
  const isDependentMap = isSchema(dependent) && typeof dependent === 'object' && Object.values(dependent as object).every(isNameList);
  if (dependent !== undefined && !isDependentMap) {
    wrong('dependentRequired', 'an object whose values are arrays of property names');
  }
}
