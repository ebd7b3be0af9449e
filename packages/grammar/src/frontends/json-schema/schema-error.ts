import { GrammarError } from '../../grammar-error.ts';

/**
 * A JSON Schema that cannot be compiled. `pointer` is the JSON pointer of the schema object
 * at fault ("" for the root), `keyword` the keyword. Thrown as one of its two subclasses.
 */
export class SchemaError extends GrammarError {
  override readonly name: string = 'SchemaError';
  constructor(
    code: 'unsupported' | 'invalid_schema',
    readonly pointer: string,
    readonly keyword: string,
    message: string,
  ) {
    super(code, `${pointer || '#'}: ${message}`);
  }
}

/** A valid schema using a keyword (or a form of one) Sieve cannot enforce exactly. */
export class UnsupportedSchemaError extends SchemaError {
  override readonly name: string = 'UnsupportedSchemaError';
  constructor(pointer: string, keyword: string, message: string) {
    super('unsupported', pointer, keyword, message);
  }
}

/** Not a valid JSON Schema: a keyword with a value of the wrong type or shape, a dangling `$ref`. */
export class InvalidSchemaError extends SchemaError {
  override readonly name: string = 'InvalidSchemaError';
  constructor(pointer: string, keyword: string, message: string) {
    super('invalid_schema', pointer, keyword, message);
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
