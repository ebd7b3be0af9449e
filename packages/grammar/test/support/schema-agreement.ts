// Agreement of a compiled JSON Schema with ajv on generated instances: every instance's texts
// (JSON.stringify, Python's json.dumps) are accepted iff ajv accepts the instance. Both sides
// must be met — a run whose instances were all valid (or all invalid) proves nothing — so the
// counts of each are returned for the caller to bound.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { JsonSchemaOptions } from '../../src/index.ts';
import { accepts, ajvValidator, compileSchema, jsonTexts } from './json-schema-oracle.ts';

/** How many generated instances were valid and invalid. */
export interface AgreementCounts {
  readonly valid: number;
  readonly invalid: number;
}

/**
 * Checks `schema`'s grammar against ajv on `numRuns` instances from `instances` (fast-check,
 * seeded); `texts` gives the spellings of a value to check (default: the serializers'; under
 * compact whitespace pass `JSON.stringify` alone).
 * Fails unless at least `minEach` instances of each kind were seen.
 */
export function expectAgreement(
  schema: unknown,
  instances: fc.Arbitrary<unknown>,
  {
    numRuns = 200,
    seed = 1,
    options = {},
    minEach = 5,
    texts = (value) => jsonTexts(value, false),
  }: { numRuns?: number; seed?: number; options?: JsonSchemaOptions; minEach?: number; texts?: (value: unknown) => string[] } = {},
): AgreementCounts {
  const grammar = compileSchema(schema, options);
  const validate = ajvValidator(schema);
  let valid = 0;
  let invalid = 0;
  fc.assert(
    fc.property(instances, (value) => {
      const ok = validate(value);
      if (ok) valid++;
      else invalid++;
      for (const text of texts(value)) expect(accepts(grammar, text), `${JSON.stringify(schema)}: ${text}`).toBe(ok);
    }),
    { numRuns, seed },
  );
  expect(valid, 'valid instances generated').toBeGreaterThanOrEqual(minEach);
  expect(invalid, 'invalid instances generated').toBeGreaterThanOrEqual(minEach);
  return { valid, invalid };
}
