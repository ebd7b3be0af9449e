/**
 * Closed objects whose patterns name finitely many members. With `additionalProperties:
 * false`, `patternProperties` whose patterns together match at most `MAX_PATTERN_NAMES`
 * names (anchored ones such as `^[a-e]$`) are those names as `properties`, each the
 * intersection of its declared schema and the schemas of the patterns it matches: every
 * member is then tracked by name, so names stay distinct and `minProperties` counts them.
 */
import { defineName } from '../../own-names.ts';
import { GrammarError } from '../../grammar-error.ts';
import { DEAD, LexerDfa } from '../../lexer/lexer-dfa.ts';
import { DEFAULT_LIMITS } from '../../limits.ts';
import { regexToByteRegex } from '../regex.ts';
import { type Schema, type SchemaObject } from './schema-keywords.ts';

/** Most names the patterns of a closed object may match for them to become properties. */
export const MAX_PATTERN_NAMES = 64;

// Longest name (UTF-8 bytes) looked for; a pattern matching longer ones is taken as endless.
const MAX_NAME_BYTES = 128;

/** `schema` with the names its closed patterns match as properties (itself where they are not finitely many). */
export function namedPatterns(schema: SchemaObject): SchemaObject {
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  if (schema.additionalProperties !== false || schema.__memberSides !== undefined || patterns === undefined) return schema;
  if (typeof patterns !== 'object' || patterns === null || Object.keys(patterns).length === 0) return schema;
  const matching = new Map<string, Schema[]>(); // a name → the schemas of the patterns it matches
  for (const [pattern, value] of Object.entries(patterns)) {
    const names = patternNames(pattern);
    if (names === null) return schema;
    for (const name of names) matching.set(name, [...(matching.get(name) ?? []), value]);
    if (matching.size > MAX_PATTERN_NAMES) return schema;
  }
  const declared = (schema.properties ?? {}) as Record<string, Schema>;
  const properties: Record<string, Schema> = { ...declared };
  for (const [name, values] of matching) {
    const all = Object.hasOwn(declared, name) ? [declared[name]!, ...values] : values;
    defineName(properties, name, all.length === 1 ? all[0]! : { allOf: all });
  }
  const named: Record<string, unknown> = { ...schema, properties };
  delete named.patternProperties;
  return named;
}

// The names an ECMAScript pattern matches somewhere in, when they are at most
// MAX_PATTERN_NAMES (null otherwise, or for a pattern the regex front-end refuses): a
// depth-first walk of its automaton, bounded by the names found and their length.
function patternNames(pattern: string): string[] | null {
  let lexer: LexerDfa;
  try {
    lexer = new LexerDfa([{ name: 'NAME', regex: regexToByteRegex(pattern, { mode: 'search', flags: 'u', annexB: true }) }], [], DEFAULT_LIMITS);
  } catch (error) {
    if (error instanceof GrammarError) return null;
    throw error;
  }
  const names: string[] = [];
  const bytes: number[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const walk = (state: number): boolean => {
    if (bytes.length > MAX_NAME_BYTES) return false;
    if (lexer.accepting(state).length > 0 && names.push(decoder.decode(Uint8Array.from(bytes))) > MAX_PATTERN_NAMES) return false;
    const row = lexer.row(state).slice(); // (rows are cached: a walk below may evict this one)
    for (let byte = 0; byte < 256; byte++) {
      if (row[byte] === DEAD) continue;
      bytes.push(byte);
      const finite = walk(row[byte]!);
      bytes.pop();
      if (!finite) return false;
    }
    return true;
  };
  const start = lexer.start([0]);
  return start === DEAD || walk(start) ? names : null;
}
