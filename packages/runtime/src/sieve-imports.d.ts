// Types of `?sieve` imports (the `maskIndexes()` Vite plugin): add "@sieve/runtime/sieve-imports"
// to `compilerOptions.types`.

/** What the build says of a mask index. */
interface SieveMaskIndexInfo {
  readonly file: string;
  readonly states: number;
  /** Whether every reachable state is indexed (else the rest is computed at run time). */
  readonly complete: boolean;
  readonly bytes: number;
  readonly buildMs: number;
  readonly tokenizer: string;
}

declare module '*.json?sieve' {
  /** The schema as a constraint spec, with its mask index (a URL, or the bytes in dev). */
  const spec: { readonly type: 'json-schema'; readonly schema: unknown; readonly index: string | Uint8Array };
  export default spec;
  export const indexInfo: SieveMaskIndexInfo;
}

declare module '*?sieve' {
  /** The grammar as a constraint spec, with its mask index (a URL, or the bytes in dev). */
  const spec: { readonly type: 'gbnf' | 'lark' | 'ebnf' | 'regex'; readonly grammar: string; readonly index: string | Uint8Array };
  export default spec;
  export const indexInfo: SieveMaskIndexInfo;
}
