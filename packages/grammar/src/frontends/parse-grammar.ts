/** One entry point for every text grammar format. */
import { parseBnf } from './bnf.ts';
import type { GrammarFormat } from './grammar-formats.ts';
import type { JsonSchemaOptions } from './json-schema/compile-json-schema.ts';
import { parseLark } from './lark.ts';
import { compileRegexGrammar } from './regex.ts';
import { GrammarError } from '../grammar-error.ts';
import type { GrammarIR } from '../ir/grammar-ir.ts';

/** How to read a text grammar, where its format has a choice. */
export interface GrammarTextOptions {
  /** Regex only: RegExp flags (`i`, `s`, `u`, `v`; see `RegexOptions.flags`). */
  readonly flags?: string;
  /** Lark only: how its `%json` values are compiled (e.g. `integerFractions: false` for generation). */
  readonly schemaOptions?: JsonSchemaOptions;
}

/** Parses grammar source of the given format (throws `GrammarError` with a span). */
export function parseGrammar(format: GrammarFormat, source: string, options: GrammarTextOptions = {}): GrammarIR {
  if (options.flags !== undefined && format !== 'regex') throw new GrammarError('unsupported', `flags apply to regex grammars, not ${format}`);
  switch (format) {
    case 'regex':
      // A trailing newline in a regex file is not part of the pattern.
      return compileRegexGrammar(source.replace(/\r?\n$/, ''), options.flags === undefined ? {} : { flags: options.flags });
    case 'gbnf':
      return parseBnf(source, 'gbnf');
    case 'ebnf':
      return parseBnf(source, 'ebnf');
    case 'lark':
      return parseLark(source, 'start', options.schemaOptions);
  }
}
