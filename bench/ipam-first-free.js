#!/usr/bin/env node
'use strict';
/**
 * The first free IP of a dense parent (issue 11: a /8 that is 99 % used, 1,000,000 IP addresses;
 * goal under 2 ms p50), with and without the block-usage summary
 * (docs/decisions/019-ip-index.md, "Dense parents"), and what the summary costs a bulk create.
 *
 * Part 1, scratch tables shaped like ipam's (the host btree of decision 019, the summary filled
 * from scratch), 1,000,000 addresses 10.0.0.1 … 10.15.66.64 in the global table (/8 masks):
 *  - the first free address of 10.0.0.0/8 (after 1,000,000 used ones), 50 and 1,000 of them;
 *  - the same with IP ranges covering the rest of the /8 up to 10.253.0.0 end to end (239
 *    ranges: the /8 98.8 % used, the first free at 10.253.0.0);
 *  - the same parent seen by another VRF (nothing used) and by every VRF (a global container);
 *  - a bulk create of 1,000 addresses inside the used stretch's /16s: the INSERT alone and the
 *    INSERT followed by the summary's upkeep statement, each in its own transaction (rolled back).
 * Part 2, the ipam service as deployed (with tenancy and extras, one process each): the same
 * 1,000,000 addresses stored in ipam.ip_address, the summary filled, then
 * `POST /api/ipam/ip-addresses/` of 1,000 addresses, timed end to end (goal under 1 s).
 * p50/p99 in ms over BENCH_RUNS runs (the plain walk over BENCH_SLOW_RUNS) after warm-up runs,
 * one connection. Run: `npm run build && node bench/ipam-first-free.js`; results in
 * bench/results/ipam-first-free.json.
 */
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { render } = require('@inventory/filtering');
const { availablePrefixIps, vrfIs, usageScope, refreshBlockUsage, blockUsageFromScratch } = require('../services/ipam/dist/allocation');
const { serviceProcesses, stopAll, writeReport, run } = require('./children');

const RUNS = Number(process.env.BENCH_RUNS || 40);
const SLOW_RUNS = Number(process.env.BENCH_SLOW_RUNS || 5);
const CREATES = Number(process.env.BENCH_CREATES || 7);
const USED = 1_000_000;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (x) => Math.round(x * 100) / 100;

async function timeIt(runs, fn, warm = 2) {
  let answer;
  for (let i = 0; i < warm; i++) answer = await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { answer, p50_ms: round(pct(times, 50)), p99_ms: round(pct(times, 99)), runs };
}

/** The seed as SQL on `table`: 1,000,000 consecutive hosts from 10.0.0.1 (/8 masks), global table. */
const seedAddresses = (table, columns = '') =>
  `INSERT INTO ${table} (address${columns}) SELECT set_masklen('10.0.0.1'::inet + i, 8)${columns ? ", ''" : ''} FROM generate_series(0, ${USED - 1}) i`;

async function scratchPart(db) {
  await db.query(`
    DROP TABLE IF EXISTS bench_ip, bench_rng, bench_usage;
    CREATE TABLE bench_ip (id serial PRIMARY KEY, vrf_id int, address inet NOT NULL);
    CREATE TABLE bench_rng (id serial PRIMARY KEY, vrf_id int, start_address inet NOT NULL, end_address inet NOT NULL);
    CREATE TABLE bench_usage (scope bigint NOT NULL, len smallint NOT NULL, block cidr NOT NULL, used integer NOT NULL, PRIMARY KEY (scope, len, block));`);
  const t0 = Date.now();
  await db.query(seedAddresses('bench_ip'));
  await db.query('CREATE INDEX bench_ip_host_idx ON bench_ip ((CAST(HOST(address) AS inet)))');
  await db.query('CREATE INDEX bench_rng_start_host_idx ON bench_rng ((CAST(HOST(start_address) AS inet)))');
  const seedMs = Date.now() - t0;
  const t1 = Date.now();
  const scratch = render(blockUsageFromScratch('bench_ip'));
  await db.query(`INSERT INTO bench_usage (scope, len, block, used) ${scratch.text}`, scratch.values);
  const summaryMs = Date.now() - t1;
  // the rest of the /8 after the used stretch, up to 10.253.0.0, in ranges end to end
  await db.query(`INSERT INTO bench_rng (start_address, end_address) VALUES ('10.15.66.65/8', '10.15.255.255/8')`);
  await db.query(`INSERT INTO bench_rng (start_address, end_address) SELECT set_masklen('10.0.0.0'::inet + (s << 16), 8), set_masklen('10.0.0.0'::inet + (s << 16) + 65535, 8) FROM generate_series(16, 252) s`);
  for (const t of ['bench_ip', 'bench_rng', 'bench_usage']) await db.query(`VACUUM ANALYZE ${t}`);
  const sizes = (await db.query(`SELECT (SELECT count(*)::int FROM bench_usage) AS summary_rows, pg_size_pretty(pg_total_relation_size('bench_usage')) AS summary_size,
    (SELECT count(*)::int FROM bench_rng) AS ranges`)).rows[0];
  process.stderr.write(`seeded in ${seedMs} ms, summary in ${summaryMs} ms: ${JSON.stringify(sizes)}\n`);

  const q = { query: async (statement) => { const { text, values } = render(statement); return (await db.query(text, values)).rows; } };
  const search = (count, o = {}) => (r) =>
    availablePrefixIps(r, {
      prefix: '10.0.0.0/8',
      count,
      addresses: { table: 'bench_ip', where: o.vrf === 'all' ? undefined : vrfIs(o.vrf ?? null) },
      ranges: o.ranges ? { table: 'bench_rng', where: vrfIs(null) } : undefined,
      usage: o.dense ? { table: 'bench_usage', scope: o.vrf === 'all' ? usageScope(null, true) : usageScope(o.vrf ?? null) } : undefined,
    });
  const cases = {
    first_free_after_1m_used: { count: 1 },
    free_50_after_1m_used: { count: 50 },
    free_1000_after_1m_used: { count: 1000 },
    first_free_after_1m_used_and_239_ranges: { count: 1, ranges: true },
    free_50_after_1m_used_and_239_ranges: { count: 50, ranges: true },
    first_free_global_container: { count: 1, vrf: 'all' },
    first_free_other_vrf: { count: 1, vrf: 7 },
  };
  const queries = {};
  for (const [name, c] of Object.entries(cases)) {
    const dense = await timeIt(RUNS, () => search(c.count, { ...c, dense: true })(q));
    const plainRuns = name.includes('other_vrf') ? RUNS : SLOW_RUNS;
    const plain = await timeIt(plainRuns, () => search(c.count, { ...c, dense: false })(q), 1);
    if (JSON.stringify(dense.answer) !== JSON.stringify(plain.answer)) throw new Error(`${name}: the summary answers ${JSON.stringify(dense.answer).slice(0, 200)}, the walk ${JSON.stringify(plain.answer).slice(0, 200)}`);
    const statements = { n: 0 };
    await search(c.count, { ...c, dense: true })({ query: (s) => { statements.n++; return q.query(s); } });
    queries[name] = {
      rows: dense.answer.length,
      first: dense.answer[0] ?? null,
      last: dense.answer.at(-1) ?? null,
      with_summary: { p50_ms: dense.p50_ms, p99_ms: dense.p99_ms, runs: dense.runs, statements: statements.n },
      plain_walk: { p50_ms: plain.p50_ms, p99_ms: plain.p99_ms, runs: plain.runs },
    };
    process.stderr.write(`${name}: summary p50 ${dense.p50_ms} ms p99 ${dense.p99_ms} ms (${statements.n} statements); walk p50 ${plain.p50_ms} ms p99 ${plain.p99_ms} ms\n`);
  }

  // a bulk create of 1,000 addresses in 10.3.0.0/16 … 10.3.11.x (hosts already used: the worst case for the counts)
  const insert = (k) => `INSERT INTO bench_ip (address, vrf_id) SELECT set_masklen('10.3.0.0'::inet + i * 3 + ${k % 3}, 16), CASE WHEN i % 4 = 0 THEN 1 END FROM generate_series(0, 999) i RETURNING id`;
  const bulk = async (withSummary, k) => {
    await db.query('BEGIN');
    try {
      const t = process.hrtime.bigint();
      const { rows } = await db.query(insert(k));
      const t1 = process.hrtime.bigint();
      if (withSummary) {
        const { text, values } = render(refreshBlockUsage({ usage: 'bench_usage', addresses: 'bench_ip' }, { ids: rows.map((r) => r.id) }));
        await db.query(text, values);
      }
      const t2 = process.hrtime.bigint();
      return { insert: Number(t1 - t) / 1e6, summary: Number(t2 - t1) / 1e6, total: Number(t2 - t) / 1e6 };
    } finally {
      await db.query('ROLLBACK');
    }
  };
  const samples = { plain: [], summary: [], insert_with: [] };
  for (let i = 0; i < 2; i++) await bulk(true, i);
  for (let i = 0; i < 15; i++) {
    samples.plain.push((await bulk(false, i)).total);
    const w = await bulk(true, i);
    samples.summary.push(w.summary);
    samples.insert_with.push(w.total);
  }
  for (const v of Object.values(samples)) v.sort((a, b) => a - b);
  const bulkCreate = {
    insert_1000_p50_ms: round(pct(samples.plain, 50)),
    insert_1000_and_summary_p50_ms: round(pct(samples.insert_with, 50)),
    summary_statement_p50_ms: round(pct(samples.summary, 50)),
    summary_statement_p99_ms: round(pct(samples.summary, 99)),
    runs: samples.plain.length,
  };
  process.stderr.write(`bulk create (SQL): ${JSON.stringify(bulkCreate)}\n`);
  return { data: { addresses: USED, ...sizes, seed_ms: seedMs, summary_from_scratch_ms: summaryMs }, queries, bulk_create_sql: bulkCreate };
}

/** The service as deployed: a 1,000-address bulk create on top of 1,000,000 stored addresses. */
async function servicePart(pgUrl, amqpUrl, db) {
  const services = await serviceProcesses(['tenancy', 'extras', 'ipam'], { databaseUrl: pgUrl, amqpUrl, env: { MAX_BODY_SIZE: String(50 * 1024 * 1024) } });
  try {
    const { urls, headers } = services;
    const t0 = Date.now();
    await db.query(seedAddresses('ipam.ip_address', ', dns_name'));
    const scratch = render(blockUsageFromScratch('ipam.ip_address'));
    await db.query('TRUNCATE ipam.ip_block_usage');
    await db.query(`INSERT INTO ipam.ip_block_usage (scope, len, block, used) ${scratch.text}`, scratch.values);
    for (const t of ['ipam.ip_address', 'ipam.ip_block_usage']) await db.query(`VACUUM ANALYZE ${t}`);
    process.stderr.write(`service seeded in ${Date.now() - t0} ms\n`);
    const times = [];
    for (let k = 0; k < CREATES; k++) {
      // 1,000 new global addresses in 10.16.x.x + k (past the used stretch), two in three in existing /24s of the batch
      const body = Array.from({ length: 1000 }, (_, i) => ({ address: `10.${16 + k}.${Math.floor(i / 200)}.${i % 200}/16`, status: 'active' }));
      const t = process.hrtime.bigint();
      const res = await fetch(`${urls.ipam}/api/ipam/ip-addresses/`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers('ipam') }, body: JSON.stringify(body) });
      const text = await res.text();
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (res.status !== 201) throw new Error(`bulk create: ${res.status} ${text.slice(0, 300)}`);
      times.push(ms);
      process.stderr.write(`bulk create ${k}: ${round(ms)} ms\n`);
    }
    const [{ n }] = (await db.query(`SELECT used AS n FROM ipam.ip_block_usage WHERE scope = 0 AND len = 24 AND block = '10.16.0.0/24'`)).rows;
    if (n !== 200) throw new Error(`summary of 10.16.0.0/24: ${n}, expected 200`);
    const sorted = [...times].sort((a, b) => a - b);
    return { addresses_stored: USED, requests: CREATES, p50_ms: round(pct(sorted, 50)), max_ms: round(sorted.at(-1)), all_ms: times.map(round) };
  } finally {
    await stopAll(services.children);
  }
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const db = new Client({ connectionString: pg.url });
  try {
    await db.connect();
    const version = (await db.query('SHOW server_version')).rows[0].server_version;
    const scratch = await scratchPart(db);
    const report = (service) => writeReport('ipam-first-free', {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, load_average: os.loadavg().map((x) => Math.round(x * 10) / 10), note: 'shared 2-core machine: other jobs ran at the same time (load_average when written)' },
      postgres: version,
      ...scratch,
      bulk_create_service: service,
    });
    report(null);
    const service = process.env.BENCH_SKIP_SERVICE ? null : await servicePart(pg.url, rabbit.url, db);
    report(service);
  } finally {
    await db.end().catch(() => undefined);
    await Promise.all([pg.stop(), rabbit.stop()]);
  }
}

run(main);
