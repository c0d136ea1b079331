import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgres, type RunningPostgres } from '@inventory/infra';
import { scratchDir } from './scratch';

let own: RunningPostgres | null = null;

/** The server URL: the run's shared server, or one started for this worker. */
async function serverUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  own ??= await startPostgres({ dataDir: scratchDir(), log: () => undefined });
  return own.url;
}

function databaseUrl(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A database to clone instead of starting empty: `key` names what it holds
 * (the same key, the same contents), `build` makes it on an empty one (and
 * leaves no connection to it open).
 */
export interface DatabaseTemplate {
  key: string;
  build(url: string): Promise<void>;
}

/**
 * Templates are named after the run (global setup sets TEST_RUN_ID: `tpl_<run>_<key hash>`), so a
 * server that outlives it (DATABASE_URL) never hands one to a later run whose code migrates
 * differently; global teardown drops them.
 */
function runId(): string {
  return (process.env.TEST_RUN_ID ??= randomBytes(4).toString('hex'));
}

/** Advisory locks of template builds (class, then the template's hash): no service's lock is in this class. */
const TEMPLATE_LOCK_CLASS = 0x7e3a;

/**
 * The template database for `t`, made once per run and server: workers that
 * want the same one wait for the first to finish it (an advisory lock), and a
 * template is only ever cloned once its build completed (the database's
 * comment says so; one left half-built by a crashed worker is made again).
 */
async function ensureTemplate(admin: pg.Client, server: string, t: DatabaseTemplate): Promise<string> {
  const hash = createHash('sha1').update(t.key).digest('hex');
  const name = `tpl_${runId()}_${hash.slice(0, 16)}`;
  const done = `built ${hash}`;
  await admin.query('SELECT pg_advisory_lock($1, $2)', [TEMPLATE_LOCK_CLASS, parseInt(hash.slice(0, 7), 16)]);
  try {
    const found = await admin.query(`SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = $1`, [name]);
    if (found.rows[0]?.note === done) return name;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      await t.build(databaseUrl(server, name));
    } catch (err) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      throw err;
    }
    await admin.query(`COMMENT ON DATABASE ${name} IS '${done}'`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1, $2)', [TEMPLATE_LOCK_CLASS, parseInt(hash.slice(0, 7), 16)]);
  }
}

/**
 * A fresh database for one test file (dropped by `drop`): empty, or with a
 * template a copy of it (CREATE DATABASE … TEMPLATE: about a second for a
 * stack of five services, where migrating them takes several).
 */
export async function createTestDatabase(opts: { template?: DatabaseTemplate } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const server = await serverUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    const template = opts.template ? await ensureTemplate(admin, server, opts.template) : null;
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(server, name),
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
