#!/usr/bin/env node
'use strict';
/**
 * Webhooks (issue 9 goals), in one run on a real PostgreSQL and RabbitMQ,
 * tenancy, extras and webhooks as separate processes, a receiver on loopback
 * in this process answering 200 at once:
 *  - commit-to-receiver latency, p50/p99, at 100 and 500 tenant creates/s
 *    (single POSTs, paced; from each POST's answer to its delivery's arrival;
 *    goal p99 < 100 ms at 500/s);
 *  - one dispatcher process's deliveries/s: 5,000 tenants created in five
 *    bulk POSTs while the dispatcher is stopped (their events wait in its
 *    queue), then a dispatcher started to work the backlog off: matching,
 *    recording, rendering, signing, sending and recording each attempt,
 *    from its start to the last delivery (goal >= 2,000/s).
 * Run: `npm run build && node bench/webhooks.js`; results in bench/results/webhooks.json.
 */
const os = require('node:os');
const http = require('node:http');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');

/** CPU time (ms) used so far by each process: pid -> [program, ms] (the named pids apart). */
function cpuByProcess(named) {
  const fs = require('node:fs');
  const tick = 1000 / 100; // USER_HZ
  const out = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const program = named[pid] ?? (comm.startsWith('postgres') ? 'postgres' : comm === 'beam.smp' ? 'rabbitmq' : comm === 'node' ? 'other node (tenancy, extras)' : comm.startsWith('kworker') ? 'kernel workers' : comm);
      out.set(pid, [program, (Number(f[11]) + Number(f[12])) * tick]);
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** CPU µs per delivery (or write) by program, between two readings (a process that ended meanwhile is not counted). */
function cpuPerDelivery(before, after, deliveries) {
  const sums = {};
  for (const [pid, [program, ms]] of after) sums[program] = (sums[program] ?? 0) + ms - (before.get(pid)?.[1] ?? 0);
  return Object.fromEntries(
    Object.entries(sums)
      .map(([k, ms]) => [k, Number(((ms / Math.max(1, deliveries)) * 1000).toFixed(0))])
      .filter(([, us]) => us >= 5)
      .sort((a, b) => b[1] - a[1]),
  );
}

/**
 * Resolves once the last of the queues (the dispatcher's, waiting for it) holds
 * the backlog and the others are empty, twice in a row one second apart (a
 * message taken and not yet acked is not counted as waiting: hence twice). The
 * relay packs consecutive events (decision 035), so the backlog is a few
 * messages of many events each: held means a count that no longer changes.
 */
async function drained(amqpUrl, queues) {
  const amqp = require('amqplib');
  const conn = await amqp.connect(amqpUrl);
  try {
    const ch = await conn.createChannel();
    let quiet = 0;
    let last = -1;
    for (const end = Date.now() + 300_000; quiet < 2; ) {
      if (Date.now() > end) throw new Error('the backlog was not published, or other consumers did not work it off, in 5 minutes');
      const counts = await Promise.all(queues.map((q) => ch.checkQueue(q).then((r) => r.messageCount)));
      const waiting = counts.pop();
      quiet = waiting > 0 && waiting === last && counts.every((c) => c === 0) ? quiet + 1 : 0;
      last = waiting;
      await new Promise((r) => setTimeout(r, 1000));
    }
    return last;
  } finally {
    await conn.close();
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const SECONDS = Number(process.env.BENCH_SECONDS || 10);

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const arrived = new Map();
  const deliveryIds = new Set();
  let requests = 0;
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const payload = JSON.parse(body);
      const id = payload.data.id;
      requests++;
      deliveryIds.add(req.headers['x-delivery-id']);
      // with the event's time (the payload's `timestamp`: made in the write's transaction, before its commit)
      if (!arrived.has(id)) arrived.set(id, { at: process.hrtime.bigint(), lagMs: Date.now() - Date.parse(payload.timestamp) });
      res.end();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  let children = [];
  try {
    const services = await serviceProcesses(['tenancy', 'extras', 'webhooks'], { databaseUrl: pg.url, amqpUrl: rabbit.url });
    const { urls, headers } = services;
    children = services.children;
    await json(`${urls.webhooks}/api/extras/webhooks/`, headers('webhooks'), 'POST', {
      name: 'Bench',
      content_types: ['tenancy.tenant'],
      type_create: true,
      payload_url: `http://127.0.0.1:${receiver.address().port}/`,
      secret: 'bench-secret',
    });
    let n = 0;
    /** `rate` object creates a second for SECONDS, `perRequest` objects per POST (1: single POSTs; more: bulk POSTs). */
    const paced = async (rate, perRequest = 1) => {
      const lags = [];
      const pending = [];
      const interval = (1000 * perRequest) / rate;
      const hdr = headers('tenancy');
      let inFlight = 0;
      const named = { [children[0].pid]: 'tenancy', [children[1].pid]: 'extras', [children[2].pid]: 'webhooks', [process.pid]: 'client and receiver (bench)' };
      const cpuBefore = cpuByProcess(named);
      const start = Date.now();
      for (let i = 0; i < (rate * SECONDS) / perRequest; i++) {
        const due = start + i * interval;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const objects = Array.from({ length: perRequest }, () => {
          const k = ++n;
          return { name: `T ${k}`, slug: `t-${k}` };
        });
        // at most 64 requests in flight: past that the rate is what the service sustains
        while (inFlight >= 64) await new Promise((r) => setTimeout(r, 1));
        inFlight++;
        pending.push(
          json(`${urls.tenancy}/api/tenancy/tenants/`, hdr, 'POST', perRequest === 1 ? objects[0] : objects)
            .then((made) => (Array.isArray(made) ? made : [made]).map((t) => ({ id: t.id })))
            .finally(() => inFlight--),
        );
      }
      const done = (await Promise.all(pending)).flat();
      const writeSeconds = (Date.now() - start) / 1000;
      const end = Date.now() + 30_000;
      while (done.some((d) => !arrived.has(d.id)) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      // from the write to the receiver: the client's answer comes after the readers confirmed it (decision 025), often
      // after the delivery, so the answer's time would undercount; the event's own time counts a little more than the commit
      for (const d of done) if (arrived.has(d.id)) lags.push(Math.max(0, arrived.get(d.id).lagMs));
      lags.sort((a, b) => a - b);
      return {
        writes: done.length,
        achieved_writes_per_s: Number((done.length / writeSeconds).toFixed(0)),
        delivered: lags.length,
        p50_ms: Number(pct(lags, 50).toFixed(2)),
        p99_ms: Number(pct(lags, 99).toFixed(2)),
        cpu_us_per_write: cpuPerDelivery(cpuBefore, cpuByProcess(named), done.length),
      };
    };
    await paced(20); // warm-up
    const at100 = await paced(100);
    const at500 = await paced(500);
    const at500bulk = await paced(500, 10);

    // the backlog: events made while no dispatcher runs wait in its queue
    const webhooksChild = children[children.length - 1];
    await stopAll([webhooksChild]);
    children = children.filter((c) => c !== webhooksChild);
    const backlog = [];
    for (let b = 0; b < 5; b++) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ name: `Bulk ${b}-${i}`, slug: `bulk-${b}-${i}` }));
      const made = await json(`${urls.tenancy}/api/tenancy/tenants/`, headers('tenancy'), 'POST', batch);
      backlog.push(...made.map((t) => t.id));
    }
    // the relay publishes them, and the other consumers (extras' change log and projections) work
    // them off before the dispatcher starts: its CPU is measured, not theirs on the same two cores
    const backlogMessages = await drained(rabbit.url, ['extras.changelog', 'extras.projections', 'tenancy.projections', 'webhooks.events']);
    const started = process.hrtime.bigint();
    // BENCH_CPU_PROF=<dir>: the dispatcher's CPU profile while it works the backlog off (written when it stops)
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const webhooksProcess = await services.spawn('webhooks', profile);
    children.push(webhooksProcess);
    const ready = process.hrtime.bigint();
    const named = { [webhooksProcess.pid]: 'dispatcher', [process.pid]: 'receiver (bench)' };
    const cpuBefore = cpuByProcess(named);
    const end = Date.now() + 120_000;
    while (backlog.some((id) => !arrived.has(id)) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const times = backlog.map((id) => arrived.get(id)?.at).filter(Boolean).sort((a, b) => (a < b ? -1 : 1));
    const seconds = times.length ? Number(times[times.length - 1] - ready) / 1e9 : NaN;
    const firstToLast = times.length > 1 ? Number(times[times.length - 1] - times[0]) / 1e9 : NaN;
    const cpuUs = cpuPerDelivery(cpuBefore, cpuByProcess(named), times.length);

    writeReport('webhooks', {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average: os.loadavg().map((x) => Number(x.toFixed(2))) },
      method: `tenancy, extras, webhooks as separate processes on one PostgreSQL and RabbitMQ; one webhook on tenant creates, signed, default body; receiver on loopback answering 200; latency from the event's timestamp (made in the write's transaction, before its commit) to its arrival; paced POSTs for ${SECONDS} s per rate (one tenant each, then ten each at 500 tenants/s: 50 POSTs/s); CPU per write or delivery by process from /proc; throughput from five 1,000-tenant bulk POSTs`,
      latency_commit_to_receiver: { at_100_per_s: at100, at_500_per_s: at500, at_500_per_s_in_posts_of_10: at500bulk },
      dispatcher_throughput: {
        backlog: backlog.length,
        backlog_messages: backlogMessages,
        delivered: times.length,
        process_start_ms: Number(Number(ready - started) / 1e6).toFixed(0),
        seconds_from_ready_to_last: Number(seconds.toFixed(2)),
        deliveries_per_s: Number((times.length / seconds).toFixed(0)),
        seconds_first_to_last: Number(firstToLast.toFixed(2)),
        cpu_us_per_delivery: cpuUs,
      },
      receiver: { requests, distinct_delivery_ids: deliveryIds.size },
      goals: 'p99 < 100 ms at 500 writes/s; >= 2,000 deliveries/s',
    });
  } finally {
    await stopAll(children);
    receiver.close();
    await Promise.allSettled([pg.stop(), rabbit.stop()]);
  }
}

run(main);
