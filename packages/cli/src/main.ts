/**
 * The `sieve` command line. Every command takes `--json` for machine-readable output on
 * stdout; errors then print `{"error": {code, message}}`. Exit codes: 0 success, 1 a check
 * failed, 2 bad input or usage.
 */
import { parseArgs } from 'node:util';
import { CliError, makeOutput } from './output.ts';
import { runMaskBench, runSuite, sieveEngine } from './conformance.ts';
import { xgrammarEngine } from './xgrammar-engine.ts';
import { checkCommand, compileCommand, GrammarCliError } from './grammar-command.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocuments, renderBenchmarks } from './bench-report.ts';
import { vocabBuild, vocabInfo } from './vocab-command.ts';

const USAGE = `usage:
  sieve vocab build <preset|tokenizer.json> [-o FILE] [--json]
  sieve vocab info <preset|FILE> [--json]
  sieve compile --format F --grammar FILE [--strict] [--lenient] [--annotate-formats] [--flags F] [--tokenizer T] [--json]
  sieve check --format F --grammar FILE [--strict] [--lenient] [--annotate-formats] [--flags F] [--tokenizer T] [--input FILE] [--json]
  sieve bench suite --dir DIR [--tokenizer T] [--outcomes FILE] [--json]
  sieve bench maskbench --dir DIR [--tokenizer T] [--engine sieve|xgrammar] [--limit N] [--outcomes FILE] [--json]
  sieve bench report --input FILE [-o FILE]   (markdown from the JSON pnpm bench printed)
  sieve index build --format F --grammar FILE [--flags F] --tokenizer T|FILE.vocab [-o FILE] [--max-states N] [--json]
  sieve fixtures build [--out DIR] [--json]   (tiny random-weight models with real tokenizers, default DIR .fixtures/models)
  sieve generate --model DIR|HUB_ID [--vocab FILE] [--format F --grammar FILE [--flags F]] [--system TEXT] --prompt TEXT [--raw] [--max-tokens N] [--seed S] [--temperature X] [--json]

formats: json-schema, regex, gbnf, lark, ebnf
  (json-schema: --strict reads a missing additionalProperties as false,
   --lenient turns unsupported keywords into warnings,
   --annotate-formats reads format as an annotation, as JSON Schema's default vocabulary does;
   regex: --flags takes RegExp flags i, s, u, v, e.g. --flags u for \\p{L} or astral characters)
tokenizers: stories260k, llama3.1, qwen3, gemma3, or a path to tokenizer.json`;

/** Runs the CLI on `args`; returns the exit code. */
export async function main(
  args: readonly string[],
  stdout: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  stderr: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<number> {
  const json = args.includes('--json');
  const out = makeOutput(json, stdout, stderr);
  try {
    const { positionals, values } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        format: { type: 'string' },
        grammar: { type: 'string' },
        tokenizer: { type: 'string' },
        input: { type: 'string' },
        dir: { type: 'string' },
        limit: { type: 'string' },
        outcomes: { type: 'string' },
        engine: { type: 'string' },
        strict: { type: 'boolean' },
        lenient: { type: 'boolean' },
        flags: { type: 'string' },
        'annotate-formats': { type: 'boolean' },
        model: { type: 'string' },
        prompt: { type: 'string' },
        system: { type: 'string' },
        raw: { type: 'boolean' },
        vocab: { type: 'string' },
        'max-tokens': { type: 'string' },
        seed: { type: 'string' },
        temperature: { type: 'string' },
        'max-states': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [group, command, target, ...rest] = positionals;
    if (values.help || group === undefined) {
      stdout(USAGE);
      return values.help ? 0 : 2;
    }
    const grammarArgs = {
      format: values.format,
      grammar: values.grammar,
      tokenizer: values.tokenizer,
      strict: values.strict,
      lenient: values.lenient,
      flags: values.flags,
      annotateFormats: values['annotate-formats'],
    };
    if (group === 'generate' && command === undefined) {
      // Loaded on demand: it brings transformers.js and onnxruntime-node.
      const { generateCommand } = await import('./generate-command.ts');
      return await generateCommand(
        {
          ...grammarArgs,
          model: values.model,
          prompt: values.prompt,
          system: values.system,
          raw: values.raw,
          vocab: values.vocab,
          maxTokens: values['max-tokens'],
          seed: values.seed,
          temperature: values.temperature,
        },
        out,
      );
    }
    if (group === 'fixtures' && command === 'build' && target === undefined) {
      const { buildFixtures } = await import('./fixture-models.ts');
      const models = buildFixtures(values.out ?? join('.fixtures', 'models'));
      out.result({ models }, () => models.map((m) => `${m.id}: ${m.dir} (${m.tokenizer}, ${m.vocab_size} tokens, ${m.bytes} bytes)`).join('\n'));
      return 0;
    }
    if (group === 'index' && command === 'build' && target === undefined) {
      const { indexBuildCommand } = await import('./index-command.ts');
      return await indexBuildCommand({ ...grammarArgs, output: values.output, maxStates: values['max-states'] }, out);
    }
    if (group === 'compile' && command === undefined) return await compileCommand(grammarArgs, out);
    if (group === 'check' && command === undefined) return await checkCommand(grammarArgs, values.input, out);
    if (group === 'bench' && (command === 'suite' || command === 'maskbench') && target === undefined) {
      if (values.dir === undefined) throw new CliError('usage', '--dir DIR is required');
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && !(limit > 0)) throw new CliError('usage', '--limit must be a positive number');
      const engine = values.engine ?? 'sieve';
      if (engine !== 'sieve' && (engine !== 'xgrammar' || command !== 'maskbench'))
        throw new CliError('usage', `unknown engine ${JSON.stringify(engine)}: sieve, or xgrammar for maskbench`);
      const { outcomes, ...summary } =
        command === 'suite'
          ? await runSuite(values.dir, values.tokenizer ?? 'llama3.1')
          : await runMaskBench(values.dir, values.tokenizer ?? 'llama3.1', limit, true, engine === 'xgrammar' ? xgrammarEngine : sieveEngine);
      if (values.outcomes !== undefined) writeFileSync(values.outcomes, JSON.stringify(outcomes, null, 1) + '\n');
      out.result(summary, () => JSON.stringify(summary, null, 2));
      return 0;
    }
    if (group === 'bench' && command === 'report' && target === undefined) {
      if (values.input === undefined) throw new CliError('usage', '--input FILE (the output of pnpm bench) is required');
      const page = renderBenchmarks(parseDocuments(readFileSync(values.input, 'utf8')));
      if (values.output !== undefined) writeFileSync(values.output, page);
      else stdout(page);
      return 0;
    }
    if (group === 'vocab' && target !== undefined && rest.length === 0) {
      if (command === 'build') return (vocabBuild(target, values.output, out), 0);
      if (command === 'info') return (vocabInfo(target, out), 0);
    }
    throw new CliError('usage', `unknown command: sieve ${positionals.join(' ')}\n${USAGE}`);
  } catch (error) {
    const code =
      error instanceof CliError || (error instanceof Error && 'code' in error && typeof error.code === 'string')
        ? String((error as { code: string }).code)
        : 'error';
    const message = error instanceof Error ? error.message : String(error);
    if (json) stdout(JSON.stringify({ error: error instanceof GrammarCliError ? error.toJSON() : { code, message } }));
    else stderr(`sieve: ${message}`);
    return error instanceof CliError ? error.exitCode : 2;
  }
}
