/**
 * `sieve index build --format F --grammar FILE --tokenizer T [-o FILE] [--max-states N]`:
 * the grammar's ahead-of-time mask index for one tokenizer (a preset, a tokenizer.json, or
 * a `.vocab` vocab index), written as a `.sieve` file.
 */
import { GrammarError } from '@sieve/grammar';
import { buildSpecMaskIndex } from '@sieve/runtime';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { grammarSpecOf, number } from './generate-command.ts';
import { GrammarCliError, type GrammarArgs } from './grammar-command.ts';
import { CliError, type Output } from './output.ts';
import { loadCliTokenizer } from './tokenizer.ts';

export interface IndexArgs extends GrammarArgs {
  readonly output: string | undefined;
  readonly maxStates: string | undefined;
}

export async function indexBuildCommand(args: IndexArgs, out: Output): Promise<number> {
  if (args.tokenizer === undefined) throw new CliError('usage', '--tokenizer T is required (a preset, tokenizer.json, or a .vocab file)');
  const maxStates = number('--max-states', args.maxStates, 50_000);
  const { spec, source } = grammarSpecOf(args);
  const vocabFile = args.tokenizer.endsWith('.vocab') ? readVocab(args.tokenizer) : loadCliTokenizer(args.tokenizer).vocab.file;
  const output = args.output ?? `${basename(args.grammar!).replace(/\.[^.]*$/, '')}.sieve`;
  let built;
  try {
    built = await buildSpecMaskIndex(spec, vocabFile, {
      maxStates,
      description: `${args.format} ${basename(args.grammar!)}`,
      onProgress: (done, found) => done % 10_000 === 0 && out.progress(`${done} states indexed, ${found} found`),
    });
  } catch (error) {
    if (error instanceof GrammarError) throw new GrammarCliError(error, source);
    throw error;
  }
  writeFileSync(output, built.file);
  const summary = {
    output,
    states: built.stateCount,
    complete: built.complete,
    bytes: built.file.byteLength,
    build_ms: Math.round(built.buildMs),
    tokenizer: built.index.meta.tokenizer,
  };
  out.result(summary, () =>
    [
      `${output}: ${summary.states} states, ${(summary.bytes / 1024).toFixed(1)} KiB, built in ${summary.build_ms} ms`,
      built.complete
        ? 'every reachable state is indexed'
        : `incomplete: the grammar reaches more than ${maxStates} states (--max-states); past them masks are computed live`,
    ].join('\n'),
  );
  return 0;
}

function readVocab(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    throw new CliError('not_found', `cannot read ${path}`);
  }
}
