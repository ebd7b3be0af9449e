/**
 * `sieve compile --format F --grammar FILE [--tokenizer T]` and
 * `sieve check --format F --grammar FILE [--tokenizer T] [--input FILE]`.
 */
import { brleCount } from '@sieve/format';
import { compileGrammar, GrammarError, GRAMMAR_FORMATS, KernelGrammar, KernelMatcher, lineCol, Matcher, parseGrammar, renderError, type CompiledGrammar, type GrammarFormat } from '@sieve/grammar';
import { loadKernel } from '@sieve/kernel';
import type { VocabIndex } from '@sieve/format';
import { readFileSync } from 'node:fs';
import { CliError, type Output } from './output.ts';
import { loadCliTokenizer } from './tokenizer.ts';

export interface GrammarArgs {
  readonly format: string | undefined;
  readonly grammar: string | undefined;
  readonly tokenizer: string | undefined;
}

/** A compile error in the CLI's JSON shape: code, message, span with line and column. */
export class GrammarCliError extends CliError {
  constructor(
    readonly error: GrammarError,
    readonly source: string,
  ) {
    super(error.code, renderError(source, error), 2);
  }

  toJSON(): object {
    const { span } = this.error;
    return {
      code: this.error.code,
      message: this.error.message,
      ...(span && { span: { ...span, ...lineCol(this.source, span.start) } }),
    };
  }
}

function load(args: GrammarArgs): { grammar: CompiledGrammar; compileMs: number; format: GrammarFormat } {
  if (args.format === undefined || !(GRAMMAR_FORMATS as readonly string[]).includes(args.format)) {
    throw new CliError('usage', `--format must be one of ${GRAMMAR_FORMATS.join(', ')}`);
  }
  if (args.grammar === undefined) throw new CliError('usage', '--grammar FILE is required');
  let source: string;
  try {
    source = readFileSync(args.grammar, 'utf8');
  } catch {
    throw new CliError('not_found', `cannot read ${args.grammar}`);
  }
  const format = args.format as GrammarFormat;
  const started = performance.now();
  try {
    const grammar = compileGrammar(parseGrammar(format, source));
    return { grammar, compileMs: performance.now() - started, format };
  } catch (error) {
    if (error instanceof GrammarError) throw new GrammarCliError(error, source);
    throw error;
  }
}

// A matcher on the kernel (the hot path users get), with everything freed by `dispose`.
async function kernelMatcher(grammar: CompiledGrammar, vocab: VocabIndex): Promise<{ matcher: KernelMatcher; dispose: () => void }> {
  const kernel = await loadKernel();
  const matcher = new KernelMatcher(new KernelGrammar(kernel, grammar), kernel.loadVocab(vocab.file), { eosTokenIds: vocab.meta.eos_token_ids });
  return { matcher, dispose: () => kernel.dispose() };
}

export async function compileCommand(args: GrammarArgs, out: Output): Promise<number> {
  const { grammar, compileMs, format } = load(args);
  const stats: Record<string, unknown> = {
    format,
    lexemes: grammar.terminalCount,
    rules: grammar.ir.rules.size,
    bnf_rules: grammar.ruleLhs.length,
    compile_ms: round(compileMs),
  };
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
  out.result(stats, () => Object.entries(stats).map(([k, v]) => `${k.padEnd(20)} ${String(v)}`).join('\n'));
  return 0;
}

export async function checkCommand(args: GrammarArgs, inputFile: string | undefined, out: Output): Promise<number> {
  const { grammar } = load(args);
  const text = readFileSync(inputFile ?? 0, 'utf8');
  const bytes = new TextEncoder().encode(text);
  let result: { accepted: boolean; complete: boolean; rejected_at: number | null; rejected_byte: number | null; tokens: number };
  if (args.tokenizer === undefined) {
    const matcher = new Matcher(grammar);
    let rejected = -1;
    for (let i = 0; i < bytes.length && rejected < 0; i++) if (!matcher.commitBytes(bytes.subarray(i, i + 1))) rejected = i;
    result = { accepted: rejected < 0, complete: rejected < 0 && matcher.isAccepting(), rejected_at: rejected < 0 ? null : rejected, rejected_byte: rejected < 0 ? null : rejected, tokens: bytes.length };
  } else {
    const tokenizer = loadCliTokenizer(args.tokenizer);
    const ids = tokenizer.encode(text);
    const { matcher, dispose } = await kernelMatcher(grammar, tokenizer.vocab);
    let rejected = -1;
    let byte = 0;
    for (let i = 0; i < ids.length && rejected < 0; i++) {
      if (!matcher.commitToken(ids[i]!)) rejected = i;
      else byte += tokenizer.vocab.tokenBytes(ids[i]!).length;
    }
    result = { accepted: rejected < 0, complete: rejected < 0 && matcher.isAccepting(), rejected_at: rejected < 0 ? null : rejected, rejected_byte: rejected < 0 ? null : byte, tokens: ids.length };
    dispose();
  }
  out.result(result, () => {
    if (!result.accepted) return `rejected at ${args.tokenizer ? `token ${result.rejected_at}, ` : ''}byte ${result.rejected_byte}: ${JSON.stringify(new TextDecoder().decode(bytes.subarray(result.rejected_byte!, result.rejected_byte! + 20)))}`;
    return result.complete ? 'accepted: complete' : 'accepted so far, but incomplete';
  });
  return result.accepted && result.complete ? 0 : 1;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
