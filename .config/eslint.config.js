// ESLint flat config for the whole workspace (run from the repository root: `pnpm lint`).
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// ── Layering ────────────────────────────────────────────────────────────────────────────
// The pipeline runs format → vocab → kernel → grammar → runtime (bench beside it) →
// element / cli → apps, and imports point one way only: each package lists the workspace
// packages it may import (all before it). Package READMEs state the same lists.
const WORKSPACE = ['format', 'vocab', 'kernel', 'grammar', 'bench', 'runtime', 'element', 'cli'];
const LAYERS = {
  'packages/format': [],
  'packages/vocab': ['format'],
  'packages/kernel': ['format', 'vocab'],
  'packages/grammar': ['format', 'vocab', 'kernel'],
  'packages/bench': ['format', 'vocab', 'kernel', 'grammar'],
  'packages/runtime': ['format', 'vocab', 'kernel', 'grammar'],
  'packages/element': ['format', 'vocab', 'kernel', 'grammar', 'runtime'],
  'packages/cli': ['format', 'vocab', 'kernel', 'grammar', 'bench', 'runtime'],
  'apps/demo': ['format', 'vocab', 'kernel', 'grammar', 'bench', 'runtime', 'element'],
  'apps/forms': ['format', 'vocab', 'kernel', 'grammar', 'bench', 'runtime', 'element'],
};

// Sources run in a browser (page or Web Worker) and import nothing Node-only, except in
// packages that are Node-only as a whole and in the files listed here with the reason.
const NODE_PACKAGES = ['packages/cli'];
const NODE_ONLY_SOURCES = [
  // Tokenizer presets resolve tokenizer.json files on disk (build time, CLI and tests).
  'packages/vocab/src/presets.ts',
  // The Vite plugin runs inside Vite's dev server and build (serves models, writes mask indexes).
  'packages/runtime/src/vite-plugin.ts',
  // The files a page serves (kernel.wasm, onnxruntime's WASM), read from the installed packages for the Vite plugin and its script.
  'packages/runtime/src/runtime-assets.ts',
];
const NODE_ONLY_IMPORTS = [
  ...builtinModules.filter((name) => !name.startsWith('_')),
  // Workspace entry points that are Node-only.
  '@sieve/cli',
  '@sieve/vocab/presets',
  '@sieve/runtime/vite',
  // Build tools and Node-only binaries.
  'vite',
  'vite-plugin-pwa',
  'esbuild',
  'onnxruntime-node',
  'sharp',
];
const NODE_ONLY_MESSAGE = 'Node-only in browser code (see NODE_ONLY_SOURCES in .config/eslint.config.js).';
const NODE_GLOBALS = ['process', 'Buffer', 'global', '__dirname', '__filename', 'require'].map((name) => ({ name, message: NODE_ONLY_MESSAGE }));

const againstPipeline = (dir) =>
  WORKSPACE.filter((name) => !LAYERS[dir].includes(name) && `packages/${name}` !== dir).map((name) => ({
    group: [`@sieve/${name}`, `@sieve/${name}/*`],
    message: `${dir} may import only ${LAYERS[dir].map((n) => `@sieve/${n}`).join(', ') || 'no workspace package'} (the pipeline's direction; see .config/eslint.config.js).`,
  }));

const layering = [
  // Every file of a package: no import against the pipeline.
  ...Object.keys(LAYERS).map((dir) => ({
    files: [`${dir}/**/*.{ts,js}`],
    rules: { 'no-restricted-imports': ['error', { patterns: againstPipeline(dir) }] },
  })),
  // Browser sources: also nothing Node-only (these options replace the ones above for these files).
  ...Object.keys(LAYERS)
    .filter((dir) => !NODE_PACKAGES.includes(dir))
    .map((dir) => ({
      files: [`${dir}/src/**/*.{ts,js}`],
      ignores: NODE_ONLY_SOURCES,
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: NODE_ONLY_IMPORTS.map((name) => ({ name, message: NODE_ONLY_MESSAGE })),
            patterns: [...againstPipeline(dir), { group: ['node:*'], message: NODE_ONLY_MESSAGE }],
          },
        ],
        'no-restricted-globals': ['error', ...NODE_GLOBALS],
      },
    })),
  // Sources reach other packages through their names (so the rules above see them), and
  // have no import cycles.
  {
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver()],
    },
    rules: {
      'import-x/no-relative-packages': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', 'packages/element/bundle/**', 'docs/api/**', 'public/**', 'e2e/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The kernel is AssemblyScript: TypeScript syntax, checked by `tsc -p packages/kernel/assembly`
    // against AssemblyScript's own library (load, store, i32, usize, ...). Its decorators on
    // functions (@inline, @external) are not valid TypeScript: the parser keeps the AST
    // instead of failing (each one is marked `@ts-expect-error` for tsc).
    files: ['packages/kernel/assembly/**/*.ts'],
    languageOptions: { parserOptions: { allowInvalidAST: true } },
    rules: {
      // AssemblyScript has no `import type` (its parser rejects it): classes such as Vec and
      // Matcher are imported as values even where only their types are used.
      '@typescript-eslint/consistent-type-imports': 'off',
      // Integer literals are exact 64-bit integers for u64/i64 (e.g. murmur3's constants), not doubles.
      'no-loss-of-precision': 'off',
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  ...layering,
);
