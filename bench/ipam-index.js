#!/usr/bin/env node
'use strict';
/**
 * Which index for IP addresses and prefixes (docs/decisions/019-ip-index.md): the same scratch
 * tables and queries under plain btrees, the same btrees covering the filtered columns
 * (`INCLUDE`), GiST (`inet_ops`) and SP-GiST (`inet_ops`), each on the address column, on its
 * host (`CAST(HOST(address) AS inet)`, what the spec orders and filters IP addresses by) and on
 * the prefix column.
 *
 * Data (deterministic, `setseed`):
 *  - 1,000,000 IP addresses in 10.0.0.0/8: 10.1.0.0/16 99 % used with the free 1 % spread at
 *    random; 10.2.0.0/16 99 % used from its start (the first free address after 64,880 used
 *    ones); the rest spread at random over the /8 (/24 masks);
 *  - 100,000 prefixes: 10.0.0.0/8 holding 10,000 children (200 /16s and 9,800 /24s, some of them
 *    inside the /16s), 45,000 /24s in 20.0.0.0/8 and 44,999 consecutive /64s from 2001:db8::/64
 *    (all in 2001:db8::/48; a third of the /24s and /64s in VRFs 1–5, which leaves holes in the
 *    global table's /48: a /64 fits early, a /56 only after the last of them).
 *
 * Timed (client side, one connection, p50/p99 over BENCH_RUNS runs after 3 warm-up runs):
 * the allocation module's searches (first free IP, 50 free IPs, available-prefixes of the /8 and
 * of the /48, first-fit /24 in the /8, /64 and /56 in the /48) and the list reads the endpoints make (1,000 rows of
 * `address <<= 10.0.0.0/16`, of the spec's `parent` filter on the host, of
 * `prefix <<= 10.0.0.0/8`, each in its list order, and the parents `prefix >>= <a /24>`).
 * Run: `npm run build && node bench/ipam-index.js`; results in bench/results/ipam-index.json.
 */
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres } = require('@inventory/infra');
const { render } = require('@inventory/filtering');
const { availablePrefixIps, availablePrefixes, allocatePrefixes, vrfIs } = require('../services/ipam/dist/allocation');
const { writeReport, run } = require('./children');

const RUNS = Number(process.env.BENCH_RUNS || 30);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (x) => Math.round(x * 100) / 100;

const HOST = '(CAST(HOST(address) AS inet))';
/** Each kind: the indexes on the address column, on its host and on the prefix column. */
const KINDS = {
  btree: [`CREATE INDEX ON bench_ip (address)`, `CREATE INDEX ON bench_ip (${HOST})`, `CREATE INDEX ON bench_prefix (prefix)`],
  // the same btrees carrying the columns the searches filter on: index-only scans
  btree_covering: [
    `CREATE INDEX ON bench_ip (address)`,
    `CREATE INDEX ON bench_ip (${HOST}) INCLUDE (address, vrf_id)`,
    `CREATE INDEX ON bench_prefix (prefix) INCLUDE (vrf_id)`,
  ],
  gist: [`CREATE INDEX ON bench_ip USING gist (address inet_ops)`, `CREATE INDEX ON bench_ip USING gist (${HOST} inet_ops)`, `CREATE INDEX ON bench_prefix USING gist (prefix inet_ops)`],
  spgist: [`CREATE INDEX ON bench_ip USING spgist (address inet_ops)`, `CREATE INDEX ON bench_ip USING spgist (${HOST} inet_ops)`, `CREATE INDEX ON bench_prefix USING spgist (prefix inet_ops)`],
};

async function seed(db) {
  await db.query(`
    DROP TABLE IF EXISTS bench_ip, bench_prefix;
    CREATE TABLE bench_ip (id serial PRIMARY KEY, vrf_id int, address inet NOT NULL);
    CREATE TABLE bench_prefix (id serial PRIMARY KEY, vrf_id int, prefix cidr NOT NULL);
    SELECT setseed(0.17);
    INSERT INTO bench_ip (address)
      SELECT set_masklen('10.1.0.0'::inet + i, 16) FROM generate_series(0, 65535) i WHERE random() < 0.99;
    INSERT INTO bench_ip (address)
      SELECT set_masklen('10.2.0.0'::inet + i, 16) FROM generate_series(1, 64880) i;`);
  const { rows } = await db.query('SELECT count(*)::int AS n FROM bench_ip');
  await db.query(`
    INSERT INTO bench_ip (address)
      SELECT set_masklen('10.0.0.0'::inet + CASE WHEN r < 65536 THEN r ELSE r + 131072 END, 24)
      FROM (SELECT (random() * (16777215 - 131072))::bigint AS r FROM generate_series(1, ${1_000_000 - rows[0].n})) x;
    INSERT INTO bench_prefix (prefix) VALUES ('10.0.0.0/8');
    INSERT INTO bench_prefix (prefix)
      SELECT set_masklen('10.0.0.0'::inet + (s << 16), 16)::cidr FROM (SELECT s FROM generate_series(0::bigint, 255) s ORDER BY random() LIMIT 200) x;
    INSERT INTO bench_prefix (prefix)
      SELECT set_masklen('10.0.0.0'::inet + (s << 8), 24)::cidr FROM (SELECT s FROM generate_series(0::bigint, 65535) s ORDER BY random() LIMIT 9800) x;
    INSERT INTO bench_prefix (prefix, vrf_id)
      SELECT set_masklen('20.0.0.0'::inet + (s << 8), 24)::cidr, CASE WHEN random() < 0.33 THEN 1 + (random() * 4)::int END
      FROM (SELECT s FROM generate_series(0::bigint, 65535) s ORDER BY random() LIMIT 45000) x;
    INSERT INTO bench_prefix (prefix, vrf_id)
      SELECT ('2001:db8:0:' || to_hex(i) || '::/64')::cidr, CASE WHEN random() < 0.33 THEN 1 + (random() * 4)::int END
      FROM generate_series(0::bigint, 44998) i;`);
  const counts = await db.query(`SELECT (SELECT count(*)::int FROM bench_ip) AS addresses, (SELECT count(*)::int FROM bench_prefix) AS prefixes,
    (SELECT count(*)::int FROM bench_prefix WHERE prefix << '10.0.0.0/8') AS children_of_8,
    (SELECT count(*)::int FROM bench_ip WHERE CAST(HOST(address) AS inet) <<= '10.1.0.0/16') AS used_in_10_1,
    (SELECT count(*)::int FROM bench_ip WHERE CAST(HOST(address) AS inet) <<= '10.2.0.0/16') AS used_in_10_2`);
  return counts.rows[0];
}

async function main() {
  const pg = await startPostgres({ log: () => undefined });
  const db = new Client({ connectionString: pg.url });
  try {
    await db.connect();
    const version = (await db.query('SHOW server_version')).rows[0].server_version;
    const t0 = Date.now();
    const data = await seed(db);
    process.stderr.write(`seeded in ${Date.now() - t0} ms: ${JSON.stringify(data)}\n`);

    const q = { query: async (statement) => { const { text, values } = render(statement); return (await db.query(text, values)).rows; } };
    const plans = [];
    const explaining = { query: async (statement) => { const { text, values } = render(statement); plans.push(...(await db.query(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN'])); return []; } };
    const addresses = { table: 'bench_ip', where: vrfIs(null) };
    const prefixes = { table: 'bench_prefix', where: vrfIs(null) };
    const sqlRead = (text) => ({ run: (r) => r.query({ strings: [text], values: [] }) });
    const parentOf = '10.77.9.0/24';
    const queries = {
      first_free_ip_spread: { run: (r) => availablePrefixIps(r, { prefix: '10.1.0.0/16', count: 1, addresses }) },
      first_free_ip_after_64880_used: { run: (r) => availablePrefixIps(r, { prefix: '10.2.0.0/16', count: 1, addresses }) },
      free_ips_50_spread: { run: (r) => availablePrefixIps(r, { prefix: '10.1.0.0/16', count: 50, addresses }) },
      available_prefixes_8_10k_children: { run: (r) => availablePrefixes(r, { prefix: '10.0.0.0/8', prefixes }) },
      allocate_first_fit_24_in_8: { run: (r) => allocatePrefixes(r, { prefix: '10.0.0.0/8', prefixes, lengths: [24] }) },
      available_prefixes_48_45k_children: { run: (r) => availablePrefixes(r, { prefix: '2001:db8::/48', prefixes }) },
      allocate_first_fit_64_in_48: { run: (r) => allocatePrefixes(r, { prefix: '2001:db8::/48', prefixes, lengths: [64] }) },
      allocate_first_fit_56_in_48: { run: (r) => allocatePrefixes(r, { prefix: '2001:db8::/48', prefixes, lengths: [56] }) },
      list_address_within_16_1000: sqlRead(`SELECT id, address FROM bench_ip WHERE address <<= '10.0.0.0/16' ORDER BY address LIMIT 1000`),
      list_host_within_16_1000: sqlRead(`SELECT id, address FROM bench_ip WHERE CAST(HOST(address) AS inet) <<= '10.0.0.0/16' ORDER BY CAST(HOST(address) AS inet) LIMIT 1000`),
      list_prefix_within_8_1000: sqlRead(`SELECT id, prefix FROM bench_prefix WHERE prefix <<= '10.0.0.0/8' ORDER BY prefix LIMIT 1000`),
      prefix_parents_of_24: sqlRead(`SELECT id, prefix FROM bench_prefix WHERE prefix >>= '${parentOf}' ORDER BY prefix`),
      // the same answer as equality probes, one per possible parent length (what a btree can do)
      prefix_parents_of_24_probes: sqlRead(
        `SELECT id, prefix FROM bench_prefix WHERE prefix = ANY (ARRAY(SELECT network(set_masklen('${parentOf}'::cidr, m)) FROM generate_series(0, 24) m)) ORDER BY prefix`,
      ),
    };

    const report = {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, note: 'shared 2-core machine: other jobs ran at the same time; compare the kinds against each other, not the absolute figures' },
      postgres: version,
      runs: RUNS,
      data,
      answers: {},
      kinds: {},
    };
    for (const [kind, create] of Object.entries(KINDS)) {
      await db.query(`SELECT string_agg(format('DROP INDEX %I', indexname), '; ') AS s FROM pg_indexes WHERE tablename IN ('bench_ip', 'bench_prefix') AND indexname NOT LIKE '%pkey'`).then(async (r) => r.rows[0].s && db.query(r.rows[0].s));
      const tb = Date.now();
      for (const statement of create) await db.query(statement);
      const buildMs = Date.now() - tb;
      await db.query('VACUUM ANALYZE bench_ip');
      await db.query('VACUUM ANALYZE bench_prefix');
      const sizes = (await db.query(`SELECT indexname, pg_size_pretty(pg_relation_size(format('%I', indexname)::regclass)) AS size FROM pg_indexes WHERE tablename IN ('bench_ip', 'bench_prefix') AND indexname NOT LIKE '%pkey' ORDER BY 1`)).rows;
      const out = { build_ms: buildMs, indexes: Object.fromEntries(sizes.map((s) => [s.indexname, s.size])), queries: {} };
      for (const [name, query] of Object.entries(queries)) {
        let answer;
        for (let i = 0; i < 3; i++) answer = await query.run(q);
        const times = [];
        for (let i = 0; i < RUNS; i++) {
          const s = process.hrtime.bigint();
          await query.run(q);
          times.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
        times.sort((a, b) => a - b);
        plans.length = 0;
        await query.run(explaining);
        const scans = [...new Set(plans.map((l) => l.replace(/^[\s->]+/, '').replace(/\s+\(cost=.*$/, '')).filter((l) => /Scan|Sort/.test(l) && !/Function Scan|WorkTable|CTE Scan|Values Scan|Subquery Scan/.test(l)))];
        const summary = Array.isArray(answer) ? { rows: answer.length, first: answer[0]?.address ?? answer[0]?.prefix ?? answer[0] } : answer;
        report.answers[name] ??= summary;
        if (JSON.stringify(report.answers[name]) !== JSON.stringify(summary)) throw new Error(`${kind} ${name}: answer ${JSON.stringify(summary)} differs from ${JSON.stringify(report.answers[name])}`);
        out.queries[name] = { p50_ms: round(pct(times, 50)), p99_ms: round(pct(times, 99)), plan: scans };
        process.stderr.write(`${kind} ${name}: p50 ${round(pct(times, 50))} ms, p99 ${round(pct(times, 99))} ms\n`);
      }
      out.statements = create;
      report.kinds[kind] = out;
    }
    writeReport('ipam-index', report);
  } finally {
    await db.end().catch(() => undefined);
    await pg.stop();
  }
}

run(main);
