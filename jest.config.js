/** One jest run over every package; PostgreSQL starts once for the whole run (testkit global setup). */
const fs = require('node:fs');
const path = require('node:path');

const mapper = {};
for (const dir of ['libs', 'services']) {
  for (const name of fs.readdirSync(path.join(__dirname, dir))) {
    mapper[`^@inventory/${name}$`] = `<rootDir>/${dir}/${name}/src`;
  }
}

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // deploy/test: the image, compose and k8s/ files, and the migration job (they belong to no package)
  testMatch: ['<rootDir>/{libs,services}/*/test/**/*.test.ts', '<rootDir>/deploy/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  moduleNameMapper: mapper,
  globalSetup: '<rootDir>/libs/testkit/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testkit/src/global-teardown.ts',
  // the longest files first (their durations recorded in libs/testkit/test-durations.json), so both workers finish together
  testSequencer: '<rootDir>/libs/testkit/src/sequencer.js',
  testTimeout: 60000,
  maxWorkers: 2,
};
