#!/usr/bin/env node
'use strict';
/**
 * Resident memory of every process as deployed (goal: each under 150 MB under load), on a real
 * PostgreSQL and RabbitMQ: users, tenancy, dcim, circuits, virtualization, ipam, extras and
 * webhooks one process each (bench/servers.js, as bench/children.js starts them) and the gateway
 * in front, NODE_ENV=production, the configuration's defaults otherwise, the production heap policy
 * (deploy/heap.js), after the migration job (deploy/migrate.js) as deployed.
 *  - idle: VmRSS (/proc/<pid>/status) once every process is up and BENCH_SETTLE seconds passed;
 *  - loaded: a seed (tenants, sites, 500 devices with 8 interfaces each, circuits, VMs, prefixes,
 *    2,000 IP addresses, VLANs) and then BENCH_SECONDS of closed-loop load from BENCH_CONNECTIONS
 *    clients, all through the gateway with a superuser's API token: lists on every area (pages of
 *    50 and of 1,000), creates on every area (devices with their interfaces, IP addresses by
 *    available-ips), updates and deletes, webhooks on every create and update sent to a receiver
 *    in this process, extras' change log taking every event; RSS sampled every 200 ms: the peak
 *    (seed and load) and the median (load), and the kernel's high-water mark (VmHWM);
 *  - after: RSS once the load stopped and BENCH_SETTLE seconds passed (what is handed back);
 *  - process.memoryUsage() of each at those moments, and last after a full collection (the
 *    processes run with --expose-gc, which changes nothing until servers.js calls gc() for this
 *    last reading): V8's heap against the rest, live memory against garbage not yet collected.
 * MB here are 10^6 bytes (the strict reading of the goal). BENCH_NODE_OPTIONS adds to the service
 * processes' NODE_OPTIONS (to try V8 settings). Run: `npm run build && node
 * bench/memory.js`; results in bench/results/memory.json.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, writeReport, run } = require('./children');

const { SERVICE_NAMES: SERVICES } = require('../deploy/services');
const SETTLE = Number(process.env.BENCH_SETTLE || 10);
const SECONDS = Number(process.env.BENCH_SECONDS || 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 12);
const DEVICES = Number(process.env.BENCH_DEVICES || 500);
const GOAL_MB = 150;
const SAMPLE_MS = 200;
const MB = 1e6;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { rss: (kb('VmRSS') * 1024) / MB, hwm: (kb('VmHWM') * 1024) / MB };
}

/**
 * process.memoryUsage() of a bench/servers.js child in MB (rss, heapTotal, heapUsed, external,
 * arrayBuffers), null if it does not answer; `afterGc`: after a full collection, null unless the
 * child runs with --expose-gc.
 */
function usageOf(child, afterGc = false) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(null), 5000);
    const onMessage = (m) => m?.memory && done(afterGc && !m.collected ? null : Object.fromEntries(Object.entries(m.memory).map(([k, v]) => [k, round(v / MB)])));
    const done = (value) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(value);
    };
    child.on('message', onMessage);
    child.send(afterGc ? 'memory-after-gc' : 'memory');
  });
}
const usages = async (children, afterGc) => Promise.all(children.map((c) => usageOf(c, afterGc)));

/** Samples every process's RSS while `phase` is set: samples[name][phase] = [MB, ...]. */
function sampler(pids) {
  const samples = Object.fromEntries(Object.keys(pids).map((n) => [n, {}]));
  let phase = null;
  const timer = setInterval(() => {
    if (!phase) return;
    for (const [name, pid] of Object.entries(pids)) (samples[name][phase] ??= []).push(memoryOf(pid).rss);
  }, SAMPLE_MS);
  return { samples, set: (p) => (phase = p), stop: () => clearInterval(timer) };
}

/** The gateway as a client sees it: a superuser's token, JSON in and out, every answer's status counted. */
function client(base, token) {
  const stats = {};
  const call = async (op, method, path, body) => {
    const s = (stats[op] ??= { requests: 0, errors: 0, ms: [], first_error: null });
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    s.requests++;
    s.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.status >= 300) {
      s.errors++;
      s.first_error ??= `${method} ${path}: ${res.status} ${text.slice(0, 200)}`;
      return null;
    }
    return text ? JSON.parse(text) : {};
  };
  /** For the seed: a failure stops the benchmark. */
  const must = async (method, path, body) => {
    const r = await call('seed', method, path, body);
    if (r === null) throw new Error(stats.seed.first_error);
    return r;
  };
  return { call, must, stats };
}

/** Webhook receiver on loopback: counts deliveries, answers 204 at once. */
async function receiver() {
  const counts = { requests: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      counts.requests++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { counts, url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/** Everything the load needs to exist, through the gateway, 100–250 objects per request. */
async function seed(api, webhookUrl) {
  const t0 = Date.now();
  const many = async (path, n, make, per = 100) => {
    const out = [];
    for (let i = 0; i < n; i += per) out.push(...(await api.must('POST', path, Array.from({ length: Math.min(per, n - i) }, (_, k) => make(i + k)))));
    return out;
  };
  await api.must('POST', '/api/extras/webhooks/', {
    name: 'Memory bench',
    content_types: ['tenancy.tenant', 'dcim.site', 'dcim.device', 'circuits.circuit', 'virtualization.virtualmachine', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan', 'extras.tag'],
    type_create: true,
    type_update: true,
    payload_url: webhookUrl,
    secret: 'memory-bench-secret',
  });
  const tags = await many('/api/extras/tags/', 5, (i) => ({ name: `Tag ${i}`, slug: `tag-${i}` }));
  const groups = await many('/api/tenancy/tenant-groups/', 5, (i) => ({ name: `Group ${i}`, slug: `group-${i}` }));
  const tenants = await many('/api/tenancy/tenants/', 500, (i) => ({ name: `Tenant ${i}`, slug: `tenant-${i}`, group: groups[i % 5].id, tags: [tags[i % 5].id] }));
  const region = await api.must('POST', '/api/dcim/regions/', { name: 'Region', slug: 'region' });
  const sites = await many('/api/dcim/sites/', 20, (i) => ({ name: `Site ${i}`, slug: `site-${i}`, region: region.id, tenant: tenants[i].id }));
  const maker = await api.must('POST', '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const role = await api.must('POST', '/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
  const type = await api.must('POST', '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Switch 8', slug: 'switch-8' });
  await many('/api/dcim/interface-templates/', 8, (i) => ({ device_type: type.id, name: `eth${i}`, type: '1000base-t' }));
  const devices = await many('/api/dcim/devices/', DEVICES, (i) => ({ name: `dev-${i}`, device_type: type.id, role: role.id, site: sites[i % 20].id, tenant: tenants[i % 500].id }), 50);
  const provider = await api.must('POST', '/api/circuits/providers/', { name: 'Provider', slug: 'provider' });
  const circuitType = await api.must('POST', '/api/circuits/circuit-types/', { name: 'Transit', slug: 'transit' });
  await many('/api/circuits/circuits/', 200, (i) => ({ cid: `C-${i}`, provider: provider.id, type: circuitType.id, tenant: tenants[i].id }));
  const clusterType = await api.must('POST', '/api/virtualization/cluster-types/', { name: 'VMware', slug: 'vmware' });
  const clusters = await many('/api/virtualization/clusters/', 5, (i) => ({ name: `Cluster ${i}`, type: clusterType.id }));
  await many('/api/virtualization/virtual-machines/', 300, (i) => ({ name: `vm-${i}`, cluster: clusters[i % 5].id, tenant: tenants[i].id }));
  const container = await api.must('POST', '/api/ipam/prefixes/', { prefix: '10.0.0.0/16', status: 'container' });
  const pool = await api.must('POST', '/api/ipam/prefixes/', { prefix: '10.1.0.0/16' });
  await many('/api/ipam/prefixes/', 100, (i) => ({ prefix: `10.0.${i}.0/24`, tenant: tenants[i].id }));
  await many('/api/ipam/ip-addresses/', 2000, (i) => ({ address: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}/24`, dns_name: `host-${i}.example` }), 250);
  await many('/api/ipam/vlans/', 100, (i) => ({ vid: i + 1, name: `VLAN ${i + 1}` }));
  return { ms: Date.now() - t0, ids: { tenants: tenants.map((t) => t.id), device: devices[0].id, sites, type, role, provider, circuitType, clusters, container, pool, groups }, counts: { tenants: 500, devices: DEVICES, interfaces: DEVICES * 8, circuits: 200, virtual_machines: 300, prefixes: 102, ip_addresses: 2000, vlans: 100 } };
}

/** The load's operations: every area's lists (pages of 50 and 1,000) and writes (each create, update and delete with its event). */
function operations(api, ids) {
  let n = 0;
  const next = () => ++n;
  const madeTenants = [];
  const get = (path) => () => api.call(`GET ${path.replace(/\/\d+\//, '/{id}/')}`, 'GET', path);
  return [
    get('/api/tenancy/tenants/?limit=50'),
    async () => {
      const k = next();
      const t = await api.call('POST tenant', 'POST', '/api/tenancy/tenants/', { name: `Load ${k}`, slug: `load-${k}`, group: ids.groups[k % 5].id });
      if (t) madeTenants.push(t.id);
    },
    get('/api/dcim/devices/?limit=50'),
    () => api.call('PATCH tenant', 'PATCH', `/api/tenancy/tenants/${ids.tenants[next() % ids.tenants.length]}/`, { description: `touched ${n}` }),
    get('/api/dcim/interfaces/?limit=1000'),
    () => {
      const k = next();
      return api.call('POST 5 devices', 'POST', '/api/dcim/devices/', Array.from({ length: 5 }, (_, i) => ({ name: `load-${k}-${i}`, device_type: ids.type.id, role: ids.role.id, site: ids.sites[k % 20].id })));
    },
    get('/api/circuits/circuits/?limit=50'),
    () => {
      const k = next();
      return api.call('POST site', 'POST', '/api/dcim/sites/', { name: `Load site ${k}`, slug: `load-site-${k}` });
    },
    get('/api/virtualization/virtual-machines/?limit=1000'),
    () => api.call('POST circuit', 'POST', '/api/circuits/circuits/', { cid: `L-${next()}`, provider: ids.provider.id, type: ids.circuitType.id }),
    get('/api/ipam/ip-addresses/?limit=1000'),
    () => api.call('POST virtual machine', 'POST', '/api/virtualization/virtual-machines/', { name: `load-vm-${next()}`, cluster: ids.clusters[n % 5].id }),
    get(`/api/ipam/prefixes/${ids.pool.id}/available-ips/?limit=10`),
    () => api.call('POST available-ip', 'POST', `/api/ipam/prefixes/${ids.pool.id}/available-ips/`, { status: 'active', description: `load ${next()}` }),
    get('/api/extras/object-changes/?limit=50'),
    () => {
      const k = next() % 65000;
      return api.call('POST prefix', 'POST', '/api/ipam/prefixes/', { prefix: `172.${16 + Math.floor(k / 256) % 16}.${k % 256}.0/24` });
    },
    get('/api/dcim/devices/?limit=1000'),
    () => api.call('POST vlan', 'POST', '/api/ipam/vlans/', { vid: 1 + (next() % 4000), name: `Load VLAN ${n}` }),
    get('/api/extras/object-changes/?limit=1000'),
    () => api.call('POST tag', 'POST', '/api/extras/tags/', { name: `Load tag ${next()}`, slug: `load-tag-${n}` }),
    get('/api/tenancy/tenants/?limit=1000'),
    async () => {
      const id = madeTenants.shift();
      if (id) await api.call('DELETE tenant', 'DELETE', `/api/tenancy/tenants/${id}/`);
    },
    get('/api/circuits/circuits/?limit=1000'),
    get('/api/ipam/prefixes/?limit=50'),
    get('/api/ipam/vlans/?limit=50'),
    get('/api/virtualization/clusters/'),
    get('/api/dcim/sites/?limit=50'),
    get('/api/extras/tags/'),
    get('/api/extras/webhooks/'),
    get('/api/extras/webhook-deliveries/?limit=50'),
    get('/api/users/users/'),
    get('/api/users/tokens/'),
    get(`/api/dcim/devices/${ids.device}/`),
  ];
}

/** CONNECTIONS clients, each working through the operations from its own offset until the time is up. */
async function closedLoop(ops, seconds) {
  const end = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      for (let k = c * 3; Date.now() < end; k++) {
        await ops[k % ops.length]();
        done++;
      }
    }),
  );
  return done;
}

/** deploy/migrate.js (the image's `migrate`) on the benchmark's database. */
function migrationJob(databaseUrl) {
  const { execFileSync } = require('node:child_process');
  execFileSync(process.execPath, [path.join(__dirname, '..', 'deploy', 'migrate.js')], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const hook = await receiver();
  const token = randomBytes(20).toString('hex');
  let children = [];
  try {
    // --expose-gc changes nothing by itself: only the last reading asks for a full collection, to
    // tell live memory from garbage; BENCH_NODE_OPTIONS adds V8 settings to try (--max-old-space-size=…)
    const nodeOptions = ['--expose-gc', require('../deploy/heap').NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS].filter(Boolean).join(' ');
    const env = { NODE_OPTIONS: nodeOptions, NODE_ENV: 'production', SUPERUSER_NAME: 'bench', SUPERUSER_PASSWORD: randomBytes(12).toString('hex'), SUPERUSER_API_TOKEN: token };
    // as deployed: the migration job first, so the services start on schemas already up to date
    await migrationJob(pg.url);
    const services = await serviceProcesses([...SERVICES, 'gateway'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env });
    children = services.children;
    const names = [...SERVICES, 'gateway'];
    const pids = Object.fromEntries(names.map((n, i) => [n, children[i].pid]));
    const api = client(services.urls.gateway, token);
    const rss = sampler(pids);
    process.stderr.write(`started; idle for ${SETTLE} s\n`);
    await sleep(SETTLE * 1000);
    const idle = Object.fromEntries(names.map((n) => [n, memoryOf(pids[n]).rss]));
    const heaps = { idle: await usages(children) };

    rss.set('seed');
    const seeded = await seed(api, hook.url);
    process.stderr.write(`seeded in ${seeded.ms} ms; load for ${SECONDS} s from ${CONNECTIONS} clients\n`);
    const changesBefore = (await api.must('GET', '/api/extras/object-changes/?limit=1')).count;
    const hooksBefore = hook.counts.requests;
    rss.set('load');
    const t0 = Date.now();
    const done = await closedLoop(operations(api, seeded.ids), SECONDS);
    const loadSeconds = (Date.now() - t0) / 1000;
    const hwm = Object.fromEntries(names.map((n) => [n, memoryOf(pids[n]).hwm]));
    heaps.load_end = await usages(children);
    rss.set('after');
    process.stderr.write(`load done: ${done} operations in ${loadSeconds.toFixed(1)} s; settling ${SETTLE} s\n`);
    await sleep(SETTLE * 1000);
    const after = Object.fromEntries(names.map((n) => [n, memoryOf(pids[n]).rss]));
    heaps.after = await usages(children);
    heaps.after_gc = await usages(children, true);
    rss.stop();
    // the change log and the webhooks kept up (or how far they got): read after the settle
    const changesAfter = (await api.must('GET', '/api/extras/object-changes/?limit=1')).count;
    const deliveries = hook.counts.requests - hooksBefore;

    const processes = {};
    for (const [i, n] of names.entries()) {
      const loaded = [...(rss.samples[n].seed ?? []), ...(rss.samples[n].load ?? [])];
      const peak = Math.max(...loaded);
      processes[n] = {
        pid: pids[n],
        idle_mb: round(idle[n]),
        loaded_median_mb: round(median(rss.samples[n].load ?? [NaN])),
        loaded_peak_mb: round(peak),
        high_water_mark_mb: round(hwm[n]),
        after_mb: round(after[n]),
        samples: loaded.length,
        under_goal: peak < GOAL_MB,
        // process.memoryUsage() at those moments: V8's heap (total, used), memory outside it (external, of which arrayBuffers)
        node_memory_usage_mb: { idle: heaps.idle[i], load_end: heaps.load_end[i], after: heaps.after[i], ...(heaps.after_gc[i] ? { after_full_gc: heaps.after_gc[i] } : {}) },
      };
      process.stderr.write(`${n}: idle ${round(idle[n])} MB, loaded median ${processes[n].loaded_median_mb} MB, peak ${round(peak)} MB, VmHWM ${round(hwm[n])} MB, after ${round(after[n])} MB\n`);
    }
    const byOperation = Object.fromEntries(
      Object.entries(api.stats)
        .filter(([op]) => op !== 'seed')
        .map(([op, s]) => [op, { requests: s.requests, errors: s.errors, p50_ms: round(median(s.ms)), ...(s.first_error ? { first_error: s.first_error } : {}) }]),
    );
    const requests = Object.values(byOperation).reduce((a, s) => a + s.requests, 0);
    const writes = Object.entries(byOperation).filter(([op]) => !op.startsWith('GET')).reduce((a, [, s]) => a + s.requests - s.errors, 0);
    writeReport('memory', {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, memory_mb: Math.round(os.totalmem() / MB), load_average: os.loadavg().map((x) => round(x)) },
      method: `each service and the gateway in its own process (bench/servers.js), NODE_ENV=production, NODE_OPTIONS=${nodeOptions}, defaults otherwise (DATABASE_POOL_MAX 10); RSS = VmRSS of /proc/<pid>/status sampled every ${SAMPLE_MS} ms; idle after ${SETTLE} s; loaded = the seed through the gateway then ${SECONDS} s of closed-loop load from ${CONNECTIONS} clients through the gateway (lists of 50 and 1,000 on every area, creates, updates, deletes, available-ips, webhooks to a loopback receiver, extras' change log); after = ${SETTLE} s after the load; MB = 10^6 bytes`,
      goal_mb: GOAL_MB,
      processes,
      over_goal: names.filter((n) => !processes[n].under_goal),
      seed: { ms: seeded.ms, ...seeded.counts },
      load: {
        seconds: round(loadSeconds),
        connections: CONNECTIONS,
        requests,
        requests_per_s: Math.round(requests / loadSeconds),
        errors: Object.values(byOperation).reduce((a, s) => a + s.errors, 0),
        writes,
        object_changes_recorded: changesAfter - changesBefore,
        webhook_deliveries_received: deliveries,
        by_operation: byOperation,
      },
    });
  } finally {
    await stopAll(children);
    hook.close();
    await Promise.allSettled([pg.stop(), rabbit.stop()]);
  }
}

run(main);
