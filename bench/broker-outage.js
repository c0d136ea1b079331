#!/usr/bin/env node
'use strict';
/**
 * Writes through a broker outage: how long a write takes while RabbitMQ is
 * down (issue 7's "writes never wait on the broker": an event waits in the
 * outbox; issue 22 moved this figure here from
 * services/tenancy/test/broker-outage.test.ts, which keeps the outcomes:
 * every write answered, every event delivered once the broker is back).
 *
 * The tenancy service as deployed (a process of its own, built packages), on
 * a PostgreSQL and a RabbitMQ of this benchmark's own (the broker's data kept
 * on disk across the restart). Single-tenant POSTs, 6 in flight: 200 as fast
 * as they go, then 600 at one every 45 ms while RabbitMQ is stopped and for
 * BENCH_OUTAGE_SECONDS (default 30) after it went down, then it starts again
 * and 200 more. Goal: the writes' p99 during the outage under 1,000 ms.
 * Run: `npm run build && node bench/broker-outage.js`; results in bench/results/broker-outage.json.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const amqp = require('amqplib');
const { freePort, startPostgres, startRabbitMQ } = require('@inventory/infra');
const { declareConsumerQueue, eventsOf } = require('@inventory/events');
const { run, serviceProcesses, stopAll, writeReport } = require('./children');

const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS || 30);
const BEFORE = 200;
const DURING = 600;
const AFTER = 200;
const PARALLEL = 6;
const INTERVAL_MS = 45;
const GOAL_P99_MS = 1000;
const QUEUE = 'bench.broker-outage';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? { writes: s.length, p50: Number(pct(s, 50).toFixed(1)), p99: Number(pct(s, 99).toFixed(1)), max: Number(s[s.length - 1].toFixed(1)) } : { writes: 0 };
};

/** `work(i)` for i in [from, to), PARALLEL at a time, the i-th due `intervalMs` × (i - from) after the start. */
async function paced(from, to, work, intervalMs = 0) {
  let next = from;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < to) {
        const i = next++;
        const wait = t0 + (i - from) * intervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        await work(i);
      }
    }),
  );
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-bench-outage-'));
  const rabbitOpts = { persistent: true, dataDir: path.join(tmp, 'rabbitmq'), port: await freePort(), prefer: ['local'], log: () => undefined };
  const pg = await startPostgres({ log: () => undefined });
  let rabbit = await startRabbitMQ(rabbitOpts);
  // as root the broker's data may live elsewhere than asked (a place its user can reach): removed at the end too
  const dataDirs = new Set([tmp, rabbit.dataDir]);
  let svc = null;
  let conn = null;
  try {
    {
      const setup = await amqp.connect(rabbit.url);
      await declareConsumerQueue(await setup.createChannel(), { name: QUEUE, bindings: ['tenancy.tenant.created'] });
      await setup.close();
    }
    svc = await serviceProcesses(['tenancy'], { databaseUrl: pg.url, amqpUrl: rabbit.url });
    const url = `${svc.urls.tenancy}/api/tenancy/tenants/`;
    const headers = { ...svc.headers('tenancy'), 'content-type': 'application/json' };

    let phase = 'before';
    const writes = [];
    const write = async (i) => {
      const at = phase;
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ name: `Outage ${i}`, slug: `outage-${i}` }) });
      await res.text();
      writes.push({ status: res.status, ms: performance.now() - t0, phase: at });
    };

    await paced(0, BEFORE, write);
    phase = 'stopping';
    const stopStarted = Date.now();
    let downAt = 0;
    const stopped = rabbit.stop().then(() => {
      downAt = Date.now();
      phase = 'outage';
    });
    await Promise.all([stopped, paced(BEFORE, BEFORE + DURING, write, INTERVAL_MS)]);
    await sleep(downAt + OUTAGE_SECONDS * 1000 - Date.now());
    const downMs = Date.now() - downAt;
    phase = 'restarting';
    const restartStarted = Date.now();
    rabbit = await startRabbitMQ(rabbitOpts);
    dataDirs.add(rabbit.dataDir);
    const restartMs = Date.now() - restartStarted;
    phase = 'after';
    await paced(BEFORE + DURING, BEFORE + DURING + AFTER, write);

    // every event once the broker is back (the relay reconnects with backoff)
    const ids = new Set();
    let deliveries = 0;
    conn = await amqp.connect(rabbit.url);
    const ch = await conn.createChannel();
    await ch.prefetch(200);
    // by event id: a backlog is relayed in packs of consecutive events (decision 035)
    await ch.consume(QUEUE, (m) => {
      const body = eventsOf(m.content);
      const got = body && !body.pack ? [String(m.properties.messageId)] : (body?.events ?? []).map((e) => e.id);
      deliveries += got.length;
      for (const id of got) ids.add(id);
      ch.ack(m);
    });
    const total = BEFORE + DURING + AFTER;
    const deadline = Date.now() + 120_000;
    while (ids.size < total && Date.now() < deadline) await sleep(100);
    await sleep(1000); // any late duplicate

    const of = (p) => writes.filter((w) => w.phase === p).map((w) => w.ms);
    writeReport('broker-outage', {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      method: `${total.toLocaleString('en-US')} single-tenant POSTs to the tenancy service, ${PARALLEL} in flight: ${BEFORE} as fast as they go, ${DURING} at one every ${INTERVAL_MS} ms while RabbitMQ stops and stays down ${OUTAGE_SECONDS} s, ${AFTER} once it is back`,
      broker: { stop_ms: downAt - stopStarted, down_ms: downMs, restart_ms: restartMs },
      write_ms: { before: stats(of('before')), while_stopping: stats(of('stopping')), outage: stats(of('outage')), after: stats(of('after')) },
      failed_writes: writes.filter((w) => w.status !== 201).length,
      events: { written: total, delivered: ids.size, duplicates: deliveries - ids.size },
      goal_outage_p99_ms: GOAL_P99_MS,
    });
  } finally {
    await conn?.close().catch(() => undefined);
    if (svc) await stopAll(svc.children);
    await Promise.all([pg.stop(), rabbit.stop()]);
    for (const dir of dataDirs) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

run(main);
