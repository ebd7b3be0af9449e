/**
 * `sieve compile --format F --grammar FILE [--strict] [--lenient] [--tokenizer T]` and
 * `sieve check --format F --grammar FILE [--strict] [--lenient] [--tokenizer T] [--input FILE]`.
 * F is a text grammar format or `json-schema` (FILE is then a JSON Schema document).
 */
import { brleCount } from '@sieve/format';
import {
  compileGrammar,
  GrammarError,
  GrammarLimitError,
  GRAMMAR_FORMATS,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  lineCol,
  Matcher,
  parseGrammar,
  renderError,
  SchemaError,
  type CompiledGrammar,
  type GrammarIR,
  type JsonSchemaOptions,
  type SchemaWarning,
} from '@sieve/grammar';
import { loadKernel } from '@sieve/kernel';
import type { VocabIndex } from '@sieve/format';
import { readFileSync } from 'node:fs';
import { CliError, type Output } from './output.ts';
import { loadCliTokenizer } from './tokenizer.ts';

/** Formats `--format` takes: JSON Schema and the text grammar formats. */
export const CLI_FORMATS = ['json-schema', ...GRAMMAR_FORMATS] as const;
type CliFormat = (typeof CLI_FORMATS)[number];

export interface GrammarArgs {
  readonly format: string | undefined;
  readonly grammar: string | undefined;
  readonly tokenizer: string | undefined;
  /** JSON Schema only: a missing `additionalProperties` means `false`. */
  readonly strict?: boolean | undefined;
  /** JSON Schema only: unsupported keywords become warnings instead of errors. */
  readonly lenient?: boolean | undefined;
  /** JSON Schema only: `format` is an annotation (asserts nothing), as the default vocabulary has it. */
  readonly annotateFormats?: boolean | undefined;
  /** Regex only: RegExp flags (`i`, `s`, `u`, `v`). */
  readonly flags?: string | undefined;
}

/**
 * A compile error in the CLI's JSON shape: code and message, with a span (plus line and
 * column) for text grammars, or the pointer and keyword for schemas; a limit error names the
 * limit and, for a schema, the pointer of the part that needed it.
 */
export class GrammarCliError extends CliError {
  constructor(
    readonly error: GrammarError,
    readonly source: string,
  ) {
    super(error.code, renderError(source, error), 2);
  }

  toJSON(): object {
    if (this.error instanceof SchemaError)
      return { code: this.error.code, message: this.error.message, pointer: this.error.pointer, keyword: this.error.keyword };
    const { span } = this.error;
    const limit = this.error instanceof GrammarLimitError ? this.error : undefined;
    return {
      code: this.error.code,
      message: this.error.message,
      ...(span && { span: { ...span, ...lineCol(this.source, span.start) } }),
      ...(limit && { limit: limit.limit, value: limit.value }),
      ...(limit?.lexeme?.origin !== undefined && { pointer: limit.lexeme.origin }),
    };
  }
}

interface Loaded {
  readonly grammar: CompiledGrammar;
  readonly compileMs: number;
  readonly format: CliFormat;
  /** JSON Schema only: keywords `--lenient` let through unenforced. */
  readonly warnings?: readonly SchemaWarning[];
}

/** `--format`, checked with the options that belong to one format only. */
export function formatOf(args: Omit<GrammarArgs, 'tokenizer'>): CliFormat {
  if (args.format === undefined || !(CLI_FORMATS as readonly string[]).includes(args.format)) {
    throw new CliError('usage', `--format must be one of ${CLI_FORMATS.join(', ')}`);
  }
  const format = args.format as CliFormat;
  if (format !== 'json-schema' && (args.strict || args.lenient || args.annotateFormats))
    throw new CliError('usage', '--strict, --lenient and --annotate-formats apply to --format json-schema only');
  if (format !== 'regex' && args.flags !== undefined) throw new CliError('usage', '--flags applies to --format regex only');
  return format;
}

function load(args: GrammarArgs, out: Output): Loaded {
  const format = formatOf(args);
  if (args.grammar === undefined) throw new CliError('usage', '--grammar FILE is required');
  let source: string;
  try {
    source = readFileSync(args.grammar, 'utf8');
  } catch {
    throw new CliError('not_found', `cannot read ${args.grammar}`);
  }
  const started = performance.now();
  try {
    let ir: GrammarIR;
    let warnings: readonly SchemaWarning[] | undefined;
    if (format === 'json-schema') {
      const compiled = jsonSchemaGrammar(parseSchemaJson(source), schemaOptionsOf(args));
      ir = compiled.grammar;
      warnings = compiled.warnings;
      for (const warning of warnings) out.progress(`warning: ${warning.pointer || '#'}: ${warning.message} (${warning.keyword} not enforced)`);
    } else {
      ir = parseGrammar(format, source, args.flags === undefined ? {} : { flags: args.flags });
    }
    const grammar = compileGrammar(ir);
    return { grammar, compileMs: performance.now() - started, format, ...(warnings && { warnings }) };
  } catch (error) {
    if (error instanceof GrammarError) throw new GrammarCliError(error, source);
    throw error;
  }
}

// A schema file that is not JSON is an invalid schema; the span is there when the JSON
// parser tells the offset (V8 does for most errors, not for an unexpected token).
export function parseSchemaJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const start = position ? Math.min(Number(position[1]), source.length) : undefined;
    throw new GrammarError(
      'invalid_schema',
      `not valid JSON: ${message}`,
      start === undefined ? undefined : { start, end: Math.min(start + 1, source.length) },
    );
  }
}

// A matcher on the kernel (the hot path users get), with everything freed by `dispose`.
async function kernelMatcher(grammar: CompiledGrammar, vocab: VocabIndex): Promise<{ matcher: KernelMatcher; dispose: () => void }> {
  const kernel = await loadKernel();
  const matcher = new KernelMatcher(new KernelGrammar(kernel, grammar), kernel.loadVocab(vocab.file), { eosTokenIds: vocab.meta.eos_token_ids });
  return { matcher, dispose: () => kernel.dispose() };
}

export async function compileCommand(args: GrammarArgs, out: Output): Promise<number> {
  const { grammar, compileMs, format, warnings } = load(args, out);
  const stats: Record<string, unknown> = {
    format,
    // (The grammar's own: a rewrite for greedy terminals adds variants, `terminals` below.)
    lexemes: grammar.ir.lexemes.length,
    rules: grammar.ir.rules.size,
    bnf_rules: grammar.ruleLhs.length,
    compile_ms: round(compileMs),
  };
  // Greedy terminals that could swallow what follows them (the grammar was rewritten for them).
  if (grammar.swallowing.length > 0) {
    stats.swallowing = grammar.swallowing;
    stats.terminals = grammar.terminalCount;
  }
  if (warnings) stats.warnings = warnings;
  if (args.tokenizer !== undefined) {
    const { vocab } = loadCliTokenizer(args.tokenizer);
    const started = performance.now();
    const { matcher, dispose } = await kernelMatcher(grammar, vocab);
    const mask = matcher.computeMask();
    dispose();
    stats.tokenizer = vocab.meta.name;
    stats.first_mask_ms = round(performance.now() - started);
    stats.first_mask_allowed = brleCount(mask, vocab.tokenCount);
  }
  out.result(stats, () =>
    Object.entries(stats)
      .filter(([k]) => k !== 'warnings')
      .map(([k, v]) => `${k.padEnd(20)} ${String(v)}`)
      .join('\n'),
  );
  return 0;
}

export async function checkCommand(args: GrammarArgs, inputFile: string | undefined, out: Output): Promise<number> {
  const { grammar, warnings } = load(args, out);
  // The input's bytes as they are (a byte that is no UTF-8 must be refused as such, not read
  // as U+FFFD); a tokenizer splits text, so with one the input must be UTF-8.
  const bytes = new Uint8Array(readFileSync(inputFile ?? 0));
  let result: {
    accepted: boolean;
    complete: boolean;
    rejected_at: number | null;
    rejected_byte: number | null;
    tokens: number;
    warnings?: readonly SchemaWarning[];
  };
  if (args.tokenizer === undefined) {
    const matcher = new Matcher(grammar);
    let rejected = -1;
    for (let i = 0; i < bytes.length && rejected < 0; i++) if (!matcher.commitBytes(bytes.subarray(i, i + 1))) rejected = i;
    result = {
      accepted: rejected < 0,
      complete: rejected < 0 && matcher.isAccepting(),
      rejected_at: rejected < 0 ? null : rejected,
      rejected_byte: rejected < 0 ? null : rejected,
      tokens: bytes.length,
    };
  } else {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new CliError('usage', 'the input is not UTF-8 text, which --tokenizer splits into tokens (without --tokenizer, check reads its bytes one by one)');
    }
    const tokenizer = loadCliTokenizer(args.tokenizer);
    const ids = tokenizer.encode(text);
    const { matcher, dispose } = await kernelMatcher(grammar, tokenizer.vocab);
    let rejected = -1;
    let byte = 0;
    for (let i = 0; i < ids.length && rejected < 0; i++) {
      if (!matcher.commitToken(ids[i]!)) rejected = i;
      else byte += tokenizer.vocab.tokenBytes(ids[i]!).length;
    }
    result = {
      accepted: rejected < 0,
      complete: rejected < 0 && matcher.isAccepting(),
      rejected_at: rejected < 0 ? null : rejected,
      rejected_byte: rejected < 0 ? null : byte,
      tokens: ids.length,
    };
    dispose();
  }
  if (warnings) result.warnings = warnings;
  out.result(result, () => {
    if (!result.accepted)
      return `rejected at ${args.tokenizer ? `token ${result.rejected_at}, ` : ''}byte ${result.rejected_byte}: ${JSON.stringify(new TextDecoder().decode(bytes.subarray(result.rejected_byte!, result.rejected_byte! + 20)))}`;
    return result.complete ? 'accepted: complete' : 'accepted so far, but incomplete';
  });
  return result.accepted && result.complete ? 0 : 1;
}

/** The JSON Schema options the flags give. */
export function schemaOptionsOf(args: Omit<GrammarArgs, 'tokenizer'>): JsonSchemaOptions {
  return { strict: args.strict ?? false, lenient: args.lenient ?? false, ...(args.annotateFormats === true && { formats: 'annotate' as const }) };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
