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
