#!/usr/bin/env node
'use strict';
/**
 * Where a bulk POST's time goes, stage by stage (issue 24's write goals), read back from
 * the databases' clocks: tenancy, extras, dcim and ipam as separate processes, then
 * `BENCH_BULK` (5) POSTs, after one warm-up, of each of
 *  - 100 devices of a type with 48 interface templates (4,900 objects, dcim),
 *  - 1,000 IP addresses (ipam),
 * each answered once extras' change log holds its changes (read-your-writes). Per write:
 * the answer's time, when its events were built (the outbox's timestamps: the
 * change records are made at the end of the write's transaction), when the relay marked
 * them sent, and when extras' change log transactions began (one per batch). Run: `npm
 * run build && node bench/write-stages.js`; results in bench/results/write-stages.json.
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, post, writeReport, run } = require('./children');

const BULK = Number(process.env.BENCH_BULK || 5);
const say = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Which service a bench/servers.js process runs (its BENCH_PORTS). */
function serviceOf(pid) {
  const env = require('node:fs').readFileSync(`/proc/${pid}/environ`, 'utf8');
  return Object.keys(JSON.parse(/BENCH_PORTS=([^\0]*)/.exec(env)?.[1] ?? '{"node":0}'))[0];
}

/** CPU seconds so far of this script's descendants (PostgreSQL, RabbitMQ, each service), by what they are. */
function cpuByProcess() {
  const fs = require('node:fs');
  const procs = new Map();
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      procs.set(Number(pid), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), cmd });
    } catch {
      // gone meanwhile
    }
  }
  const out = {};
  const under = (pid) => {
    for (let p = procs.get(pid)?.ppid; p; p = procs.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  for (const [pid, p] of procs) {
    if (!under(pid)) continue;
    const what = /postgres/.test(p.cmd) ? 'postgres' : /beam|erl|rabbit/.test(p.cmd) ? 'rabbitmq' : /servers\.js/.test(p.cmd) ? serviceOf(pid) : p.cmd.split('\0').slice(0, 2).join(' ').slice(-40);
    out[what] = (out[what] ?? 0) + p.ticks / 100;
  }
  return out;
}

/** The stages of one write, in ms from the request's start. */
async function stages(db, schema, requestId, t0) {
  const ms = (d) => Math.round((new Date(d).getTime() - t0) * 10) / 10;
  for (let i = 0; i < 3000; i++) {
    const { rows: [r] } = await db.query(
      `SELECT (SELECT count(*)::int FROM ${schema}._outbox WHERE request_id = $1 AND sent_at IS NULL) AS unsent,
              (SELECT count(*)::int FROM ${schema}._outbox WHERE request_id = $1) AS events,
              (SELECT count(*)::int FROM extras.object_change WHERE request_id = $1) AS logged`,
      [requestId],
    );
    if (r.unsent === 0 && r.logged >= r.events) break;
    await sleep(100);
  }
  const { rows: [o] } = await db.query(
    `SELECT min(timestamp) AS written_first, max(timestamp) AS written_last, count(*)::int AS events, array_agg(DISTINCT sent_at ORDER BY sent_at) AS sent
       FROM ${schema}._outbox WHERE request_id = $1`,
    [requestId],
  );
  const { rows: logged } = await db.query(
    `SELECT p.processed_at AS at, count(*)::int AS n FROM extras._processed_event p JOIN ${schema}._outbox o ON o.id = p.event_id
      WHERE o.request_id = $1 AND p.queue = 'extras.changelog' GROUP BY p.processed_at ORDER BY p.processed_at`,
    [requestId],
  );
  return {
    events: o.events,
    events_built_ms: [ms(o.written_first), ms(o.written_last)],
    relay_marked_sent_ms: o.sent.map(ms),
    changelog_batches: logged.map((r) => ({ began_ms: ms(r.at), events: r.n })),
  };
}

async function measure(db, name, schema, url, headers, bodyOf) {
  const agent = new http.Agent({ keepAlive: true });
  const out = [];
  let cpuBefore = null;
  let cpuAfter = null;
  for (let i = -1; i < BULK; i++) {
    if (i === 0) {
      cpuBefore = cpuByProcess();
      await db.query('SELECT pg_stat_statements_reset()');
    }
    const requestId = randomUUID();
    const t0 = Date.now();
    const res = await post(url, { ...headers, 'x-request-id': requestId }, bodyOf(i + 1), agent);
    const answered = Date.now() - t0;
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
    const s = { answered_ms: answered, pending: res.pending, ...(await stages(db, schema, requestId, t0)) };
    if (i >= 0) out.push(s);
    say(`${name}: ${JSON.stringify(s)}`);
    await sleep(300);
  }
  const now = cpuByProcess();
  cpuAfter = Object.fromEntries(Object.entries(now).map(([k, v]) => [k, Math.round((v - (cpuBefore[k] ?? 0)) * 100) / 100]));
  agent.destroy();
  const sorted = out.map((s) => s.answered_ms).sort((a, b) => a - b);
  const { rows: top } = await db.query(
    `SELECT calls, round(total_exec_time::numeric, 1)::float AS exec_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10`,
  );
  return { p50_ms: sorted[Math.floor(sorted.length / 2)], cpu_s: cpuAfter, statements: top, writes: out };
}

async function main() {
  const [pgs, rabbit] = await Promise.all([startPostgres({ log: () => undefined, settings: ['shared_preload_libraries=pg_stat_statements'] }), startRabbitMQ({ log: () => undefined })]);
  let services = null;
  const db = new Client({ connectionString: pgs.url });
  try {
    services = await serviceProcesses(['tenancy', 'extras', 'dcim', 'ipam'], { databaseUrl: pgs.url, amqpUrl: rabbit.url, env: { MAX_BODY_SIZE: String(50 * 1024 * 1024), ...(process.env.STAGES_NODE_OPTIONS ? { NODE_OPTIONS: `${require('../deploy/heap').NODE_OPTIONS} ${process.env.STAGES_NODE_OPTIONS}` } : {}) } });
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    if (process.env.STAGES_SQL) {
      await db.query(process.env.STAGES_SQL);
      await db.query('SELECT pg_reload_conf()');
    }
    const { urls, headers } = services;
    const H = headers('dcim');
    const site = await json(`${urls.dcim}/api/dcim/sites/`, H, 'POST', { name: 'Site', slug: 'site' });
    const maker = await json(`${urls.dcim}/api/dcim/manufacturers/`, H, 'POST', { name: 'Maker', slug: 'maker' });
    const role = await json(`${urls.dcim}/api/dcim/device-roles/`, H, 'POST', { name: 'Access', slug: 'access' });
    const type = await json(`${urls.dcim}/api/dcim/device-types/`, H, 'POST', { manufacturer: maker.id, model: 'Switch 48', slug: 'switch-48' });
    await json(`${urls.dcim}/api/dcim/interface-templates/`, H, 'POST', Array.from({ length: 48 }, (_, i) => ({ device_type: type.id, name: `eth${i + 1}`, type: '1000base-t' })));
    const devices = await measure(db, 'devices', 'dcim', `${urls.dcim}/api/dcim/devices/`, H, (k) =>
      Array.from({ length: 100 }, (_, i) => ({ name: `sw-${k}-${i}`, device_type: type.id, role: role.id, site: site.id, status: 'active' })),
    );
    const addresses = await measure(db, 'addresses', 'ipam', `${urls.ipam}/api/ipam/ip-addresses/`, headers('ipam'), (k) =>
      Array.from({ length: 1000 }, (_, i) => ({ address: `10.${16 + k}.${Math.floor(i / 200)}.${i % 200}/16`, status: 'active' })),
    );
    writeReport('write-stages', { date: new Date().toISOString(), devices, addresses });
  } finally {
    await db.end().catch(() => undefined);
    if (services) await stopAll(services.children);
    await Promise.all([pgs.stop(), rabbit.stop()]);
  }
}

run(main);
