import pg from 'pg';
import type { RunningPostgres, RunningRabbit } from '@inventory/infra';

/** Drops the template databases of this run (database.ts) from a server that outlives it (DATABASE_URL). */
async function dropTemplates(server: RunningPostgres): Promise<void> {
  const run = process.env.TEST_RUN_ID;
  if (server.kind !== 'external' || !run) return;
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`tpl\\_${run}\\_%`]);
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  const pgServer = g.__inventoryPg as RunningPostgres | undefined;
  if (pgServer) await dropTemplates(pgServer).catch(() => undefined);
  await (g.__inventoryRabbit as RunningRabbit | undefined)?.stop();
  await pgServer?.stop();
}
