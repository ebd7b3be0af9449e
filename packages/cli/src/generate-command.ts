/**
 * `sieve generate --model DIR|HUB_ID [--vocab FILE] [--format F --grammar FILE] [--system TEXT]
 * --prompt TEXT [--raw] [--max-tokens N] [--seed S] [--temperature X]`: constrained generation
 * in Node (onnxruntime-node), through the model's chat template when it has one.
 */
import { GrammarError } from '@sieve/grammar';
import { createEngine, Grammar, type GrammarSpec } from '@sieve/runtime';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatOf, GrammarCliError, parseSchemaJson, schemaOptionsOf, type GrammarArgs } from './grammar-command.ts';
import { CliError, type Output } from './output.ts';

export interface GenerateArgs extends Omit<GrammarArgs, 'tokenizer'> {
  readonly model: string | undefined;
  readonly prompt: string | undefined;
  readonly system: string | undefined;
  readonly raw: boolean | undefined;
  readonly vocab: string | undefined;
  readonly maxTokens: string | undefined;
  readonly seed: string | undefined;
  readonly temperature: string | undefined;
}

export async function generateCommand(args: GenerateArgs, out: Output): Promise<number> {
  if (args.model === undefined) throw new CliError('usage', '--model DIR|HUB_ID is required');
  if (args.prompt === undefined) throw new CliError('usage', '--prompt TEXT is required');
  const maxTokens = number('--max-tokens', args.maxTokens, 256);
  const temperature = number('--temperature', args.temperature, 1);
  const seed = args.seed === undefined ? undefined : number('--seed', args.seed, 0);
  const grammar = args.format === undefined && args.grammar === undefined ? undefined : compile(args);
  // A folder on disk is given to the loader as a path (hub ids have no leading . or /).
  const model = /^[./]/.test(args.model) || args.model.includes('\\') ? resolve(args.model) : args.model;
  const vocab = args.vocab === undefined ? undefined : readVocab(args.vocab);
  const engine = createEngine();
  try {
    const info = await engine.load({
      model,
      device: 'cpu',
      ...(vocab === undefined ? {} : { vocab }),
      onProgress: (p) => p.kind === 'ready' && out.progress(`loaded ${args.model}`),
    });
    const chat = info.hasChatTemplate && args.raw !== true;
    if (!chat && args.system !== undefined)
      throw new CliError(
        'usage',
        args.raw === true ? '--system needs the chat template (drop --raw)' : `--system needs a chat template, and ${args.model} has none`,
      );
    const result = await engine.generate({
      ...(chat
        ? { messages: [...(args.system === undefined ? [] : [{ role: 'system', content: args.system }]), { role: 'user', content: args.prompt }] }
        : { prompt: args.prompt }),
      ...(grammar === undefined ? {} : { constraint: grammar }),
      maxTokens,
      sampling: { temperature, ...(seed === undefined ? {} : { seed }) },
    });
    const summary = {
      text: result.text,
      chat,
      prompt_tokens: result.stats.promptTokens,
      tokens: result.tokens.length,
      forced_tokens: result.forcedTokens,
      stop_reason: result.stopReason,
      ms_per_token: result.tokens.length === 0 ? 0 : result.stats.totalMs / result.tokens.length,
      mask_us_mean: result.stats.maskUsMean,
    };
    out.result(
      summary,
      () =>
        `${result.text}\n\n(${summary.tokens} tokens, ${summary.forced_tokens} forced, stopped: ${summary.stop_reason}, ${summary.ms_per_token.toFixed(2)} ms/token, mask ${summary.mask_us_mean.toFixed(0)} µs)`,
    );
    return 0;
  } finally {
    grammar?.dispose();
    await engine.dispose();
  }
}

function readVocab(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    throw new CliError('not_found', `cannot read ${path}`);
  }
}

function compile(args: GenerateArgs): Grammar {
  const { spec, source } = grammarSpecOf(args);
  try {
    return new Grammar(spec);
  } catch (error) {
    if (error instanceof GrammarError) throw new GrammarCliError(error, source);
    throw error;
  }
}

/** The grammar spec `--format F --grammar FILE [--strict] [--lenient]` name, and the file's text. */
export function grammarSpecOf(args: Omit<GrammarArgs, 'tokenizer'>): { readonly spec: GrammarSpec; readonly source: string } {
  formatOf(args);
  if (args.grammar === undefined) throw new CliError('usage', '--grammar FILE is required with --format');
  let source: string;
  try {
    source = readFileSync(args.grammar, 'utf8');
  } catch {
    throw new CliError('not_found', `cannot read ${args.grammar}`);
  }
  try {
    const spec: GrammarSpec =
      args.format === 'json-schema'
        ? { type: 'json-schema', schema: parseSchemaJson(source), options: schemaOptionsOf(args) }
        : args.format === 'regex'
          ? { type: 'regex', grammar: source, ...(args.flags === undefined ? {} : { flags: args.flags }) }
          : { type: args.format as Exclude<GrammarSpec['type'], 'json-schema' | 'json' | 'tool-calls' | 'regex'>, grammar: source };
    return { spec, source };
  } catch (error) {
    if (error instanceof GrammarError) throw new GrammarCliError(error, source);
    throw error;
  }
}

/** The number a flag gives, or `fallback` when it is absent. */
export function number(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new CliError('usage', `${flag} must be a number, not ${JSON.stringify(value)}`);
  return n;
}
