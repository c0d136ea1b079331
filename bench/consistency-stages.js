#!/usr/bin/env node
'use strict';
/**
 * Where a bulk write's wait for its readers goes (docs/decisions/025-consistency.md): one stack
 * (tenancy, extras, dcim as separate processes, CONSISTENCY_WAIT_MS as set, default 2000) takes
 * BENCH_BULK (5) POSTs of 1,000 tenants; after each (and a wait for quiet) the stages are read back
 * from the databases' own clocks: the events' write time (the outbox's `timestamp`), the relay's
 * marking them sent (`sent_at`, after the broker's confirms: one value per relay batch), and each
 * reader's transactions (`_processed_event.processed_at`: one value per consumer batch, its start),
 * against the request's start and answer on the same machine's clock. Not part of `npm run bench`:
 * it explains, bench/consistency.js compares. Run: `npm run build && node bench/consistency-stages.js`;
 * prints a table per write and writes bench/results/consistency-stages.json.
 */
const http = require('node:http');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, post, writeReport, run } = require('./children');

const BULK = Number(process.env.BENCH_BULK || 5);
const SIZE = Number(process.env.BENCH_BULK_SIZE || 1000);
const WAIT_MS = process.env.CONSISTENCY_WAIT_MS ?? '2000';
const say = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every event of the write (by request id) applied by both readers and marked sent. */
async function quiet(db, requestId, n) {
  for (let i = 0; i < 3000; i++) {
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM tenancy._outbox WHERE request_id = $1 AND sent_at IS NOT NULL) AS sent,
              (SELECT count(*)::int FROM dcim._processed_event p JOIN tenancy._outbox o ON o.id = p.event_id WHERE o.request_id = $1 AND p.queue = 'dcim.projections') AS dcim,
              (SELECT count(*)::int FROM extras._processed_event p JOIN tenancy._outbox o ON o.id = p.event_id WHERE o.request_id = $1 AND p.queue = 'extras.changelog') AS extras`,
      [requestId],
    );
    const r = rows[0];
    if (r.sent >= n && r.dcim >= n && r.extras >= n) return;
    await sleep(10);
  }
  throw new Error(`write ${requestId}: readers did not catch up`);
}

/** The stages of one write, in ms from the request's start. */
async function stages(db, requestId, t0) {
  const ms = (d) => Math.round((new Date(d).getTime() - t0) * 10) / 10;
  const { rows: [o] } = await db.query(
    `SELECT min(timestamp) AS written_first, max(timestamp) AS written_last, count(*)::int AS events,
            array_agg(DISTINCT sent_at ORDER BY sent_at) AS sent
       FROM tenancy._outbox WHERE request_id = $1`,
    [requestId],
  );
  const batches = async (schema, queue) =>
    (
      await db.query(
        `SELECT p.processed_at AS at, count(*)::int AS n FROM ${schema}._processed_event p JOIN tenancy._outbox o ON o.id = p.event_id
          WHERE o.request_id = $1 AND p.queue = $2 GROUP BY p.processed_at ORDER BY p.processed_at`,
        [requestId, queue],
      )
    ).rows.map((r) => ({ started_ms: ms(r.at), events: r.n }));
  return {
    events: o.events,
    written_ms: [ms(o.written_first), ms(o.written_last)],
    relay_marked_sent_ms: o.sent.map(ms),
    dcim_projection_batches: await batches('dcim', 'dcim.projections'),
    extras_changelog_batches: await batches('extras', 'extras.changelog'),
  };
}

async function main() {
  const [pgs, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  let services = null;
  const db = new Client({ connectionString: pgs.url });
  try {
    services = await serviceProcesses(['tenancy', 'extras', 'dcim'], { databaseUrl: pgs.url, amqpUrl: rabbit.url, env: { CONSISTENCY_WAIT_MS: WAIT_MS } });
    await db.connect();
    const agent = new http.Agent({ keepAlive: true });
    const headers = services.headers('tenancy');
    const out = [];
    for (let i = -1; i < BULK; i++) {
      const requestId = require('node:crypto').randomUUID();
      const body = Array.from({ length: SIZE }, (_, k) => ({ name: `Bulk ${i}-${k}`, slug: `bulk-${i}-${k}` }));
      const t0 = Date.now();
      const res = await post(`${services.urls.tenancy}/api/tenancy/tenants/`, { ...headers, 'x-request-id': requestId }, body, agent);
      const answered = Date.now() - t0;
      if (res.status !== 201) throw new Error(`bulk POST: ${res.status} ${res.text.slice(0, 200)}`);
      await quiet(db, requestId, SIZE);
      if (i < 0) continue; // warm-up
      const s = { t0, answered_ms: answered, pending: res.pending, ...(await stages(db, requestId, t0)) };
      out.push(s);
      say(JSON.stringify(s));
      await sleep(300);
    }
    writeReport('consistency-stages', { date: new Date().toISOString(), consistency_wait_ms: Number(WAIT_MS), bulk_size: SIZE, writes: out });
  } finally {
    await db.end().catch(() => undefined);
    if (services) await stopAll(services.children);
    await Promise.all([pgs.stop(), rabbit.stop()]);
  }
}

run(main);
