'use strict';
/**
 * What `npm run bench` runs, in order: each benchmark's script, the result file it writes
 * (results/<name>.json), the variables that make it that benchmark (`fixed`), and its settings
 * for a smoke run (`quick`, BENCH_QUICK=1: the script's own knobs turned down). Variables set in
 * the runner's environment reach every script and win over `quick`.
 * `needs` returns why the benchmark cannot run here (it is then skipped with that note), or null.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

/** before-after.js builds an older commit in a worktree: a shallow clone lacks it. */
const commit = (sha) => () => {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], { cwd: path.resolve(__dirname, '..'), stdio: 'ignore' });
    return null;
  } catch {
    return `commit ${sha} is not in this clone (a shallow clone lacks the history; \`git fetch --unshallow\` brings it)`;
  }
};

const BENCHMARKS = [
  { name: 'tenants-list', script: 'tenants.js', quick: { BENCH_SECONDS: 2, BENCH_ROUNDS: 1 } },
  // the default commit of before-after.js (the landing before the hardening work)
  { name: 'before-after', script: 'before-after.js', needs: commit(process.env.BENCH_BEFORE || 'da61d9a'), quick: { BENCH_SECONDS: 2, BENCH_ROUNDS: 1 } },
  {
    name: 'outbox-cost',
    script: 'before-after.js',
    fixed: { BENCH_BEFORE: 'e5fad33', BENCH_NAME: 'outbox-cost', BENCH_AMQP: '1' },
    defaults: { BENCH_ROUNDS: 7 },
    needs: commit('e5fad33'),
    quick: { BENCH_SECONDS: 2, BENCH_ROUNDS: 1 },
  },
  { name: 'events', script: 'events.js', quick: { BENCH_BACKLOG: 2000, BENCH_SECONDS: 3 } },
  { name: 'broker-outage', script: 'broker-outage.js', quick: { BENCH_OUTAGE_SECONDS: 10 } },
  { name: 'projections', script: 'projections.js', quick: { BENCH_SITES: 5000, BENCH_RENAMES: 20 } },
  { name: 'webhooks', script: 'webhooks.js', quick: { BENCH_SECONDS: 2 } },
  { name: 'dcim', script: 'dcim.js', quick: { BENCH_DEVICES: 500, BENCH_QUIET_CREATES: 2, BENCH_SECONDS: 1 } },
  { name: 'ipam-index', script: 'ipam-index.js', quick: { BENCH_RUNS: 3 } },
  { name: 'ipam-first-free', script: 'ipam-first-free.js', quick: { BENCH_RUNS: 5, BENCH_SLOW_RUNS: 1, BENCH_CREATES: 1 } },
  { name: 'ipam', script: 'ipam.js', quick: { BENCH_RUNS: 10, BENCH_SECONDS: 1, BENCH_ALLOC_ROUNDS: 1 } },
  { name: 'memory', script: 'memory.js', quick: { BENCH_SETTLE: 3, BENCH_SECONDS: 10, BENCH_DEVICES: 100 } },
  // the library's test subset, fixed size: a quick run is the same run
  { name: 'device-types', script: 'device-types.js', quick: {} },
  // issue 25: a scaled inventory copied between two instances, the 10,000 devices extrapolated
  { name: 'import', script: 'import.js', quick: { BENCH_DEVICES: 40 } },
  { name: 'graphql', script: 'graphql.js', quick: { BENCH_DEVICES: 100, BENCH_RUNS: 2 } },
  { name: 'as-of', script: 'as-of.js', quick: { BENCH_SITES: 1000, BENCH_CHANGES: 2, BENCH_RUNS: 3, BENCH_WRITE_ROUNDS: 2 } },
  { name: 'consistency', script: 'consistency.js', quick: { BENCH_ROUNDS: 2, BENCH_WRITES: 30, BENCH_BULK: 1, BENCH_PAIRS: 1000, BENCH_PAIRS_OFF: 200, BENCH_STALE_SECONDS: 60 } },
];

/** The environment one benchmark runs with. */
function envFor(benchmark, quick, env = process.env) {
  const strings = (o) => Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, String(v)]));
  return { ...strings(benchmark.defaults), ...(quick ? strings(benchmark.quick) : {}), ...env, ...strings(benchmark.fixed) };
}

module.exports = { BENCHMARKS, envFor };
