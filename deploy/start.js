#!/usr/bin/env node
/**
 * Quick start: every service in a Node process of its own (supervised:
 * deploy/supervisor.js), each on its own loopback port and talking HTTP to
 * the others exactly as in production, behind the gateway on PORT (default
 * 8000). PostgreSQL comes from DATABASE_URL or the
 * embedded server under .data/, RabbitMQ (where the services relay their
 * change events) from AMQP_URL or a local rabbitmq-server with its data under
 * .data/rabbitmq (apt-installed when missing and running as root); the two
 * start side by side. Run through `npm start` (which builds first).
 */
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const { randomBytes } = require('node:crypto');
const { startPostgres, startRabbitMQ, freePort } = require('@inventory/infra');
const { createLogger } = require('@inventory/core');

const { SERVICE_NAMES } = require('./services');
const { Supervisor } = require('./supervisor');

const root = path.resolve(__dirname, '..');
const log = createLogger('start', process.env.LOG_LEVEL || 'info');

/** A secret that survives restarts, so identities and sessions stay valid. */
function persistentSecret(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

async function main() {
  const dataDir = process.env.DATA_DIR || path.join(root, '.data');
  const debug = (m) => log.debug(m);
  const t0 = Date.now();
  // Side by side: the broker's boot (a few seconds of Erlang) overlaps PostgreSQL's.
  const [pgResult, rabbitResult] = await Promise.allSettled([
    startPostgres({ persistent: true, dataDir: path.join(dataDir, 'postgres'), prefer: ['embedded', 'local'], log: debug }),
    startRabbitMQ({ persistent: true, dataDir: path.join(dataDir, 'rabbitmq'), prefer: ['local'], log: debug }),
  ]);
  if (pgResult.status === 'rejected' || rabbitResult.status === 'rejected') {
    // Stop whichever did start, and say plainly what is missing (no stack: these are set-up problems).
    if (pgResult.status === 'fulfilled') await pgResult.value.stop().catch(() => undefined);
    if (rabbitResult.status === 'fulfilled') await rabbitResult.value.stop().catch(() => undefined);
    for (const r of [pgResult, rabbitResult]) {
      if (r.status === 'rejected') process.stderr.write(`start failed: ${r.reason && r.reason.message ? r.reason.message : r.reason}\n`);
    }
    process.exit(1);
  }
  const pg = pgResult.value;
  const rabbit = rabbitResult.value;
  // As root the servers run as `postgres` / `rabbitmq`; when that user cannot reach .data/ (a clone under
  // /root or another private directory) the data lives in a directory made for it instead: say where.
  log.info({ kind: pg.kind, data: pg.dataDir }, 'PostgreSQL ready');
  log.info({ kind: rabbit.kind, url: rabbit.url.replace(/\/\/[^@/]*@/, '//'), data: rabbit.dataDir, ms: Date.now() - t0 }, 'RabbitMQ ready');
  const secret = process.env.INTERNAL_TOKEN_SECRET || persistentSecret(path.join(dataDir, 'internal-secret'));
  // image attachments' files live beside the database's data unless MEDIA_ROOT says otherwise
  process.env.MEDIA_ROOT ||= path.join(dataDir, 'media');
  const names = SERVICE_NAMES;
  const ports = {};
  for (const n of names) ports[n] = await freePort();
  const serviceUrls = names.map((n) => `${n}=http://127.0.0.1:${ports[n]}`);
  const gatewayPort = Number(process.env.PORT || 8000);
  serviceUrls.push(`gateway=http://127.0.0.1:${gatewayPort}`);
  // each child with the image's heap policy (deploy/heap.js) on top of any NODE_OPTIONS of the caller
  const nodeOptions = [process.env.NODE_OPTIONS, require('./heap').NODE_OPTIONS].filter(Boolean).join(' ');
  const env = { ...process.env, NODE_OPTIONS: nodeOptions, DATABASE_URL: pg.url, AMQP_URL: rabbit.url, INTERNAL_TOKEN_SECRET: secret, SERVICE_URLS: serviceUrls.join(',') };

  const supervisor = new Supervisor(log);
  const stop = async () => {
    // The gateway and services first, newest first (their relays flush and disconnect), then the servers they used.
    await supervisor.stop();
    const stopped = await Promise.allSettled([pg.stop(), rabbit.stop()]);
    for (const r of stopped) if (r.status === 'rejected') throw r.reason;
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping');
      stop().then(() => process.exit(0), () => process.exit(1));
    });
  }

  try {
    let admin = null;
    for (const n of names) {
      // each reads its own variables, as its main.ts does (the users, ipam and webhooks services have some of their own)
      const ready = await supervisor.start(n, { ...env, PORT: String(ports[n]), HOST: '127.0.0.1' });
      if (n === 'users') admin = ready.admin;
    }
    await supervisor.start('gateway', { ...env, PORT: String(gatewayPort), HOST: process.env.HOST || '0.0.0.0' });
    const url = process.env.PUBLIC_URL || `http://localhost:${gatewayPort}`;
    const lines = [`NetBox-compatible API ready at ${url}/api/  (docs: ${url}/api/docs/)`, `(${names.length + 1} processes: ${[...names, 'gateway'].join(', ')})`];
    if (admin && admin.password) lines.push(`Created superuser "${admin.username}" with password: ${admin.password}`);
    if (admin && admin.token) lines.push(`API token for "${admin.username}": ${admin.token}`);
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
  } catch (err) {
    process.stderr.write(`start failed: ${err && err.stack ? err.stack : err}\n`);
    await stop();
    process.exit(1);
  }
}

main();
