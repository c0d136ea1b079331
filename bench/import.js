#!/usr/bin/env node
'use strict';
/**
 * `npm run import` between two instances of ours on this machine (issue 25):
 * a scaled-down inventory (BENCH_DEVICES devices, default 200, from a
 * 48-port device type: 48 interfaces each; half as many cables; 10 addresses
 * per device, the first its primary IP; sites, racks, tenants, a tag)
 * filled in the source, copied into an empty target through both gateways
 * (the importer's diff sync, pages of 500), then verified. Objects per second
 * per model, and the issue's inventory (10,000 devices, 480,000 interfaces,
 * 100,000 addresses, 10,000 cables) extrapolated from those rates.
 * Each instance: its own database on one PostgreSQL, its own virtual host on
 * one RabbitMQ, its services in one process and its gateway in another.
 * BENCH_PAGE_SIZE and BENCH_CONCURRENCY are the importer's --page-size and --concurrency.
 * Run: `npm run build && node bench/import.js`; results in bench/results/import.json.
 */
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ, freePort } = require('@inventory/infra');
const { child, stopAll, json, writeReport, run } = require('./children');
const { runImport } = require('@inventory/importer');

const DEVICES = Number(process.env.BENCH_DEVICES || 200);
/** The importer's own knobs (its defaults: pages of 500, two at a time). */
const PAGE_SIZE = Number(process.env.BENCH_PAGE_SIZE || 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 2);
const PORTS = 48;
const ADDRESSES_PER_DEVICE = 10;
const KEY = '0123456789abcdef0123456789abcdef01234567';
const SERVICES = ['users', 'tenancy', 'extras', 'dcim', 'ipam', 'circuits', 'virtualization'];
/** The issue's inventory. */
const TARGET = { 'dcim.devices': 10000, 'dcim.interfaces': 480000, 'ipam.ip-addresses': 100000, 'dcim.cables': 10000 };

async function instance(databaseUrl, amqpUrl) {
  const ports = {};
  for (const n of [...SERVICES, 'gateway']) ports[n] = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    INTERNAL_TOKEN_SECRET: randomBytes(24).toString('hex'),
    SERVICE_URLS: Object.entries(ports).map(([n, p]) => `${n}=http://127.0.0.1:${p}`).join(','),
    DATABASE_POOL_MAX: '10',
    MAX_BODY_SIZE: String(50 * 1024 * 1024),
    SUPERUSER_NAME: 'admin',
    SUPERUSER_PASSWORD: 'admin-password-1',
    SUPERUSER_API_TOKEN: KEY,
  };
  const services = await child(path.join(__dirname, 'servers.js'), { ...env, BENCH_PORTS: JSON.stringify(Object.fromEntries(SERVICES.map((n) => [n, ports[n]]))) });
  const gateway = await child(path.join(__dirname, 'servers.js'), { ...env, BENCH_PORTS: JSON.stringify({ gateway: ports.gateway }) });
  return { url: `http://127.0.0.1:${ports.gateway}`, children: [services, gateway] };
}

async function fill(base) {
  const H = { authorization: `Token ${KEY}` };
  const post = (p, body) => json(`${base}${p}`, H, 'POST', body);
  const patch = (p, body) => json(`${base}${p}`, H, 'PATCH', body);
  const chunks = (items, n) => Array.from({ length: Math.ceil(items.length / n) }, (_, i) => items.slice(i * n, i * n + n));
  const tag = await post('/api/extras/tags/', { name: 'Bench', slug: 'bench' });
  const tenants = await post('/api/tenancy/tenants/', Array.from({ length: 10 }, (_, i) => ({ name: `Tenant ${i}`, slug: `tenant-${i}` })));
  const sites = await post('/api/dcim/sites/', Array.from({ length: 10 }, (_, i) => ({ name: `Site ${i}`, slug: `site-${i}`, tenant: tenants[i].id, tags: [tag.id] })));
  const racks = await post('/api/dcim/racks/', Array.from({ length: 50 }, (_, i) => ({ name: `R${i}`, site: sites[i % 10].id })));
  const maker = await post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const role = await post('/api/dcim/device-roles/', { name: 'Access', slug: 'access' });
  const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Switch 48', slug: 'switch-48' });
  await post('/api/dcim/interface-templates/', Array.from({ length: PORTS }, (_, i) => ({ device_type: type.id, name: `eth${i + 1}`, type: '1000base-t' })));
  const devices = [];
  for (const batch of chunks(Array.from({ length: DEVICES }, (_, i) => i), 100)) {
    devices.push(...(await post('/api/dcim/devices/', batch.map((i) => ({ name: `sw${i}`, device_type: type.id, role: role.id, site: sites[i % 10].id, rack: racks[i % 50].id, tenant: tenants[i % 10].id })))));
  }
  // the first two interfaces of each device, by device (created from the template in name order)
  const first = new Map();
  for (let offset = 0; ; offset += 1000) {
    const page = await json(`${base}/api/dcim/interfaces/?name=eth1&name=eth2&limit=1000&offset=${offset}&ordering=id&brief=1`, H);
    for (const i of page.results) (first.get(i.device.id) ?? first.set(i.device.id, []).get(i.device.id)).push(i.id);
    if (!page.next) break;
  }
  const cables = [];
  for (let d = 0; d + 1 < devices.length; d += 2) {
    cables.push({ a_terminations: [{ object_type: 'dcim.interface', object_id: first.get(devices[d].id)[0] }], b_terminations: [{ object_type: 'dcim.interface', object_id: first.get(devices[d + 1].id)[0] }] });
  }
  for (const batch of chunks(cables, 500)) await post('/api/dcim/cables/', batch);
  const addresses = devices.flatMap((dev, d) =>
    Array.from({ length: ADDRESSES_PER_DEVICE }, (_, k) => ({ address: `10.${Math.floor(d / 250)}.${d % 250}.${k + 1}/16`, assigned_object_type: 'dcim.interface', assigned_object_id: first.get(dev.id)[1], tenant: tenants[d % 10].id })),
  );
  const made = [];
  for (const batch of chunks(addresses, 1000)) made.push(...(await post('/api/ipam/ip-addresses/', batch)));
  for (const batch of chunks(devices.map((dev, d) => ({ id: dev.id, primary_ip4: made[d * ADDRESSES_PER_DEVICE].id })), 500)) await patch('/api/dcim/devices/', batch);
  return { devices: devices.length, interfaces: devices.length * PORTS, addresses: made.length, cables: cables.length };
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined, vhosts: ['source', 'target'] })]);
  const admin = new Client({ connectionString: pg.url });
  await admin.connect();
  const dbUrl = (name) => {
    const u = new URL(pg.url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  for (const name of ['import_source', 'import_target']) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const children = [];
  try {
    const source = await instance(dbUrl('import_source'), `${rabbit.url}/source`);
    children.push(...source.children);
    const target = await instance(dbUrl('import_target'), `${rabbit.url}/target`);
    children.push(...target.children);
    const t0 = Date.now();
    const filled = await fill(source.url);
    const fillMs = Date.now() - t0;
    const lines = [];
    const opts = { from: source.url, token: KEY, to: target.url, toToken: KEY, pageSize: PAGE_SIZE, concurrency: CONCURRENCY, out: (l) => lines.push(l) };
    const t1 = Date.now();
    const copied = await runImport({ ...opts, verify: false });
    const importMs = Date.now() - t1;
    const t2 = Date.now();
    const verified = await runImport({ ...opts, verifyOnly: true });
    const verifyMs = Date.now() - t2;
    const t3 = Date.now();
    const again = await runImport({ ...opts, verify: false });
    const againMs = Date.now() - t3;
    process.stderr.write(`${lines.join('\n')}\n`);
    const models = copied.reports.filter((r) => r.source).map((r) => ({ model: r.model, objects: r.source, created: r.created, seconds: r.ms / 1000, objects_per_s: Math.round((r.source * 1000) / Math.max(1, r.ms)) }));
    const byModel = Object.fromEntries(models.map((m) => [m.model, m]));
    // the issue's inventory at these rates (the models it names), plus the rest of this run's time
    const named = Object.keys(TARGET).reduce((s, m) => s + (byModel[m]?.seconds ?? 0), 0);
    const extrapolated = Object.entries(TARGET).reduce((s, [m, n]) => s + n / (byModel[m]?.objects_per_s || 1), 0) + (importMs / 1000 - named);
    writeReport('import', {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m: Math.round(os.loadavg()[0] * 10) / 10 },
      page_size: PAGE_SIZE,
      concurrency: CONCURRENCY,
      description: 'npm run import between two instances of ours on this machine: a scaled-down inventory copied (ids kept), verified, and imported again (nothing to change)',
      cpus: os.cpus().length,
      inventory: filled,
      objects: copied.reports.reduce((s, r) => s + r.source, 0),
      fill_seconds: fillMs / 1000,
      import_seconds: importMs / 1000,
      verify_seconds: verifyMs / 1000,
      verify_differences: verified.differences.length,
      second_import_seconds: againMs / 1000,
      second_import_writes: again.reports.reduce((s, r) => s + r.created + r.updated + r.deleted, 0),
      models,
      extrapolated_10000_devices_minutes: Math.round((extrapolated / 60) * 10) / 10,
      extrapolation: `each model the issue names (${Object.entries(TARGET).map(([m, n]) => `${n.toLocaleString('en-US')} ${m}`).join(', ')}) at this run's objects/s, plus the rest of this run's import time once`,
      goal_minutes: 10,
    });
    if (verified.differences.length) throw new Error(`verify found ${verified.differences.length} differences`);
  } finally {
    await stopAll(children);
    await Promise.all([pg.stop?.(), rabbit.stop?.()]);
  }
}

run(main);
