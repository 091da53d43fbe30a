// Lints the TypeScript sources and tests with typescript-eslint's type-aware rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', '.code-server/**', 'test-artifacts/**', 'src/protocol.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // vscode.Disposable is structural in practice: EventEmitters and subscriptions go into
      // the same lists as real Disposables.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      eqeqeq: 'error',
      curly: 'error',
      'no-console': ['error', { allow: ['log', 'error'] }],
    },
  },
  {
    files: ['test/unit/**/*.ts'],
    rules: {
      // node:test's describe() and it() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'before', 'after'] }] },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
