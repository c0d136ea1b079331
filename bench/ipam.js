#!/usr/bin/env node
'use strict';
/**
 * ipam at NetBox-breaking sizes, in one run on a real PostgreSQL and RabbitMQ,
 * with the ipam service as its own process (as deployed), measured through its
 * HTTP API with QUERY_COUNT_HEADER=true:
 *  - the first free IP of a /8 that is 99 % used
 *    (GET prefixes/{id}/available-ips/?limit=1), and its search alone (the
 *    endpoint's statement through the service's database layer, no HTTP;
 *    goal under 2 ms p50; NetBox over 30 s, Nautobot 1.7 ms), beside the
 *    HTTP floor (the service's cheapest authenticated read, GET rirs/?limit=1);
 *  - available-prefixes of a /8 holding 10,000 child prefixes;
 *  - GET ip-addresses/?parent=10.0.0.0/16&limit=1000 and
 *    GET prefixes/?within=10.0.0.0/8&limit=1000 (goal under 100 ms each);
 *  - a bulk create of 1,000 IP addresses in one request (goal under 1 s);
 *  - 50 concurrent allocations (POST available-ips, one address each, 50
 *    clients at once): allocations per second, and that no address is
 *    handed out twice;
 *  for each: p50/p99 and the statements one request costs (X-Query-Count).
 *
 * THE LOAD BYPASSES THE API. 1,000,000 IP addresses and 100,000 prefixes
 * through POST (1,000 per request, each request with its validation, change
 * records and events) would take longer than the whole benchmark may; so once
 * the service has started (and so migrated its schema) the rows are inserted
 * set-based, in SQL, straight into ipam's tables (`ipam.ip_address`,
 * `ipam.prefix`, `ipam.ip_range`), with the values the API would have stored
 * (status `active`, default flags). Nothing else sees them: no change
 * records, no events, no projections in other services (none is measured).
 * The prefixes' stored hierarchy (`_depth`, `children`) is then computed with
 * the service's own statement (`hierarchyStatement` of
 * services/ipam/src/models/addressing-rules.ts, the one every prefix write
 * runs) over every prefix, the block-usage summary every address write keeps
 * (decision 019, "Dense parents") is filled from scratch with the service's
 * own statement, and the btree indexes of docs/decisions/019-ip-index.md are
 * created if the migrations have not.
 * Only the VRFs are made through the API. Everything measured afterwards goes
 * through the API.
 *
 * "99 % used" with 1,000,000 addresses. A /8 holds 16,777,216 addresses, so
 * addresses alone fill 6 % of it. NetBox counts an IP range's every address
 * as used for available-ips (spec §4.2), and a 99 %-used /8 in practice is
 * mostly DHCP pools; so 10.0.0.0/8 is:
 *  - its first 1,010,1xx addresses (from 10.0.0.1 to about 10.15.105.x, a
 *    /12-sized block) held by the 1,000,000 IP addresses, 99 % dense, the
 *    free 1 % spread at random (deterministic seed);
 *  - the rest covered by 241 IP ranges (mark_utilized), one per /16 from the
 *    end of the dense block to 10.255.x, each leaving the last 650 addresses
 *    of its /16 free;
 *  which makes 99.0 % of the /8 used (the exact figure is in the results).
 *  The search reads the occupied addresses in order from the start and stops
 *  at the first gap, so the first free address costs what the used stretch
 *  before it costs; the ranges are read with every chunk (few: 241).
 *
 * The 100,000 prefixes: 10.0.0.0/8 itself with 10,000 children (200 /16s and
 * 9,800 /24s at random, some /24s inside the /16s), 45,000 /24s in
 * 20.0.0.0/8 and 44,999 consecutive /64s in 2001:db8::/48 (a third of both
 * in five VRFs).
 *
 * Run: `npm run build && node bench/ipam.js`; results in bench/results/ipam.json.
 * Knobs: BENCH_RUNS (sequential requests per read, default 200),
 * BENCH_SECONDS / BENCH_CONNECTIONS (closed-loop load per read, default 5 s,
 * 8 connections), BENCH_ALLOC_ROUNDS (allocations per client, default 10);
 * BENCH_HOLD=1 keeps the loaded world up (URLs printed) until SIGINT, then measures.
 */
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { render, raw } = require('@inventory/filtering');
const { hierarchyStatement } = require('../services/ipam/dist/models/addressing-rules');
const { allocationIndexDdl, blockUsageFromScratch } = require('../services/ipam/dist/allocation');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');
const { load } = require('./load');

const RUNS = Number(process.env.BENCH_RUNS || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const ALLOC_CLIENTS = 50;
const ALLOC_ROUNDS = Number(process.env.BENCH_ALLOC_ROUNDS || 10);
const ADDRESSES = 1_000_000;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round = (x) => Math.round(x * 100) / 100;
const stats = (list) => {
  const s = [...list].sort((a, b) => a - b);
  return { n: s.length, p50_ms: round(pct(s, 50)), p99_ms: round(pct(s, 99)), max_ms: round(s[s.length - 1]) };
};

async function timed(url, headers, method = 'GET', body) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const text = await res.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: res.status, queries: Number(res.headers.get('x-query-count')), body: text ? JSON.parse(text) : null, text };
}
async function ok(url, headers, method, body) {
  const r = await timed(url, headers, method, body);
  if (r.status >= 300) throw new Error(`${method ?? 'GET'} ${url}: ${r.status} ${r.text.slice(0, 300)}`);
  return r;
}

/** One read: RUNS sequential requests (p50/p99 of one request on its own), the statements it costs, then a closed-loop load. */
async function measure(name, url, headers, goalMs) {
  for (let i = 0; i < 10; i++) await ok(url, headers);
  const times = [];
  let first;
  for (let i = 0; i < RUNS; i++) {
    const r = await ok(url, headers);
    first ??= r;
    times.push(r.ms);
  }
  const loaded = await load({ url, headers, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: 1 });
  const body = first.body;
  const list = Array.isArray(body) ? body : body.results;
  const shown = list[0]?.address ?? list[0]?.prefix ?? null;
  process.stderr.write(`${name}: ${JSON.stringify(stats(times))}\n`);
  return {
    name,
    url: url.replace(/^http:\/\/[^/]+/, ''),
    objects: list.length,
    first: shown,
    ...(Array.isArray(body) ? {} : { count: body.count }),
    queries: first.queries,
    sequential: stats(times),
    goal_ms: goalMs ?? null,
    loaded: { connections: CONNECTIONS, seconds: SECONDS, requests_per_s: loaded.rps, p50_ms: loaded.p50_ms, p99_ms: loaded.p99_ms },
  };
}

/** The rows, set-based, straight into ipam's tables (see the header: the API is bypassed for the load). */
async function loadRows(db, vrfs) {
  const t0 = Date.now();
  const step = async (what, text) => {
    const s = Date.now();
    for (const statement of text.split(/;\s*(?=VACUUM|ANALYZE)/)) await db.query(statement);
    process.stderr.write(`${what}: ${Date.now() - s} ms\n`);
  };
  await db.query('SELECT setseed(0.42)');
  // 1,000,000 addresses from 10.0.0.1 on, 99 % dense (each host kept with probability 0.99)
  await step(
    'addresses',
    `INSERT INTO ipam.ip_address (address, status)
       SELECT set_masklen('10.0.0.0'::inet + i, 24), 'active'
         FROM (SELECT i FROM generate_series(1::bigint, ${Math.ceil(ADDRESSES / 0.985)}) i WHERE random() >= 0.01 ORDER BY i LIMIT ${ADDRESSES}) x`,
  );
  const [{ last }] = (await db.query(`SELECT max(CAST(HOST(address) AS inet)) - '10.0.0.0'::inet AS last FROM ipam.ip_address`)).rows;
  // one range per /16 from the end of the dense block to the /8's end, each leaving the last 650 addresses of its /16 free
  await step(
    'ranges',
    `INSERT INTO ipam.ip_range (start_address, end_address, size, status, mark_utilized, description)
       SELECT set_masklen(s, 16), set_masklen(e, 16), e - s + 1, 'active', true, 'utilized pool'
         FROM (SELECT greatest('10.0.0.0'::inet + (b << 16), '10.0.0.0'::inet + ${Number(last)} + 1) AS s,
                      '10.0.0.0'::inet + (b << 16) + 65535 - 650 AS e
                 FROM generate_series(${Math.floor(Number(last) / 65536)}::bigint, 255) b) x
        WHERE s <= e`,
  );
  // 100,000 prefixes: the /8 and its 10,000 children, 45,000 /24s in 20/8 and 44,999 /64s in 2001:db8::/48 (a third in VRFs)
  const vrf = `(ARRAY[${vrfs.join(',')}]::bigint[])[1 + floor(random() * ${vrfs.length})::int]`;
  await step(
    'prefixes',
    `INSERT INTO ipam.prefix (prefix, status, is_pool, mark_utilized, children, _depth) VALUES ('10.0.0.0/8', 'active', false, false, 0, 0);
     INSERT INTO ipam.prefix (prefix, status, is_pool, mark_utilized, children, _depth)
       SELECT set_masklen('10.0.0.0'::inet + (s << 16), 16)::cidr, 'active', false, false, 0, 0
         FROM (SELECT s FROM generate_series(0::bigint, 255) s ORDER BY random() LIMIT 200) x;
     INSERT INTO ipam.prefix (prefix, status, is_pool, mark_utilized, children, _depth)
       SELECT set_masklen('10.0.0.0'::inet + (s << 8), 24)::cidr, 'active', false, false, 0, 0
         FROM (SELECT s FROM generate_series(0::bigint, 65535) s ORDER BY random() LIMIT 9800) x;
     INSERT INTO ipam.prefix (prefix, vrf_id, status, is_pool, mark_utilized, children, _depth)
       SELECT set_masklen('20.0.0.0'::inet + (s << 8), 24)::cidr, CASE WHEN random() < 0.33 THEN ${vrf} END, 'active', false, false, 0, 0
         FROM (SELECT s FROM generate_series(0::bigint, 65535) s ORDER BY random() LIMIT 45000) x;
     INSERT INTO ipam.prefix (prefix, vrf_id, status, is_pool, mark_utilized, children, _depth)
       SELECT ('2001:db8:0:' || to_hex(i) || '::/64')::cidr, CASE WHEN random() < 0.33 THEN ${vrf} END, 'active', false, false, 0, 0
         FROM generate_series(0::bigint, 44998) i`,
  );
  // the btrees of decision 019, unless the migrations made them (by definition: 0002's GiST indexes hold two of their names)
  const indexes = [];
  for (const statement of allocationIndexDdl({ ipAddress: 'ipam.ip_address', prefix: 'ipam.prefix', ipRange: 'ipam.ip_range' })) {
    const [, name, table, definition] = statement.match(/EXISTS "([^"]+)" ON "ipam"\."([^"]+)" (.*)$/);
    // as pg_indexes shows it: `USING btree (((host(address))::inet))`, `USING btree (prefix)`
    const norm = (text) => text.toLowerCase().replace(/[\s"]/g, '').replace(/cast\(host\((\w+)\)asinet\)/g, '(host($1))::inet');
    const wanted = norm(`USING btree ${definition}`);
    const present = (await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'ipam' AND tablename = $1`, [table])).rows.find((r) => norm(r.indexdef).endsWith(wanted));
    if (present) {
      indexes.push({ name: present.indexname, definition: present.indexdef, created_by: 'migrations' });
      continue;
    }
    const own = `${name}_bench`;
    await step(`index ${own}`, `CREATE INDEX "${own}" ON "ipam"."${table}" ${definition}`);
    indexes.push({ name: own, definition, created_by: 'this benchmark (no such btree in the migrations)' });
  }
  // the block-usage summary the service keeps with every address write (decision 019, "Dense parents"), from scratch
  const usage = render(blockUsageFromScratch('ipam.ip_address'));
  const u0 = Date.now();
  await db.query(`INSERT INTO ipam.ip_block_usage (scope, len, block, used) ${usage.text}`, usage.values);
  process.stderr.write(`block usage: ${Date.now() - u0} ms\n`);
  await step('analyze', 'ANALYZE ipam.ip_address; ANALYZE ipam.ip_range; ANALYZE ipam.prefix; ANALYZE ipam.ip_block_usage');
  // the service's own hierarchy statement, over every prefix
  const { text, values } = render(hierarchyStatement(raw('ipam."prefix"'), raw('affected AS (SELECT id FROM ipam."prefix")')));
  const h0 = Date.now();
  await db.query(text, values);
  const hierarchyMs = Date.now() - h0;
  process.stderr.write(`hierarchy: ${hierarchyMs} ms\n`);
  await step('vacuum', 'VACUUM ANALYZE ipam.ip_address; VACUUM ANALYZE ipam.ip_range; VACUUM ANALYZE ipam.prefix');
  const [data] = (
    await db.query(`SELECT
      (SELECT count(*)::int FROM ipam.ip_address) AS addresses,
      (SELECT count(*)::int FROM ipam.prefix) AS prefixes,
      (SELECT count(*)::int FROM ipam.ip_range) AS ranges,
      (SELECT children FROM ipam.prefix WHERE prefix = '10.0.0.0/8' AND vrf_id IS NULL) AS children_of_8,
      (SELECT count(*)::int FROM ipam.prefix WHERE _depth > 0) AS prefixes_with_depth,
      (SELECT count(*)::int FROM ipam.ip_address WHERE CAST(HOST(address) AS inet) <<= '10.0.0.0/8')
        + (SELECT sum(size)::bigint FROM ipam.ip_range WHERE start_address <<= '10.0.0.0/8') AS used_in_8,
      (SELECT count(*)::int FROM ipam.ip_address WHERE CAST(HOST(address) AS inet) <<= '10.0.0.0/16') AS addresses_in_10_0`)
  ).rows;
  data.used_in_8 = Number(data.used_in_8);
  data.used_fraction_of_8 = Number((data.used_in_8 / 2 ** 24).toFixed(5));
  data.dense_block = `10.0.0.1 … ${(await db.query(`SELECT host('10.0.0.0'::inet + $1::bigint) AS h`, [Number(last)])).rows[0].h}`;
  return { data, indexes, load_ms: Date.now() - t0, hierarchy_ms: hierarchyMs };
}

/** ALLOC_CLIENTS clients at once, each allocating ALLOC_ROUNDS addresses one request at a time: rate, latency, no address twice. */
async function concurrentAllocations(url, H) {
  const latencies = [];
  const allocated = [];
  let allocQueries;
  const a0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: ALLOC_CLIENTS }, async (_, c) => {
      for (let k = 0; k < ALLOC_ROUNDS; k++) {
        const res = await ok(url, H, 'POST', { description: `client ${c}`, status: 'active' });
        allocQueries ??= res.queries;
        latencies.push(res.ms);
        allocated.push(res.body.address);
      }
    }),
  );
  const allocSeconds = Number(process.hrtime.bigint() - a0) / 1e9;
  const distinct = new Set(allocated).size;
  if (distinct !== allocated.length) throw new Error(`${allocated.length - distinct} addresses were allocated twice`);
  return {
    clients: ALLOC_CLIENTS,
    per_client: ALLOC_ROUNDS,
    allocations: allocated.length,
    distinct_addresses: distinct,
    allocations_per_s: Math.round(allocated.length / allocSeconds),
    latency: stats(latencies),
    queries: allocQueries,
    first: [...allocated].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0],
  };
}

/**
 * The searches alone: the statements the endpoints run (the allocation module, with the options
 * routes/networks.ts gives an active global prefix), through the service's own database layer
 * (libs/rest Db: its pool and prepared statements), in this process, no HTTP: what the goal of
 * the first free IP compares with (Nautobot's 1.7 ms is its search, not a request).
 */
async function searchTimes(url, expected) {
  const { Db } = require('@inventory/rest');
  const { availablePrefixIps, availablePrefixes, usageScope, vrfIs } = require('../services/ipam/dist/allocation');
  const db = new Db(url, 'ipam', 2);
  const ips = (count) => ({
    prefix: '10.0.0.0/8',
    count,
    addresses: { table: 'ipam.ip_address', where: vrfIs(null) },
    ranges: { table: 'ipam.ip_range', where: vrfIs(null) },
    usage: { table: 'ipam.ip_block_usage', scope: usageScope(null, false) },
  });
  const searches = {
    first_free_ip_of_the_8: () => availablePrefixIps(db, ips(1)),
    free_ips_50_of_the_8: () => availablePrefixIps(db, ips(50)),
    available_prefixes_of_the_8: () => availablePrefixes(db, { prefix: '10.0.0.0/8', prefixes: { table: 'ipam.prefix', where: vrfIs(null) } }),
  };
  const out = {};
  try {
    for (const [name, search] of Object.entries(searches)) {
      let answer;
      for (let i = 0; i < 10; i++) answer = await search();
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = process.hrtime.bigint();
        await search();
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      out[name] = { rows: answer.length, first: answer[0], ...stats(times) };
      process.stderr.write(`search ${name}: ${JSON.stringify(out[name])}\n`);
    }
  } finally {
    await db.close();
  }
  if (out.first_free_ip_of_the_8.first !== expected) throw new Error(`first free: ${out.first_free_ip_of_the_8.first}, expected ${expected}`);
  return out;
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const db = new Client({ connectionString: pg.url });
  let children = [];
  try {
    const services = await serviceProcesses(['ipam'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env: { QUERY_COUNT_HEADER: 'true', MAX_BODY_SIZE: String(50 * 1024 * 1024) } });
    children = services.children;
    const H = services.headers('ipam');
    const u = (p) => `${services.urls.ipam}/api/ipam${p}`;
    await db.connect();
    const version = (await db.query('SHOW server_version')).rows[0].server_version;

    // the VRFs through the API; the rest straight into the tables (header)
    const vrfs = await json(u('/vrfs/'), H, 'POST', Array.from({ length: 5 }, (_, i) => ({ name: `Bench VRF ${i + 1}`, rd: `65000:${i + 1}` })));
    const seeded = await loadRows(db, vrfs.map((v) => v.id));
    process.stderr.write(`seeded: ${JSON.stringify(seeded)}\n`);
    if (process.env.BENCH_HOLD) {
      // BENCH_HOLD=1: the loaded world stays up (database and service URLs printed) until SIGINT, then measures
      process.stdout.write(`${JSON.stringify({ database: pg.url, ...services.urls, headers: H })}\n`);
      await new Promise((r) => process.once('SIGINT', r));
    }
    const [{ id: p8 }] = (await db.query(`SELECT id FROM ipam.prefix WHERE prefix = '10.0.0.0/8' AND vrf_id IS NULL`)).rows;
    // what the first free address must be (hand-computed: the lowest host above the network address that no address holds)
    const [{ expected }] = (
      await db.query(`SELECT host('10.0.0.0'::inet + i) || '/8' AS expected FROM generate_series(1::bigint, 100000) i
        WHERE NOT EXISTS (SELECT 1 FROM ipam.ip_address a WHERE CAST(HOST(a.address) AS inet) = '10.0.0.0'::inet + i) ORDER BY i LIMIT 1`)
    ).rows;

    const reads = [];
    const firstFree = await measure('first free IP of the 99 % used /8', u(`/prefixes/${p8}/available-ips/?limit=1`), H, 2);
    firstFree.expected = expected;
    if (firstFree.first !== expected) throw new Error(`first free: ${firstFree.first}, expected ${expected}`);
    reads.push(firstFree);
    reads.push(await measure('50 free IPs of the 99 % used /8 (the GET default)', u(`/prefixes/${p8}/available-ips/`), H));
    reads.push(await measure('available-prefixes of the /8 (10,000 children)', u(`/prefixes/${p8}/available-prefixes/`), H));
    reads.push(await measure('ip-addresses ?parent=10.0.0.0/16, 1,000', u('/ip-addresses/?parent=10.0.0.0/16&limit=1000'), H, 100));
    reads.push(await measure('prefixes ?within=10.0.0.0/8, 1,000', u('/prefixes/?within=10.0.0.0/8&limit=1000'), H, 100));
    // what any request costs here: the service's cheapest authenticated read (one statement)
    const floor = await measure('HTTP floor: rirs ?limit=1', u('/rirs/?limit=1'), H);
    const searches = await searchTimes(pg.url, expected);

    // bulk creates: 1,000 addresses per request, each in a fresh /22 of 172.16.0.0/12
    const creates = [];
    let createQueries;
    for (let r = 0; r < 10; r++) {
      const body = Array.from({ length: 1000 }, (_, i) => ({ address: `172.16.${r * 4 + (i >> 8)}.${i & 255}/22`, status: 'active', dns_name: `host-${r}-${i}.bench.example`, description: `bulk ${r}` }));
      const res = await ok(u('/ip-addresses/'), H, 'POST', body);
      if (res.body.length !== 1000) throw new Error(`bulk create answered ${res.body.length} objects`);
      createQueries ??= res.queries;
      creates.push(res.ms);
    }
    process.stderr.write(`bulk create: ${JSON.stringify(stats(creates))}\n`);

    const allocations = await concurrentAllocations(u(`/prefixes/${p8}/available-ips/`), H);

    writeReport('ipam', {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, note: 'shared 2-core machine: PostgreSQL, RabbitMQ, the service and the load generator on the same two cores' },
      postgres: version,
      load: { how: 'set-based SQL into ipam.ip_address, ipam.ip_range and ipam.prefix after the service migrated (the API is bypassed: see bench/ipam.js)', ...seeded },
      reads,
      bulk_create_1000_addresses: { requests: creates.length, ...stats(creates), queries: createQueries, goal_ms: 1000 },
      concurrent_allocations: allocations,
      http_floor: floor,
      searches,
      goals: { first_free_ip_search_p50_ms: 2, lists_1000_ms: 100, bulk_create_1000_ms: 1000 },
      others: { netbox_first_free_ip_ms: '> 30000', nautobot_first_free_ip_ms: 1.7 },
    });
  } finally {
    await db.end().catch(() => undefined);
    await stopAll(children);
    await rabbit.stop();
    await pg.stop();
  }
}

run(main);
