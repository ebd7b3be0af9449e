/**
 * Objects: `{ ws members }`. The members the parser tracks by name (declared properties,
 * required names, names dependencies mention) are rules of their own; every other member is
 * one rule (`other`) whose key is no tracked name, matched by a pattern or else taking the
 * additional schema. How members are arranged (any order, each at most once) is
 * `object-permutation.ts`.
 */
import { matchesBytes, rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { matchesSomething } from '../../lexer/lexer-dfa.ts';
import { ANY } from '../../ir/code-point-sets.ts';
import { expr, MAX_PERMUTATION_MEMBERS, type Expr } from '../../ir/grammar-ir.ts';
import { jsonChars, jsonString, jsonStringBytes, jsonStringSpellings } from './json-strings.ts';
import { propertyDependencies, type PropertyDependencies } from './object-dependencies.ts';
import { orderedMembers, permutedMembers, type MemberRules } from './object-permutation.ts';
import { InvalidSchemaError, pointerJoin } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { witnessedByValue } from './schema-candidates.ts';
import {
  capped,
  KNOWN,
  matchingSchemas,
  memberSides,
  nonNegativeInt,
  KEY_KEYWORDS,
  KIND_KEYWORDS,
  INTERNAL,
  safeTest,
  typeList,
  type MemberWitness,
  type Schema,
  type SchemaObject,
} from './schema-keywords.ts';
import { schemaPattern, stringRegex } from './string-schema.ts';

/** Most patterns one `patternProperties` may have. */
export const MAX_PATTERN_PROPERTIES = 32;
/**
 * Most sets of those patterns that some key matches together (keys are told apart by the set
 * they match, a key lexeme each): 63, every set of 6 overlapping patterns; far more patterns
 * fit when few overlap (names per language, `^contacts:[0-3]:surName$`, …).
 */
export const MAX_PATTERN_SETS = 63;
// Automaton states one check that patterns share a key may build.
const MAX_OVERLAP_STATES = 20_000;

/** What an object schema says of its members. */
export interface ObjectShape extends PropertyDependencies {
  /** The members tracked by name, in order: declared, then required, then named by dependencies. */
  readonly names: readonly string[];
  readonly required: ReadonlySet<string>;
  readonly minProperties: number;
  readonly maxProperties: number;
}

/** The grammar of the objects an object schema allows. */
export function objectExpr(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): Expr {
  const parts = compiler.parts;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if (typeof properties !== 'object' || Array.isArray(properties)) {
    throw new InvalidSchemaError(pointer, 'properties', 'properties must be an object');
  }
  const additional: Schema = schema.additionalProperties !== undefined ? (schema.additionalProperties as Schema) : compiler.options.strict ? false : true;
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>);
  const shape = objectShape(compiler, schema, pointer, properties, additional, patterns);
  if (shape === null) return expr.alt([]);
  const keyRegex = propertyNamesRegex(compiler, schema, pointer);
  const sides = memberSides(schema).map((side) => ({
    patterns: Object.entries(side.patternProperties) as [string, Schema][],
    additional: side.additionalProperties as Schema | undefined,
  }));
  const members = new ObjectMembers(compiler, pointer, { properties, additional, patterns, sides }, shape, keyRegex);
  // Members no name tracks that must be present, a distinct one each (see `MemberWitness`).
  const witnesses = ((schema.__otherWitness ?? []) as MemberWitness[]).map((w) => members.witness(w));
  // (A name written twice is one member to a parser: the matcher keeps those names distinct.)
  if (members.other !== null && shape.minProperties >= 2) compiler.otherKeysCounted = true;
  if (members.other !== null && witnessedByValue(compiler, schema, pointer)) compiler.otherKeysWitnessed = true;
  const body =
    shape.names.length <= MAX_PERMUTATION_MEMBERS
      ? permutedMembers(compiler, shape, members, witnesses)
      : orderedMembers(compiler, shape, members, pointer, witnesses);
  return expr.seq([parts.token('{'), parts.ws(), body, parts.token('}')]);
}

// The schemas an object's members take: by name, by pattern or else the additional schema,
// and so on each more side (`MemberSide`: one with no additional schema holds only where its
// patterns match).
interface MemberSchemas {
  readonly properties: Record<string, Schema>;
  readonly additional: Schema;
  readonly patterns: readonly [string, Schema][];
  readonly sides: readonly { readonly patterns: readonly [string, Schema][]; readonly additional: Schema | undefined }[];
}

// The member rules of one object schema: each tracked member a rule of its own, built once
// and referenced from every place it may go; the other members one rule.
class ObjectMembers implements MemberRules {
  readonly base: string;
  readonly other: Expr | null;
  readonly #spellings: Map<string, ByteRegex>;
  readonly #rules = new Map<string, Expr>();

  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly pointer: string,
    private readonly schemas: MemberSchemas,
    private readonly shape: ObjectShape,
    private readonly keyRegex: ByteRegex | null,
  ) {
    this.base = compiler.ruleName(`object:${pointer}`);
    this.#spellings = new Map(shape.names.map((name) => [name, jsonStringSpellings(name)]));
    this.other = this.#otherRule();
  }

  member(name: string): Expr {
    let ref = this.#rules.get(name);
    if (ref === undefined) {
      const rule = `${this.base}.${this.#rules.size}`;
      const key = this.#keyLexeme(name);
      const value = this.compiler.schemaExpr(this.#memberSchema(name), pointerJoin(pointerJoin(this.pointer, 'properties'), name));
      this.compiler.parts.builder.rules.set(rule, expr.seq([key, this.compiler.parts.keySeparator(), value]));
      this.#rules.set(name, (ref = expr.ref(rule)));
    }
    return ref;
  }

  // A member's value satisfies its `properties` schema and every pattern its name matches;
  // a name neither declared nor matched takes the additional schema, and the same on each
  // side (names declared are the sides' already: see `MemberSide`).
  #memberSchema(name: string): Schema {
    const { properties, additional, patterns, sides } = this.schemas;
    const matched = matchingSchemas(patterns, name) as Schema[];
    if (Object.hasOwn(properties, name)) return matched.length === 0 ? properties[name]! : { allOf: [properties[name]!, ...matched] };
    const all = [{ patterns, additional }, ...sides].flatMap((side) => {
      const here = matchingSchemas(side.patterns, name) as Schema[];
      return here.length > 0 ? here : side.additional !== undefined ? [side.additional] : [];
    });
    return all.length === 0 ? true : all.length === 1 ? all[0]! : { allOf: all };
  }

  #keyLexeme(name: string): Expr {
    const key = this.#spellings.get(name)!;
    return this.compiler.parts.lexeme(JSON.stringify(name), this.keyRegex === null ? key : rx.and([key, this.keyRegex]));
  }

  // Other members: keys not tracked, matched by a pattern or else the additional schema.
  // Any string but the tracked names (no pattern, no propertyNames, no length cap) is a
  // string lexeme that excludes the names' lexemes (`LexemeDef.excludes`: exact there, as
  // every unfinished string still has endings that are no name); otherwise the key is the
  // intersection with the names' complement, built as one automaton.
  #otherRule(): Expr | null {
    const parts = this.compiler.parts;
    const names = this.shape.names;
    const excluding = names.length > 0 && this.schemas.patterns.length === 0 && this.keyRegex === null && parts.caps.maxStringLength === Infinity;
    const declared = excluding ? names.map((name) => this.#keyLexeme(name)) : undefined;
    const others = this.#regions().map(({ label, regex, schema, at }) => {
      const key = parts.lexeme(label, this.#otherKey(regex, !excluding), undefined, label === 'KEY' ? declared : undefined);
      return expr.seq([key, parts.keySeparator(), this.compiler.schemaExpr(schema, at)]);
    });
    if (others.length === 0) return null;
    parts.builder.rules.set(`${this.base}.other`, expr.alt(others));
    return expr.ref(`${this.base}.other`);
  }

  /**
   * A member no name tracks that the witness speaks of (`__otherWitness`): in each region of
   * other keys, keys the witness allows, values with its schema too.
   */
  witness(witness: MemberWitness): Expr {
    const { compiler, pointer } = this;
    const parts = compiler.parts;
    const quoted = (p: string): ByteRegex => jsonString(schemaPattern(compiler, p, 'search', pointer, 'patternProperties'));
    const allowed = rx.and([
      ...(witness.names.length > 0 ? [rx.not(rx.alt(witness.names.map((n) => jsonStringSpellings(n))))] : []),
      ...(witness.patterns.length > 0 ? [rx.not(rx.alt(witness.patterns.map(quoted)))] : []),
      ...witness.matches.map(quoted),
      ...witness.keys.map((key) => keyRegex(compiler, key, pointer)),
    ]);
    const choices = this.#regions().map(({ label, regex, schema, at }) => {
      const key = parts.lexeme(`${label}?`, rx.and([this.#otherKey(regex, true), allowed]));
      return expr.seq([key, parts.keySeparator(), compiler.schemaExpr({ allOf: [schema, witness.schema] }, at)]);
    });
    return expr.alt(choices);
  }

  // A key no name tracks (spelled as the names are, `jsonChars`: a key that decodes to a
  // declared name is one of its spellings, so it is that member's, never another key), in
  // `region`; the names excluded by the regex when `exclude` (else by the lexer).
  #otherKey(region: ByteRegex | null, exclude: boolean): ByteRegex {
    const names = this.shape.names;
    return rx.and([
      jsonString(rx.repeat(jsonChars(ANY), 0, this.compiler.parts.caps.maxStringLength)),
      ...(exclude && names.length > 0 ? [rx.not(rx.alt([...this.#spellings.values()]))] : []),
      ...(this.keyRegex ? [this.keyRegex] : []),
      ...(region ? [region] : []),
    ]);
  }

  // The keys no name tracks, by the set of patterns they match (a region each: those patterns
  // and none of the others; regions that match nothing drop out of the grammar), values by all
  // of theirs; keys no pattern matches take the additional schema (`KEY`). With more sides,
  // the regions of every side's regions together (values by each one's schemas).
  #regions(): Region[] {
    const { additional, patterns, sides } = this.schemas;
    let regions = this.#sideRegions(patterns, additional);
    for (const side of sides) {
      const more = this.#sideRegions(side.patterns, side.additional ?? true);
      // (Keys in both regions, where some are: one too large to check counts as some.)
      regions = regions.flatMap((a) =>
        more.flatMap((b) => {
          const regex = a.regex === null ? b.regex : b.regex === null ? a.regex : rx.and([a.regex, b.regex]);
          if (regex !== null && matchesSomething(regex, MAX_OVERLAP_STATES) === false) return [];
          return [{ label: `${a.label}+${b.label}`, regex, schema: b.schema === true ? a.schema : { allOf: [a.schema, b.schema] }, at: this.pointer }];
        }),
      );
      if (regions.length > MAX_PATTERN_SETS) {
        this.compiler.unsupported(
          this.pointer,
          'patternProperties',
          `patterns that keys match in more than ${MAX_PATTERN_SETS} combinations are not supported`,
        );
        regions.length = MAX_PATTERN_SETS;
      }
    }
    return regions;
  }

  // The regions of one side's patterns and additional schema (see `#regions`).
  #sideRegions(patterns: readonly [string, Schema][], additional: Schema): Region[] {
    const { compiler, pointer } = this;
    const patternRegexes = patterns.map(([p]) => jsonString(schemaPattern(compiler, p, 'search', pointer, 'patternProperties')));
    if (patterns.length > MAX_PATTERN_PROPERTIES) {
      compiler.unsupported(pointer, 'patternProperties', `more than ${MAX_PATTERN_PROPERTIES} patterns in patternProperties are not supported`);
    }
    const at = (p: string): string => pointerJoin(pointerJoin(pointer, 'patternProperties'), p);
    const count = Math.min(patterns.length, MAX_PATTERN_PROPERTIES);
    const regions: Region[] = [];
    for (const inside of sharedPatternSets(patternRegexes.slice(0, count))) {
      if (regions.length === MAX_PATTERN_SETS) {
        compiler.unsupported(pointer, 'patternProperties', `patterns that keys match in more than ${MAX_PATTERN_SETS} combinations are not supported`);
        break;
      }
      const outside = patternRegexes.filter((_, i) => i < count && !inside.includes(i));
      const regex = rx.and([...inside.map((i) => patternRegexes[i]!), ...(outside.length > 0 ? [rx.not(rx.alt(outside))] : [])]);
      const label = inside.map((i) => `/${patterns[i]![0]}/`).join('&');
      if (inside.length === 1) regions.push({ label, regex, schema: patterns[inside[0]!]![1], at: at(patterns[inside[0]!]![0]) });
      else regions.push({ label, regex, schema: { allOf: inside.map((i) => patterns[i]![1]) }, at: pointer });
    }
    if (additional !== false) {
      const unmatched = patternRegexes.length === 0 ? null : rx.not(rx.alt(patternRegexes));
      regions.push({ label: 'KEY', regex: unmatched, schema: additional, at: pointerJoin(pointer, 'additionalProperties') });
    }
    return regions;
  }
}

// Keys no name tracks that take the same schemas: a key lexeme each (`label`), in `regex`
// (null: any key).
interface Region {
  readonly label: string;
  readonly regex: ByteRegex | null;
  readonly schema: Schema;
  readonly at: string;
}

/**
 * Every name an object schema may track (declared, required, named by dependencies): a
 * superset of `ObjectShape.names`.
 */
export function trackedNames(schema: SchemaObject): string[] {
  const names = new Set([...Object.keys((schema.properties ?? {}) as object), ...(Array.isArray(schema.required) ? (schema.required as string[]) : [])]);
  for (const keyword of ['dependentRequired', 'dependencies', 'dependentSchemas']) {
    const value = schema[keyword];
    if (typeof value !== 'object' || value === null) continue;
    for (const [name, dependent] of Object.entries(value)) {
      names.add(name);
      if (Array.isArray(dependent)) for (const n of dependent) names.add(String(n));
      const excluded = (dependent as SchemaObject | null)?.not as SchemaObject | undefined;
      if (Array.isArray(excluded?.required)) for (const n of excluded.required) names.add(String(n));
    }
  }
  return [...names];
}

// The members tracked by name and the counts and dependencies that bound them; null when
// a required name can be no member.
function objectShape(
  compiler: SchemaCompiler,
  schema: SchemaObject,
  pointer: string,
  properties: Record<string, Schema>,
  additional: Schema,
  patterns: readonly [string, Schema][],
): ObjectShape | null {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const minProperties = nonNegativeInt(schema.minProperties, pointer, 'minProperties') ?? 0;
  const maxOwn = nonNegativeInt(schema.maxProperties, pointer, 'maxProperties');
  const maxProperties = capped(maxOwn, compiler.parts.caps.maxProperties, Math.max(minProperties, required.size));
  // Declared members, in order; required names not declared are members too.
  const names = Object.keys(properties);
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) {
      if (additional === false && !patterns.some(([p]) => safeTest(p, name))) return null;
      names.push(name);
    }
  }
  // dependentRequired (and the array form of draft 4-7 `dependencies`): names it mentions
  // are members too, so the parser knows when they are written.
  const { dependencies, exclusive } = propertyDependencies(compiler, schema, pointer);
  if ((dependencies.size > 0 || exclusive.length > 0) && (minProperties > 0 || maxProperties !== Infinity)) {
    compiler.unsupported(pointer, 'dependentRequired', 'dependentRequired together with minProperties/maxProperties is not supported');
    dependencies.clear(); // lenient: left unenforced
    exclusive.length = 0;
  }
  const named = new Set(names);
  for (const n of [...dependencies].flatMap(([name, needs]) => [name, ...needs]).concat(exclusive.flat())) {
    if (!named.has(n)) {
      named.add(n);
      names.push(n);
    }
  }
  return { names, required, minProperties, maxProperties, dependencies, exclusive };
}

// propertyNames as a key regex (string schemas only), or null.
/**
 * The sets of patterns (indexes, ascending) that some key matches together: a set is grown
 * one pattern at a time only while their intersection matches something (checked on its
 * automaton; one too large to check counts as shared), so patterns that never overlap make
 * one set each, not 2^n. A set's keys may still all match another pattern too: its region
 * then matches nothing and drops out of the grammar.
 */
function sharedPatternSets(patterns: readonly ByteRegex[]): number[][] {
  const sets: number[][] = [];
  const grow = (inside: number[], shared: ByteRegex | null, from: number): void => {
    for (let i = from; i < patterns.length && sets.length <= MAX_PATTERN_SETS; i++) {
      const both = shared === null ? patterns[i]! : rx.and([shared, patterns[i]!]);
      if (shared !== null && matchesSomething(both, MAX_OVERLAP_STATES) === false) continue;
      sets.push([...inside, i]);
      grow([...inside, i], both, i + 1);
    }
  };
  grow([], null, 0);
  return sets;
}

const OTHER_THAN_STRINGS = new Set([...KIND_KEYWORDS.object!, ...KIND_KEYWORDS.array!, ...KIND_KEYWORDS.number!]);

function propertyNamesRegex(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): ByteRegex | null {
  const names = schema.propertyNames;
  if (names === undefined || names === true) return null;
  if (names === false) return rx.nothing;
  const at = pointerJoin(pointer, 'propertyNames');
  const flat = compiler.flatten(names as SchemaObject, at);
  if (flat === false) return rx.nothing;
  // (The compiler's own keywords too: a conditional is `__conditions` once flattened. Those of
  // arrays, objects and numbers say nothing of a name, a string.)
  const keys = Object.keys(flat).filter((k) => (KNOWN.has(k) || INTERNAL.has(k)) && !OTHER_THAN_STRINGS.has(k));
  // (A name is a string: a schema of other types allows none.)
  if (flat.type !== undefined && !typeList(flat.type, at).includes('string')) return rx.nothing;
  if (keys.some((k) => !KEY_KEYWORDS.has(k))) {
    compiler.unsupported(at, 'propertyNames', 'propertyNames must be a string schema (type, length, pattern, format, enum, const)');
    return null;
  }
  return keyRegex(compiler, flat, at);
}

/**
 * The keys (JSON strings, quotes included) a string schema allows: its lengths, patterns,
 * formats, constants, and those a `not` excludes (`KEY_KEYWORDS`; a type is taken to include
 * strings). The keys of `propertyNames`, and of a member witness (`MemberWitness.keys`).
 */
export function keyRegex(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): ByteRegex {
  const content = stringRegex(compiler, schema, pointer, (schema.__notValues ?? []) as unknown[]);
  if (schema.enum === undefined && schema.const === undefined) return content;
  const values = (schema.const !== undefined ? [schema.const] : (schema.enum as unknown[])).filter((v): v is string => typeof v === 'string');
  return rx.and([content, rx.alt(values.map((v) => jsonStringSpellings(v)))]);
}

/** Whether the property name `name` satisfies a key's string schema (as `keyRegex` reads it). */
export function keyHolds(compiler: SchemaCompiler, schema: SchemaObject, name: string, pointer: string): boolean {
  return matchesBytes(keyRegex(compiler, schema, pointer), jsonStringBytes(name));
}
