/** The text grammar formats, by name (`parseGrammar` in parse-grammar.ts parses them). */

/** Text grammar formats (JSON Schema has its own compiler). */
export const GRAMMAR_FORMATS = ['regex', 'gbnf', 'lark', 'ebnf'] as const;
export type GrammarFormat = (typeof GRAMMAR_FORMATS)[number];
