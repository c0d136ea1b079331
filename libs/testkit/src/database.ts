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
 * A database to clone instead of starting empty, made of parts (a service's
 * schema each): `key` names what a part holds (the same key, the same
 * contents), `build` makes it in a database (and leaves no connection to it
 * open). Parts never touch each other's schemas, so a template holding more
 * parts than asked for serves as well (the extra schemas sit unused).
 */
export interface DatabaseTemplate {
  parts: { key: string; build(url: string): Promise<void> }[];
}

/**
 * Templates are named after the run (global setup sets TEST_RUN_ID: `tpl_<run>_<parts' hash>`), so a
 * server that outlives it (DATABASE_URL) never hands one to a later run whose code migrates
 * differently; global teardown drops them.
 */
function runId(): string {
  return (process.env.TEST_RUN_ID ??= randomBytes(4).toString('hex'));
}

/** The advisory lock of template builds (no service's lock is in this class): one build at a time per server. */
const TEMPLATE_LOCK = [0x7e3a, 0];

const hashOf = (text: string, n: number) => createHash('sha1').update(text).digest('hex').slice(0, n);

/** A finished template's comment: `built` and the hashes of its parts (a template without it was left half-built). */
const BUILT = 'built ';

/**
 * A template database holding every part of `t`, made once per run and
 * server. Stacks differ in their services, and migrating a service costs
 * seconds, so: a finished template holding all the parts (and maybe more)
 * is used as it is; otherwise the new one starts as a copy of the finished
 * template with the most of the wanted parts and nothing else, and only the
 * parts it lacks are built. Workers take turns (an advisory lock).
 */
async function ensureTemplate(admin: pg.Client, server: string, t: DatabaseTemplate): Promise<string> {
  const parts = new Map(t.parts.map((p) => [hashOf(p.key, 12), p]));
  const wanted = [...parts.keys()].sort();
  await admin.query('SELECT pg_advisory_lock($1, $2)', TEMPLATE_LOCK);
  try {
    const { rows } = await admin.query<{ datname: string; note: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname LIKE $1`,
      [`tpl\\_${runId()}\\_%`],
    );
    const built = rows
      .filter((r) => r.note?.startsWith(BUILT))
      .map((r) => ({ name: r.datname, has: new Set(r.note!.slice(BUILT.length).split(',')) }))
      .sort((x, y) => x.has.size - y.has.size);
    const whole = built.find((b) => wanted.every((h) => b.has.has(h)));
    if (whole) return whole.name;
    const base = built.filter((b) => [...b.has].every((h) => parts.has(h))).pop();
    const name = `tpl_${runId()}_${hashOf(wanted.join(','), 16)}`;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}${base ? ` TEMPLATE ${base.name}` : ''}`);
    try {
      for (const h of wanted) if (!base?.has.has(h)) await parts.get(h)!.build(databaseUrl(server, name));
    } catch (err) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      throw err;
    }
    await admin.query(`COMMENT ON DATABASE ${name} IS '${BUILT}${wanted.join(',')}'`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1, $2)', TEMPLATE_LOCK);
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
