#!/usr/bin/env node
'use strict';
/**
 * What a change costs, measured in one run: the tenancy service of an earlier
 * commit (BENCH_BEFORE, built once in a git worktree under the system temp
 * dir) against this tree's, same PostgreSQL server, interleaved rounds:
 *  - GET /api/tenancy/tenants/?limit=50 (500 tenants in 5 groups, a tag each), requests/s;
 *  - POST of 1,000 tenants in one request, ms (each round deletes them again).
 * Goal of issue 6: the new checks cost at most 5 %. Results go to
 * bench/results/before-after.json. Run: `npm run build && node bench/before-after.js`.
 * BENCH_NAME names another report (outbox-cost: issue 7, the outbox costs
 * under 15 %); BENCH_AMQP=1 gives the after side a RabbitMQ, so its relay
 * publishes (and marks sent) every event while it is measured.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ, freePort } = require('@inventory/infra');
const { signIdentity } = require('@inventory/auth');
const { load } = require('./load');
const { child, stopAll, json, writeReport, run } = require('./children');

const BEFORE = process.env.BENCH_BEFORE || 'da61d9a';
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);
const root = path.resolve(__dirname, '..');

function sh(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The earlier commit, checked out and built once. */
function beforeTree() {
  const sha = execFileSync('git', ['rev-parse', '--short', BEFORE], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `inventory-bench-${sha}`);
  if (!fs.existsSync(path.join(dir, '.built'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    sh('git', ['worktree', 'prune'], root);
    sh('git', ['worktree', 'add', '--detach', dir, sha], root);
    sh('npm', ['ci', '--no-audit', '--no-fund'], dir);
    sh('npm', ['run', 'build'], dir);
    fs.writeFileSync(path.join(dir, '.built'), sha);
  }
  return { dir, sha };
}



async function createDatabase(serverUrl, name) {
  const c = new Client({ connectionString: serverUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name}`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const before = beforeTree();
  const pg = await startPostgres({ log: () => undefined });
  const rabbit = process.env.BENCH_AMQP ? await startRabbitMQ({ log: () => undefined }) : null;
  const secret = randomBytes(24).toString('hex');
  const identity = { user: { id: 1, username: 'bench', is_superuser: true, is_staff: true, is_active: true }, token: { id: 1, write_enabled: true }, permissions: [] };
  const sides = {
    before: { script: path.join(before.dir, 'bench', 'servers.js') },
    after: { script: path.join(root, 'bench', 'servers.js') },
  };
  const children = [];
  try {
    for (const [name, side] of Object.entries(sides)) {
      const ports = { extras: await freePort(), tenancy: await freePort() };
      const urls = Object.entries(ports).map(([n, p]) => `${n}=http://127.0.0.1:${p}`).join(',');
      const db = await createDatabase(pg.url, `bench_${name}`);
      const broker = rabbit && name === 'after' ? { AMQP_URL: rabbit.url } : {};
      children.push(await child(side.script, { DATABASE_URL: db, INTERNAL_TOKEN_SECRET: secret, SERVICE_URLS: urls, DATABASE_POOL_MAX: '10', BENCH_PORTS: JSON.stringify(ports), ...broker }, path.dirname(path.dirname(side.script))));
      side.tenancy = `http://127.0.0.1:${ports.tenancy}`;
      side.extras = `http://127.0.0.1:${ports.extras}`;
      // the earlier release ignores the audience; this one requires it
      side.headers = (service) => ({ 'x-identity': signIdentity(secret, identity, 3600, service), 'x-forwarded-host': 'bench.local' });
      const tag = await json(`${side.extras}/api/extras/tags/`, side.headers('extras'), 'POST', { name: 'Bench', slug: 'bench' });
      const groups = await json(`${side.tenancy}/api/tenancy/tenant-groups/`, side.headers('tenancy'), 'POST', [1, 2, 3, 4, 5].map((i) => ({ name: `Group ${i}`, slug: `group-${i}` })));
      side.groups = groups;
      side.tag = tag;
      const tenants = Array.from({ length: 500 }, (_, i) => ({ name: `Tenant ${String(i).padStart(3, '0')}`, slug: `tenant-${i}`, group: groups[i % 5].id, tags: [tag.id], description: 'benchmark tenant' }));
      await json(`${side.tenancy}/api/tenancy/tenants/`, side.headers('tenancy'), 'POST', tenants);
    }
    const a = await json(`${sides.before.tenancy}/api/tenancy/tenants/?limit=50`, sides.before.headers('tenancy'));
    const b = await json(`${sides.after.tenancy}/api/tenancy/tenants/?limit=50`, sides.after.headers('tenancy'));
    if (a.count !== b.count || a.results.length !== b.results.length) throw new Error('the two sides do not answer the same list');

    const list = { before: [], after: [] };
    const bulk = { before: [], after: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, side] of Object.entries(sides)) {
        const r = await load({ url: `${side.tenancy}/api/tenancy/tenants/?limit=50`, headers: side.headers('tenancy'), seconds: SECONDS, connections: CONNECTIONS });
        list[name].push(r.rps);
        const body = Array.from({ length: 1000 }, (_, i) => ({ name: `Bulk ${round}-${i}`, slug: `bulk-${round}-${i}`, group: side.groups[i % 5].id, tags: [side.tag.id], description: 'bulk' }));
        const t0 = process.hrtime.bigint();
        const created = await json(`${side.tenancy}/api/tenancy/tenants/`, side.headers('tenancy'), 'POST', body);
        bulk[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
        await json(`${side.tenancy}/api/tenancy/tenants/`, side.headers('tenancy'), 'DELETE', created.map((o) => ({ id: o.id })));
      }
    }
    const report = {
      date: new Date().toISOString(),
      before: `${before.sha} (${BEFORE})`,
      after: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim() + ' (working tree)',
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      method: `interleaved rounds (${ROUNDS}); list: ${CONNECTIONS} connections for ${SECONDS} s after 2 s warm-up, median requests/s; bulk: one POST of 1,000 tenants (group and tag each), median ms`,
      list_rps: { before: median(list.before), after: median(list.after), rounds: list },
      bulk_create_ms: { before: Number(median(bulk.before).toFixed(1)), after: Number(median(bulk.after).toFixed(1)), rounds: bulk },
      list_after_vs_before: Number((median(list.after) / median(list.before)).toFixed(3)),
      bulk_time_after_vs_before: Number((median(bulk.after) / median(bulk.before)).toFixed(3)),
      after_relays_to_rabbitmq: !!rabbit,
      goal: process.env.BENCH_NAME === 'outbox-cost' ? 'bulk_time_after_vs_before <= 1.15' : 'list_after_vs_before >= 1.0 and bulk_time_after_vs_before <= 1.05',
    };
    writeReport(process.env.BENCH_NAME || 'before-after', report);
  } finally {
    await stopAll(children);
    await pg.stop();
    await rabbit?.stop();
  }
}

run(main);
