/**
 * The peer: `@mlc-ai/web-xgrammar` (XGrammar compiled to WASM) driven exactly like Sieve in
 * the MaskBench runner — same tokenizer, same instances, same serializations, same timing
 * (per token: the mask, then accepting the token). Its settings mirror Sieve's defaults: any
 * JSON whitespace (at most 20 in a row) and the spec's open objects (`strictMode: false`).
 * XGrammar relaxes keywords it does not support instead of refusing the schema, so what it
 * accepts that it should not shows up as `invalid_accepted`. Seen with 0.1.27 on llama3.1:
 * compiling takes 0.3 to 60 s per schema (the token mask cache for 128k tokens, single
 * threaded), declared properties must come in declared order, a declared key written again
 * counts as an additional property (its schema escapes), and some schemas abort the WASM
 * instance (counted as `xgrammar_error`).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { GrammarEngine } from '@sieve/bench';
import type { CliTokenizer } from './tokenizer.ts';

// The subset of the web-xgrammar API used here (its package ships a UMD bundle).
interface XGrammarMatcher {
  getNextTokenBitmask(): Promise<Int32Array>;
  acceptToken(id: number): boolean;
  dispose(): void;
}
interface XGrammarCompiled {
  dispose(): void;
}
interface XGrammarCompiler {
  compileJSONSchema(
    schema: string,
    anyWhitespace: boolean,
    indent: number | undefined,
    separators: [string, string] | undefined,
    strictMode: boolean,
    maxWhitespaceCnt: number,
  ): Promise<XGrammarCompiled>;
}
interface XGrammar {
  TokenizerInfo: {
    createTokenizerInfo(vocab: string[], vocabType: string, prependSpace: boolean, vocabSize: number, stopTokenIds: number[]): Promise<unknown>;
  };
  GrammarCompiler: { createGrammarCompiler(info: unknown, cacheEnabled: boolean): Promise<XGrammarCompiler> };
  GrammarMatcher: { createGrammarMatcher(compiled: XGrammarCompiled): Promise<XGrammarMatcher> };
}

interface TokenizerJson {
  readonly model: { readonly vocab: Record<string, number>; readonly byte_fallback?: boolean };
  readonly added_tokens?: readonly { readonly id: number; readonly content: string }[];
  readonly decoder?: { readonly type?: string; readonly decoders?: readonly { readonly type?: string }[] } | null;
}

// The bundle is UMD: loaded as an ES module it sets globalThis.xgrammar, and its Emscripten
// part looks for CommonJS `require` and `__filename` in Node. Each load is a fresh instance
// (the module URL gets a new query), which is how a crashed instance is replaced.
let loads = 0;
async function loadXGrammar(): Promise<XGrammar> {
  const global = globalThis as { xgrammar?: XGrammar; require?: unknown; __filename?: string };
  const require = createRequire(import.meta.url);
  const path = require.resolve('@mlc-ai/web-xgrammar');
  global.require ??= require;
  global.__filename ??= path;
  delete global.xgrammar;
  await import(`${pathToFileURL(path).href}?instance=${++loads}`);
  if (global.xgrammar === undefined) throw new Error('@mlc-ai/web-xgrammar did not load');
  return global.xgrammar;
}

// How XGrammar should read the vocabulary's token strings.
function vocabType(json: TokenizerJson): string {
  const decoders = [json.decoder?.type, ...(json.decoder?.decoders ?? []).map((d) => d.type)];
  if (decoders.includes('ByteLevel')) return 'byte_level';
  return json.model.byte_fallback ? 'byte_fallback' : 'raw';
}

/**
 * XGrammar on `tokenizer` (same presets as Sieve). Its diagnostics (it prints a warning for
 * each keyword it ignores) go to stderr; a schema that crashes its WASM instance counts as
 * `xgrammar_error` and the next schema gets a fresh instance.
 */
export async function xgrammarEngine(loaded: CliTokenizer): Promise<GrammarEngine> {
  const json = loaded.json as TokenizerJson;
  const size = loaded.vocab.tokenCount;
  const encoded = new Array<string>(size).fill('');
  for (const [token, id] of Object.entries(json.model.vocab)) if (id < size) encoded[id] = token;
  for (const added of json.added_tokens ?? []) if (added.id < size) encoded[added.id] = added.content;
  const eos = loaded.vocab.meta.eos_token_ids;
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  const start = async (): Promise<{ xg: XGrammar; compiler: XGrammarCompiler }> => {
    const xg = await loadXGrammar();
    const info = await xg.TokenizerInfo.createTokenizerInfo(encoded, vocabType(json), false, size, [...eos]);
    return { xg, compiler: await xg.GrammarCompiler.createGrammarCompiler(info, false) };
  };
  let instance = await start();
  let crashed = false;
  const allowed = (mask: Int32Array, id: number): boolean => ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
  return {
    name: 'xgrammar',
    async compile(schema) {
      if (crashed) {
        instance = await start();
        crashed = false;
      }
      const { xg, compiler } = instance;
      let compiled: XGrammarCompiled;
      try {
        compiled = await compiler.compileJSONSchema(JSON.stringify(schema), true, undefined, undefined, false, 20);
      } catch {
        crashed = true;
        return { error: 'xgrammar_error' };
      }
      return {
        async firstMask() {
          const matcher = await xg.GrammarMatcher.createGrammarMatcher(compiled);
          await matcher.getNextTokenBitmask();
          matcher.dispose();
        },
        async feed(tokens, maskUs) {
          if (crashed) return false;
          let matcher: XGrammarMatcher | undefined;
          try {
            matcher = await xg.GrammarMatcher.createGrammarMatcher(compiled);
            for (const id of tokens) {
              const started = performance.now();
              const ok = maskUs === undefined ? matcher.acceptToken(id) : allowed(await matcher.getNextTokenBitmask(), id) && matcher.acceptToken(id);
              maskUs?.push((performance.now() - started) * 1000);
              if (!ok) return false;
            }
            // Complete iff an end-of-sequence token is accepted now.
            return eos.some((id) => matcher!.acceptToken(id));
          } catch {
            crashed = true;
            return false;
          } finally {
            if (!crashed) matcher?.dispose();
          }
        },
        dispose: () => {
          if (!crashed) compiled.dispose();
        },
      };
    },
    dispose() {
      console.log = log;
    },
  };
}
