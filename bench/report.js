'use strict';
/**
 * Writes bench/RESULTS.md and bench/results/chart.svg from the result files in bench/results/
 * (whatever run wrote them): each benchmark's figures with their goals, anchors and what was
 * measured beside them, its date and machine, and, when `runs` is given (the runner's own
 * record of this run), which benchmarks ran, failed or were skipped.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { EXTRACTORS, met, format } = require('./figures');
const { chart } = require('./chart');

const BENCH = __dirname;
const RESULTS = path.join(BENCH, 'results');

function git(args) {
  try {
    return execFileSync('git', args, { cwd: BENCH, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** When a result was measured: its own date, the runner's stamp, else its commit's date (unchanged file) or its mtime. */
function dateOf(file, json) {
  const own = json.date ?? json.bench_run?.date;
  if (own) return { date: own, how: '' };
  const committed = !git(['status', '--porcelain', '--', file]) && git(['log', '-1', '--format=%cI', '--', file]);
  if (committed) return { date: committed, how: ' (the commit of the file: the script records no date)' };
  return { date: fs.statSync(file).mtime.toISOString(), how: ' (the file\'s time: the script records no date)' };
}

const machineOf = (m) =>
  m ? `${m.cpus} × ${m.model}${m.node ? `, node ${m.node}` : ''}${m.load_average ? `, load average ${m.load_average.join(' ')}` : ''}${m.note ? ` (${m.note})` : ''}` : 'machine not recorded';

const day = (iso) => iso.replace('T', ' ').replace(/:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, ' UTC').replace(/\+00:00 UTC$/, ' UTC');

/** One benchmark: its rows (with `met`), or why there are none. */
function section(name) {
  const file = path.join(RESULTS, `${name}.json`);
  if (!fs.existsSync(file)) return { name, title: name, missing: true, rows: [] };
  try {
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { title, about, rows } = EXTRACTORS[name](json);
    return { name, title, about, rows: rows.map((r) => ({ ...r, met: met(r) })), when: dateOf(file, json), machine: machineOf(json.machine), quick: !!json.bench_run?.quick };
  } catch (err) {
    return { name, title: name, error: err.message, rows: [] };
  }
}

const cell = (s) => String(s ?? '').replace(/\|/g, '\\|');
const goalText = (g) => (!g ? '' : 'text' in g ? g.text : `${{ '<': '<', '<=': '≤', '>': '>', '>=': '≥', '=': '=' }[g.op]} ${format(g.value)}`);
const mark = (m) => (m === true ? '✓' : m === false ? '✗ missed' : '');
const duration = (s) => (s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`);

/**
 * runs: null (from the files only), or { quick, started, seconds, benchmarks: [{ name, status: 'ok'|'failed'|'skipped', seconds, reason }] }.
 */
function writeReport(runs) {
  const names = Object.keys(EXTRACTORS);
  const sections = names.map(section);
  const generated = new Date().toISOString();
  const commit = git(['rev-parse', '--short', 'HEAD']);
  // the results themselves are not "changes" of the code that measured them
  const dirty = git(['status', '--porcelain', '--', ':/', ':(top,exclude)bench/results', ':(top,exclude)bench/RESULTS.md']) ? ' (with uncommitted changes)' : '';
  const here = `${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 1e9)} GB, node ${process.version}, ${os.type()} ${os.release()}`;
  const goaled = sections.flatMap((s) => s.rows.filter((r) => r.met !== null).map((r) => ({ ...r, section: s.title })));
  const missed = goaled.filter((r) => r.met === false);

  const md = ['# Benchmark results', ''];
  md.push(
    runs
      ? `Written by \`npm run bench\` (\`bench/run.js\`) on ${day(generated)} after a run of ${duration(runs.seconds)} on this machine: ${here}; commit ${commit}${dirty}.`
      : `Written by \`node bench/run.js --report\` on ${day(generated)} from the result files in \`results/\` (no benchmark was run); commit ${commit}${dirty}. Each benchmark below names the date and the machine of its own run.`,
    '',
  );
  if (runs?.quick || sections.some((s) => s.quick)) {
    md.push('> **Smoke run (`BENCH_QUICK=1`)**: the benchmarks marked *quick* ran shortened (fewer seconds, rounds and rows). Their figures show that everything runs end to end; they are not the benchmark\'s figures.', '');
  }
  md.push(`**Goals: ${goaled.length - missed.length} of ${goaled.length} met.**${missed.length ? ' Missed:' : ''}`, '');
  for (const r of missed) md.push(`- ${r.section}: ${r.figure}: ${format(r.value)} ${r.unit} (goal ${goalText(r.goal)})`);
  if (missed.length) md.push('');
  md.push('![The figures against their goals](results/chart.svg)', '');

  if (runs) {
    md.push('## This run', '', '| benchmark | status | time | note |', '|---|---|---|---|');
    for (const b of runs.benchmarks) md.push(`| ${b.name} | ${b.status} | ${b.seconds === undefined ? '' : duration(b.seconds)} | ${cell(b.reason)} |`);
    md.push('');
  }

  for (const s of sections) {
    md.push(`## ${s.title}`, '');
    if (s.missing) {
      md.push(`No results: \`results/${s.name}.json\` is missing.`, '');
      continue;
    }
    if (s.error) {
      md.push(`\`results/${s.name}.json\` could not be read: ${s.error}`, '');
      continue;
    }
    md.push(`\`results/${s.name}.json\`${s.quick ? ' (*quick*)' : ''}, measured ${day(s.when.date)}${s.when.how} on ${s.machine}.`, '', s.about, '');
    md.push('| figure | value | goal | | NetBox / Nautobot | measured beside it |', '|---|---|---|---|---|---|');
    for (const r of s.rows) md.push(`| ${cell(r.figure)} | ${cell(`${format(r.value)} ${r.unit}`.trim())} | ${cell(goalText(r.goal))} | ${mark(r.met)} | ${cell(r.anchor)} | ${cell(r.beside)} |`);
    md.push('');
  }

  const caption = runs
    ? `npm run bench, ${day(generated)}${runs.quick ? ' (BENCH_QUICK=1: smoke run)' : ''}; ${here}`
    : `From the result files (each benchmark's own run: see RESULTS.md), ${day(generated)}`;
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'chart.svg'), chart(sections, caption, format));
  fs.writeFileSync(path.join(BENCH, 'RESULTS.md'), `${md.join('\n').trimEnd()}\n`);
  return { goals: goaled.length, missed: missed.length };
}

module.exports = { writeReport };
