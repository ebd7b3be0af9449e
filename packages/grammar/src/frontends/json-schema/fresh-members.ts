/**
 * Whether every object a schema allows stays allowed with one more member: a fresh name
 * (declared nowhere, matching no pattern, in no constant) and a value of any kind, or one
 * that passes the `additionalProperties` schemas met (`knownSatisfiable`). Then a
 * unique array's object item always has a way to end unlike each earlier item (write such a
 * member before its `}`), so the matcher need only refuse the `}` that would repeat one.
 *
 * Judged on the whole schema, branches and all, by what the extra member does to each
 * keyword's verdict (`Effect`), combined through `allOf`/`anyOf`/`oneOf`/`not`/conditionals:
 * the schema's branches taken apart (`candidates`) stand for more objects than it allows (a
 * `oneOf` of `required: [a]` and `minProperties: 2` allows `{"a": 1}`, both branches take a
 * member, and the `oneOf` then fails).
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';
import { endlessCompletions, matchesSomething } from '../../lexer/lexer-dfa.ts';
import { knownSatisfiable } from './satisfiable.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { isAssertion, KIND_KEYWORDS, KIND_SPECIFIC, memberSides, type Schema, type SchemaObject } from './schema-keywords.ts';
import { schemaPattern, stringContent } from './string-schema.ts';

/**
 * What the fresh member does to a verdict, for every object: `same` keeps it; `up` may turn
 * false into true, never true into false; `down` the reverse; `true`/`false` make it that;
 * `any`: not known.
 */
type Effect = 'same' | 'up' | 'down' | 'true' | 'false' | 'any';

/**
 * Whether every object `schema` allows takes one more member of a fresh name (see above):
 * a name that matches none of the `patternProperties` met, or else one that matches one of
 * them (`^x-`) and none of the others, its value one that pattern's schemas allow.
 */
export function takesFreshMember(compiler: SchemaCompiler, schema: Schema, pointer: string): boolean {
  if (compiler.parts.caps.maxProperties !== Infinity) return false;
  const patterns: string[] = [];
  if (takesNamed(compiler, schema, pointer, null, patterns)) return true;
  return [...new Set(patterns)].some((pattern) => takesNamed(compiler, schema, pointer, pattern, []));
}

// Whether every object `schema` allows takes one more member whose name matches `pattern`
// (null: none) and none of the other patterns met (gathered into `patterns`).
function takesNamed(compiler: SchemaCompiler, schema: Schema, pointer: string, pattern: string | null, patterns: string[]): boolean {
  const values: Schema[] = [];
  const effect = new FreshMember(compiler, pointer, pattern, patterns, values).of(schema, 0);
  if (effect !== 'same' && effect !== 'up' && effect !== 'true') return false;
  if (values.length > 0 && !knownSatisfiable(compiler, { allOf: values }, pointer)) return false;
  const others = patterns.filter((p) => p !== pattern);
  if (pattern === null && others.length === 0) return true;
  // Endlessly many names match the pattern and none of the others (a name written before,
  // declared or in an earlier item is one of finitely many).
  const regex = (p: string): ByteRegex => schemaPattern(compiler, p, 'search', pointer, 'patternProperties');
  const names: ByteRegex = rx.and([
    stringContent(compiler, { type: 'string' }, pointer),
    ...(pattern === null ? [] : [regex(pattern)]),
    ...(others.length === 0 ? [] : [rx.not(rx.alt(others.map(regex)))]),
  ]);
  return matchesSomething(names, MAX_NAME_STATES) === true && endlessCompletions(names, MAX_NAME_STATES);
}

// Most DFA states the proof that fresh names abound may build.
const MAX_NAME_STATES = 5_000;
// Deepest nesting of subschemas looked into (a schema may refer to itself).
const MAX_DEPTH = 16;

// Keywords that assert nothing of an object, or nothing a fresh member changes.
const OBJECT_SAME = new Set(['type', 'properties', 'required', 'dependentRequired']);
const OTHER_KINDS = new Set([...KIND_SPECIFIC].filter((k) => !KIND_KEYWORDS.object!.includes(k)));

class FreshMember {
  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly pointer: string,
    // The pattern the fresh name matches (null: none).
    private readonly chosen: string | null,
    // The patternProperties met (the fresh name matches none of them but `chosen`).
    private readonly patterns: string[],
    // The additionalProperties schemas met (the fresh member's value passes all of them).
    private readonly values: Schema[],
  ) {}

  of(schema: Schema, depth: number): Effect {
    if (typeof schema === 'boolean') return 'same';
    if (depth > MAX_DEPTH) return 'any';
    const flat = this.compiler.flatten(schema, this.pointer);
    if (flat === false) return 'same';
    // (A schema that speaks of other kinds only holds for every object, with the member too;
    // not under strict, where no additionalProperties is false.)
    if (
      this.compiler.options.strict !== true &&
      Object.keys(flat).every((k) => !isAssertion(k) || OTHER_KINDS.has(k) || (k === 'type' && [flat.type].flat().includes('object')))
    )
      return 'true';
    const effects = Object.keys(flat).map((k) => this.#keyword(flat, k, depth + 1));
    // Under strict, no additionalProperties is false (what it is inside branches and negations
    // is not looked into).
    if (this.compiler.options.strict === true && flat.additionalProperties === undefined) effects.push(depth === 0 ? 'false' : 'any');
    return all(effects);
  }

  // A subschema that allows nothing (its verdict is false before and after).
  #never(schema: unknown): boolean {
    return schema === false || (typeof schema === 'object' && schema !== null && this.compiler.flatten(schema as SchemaObject, this.pointer) === false);
  }

  #keyword(s: SchemaObject, k: string, depth: number): Effect {
    const value = s[k];
    const sub = (schema: unknown): Effect => this.of(schema as Schema, depth);
    if (!isAssertion(k) || OBJECT_SAME.has(k) || OTHER_KINDS.has(k)) return 'same';
    switch (k) {
      case 'enum':
      case 'const': {
        const values = k === 'const' ? [value] : (value as unknown[]);
        return values.some(isObject) ? 'false' : 'same';
      }
      case '__notValues':
        return (value as unknown[]).some(isObject) ? 'true' : 'same';
      case 'minProperties':
      case '__someMember':
      case '__otherWitness':
        return 'up';
      case 'maxProperties':
        return 'down';
      case 'propertyNames': {
        // No name: the empty object passes, and no longer with the member. A list of names
        // leaves the fresh one out; other name schemas are not looked into.
        if (value === true) return 'same';
        const names = value === false ? false : this.compiler.flatten(value as SchemaObject, this.pointer);
        if (names === false) return 'false';
        return Object.keys(names).every((n) => !isAssertion(n) || n === 'enum' || n === 'const' || n === 'type') &&
          (names.enum !== undefined || names.const !== undefined)
          ? 'false'
          : 'any';
      }
      case 'patternProperties':
        return this.#patterns(value as Record<string, unknown>);
      case 'additionalProperties':
        return this.#matches(s.patternProperties) ? 'same' : this.#additional(value);
      case 'unevaluatedProperties':
        return isEmptySchema(value) ? 'same' : 'any';
      case '__memberSides':
        return all(
          memberSides(s).map((side) =>
            all([this.#patterns(side.patternProperties), this.#matches(side.patternProperties) ? 'same' : this.#additional(side.additionalProperties)]),
          ),
        );
      case 'dependentSchemas':
      case 'dependencies':
        // A member declared by name brings its schema; the fresh one brings none.
        return all(Object.values(value as object).map((d) => (Array.isArray(d) ? 'same' : either(['same', sub(d)]))));
      case 'allOf':
        return all((value as unknown[]).map(sub));
      case 'anyOf':
        return any((value as unknown[]).map(sub));
      case 'oneOf':
        return one((value as unknown[]).map(sub));
      case '__oneOf':
        return all((value as unknown[][]).map((branches) => one(branches.map(sub))));
      case 'not':
        return flip(sub(value));
      case 'if':
      case 'then':
      case 'else':
        // Read once, at `if` (then and else without it assert nothing).
        return k === 'if' ? this.#conditional(s.if, s.then, s.else, depth) : 'same';
      case '__conditions':
        return all((value as unknown[][]).map(([c, t, e]) => this.#conditional(c, t, e, depth)));
      default:
        return 'any';
    }
  }

  // Patterns met: the fresh name matches the chosen one only, its value one of its schema's.
  #patterns(patterns: Readonly<Record<string, unknown>>): Effect {
    this.patterns.push(...Object.keys(patterns));
    if (this.chosen === null || !Object.hasOwn(patterns, this.chosen)) return 'same';
    const value = patterns[this.chosen];
    if (value === false) return 'false';
    if (!isEmptySchema(value)) this.values.push(value as Schema);
    return 'same';
  }

  // Whether the fresh name matches one of these patterns (the chosen one is among them).
  #matches(patterns: unknown): boolean {
    return this.chosen !== null && typeof patterns === 'object' && patterns !== null && Object.hasOwn(patterns, this.chosen);
  }

  // The fresh member is an additional one: any value when that is true, {} or left out (a
  // member side's), none when false; else a value of every such schema met, where one is
  // known (`takesFreshMember` checks), leaves each verdict as it was.
  #additional(value: unknown): Effect {
    if (value === undefined) return 'same';
    if (value === false) return 'false';
    if (!isEmptySchema(value)) this.values.push(value as Schema);
    return 'same';
  }

  // (if and then) or (not if and else), a missing branch being true.
  #conditional(condition: unknown, then: unknown, otherwise: unknown, depth: number): Effect {
    if (condition === undefined) return 'same';
    const c = this.of(condition as Schema, depth);
    const t = then === undefined ? 'same' : this.of(then as Schema, depth);
    const e = otherwise === undefined ? 'same' : this.of(otherwise as Schema, depth);
    if (c === 'same') return either([t, e]);
    // The condition settled by the member: the verdict was the other branch's, where that
    // one allows nothing (`then: false`), and is now this branch's.
    if (c === 'false' && then !== undefined && this.#never(then) && upward(e)) return e === 'true' ? 'true' : 'up';
    if (c === 'true' && otherwise !== undefined && this.#never(otherwise) && upward(t)) return t === 'true' ? 'true' : 'up';
    return 'any';
  }
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmptySchema = (v: unknown): boolean => v === true || (isObject(v) && Object.keys(v as object).every((k) => !isAssertion(k)));
const upward = (e: Effect): boolean => e === 'same' || e === 'up' || e === 'true';

// Every verdict must hold: a false one decides; true ones only help.
function all(effects: readonly Effect[]): Effect {
  if (effects.includes('false')) return 'false';
  if (effects.length > 0 && effects.every((e) => e === 'true')) return 'true';
  return either(effects.map((e) => (e === 'true' ? 'up' : e)));
}

// Some verdict must hold: a true one decides; false ones only hurt.
function any(effects: readonly Effect[]): Effect {
  if (effects.includes('true')) return 'true';
  if (effects.length > 0 && effects.every((e) => e === 'false')) return 'false';
  return either(effects.map((e) => (e === 'false' ? 'down' : e)));
}

// Exactly one verdict must hold: known only when none changes (or all turn false).
function one(effects: readonly Effect[]): Effect {
  if (effects.every((e) => e === 'same')) return 'same';
  if (effects.length > 0 && effects.every((e) => e === 'false')) return 'false';
  return 'any';
}

// The verdict is one of these, depending on the object: what holds for all of them.
function either(effects: readonly Effect[]): Effect {
  if (effects.every((e) => e === 'same')) return 'same';
  if (effects.every(upward)) return effects.every((e) => e === 'true') ? 'true' : 'up';
  if (effects.every((e) => e === 'same' || e === 'down' || e === 'false')) return effects.every((e) => e === 'false') ? 'false' : 'down';
  return 'any';
}

function flip(e: Effect): Effect {
  return e === 'up' ? 'down' : e === 'down' ? 'up' : e === 'true' ? 'false' : e === 'false' ? 'true' : e;
}
