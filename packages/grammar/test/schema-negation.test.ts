// Schema-level negation (src/frontends/json-schema/negate-schema.ts) and what is built on it:
// `not` of general schemas, `oneOf` with overlapping branches (each branch less the others),
// `if`/`then`/`else`, and integers less constants. Each schema's grammar is checked against
// ajv on random instances near hand-picked valid and invalid ones (accepted iff ajv accepts,
// both kinds met), and the complements the compiler cannot build exactly are refused with the
// schema's pointer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaError } from '../src/index.ts';
import { EXACT_FORMATS } from '../src/frontends/json-schema/string-formats.ts';
import { formatSuiteStrings } from './support/format-suite.ts';
import { accepts, compileSchema, schemaErrorOf } from './support/json-schema-oracle.ts';
import { nearInstances, nearStrings } from './support/json-instances.ts';
import { expectAgreement } from './support/schema-agreement.ts';

const CASES: { name: string; schema: unknown; bases: unknown[] }[] = [
  {
    name: 'not required: properties that exclude each other',
    schema: { type: 'object', properties: { a: { type: 'integer' }, b: {} }, not: { required: ['a', 'b'] } },
    bases: [{ a: 1 }, { b: 1 }, { a: 1, b: 2 }, {}, { a: 'x' }],
  },
  {
    name: 'not allOf of required (two forms of the same exclusion)',
    schema: { not: { allOf: [{ required: ['site'] }, { required: ['app'] }] }, required: ['id'] },
    bases: [{ id: 1, site: 2 }, { id: 1, app: 2 }, { id: 1, site: 1, app: 2 }, { site: 1 }, 'x'],
  },
  {
    name: 'not anyOf: neither branch holds',
    schema: { type: 'object', not: { anyOf: [{ required: ['a'] }, { properties: { b: { type: 'string' } }, required: ['b'] }] } },
    bases: [{}, { a: 1 }, { b: 'x' }, { b: 1 }, { c: [] }],
  },
  {
    name: 'not of a pattern, with a length',
    schema: { type: 'string', minLength: 1, not: { pattern: '^[.,*\\\\\\-\\s{}()]+$' } },
    bases: ['a', '.', '..x', ' ', '', '(a)', '-'],
  },
  {
    name: 'not of bounds and lengths across kinds',
    schema: { not: { minimum: 3, maxLength: 2, type: ['number', 'string', 'null'] } },
    bases: [3, 2, 2.5, 'abc', 'ab', null, true, [], {}, 10],
  },
  {
    name: 'not of a property schema (pushed inward)',
    schema: { type: 'object', not: { properties: { kind: { enum: ['a', 'b'] }, n: { type: 'number', maximum: 5 } } } },
    bases: [{ kind: 'c' }, { kind: 'a' }, { n: 6 }, { n: 5 }, {}, { kind: 'a', n: 7 }],
  },
  {
    name: 'not of items, prefixItems and array bounds',
    schema: { type: 'array', not: { prefixItems: [{ type: 'string' }], items: { type: 'number' }, maxItems: 3 } },
    bases: [['a', 1], [1], ['a', 'b'], ['a', 1, 2, 3], [], ['a', 1, 2]],
  },
  {
    name: 'not of dependentRequired and of object bounds',
    schema: { type: 'object', not: { dependentRequired: { a: ['b'] }, minProperties: 1 } },
    bases: [{}, { a: 1 }, { a: 1, b: 2 }, { b: 1 }, { c: 1 }],
  },
  {
    name: 'not of a not and of an enum',
    schema: { not: { not: { type: 'string', maxLength: 2 }, enum: ['x', 'yy', 'zzz', null] } },
    bases: ['x', 'yy', 'zzz', 'w', 1, 2, null],
  },
  {
    name: 'integers less constants (1 and 1.0 are one value)',
    schema: { type: 'integer', minimum: 1024, maximum: 65535, not: { enum: [6379, 6380, 43215, 2.5] } },
    bases: [1024, 6379, 6380, 6381, 43215, 65535, 65536, 1023],
  },
  {
    name: 'oneOf of required names (overlapping: exactly one present)',
    schema: { type: 'object', properties: { ssn: { type: 'string' }, ein: { type: 'string' } }, oneOf: [{ required: ['ssn'] }, { required: ['ein'] }] },
    bases: [{ ssn: 'a' }, { ein: 'b' }, { ssn: 'a', ein: 'b' }, {}, { ssn: 1 }],
  },
  {
    name: 'oneOf of overlapping string and object branches',
    schema: {
      oneOf: [
        { type: 'string', maxLength: 3 },
        { type: 'string', pattern: '^a' },
        { type: 'object', properties: { type: { enum: ['x', 'y'] } } },
        { type: 'object', properties: { type: { const: 'y' } }, required: ['type'] },
      ],
    },
    bases: ['ab', 'abcd', 'bcde', 'b', { type: 'x' }, { type: 'y' }, {}, { type: 'z' }, 1],
  },
  {
    name: 'oneOf of number ranges that overlap',
    schema: {
      oneOf: [
        { type: 'integer', minimum: 0, maximum: 10 },
        { type: 'integer', minimum: 5 },
      ],
    },
    bases: [0, 4, 5, 10, 11, -1, 7.5],
  },
  {
    name: 'if / then / else on a discriminating property',
    schema: {
      type: 'object',
      properties: { kind: { type: 'string' } },
      if: { properties: { kind: { const: 'circle' } }, required: ['kind'] },
      then: { required: ['radius'], properties: { radius: { type: 'number', minimum: 0 } } },
      else: { required: ['side'] },
    },
    bases: [{ kind: 'circle', radius: 1 }, { kind: 'circle', side: 1 }, { kind: 'square', side: 2 }, { side: 1 }, { kind: 'circle', radius: -1 }],
  },
  {
    name: 'if / then without else, on strings',
    schema: { type: 'string', if: { maxLength: 2 }, then: { pattern: '^x' } },
    bases: ['x', 'xy', 'ab', 'abc', ''],
  },
  {
    name: 'two conditionals in one intersection, and the complement of one',
    schema: {
      allOf: [
        { if: { required: ['a'] }, then: { required: ['b'] } },
        { if: { required: ['c'] }, then: { properties: { a: false } }, else: { required: ['d'] } },
        { not: { if: { required: ['e'] }, then: { required: ['f'] }, else: { minProperties: 3 } } },
      ],
    },
    bases: [{ a: 1, b: 1, d: 1 }, { c: 1 }, { c: 1, a: 1, b: 1 }, { e: 1 }, { e: 1, f: 1, d: 1 }, { d: 1, x: 1 }, 'x'],
  },
  {
    name: 'dependent schemas as conditionals (draft 2020-12 and draft-7 spellings)',
    schema: {
      type: 'object',
      dependentSchemas: { a: { required: ['b'], properties: { b: { type: 'integer' } } } },
      dependencies: { c: { properties: { d: { const: 1 } } }, e: ['f'] },
    },
    bases: [{ a: 1, b: 2 }, { a: 1 }, { a: 1, b: 'x' }, { c: 1, d: 1 }, { c: 1, d: 2 }, { d: 2 }, { e: 1, f: 1 }, { e: 1 }],
  },
  {
    name: 'dependentRequired and exclusive members beside member counts',
    schema: {
      type: 'object',
      dependentRequired: { a: ['b'] },
      dependencies: { x: { not: { required: ['y'] } } },
      minProperties: 1,
      maxProperties: 3,
    },
    bases: [{ a: 1, b: 1 }, { a: 1 }, { b: 1 }, {}, { x: 1, y: 1 }, { x: 1, b: 1, c: 1 }, { a: 1, b: 1, c: 1, d: 1 }],
  },
  {
    name: 'numbers that are not integers (fractions), and bounded integers negated',
    schema: { type: 'array', items: { type: 'number', not: { type: 'integer', minimum: 3 } } },
    bases: [[0.5], [1], [3], [3.0], [2.75, -4], [1e-7], [10]],
  },
  {
    name: 'contains, and its complement',
    schema: { type: 'array', contains: { type: 'integer', minimum: 5 }, not: { contains: { const: 'x' } }, maxItems: 4 },
    bases: [[5], [1, 6], [1, 2], [], [6, 'x'], ['y', 7, 'z'], [1, 2, 3, 4, 5]],
  },
  {
    name: 'the complement of items past a prefix, with no maxItems',
    schema: { type: 'array', not: { prefixItems: [{ type: 'string' }], items: { type: 'integer' } } },
    bases: [['a', 1], ['a', 1, 'b'], [1], [], ['a'], ['a', 1, 2, 2.5]],
  },
  {
    // Each branch less the five others: five witnesses (an item outside each other's enum).
    name: 'oneOf of arrays from six overlapping enums (five witnesses on each branch)',
    schema: {
      oneOf: ['ab', 'bc', 'cd', 'de', 'ea', 'ac'].map((letters) => ({ type: 'array', maxItems: 4, items: { enum: [...letters] } })),
    },
    bases: [['a'], ['a', 'b'], ['b', 'c', 'b'], ['a', 'c', 'a'], ['d', 'e'], [], ['a', 'd'], ['e', 'a', 'e', 'a', 'e']],
  },
  {
    name: 'two witnesses, one item may be both',
    schema: { type: 'array', allOf: [{ contains: { type: 'integer' } }, { contains: { minimum: 3 } }], minItems: 1 },
    bases: [[3], [1, 4.5], [1, 2], [4.5], ['a', 7], []],
  },
  {
    name: 'oneOf of closed objects (a member no name tracks must be present in the complement)',
    schema: {
      oneOf: [
        { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false },
        { type: 'object', properties: { a: {}, b: {} }, required: ['b'], additionalProperties: false },
        { type: 'object', properties: { c: {} }, additionalProperties: { type: 'string' } },
      ],
    },
    bases: [{ a: 1 }, { b: 1 }, { a: 1, b: 1 }, { a: 'x', b: 1 }, { a: 1, c: 1 }, { c: 1, d: 'x' }, { d: 1 }, {}],
  },
  {
    name: 'not of patternProperties and of additionalProperties beside patterns',
    schema: {
      type: 'object',
      properties: { xa: { type: 'string' } },
      not: { patternProperties: { '^x': { type: 'integer' } }, additionalProperties: { type: 'boolean' } },
    },
    bases: [{}, { x1: 1 }, { x1: 's' }, { xa: 's' }, { y: true }, { y: 1 }, { x1: 1, y: false }],
  },
  {
    name: 'objects and arrays less constants (members in any order)',
    schema: { type: ['object', 'array'], not: { enum: [{ a: 'x', b: [true, null] }, ['y', false], { c: {} }] } },
    bases: [{ a: 'x', b: [true, null] }, { b: [true, null], a: 'x' }, { a: 'x' }, ['y', false], ['y'], { c: {} }, { c: { d: null } }, []],
  },
  {
    name: 'two oneOf lists in one intersection, and the complement of both',
    schema: {
      allOf: [{ oneOf: [{ type: 'string' }, { maxLength: 2 }] }, { oneOf: [{ minLength: 1 }, { type: 'number' }] }],
      properties: { n: { not: { allOf: [{ oneOf: [{ type: 'integer' }, { minimum: 3 }] }, { oneOf: [{ maximum: 9 }, { type: 'null' }] }] } } },
    },
    bases: ['a', 'abc', '', 3, 'ab', null, { n: 2 }, { n: 5 }, { n: 10 }, { n: 3.5 }, { n: null }],
  },
  {
    name: 'oneOf of a uuid and a pattern (strings that are both are in neither)',
    schema: { type: 'string', oneOf: [{ format: 'uuid' }, { pattern: '^[0-9a-f]{8}-' }] },
    bases: ['2eb8aa08-aa98-11ea-b4aa-73b441d16380', '2eb8aa08-x', 'ABCDEF01-aa98-11ea-b4aa-73b441d16380', 'x', 5],
  },
  {
    name: 'oneOf whose overlapping branch has a format that is an annotation (always holds)',
    schema: { type: 'string', oneOf: [{ maxLength: 0 }, { format: 'html-selector', minLength: 1 }] },
    bases: ['', 'a', 'div > p', 3],
  },
  {
    name: 'not of propertyNames (some name fails it), beside declared properties',
    schema: { type: 'object', properties: { a: { type: 'integer' }, kind: {} }, not: { propertyNames: { maxLength: 2, pattern: '^[a-z]' } } },
    bases: [{ a: 1 }, { a: 1, kind: 2 }, { A: 1 }, { abc: true }, {}, { a: 'x', p1: 1 }],
  },
  {
    name: 'not of propertyNames: false (some member at all) and of constant names',
    schema: { type: 'object', allOf: [{ not: { propertyNames: false } }, { not: { propertyNames: { not: { enum: ['a', 'kind'] } } } }] },
    bases: [{}, { a: 1 }, { kind: 1, b: 2 }, { b: 1 }, { a: 1, kind: 2 }],
  },
  {
    name: 'not of propertyNames whose complement holds anyOf, not and a conditional (taken apart into string schemas)',
    schema: {
      type: 'object',
      allOf: [
        { not: { propertyNames: { not: { anyOf: [{ pattern: '^a' }, { maxLength: 1 }] } } } },
        { not: { propertyNames: { if: { maxLength: 2 }, then: { pattern: '^p' } } } },
      ],
    },
    bases: [{ a: 1 }, { ab: 1, q: 2 }, { abc: 1, x: 2 }, { p1: 1 }, { a: 1, p8: 2 }, {}, { kind: 1 }],
  },
  {
    name: 'not of propertyNames whose complement is a oneOf of a pattern and a length (one string test)',
    schema: { type: 'object', not: { propertyNames: { not: { oneOf: [{ pattern: 'a' }, { maxLength: 2 }] } } } },
    bases: [{}, { a: 1 }, { abc: 1 }, { xyz: 1 }, { ab: 1, xyz: 2 }, { x: 1 }, { a: 1, x: 2 }],
  },
  {
    name: 'not of propertyNames whose complement is a conditional of string keywords (one string test)',
    schema: { type: 'object', not: { propertyNames: { not: { if: { pattern: 'a' }, then: { maxLength: 2 }, else: { minLength: 4 } } } } },
    bases: [{}, { a: 1 }, { abc: 1 }, { xyz: 1 }, { wxyz: 1 }, { ab: 1, xyz: 2 }, { x: 1, wxyz: 2 }],
  },
  {
    name: 'names that must match patterns, beside patternProperties and a member cap',
    schema: {
      type: 'object',
      patternProperties: { '^p': { type: 'integer' } },
      allOf: [{ not: { propertyNames: { not: { pattern: '1' } } } }, { not: { propertyNames: { not: { pattern: '^[pq]' } } } }],
      maxProperties: 2,
    },
    bases: [{ p1: 1 }, { p1: 'x' }, { q: 1, a1: 2 }, { p8: 1 }, { p1: 1, q: 2, r: 3 }, {}],
  },
  {
    // Each branch requires its own member: an object with two is in neither. The complement
    // of a branch is one schema per member ("absent, or there and failing").
    name: 'oneOf of many branches each requiring its own member (a member missing or failing is one branch)',
    schema: {
      type: 'object',
      oneOf: Array.from({ length: 12 }, (_, i) => ({ properties: { [`k${i}`]: { type: 'object', required: ['v'] } }, required: [`k${i}`] })),
    },
    bases: [{ k0: { v: 1 } }, { k3: { v: 1 }, k4: { v: 2 } }, { k3: { v: 1 }, k4: {} }, { k11: {} }, {}, { k1: { v: 1 }, z: 1 }],
  },
  {
    // Branches told apart by a constant, and three that take any "type" (a misspelt enum):
    // only those three need the others' complements, and those exclude the constants' branches.
    name: 'oneOf of branches with constant discriminators beside branches that overlap them all',
    schema: {
      oneOf: [
        ...['A', 'B', 'C', 'D'].map((t) => ({
          type: 'object',
          required: ['type', 'c'],
          properties: { type: { enum: [t] }, c: { type: 'array', minItems: 1 } },
        })),
        { type: 'object', required: ['type', 'g'], properties: { type: { type: 'string', emum: ['G'] }, g: { type: 'array' } } },
        { type: 'object', required: ['type', 'f'], properties: { type: { type: 'string' }, f: { type: 'integer' } } },
      ],
    },
    bases: [
      { type: 'A', c: [1] },
      { type: 'A', c: [1], g: [] },
      { type: 'A', c: [], g: [] },
      { type: 'G', g: [] },
      { type: 'B', c: [2], f: 1 },
      { type: 'x', g: [], f: 2 },
      { type: 3, c: [1] },
    ],
  },
  {
    name: 'oneOf whose branches are disjoint by a member one requires and another forbids (additionalProperties: false)',
    schema: {
      oneOf: [
        { type: 'string' },
        { type: 'object', properties: { ios: {}, android: {} }, required: ['ios', 'android'], additionalProperties: false },
        { type: 'object', required: ['ref'], properties: { ref: { type: 'string' } }, additionalProperties: false },
        { type: 'object', properties: { ref: {}, x: { type: 'integer' } }, minProperties: 1 },
      ],
    },
    bases: ['s', { ios: 1, android: 2 }, { ref: 'a' }, { ref: 1 }, { x: 1 }, { x: 'a' }, {}, { ios: 1 }],
  },
  {
    // additionalProperties is read with its properties: the first branch does not say what the
    // second's `not` excludes ({b: 1} is in both), so they are not disjoint.
    name: 'oneOf where a branch refutes another only as far as additionalProperties reads the same properties',
    schema: {
      oneOf: [
        { type: 'object', properties: { a: {}, b: {} }, additionalProperties: false, required: ['b'] },
        { type: 'object', not: { properties: { a: {} }, additionalProperties: false } },
        {
          type: 'object',
          properties: { a: { type: 'integer' } },
          additionalProperties: false,
          required: ['a'],
          not: { properties: { a: { type: 'integer' } } },
        },
      ],
    },
    bases: [{ b: 1 }, { a: 1, b: 1 }, { a: 1 }, { c: 1 }, {}, { a: 'x' }],
  },
  {
    // A discriminator no branch requires: objects without it are in every branch whose other
    // members they satisfy. Too many branches for one product, so the oneOf is taken case by
    // case (each group of country values, then no country or another).
    name: 'oneOf split into cases by a member the branches give enums (not required)',
    schema: {
      type: 'object',
      properties: { street: { type: 'string' } },
      oneOf: [
        ...['BRA', 'ITA', 'MEX', 'USA', 'CAN', 'IND', 'CHN'].map((country, i) => ({
          properties: { country: { enum: [country] }, state: { enum: [`${i}a`, `${i}b`, 'XX'] } },
        })),
        { properties: { country: { enum: ['FRA', 'DEU', 'USA'] }, state: { type: 'string', maxLength: 3 } } },
      ],
    },
    bases: [
      { country: 'BRA', state: '0a' },
      { country: 'BRA', state: '1a' },
      { country: 'USA', state: '3a' },
      { country: 'USA', state: 'ZZ' },
      { country: 'FRA', state: 'any' },
      { state: '2b' },
      { state: 'XX' },
      { country: 'ESP' },
      {},
    ],
  },
  {
    // Complements sharing branches ("pid missing or not a string" in each): a product keeps
    // one of equal branches, and a branch its left side already implies stands for the rest
    // (3 branches here, not 3^6).
    name: 'not of an anyOf whose branches fail alike (equal and absorbed product branches)',
    schema: {
      type: 'object',
      not: {
        anyOf: Array.from({ length: 6 }, (_, i) => ({
          properties: { pid: { type: 'string' }, key: { type: 'string' }, [`v${i}`]: { type: 'integer' } },
          required: ['pid', 'key', `v${i}`],
        })),
      },
    },
    bases: [{ pid: 'a', key: 'b', v0: 1 }, { pid: 'a', key: 'b', v5: 'x' }, { pid: 1, key: 'b', v2: 1 }, { key: 'b' }, { pid: 'a', key: 'b' }, {}],
  },
  {
    // Branches whose ids match disjoint patterns are disjoint (their automata share no string),
    // and so is a nested oneOf all of whose branches are; the catch-all branch overlaps them.
    name: 'oneOf of branches told apart by disjoint patterns, a nested oneOf among them',
    schema: {
      oneOf: [
        ...['cargo', 'npm', 'gem', 'pypi', 'nuget', 'opam', 'go'].map((kind) => ({
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { type: 'string', pattern: `^pkg:${kind}/.+@.+` }, extra: { type: 'array' } },
        })),
        {
          oneOf: [
            { type: 'object', required: ['id', 'build'], properties: { id: { type: 'string', pattern: '^pkg:generic/.+@' } } },
            { type: 'object', required: ['id', 'asset'], properties: { id: { type: 'string', pattern: '^pkg:github/.+@' } } },
          ],
        },
        { type: 'object', required: ['id', 'any'], properties: { id: { type: 'string', minLength: 12 } } },
      ],
    },
    bases: [
      { id: 'pkg:cargo/a@1' },
      { id: 'pkg:npm/left-pad@1.0.0', extra: [] },
      { id: 'pkg:npm/left-pad@1.0.0', any: 1 },
      { id: 'pkg:generic/x@1', build: 1 },
      { id: 'pkg:generic/x@1', build: 1, asset: 2 },
      { id: 'pkg:github/x@1', asset: 2, any: 3 },
      { id: 'pkg:gem/x', extra: [] },
      { id: 'short', any: 1 },
    ],
  },
  {
    // Two members tell branches apart: `ext` splits two of them (the others, and a catch-all,
    // in both its cases), `kind` all but the catch-all; the split takes `kind`, whose cases
    // leave the fewest branches together, and nothing is refused.
    name: 'oneOf split by the member whose cases leave the fewest branches together',
    schema: {
      oneOf: [
        ...['lit', 'var', 'let', 'con', 'fun', 'seq'].map((kind) => ({
          type: 'object',
          required: ['kind', 'a'],
          properties: { kind: { const: kind }, a: { type: 'array', items: { type: 'object', required: ['x'], properties: { x: { type: 'integer' } } } } },
        })),
        ...[false, true].map((ext) => ({
          type: 'object',
          required: ['kind', 'ext'],
          properties: { kind: { const: 'app' }, ext: { const: ext }, a: { type: 'array' } },
        })),
        { type: 'object', required: ['kind', 'b'], properties: { b: { type: 'string' } } },
      ],
    },
    bases: [
      { kind: 'lit', a: [{ x: 1 }] },
      { kind: 'lit', a: [{ x: 1 }], b: 's' },
      { kind: 'app', ext: true },
      { kind: 'app', ext: false, b: 's' },
      { kind: 'zzz', b: 's' },
      { kind: 'fun', a: [{}] },
    ],
  },
  {
    // The complement of a oneOf whose branches a constant tells apart, inside an array: an item
    // in none of them (or in two), taken case by case too.
    name: 'not of items that are a oneOf with discriminators (some item in none, or in two)',
    schema: {
      type: 'array',
      not: {
        items: {
          oneOf: [
            ...['P', 'L', 'M', 'N', 'Q', 'R', 'S'].map((t, i) => ({
              type: 'object',
              required: ['t', 'c'],
              properties: { t: { const: t }, c: { type: 'array', minItems: i % 3 } },
            })),
            { type: 'object', required: ['t', 'g'], properties: { t: { type: 'string' }, g: { type: 'integer' } } },
          ],
        },
      },
    },
    bases: [
      [{ t: 'P', c: [] }],
      [{ t: 'P', c: [], g: 1 }],
      [
        { t: 'x', g: 1 },
        { t: 'M', c: [] },
      ],
      [{ t: 'N', c: [1] }],
      [],
      [{ t: 'L' }],
    ],
  },
  {
    // As MaskBench's o35868 (an address per country): the members are optional, so each
    // branch less the others picks, per other branch, a wrong country or a wrong state; a
    // wrong country is one term for every other branch once spelled as the values left.
    name: 'oneOf of 8 records with optional members (each branch less the others)',
    schema: {
      type: 'object',
      oneOf: ['BR', 'IT', 'MX', 'US', 'CA', 'IN', 'CN', 'AU'].map((country, i) => ({
        properties: {
          country: { type: 'string', enum: [country] },
          state: { type: 'string', pattern: `^[A-${'HIJKLMNO'[i]}][A-Z]$` },
          zip: { type: 'string', maxLength: 5 },
        },
      })),
    },
    bases: [
      { country: 'BR', state: 'AP' },
      { country: 'IT' },
      { state: 'AL' },
      { state: 'OA', zip: '123' },
      { country: 'US', state: 'ZZ' },
      {},
      { zip: '123456' },
    ],
  },
  {
    // MaskBench's o65945: an array of files, each extracted (one of three kinds) or not (and
    // then not extracted), in a oneOf of arrays.
    name: 'oneOf of arrays whose items are anyOf of records with not and oneOf inside',
    schema: JSON.parse(
      '{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":["extracted","files"],"properties":{"extracted":{"type":"boolean"},"files":{"oneOf":[{"type":"array","maxItems":0},{"type":"array","minItems":1,"items":{"anyOf":[{"$ref":"#/definitions/file_extracted"},{"$ref":"#/definitions/file_remote_dir"}]}},{"type":"array","minItems":1,"items":{"anyOf":[{"$ref":"#/definitions/file_not_extracted"},{"$ref":"#/definitions/file_remote_dir"}]}}]}},"definitions":{"file_common":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}},"file_not_extracted":{"allOf":[{"$ref":"#/definitions/file_common"},{"required":["type"],"properties":{"type":{"enum":["file","dir","link","remote_dir"]}},"not":{"$ref":"#/definitions/file_extracted"}}]},"file_extracted":{"allOf":[{"$ref":"#/definitions/file_common"},{"required":["user","group"],"properties":{"user":{"type":"string","minLength":1},"group":{"type":"string","minLength":1}},"oneOf":[{"$ref":"#/definitions/file_extracted_file"},{"$ref":"#/definitions/file_extracted_dir"},{"$ref":"#/definitions/file_extracted_link"}]}]},"file_extracted_file":{"required":["type","size","mode"],"properties":{"type":{"enum":["file"]},"size":{"type":"integer","minimum":0},"mode":{"type":"string","pattern":"^[0-7]{3,4}$"}}},"file_extracted_dir":{"required":["type","size","mode","files"],"properties":{"type":{"enum":["dir"]},"size":{"type":"integer","minimum":0},"mode":{"type":"string","pattern":"^[0-4]?[0-7]{3}$"},"files":{"type":"integer","minimum":1}}},"file_extracted_link":{"required":["type"],"properties":{"type":{"enum":["link"]}}},"file_remote_dir":{"allOf":[{"$ref":"#/definitions/file_common"},{"required":["type"],"properties":{"type":{"enum":["remote_dir"]}}}]}}}',
    ) as unknown,
    bases: [
      { extracted: true, files: [] },
      { extracted: false, files: [{ name: 'a', type: 'file' }] },
      { extracted: true, files: [{ name: 'a', user: 'u', group: 'g', type: 'file', size: 1, mode: '644' }] },
      {
        extracted: true,
        files: [
          { name: 'd', user: 'u', group: 'g', type: 'dir', size: 0, mode: '0755', files: 2 },
          { name: 'r', type: 'remote_dir' },
        ],
      },
      { extracted: true, files: [{ name: 'l', user: 'u', group: 'g', type: 'link' }] },
      { extracted: false, files: [{ name: 'r', type: 'remote_dir' }] },
    ],
  },
  {
    // MaskBench's config.json: closed objects told apart by a member none requires. A branch
    // less the others takes more than 64 complement branches: that union is built again with
    // up to 128 (the rest of the schema as with 64).
    name: 'oneOf of closed objects whose complements take more than 64 branches',
    schema: {
      oneOf: (['string', 'boolean', 'integer', 'string'] as const).map((type, i) => ({
        type: 'object',
        additionalProperties: false,
        properties: {
          kind: { enum: [`k${i}`] },
          spec: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(['0', '1', '2', '3'].map((n) => [`${'ba'[i % 2]}${n}`, { type }])),
          },
        },
      })),
    },
    bases: [
      { kind: 'k1', spec: { a0: true } },
      { spec: { a0: true, a3: false } },
      { spec: { a0: 'x' } },
      { spec: { b2: 3 } },
      { kind: 'k0', spec: { b2: 3 } },
      { kind: 'k2', spec: { b1: 3, b2: 4 } },
      { spec: {} },
      {},
      { kind: 'k3', spec: { a1: 'x', b1: 'y' } },
    ],
  },
  {
    // MaskBench's template.json: `uniqueItems` on the items (strings), not on the array,
    // under a oneOf whose other branch is a string: a keyword of a kind the type leaves out
    // holds for every value of it, and its complement adds nothing.
    name: 'oneOf with array keywords on a string schema (uniqueItems, unevaluatedItems)',
    schema: {
      oneOf: [
        { type: 'array', items: { type: 'string', uniqueItems: true } },
        { type: 'string' },
        { type: 'integer', unevaluatedItems: false, unevaluatedProperties: false },
      ],
    },
    bases: [['a', 'a'], ['a', 1], 'a;b', 7, 1.5, {}, null],
  },
];

describe('schema-level negation against ajv', () => {
  it.each(CASES)('$name', ({ schema, bases }) => {
    expectAgreement(schema, nearInstances(bases), { numRuns: 300, seed: 5 });
  });
});

describe('complements of formats', () => {
  // Where ajv-formats reads the format as Sieve does (it is looser than RFC 3339 about times
  // and durations, and than RFC 3986 about URIs), it is the oracle.
  it.each([
    ['date', '0123456789-'],
    ['ipv4', '0123456789.'],
    ['ipv6', '0123456789abcdef:.'],
    ['relative-json-pointer', '0123456789#/~'],
  ])('not: {type: string, format: %s} against ajv', (format, alphabet) => {
    const strings = formatSuiteStrings(format).map((t) => t.data);
    const instances = fc.oneof(nearStrings(strings, alphabet), nearInstances([5, null, {}]));
    expectAgreement({ not: { type: 'string', format } }, instances, { numRuns: 400, seed: 11, minEach: 15 });
  });

  // Every format whose complement is built: the complement accepts a string iff the format's
  // own grammar refuses it, on the test suite's strings (whose verdicts it must also invert)
  // and on edits of them; a non-string satisfies every format, so none is in the complement.
  it.each([...EXACT_FORMATS])('%s: the complement is the strings the format refuses', (format) => {
    const positive = compileSchema({ type: 'string', format });
    const negative = compileSchema({ not: { format } });
    const suite = formatSuiteStrings(format);
    for (const { data, valid } of suite) expect(accepts(negative, JSON.stringify(data)), data).toBe(!valid);
    // (iri-reference has two strings of the suite outside the format; the edits below add more.)
    expect(suite.filter((t) => t.valid).length).toBeGreaterThanOrEqual(2);
    expect(suite.filter((t) => !t.valid).length).toBeGreaterThanOrEqual(2);
    const edited = fc.sample(
      nearStrings(
        suite.map((t) => t.data),
        '0123456789-:.TZ+/a#~[]%@',
      ),
      { numRuns: 300, seed: 3 },
    );
    let inFormat = 0;
    for (const text of edited.map((s) => JSON.stringify(s))) {
      const holds = accepts(positive, text);
      if (holds) inFormat++;
      expect(accepts(negative, text), text).toBe(!holds);
    }
    expect(inFormat).toBeGreaterThanOrEqual(10);
    expect(edited.length - inFormat).toBeGreaterThanOrEqual(10);
    for (const value of [5, 2.5, null, true, {}, []]) expect(accepts(negative, JSON.stringify(value))).toBe(false);
  });

  it('not: {format: date} takes invalid dates only; with type string, every other value too', () => {
    const notDate = compileSchema({ not: { format: 'date' } });
    const accepted = (grammar: typeof notDate, value: unknown): boolean => accepts(grammar, JSON.stringify(value));
    for (const value of ['2024-13-01', '2023-02-29', '2024-01-31 ', '']) expect(accepted(notDate, value), String(value)).toBe(true);
    for (const value of ['2024-01-31', '2024-02-29', '0000-02-29', 5, null]) expect(accepted(notDate, value), String(value)).toBe(false);
    const notStringDate = compileSchema({ not: { type: 'string', format: 'date' } });
    for (const value of ['2024-13-01', 5, null, {}]) expect(accepted(notStringDate, value), String(value)).toBe(true);
    expect(accepted(notStringDate, '2024-01-31')).toBe(false);
  });

  it('the complement of a format beside a pattern and a length stays a JSON string', () => {
    const grammar = compileSchema({ type: 'object', properties: { d: { type: 'string', maxLength: 12, not: { format: 'date' } } }, required: ['d'] });
    expect(accepts(grammar, '{"d": "2024-13-01"}')).toBe(true);
    expect(accepts(grammar, '{"d": "2024-01-31"}')).toBe(false);
    expect(accepts(grammar, '{"d": "x", "e": 1}')).toBe(true);
    expect(accepts(grammar, '{"d": "x"}"}')).toBe(false);
  });

  it('oneOf of formats: a string in exactly one', () => {
    const formats = ['date', 'date-time', 'time'];
    const oneOf = compileSchema({ type: 'string', oneOf: formats.map((format) => ({ format })) });
    const each = formats.map((format) => compileSchema({ type: 'string', format }));
    const strings = ['2024-01-31', '2024-01-31T10:00:00Z', '10:00:00Z', '23:59:60Z', '2024-01-31T', 'x'];
    const edited = fc.sample(nearStrings(strings, '0123456789-:TZ'), { numRuns: 200, seed: 9 });
    let held = 0;
    for (const text of [...strings, ...edited].map((s) => JSON.stringify(s))) {
      const holding = each.filter((g) => accepts(g, text)).length;
      if (holding === 1) held++;
      expect(accepts(oneOf, text), text).toBe(holding === 1);
    }
    expect(held).toBeGreaterThanOrEqual(10);
  });
});

// [schema, pointer, keyword, what the message names]
const REFUSED: [unknown, string, string, string][] = [
  [{ not: { type: 'string', format: 'idn-email' } }, '', 'not', 'idn-email'],
  [{ properties: { h: { not: { format: 'idn-hostname' } } } }, '/properties/h', 'not', 'idn-hostname'],
  [{ type: 'string', oneOf: [{ format: 'uri' }, { format: 'regex' }] }, '', 'oneOf', 'regex'],
  [{ not: { format: 'regex' } }, '', 'not', 'regex'],
  [{ properties: { a: { not: { type: 'array', uniqueItems: true } } } }, '/properties/a', 'not', 'uniqueItems'],
  [{ not: { type: 'object', propertyNames: { not: { if: { pattern: 'a' }, then: { maxLength: 2 }, else: { const: 'bb' } } } } }, '', 'not', 'propertyNames'],
  [
    {
      oneOf: [
        { type: 'array', uniqueItems: true },
        { type: 'array', minItems: 1 },
      ],
    },
    '',
    'oneOf',
    'uniqueItems',
  ],
  [{ type: 'number', not: { enum: [2.5, 1e21] } }, '', 'not', 'numeric constants'],
  // maxContains: each item satisfies contains or its complement, which regex has not.
  [{ type: 'array', contains: { type: 'string', format: 'regex' }, maxContains: 1 }, '/items', 'not', 'regex'],
  // Six witnesses on arrays of up to 40 items: 41 × 64 rules, each with up to 64 ways on.
  [{ type: 'array', maxItems: 40, allOf: Array.from({ length: 6 }, (_, i) => ({ contains: { const: i } })) }, '', 'contains', 'positions × witnesses'],
  [{ oneOf: Array.from({ length: 8 }, (_, i) => ({ type: 'object', minProperties: i, required: [`p${i}`, `q${i}`] })) }, '', 'oneOf', 'branches'],
];

describe('complements that cannot be built exactly', () => {
  it.each(REFUSED)('%j: unsupported at %j (%s)', (schema, pointer, keyword, named) => {
    const error = schemaErrorOf(schema);
    expect(error).toBeInstanceOf(SchemaError);
    expect(error).toMatchObject({ code: 'unsupported', pointer, keyword });
    expect(error?.message).toContain(named);
  });
});
