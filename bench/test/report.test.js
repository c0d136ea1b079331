'use strict';
/**
 * The runner's pure parts: goals met or missed, the chart's factor, the environment each
 * benchmark gets, and every extractor against the committed result files. Run with
 * `node --test bench/test/` (no server, no database).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { EXTRACTORS, met, format } = require('../figures');
const { chart, factor } = require('../chart');
const { BENCHMARKS, envFor } = require('../benchmarks');

const RESULTS = path.join(__dirname, '..', 'results');

test('when a figure is over an "under" goal, then it is missed and its factor is below 1', () => {
  const row = { figure: 'x', value: 300, unit: 'MB', goal: { op: '<', value: 150 } };
  assert.equal(met(row), false);
  assert.equal(factor(row), 0.5);
});

test('when a rate beats an "at least" goal, then it is met and its factor is the rate over the goal', () => {
  const row = { figure: 'x', value: 3000, unit: '/s', goal: { op: '>=', value: 2000 } };
  assert.equal(met(row), true);
  assert.equal(factor(row), 1.5);
});

test('when a goal is zero or not a number, then the chart has no factor for it and met is what the row says', () => {
  assert.equal(factor({ value: 0, goal: { op: '=', value: 0 } }), null);
  assert.equal(factor({ value: '5 / 5', goal: { text: 'constant', met: true } }), null);
  assert.equal(met({ value: '5 / 2', goal: { text: 'constant', met: false } }), false);
  assert.equal(met({ value: 12 }), null);
});

test('when the environment sets a knob, then it wins over the quick setting, and a benchmark\'s fixed variables win over both', () => {
  const outbox = BENCHMARKS.find((b) => b.name === 'outbox-cost');
  assert.equal(envFor(outbox, false, {}).BENCH_ROUNDS, '7');
  assert.equal(envFor(outbox, true, {}).BENCH_ROUNDS, '1');
  assert.equal(envFor(outbox, true, { BENCH_ROUNDS: '3' }).BENCH_ROUNDS, '3');
  assert.equal(envFor(outbox, true, { BENCH_NAME: 'other' }).BENCH_NAME, 'outbox-cost');
});

test('when every committed result file is read, then each extractor gives rows with a figure and a value, and nothing undefined', () => {
  for (const [name, extract] of Object.entries(EXTRACTORS)) {
    const file = path.join(RESULTS, `${name}.json`);
    if (!fs.existsSync(file)) continue;
    const { title, about, rows } = extract(JSON.parse(fs.readFileSync(file, 'utf8')));
    assert.ok(title && about && rows.length, name);
    for (const row of rows) {
      assert.ok(typeof row.value === 'number' ? Number.isFinite(row.value) : typeof row.value === 'string', `${name}: ${row.figure}`);
      const text = [row.figure, about, row.beside, row.anchor, format(row.value)].join(' ');
      assert.doesNotMatch(text, /undefined|NaN|\[object/, `${name}: ${row.figure}`);
    }
  }
});

test('when the chart is drawn, then it has one bar per figure with a numeric goal', () => {
  const rows = [
    { figure: 'a', value: 100, unit: 'ms', goal: { op: '<', value: 250 }, met: true },
    { figure: 'b', value: 300, unit: 'MB', goal: { op: '<', value: 150 }, met: false },
    { figure: 'c', value: '5 / 5', unit: '', goal: { text: 'constant', met: true }, met: true },
  ];
  const svg = chart([{ title: 'T', rows }], 'caption', format);
  assert.equal((svg.match(/<rect /g) ?? []).length, 1 + 2); // the background and two bars
  assert.match(svg, /100 ms/);
  assert.match(svg, /2× over/);
});
