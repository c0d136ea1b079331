import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';

export type Log = (msg: string) => void;
export const noLog: Log = () => undefined;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Absolute path of an executable found on PATH (plus `extraDirs`), or undefined. */
export function which(cmd: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const file = path.join(dir, cmd);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export interface RunResult { code: number | null; stdout: string; stderr: string }

/** Run a short-lived command to completion, capturing its output. */
export function run(cmd: string, args: string[], opts: SpawnOptions & { timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs)
      : undefined;
    child.on('error', (err) => {
      if (timer) clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like run() but throws (with the command's output) unless it exits 0. */
export async function runOk(cmd: string, args: string[], opts: SpawnOptions & { timeoutMs?: number } = {}): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${r.code}\n${r.stdout}${r.stderr}`.trim());
  }
  return r.stdout;
}

export interface SystemUser { name: string; uid: number; gid: number }

/**
 * uid/gid of a system account, created when missing (root only). Servers such
 * as PostgreSQL refuse to run as root, so as root we drop to a dedicated user.
 */
export function ensureSystemUser(name: string, log: Log = noLog): SystemUser {
  const lookup = (): SystemUser | undefined => {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const found = lookup();
  if (found) return found;
  log(`creating system user ${name}`);
  const r = spawnSync('useradd', ['-r', '-M', '-s', '/bin/false', name], { encoding: 'utf8' });
  const created = lookup();
  if (!created) throw new Error(`could not create system user '${name}': ${r.stderr || r.error?.message || ''}`.trim());
  return created;
}

export function chownR(target: string, user: SystemUser): void {
  const st = fs.lstatSync(target);
  fs.lchownSync(target, user.uid, user.gid);
  if (st.isDirectory()) for (const e of fs.readdirSync(target)) chownR(path.join(target, e), user);
}

/** Run a `test` expression on `target` as `user`: every ancestor directory counts, as for the server itself. */
function testAs(user: SystemUser, expr: string, target: string): boolean {
  const r = spawnSync('/bin/sh', ['-c', expr, target], { uid: user.uid, gid: user.gid, cwd: '/' });
  return r.status === 0;
}

/** Can `user` create files in `dir`? Catches e.g. a 0700 parent owned by root. */
export function userCanWrite(dir: string, user: SystemUser): boolean {
  return testAs(user, 'test -w "$0" && test -x "$0"', dir);
}

/** Can `user` search `target` (a directory) or run it (a file)? False inside e.g. a 0700 mkdtemp() dir or /root. */
export function userCanReach(target: string, user: SystemUser): boolean {
  return testAs(user, 'test -x "$0"', target);
}

/**
 * mkdir -p. Directories it creates get `mode` exactly (whatever the umask)
 * when one is given; directories that already exist are never changed.
 */
export function mkdirp(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: mode ?? 0o755 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // made meanwhile by someone else
      throw err;
    }
    if (mode !== undefined) fs.chmodSync(d, mode); // ours, just made
  }
}

/** Nearest existing directory at or above `dir`. */
function existingAncestor(dir: string): string {
  let d = path.resolve(dir);
  while (!fs.existsSync(d) && d !== path.dirname(d)) d = path.dirname(d);
  return d;
}

/**
 * Where persistent server data goes when its user cannot reach the requested
 * directory (e.g. a clone under /root): root-owned 0755 parents, nothing of
 * the user's own touched.
 */
const SERVER_DATA_BASE = '/var/lib/inventory';

/** First of os.tmpdir() and /tmp that `user` can reach. */
export function reachableTmpDir(user: SystemUser): string {
  const found = [os.tmpdir(), '/tmp'].find((d) => fs.existsSync(d) && userCanReach(d, user));
  if (!found) throw new Error(`user '${user.name}' can reach neither ${os.tmpdir()} nor /tmp`);
  return found;
}

/** Make `dir` (if needed) and hand it to `user`; false when `user` still cannot write in it. */
function prepareFor(dir: string, user: SystemUser, mode?: number): boolean {
  mkdirp(dir, mode);
  if (fs.statSync(dir).uid !== user.uid) chownR(dir, user);
  return userCanWrite(dir, user);
}

/**
 * The server's data directory: the given one kept between runs (persistent),
 * or a fresh temporary one (below `dataDir` when given) that `remove` deletes.
 *
 * With `user` (we are root and the server runs as that user) the directory is
 * one `user` can reach and owns. Permissions of existing directories are
 * never changed: when the requested place sits behind a directory `user`
 * cannot search (a 0700 mkdtemp() dir, /root, ...), the data goes elsewhere:
 * temporary data under the temp dir, persistent data under SERVER_DATA_BASE
 * in a directory named after the requested path (so the same one is used on
 * every run).
 */
export function dataRoot(
  opts: { dataDir?: string; persistent?: boolean },
  name: string,
  user?: SystemUser,
  log: Log = noLog,
): { root: string; remove: () => void } {
  let root: string;
  if (opts.persistent) {
    const requested = path.resolve(opts.dataDir ?? path.join(process.cwd(), '.data', name));
    if (!user) {
      mkdirp(requested);
      root = requested;
    } else if (userCanReach(existingAncestor(path.dirname(requested)), user) && prepareFor(requested, user)) {
      root = requested;
    } else {
      const digest = crypto.createHash('sha256').update(requested).digest('hex').slice(0, 12);
      root = path.join(SERVER_DATA_BASE, `${name}-${digest}`);
      if (!prepareFor(root, user, 0o755)) {
        throw new Error(`user '${user.name}' can reach neither ${requested} nor ${root}; choose another dataDir`);
      }
      fs.writeFileSync(path.join(root, 'REQUESTED_PATH'), `${requested}\n`); // which clone this belongs to
      log(`${name}: user '${user.name}' cannot reach ${requested} (a parent directory is private), so the data lives in ${root}`);
    }
  } else {
    let parent = opts.dataDir ? path.resolve(opts.dataDir) : os.tmpdir();
    mkdirp(parent);
    if (user && !userCanReach(parent, user)) {
      const alt = reachableTmpDir(user);
      log(`${name}: user '${user.name}' cannot reach ${parent}, so the temporary data goes under ${alt}`);
      parent = alt;
    }
    root = fs.mkdtempSync(path.join(parent, `inventory-${name}-`));
    if (user && !prepareFor(root, user)) throw new Error(`user '${user.name}' cannot write to ${root}`);
  }
  return { root, remove: () => (opts.persistent ? undefined : fs.rmSync(root, { recursive: true, force: true })) };
}

/** Last `n` lines of a file, '' if it cannot be read. */
export function tail(file: string, n = 30): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-n).join('\n');
  } catch {
    return '';
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signal a whole process group (our servers are spawned detached, so pgid === pid). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/** Poll a pid we did not spawn (e.g. a server left over from a previous run). */
export async function waitForPidExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await sleep(100);
  }
  return !pidAlive(pid);
}

/** Does /proc/<pid>/cmdline mention `needle`? Guards against pid reuse for stale pid files. */
export function pidRuns(pid: number, needle: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
  } catch {
    return pidAlive(pid); // no /proc (macOS): trust the pid
  }
}

/** Graceful stop with escalation: signal, wait, then SIGKILL the whole group. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(child.pid, signal);
    } catch {
      /* gone */
    }
    if (!(await waitForExit(child, graceMs))) {
      killGroup(child.pid, 'SIGKILL');
      await waitForExit(child, 5000);
    }
  }
  // Stragglers left in the group (helpers of the server) go too.
  killGroup(child.pid, 'SIGKILL');
}

export interface Managed {
  /** Synchronous, best-effort cleanup for process exit. */
  onExit(): void;
}

const managed = new Set<Managed>();
let exitHookInstalled = false;

/**
 * Track a started server so that, if the Node process exits without calling
 * stop(), it is not left running as an orphan.
 */
export function track(m: Managed): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const x of managed) {
        try {
          x.onExit();
        } catch {
          /* best effort */
        }
      }
    });
  }
  managed.add(m);
  return () => managed.delete(m);
}

/** Spawn a long-running server in its own process group with output appended to `logFile`. */
export function spawnServer(
  cmd: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; logFile: string; user?: SystemUser },
): ChildProcess {
  const fd = fs.openSync(opts.logFile, 'a');
  try {
    if (opts.user) fs.fchownSync(fd, opts.user.uid, opts.user.gid);
    // A file (not a pipe) for output: helpers that outlive the server
    // (e.g. epmd) would otherwise hold our pipe open forever.
    const child = spawn(cmd, args, {
      env: opts.env,
      cwd: opts.cwd,
      detached: true, // own process group, so stop() can take down helpers too
      stdio: ['ignore', fd, fd],
      uid: opts.user?.uid,
      gid: opts.user?.gid,
    });
    child.on('error', () => undefined); // surfaced via exit/readiness checks
    child.unref();
    return child;
  } finally {
    fs.closeSync(fd);
  }
}

/** process.env without variables that would redirect the servers we start. */
export function cleanEnv(dropPrefixes: string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!dropPrefixes.some((p) => k.startsWith(p))) env[k] = v;
  }
  return env;
}
