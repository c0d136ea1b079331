#!/usr/bin/env node
'use strict';
/**
 * Time travel (issue 27 goals), on a real PostgreSQL and RabbitMQ with extras
 * and dcim as separate processes: 10,000 sites, each changed 10 times (bulk
 * PATCHes of 1,000), then
 *  - a list page (`?limit=50`, and one 5,000 deep) as of the moment after the
 *    fifth change against the same page now: median time of interleaved
 *    runs and X-Query-Count (goal: ≤ 1.5× the time, statements equal);
 *  - the cost of keeping history on a bulk create of 1,000 sites and a bulk
 *    PATCH of 1,000: the same writes with the site table's history triggers
 *    disabled and enabled, interleaved in pairs whose order alternates (off
 *    then on, on then off: a machine growing busier charges neither side),
 *    medians (goal: ≤ 15 % more). Beside it, what the history's own
 *    statements took inside those writes (pg_stat_statements, nested
 *    statements tracked): the same cost without the other jobs' noise.
 * Run: `node -r ./libs/testkit/src/ts-register.js bench/as-of.js` (or after
 * `npm run build`); results in bench/results/as-of.json.
 */
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');

const SITES = Number(process.env.BENCH_SITES || 10000);
const CHANGES = Number(process.env.BENCH_CHANGES || 10);
const RUNS = Number(process.env.BENCH_RUNS || 15);
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS || 8);
const BATCH = 1000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function timed(url, headers, method = 'GET', body) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, queries: Number(res.headers.get('x-query-count')), body: text ? JSON.parse(text) : null };
}

/** What the statements writing the site's history took since the last reset (the triggers' own, nested). */
async function historyMs(db) {
  const { rows } = await db.query(`SELECT coalesce(sum(total_exec_time), 0) AS ms FROM pg_stat_statements WHERE query LIKE '%"site__history"%' AND query NOT LIKE 'SELECT%'`);
  return Number(rows[0].ms);
}

/** Median times and statements of a page now and as of `at`, interleaved. */
async function comparePage(d, headers, query, at) {
  const now = [];
  const past = [];
  const statements = {};
  for (let i = 0; i < RUNS + 2; i++) {
    const a = await timed(d(`/api/dcim/sites/?${query}`), headers);
    const b = await timed(d(`/api/dcim/sites/?${query}&as_of=${encodeURIComponent(at)}`), headers);
    // the first two runs warm both (prepared statements, caches)
    if (i >= 2) {
      now.push(a.ms);
      past.push(b.ms);
    }
    statements.now = a.queries;
    statements.as_of = b.queries;
    if (i === 0 && b.body.results.length && b.body.results[0].description !== `change ${Math.ceil(CHANGES / 2)}`) throw new Error(`as_of page shows ${b.body.results[0].description}`);
  }
  return { query, now_ms: round(median(now)), as_of_ms: round(median(past)), ratio: round(median(past) / median(now)), statements };
}

async function main() {
  const [pg, rabbit] = await Promise.all([
    startPostgres({ log: () => undefined, settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] }),
    startRabbitMQ({ log: () => undefined }),
  ]);
  const db = new Client({ connectionString: pg.url });
  let children = [];
  try {
    const services = await serviceProcesses(['extras', 'dcim'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env: { QUERY_COUNT_HEADER: 'true', MAX_BODY_SIZE: String(50 * 1024 * 1024) } });
    const { urls, headers } = services;
    children = services.children;
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const d = (p) => `${urls.dcim}${p}`;
    const h = headers('dcim');

    const ids = [];
    for (let i = 0; i < SITES; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, SITES - i) }, (_, k) => ({ name: `Site ${i + k}`, slug: `site-${i + k}` }));
      ids.push(...(await json(d('/api/dcim/sites/'), h, 'POST', batch)).map((s) => s.id));
    }
    let pastMoment = null;
    for (let c = 1; c <= CHANGES; c++) {
      for (let i = 0; i < ids.length; i += BATCH) {
        await json(d('/api/dcim/sites/'), h, 'PATCH', ids.slice(i, i + BATCH).map((id) => ({ id, description: `change ${c}` })));
      }
      if (c === Math.ceil(CHANGES / 2)) {
        pastMoment = new Date().toISOString();
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    await db.query('VACUUM ANALYZE');
    const [{ n: versions }] = (await db.query('SELECT count(*)::int AS n FROM dcim.site__history')).rows;

    const pages = [];
    for (const query of ['limit=50', `limit=50&offset=${Math.floor(SITES / 2)}`, 'limit=50&ordering=-name']) pages.push(await comparePage(d, h, query, pastMoment));

    // history's cost on writes: the site table's triggers off and on, in pairs whose order alternates
    const write = { create: { with: [], without: [], history: [] }, update: { with: [], without: [], history: [] } };
    let k = 0;
    for (let r = 0; r < WRITE_ROUNDS + 1; r++) {
      for (const on of r % 2 ? [true, false] : [false, true]) {
        await db.query(`ALTER TABLE dcim.site ${on ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
        const batch = Array.from({ length: BATCH }, () => ({ name: `Bulk ${++k}`, slug: `bulk-${k}` }));
        await db.query('SELECT pg_stat_statements_reset()');
        const made = await timed(d('/api/dcim/sites/'), h, 'POST', batch);
        const madeHistory = await historyMs(db);
        await db.query('SELECT pg_stat_statements_reset()');
        const changed = await timed(d('/api/dcim/sites/'), h, 'PATCH', made.body.map((s) => ({ id: s.id, description: 'bulk' })));
        const changedHistory = await historyMs(db);
        // the first pair warms both
        if (r >= 1) {
          write.create[on ? 'with' : 'without'].push(made.ms);
          write.update[on ? 'with' : 'without'].push(changed.ms);
          if (on) {
            write.create.history.push(madeHistory);
            write.update.history.push(changedHistory);
          }
        }
        await json(d('/api/dcim/sites/'), h, 'DELETE', made.body.map((s) => ({ id: s.id })));
      }
    }
    await db.query('ALTER TABLE dcim.site ENABLE TRIGGER USER');
    const cost = (w) => ({
      with_history_ms: round(median(w.with)),
      without_ms: round(median(w.without)),
      overhead_pct: round((median(w.with) / median(w.without) - 1) * 100, 1),
      history_statements_ms: round(median(w.history)),
      history_statements_pct: round((median(w.history) / median(w.without)) * 100, 1),
      // every sample in run order: how far the machine spread them
      samples_ms: { with: w.with.map((x) => round(x, 0)), without: w.without.map((x) => round(x, 0)), history: w.history.map((x) => round(x, 0)) },
    });

    writeReport('as-of', {
      sites: SITES,
      changes_per_site: CHANGES,
      history_rows: versions,
      as_of: pastMoment,
      runs: RUNS,
      pages,
      bulk_create_1000: cost(write.create),
      bulk_update_1000: cost(write.update),
      goals: { as_of_vs_now: 1.5, statements: 'equal', history_overhead_pct: 15 },
    });
  } finally {
    await db.end().catch(() => undefined);
    await stopAll(children);
    await Promise.allSettled([pg.stop(), rabbit.stop()]);
  }
}

run(main);
