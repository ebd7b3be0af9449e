/**
 * Boolean combinations of one kind's keywords, taken whole. A `not`, `anyOf` or `oneOf` whose
 * subschemas speak only of multiples (`multipleOf`), or only of strings (patterns, lengths,
 * exactly enforced formats) with such combinations nested in it, through `type`s, booleans,
 * `$ref`s, `allOf`s and conditionals, is one test of that kind (a schema of those keywords under
 * allOf/anyOf/oneOf/not, in `__multipleTests` or `__stringTests`) beside the other kinds it
 * lets through (a `type`). Its numbers become one remainder automaton (`number-schema.ts`),
 * its strings one regex (`stringContent`: and, or, not of patterns), where taking the
 * combination apart (negating, distributing) would multiply lexemes: `oneOf` of overlapping
 * multiples, `not` of an `anyOf` of `not`s of patterns.
 */
import { checkKeywordShapes } from './keyword-shapes.ts';
import { pointerJoin } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { typeList, type JsonType, type Schema, type SchemaObject, isAssertion } from './schema-keywords.ts';
import { COMPLEMENTED_FORMATS } from './string-formats.ts';

/** The kinds a test speaks of. */
export type TestKind = 'string' | 'number';

/** The keyword holding a kind's tests. */
export const TEST_KEYWORDS: Readonly<Record<TestKind, string>> = { string: '__stringTests', number: '__multipleTests' };

// The keywords a test of each kind is made of, besides combinators, types and references.
const LEAVES: Readonly<Record<TestKind, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['multipleOf'],
};

// Value kinds, numbers one kind (integers are a part a test does not tell apart: refused).
const KINDS: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'number', 'string'];

// Deepest nesting of subschemas and `$ref`s a test is read through, and most subschemas
// read (a definition used twice is read twice).
const MAX_TEST_DEPTH = 32;
const MAX_TEST_SCHEMAS = 2_000;

// What a schema says: which other kinds pass it, and the test of its own kind.
interface Verdict {
  readonly others: ReadonlySet<JsonType>;
  readonly test: Schema;
}

class NotATest extends Error {}

/**
 * The conjunct that means what `schema` (a `not`, `anyOf` or `oneOf` and nothing else) means,
 * as a type and one test of one kind (a test of one keyword as that keyword); null when it
 * is no such combination (or, of strings, one with no combination nested in it).
 */
export function kindTest(compiler: SchemaCompiler, schema: SchemaObject, pointer: string): SchemaObject | null {
  const kind = testKind(compiler, schema, pointer);
  if (kind === null) return null;
  let verdict: Verdict;
  try {
    verdict = new TestReader(compiler, kind).read(schema, pointer, 0);
  } catch (error) {
    if (error instanceof NotATest) return null;
    throw error;
  }
  // (Strings: only a combination within a combination. A single `not`, `anyOf` or `oneOf` of
  // string schemas the compiler takes apart into a few string schemas, whose contradictions
  // merges find; taken whole, its automaton would be built to find that it is empty.)
  if (kind === 'string' && nesting(verdict.test) < 2) return null;
  const types = KINDS.filter((t) => verdict.others.has(t) || (t === kind && verdict.test !== false));
  const out: Record<string, unknown> = types.length === KINDS.length ? {} : { type: types };
  const test = verdict.test;
  if (typeof test === 'object') {
    // (A test of one keyword is that keyword.)
    const [keyword, value] = Object.entries(test)[0]!;
    if (LEAVES[kind].includes(keyword)) out[keyword] = value;
    else out[TEST_KEYWORDS[kind]] = [test];
  }
  return out;
}

// How deep `not`, `anyOf` and `oneOf` nest in a test (an `allOf` adds no depth).
function nesting(test: Schema): number {
  if (typeof test === 'boolean') return 0;
  const [keyword, value] = Object.entries(test)[0]!;
  const below = Math.max(0, ...[value].flat().map((t) => (typeof t === 'object' && t !== null ? nesting(t as Schema) : 0)));
  return below + (keyword === 'allOf' || LEAVES.string.includes(keyword) ? 0 : 1);
}

// The one kind whose keywords `schema` combines (null: none, both, or something else too).
function testKind(compiler: SchemaCompiler, schema: Schema, pointer: string): TestKind | null {
  const found = new Set<TestKind>();
  let budget = MAX_TEST_SCHEMAS;
  const visit = (s: Schema, at: string, d: number): boolean => {
    if (typeof s === 'boolean') return true;
    if (d > MAX_TEST_DEPTH || --budget < 0 || typeof s !== 'object' || s === null || Array.isArray(s)) return false;
    checkKeywordShapes(s, at);
    for (const [k, v] of Object.entries(s)) {
      if (!isAssertion(k) || k === 'type') continue;
      if (k === '$ref') {
        if (typeof v !== 'string' || !visit(compiler.resolve(v, at).schema, at, d + 1)) return false;
      } else if (k === 'not' || k === 'if' || k === 'then' || k === 'else') {
        if (!visit(v as Schema, pointerJoin(at, k), d + 1)) return false;
      } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
        if (!Array.isArray(v) || !v.every((b, i) => visit(b as Schema, pointerJoin(pointerJoin(at, k), i), d + 1))) return false;
      } else {
        const kind = (Object.keys(LEAVES) as TestKind[]).find((x) => LEAVES[x].includes(k));
        if (kind === undefined) return false;
        found.add(kind);
      }
    }
    return true;
  };
  return visit(schema, pointer, 0) && found.size === 1 ? [...found][0]! : null;
}

// Reads a schema as a `Verdict` on values of `kind` and the others.
class TestReader {
  constructor(
    private readonly compiler: SchemaCompiler,
    private readonly kind: TestKind,
  ) {}

  read(schema: Schema, pointer: string, depth: number): Verdict {
    if (schema === true) return { others: this.#others(), test: true };
    if (schema === false) return { others: new Set(), test: false };
    if (depth > MAX_TEST_DEPTH) throw new NotATest();
    // (A `$ref` alone where its draft ignores siblings: the target only.)
    if (typeof schema.$ref === 'string' && this.compiler.onlyRef(schema)) {
      const target = this.compiler.resolve(schema.$ref, pointer);
      return this.read(target.schema, target.pointer, depth + 1);
    }
    const parts: Verdict[] = [];
    for (const [k, v] of Object.entries(schema)) {
      if (!isAssertion(k)) continue;
      const at = pointerJoin(pointer, k);
      if (k === '$ref') {
        const target = this.compiler.resolve(v as string, pointer);
        parts.push(this.read(target.schema, target.pointer, depth + 1));
      } else if (k === 'type') {
        parts.push(this.#type(typeList(v, pointer)));
      } else if (k === 'not') {
        parts.push(this.#not(this.read(v as Schema, at, depth + 1)));
      } else if (k === 'if' || k === 'then' || k === 'else') {
        // (`if` with its `then` and `else`, which alone assert nothing.)
        if (k === 'if') parts.push(this.#conditional(schema, pointer, depth));
      } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
        const branches = (v as Schema[]).map((b, i) => this.read(b, pointerJoin(at, i), depth + 1));
        parts.push(k === 'allOf' ? this.#all(branches) : k === 'anyOf' ? this.#any(branches) : this.#one(branches));
      } else if (k !== 'format' || COMPLEMENTED_FORMATS.has(String(v))) {
        parts.push({ others: this.#others(), test: { [k]: v } });
      } else {
        throw new NotATest(); // a format with no superset to exclude (regex), or not enforced
      }
    }
    return this.#all(parts);
  }

  // `if`, `then`, `else`: the condition and `then` hold, or neither the condition nor `else` fails.
  #conditional(schema: SchemaObject, pointer: string, depth: number): Verdict {
    const [condition, then, otherwise] = (['if', 'then', 'else'] as const).map((k) =>
      this.read((schema[k] ?? true) as Schema, pointerJoin(pointer, k), depth + 1),
    );
    return this.#any([this.#all([condition!, then!]), this.#all([this.#not(condition!), otherwise!])]);
  }

  #others(): Set<JsonType> {
    return new Set(KINDS.filter((t) => t !== this.kind));
  }

  #type(types: readonly JsonType[]): Verdict {
    if (types.includes('integer') && !types.includes('number')) throw new NotATest();
    return { others: new Set(types.filter((t) => t !== this.kind && t !== 'integer')), test: types.includes(this.kind) };
  }

  #not({ others, test }: Verdict): Verdict {
    return { others: new Set(KINDS.filter((t) => t !== this.kind && !others.has(t))), test: typeof test === 'boolean' ? !test : { not: test } };
  }

  #all(parts: readonly Verdict[]): Verdict {
    const tests = parts.map((p) => p.test).filter((t) => t !== true);
    return {
      others: new Set(KINDS.filter((t) => parts.every((p) => p.others.has(t)))),
      test: tests.includes(false) ? false : tests.length === 0 ? true : tests.length === 1 ? tests[0]! : { allOf: tests },
    };
  }

  #any(parts: readonly Verdict[]): Verdict {
    const tests = parts.map((p) => p.test).filter((t) => t !== false);
    return {
      others: new Set(KINDS.filter((t) => parts.some((p) => p.others.has(t)))),
      test: tests.includes(true) ? true : tests.length === 0 ? false : tests.length === 1 ? tests[0]! : { anyOf: tests },
    };
  }

  #one(parts: readonly Verdict[]): Verdict {
    const tests = parts.map((p) => p.test);
    return {
      others: new Set(KINDS.filter((t) => parts.filter((p) => p.others.has(t)).length === 1)),
      test: tests.every((t) => typeof t === 'boolean') ? tests.filter((t) => t).length === 1 : { oneOf: tests },
    };
  }
}
