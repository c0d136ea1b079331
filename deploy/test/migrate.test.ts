/**
 * The migration job as the image runs it (`deploy/entrypoint.js migrate`,
 * a process of its own, the TypeScript sources loaded as they are) on a
 * real, empty PostgreSQL database: it brings every service's schema up to
 * date, a second run changes nothing, and a service starting afterwards
 * has nothing left to migrate.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import pg from 'pg';
import { baseConfig, readConfig } from '@inventory/core';
import { describeSchema, type SchemaDescription } from '@inventory/rest';
import { createTestDatabase } from '@inventory/testkit';
import { createService } from '@inventory/tenancy';
import { ROOT, serviceNames } from './manifests';

const REGISTER = path.join(ROOT, 'libs', 'testkit', 'src', 'ts-register.js');
const SCHEMAS = serviceNames().filter((s) => s !== 'gateway');

interface JobRun {
  code: number | null;
  /** What each schema's line says it applied. */
  applied: Record<string, string[]>;
  stderr: string;
}

/** Runs the job with only `env` (no broker, no secret: it needs neither) and reads its log lines. */
function runJob(env: Record<string, string>): Promise<JobRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, path.join(ROOT, 'deploy', 'entrypoint.js'), 'migrate'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const applied: Record<string, string[]> = {};
      for (const line of out.split('\n').filter((l) => l.startsWith('{'))) {
        const entry = JSON.parse(line);
        if (entry.schema) applied[entry.schema] = entry.applied;
      }
      resolve({ code, applied, stderr });
    });
  });
}

describe('the migration job (deploy/migrate.js through the entry point)', () => {
  let db: { url: string; drop(): Promise<void> };
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const recorded = async (schema: string) => (await client.query(`SELECT name FROM "${schema}"._migrations ORDER BY name`)).rows.map((r) => r.name);
  const describeAll = async () => {
    const out: Record<string, SchemaDescription> = {};
    for (const s of SCHEMAS) out[s] = await describeSchema(client, s);
    return out;
  };

  test('when it runs on an empty database, then every service\'s schema has all its migrations; run again, it applies nothing and changes nothing', async () => {
    const first = await runJob({ DATABASE_URL: db.url });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(Object.keys(first.applied).sort()).toEqual([...SCHEMAS].sort());
    for (const s of SCHEMAS) {
      expect(first.applied[s].length).toBeGreaterThan(0);
      expect([...first.applied[s]].sort()).toEqual(await recorded(s));
    }
    const before = await describeAll();
    // what the services build beside their migrations is there too: dcim's copy of tenancy's tenants
    expect(Object.keys(before.dcim.tables)).toContain('_proj_tenancy_tenant');

    const second = await runJob({ DATABASE_URL: db.url });
    expect(second.code).toBe(0);
    expect(second.applied).toEqual(Object.fromEntries(SCHEMAS.map((s) => [s, []])));
    for (const s of SCHEMAS) expect([...first.applied[s]].sort()).toEqual(await recorded(s));
    expect(await describeAll()).toEqual(before);

    // a service starting on it finds nothing to do
    const tenancy = createService(readConfig(baseConfig, { DATABASE_URL: db.url, INTERNAL_TOKEN_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' }));
    try {
      expect(await tenancy.migrate()).toEqual([]);
    } finally {
      await tenancy.stop();
    }
  }, 180_000);

  test('when the database cannot be reached or DATABASE_URL is wrong, then it exits 1 saying why, having applied nothing', async () => {
    const unreachable = await runJob({ DATABASE_URL: 'postgres://nobody:none@127.0.0.1:1/nothing' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^migrate failed: .*ECONNREFUSED/m);
    expect(unreachable.applied).toEqual({});
    const wrong = await runJob({ DATABASE_URL: 'mysql://somewhere/db' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/DATABASE_URL/);
  }, 60_000);
});
