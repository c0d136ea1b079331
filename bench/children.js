'use strict';
/** What the benchmark scripts share: server child processes, JSON calls, results. */
const { fork } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Forks a server script (it answers 'ready' over IPC once listening). */
function child(script, env, cwd) {
  return new Promise((resolve, reject) => {
    const c = fork(script, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    c.once('message', (m) => (m === 'ready' ? resolve(c) : reject(new Error(String(m)))));
    c.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

/** Stops the children, newest first (SIGKILL after 5 s). */
async function stopAll(children) {
  for (const c of [...children].reverse()) {
    c.removeAllListeners('exit');
    c.send('stop');
    await new Promise((r) => {
      c.once('exit', r);
      setTimeout(() => (c.kill('SIGKILL'), r()), 5000).unref();
    });
  }
}

async function json(url, headers, method = 'GET', body) {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Writes bench/results/<name>.json and prints it. */
function writeReport(name, report) {
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'results', `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

/** Runs a script's main, reporting a failure on stderr with exit code 1. */
function run(main) {
  main().catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}

module.exports = { child, stopAll, json, writeReport, run };
