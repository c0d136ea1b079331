#!/usr/bin/env node
'use strict';
/**
 * What read-your-writes across services costs, and whether it holds, in one run
 * (libs/rest/src/consistency.ts: a write is answered once every other service that
 * shows its objects has applied its events, at most CONSISTENCY_WAIT_MS).
 *
 * Two stacks side by side, each tenancy, extras and dcim as separate processes: `with`
 * (CONSISTENCY_WAIT_MS=2000, the default) and `without` (CONSISTENCY_WAIT_MS=0: writes
 * answer at once), on one PostgreSQL (a database each) and one RabbitMQ (a virtual host
 * each), so both share the machine as they are measured.
 *
 *  1. Write latency, interleaved: each round runs, for each kind of write, a block on one
 *     stack then a block on the other (the order alternating by round):
 *       - single POSTs of a tenant;
 *       - single PATCHes renaming a tenant that 10 sites (dcim) name;
 *       - bulk POSTs of 1,000 tenants.
 *     After every write, whichever stack, the benchmark waits (outside the measured time)
 *     until dcim's projection and extras' change log have applied everything written so
 *     far, so each write starts on a quiet machine and the `without` side is not charged
 *     for the background work of the write before it.
 *     Goals: p50 cost of the guarantee (with - without) under 10 ms for single writes;
 *     bulk of 1,000 with/without (p50) under 1.15.
 *  2. Stale reads with the guarantee: BENCH_LOOPS (8) loops at once, each on its own tenant,
 *     PATCH the tenant's name (tenancy, keep-alive) and then at once GET one of the 10 sites
 *     naming it from dcim on a new connection (an http.Agent with keepAlive false), comparing
 *     the site's nested tenant name with the name just written: BENCH_PAIRS (10,000) pairs or
 *     BENCH_STALE_SECONDS, whichever first. Goal: 0 stale reads. Answers carrying
 *     X-Consistency-Pending are counted.
 *  3. The same on the `without` stack, BENCH_PAIRS_OFF (1,000) pairs: the staleness the
 *     measurement sees when nothing waits.
 *
 * Writes go straight to tenancy with a minted identity (the gateway only routes: the wait
 * is the service's). Run: `npm run build && node bench/consistency.js`; results in
 * bench/results/consistency.json. Knobs: BENCH_ROUNDS, BENCH_WRITES (single writes per kind,
 * stack and round), BENCH_BULK (bulk POSTs per stack and round), BENCH_PAIRS, BENCH_PAIRS_OFF,
 * BENCH_LOOPS, BENCH_STALE_SECONDS.
 */
const http = require('node:http');
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, writeReport, run } = require('./children');

const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);
const WRITES = Number(process.env.BENCH_WRITES || 100);
const BULK = Number(process.env.BENCH_BULK || 2);
const BULK_SIZE = 1000;
const PAIRS = Number(process.env.BENCH_PAIRS || 10000);
const PAIRS_OFF = Number(process.env.BENCH_PAIRS_OFF || 1000);
const LOOPS = Number(process.env.BENCH_LOOPS || 8);
const STALE_SECONDS = Number(process.env.BENCH_STALE_SECONDS || 600);
const SITES_PER_TENANT = 10;
const WAIT_MS = 2000;
const GOALS = { single_write_p50_cost_ms: 10, bulk_1000_with_vs_without_p50: 1.15, stale_reads_with_guarantee: 0 };
/** Readers of the events written here: dcim's projection of tenants, extras' change log of everything. */
const PROJECTION_QUEUE = 'dcim.projections';
const CHANGELOG_QUEUE = 'extras.changelog';

const say = (line) => process.stderr.write(`${line}\n`);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const r2 = (x) => Number(x.toFixed(2));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: r2(pct(s, 50)), p99: r2(pct(s, 99)), max: r2(s[s.length - 1]) };
}

/** One HTTP request (loopback); its time is from the request to the last byte of the answer. */
function request(url, { method = 'GET', headers = {}, body, agent }) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Number(process.hrtime.bigint() - t0) / 1e6 }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${url}: no answer in 60 s`)));
    req.end(payload);
  });
}

/** A request that must succeed: its parsed body, the pending header, its time. */
async function call(url, opts) {
  const res = await request(url, opts);
  if (res.status >= 300) throw new Error(`${opts.method ?? 'GET'} ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  return { body: res.text ? JSON.parse(res.text) : null, pending: res.headers['x-consistency-pending'] ?? null, ms: res.ms };
}

async function createDatabase(serverUrl, name) {
  const c = new Client({ connectionString: serverUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name}`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One stack: tenancy, extras and dcim on their own database and vhost, with its CONSISTENCY_WAIT_MS. */
async function startStack(label, databaseUrl, amqpUrl, waitMs) {
  const services = await serviceProcesses(['tenancy', 'extras', 'dcim'], { databaseUrl, amqpUrl, env: { CONSISTENCY_WAIT_MS: String(waitMs) } });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const stack = {
    label,
    waitMs,
    services,
    db,
    // writes keep their connection, as a client would
    agent: new http.Agent({ keepAlive: true, maxSockets: 32 }),
    headers: null,
    t: (p) => `${services.urls.tenancy}${p}`,
    d: (p) => `${services.urls.dcim}${p}`,
  };
  stack.mint = () => (stack.headers = { tenancy: services.headers('tenancy'), dcim: services.headers('dcim') });
  stack.mint();
  return stack;
}

/**
 * How far the stack's readers are: `readers` once tenancy's last tenant event is in dcim's
 * projection and tenancy's and dcim's last events are in extras' change log (committed);
 * `quiet` once, besides, the relays have marked every event sent.
 */
async function progress(stack) {
  const { rows } = await stack.db.query(`
    SELECT (SELECT count(*)::int FROM tenancy._outbox WHERE sent_at IS NULL) + (SELECT count(*)::int FROM dcim._outbox WHERE sent_at IS NULL) AS unsent,
           (SELECT id FROM tenancy._outbox WHERE model = 'tenancy.tenant' ORDER BY seq DESC LIMIT 1) AS last_tenant,
           (SELECT id FROM tenancy._outbox ORDER BY seq DESC LIMIT 1) AS last_tenancy,
           (SELECT id FROM dcim._outbox ORDER BY seq DESC LIMIT 1) AS last_dcim`);
  const { unsent, last_tenant, last_tenancy, last_dcim } = rows[0];
  const seen = async (schema, queue, id) =>
    !id || (await stack.db.query(`SELECT 1 FROM ${schema}._processed_event WHERE queue = $1 AND event_id = $2`, [queue, id])).rowCount > 0;
  const readers = (await seen('dcim', PROJECTION_QUEUE, last_tenant)) && (await seen('extras', CHANGELOG_QUEUE, last_tenancy)) && (await seen('extras', CHANGELOG_QUEUE, last_dcim));
  return { readers, quiet: readers && unsent === 0 };
}

/**
 * Waits until the stack is quiet; resolves with whether its readers had applied everything
 * at the first look, and the time until they had (from the call).
 */
async function settle(stack, timeoutMs = 120_000) {
  const t0 = process.hrtime.bigint();
  const until = Date.now() + timeoutMs;
  let first = null;
  let readersMs = null;
  for (;;) {
    const p = await progress(stack);
    first ??= p.readers;
    if (p.readers && readersMs === null) readersMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (p.quiet) return { readersAtOnce: first, readersMs };
    if (Date.now() > until) throw new Error(`${stack.label}: the readers did not catch up in ${timeoutMs / 1000} s`);
    await sleep(2);
  }
}

/** Seeds a stack: a tenant named by 10 sites for the PATCHes, and one per stale-read loop. */
async function seed(stack) {
  const h = stack.headers;
  const named = async (slug) => {
    const tenant = (await call(stack.t('/api/tenancy/tenants/'), { method: 'POST', headers: h.tenancy, agent: stack.agent, body: { name: `Named ${slug}`, slug } })).body;
    await settle(stack);
    const sites = (
      await call(stack.d('/api/dcim/sites/'), {
        method: 'POST',
        headers: h.dcim,
        agent: stack.agent,
        body: Array.from({ length: SITES_PER_TENANT }, (_, i) => ({ name: `Site ${slug} ${i}`, slug: `site-${slug}-${i}`, tenant: tenant.id })),
      })
    ).body;
    return { tenant, sites: sites.map((s) => s.id) };
  };
  stack.patched = await named('patched');
  stack.loops = [];
  for (let l = 0; l < LOOPS; l++) stack.loops.push(await named(`loop-${l}`));
  await settle(stack);
  // the readers the quiet check looks at are the ones that applied the seed
  for (const [schema, queue] of [['dcim', PROJECTION_QUEUE], ['extras', CHANGELOG_QUEUE]]) {
    const { rows } = await stack.db.query(`SELECT count(*)::int AS n FROM ${schema}._processed_event WHERE queue = $1`, [queue]);
    if (!rows[0].n) throw new Error(`${stack.label}: ${schema}._processed_event has nothing for ${queue}: the quiet check would be wrong`);
  }
}

/** The writes measured, by kind: each does one write on a stack and returns { ms, pending }. */
const KINDS = {
  single_post: async (stack, tag) => {
    const r = await call(stack.t('/api/tenancy/tenants/'), { method: 'POST', headers: stack.headers.tenancy, agent: stack.agent, body: { name: `Single ${tag}`, slug: `single-${tag}` } });
    return { ms: r.ms, pending: r.pending };
  },
  patch_named_by_10_sites: async (stack, tag) => {
    const r = await call(stack.t(`/api/tenancy/tenants/${stack.patched.tenant.id}/`), { method: 'PATCH', headers: stack.headers.tenancy, agent: stack.agent, body: { name: `Patched ${tag}` } });
    return { ms: r.ms, pending: r.pending };
  },
  bulk_post_1000: async (stack, tag) => {
    const body = Array.from({ length: BULK_SIZE }, (_, k) => ({ name: `Bulk ${tag}-${k}`, slug: `bulk-${tag}-${k}` }));
    const r = await call(stack.t('/api/tenancy/tenants/'), { method: 'POST', headers: stack.headers.tenancy, agent: stack.agent, body });
    if (r.body.length !== BULK_SIZE) throw new Error(`bulk POST answered ${r.body.length} objects`);
    return { ms: r.ms, pending: r.pending };
  },
};

/** A block of writes of one kind on one stack, each followed by the wait for quiet (not timed). */
async function block(stack, kind, count, tagOf, into) {
  for (let i = 0; i < count; i++) {
    const { ms, pending } = await KINDS[kind](stack, tagOf(i));
    into.ms.push(ms);
    if (pending) into.pending.push(pending);
    // from the answer: how long until dcim's projection and extras' change log had the write
    const { readersAtOnce, readersMs } = await settle(stack);
    into.caughtUp?.push(readersMs);
    if (!readersAtOnce && into.behind) into.behind.push(pending);
  }
}

/**
 * Write-then-read pairs on a stack: `loops` loops at once, each renaming its own tenant and
 * reading one of its sites from dcim on a new connection at once. Stops after `pairs` pairs
 * or `seconds`.
 */
async function staleReads(stack, pairs, seconds) {
  stack.mint();
  const h = stack.headers;
  const deadline = Date.now() + seconds * 1000;
  let started = 0;
  const out = { pairs: 0, stale: 0, pending_answers: 0, pending_services: {}, write_errors: 0, read_errors: 0, errors: [], samples: [] };
  const writeMs = [];
  const readMs = [];
  const gapMs = [];
  const t0 = Date.now();
  let lastSaid = t0;
  const run = Promise.all(
    stack.loops.map(async (loop, l) => {
      for (let i = 0; started < pairs && Date.now() < deadline; i++) {
        started++;
        const name = `Stale ${stack.label} ${l}-${i}`;
        const site = loop.sites[i % loop.sites.length];
        let w;
        try {
          w = await request(stack.t(`/api/tenancy/tenants/${loop.tenant.id}/`), { method: 'PATCH', headers: h.tenancy, agent: stack.agent, body: { name } });
        } catch (err) {
          w = { status: 0, text: err.message, headers: {} };
        }
        const answered = process.hrtime.bigint();
        if (w.status !== 200) {
          out.write_errors++;
          if (out.errors.length < 5) out.errors.push({ loop: l, pair: i, step: 'PATCH', status: w.status, text: w.text.slice(0, 200) });
          continue;
        }
        const pending = w.headers['x-consistency-pending'] ?? null;
        writeMs.push(w.ms);
        // a new connection for the read: nothing shared with the write's
        const fresh = new http.Agent({ keepAlive: false });
        let r;
        try {
          r = await request(stack.d(`/api/dcim/sites/${site}/`), { headers: h.dcim, agent: fresh });
        } catch (err) {
          r = { status: 0, text: err.message, headers: {} };
        }
        fresh.destroy();
        out.pairs++;
        if (pending) {
          out.pending_answers++;
          for (const s of pending.split(',').map((x) => x.trim())) out.pending_services[s] = (out.pending_services[s] ?? 0) + 1;
        }
        if (r.status !== 200) {
          out.read_errors++;
          if (out.errors.length < 5) out.errors.push({ loop: l, pair: i, step: 'GET', status: r.status, text: r.text.slice(0, 200) });
          continue;
        }
        readMs.push(r.ms);
        gapMs.push(Number(process.hrtime.bigint() - answered) / 1e6 - r.ms);
        const shown = JSON.parse(r.text).tenant?.name ?? null;
        if (shown !== name) {
          out.stale++;
          if (out.samples.length < 20)
            out.samples.push({ loop: l, pair: i, tenant: loop.tenant.id, site, written: name, read: shown, write_ms: r2(w.ms), read_ms: r2(r.ms), pending, at_ms: Date.now() - t0 });
        }
        if (Date.now() - lastSaid > 15_000) {
          lastSaid = Date.now();
          say(`  ${stack.label}: ${out.pairs} pairs, ${out.stale} stale, ${out.pending_answers} pending (${Math.round((Date.now() - t0) / 1000)} s)`);
        }
      }
    }),
  );
  await run;
  const secs = (Date.now() - t0) / 1000;
  // how long after the last answer the readers had applied every write (a backlog shows here)
  const after = await settle(stack);
  const byThousand = [];
  for (let i = 0; i < writeMs.length; i += 1000) byThousand.push(stats(writeMs.slice(i, i + 1000)).p50);
  return {
    ...out,
    loops: stack.loops.length,
    seconds: r2(secs),
    pairs_per_s: r2(out.pairs / secs),
    bounded_by_time: out.pairs + out.write_errors < pairs,
    write_ms: stats(writeMs),
    write_p50_ms_by_1000_pairs: byThousand,
    read_ms: stats(readMs),
    readers_caught_up_after_last_answer_ms: r2(after.readersMs),
  };
}

async function main() {
  const loadBefore = os.loadavg().map((x) => r2(x));
  say(`consistency: load average ${loadBefore.join(' ')} on ${os.cpus().length} cpus`);
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ vhosts: ['bench_without'], log: () => undefined })]);
  // a broker without the vhost (docker, external): the second stack gets a broker of its own
  const second = rabbit.vhosts?.includes('bench_without') ? null : await startRabbitMQ({ log: () => undefined });
  const withoutAmqp = second ? second.url : `${rabbit.url}/bench_without`;
  const stacks = {};
  try {
    say('starting two stacks (tenancy, extras, dcim each): with the guarantee and without');
    stacks.with = await startStack('with', await createDatabase(pg.url, 'bench_with'), rabbit.url, WAIT_MS);
    stacks.without = await startStack('without', await createDatabase(pg.url, 'bench_without'), withoutAmqp, 0);
    for (const s of Object.values(stacks)) await seed(s);

    // warm-up (JIT, the gate's first questions to the other services), not measured
    say('warm-up');
    for (const s of Object.values(stacks)) {
      const sink = { ms: [], pending: [] };
      await block(s, 'single_post', 20, (i) => `warm-${s.label}-${i}`, sink);
      await block(s, 'patch_named_by_10_sites', 20, (i) => `warm-${s.label}-${i}`, sink);
      await block(s, 'bulk_post_1000', 1, (i) => `warm-${s.label}-${i}`, sink);
    }

    const counts = { single_post: WRITES, patch_named_by_10_sites: WRITES, bulk_post_1000: BULK };
    const fresh = () => ({ ms: [], pending: [], rounds: [], caughtUp: [], behind: [] });
    const latency = Object.fromEntries(Object.keys(KINDS).map((k) => [k, { with: fresh(), without: fresh() }]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? ['without', 'with'] : ['with', 'without'];
      for (const s of Object.values(stacks)) s.mint();
      for (const kind of Object.keys(KINDS)) {
        for (const side of order) {
          const into = { ms: [], pending: [], caughtUp: [], behind: [] };
          await block(stacks[side], kind, counts[kind], (i) => `${side}-${round}-${i}`, into);
          for (const k of ['ms', 'pending', 'caughtUp', 'behind']) latency[kind][side][k].push(...into[k]);
          latency[kind][side].rounds.push(stats(into.ms).p50);
        }
        say(`round ${round + 1}/${ROUNDS} ${kind}: p50 with ${latency[kind].with.rounds[round]} ms, without ${latency[kind].without.rounds[round]} ms`);
      }
    }

    say(`stale reads with the guarantee: ${PAIRS} pairs, ${LOOPS} loops, at most ${STALE_SECONDS} s`);
    const staleWith = await staleReads(stacks.with, PAIRS, STALE_SECONDS);
    say(`  with: ${staleWith.stale} stale of ${staleWith.pairs}; ${staleWith.pending_answers} answers with X-Consistency-Pending`);
    say(`stale reads without the guarantee: ${PAIRS_OFF} pairs`);
    const staleWithout = await staleReads(stacks.without, PAIRS_OFF, STALE_SECONDS);
    say(`  without: ${staleWithout.stale} stale of ${staleWithout.pairs}`);

    const count = (xs) => Object.fromEntries([...new Set(xs)].map((v) => [v, xs.filter((x) => x === v).length]));
    const side = (x) => ({
      ...stats(x.ms),
      pending_answers: x.pending.length,
      pending_services: count(x.pending),
      p50_by_round: x.rounds,
      // answered before dcim's projection or extras' change log had the write (with the guarantee: only those answered pending)
      answered_before_the_readers_had_it: x.behind.length,
      readers_had_it_after_the_answer_ms: stats(x.caughtUp),
    });
    const writeLatency = {};
    for (const [kind, x] of Object.entries(latency)) {
      const w = side(x.with);
      const wo = side(x.without);
      writeLatency[kind] = { with: w, without: wo, p50_cost_ms: r2(w.p50 - wo.p50), p99_cost_ms: r2(w.p99 - wo.p99), p50_with_vs_without: Number((w.p50 / wo.p50).toFixed(3)) };
    }
    // extras' change log: its rows, and the rows its handler updated (each change of an object refreshes changed_object on the object's earlier rows)
    const changeLog = {};
    for (const s of Object.values(stacks)) {
      const { rows } = await s.db.query(`
        SELECT (SELECT count(*)::int FROM extras.object_change) AS rows,
               (SELECT n_tup_upd::bigint::text FROM pg_stat_user_tables WHERE schemaname = 'extras' AND relname = 'object_change') AS rows_updated,
               (SELECT count(*)::int FROM extras.object_change WHERE changed_object_type = 'tenancy.tenant' AND changed_object_id = $1) AS changes_of_the_patched_tenant`,
        [s.patched.tenant.id],
      );
      changeLog[s.label] = { rows: rows[0].rows, rows_updated: Number(rows[0].rows_updated), changes_of_the_patched_tenant: rows[0].changes_of_the_patched_tenant };
    }
    const loadAfter = os.loadavg().map((x) => r2(x));
    const busy = Math.max(loadBefore[0], loadAfter[0]) > os.cpus().length * 0.75;
    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        node: process.version,
        load_average: loadAfter,
        ...(busy ? { note: `busy: 1-minute load average ${loadBefore[0]} before the run and ${loadAfter[0]} after it, with other jobs running: the latency figures are noisy` } : {}),
      },
      load_average_before: loadBefore,
      method:
        `two stacks side by side (tenancy, extras, dcim as separate processes each; a database each on one PostgreSQL, a vhost each on one RabbitMQ${second ? ' (two brokers: the first had no vhosts)' : ''}): with the guarantee (CONSISTENCY_WAIT_MS=${WAIT_MS}) and without (CONSISTENCY_WAIT_MS=0); writes straight to tenancy with a minted identity on a keep-alive connection; ${ROUNDS} rounds, each running for every kind a block on one stack then on the other (order alternating by round): ${WRITES} single POSTs, ${WRITES} PATCHes renaming a tenant 10 sites name, ${BULK} POSTs of ${BULK_SIZE} tenants; after every write (untimed) the benchmark waits until dcim's projection and extras' change log have applied everything, so each write starts on a quiet stack`,
      configurations: { with: `CONSISTENCY_WAIT_MS=${WAIT_MS} (the default)`, without: 'CONSISTENCY_WAIT_MS=0' },
      write_latency_ms: writeLatency,
      extras_change_log: changeLog,
      stale_reads: {
        method: `${LOOPS} loops at once, each on its own tenant named by ${SITES_PER_TENANT} sites: PATCH the tenant's name (tenancy, keep-alive), then at once GET one of its sites from dcim on a new connection (http.Agent keepAlive false) and compare site.tenant.name with the name just written; bounded by ${STALE_SECONDS} s`,
        with_guarantee: staleWith,
        without_guarantee: staleWithout,
      },
      goals: GOALS,
    };
    writeReport('consistency', report);
  } finally {
    for (const s of Object.values(stacks)) {
      s.agent.destroy();
      await s.db.end().catch(() => undefined);
    }
    await stopAll(Object.values(stacks).flatMap((s) => s.services.children));
    await Promise.allSettled([pg.stop(), rabbit.stop(), second?.stop()]);
  }
}

run(main);
