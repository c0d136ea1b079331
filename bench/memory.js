#!/usr/bin/env node
'use strict';
/**
 * Memory of each process as deployed, to size the Kubernetes requests and
 * limits (k8s/): the migration job, then the eight services and the gateway,
 * each started as the image starts it (`node deploy/entrypoint.js <name>`,
 * the built main.js) on one private PostgreSQL and RabbitMQ. It reads every
 * process's resident set (VmRSS in /proc) when idle after start, then runs
 * a load through the gateway with an API token (bulk creates in every area,
 * a webhook delivering every tenant create to a receiver in this process,
 * then `BENCH_CONNECTIONS` clients reading 1,000-object pages of every area
 * for `BENCH_SECONDS`), and reads VmRSS again and the peak (VmHWM).
 * Loopback only; bounded in count and time.
 * Run: `npm run build && node bench/memory.js`; results in bench/results/memory.json.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { startPostgres, startRabbitMQ, freePort } = require('@inventory/infra');
const { json, writeReport, run } = require('./children');
const { load } = require('./load');

const ROOT = path.resolve(__dirname, '..');
const ENTRY = path.join(ROOT, 'deploy', 'entrypoint.js');
const SERVICES = ['users', 'tenancy', 'dcim', 'circuits', 'virtualization', 'ipam', 'extras', 'webhooks'];
const SECONDS = Number(process.env.BENCH_SECONDS || 40);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const BULK = Number(process.env.BENCH_BULK || 1000);

/** VmRSS and VmHWM of a process, in MiB. */
function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { rss_mib: Math.round(kb('VmRSS') / 1024), peak_mib: Math.round(kb('VmHWM') / 1024) };
}

/** Runs `name` through the image's entry point; resolves when it exits (the job) or answers /readyz (a server). */
function start(name, env, port) {
  const child = spawn(process.execPath, [ENTRY, name], { cwd: ROOT, env: { ...process.env, ...env, ...(port ? { PORT: String(port) } : {}) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (d) => (errors = (errors + d).slice(-5000)));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  if (!port) return exited.then((code) => (code === 0 ? child : Promise.reject(new Error(`${name} exited ${code}: ${errors}`))));
  return (async () => {
    const deadline = Date.now() + 180_000; // a loaded machine starts slowly
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${errors}`);
      if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return child;
      if (Date.now() > deadline) {
        child.kill('SIGKILL'); // not among the started ones: nothing else would stop it
        throw new Error(`${name} not ready after 180 s: ${errors}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
}

async function stop(children) {
  for (const c of [...children].reverse()) {
    if (c.exitCode !== null) continue;
    c.kill('SIGTERM');
    await new Promise((r) => {
      c.once('exit', r);
      setTimeout(() => (c.kill('SIGKILL'), r()), 10_000).unref();
    });
  }
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const children = [];
  const received = { count: 0 };
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.count++;
      res.end('ok');
    });
  });
  try {
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const ports = {};
    for (const n of [...SERVICES, 'gateway']) ports[n] = await freePort();
    const token = randomBytes(20).toString('hex');
    const env = {
      DATABASE_URL: pg.url,
      AMQP_URL: rabbit.url,
      INTERNAL_TOKEN_SECRET: randomBytes(24).toString('hex'),
      SERVICE_URLS: SERVICES.map((n) => `${n}=http://127.0.0.1:${ports[n]}`).join(','),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      SUPERUSER_NAME: 'admin',
      SUPERUSER_PASSWORD: randomBytes(12).toString('hex'),
      SUPERUSER_API_TOKEN: token,
    };
    const t0 = Date.now();
    await start('migrate', env);
    const migrateMs = Date.now() - t0;
    const pids = {};
    for (const n of [...SERVICES, 'gateway']) {
      const c = await start(n, env, ports[n]);
      children.push(c);
      pids[n] = c.pid;
    }
    await new Promise((r) => setTimeout(r, 10_000)); // settle: relays, projections and consumers connected
    const idle = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, memory(pid).rss_mib]));

    const api = `http://127.0.0.1:${ports.gateway}/api`;
    const headers = { authorization: `Token ${token}` };
    const post = (p, body) => json(`${api}/${p}`, headers, 'POST', body);
    const many = (make) => Array.from({ length: BULK }, (_, i) => make(i));
    // a webhook on every tenant create, so the dispatcher works while tenancy is written
    await post('extras/webhooks/', { name: 'bench', content_types: ['tenancy.tenant'], type_create: true, payload_url: `http://127.0.0.1:${receiver.address().port}/` });
    await post('tenancy/tenants/', many((i) => ({ name: `tenant ${i}`, slug: `tenant-${i}` })));
    const [site] = await post('dcim/sites/', many((i) => ({ name: `site ${i}`, slug: `site-${i}`, status: 'active' })));
    await post('circuits/providers/', many((i) => ({ name: `provider ${i}`, slug: `provider-${i}` })));
    const type = await post('virtualization/cluster-types/', { name: 'bench', slug: 'bench' });
    await post('virtualization/clusters/', many((i) => ({ name: `cluster ${i}`, type: type.id, site: site.id })));
    await post('ipam/ip-addresses/', many((i) => ({ address: `10.${(i >> 8) & 255}.${i & 255}.1/16` })));
    await post('ipam/prefixes/', many((i) => ({ prefix: `10.${(i >> 8) & 255}.${i & 255}.0/24` })));
    await post('extras/tags/', many((i) => ({ name: `tag ${i}`, slug: `tag-${i}` })));
    const writes = 2 + 6 * BULK + 1;

    const pages = [
      'tenancy/tenants/', 'dcim/sites/', 'circuits/providers/', 'virtualization/clusters/', 'ipam/ip-addresses/',
      'ipam/prefixes/', 'extras/tags/', 'extras/object-changes/', 'extras/webhook-deliveries/', 'users/users/',
    ];
    const reads = {};
    for (const p of pages) {
      reads[p] = await load({ url: `${api}/${p}?limit=1000`, headers, connections: CONNECTIONS, seconds: SECONDS / pages.length, warmupSeconds: 0.5 });
    }
    const after = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, memory(pid)]));

    const report = {
      what: 'resident memory (MiB) of each process started as the image starts it (node deploy/entrypoint.js <name>): idle after start, then after the load (rss) and its peak (VmHWM)',
      node: process.version,
      // the read rates below depend on what else ran: they are not a throughput figure
      load_average: require('node:os').loadavg().map((l) => Number(l.toFixed(1))),
      load: {
        writes: `${writes} objects in bulk POSTs through the gateway (${BULK} each of tenants, sites, providers, clusters, IP addresses, prefixes, tags)`,
        webhook_deliveries_received: received.count,
        reads: `${CONNECTIONS} clients, ?limit=1000 pages of each endpoint for ${(SECONDS / pages.length).toFixed(1)} s`,
        read_rps: Object.fromEntries(Object.entries(reads).map(([p, r]) => [p, r.rps])),
      },
      migrate_job_ms: migrateMs,
      memory: Object.fromEntries(Object.keys(pids).map((n) => [n, { idle_rss: idle[n], loaded_rss: after[n].rss_mib, peak_rss: after[n].peak_mib }])),
    };
    writeReport(process.env.BENCH_NAME || 'memory', report);
  } finally {
    await stop(children);
    receiver.close();
    await Promise.allSettled([pg.stop(), rabbit.stop()]);
  }
}

run(main);
