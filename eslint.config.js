// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

module.exports = tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'coverage/**', 'libs/*/src/**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // packages import each other by name, never by a relative path into another package
      'no-restricted-imports': ['error', { patterns: [{ group: ['../../libs/*', '../../services/*', '**/libs/*/src/*', '**/services/*/src/*'], message: 'Import other packages by their @inventory/* name.' }] }],
    },
  },
);
