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
const LAYERS = [['core', 'infra', 'templates'], ['auth', 'filtering'], ['events'], ['refs'], ['rest'], ['testkit', 'importer']];
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

/**
 * libs/rest's rooms, lowest first (docs/decisions/026-rest-rooms.md): a room
 * imports only rooms below it, and those only through their index (its
 * public face); none imports the package's top (`service.ts`, `index.ts`).
 */
const REST_ROOMS = ['model', 'projections', 'read', 'write', 'references', 'http'];
const REST_TOP = ['service', 'periodic', 'service-metrics', 'index'];
const restLayerRule = layerRules.find((rule) => rule.files[0] === 'libs/rest/src/**/*.ts');
if (!restLayerRule) throw new Error('eslint.config.js: no layer rule for libs/rest');
const restRoomRules = REST_ROOMS.map((room, i) => {
  const above = [...REST_ROOMS.slice(i + 1), ...REST_TOP];
  const below = REST_ROOMS.slice(0, i);
  const [, base] = /** @type {[string, { paths: unknown[], patterns: unknown[] }]} */ (restLayerRule.rules['no-restricted-imports']);
  return {
    files: [`libs/rest/src/${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: base.paths,
          patterns: [
            ...base.patterns,
            {
              regex: `^\\.\\.(/(${above.join('|')})(/.*)?|/?)$`,
              message: `libs/rest/src/${room} is below ${above.join(', ')}: import only the rooms below it (${below.join(', ') || 'none'}).`,
            },
            ...(below.length ? [{ regex: `^\\.\\./(${below.join('|')})/.+`, message: 'Import a lower room through its index (../<room>), its public face.' }] : []),
          ],
        },
      ],
    },
  };
});

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
  ...restRoomRules,
);
