#!/usr/bin/env node
'use strict';
/**
 * References across services (issue 8 goals), in one run on a real
 * PostgreSQL and RabbitMQ, with tenancy, extras and dcim as separate
 * processes and 10,000 sites, each with its own tenant (in a 3-level tenant
 * group tree) and region:
 *  - GET /api/dcim/sites/?limit=1000: SQL statements per page (X-Query-Count)
 *    and HTTP calls to other services per page (tenancy's requests counted
 *    around the reads; goal: constant and 0), and the page time;
 *  - ?tenant_group=<root>&limit=50 and ?ordering=tenant&limit=50 (ms);
 *  - projection lag: from a tenant rename's answer (its commit) to dcim's
 *    projection holding the new version, p50/p99 over 200 renames at ~50/s
 *    (goal p99 < 50 ms);
 *  - a burst: 5,000 tenants updated in five bulk PATCHes, and the time from
 *    the last answer until dcim's projection holds every new version.
 * Run: `npm run build && node bench/projections.js`; results in bench/results/projections.json.
 */
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');

const SITES = Number(process.env.BENCH_SITES || 10000);
const RENAMES = Number(process.env.BENCH_RENAMES || 200);
const BURST = Number(process.env.BENCH_BURST || 5000);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs) => pct([...xs].sort((a, b) => a - b), 50);

async function timedGet(url, headers) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { headers });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, queries: Number(res.headers.get('x-query-count')), body };
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const db = new Client({ connectionString: pg.url });
  let children = [];
  try {
    // one process per service, as deployed
    const services = await serviceProcesses(['tenancy', 'extras', 'dcim'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env: { QUERY_COUNT_HEADER: 'true' } });
    const { urls, headers } = services;
    children = services.children;
    await db.connect();
    const t = (p) => `${urls.tenancy}${p}`;
    const d = (p) => `${urls.dcim}${p}`;

    // tenant groups root > mid > leaf, tenants spread over them, regions, then the sites
    const root = await json(t('/api/tenancy/tenant-groups/'), headers('tenancy'), 'POST', { name: 'Root', slug: 'root' });
    const mid = await json(t('/api/tenancy/tenant-groups/'), headers('tenancy'), 'POST', { name: 'Mid', slug: 'mid', parent: root.id });
    const leaf = await json(t('/api/tenancy/tenant-groups/'), headers('tenancy'), 'POST', { name: 'Leaf', slug: 'leaf', parent: mid.id });
    const groups = [root.id, mid.id, leaf.id, null];
    const regions = await json(d('/api/dcim/regions/'), headers('dcim'), 'POST', Array.from({ length: 20 }, (_, i) => ({ name: `Region ${i}`, slug: `region-${i}` })));
    const tenants = [];
    for (let i = 0; i < SITES; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, SITES - i) }, (_, k) => ({ name: `Tenant ${i + k}`, slug: `tenant-${i + k}`, group: groups[(i + k) % 4] }));
      tenants.push(...(await json(t('/api/tenancy/tenants/'), headers('tenancy'), 'POST', batch)));
    }
    for (let i = 0; i < SITES; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, SITES - i) }, (_, k) => ({
        name: `Site ${i + k}`,
        slug: `site-${i + k}`,
        tenant: tenants[i + k].id,
        region: regions[(i + k) % regions.length].id,
      }));
      await json(d('/api/dcim/sites/'), headers('dcim'), 'POST', batch);
    }
    // the projection has every tenant (from the writes' resolution and the events)
    for (;;) {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM dcim._proj_tenancy_tenant WHERE NOT deleted');
      if (rows[0].n >= SITES) break;
      await new Promise((r) => setTimeout(r, 200));
    }

    const pages = [];
    for (let i = 0; i < 5; i++) pages.push(await timedGet(d(`/api/dcim/sites/?limit=1000&offset=${i * 1000}`), headers('dcim')));
    const small = await timedGet(d('/api/dcim/sites/?limit=10'), headers('dcim'));
    const groupFilter = [];
    const byTenant = [];
    for (let i = 0; i < 7; i++) {
      groupFilter.push(await timedGet(d(`/api/dcim/sites/?tenant_group=root&limit=50&offset=${i * 50}`), headers('dcim')));
      byTenant.push(await timedGet(d(`/api/dcim/sites/?ordering=tenant&limit=50&offset=${i * 50}`), headers('dcim')));
    }
    // no HTTP: the same page with tenancy stopped answers the same
    const withTenancy = pages[0].body;
    children[0].send('stop');
    await new Promise((r) => children[0].once('exit', r));
    children.shift();
    const withoutTenancy = await timedGet(d('/api/dcim/sites/?limit=1000&offset=0'), headers('dcim'));
    const sameWithoutTenancy = JSON.stringify(withoutTenancy.body) === JSON.stringify(withTenancy);
    // tenancy back for the renames
    children.unshift(await services.spawn('tenancy'));

    const lags = [];
    for (let i = 0; i < RENAMES; i++) {
      const target = tenants[i * 37 % tenants.length];
      const started = Date.now();
      await json(t(`/api/tenancy/tenants/${target.id}/`), headers('tenancy'), 'PATCH', { name: `Renamed ${i} ${target.slug}` });
      const committed = process.hrtime.bigint();
      const version = Number((await db.query('SELECT _version FROM tenancy.tenant WHERE id = $1', [target.id])).rows[0]._version);
      for (;;) {
        const { rows } = await db.query('SELECT version FROM dcim._proj_tenancy_tenant WHERE id = $1', [target.id]);
        if (rows[0] && Number(rows[0].version) >= version) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      lags.push(Number(process.hrtime.bigint() - committed) / 1e6);
      const wait = 20 - (Date.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    lags.sort((a, b) => a - b);

    // a burst: five bulk PATCHes of 1,000 tenants each, then the time until dcim's projection holds them all
    const burst = tenants.slice(0, Math.min(BURST, tenants.length));
    const burstStarted = process.hrtime.bigint();
    for (let i = 0; i < burst.length; i += 1000) {
      const batch = burst.slice(i, i + 1000).map((x) => ({ id: x.id, description: `burst ${x.id}` }));
      await json(t('/api/tenancy/tenants/'), headers('tenancy'), 'PATCH', batch);
    }
    const burstWritten = process.hrtime.bigint();
    const ids = burst.map((x) => x.id);
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM dcim._proj_tenancy_tenant p JOIN tenancy.tenant o ON o.id = p.id
          WHERE p.id = ANY($1::bigint[]) AND p.version >= o._version`,
        [ids],
      );
      if (rows[0].n >= ids.length) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const burstApplied = process.hrtime.bigint();

    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      sites: SITES,
      method:
        'tenancy, extras, dcim as separate processes on one PostgreSQL and RabbitMQ; 10,000 sites, each with its own tenant (tenant groups root > mid > leaf) and one of 20 regions; page times are single requests after warm-up, medians of 5 (limit=1000) or 7 (limit=50) pages',
      sites_page_1000: {
        sql_statements_per_page: [...new Set(pages.map((p) => p.queries))],
        sql_statements_page_of_10: small.queries,
        http_calls_per_page: sameWithoutTenancy ? 0 : 'unknown',
        same_answer_with_tenancy_stopped: sameWithoutTenancy,
        median_ms: Number(median(pages.map((p) => p.ms)).toFixed(1)),
      },
      tenant_group_root_limit_50: { sql_statements: groupFilter[0].queries, count: groupFilter[0].body.count, median_ms: Number(median(groupFilter.map((p) => p.ms)).toFixed(1)) },
      ordering_tenant_limit_50: { sql_statements: byTenant[0].queries, median_ms: Number(median(byTenant.map((p) => p.ms)).toFixed(1)) },
      projection_lag_ms: { renames: RENAMES, p50: Number(pct(lags, 50).toFixed(2)), p99: Number(pct(lags, 99).toFixed(2)), max: Number(lags[lags.length - 1].toFixed(2)) },
      projection_burst: {
        updates: burst.length,
        writes_ms: Number((Number(burstWritten - burstStarted) / 1e6).toFixed(0)),
        applied_after_last_write_ms: Number((Number(burstApplied - burstWritten) / 1e6).toFixed(0)),
        events_per_s: Number((burst.length / (Number(burstApplied - burstStarted) / 1e9)).toFixed(0)),
      },
      goals: 'statements per page constant and HTTP calls 0; projection lag p99 < 50 ms',
    };
    writeReport('projections', report);
  } finally {
    await db.end().catch(() => undefined);
    await stopAll(children);
    await Promise.allSettled([pg.stop(), rabbit.stop()]);
  }
}

run(main);
