#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: every benchmark of bench/ in one command (bench/benchmarks.js lists them),
 * each as a child process in turn, so one that fails does not stop the others; then
 * bench/RESULTS.md and bench/results/chart.svg from the result files.
 *
 *   node bench/run.js            run them all, then write the report
 *   node bench/run.js --report   only write the report, from the result files as they are
 *
 * BENCH_ONLY=name,name runs a subset (names as in benchmarks.js, or script names);
 * BENCH_QUICK=1 runs each shortened (a smoke run: its figures are marked as such);
 * BENCH_TIMEOUT_MINUTES (default 120, quick 20) stops a benchmark that runs longer (SIGTERM).
 * Progress goes to stderr: which benchmark, its elapsed time, its stderr lines prefixed with its
 * name. Each script's stdout (its report) and stderr are kept in <tmp>/inventory-bench-logs/.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BENCHMARKS, envFor } = require('./benchmarks');
const { writeReport } = require('./report');

const QUICK = ['1', 'true', 'yes'].includes(String(process.env.BENCH_QUICK || '').toLowerCase());
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MINUTES || (QUICK ? 20 : 120)) * 60_000;
const LOGS = path.join(os.tmpdir(), 'inventory-bench-logs');
const say = (line) => process.stderr.write(`${line}\n`);
const clock = (ms) => `${Math.floor(ms / 60000)}:${String(Math.floor((ms % 60000) / 1000)).padStart(2, '0')}`;

/** A mistake in how the runner was called: said in one line, without a stack. */
class UsageError extends Error {}

/** The benchmarks BENCH_ONLY names (all when unset); an unknown name stops the runner before anything runs. */
function selected() {
  const only = (process.env.BENCH_ONLY || '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!only.length) return BENCHMARKS;
  // a benchmark's name, else a script's (`tenants`): before-after names one benchmark, not both that run its script
  const named = (n) => {
    const exact = BENCHMARKS.filter((b) => b.name === n);
    return exact.length ? exact : BENCHMARKS.filter((b) => b.script === `${n}.js`);
  };
  const unknown = only.filter((n) => !named(n).length);
  if (unknown.length) throw new UsageError(`BENCH_ONLY: no benchmark named ${unknown.join(', ')} (known: ${BENCHMARKS.map((b) => b.name).join(', ')})`);
  const wanted = new Set(only.flatMap(named));
  return BENCHMARKS.filter((b) => wanted.has(b));
}

/** Runs one script; resolves { status, reason } once it exited. Its stderr is shown prefixed, as it comes. */
function runOne(benchmark, stop) {
  return new Promise((resolve) => {
    const started = Date.now();
    const log = fs.createWriteStream(path.join(LOGS, `${benchmark.name}.log`));
    // its own process group: ^C at the terminal reaches the runner only, which stops the script
    // with SIGTERM (bench/children.js's run() then stops the servers it started)
    const child = spawn(process.execPath, [path.join(__dirname, benchmark.script)], {
      cwd: path.resolve(__dirname, '..'),
      env: envFor(benchmark, QUICK),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    stop.current = () => child.kill('SIGTERM');
    const tail = [];
    let partial = '';
    child.stdout.pipe(log, { end: false });
    child.stderr.on('data', (chunk) => {
      log.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        say(`  ${benchmark.name} | ${line}`);
        tail.push(line);
        if (tail.length > 8) tail.shift();
      }
    });
    const ticker = setInterval(() => say(`  … ${benchmark.name} running, ${clock(Date.now() - started)}`), 30_000);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      say(`  ${benchmark.name}: over ${TIMEOUT_MS / 60000} min, stopping it`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    }, TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearInterval(ticker);
      clearTimeout(timer);
      stop.current = null;
      if (partial) tail.push(partial);
      log.end();
      const seconds = (Date.now() - started) / 1000;
      if (code === 0) return resolve({ status: 'ok', seconds });
      const why = timedOut ? `stopped after ${TIMEOUT_MS / 60000} min` : signal ? `killed by ${signal}` : `exit code ${code}`;
      const last = tail.filter((l) => l.trim()).slice(-3).join(' / ');
      resolve({ status: 'failed', seconds, reason: `${why}${last ? `: ${last.slice(0, 400)}` : ''} (log: ${path.join(LOGS, `${benchmark.name}.log`)})` });
    });
  });
}

/** Marks a fresh result file with how it was made (RESULTS.md shows quick runs as such). */
function stamp(name, run) {
  const file = path.join(__dirname, 'results', `${name}.json`);
  if (!fs.existsSync(file) || fs.statSync(file).mtimeMs < run.startedMs) return;
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  json.bench_run = run.stamp;
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

async function main() {
  if (process.argv.includes('--report')) {
    const { goals, missed } = writeReport(null);
    say(`bench/RESULTS.md and bench/results/chart.svg written from the result files: ${goals - missed} of ${goals} goals met`);
    return;
  }
  const list = selected();
  fs.mkdirSync(LOGS, { recursive: true });
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  })();
  const t0 = Date.now();
  const stop = { current: null };
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      interrupted = true;
      say(`\n${signal}: stopping the running benchmark; the report is written from what finished`);
      stop.current?.();
    });
  }
  say(`bench: ${list.length} benchmark${list.length === 1 ? '' : 's'}${QUICK ? ' (BENCH_QUICK=1: shortened, a smoke run)' : ''}; logs in ${LOGS}`);
  const benchmarks = [];
  for (const [i, b] of list.entries()) {
    const head = `[${i + 1}/${list.length}] ${b.name}`;
    const missing = b.needs?.();
    if (interrupted || missing) {
      const reason = interrupted ? 'not run (interrupted)' : missing;
      say(`${head}: skipped: ${reason}`);
      benchmarks.push({ name: b.name, status: 'skipped', reason });
      continue;
    }
    say(`${head}: node bench/${b.script} (total ${clock(Date.now() - t0)})`);
    const startedMs = Date.now();
    const result = await runOne(b, stop);
    say(`${head}: ${result.status} in ${clock(result.seconds * 1000)}${result.reason ? `: ${result.reason}` : ''}`);
    if (result.status === 'ok') stamp(b.name, { startedMs, stamp: { date: new Date().toISOString(), quick: QUICK, seconds: Math.round(result.seconds), commit } });
    benchmarks.push({ name: b.name, ...result });
  }
  const seconds = (Date.now() - t0) / 1000;
  const { goals, missed } = writeReport({ quick: QUICK, seconds, benchmarks });
  const by = (status) => benchmarks.filter((b) => b.status === status).map((b) => b.name);
  const failed = by('failed');
  say(`bench: done in ${clock(seconds * 1000)}: ${by('ok').length} ran, skipped: ${by('skipped').join(', ') || 'none'}, failed: ${failed.join(', ') || 'none'}; ${goals - missed} of ${goals} goals met; see bench/RESULTS.md`);
  process.exitCode = failed.length || interrupted ? 1 : 0;
}

main().catch((err) => {
  say(err instanceof UsageError ? err.message : err.stack);
  process.exit(1);
});
