#!/usr/bin/env node
'use strict';
/**
 * The outbox relay alone, on a real PostgreSQL and RabbitMQ (issue 7 goals):
 *  - maximum publish rate: 20,000 events already in the outbox, the relay
 *    started, time until the last is confirmed and marked (goal ≥ 5,000/s);
 *  - commit-to-publish latency at 200 writes/s for 15 s: from each write's
 *    COMMIT to its delivery to a consumer (goal p99 < 50 ms).
 * Run: `npm run build && node bench/events.js`; results in bench/results/events.json.
 */
const os = require('node:os');
const amqp = require('amqplib');
const { Pool } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { OutboxRelay, declareConsumerQueue, eventsOf, newEventId, outboxStatements } = require('@inventory/events');
const { writeReport, run } = require('./children');

const SCHEMA = 'bench';
const BACKLOG = Number(process.env.BENCH_BACKLOG || 20000);
const RATE = Number(process.env.BENCH_RATE || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const log = { info: () => undefined, warn: (o, m) => process.stderr.write(`${m} ${JSON.stringify(o)}\n`) };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function event(i) {
  const data = { id: i, url: `http://bench/api/tenancy/tenants/${i}/`, display: `Tenant ${i}`, name: `Tenant ${i}`, slug: `tenant-${i}`, description: 'benchmark' };
  return { id: newEventId(), event: 'created', model: 'tenancy.tenant', object_id: i, version: 1, timestamp: new Date().toISOString(), username: 'bench', request_id: newEventId(), data, snapshots: { prechange: null, postchange: data } };
}

async function insert(pool, events) {
  await pool.query(
    `INSERT INTO ${SCHEMA}._outbox (id, event, model, object_id, version, timestamp, username, request_id, data, snapshots)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(id uuid, event varchar, model varchar, object_id bigint, version bigint, timestamp timestamptz, username varchar, request_id varchar, data jsonb, snapshots jsonb)`,
    [JSON.stringify(events)],
  );
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const pool = new Pool({ connectionString: pg.url, max: 8 });
  // pool.end() resolves before its sockets have closed: the server stopping right after may say
  // goodbye to one of them ("terminating connection"), which must not crash the finished run
  pool.on('error', () => undefined);
  const conn = await amqp.connect(rabbit.url);
  try {
    await pool.query(`CREATE SCHEMA ${SCHEMA}`);
    for (const s of outboxStatements(SCHEMA)) await pool.query(s);
    const ch = await conn.createChannel();
    await declareConsumerQueue(ch, { name: 'bench.events', bindings: ['#'] });
    await ch.prefetch(1000);
    const received = new Map();
    // by event id: the relay packs consecutive events of one routing key into one message (decision 035)
    await ch.consume('bench.events', (m) => {
      const at = performance.now();
      const body = eventsOf(m.content);
      if (body && !body.pack) received.set(m.properties.messageId, at);
      else for (const e of body?.events ?? []) received.set(e.id, at);
      ch.ack(m);
    });

    // 1. maximum publish rate from a backlog
    for (let i = 0; i < BACKLOG; i += 1000) await insert(pool, Array.from({ length: 1000 }, (_, k) => event(i + k)));
    const relay = new OutboxRelay({ databaseUrl: pg.url, schema: SCHEMA, amqpUrl: rabbit.url, log });
    const t0 = performance.now();
    relay.start();
    while (relay.published < BACKLOG) await new Promise((r) => setTimeout(r, 5));
    const drainMs = performance.now() - t0;
    while (received.size < BACKLOG) await new Promise((r) => setTimeout(r, 5));

    // 2. commit-to-delivery latency at a steady write rate (one event per transaction, as a single-object write)
    const committed = new Map();
    const interval = 1000 / RATE;
    const start = performance.now();
    let n = 0;
    const writes = [];
    while (performance.now() - start < SECONDS * 1000) {
      const e = event(BACKLOG + n);
      writes.push(
        (async () => {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            await insert(c, [e]);
            await c.query(`SELECT pg_notify('${SCHEMA}_outbox', '')`);
            await c.query('COMMIT');
            committed.set(e.id, performance.now());
          } finally {
            c.release();
          }
        })(),
      );
      n++;
      const next = start + n * interval;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await Promise.all(writes);
    const deadline = Date.now() + 30_000;
    while ([...committed.keys()].some((id) => !received.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const lat = [...committed].map(([id, t]) => received.get(id) - t).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    await relay.stop();

    writeReport('events', {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      relay_max_rate: { backlog: BACKLOG, ms: Math.round(drainMs), events_per_second: Math.round((BACKLOG / drainMs) * 1000), goal: 5000 },
      commit_to_delivery_ms: {
        writes_per_second: RATE,
        seconds: SECONDS,
        writes: committed.size,
        delivered: lat.length,
        p50: Number(pct(lat, 50).toFixed(2)),
        p99: Number(pct(lat, 99).toFixed(2)),
        max: Number(lat[lat.length - 1].toFixed(2)),
        goal_p99: 50,
        note: 'from the COMMIT returning to the consumer receiving the message (relay woken by NOTIFY)',
      },
    });
  } finally {
    await conn.close().catch(() => undefined);
    await pool.end();
    await Promise.all([pg.stop(), rabbit.stop()]);
  }
}

run(main);
