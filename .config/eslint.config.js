// ESLint flat config for the whole workspace (run from the repository root: `pnpm lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', 'public/**', 'e2e/results/**'],
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
);
