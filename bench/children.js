'use strict';
/** What the benchmark scripts share: server child processes, JSON calls, results. */
const { fork } = require('node:child_process');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

/** Forks a server script (it answers 'ready' over IPC once listening), with node's `execArgv` (such as --cpu-prof). */
function child(script, env, cwd, execArgv = []) {
  return new Promise((resolve, reject) => {
    const c = fork(script, { cwd, env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    c.once('message', (m) => (m === 'ready' ? resolve(c) : reject(new Error(String(m)))));
    c.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

/** Stops the children, newest first (SIGKILL after 5 s). */
async function stopAll(children) {
  for (const c of [...children].reverse()) {
    c.removeAllListeners('exit');
    if (c.exitCode !== null || c.signalCode !== null) continue;
    if (c.connected) c.send('stop');
    else c.kill('SIGTERM');
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

/**
 * Runs a script's main, reporting a failure on stderr with exit code 1. Stopped by SIGTERM (the
 * runner's time limit, or ^C at the runner) it exits through process.exit, so the servers
 * @inventory/infra started are stopped by its exit hook and the forked services see their channel
 * close. (SIGINT is left alone: BENCH_HOLD waits for it.)
 */
function run(main) {
  process.once('SIGTERM', () => {
    process.stderr.write('stopped by SIGTERM\n');
    process.exit(1);
  });
  main().catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}

/**
 * Services as deployed: one process each (bench/servers.js), on one database
 * and broker, sharing a fresh internal secret. `headers(service)` is a
 * superuser identity signed for that service; `spawn(name, execArgv)` starts one
 * (again, on its port, with node's options such as --cpu-prof). Stop them with `stopAll(children)`.
 */
async function serviceProcesses(names, { databaseUrl, amqpUrl, env: extra = {} }) {
  const { randomBytes } = require('node:crypto');
  const { freePort } = require('@inventory/infra');
  const { signIdentity } = require('@inventory/auth');
  const secret = randomBytes(24).toString('hex');
  const identity = { user: { id: 1, username: 'bench', is_superuser: true, is_staff: true, is_active: true }, token: { id: 1, write_enabled: true }, permissions: [] };
  const ports = {};
  for (const name of names) ports[name] = await freePort();
  const urls = Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`]));
  const env = {
    DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    INTERNAL_TOKEN_SECRET: secret,
    SERVICE_URLS: Object.entries(urls).map(([n, u]) => `${n}=${u}`).join(','),
    DATABASE_POOL_MAX: '10',
    // as the image runs them (deploy/heap.js; servers.js applies the rest of the policy)
    NODE_OPTIONS: require('../deploy/heap').NODE_OPTIONS,
    ...extra,
  };
  const spawn = (name, execArgv = []) => child(path.join(__dirname, 'servers.js'), { ...env, BENCH_PORTS: JSON.stringify({ [name]: ports[name] }) }, path.resolve(__dirname, '..'), execArgv);
  const children = [];
  try {
    for (const name of names) children.push(await spawn(name));
  } catch (err) {
    await stopAll(children);
    throw err;
  }
  return { urls, children, spawn, headers: (service) => ({ 'x-identity': signIdentity(secret, identity, 3600, service), 'x-forwarded-host': 'bench.local' }) };
}

/**
 * A POST of JSON on node's http with the given agent (kept-alive, so a write's time is not a connection's):
 * its status, its X-Consistency-Pending header and its body's text.
 */
function post(url, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const payload = Buffer.from(JSON.stringify(body));
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, pending: res.headers['x-consistency-pending'] ?? null, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

module.exports = { child, stopAll, json, post, writeReport, run, serviceProcesses };
