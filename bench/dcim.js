#!/usr/bin/env node
'use strict';
/**
 * The inventory proper (issue 10 goals), in one run on a real PostgreSQL and
 * RabbitMQ, with tenancy, extras and dcim as separate processes:
 *  - 10,000 devices (BENCH_DEVICES) made 100 per request from a 48-port
 *    device type: each request creates 100 devices and 4,800 interfaces with
 *    their change records and events (goal under 1 s; NetBox 59 s), timed
 *    back to back and, for the last 10 (BENCH_QUIET_CREATES), one at a time
 *    on a quiet system (the relay and extras' change log done with the
 *    previous request's 4,900 events);
 *  - 20 config contexts on regions, sites, roles, platforms and tags;
 *  - GET /api/dcim/devices/?limit=1000 complete, with config contexts
 *    (goal under 250 ms; NetBox about 60 s), ?limit=50, ?brief=1&limit=1000,
 *    ?exclude=config_context&limit=1000;
 *  - GET /api/dcim/interfaces/?device_id=…&limit=1000 (goal under 100 ms;
 *    NetBox 4–9 s);
 *  - GET /api/dcim/interfaces/{id}/trace/ on a 6-hop path (interface, front
 *    port, rear port, cable, rear port, front port, interface);
 *  - for each read: requests/s, p50 and p99 under a closed-loop load
 *    (load.js) and statements per request (X-Query-Count) at two page sizes.
 * Run: `npm run build && node bench/dcim.js`; results in bench/results/dcim.json.
 * BENCH_HOLD=1 stops after the setup, printing the database and service URLs,
 * until SIGINT (to profile by hand), then measures.
 */
const os = require('node:os');
const { Client } = require('pg');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
const { serviceProcesses, stopAll, json, writeReport, run } = require('./children');
const { load } = require('./load');

const DEVICES = Number(process.env.BENCH_DEVICES || 10000);
const PER_REQUEST = 100;
const QUIET_CREATES = Number(process.env.BENCH_QUIET_CREATES || 10);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (x) => Math.round(x * 10) / 10;

async function timed(url, headers, method = 'GET', body) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const text = await res.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, queries: Number(res.headers.get('x-query-count')), body: text ? JSON.parse(text) : null };
}

/** One read: single-request time and statements at two page sizes, then the closed-loop figures. */
async function measure(name, url, headers, smallUrl) {
  const singles = [];
  let first;
  for (let i = 0; i < 7; i++) {
    const r = await timed(url, headers);
    first ??= r;
    singles.push(r.ms);
  }
  singles.sort((a, b) => a - b);
  const small = smallUrl ? await timed(smallUrl, headers) : null;
  const loaded = await load({ url, headers, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: 1 });
  const results = Array.isArray(first.body) ? first.body.length : first.body.results?.length;
  return {
    name,
    url: url.replace(/^http:\/\/[^/]+/, ''),
    objects: results,
    single_ms_median: round(pct(singles, 50)),
    queries: first.queries,
    ...(small ? { queries_small_page: small.queries } : {}),
    requests_per_s: loaded.rps,
    p50_ms: loaded.p50_ms,
    p99_ms: loaded.p99_ms,
  };
}

/** Waits (up to 10 minutes) until dcim's outbox is published and extras' change log stops growing. */
async function settle(db) {
  const end = Date.now() + 600_000;
  const count = async (q) => (await db.query(q)).rows[0].n;
  while (Date.now() < end && (await count('SELECT count(*)::int AS n FROM dcim._outbox WHERE sent_at IS NULL')) > 0) await new Promise((r) => setTimeout(r, 1000));
  let last = -1;
  for (;;) {
    const n = await count('SELECT count(*)::int AS n FROM extras.object_change');
    if (n === last || Date.now() > end) return;
    last = n;
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** BENCH_HOLD=1: keeps the world up for profiling (prints where it is) until SIGINT, then measures as usual. */
async function hold(where) {
  process.stdout.write(`${JSON.stringify(where)}\n`);
  await new Promise((r) => process.once('SIGINT', r));
}

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  const db = new Client({ connectionString: pg.url });
  let children = [];
  try {
    const services = await serviceProcesses(['tenancy', 'extras', 'dcim'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env: { QUERY_COUNT_HEADER: 'true', MAX_BODY_SIZE: String(50 * 1024 * 1024) } });
    const { urls, headers } = services;
    children = services.children;
    await db.connect();
    const d = (p) => `${urls.dcim}${p}`;
    const x = (p) => `${urls.extras}${p}`;
    const H = headers('dcim');

    // the world: regions, sites, roles, platforms, tags, a 48-port type and a patch panel type
    const regions = await json(d('/api/dcim/regions/'), H, 'POST', Array.from({ length: 4 }, (_, i) => ({ name: `Region ${i}`, slug: `region-${i}` })));
    const sites = await json(d('/api/dcim/sites/'), H, 'POST', Array.from({ length: 20 }, (_, i) => ({ name: `Site ${i}`, slug: `site-${i}`, region: regions[i % 4].id })));
    const maker = await json(d('/api/dcim/manufacturers/'), H, 'POST', { name: 'Maker', slug: 'maker' });
    const roles = await json(d('/api/dcim/device-roles/'), H, 'POST', Array.from({ length: 4 }, (_, i) => ({ name: `Role ${i}`, slug: `role-${i}` })));
    const platforms = await json(d('/api/dcim/platforms/'), H, 'POST', Array.from({ length: 2 }, (_, i) => ({ name: `OS ${i}`, slug: `os-${i}` })));
    const tags = await json(x('/api/extras/tags/'), headers('extras'), 'POST', Array.from({ length: 2 }, (_, i) => ({ name: `Tag ${i}`, slug: `tag-${i}` })));
    const type = await json(d('/api/dcim/device-types/'), H, 'POST', { manufacturer: maker.id, model: 'Switch 48', slug: 'switch-48' });
    await json(d('/api/dcim/interface-templates/'), H, 'POST', Array.from({ length: 48 }, (_, i) => ({ device_type: type.id, name: `eth${i + 1}`, type: '1000base-t' })));

    // 20 config contexts on every kind of criterion, with weights
    const criteria = [
      (i) => ({ regions: [regions[i % 4].id] }),
      (i) => ({ sites: [sites[i % 20].id] }),
      (i) => ({ roles: [roles[i % 4].id] }),
      (i) => ({ platforms: [platforms[i % 2].id] }),
      (i) => ({ tags: [tags[i % 2].slug] }),
    ];
    const contexts = Array.from({ length: 20 }, (_, i) => ({
      name: `Context ${i}`,
      weight: 1000 + (i % 5) * 10,
      data: { [`key${i % 7}`]: { value: i, list: [i, i + 1] }, ntp: [`10.0.${i}.1`], [`only${i}`]: true },
      ...(i === 0 ? {} : criteria[i % 5](i)),
    }));
    await json(x('/api/extras/config-contexts/'), headers('extras'), 'POST', contexts);

    // 10,000 devices, 100 per request, each with 48 interfaces from the type: back to back (each request's change
    // records and events are still being consumed by extras and the relay when the next arrives), except the last
    // QUIET_CREATES, each sent once the previous one's events are published and recorded (one request on its own)
    const batchOf = (i) =>
      Array.from({ length: Math.min(PER_REQUEST, DEVICES - i) }, (_, k) => {
        const n = i + k;
        return {
          name: `dev-${n}`,
          device_type: type.id,
          role: roles[n % 4].id,
          site: sites[n % 20].id,
          platform: platforms[n % 2].id,
          tags: n % 3 ? [tags[n % 2].id] : [],
          local_context_data: n % 10 ? null : { local: n },
        };
      });
    const creates = [];
    const quietCreates = [];
    const quietFrom = DEVICES - Math.min(QUIET_CREATES, DEVICES / PER_REQUEST) * PER_REQUEST;
    for (let i = 0; i < DEVICES; i += PER_REQUEST) {
      if (i >= quietFrom) await settle(db);
      (i >= quietFrom ? quietCreates : creates).push((await timed(d('/api/dcim/devices/'), H, 'POST', batchOf(i))).ms);
    }
    const summary = (list) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { requests: list.length, p50: round(pct(sorted, 50)), p95: round(pct(sorted, 95)), max: round(sorted[sorted.length - 1]) };
    };
    // dcim's projection holds every config context (they arrive as events)
    for (;;) {
      const { rows } = await db.query("SELECT count(*)::int AS n FROM dcim._proj_extras_configcontext WHERE NOT deleted");
      if (rows[0].n >= 20) break;
      await new Promise((r) => setTimeout(r, 200));
    }

    // a 6-hop path: interface, front port, rear port = cable = rear port, front port, interface
    const panelType = await json(d('/api/dcim/device-types/'), H, 'POST', { manufacturer: maker.id, model: 'Panel', slug: 'panel' });
    const rearT = await json(d('/api/dcim/rear-port-templates/'), H, 'POST', { device_type: panelType.id, name: 'R1', type: '8p8c', positions: 1 });
    await json(d('/api/dcim/front-port-templates/'), H, 'POST', { device_type: panelType.id, name: 'F1', type: '8p8c', rear_port: rearT.id });
    const panels = await json(d('/api/dcim/devices/'), H, 'POST', [0, 1].map((i) => ({ name: `panel-${i}`, device_type: panelType.id, role: roles[0].id, site: sites[0].id })));
    const port = async (kind, device) => (await json(d(`/api/dcim/${kind}/?device_id=${device}`), H)).results[0];
    const [f0, r0, f1, r1] = [await port('front-ports', panels[0].id), await port('rear-ports', panels[0].id), await port('front-ports', panels[1].id), await port('rear-ports', panels[1].id)];
    const [ifA, ifB] = [await port('interfaces', 1), await port('interfaces', 2)];
    const cable = (a, b) => ({ a_terminations: [a], b_terminations: [b] });
    await json(d('/api/dcim/cables/'), H, 'POST', [
      cable({ object_type: 'dcim.interface', object_id: ifA.id }, { object_type: 'dcim.frontport', object_id: f0.id }),
      cable({ object_type: 'dcim.rearport', object_id: r0.id }, { object_type: 'dcim.rearport', object_id: r1.id }),
      cable({ object_type: 'dcim.frontport', object_id: f1.id }, { object_type: 'dcim.interface', object_id: ifB.id }),
    ]);

    // reads are measured on a quiet system: the relay has published every event and extras' change log has taken them
    await settle(db);
    if (process.env.BENCH_HOLD) await hold({ database: pg.url, ...urls });
    const deviceIds = (await json(d('/api/dcim/devices/?limit=21&ordering=id&brief=1'), H)).results.map((o) => o.id);
    const reads = [
      await measure('devices, complete with config contexts', d('/api/dcim/devices/?limit=1000'), H, d('/api/dcim/devices/?limit=50')),
      await measure('devices, page of 50', d('/api/dcim/devices/?limit=50'), H),
      await measure('devices, brief', d('/api/dcim/devices/?brief=1&limit=1000'), H, d('/api/dcim/devices/?brief=1&limit=50')),
      await measure('devices, exclude=config_context', d('/api/dcim/devices/?exclude=config_context&limit=1000'), H),
      await measure('interfaces of 21 devices', d(`/api/dcim/interfaces/?${deviceIds.map((id) => `device_id=${id}`).join('&')}&limit=1000`), H, d(`/api/dcim/interfaces/?device_id=${deviceIds[0]}&limit=50`)),
      await measure('trace on a 6-hop path', d(`/api/dcim/interfaces/${ifA.id}/trace/`), H),
    ];
    const trace = (await timed(d(`/api/dcim/interfaces/${ifA.id}/trace/`), H)).body;

    writeReport('dcim', {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      devices: DEVICES,
      interfaces: DEVICES * 48,
      config_contexts: 20,
      // one request on a quiet system (the goal's figure), and back to back while earlier requests' events are consumed
      bulk_create_100_devices_48_interfaces_ms: { ...summary(quietCreates), goal: 1000, netbox: 59000 },
      bulk_create_back_to_back_ms: creates.length ? summary(creates) : null,
      trace_segments: trace.length,
      reads,
      goals: { devices_1000_ms: 250, interfaces_1000_ms: 100 },
      netbox: { devices_1000_with_config_contexts_ms: 60000, interfaces_1000_ms: '4000-9000' },
    });
  } finally {
    await db.end().catch(() => undefined);
    await stopAll(children);
    await rabbit.stop();
    await pg.stop();
  }
}

run(main);
