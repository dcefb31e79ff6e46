// @ts-check
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.dependency-cruiser.cjs',
      'bin/**',
      'node_modules/**',
      'cdk.out/**',
      '.venv/**',
      'local/.data/**',
      'local/dynamodb/**',
      'bench/.bundles/**',
      '.prognoz/**',
      '**/.cog/**',
      'test/.generated/**',
    ],
  },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // `const { left, ...kept } = value` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind='value'] > :matches(ImportSpecifier[imported.name='z'][importKind='value'], ImportDefaultSpecifier)",
          message:
            "import { z } from 'zod' brings the whole `z` object, which esbuild cannot shake: all of zod (its locales too) lands in every Lambda bundle. Write import * as z from 'zod'",
        },
      ],
    },
  },
  {
    // Nothing under shared/ reads the environment when imported, nor later: the composition roots
    // (functions, worker, local, cli, infra) read it with processEnvironment() and hand in what it
    // makes (a configuration, the model catalog).
    files: ['shared/**/*.ts'],
    ignores: ['shared/config/environment.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'shared/ does not read process.env: take an Environment (shared/config/environment.ts) or what it makes from the caller, whose composition root reads processEnvironment()',
        },
      ],
    },
  },
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The reference page's starter: a plain browser script beside the renderer it calls.
    files: ['web/docs/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', Scalar: 'readonly', URL: 'readonly' } },
  },
);
