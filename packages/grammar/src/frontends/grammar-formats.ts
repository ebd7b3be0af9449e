/** One entry point for every text grammar format. */
import { parseBnf } from './bnf.ts';
import { parseLark } from './lark.ts';
import { compileRegexGrammar } from './regex.ts';
import type { GrammarIR } from '../ir/grammar-ir.ts';

/** Text grammar formats (JSON Schema has its own compiler). */
export const GRAMMAR_FORMATS = ['regex', 'gbnf', 'lark', 'ebnf'] as const;
export type GrammarFormat = (typeof GRAMMAR_FORMATS)[number];

/** Parses grammar source of the given format (throws `GrammarError` with a span). */
export function parseGrammar(format: GrammarFormat, source: string): GrammarIR {
  switch (format) {
    case 'regex':
      // A trailing newline in a regex file is not part of the pattern.
      return compileRegexGrammar(source.replace(/\r?\n$/, ''));
    case 'gbnf':
      return parseBnf(source, 'gbnf');
    case 'ebnf':
      return parseBnf(source, 'ebnf');
    case 'lark':
      return parseLark(source);
  }
}
