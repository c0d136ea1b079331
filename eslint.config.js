// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

/** Packages import each other by name, never by a relative path into another package. */
const BY_NAME = { group: ['../../libs/*', '../../services/*', '**/libs/*/src/*', '**/services/*/src/*'], message: 'Import other packages by their @inventory/* name.' };

/**
 * The libraries' layers, lowest first (../shared/ARCHITECTURE.md): a library
 * imports only libraries of lower layers, never one beside or above it, and
 * never a service.
 */
const LAYERS = [['core', 'infra', 'templates'], ['auth', 'filtering'], ['events'], ['refs'], ['rest'], ['testkit']];
const SERVICES = ['users', 'tenancy', 'dcim', 'ipam', 'circuits', 'virtualization', 'extras', 'webhooks', 'gateway'];
const layerRules = LAYERS.flatMap((layer, i) =>
  layer.map((lib) => {
    const above = [...LAYERS.slice(i).flat().filter((other) => other !== lib), ...SERVICES];
    return {
      files: [`libs/${lib}/src/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: above.map((name) => ({ name: `@inventory/${name}`, message: `libs/${lib} is below @inventory/${name}: import only lower layers (${LAYERS.slice(0, i).flat().join(', ') || 'none'}).` })),
            patterns: [BY_NAME],
          },
        ],
      },
    };
  }),
);

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
      'no-restricted-imports': ['error', { patterns: [BY_NAME] }],
    },
  },
  ...layerRules,
);
