/** One entry point for every text grammar format. */
import { parseBnf } from './bnf.ts';
import type { GrammarFormat } from './grammar-formats.ts';
import { parseLark } from './lark.ts';
import { compileRegexGrammar } from './regex.ts';
import type { GrammarIR } from '../ir/grammar-ir.ts';

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
