#!/usr/bin/env node
/**
 * The migration job: brings every service's schema in DATABASE_URL up to
 * date (its migrations, then its projection tables and config-context
 * functions: what `RestService.migrate` does at each start), one service
 * after another, logs what it applied (a JSON line per service:
 * `{"schema": "ipam", "applied": [...]}`) and exits 0; on the first failure
 * it exits 1. A second run applies nothing. docker compose
 * and Kubernetes run it before the services (docs/decisions/021); the
 * services still migrate at start, which after it finds nothing to do.
 *
 * Like a service's main.js it runs when loaded (deploy/entrypoint.js
 * requires it for `migrate`). It reads each service's own config schema from the environment, as the
 * service would, but never connects to the broker (AMQP_URL is ignored) and
 * signs nothing (INTERNAL_TOKEN_SECRET may be left out).
 */
'use strict';
const { randomBytes } = require('node:crypto');
const { createLogger } = require('@inventory/core');
const { SERVICE_NAMES, createFromEnv } = require('./services');

async function migrateAll(env, log) {
  const applied = {};
  // nothing is signed while migrating: a throwaway secret satisfies the schema when none is given
  const base = { ...env, AMQP_URL: undefined, INTERNAL_TOKEN_SECRET: env.INTERNAL_TOKEN_SECRET || randomBytes(24).toString('hex') };
  for (const name of SERVICE_NAMES) {
    const service = createFromEnv(name, base);
    try {
      applied[name] = await service.migrate();
    } finally {
      await service.stop();
    }
    log.info({ schema: name, applied: applied[name] }, 'schema up to date');
  }
  return applied;
}

const log = createLogger('migrate', process.env.LOG_LEVEL || 'info');
const t0 = Date.now();
migrateAll(process.env, log).then(
  (applied) => {
    const count = Object.values(applied).reduce((n, names) => n + names.length, 0);
    log.info({ applied: count, ms: Date.now() - t0 }, 'every schema up to date');
  },
  (err) => {
    process.stderr.write(`migrate failed: ${err && err.message ? err.message : err}\n`);
    // the pools are closed: the process ends once the log is written
    process.exitCode = 1;
  },
);
