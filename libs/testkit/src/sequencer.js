'use strict';
/**
 * The order jest starts the test files in (jest.config.js `testSequencer`):
 * the longest first, so its two workers finish together instead of one
 * starting a long suite while the other has nothing left. Jest orders by the
 * durations it cached from earlier runs in this checkout; a fresh clone has
 * none, and jest would order by file size (a 200-line contract suite runs
 * for minutes, a 600-line unit test for a second). This sequencer uses, for
 * a file jest has no duration of, the one recorded in test-durations.json
 * (this package's; refresh it from a run's JSON:
 * `node libs/testkit/src/sequencer.js .ci/jest-results.json`). A file in
 * neither (a new one) goes first, as jest does with unknown files.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '../../..');
const FILE = path.resolve(__dirname, '../test-durations.json');

function recorded() {
  try {
    return JSON.parse(fs.readFileSync(FILE, 'utf8')).durations ?? {};
  } catch {
    return {};
  }
}

class LongestFirst extends Sequencer {
  constructor(...args) {
    super(...args);
    this.recorded = recorded();
  }

  /** Milliseconds: jest's own figure from an earlier run here, else the recorded one. */
  time(test) {
    return super.time(test) ?? this.recorded[path.relative(ROOT, test.path).split(path.sep).join('/')];
  }
}

/** Writes test-durations.json from a jest --json result file: each test file's duration, in ms. */
function record(resultsFile) {
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const durations = {};
  for (const r of results.testResults) {
    const inside = path.relative(ROOT, r.name).split(path.sep).join('/');
    // a run of another checkout (a fresh clone's .ci/run): its paths from the packages down
    const file = inside.startsWith('../') ? r.name.split(path.sep).join('/').match(/\/((?:libs|services|deploy)\/.*)$/)?.[1] : inside;
    if (!file) continue;
    durations[file] = Math.round((r.endTime - r.startTime) / 100) * 100;
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
  const note = 'Each test file\'s duration (ms) in one run of the whole suite, for the order jest starts them in (libs/testkit/src/sequencer.js). Only their order matters.';
  fs.writeFileSync(FILE, `${JSON.stringify({ note, durations: sorted }, null, 2)}\n`);
}

module.exports = LongestFirst;

if (require.main === module) {
  if (!process.argv[2]) {
    process.stderr.write('usage: node libs/testkit/src/sequencer.js <jest --json results file>\n');
    process.exit(2);
  }
  record(process.argv[2]);
}
