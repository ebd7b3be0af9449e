/**
 * Whether a concrete value satisfies a schema, by an exact validator (@cfworker/json-schema):
 * how enum / const values are checked against the rest of their schema, and how disjointness
 * of `oneOf` branches is proven from their constants.
 */
import { format as cfFormats, validate as validateInstance, type Schema as CfSchema } from '@cfworker/json-schema';
import { GrammarError } from '../../grammar-error.ts';
import { matchesBytes } from '../../ir/byte-regex.ts';
import { spellAnnexB } from '../regex.ts';
import { jsonStringBytes } from './json-strings.ts';
import { ASCII_TWINS, FORMAT_PATTERNS, FORMAT_SUPERSETS, formatAnswer, UNSUPPORTED_FORMATS } from './string-formats.ts';
import { formatOrSuperset, formatRegex } from './string-schema.ts';
import { InvalidSchemaError, SchemaError } from './schema-error.ts';
import type { SchemaCompiler } from './schema-compiler.ts';
import { witnessCounts, type MemberSide, type MemberWitness, type SchemaObject, type Witness } from './schema-keywords.ts';
import type { SchemaDraft } from './schema-refs.ts';

/**
 * Whether `value` satisfies `schema` (`$ref`s resolve within the document, as the compiler
 * resolves them); `undecided` where that turns on a string of a format enforced only in part
 * (`valueValidity`): true where taking an invalid value for valid is safe, false where the
 * other way round is.
 */
export function validatesValue(compiler: SchemaCompiler, schema: SchemaObject, value: unknown, pointer: string, undecided: boolean): boolean {
  return valueValidity(compiler, schema, value, pointer) ?? undecided;
}

// Most strings of formats enforced only in part one check answers both ways (each
// combination of answers is a validation).
const MAX_UNDECIDED_STRINGS = 6;

/**
 * Whether `value` satisfies `schema`, or undefined when that is not known: a string of a
 * format enforced only in part may be in it or not (`formatAnswer`), and the validity differs
 * between the answers such strings could get (each combination is tried).
 */
export function valueValidity(compiler: SchemaCompiler, schema: SchemaObject, value: unknown, pointer: string): boolean | undefined {
  const answers: UndecidedAnswers = { strings: new Map(), combination: 0 };
  const valid = validateOnce(compiler, schema, value, pointer, answers);
  for (let combination = 1; combination < 1 << answers.strings.size; combination++) {
    if (answers.strings.size > MAX_UNDECIDED_STRINGS) return undefined;
    answers.combination = combination;
    if (validateOnce(compiler, schema, value, pointer, answers) !== valid) return undefined;
  }
  return valid;
}

/**
 * The answers one validation gives the strings whose format is undecided: string i (by the
 * order they were met in) is in its format when bit i of `combination` is set.
 */
interface UndecidedAnswers {
  readonly strings: Map<string, number>;
  combination: number;
}

function validateOnce(compiler: SchemaCompiler, schema: SchemaObject, value: unknown, pointer: string, answers: UndecidedAnswers): boolean {
  // References resolve as the compiler resolves them (fragments, and the root-relative
  // spelling `rootedRefs` gives the others); one that resolves nowhere is an error here.
  const lookup = new Proxy({} as Record<string, CfSchema>, {
    get: (_, key) => {
      if (typeof key !== 'string') return undefined;
      try {
        return compiler.resolve(key, pointer).schema as CfSchema;
      } catch (error) {
        if (error instanceof SchemaError) return undefined;
        throw error;
      }
    },
  });
  try {
    return withOwnFormats(compiler, pointer, answers, () =>
      withAnnexBPatterns(() => validateInstance(value, schema as CfSchema, compiler.draft, lookup, true).valid),
    );
  } catch (error) {
    if (error instanceof GrammarError) throw error;
    throw new InvalidSchemaError(pointer, 'enum', `cannot check the enum values: ${(error as Error).message.split('\n')[0]}`);
  }
}

/**
 * Runs `check` with the validator's format checks replaced by the grammar's own (the byte
 * regexes strings are built from, matched against a value's JSON spelling), so a value
 * checked here and a string the grammar writes never disagree on a format (the validator's
 * are looser for uri, uri-reference and hostname, and know formats 2020-12 does not). Its
 * table loses its prototype meanwhile: a format named `hasOwnProperty` is no format. Restored
 * after: the validator is shared.
 */
function withOwnFormats<T>(compiler: SchemaCompiler, pointer: string, answers: UndecidedAnswers, check: () => T): T {
  const formats = cfFormats as Record<string, ((value: string) => boolean) | undefined>;
  const names = new Set([...Object.keys(formats), ...Object.keys(FORMAT_PATTERNS), ...UNSUPPORTED_FORMATS]);
  const saved = [...names].map((name) => [name, Object.getOwnPropertyDescriptor(formats, name)] as const);
  const prototype = Object.getPrototypeOf(formats) as object | null;
  Object.setPrototypeOf(formats, null);
  for (const name of names) formats[name] = (value) => formatHolds(compiler, name, value, pointer, answers);
  try {
    return check();
  } finally {
    Object.setPrototypeOf(formats, prototype);
    for (const [name, descriptor] of saved) {
      if (descriptor === undefined) delete formats[name];
      else Object.defineProperty(formats, name, descriptor);
    }
  }
}

// Whether string `value` is in `format` as the grammar reads it: by the format's regex (an
// idn- format's ASCII strings by its ASCII twin's); one the regex refuses that may still be in
// it (inside its superset, `formatOrSuperset`, or as `formatAnswer` says) by its answer in
// `answers`. An annotation always holds.
function formatHolds(compiler: SchemaCompiler, format: string, value: string, pointer: string, answers: UndecidedAnswers): boolean {
  const ascii = ASCII_TWINS[format] ?? format;
  if (compiler.options.formats === 'annotate' || FORMAT_PATTERNS[ascii] === undefined) return true;
  const content = jsonStringBytes(value).subarray(1, -1);
  if (matchesBytes(formatRegex(compiler, ascii, pointer)!, content)) return true;
  const answer =
    FORMAT_SUPERSETS[format] === undefined
      ? formatAnswer(format, value)
      : matchesBytes(formatOrSuperset(compiler, format, pointer)!, content)
        ? undefined
        : false;
  if (answer !== undefined) return answer;
  const key = `${format}\u0000${value}`;
  let index = answers.strings.get(key);
  if (index === undefined) answers.strings.set(key, (index = answers.strings.size));
  return index < 31 && (answers.combination & (1 << index)) !== 0;
}

/**
 * Runs `check` with patterns the validator compiles (with the u flag) read as the grammar
 * reads them: one the u flag refuses but Annex B reads (`[^\"]`, a lone `]`) is given to it
 * spelled as the grammar's regex front-end spells it. Restored after, like the formats.
 */
function withAnnexBPatterns<T>(check: () => T): T {
  const native = globalThis.RegExp;
  globalThis.RegExp = new Proxy(native, {
    construct(target, [source, flags]: [string, string | undefined]) {
      try {
        return new target(source, flags);
      } catch (error) {
        const spelled = typeof source === 'string' && flags === 'u' ? spellAnnexB(source) : null;
        if (spelled === null) throw error;
        return new target(spelled.source, flags);
      }
    },
  });
  try {
    return check();
  } finally {
    globalThis.RegExp = native;
  }
}

/**
 * Merged schemas encode some things their own way: several patterns (multiples) as a list,
 * excluded constants (`__notValues`), patterns (`__notPatterns`), formats (`__notFormats`) and
 * multiples (`__notMultipleOf`), tests of strings and multiples (`__stringTests`,
 * `__multipleTests`), conditionals (`__conditions`), items one of which must hold
 * (`__contains`), fractions (`__fraction`), members one of which must hold (`__someMember`,
 * `__otherWitness`), member sides (`__memberSides`). This spells them as standard keywords of
 * `draft` for the validator.
 */
export function standardSchema(merged: SchemaObject, draft: SchemaDraft): SchemaObject {
  const out: Record<string, unknown> = { ...merged };
  const extra: SchemaObject[] = [];
  for (const keyword of ['pattern', 'multipleOf']) {
    if (!Array.isArray(out[keyword])) continue;
    extra.push(...(out[keyword] as unknown[]).map((value) => ({ [keyword]: value })));
    delete out[keyword];
  }
  if (out.__notMultipleOf !== undefined) {
    extra.push(...(out.__notMultipleOf as unknown[]).map((multipleOf) => ({ not: { multipleOf } })));
    delete out.__notMultipleOf;
  }
  if (out.__notValues !== undefined) {
    extra.push({ not: { enum: out.__notValues } });
    delete out.__notValues;
  }
  if (out.__conditions !== undefined) {
    // (As a union: draft 4 has no `if`.)
    const spelled = (out.__conditions as unknown[][]).map(([condition, then, otherwise]) => ({
      anyOf: [{ allOf: [condition, then] }, { allOf: [{ not: condition }, otherwise] }],
    }));
    extra.push(...spelled);
    delete out.__conditions;
  }
  for (const [keyword, kind] of [
    ['__stringTests', 'string'],
    ['__multipleTests', 'number'],
  ] as const) {
    if (out[keyword] === undefined) continue;
    extra.push(...(out[keyword] as unknown[]).map((test) => ({ anyOf: [{ not: { type: kind } }, test] })));
    delete out[keyword];
  }
  if (out.__notPatterns !== undefined) {
    extra.push(...(out.__notPatterns as unknown[]).map((pattern) => ({ not: { pattern } })));
    delete out.__notPatterns;
  }
  if (out.__notFormats !== undefined) {
    extra.push(...(out.__notFormats as unknown[]).map((format) => ({ not: { format } })));
    delete out.__notFormats;
  }
  if (out.__oneOf !== undefined) {
    extra.push(...(out.__oneOf as unknown[]).map((oneOf) => ({ oneOf })));
    delete out.__oneOf;
  }
  if (out.__fraction === true) {
    extra.push({ not: { type: 'integer' } });
    delete out.__fraction;
  }
  for (const keyword of ['__someMember', '__otherWitness']) {
    if (out[keyword] === undefined) continue;
    extra.push(...(out[keyword] as MemberWitness[]).map((w) => memberWitnessSchema(w, draft)));
    delete out[keyword];
  }
  if (out.__memberSides !== undefined) {
    // Each side as the schema's own patterns and additionalProperties, its names declared.
    const declared = Object.fromEntries(Object.keys((out.properties ?? {}) as object).map((name) => [name, true]));
    extra.push(...(out.__memberSides as MemberSide[]).map((side) => ({ properties: declared, ...side })));
    delete out.__memberSides;
  }
  if (out.__contains !== undefined) {
    // Some item from position `from` on holds: not all of them fail (with counts, from 0:
    // contains with minContains and maxContains).
    for (const witness of out.__contains as Witness[]) {
      const { schema, from } = witness;
      if (witness.min !== undefined || witness.max !== undefined) {
        const { min, max } = witnessCounts(witness);
        extra.push({ contains: schema, minContains: min, ...(max < Infinity && { maxContains: max }) });
        continue;
      }
      const fail = { not: schema };
      const rest =
        from === 0
          ? { items: fail }
          : draft === '2020-12' || draft === '2019-09'
            ? { prefixItems: Array(from).fill(true), items: fail }
            : { items: Array(from).fill(true), additionalItems: fail };
      extra.push({ not: { type: 'array', ...rest } });
    }
    delete out.__contains;
  }
  if (extra.length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...extra];
  return out;
}

// A member witness as standard keywords: a non-object, or not every member it speaks of
// fails its schema. Keys that must match a pattern and avoid names or other patterns have no
// spelling without lookaheads: such a witness is spelled as never met (values are dropped,
// never wrongly kept). One with key schemas whose value may be anything is a member whose
// name does not fail them (`propertyNames`); with a value schema too it has no spelling.
function memberWitnessSchema({ names, patterns, matches, keys, schema }: MemberWitness, draft: SchemaDraft): SchemaObject {
  const fails = { not: schema };
  let every: SchemaObject;
  if (keys.length > 0) {
    // (Draft 4 has no propertyNames.)
    if (schema !== true || draft === '4') return { not: {} };
    const key = [
      ...keys.map((k) => standardSchema(k, draft)),
      ...(names.length > 0 ? [{ not: { enum: names } }] : []),
      ...patterns.map((pattern) => ({ not: { pattern } })),
      ...matches.map((pattern) => ({ pattern })),
    ];
    every = { propertyNames: { not: { allOf: [{ type: 'string' }, ...key] } } };
  } else if (matches.length === 0) {
    every = {
      properties: Object.fromEntries(names.map((n) => [n, true])),
      patternProperties: Object.fromEntries(patterns.map((p) => [p, true])),
      additionalProperties: fails,
    };
  } else if (matches.length === 1 && names.length === 0 && patterns.length === 0) {
    every = { patternProperties: { [matches[0]!]: fails } };
  } else {
    return { not: {} };
  }
  return { anyOf: [{ not: { type: 'object' } }, { not: every }] };
}
