import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgres, type RunningPostgres } from '@inventory/infra';

let own: RunningPostgres | null = null;

/** The server URL: the run's shared server, or one started for this worker. */
async function serverUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  own ??= await startPostgres({ log: () => undefined });
  return own.url;
}

/** A fresh, empty database for one test file (dropped by `drop`). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = await serverUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      if (own) {
        await own.stop();
        own = null;
      }
    },
  };
}
