#!/usr/bin/env node
'use strict';
/**
 * GraphQL against REST (issue 26): a device list of 1,000 (BENCH_DEVICES) with
 * their interfaces (BENCH_INTERFACES each), the interfaces' IP addresses, the
 * site and the tenant, through the gateway with an API token, users, tenancy,
 * extras, dcim and ipam each a process of its own:
 *  - GraphQL: one `device_list(limit: 1000) { … interfaces { … ip_addresses { … } } }`
 *    query (median of BENCH_RUNS), its statements (every service's
 *    X-Query-Count, summed by the gateway) and service calls, and the same
 *    for a page of 100 devices (goal: the same statements and calls);
 *  - REST, as a client that walks the relations: the device list, then each
 *    device's interfaces and each device's addresses (`?device_id=`), 8
 *    requests at a time; and as a client that pages whole lists: devices,
 *    interfaces and addresses at 1,000 a page (it must join them itself),
 *    one run after each GraphQL run (interleaved), their median.
 * Goals: the GraphQL query faster than the REST calls together (issue 26),
 * at least 3x faster than paging whole lists, its statements and service
 * calls constant in the rows.
 * Run: `npm run build && node bench/graphql.js`; results in bench/results/graphql.json.
 */
const { randomBytes } = require('node:crypto');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');

const DEVICES = Number(process.env.BENCH_DEVICES || 1000);
const INTERFACES = Number(process.env.BENCH_INTERFACES || 4);
const RUNS = Number(process.env.BENCH_RUNS || 5);
const CONCURRENCY = 8;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 10) / 10;

/** One request through the gateway: its time, statements (X-Query-Count) and service calls. */
async function timed(url, token, body) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text);
  if (parsed.errors) throw new Error(`${url}: ${JSON.stringify(parsed.errors).slice(0, 300)}`);
  return { ms, statements: Number(res.headers.get('x-query-count')), calls: Number(res.headers.get('x-service-calls')), body: parsed };
}

const QUERY = (limit) => `{ device_list(limit: ${limit}) { id name site { id name } tenant { id name }
  interfaces { id name ip_addresses { id address } } } }`;

/**
 * The query's runs (after one warm-up); with `between`, a run of it after
 * each (interleaved: the machine's load falls on both alike), its results.
 */
async function graphql(gateway, token, limit, between) {
  const runs = [];
  const others = [];
  for (let i = 0; i < RUNS + 1; i++) {
    runs.push(await timed(`${gateway}/graphql/`, token, { query: QUERY(limit) }));
    if (between && i > 0) others.push(await between());
  }
  const measured = runs.slice(1); // the first warms the caches
  const devices = measured[0].body.data.device_list;
  return {
    devices: devices.length,
    interfaces: devices.reduce((n, d) => n + d.interfaces.length, 0),
    addresses: devices.reduce((n, d) => n + d.interfaces.reduce((m, i) => m + i.ip_addresses.length, 0), 0),
    ms_median: round(median(measured.map((r) => r.ms))),
    statements: measured[0].statements,
    service_calls: measured[0].calls,
    others,
  };
}

/** Requests `urls` CONCURRENCY at a time; their total time, statements and count. */
async function restCalls(urls, token) {
  const t0 = process.hrtime.bigint();
  let statements = 0;
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const r = await timed(urls[next++], token);
      statements += r.statements;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, statements, requests: urls.length };
}

/** The relation-walking client: devices, then per device its interfaces and its addresses. */
async function restWalk(gateway, token) {
  const t0 = process.hrtime.bigint();
  const list = await timed(`${gateway}/api/dcim/devices/?limit=${DEVICES}`, token);
  const ids = list.body.results.map((d) => d.id);
  const rest = await restCalls(ids.flatMap((id) => [`${gateway}/api/dcim/interfaces/?device_id=${id}&limit=1000`, `${gateway}/api/ipam/ip-addresses/?device_id=${id}&limit=1000`]), token);
  return { ms: round(Number(process.hrtime.bigint() - t0) / 1e6), requests: rest.requests + 1, statements: rest.statements + list.statements };
}

/** The paging client: every device, interface and address at 1,000 a page (joined by the client); one run. */
async function restPages(gateway, token, interfaces, addresses) {
  const pages = (path, n) => Array.from({ length: Math.ceil(n / 1000) }, (_, i) => `${gateway}${path}?limit=1000&offset=${i * 1000}`);
  const r = await restCalls([...pages('/api/dcim/devices/', DEVICES), ...pages('/api/dcim/interfaces/', interfaces), ...pages('/api/ipam/ip-addresses/', addresses)], token);
  return { ms: round(r.ms), requests: r.requests, statements: r.statements };
}

async function seed(urls, headers) {
  const d = (p) => `${urls.dcim}${p}`;
  const H = headers('dcim');
  const tenant = await json(`${urls.tenancy}/api/tenancy/tenants/`, headers('tenancy'), 'POST', { name: 'Acme', slug: 'acme' });
  const sites = await json(d('/api/dcim/sites/'), H, 'POST', Array.from({ length: 10 }, (_, i) => ({ name: `Site ${i}`, slug: `site-${i}`, tenant: tenant.id })));
  const maker = await json(d('/api/dcim/manufacturers/'), H, 'POST', { name: 'Maker', slug: 'maker' });
  const type = await json(d('/api/dcim/device-types/'), H, 'POST', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await json(d('/api/dcim/device-roles/'), H, 'POST', { name: 'Leaf', slug: 'leaf' });
  let n = 0;
  for (let i = 0; i < DEVICES; i += 100) {
    const devices = await json(d('/api/dcim/devices/'), H, 'POST', Array.from({ length: Math.min(100, DEVICES - i) }, (_, k) => ({ name: `dev-${i + k}`, device_type: type.id, role: role.id, site: sites[(i + k) % 10].id, tenant: tenant.id })));
    const itfs = await json(d('/api/dcim/interfaces/'), H, 'POST', devices.flatMap((dev) => Array.from({ length: INTERFACES }, (_, k) => ({ device: dev.id, name: `eth${k}`, type: '1000base-t' }))));
    await json(`${urls.ipam}/api/ipam/ip-addresses/`, headers('ipam'), 'POST', itfs.map((itf) => {
      const a = ++n; // from 10.0.0.1: 10.0.0.0/8 is the network
      return { address: `10.${a >> 16}.${(a >> 8) & 255}.${a & 255}/8`, assigned_object_type: 'dcim.interface', assigned_object_id: itf.id, tenant: tenant.id };
    }));
  }
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const token = randomBytes(20).toString('hex');
  let children = [];
  try {
    const env = {
      QUERY_COUNT_HEADER: 'true',
      MAX_BODY_SIZE: String(50 * 1024 * 1024),
      GRAPHQL_MAX_COST: '10000000',
      SUPERUSER_NAME: 'bench',
      SUPERUSER_PASSWORD: randomBytes(12).toString('hex'),
      SUPERUSER_API_TOKEN: token,
    };
    const services = await serviceProcesses(['users', 'tenancy', 'extras', 'dcim', 'ipam', 'gateway'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env });
    children = services.children;
    const t0 = Date.now();
    await seed(services.urls, services.headers);
    process.stderr.write(`seeded ${DEVICES} devices in ${Date.now() - t0} ms\n`);
    const gw = services.urls.gateway;
    // REST's pages interleaved with the full query's runs: their ratio is of one run, under the same load
    const { others: pageRuns, ...full } = await graphql(gw, token, DEVICES, () => restPages(gw, token, DEVICES * INTERFACES, DEVICES * INTERFACES));
    const { others: _none, ...small } = await graphql(gw, token, Math.max(1, Math.floor(DEVICES / 10)));
    const walk = await restWalk(gw, token);
    const pages = { ...pageRuns[0], ms: round(median(pageRuns.map((p) => p.ms))), runs: pageRuns.map((p) => p.ms) };
    writeReport('graphql', {
      devices: DEVICES,
      interfaces: full.interfaces,
      addresses: full.addresses,
      runs: RUNS,
      graphql: full,
      graphql_small_page: small,
      rest_walk: walk,
      rest_pages: pages,
      graphql_vs_rest_walk: round(walk.ms / full.ms_median),
      graphql_vs_rest_pages: round(pages.ms / full.ms_median),
      goals: { faster_than_rest: full.ms_median < walk.ms, three_times_faster_than_rest_pages: pages.ms >= 3 * full.ms_median, statements_constant: full.statements === small.statements && full.service_calls === small.service_calls },
    });
  } finally {
    await stopAll(children);
    await Promise.all([pg.stop(), rabbit.stop()]);
  }
}

run(main);
