#!/usr/bin/env node
'use strict';
/**
 * Where a service's time goes (issue 24): CPU profiles (`node --cpu-prof`)
 * of one service process, from its TypeScript sources, serving each of
 *  - the tenants list (`GET /api/tenancy/tenants/?limit=50`, 500 tagged tenants),
 *  - single POSTs of tenants,
 *  - the device bulk POST (100 devices of a type with 48 interface templates),
 * with PostgreSQL's view beside them (pg_stat_statements: statements per
 * request, and the execution and planning time of the top statements).
 * And the event loop's delay under each (p50, p99, max: a request that
 * holds the loop shows there). No broker: the HTTP and SQL path alone. Run: `node bench/profile.js`
 * (BENCH_SECONDS per workload, default 6). Writes bench/results/profile.json.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
// the packages from their TypeScript sources (what is profiled is this tree's code, with no build)
require('../libs/testkit/src/ts-register.js');
const { Client } = require('pg');
const { startPostgres, freePort } = require('@inventory/infra');
const { signIdentity } = require('@inventory/auth');
const { load } = require('./load');
const { json, writeReport, run } = require('./children');

const SECONDS = Number(process.env.BENCH_SECONDS || 6);
const ROOT = path.resolve(__dirname, '..');
const REGISTER = path.join(ROOT, 'libs/testkit/src/ts-register.js');

/** One service from its sources, profiled until it stops; resolves its URL and a stop() that resolves the profile's path. */
async function profiled(name, env) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `profile-${name}-`));
  const proc = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-r', REGISTER, path.join(ROOT, 'services', name, 'src', 'main.ts')], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited ${proc.exitCode}`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 600) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        proc.once('exit', () => resolve(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile')))));
        proc.kill('SIGTERM');
      }),
  };
}

/** Self time by function and by where the code lives (our packages by folder, dependencies by package). */
function summarize(file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  p.samples.forEach((id, i) => {
    const d = p.timeDeltas[i] || 0;
    self.set(id, (self.get(id) || 0) + d);
  });
  const fns = new Map();
  const places = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const where = url.includes('node_modules/')
      ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
      : url.startsWith('node:')
        ? url.replace(/^node:(internal\/)?([^/]+).*/, 'node:$2')
        : url
          ? path.relative(ROOT, url).split('/').slice(0, 4).join('/')
          : `(${functionName.replace(/[()]/g, '')})`;
    const fn = `${functionName || '(anonymous)'} ${url ? `${path.relative(ROOT, url).replace(/.*node_modules\//, '')}:${lineNumber + 1}` : ''}`.trim();
    fns.set(fn, (fns.get(fn) || 0) + us);
    places.set(where, (places.get(where) || 0) + us);
  }
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => ({ what: k, ms: Math.round(us / 1000), share: Number((us / total).toFixed(3)) }));
  return { cpu_ms: Math.round(total / 1000), by_place: top(places, 20), by_function: top(fns, 25) };
}

/** pg_stat_statements since the last reset: calls, execution and planning time of the top statements. */
async function statements(admin, db) {
  const rows = (
    await admin.query(
      `SELECT calls, round(total_exec_time::numeric, 1) AS exec_ms, round(total_plan_time::numeric, 1) AS plan_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY total_exec_time + total_plan_time DESC LIMIT 12`,
      [db],
    )
  ).rows;
  const [sum] = (
    await admin.query(
      `SELECT sum(calls)::int AS calls, round(sum(total_exec_time)::numeric) AS exec_ms, round(sum(total_plan_time)::numeric) AS plan_ms FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [db],
    )
  ).rows;
  return { ...sum, top: rows.map((r) => ({ ...r, exec_ms: Number(r.exec_ms), plan_ms: Number(r.plan_ms) })) };
}

/** The service's event-loop delay since the last scrape (prom-client's default metrics, reset at each scrape), in ms. */
async function loopDelay(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name) => Number((new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text) || [])[1]) * 1000;
  return { p50_ms: read('nodejs_eventloop_lag_p50_seconds'), p99_ms: read('nodejs_eventloop_lag_p99_seconds'), max_ms: read('nodejs_eventloop_lag_max_seconds') };
}

/** Closed-loop POSTs for `seconds`, `connections` at a time; the number sent. */
async function posts(url, headers, body, seconds, connections) {
  const end = Date.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const i = n++;
        await json(url, headers, 'POST', body(i));
      }
    }),
  );
  return n;
}

async function main() {
  const pg = await startPostgres({ log: () => undefined, settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_planning=on'] });
  const admin = new Client({ connectionString: pg.url });
  await admin.connect();
  const report = { seconds: SECONDS, workloads: {} };
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const secret = randomBytes(24).toString('hex');
    const identity = { user: { id: 1, username: 'bench', is_superuser: true, is_staff: true, is_active: true }, token: { id: 1, write_enabled: true }, permissions: [] };
    const headers = (service) => ({ 'x-identity': signIdentity(secret, identity, 3600, service), 'x-forwarded-host': 'bench.local' });
    const db = new URL(pg.url).pathname.slice(1) || 'postgres';
    const env = { DATABASE_URL: pg.url, INTERNAL_TOKEN_SECRET: secret, DATABASE_POOL_MAX: '10' };

    // tenancy: the list, then single POSTs (one profile each)
    // BENCH_ONLY=tenants-list (names, comma-separated): profile only those workloads
    const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : null;
    const workload = async (name, service, prepare, drive) => {
      if (only && !only.includes(name)) return;
      const s = await profiled(service, env);
      const ctx = await prepare(s.url);
      await admin.query('SELECT pg_stat_statements_reset()');
      await loopDelay(s.url);
      const requests = await drive(s.url, ctx);
      const event_loop = await loopDelay(s.url);
      const sql = await statements(admin, db);
      const cpu = summarize(await s.stop());
      report.workloads[name] = { service, requests, statements_per_request: Number((sql.calls / requests).toFixed(2)), cpu_ms_per_request: Number((cpu.cpu_ms / requests).toFixed(3)), event_loop, cpu, sql };
      process.stderr.write(`${name}: ${requests} requests, ${report.workloads[name].statements_per_request} statements and ${report.workloads[name].cpu_ms_per_request} ms of the service's CPU each\n`);
    };
    await workload(
      'tenants-list',
      'tenancy',
      async (url) => {
        // as bench/tenants.js: 5 groups (each tenant nests one); tags need the extras service, which is not here
        const groups = await json(`${url}/api/tenancy/tenant-groups/`, headers('tenancy'), 'POST', [1, 2, 3, 4, 5].map((i) => ({ name: `Group ${i}`, slug: `group-${i}` })));
        const tenants = Array.from({ length: 500 }, (_, i) => ({ name: `Tenant ${i}`, slug: `tenant-${i}`, group: groups[i % 5].id, description: 'profiled' }));
        await json(`${url}/api/tenancy/tenants/`, headers('tenancy'), 'POST', tenants);
      },
      async (url) => (await load({ url: `${url}/api/tenancy/tenants/?limit=50`, headers: headers('tenancy'), connections: 16, seconds: SECONDS, warmupSeconds: 1 })).requests,
    );
    await workload(
      'tenant-post',
      'tenancy',
      async () => null,
      (url) => posts(`${url}/api/tenancy/tenants/`, headers('tenancy'), (i) => ({ name: `Posted ${i} ${Date.now()}`, slug: `posted-${i}-${Date.now()}` }), SECONDS, 8),
    );
    await workload(
      'device-bulk-post',
      'dcim',
      async (url) => {
        const h = headers('dcim');
        const site = await json(`${url}/api/dcim/sites/`, h, 'POST', { name: 'Profile', slug: 'profile' });
        const maker = await json(`${url}/api/dcim/manufacturers/`, h, 'POST', { name: 'Maker', slug: 'maker' });
        const type = await json(`${url}/api/dcim/device-types/`, h, 'POST', { manufacturer: maker.id, model: 'Switch48', slug: 'switch48' });
        await json(`${url}/api/dcim/interface-templates/`, h, 'POST', Array.from({ length: 48 }, (_, i) => ({ device_type: type.id, name: `ge-0/0/${i}`, type: '1000base-t' })));
        const role = await json(`${url}/api/dcim/device-roles/`, h, 'POST', { name: 'Access', slug: 'access' });
        return { site: site.id, type: type.id, role: role.id };
      },
      async (url, c) => {
        let batch = 0;
        const end = Date.now() + SECONDS * 1000;
        while (Date.now() < end || batch === 0) {
          const b = batch++;
          await json(`${url}/api/dcim/devices/`, headers('dcim'), 'POST', Array.from({ length: 100 }, (_, i) => ({ name: `sw-${b}-${i}`, device_type: c.type, role: c.role, site: c.site })));
        }
        return batch;
      },
    );
  } finally {
    await admin.end();
    await pg.stop();
  }
  writeReport('profile', report);
}

run(main);
