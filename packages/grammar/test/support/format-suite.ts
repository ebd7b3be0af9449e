// The JSON-Schema-Test-Suite's optional format tests (draft 2020-12): instances of each format
// with whether each is one, an oracle for the formats' regexes and their complements.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FORMAT_SUITE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  '..',
  'shared',
  'corpora',
  'json-schema-test-suite',
  'tests',
  'draft2020-12',
  'optional',
  'format',
);

export interface FormatCase {
  readonly format: string;
  readonly data: unknown;
  readonly valid: boolean;
  readonly description: string;
}

/** Every test of the format files whose schema is a format alone (`only`: of that format's file). */
export function formatSuiteCases(only?: string): FormatCase[] {
  const files = only === undefined ? readdirSync(FORMAT_SUITE) : [`${only}.json`];
  return files.flatMap((file) => {
    const groups = JSON.parse(readFileSync(join(FORMAT_SUITE, file), 'utf8')) as {
      schema: Record<string, unknown>;
      tests: { data: unknown; valid: boolean; description: string }[];
    }[];
    return groups.flatMap(({ schema, tests }) =>
      typeof schema.format === 'string' && Object.keys(schema).every((k) => k === 'format' || k === '$schema')
        ? tests.map((t) => ({ format: schema.format as string, ...t }))
        : [],
    );
  });
}

/** The string instances of a format in the suite, with whether each is one. */
export function formatSuiteStrings(format: string): { data: string; valid: boolean }[] {
  return formatSuiteCases(format).filter((t): t is FormatCase & { data: string } => typeof t.data === 'string');
}
