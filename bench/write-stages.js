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
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');

const BULK = Number(process.env.BENCH_BULK || 5);
const say = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function post(url, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const payload = Buffer.from(JSON.stringify(body));
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, pending: res.headers['x-consistency-pending'] ?? null, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
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
    await sleep(20);
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
  for (let i = -1; i < BULK; i++) {
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
  agent.destroy();
  const sorted = out.map((s) => s.answered_ms).sort((a, b) => a - b);
  return { p50_ms: sorted[Math.floor(sorted.length / 2)], writes: out };
}

async function main() {
  const [pgs, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  let services = null;
  const db = new Client({ connectionString: pgs.url });
  try {
    services = await serviceProcesses(['tenancy', 'extras', 'dcim', 'ipam'], { databaseUrl: pgs.url, amqpUrl: rabbit.url, env: { MAX_BODY_SIZE: String(50 * 1024 * 1024), ...(process.env.STAGES_NODE_OPTIONS ? { NODE_OPTIONS: `${require('../deploy/heap').NODE_OPTIONS} ${process.env.STAGES_NODE_OPTIONS}` } : {}) } });
    await db.connect();
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
