import { GrammarError } from '../errors.ts';

/**
 * A JSON Schema that cannot be compiled: `unsupported` (valid, but a keyword Sieve cannot
 * enforce exactly) or `invalid_schema` (not a valid schema). `pointer` is the JSON pointer of
 * the schema object, `keyword` the keyword at fault.
 */
export class SchemaError extends GrammarError {
  override readonly name = 'SchemaError';
  constructor(
    code: 'unsupported' | 'invalid_schema',
    readonly pointer: string,
    readonly keyword: string,
    message: string,
  ) {
    super(code, `${pointer || '#'}: ${message}`);
  }
}

/** A keyword `lenient: true` let through unenforced. */
export interface SchemaWarning {
  readonly pointer: string;
  readonly keyword: string;
  readonly message: string;
}

/** Appends a key to a JSON pointer. */
export function pointerJoin(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
