import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { dockerAvailable } from './docker';
import { canConnect, freePort } from './net';
import {
  chownR,
  cleanEnv,
  dataRoot, ensureSystemUser, isRoot, killGroup, mkdirp, noLog, pidAlive, pidRuns, runOk, sleep,
  spawnServer, stopChild, tail, track, waitForPidExit, which, type Log, type SystemUser,
} from './process';

export interface RunningRabbit {
  /** amqp://user:pass@127.0.0.1:port */
  url: string;
  managementUrl?: string;
  kind: 'external' | 'docker' | 'local';
  /** Where a local broker keeps its data (which may differ from the dataDir asked for). */
  dataDir?: string;
  /** The extra virtual hosts asked for (`vhosts`) that exist: reach one as `${url}/${encodeURIComponent(name)}`. */
  vhosts?: string[];
  stop(): Promise<void>;
}

export interface RabbitOptions {
  /** Persistent: the data directory. Otherwise: parent of the temp dir (default os.tmpdir()). */
  dataDir?: string;
  /** 0 or undefined = pick a free port */
  port?: number;
  persistent?: boolean;
  prefer?: ('docker' | 'local')[];
  /** As root, apt-get install rabbitmq-server when it is missing (default true). */
  installIfMissing?: boolean;
  /**
   * Local broker: extra virtual hosts created at boot, each open to the broker's user
   * (tests give each suite its own, so one broker serves a whole run without cross-talk).
   */
  vhosts?: string[];
  log?: (msg: string) => void;
}

const READY_TIMEOUT_MS = 90_000;
const DOCKER_USER = 'inventory';
const DOCKER_PASSWORD = 'inventory';

export async function startRabbitMQ(opts: RabbitOptions = {}): Promise<RunningRabbit> {
  const log = opts.log ?? noLog;
  // An explicitly configured broker always wins: start nothing.
  if (process.env.AMQP_URL) {
    return { url: process.env.AMQP_URL, kind: 'external', stop: async () => undefined };
  }
  const failures: string[] = [];
  for (const kind of opts.prefer ?? ['docker', 'local']) {
    try {
      if (kind === 'docker') {
        if (!(await dockerAvailable())) {
          failures.push('docker: no Docker engine answers');
          continue;
        }
        return await startDocker(opts, log);
      }
      return await startLocal(opts, log);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      log(`rabbitmq (${kind}) failed: ${msg}`);
      failures.push(`${kind}: ${msg}`);
    }
  }
  throw new Error(`could not start RabbitMQ\n${failures.join('\n')}`);
}

/**
 * AMQP 0-9-1 handshake: send the protocol header and expect Connection.Start
 * (method frame on channel 0, class 10, method 10). Unlike a bare TCP connect
 * this proves the broker itself is serving.
 */
export function amqpHandshake(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const sock = net.connect({ port, host });
    const done = (ok: boolean): void => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('error', () => done(false));
    sock.once('close', () => done(false));
    sock.once('connect', () => sock.write(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 11) {
        done(buf[0] === 1 && buf.readUInt16BE(1) === 0 && buf.readUInt16BE(7) === 10 && buf.readUInt16BE(9) === 10);
      }
    });
  });
}

interface RabbitInstall { server: string; epmd?: string }

function findRabbit(): RabbitInstall | undefined {
  const found = which('rabbitmq-server', ['/usr/sbin', '/usr/local/sbin', '/usr/lib/rabbitmq/bin']);
  if (!found) return undefined;
  const real = fs.realpathSync(found);
  // Debian's /usr/sbin/rabbitmq-server is a wrapper that su's to `rabbitmq`,
  // cds to /var/lib/rabbitmq and resets HOME (so our cookie would be ignored);
  // the real script sits next to it.
  const server = path.basename(real) === 'rabbitmq-script-wrapper' ? path.join(path.dirname(real), 'rabbitmq-server') : real;
  return { server, epmd: which('epmd', ['/usr/lib/erlang/bin']) };
}

async function installRabbit(opts: RabbitOptions, log: Log): Promise<RabbitInstall> {
  const found = findRabbit();
  if (found) return found;
  const hint = 'RabbitMQ is not installed (no rabbitmq-server found). Install it with ' +
    '`sudo apt-get install rabbitmq-server` (Debian/Ubuntu; elsewhere the rabbitmq-server package), ' +
    'or set AMQP_URL to a running broker (amqp://user:password@host:5672)';
  if (opts.installIfMissing === false || !which('apt-get')) throw new Error(hint);
  // Only root can install packages: say why nothing was installed for us.
  if (!isRoot()) throw new Error(`${hint}. It is installed automatically only when running as root.`);
  log('rabbitmq-server not found: installing it with apt-get (this takes a minute)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runOk('apt-get', ['update'], { env, timeoutMs: 600_000 });
  await runOk('apt-get', ['install', '-y', '--no-install-recommends', 'rabbitmq-server'], { env, timeoutMs: 900_000 });
  const installed = findRabbit();
  if (!installed) throw new Error(`apt-get installed rabbitmq-server but it cannot be found. ${hint}`);
  return installed;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A node (and its epmd) left over from a crashed quick start would clash with the fixed node name. */
async function stopLeftover(root: string, log: Log): Promise<void> {
  for (const [file, needle, signal] of [
    [path.join(root, 'rabbitmq.pid'), 'beam', 'SIGTERM'],
    [path.join(root, 'epmd.pid'), 'epmd', 'SIGTERM'],
  ] as const) {
    const pid = readPid(file);
    if (pid && pidAlive(pid) && pidRuns(pid, needle)) {
      log(`rabbitmq: stopping ${needle} left running from a previous run (pid ${pid})`);
      process.kill(pid, signal);
      if (!(await waitForPidExit(pid, 30_000))) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(file, { force: true });
  }
}

async function startLocal(opts: RabbitOptions, log: Log): Promise<RunningRabbit> {
  const install = await installRabbit(opts, log);
  const persistent = !!opts.persistent;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNode(install, opts, persistent, log);
    } catch (err) {
      // Another process grabbed one of our ports before the broker bound it.
      const retry = !opts.port && attempt < 3 && /eaddrinuse|address already in use/i.test((err as Error).message);
      if (!retry) throw err;
      log(`rabbitmq: port clash, retrying (${(err as Error).message.split('\n')[0]})`);
    }
  }
}

async function startNode(install: RabbitInstall, opts: RabbitOptions, persistent: boolean, log: Log): Promise<RunningRabbit> {
  // As root the Debian scripts would switch to `rabbitmq`; we run as that
  // user ourselves, so everything it touches must belong to it and sit where
  // it can reach (dataRoot() picks such a place rather than opening up ours).
  const user: SystemUser | undefined = isRoot() ? ensureSystemUser('rabbitmq', log) : undefined;
  const { root, remove: removeRoot } = dataRoot({ dataDir: opts.dataDir, persistent }, 'rabbitmq', user, log);
  let server: ChildProcess | undefined;
  let epmd: ChildProcess | undefined;
  const logFile = path.join(root, 'server.log');
  const brokerLog = path.join(root, 'log', 'rabbit.log');
  try {
    if (persistent) await stopLeftover(root, log);

    const port = opts.port || (await freePort());
    const ports = { port, dist: await freePort(), epmd: await freePort() };
    // Mnesia data lives under the node name, so a persistent broker needs a stable one.
    const node = persistent ? 'inventory@localhost' : `inv${port}@localhost`;
    writeNodeFiles(root, opts, persistent);
    if (user) chownR(root, user);
    const env = nodeEnv(root, node, ports, brokerLog);

    const t0 = Date.now();
    fs.appendFileSync(logFile, `--- ${new Date().toISOString()} starting node ${node} on port ${port}\n`);
    if (user) fs.chownSync(logFile, user.uid, user.gid);

    // We start epmd ourselves, as our child, so stop() can end it: one that
    // erl starts daemonises and would outlive every test run.
    if (install.epmd) epmd = await startEpmd(install.epmd, ports.epmd, env, root, user);

    const logOffset = fileSize(brokerLog);
    server = spawnServer(install.server, [], { env, cwd: root, logFile, user });
    const srv = server;
    await waitBooted(port, brokerLog, logOffset, () => srv.exitCode !== null || srv.signalCode !== null || srv.pid === undefined)
      .catch((err: Error) => {
        throw new Error(
          `RabbitMQ did not start: ${err.message}\n--- ${logFile} (last lines) ---\n${tail(logFile)}\n` +
            `--- ${brokerLog} (last lines) ---\n${tail(brokerLog)}`,
        );
      });
    log(`rabbitmq (local) node ${node} ready on port ${port} in ${Date.now() - t0} ms, data in ${root}`);
    return nodeHandle({ server: srv, epmd, node, port, root, opts, persistent, removeRoot, log });
  } catch (err) {
    if (server) await stopChild(server, 'SIGTERM', 10_000);
    if (epmd) await stopChild(epmd, 'SIGTERM', 2_000);
    removeRoot();
    throw err;
  }
}

/** The node's configuration files in its data directory, and its own Erlang cookie. */
function writeNodeFiles(root: string, opts: RabbitOptions, persistent: boolean): void {
  mkdirp(path.join(root, 'mnesia'));
  mkdirp(path.join(root, 'log'));
  fs.writeFileSync(path.join(root, 'enabled_plugins'), '[].\n'); // no plugins: faster boot
  fs.writeFileSync(path.join(root, 'rabbitmq-env.conf'), ''); // shadows /etc/rabbitmq/rabbitmq-env.conf
  const definitions = opts.vhosts?.length ? path.join(root, 'definitions.json') : undefined;
  if (definitions) fs.writeFileSync(definitions, JSON.stringify(vhostDefinitions(opts.vhosts ?? [])));
  fs.writeFileSync(
    path.join(root, 'rabbitmq.conf'),
    [
      '# written by @inventory/infra',
      'loopback_users.guest = true', // guest:guest, loopback only
      'disk_free_limit.absolute = 50MB', // the default alarm blocks publishers on small CI disks
      'log.console = false',
      'log.file.level = info',
      ...(definitions ? [`load_definitions = ${definitions}`] : []),
      '',
    ].join('\n'),
  );
  // A throwaway broker (as PostgreSQL's fsync=off): quorum queues' write-ahead log is not synced to disk at
  // every batch (a publish's confirm waits for that sync, a few ms each on a busy disk); a persistent one syncs
  if (!persistent) fs.writeFileSync(path.join(root, 'advanced.config'), '[{ra, [{wal_sync_method, none}]}].\n');
  // Our own cookie (HOME is the data dir), so no other node or CLI shares it.
  const cookie = path.join(root, '.erlang.cookie');
  if (!fs.existsSync(cookie)) {
    fs.writeFileSync(cookie, crypto.randomBytes(16).toString('hex').toUpperCase(), { mode: 0o400 });
  }
  fs.chmodSync(cookie, 0o400); // Erlang refuses cookies readable by others
}

/** The node's environment: its own ports, files and epmd, nothing inherited that points at another node. */
function nodeEnv(root: string, node: string, ports: { port: number; dist: number; epmd: number }, brokerLog: string): NodeJS.ProcessEnv {
  return {
    // Inherited RABBITMQ_*/ERL_* settings would point at someone else's node.
    ...cleanEnv(['RABBITMQ_', 'ERL_']),
    HOME: root,
    LC_ALL: 'C.UTF-8',
    LANG: 'C.UTF-8',
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(ports.port),
    // Default is NODE_PORT + 20000, which overflows for high random ports.
    RABBITMQ_DIST_PORT: String(ports.dist),
    RABBITMQ_MNESIA_BASE: path.join(root, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(root, 'log'),
    RABBITMQ_LOGS: brokerLog,
    RABBITMQ_CONFIG_FILE: path.join(root, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(root, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(root, 'enabled_plugins'),
    RABBITMQ_CONF_ENV_FILE: path.join(root, 'rabbitmq-env.conf'),
    RABBITMQ_PID_FILE: path.join(root, 'rabbitmq.pid'),
    // Keep Erlang distribution on loopback too.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    // A private epmd (see below) instead of the machine-wide one on 4369.
    ERL_EPMD_PORT: String(ports.epmd),
  };
}

/** A private epmd on `port`, listening before the node starts. */
async function startEpmd(bin: string, port: number, env: NodeJS.ProcessEnv, root: string, user: SystemUser | undefined): Promise<ChildProcess> {
  const epmd = spawnServer(bin, ['-port', String(port), '-address', '127.0.0.1'], { env, cwd: root, logFile: path.join(root, 'epmd.log'), user });
  if (epmd.pid) fs.writeFileSync(path.join(root, 'epmd.pid'), String(epmd.pid));
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline || epmd.exitCode !== null) {
      await stopChild(epmd, 'SIGTERM', 2_000);
      throw new Error(`epmd did not start (eaddrinuse?)\n${tail(path.join(root, 'epmd.log'))}`);
    }
    await sleep(50);
  }
  return epmd;
}

/** The running node: its URL, and a stop that ends it (and its epmd) however the process exits. */
function nodeHandle(n: {
  server: ChildProcess;
  epmd: ChildProcess | undefined;
  node: string;
  port: number;
  root: string;
  opts: RabbitOptions;
  persistent: boolean;
  removeRoot: () => void;
  log: Log;
}): RunningRabbit {
  const { server, epmd, node, port, root, opts, persistent, removeRoot, log } = n;
  const serverPid = server.pid as number;
  const untrack = track({
    onExit: () => {
      // Persistent: TERM lets the broker shut down cleanly after we are gone.
      const signal = persistent ? 'SIGTERM' : 'SIGKILL';
      killGroup(serverPid, signal);
      if (epmd?.pid) killGroup(epmd.pid, signal);
      removeRoot();
    },
  });
  let stopping: Promise<void> | undefined;
  return {
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    kind: 'local',
    dataDir: root,
    vhosts: opts.vhosts?.length ? [...opts.vhosts] : undefined,
    stop: () =>
      (stopping ??= (async () => {
        untrack();
        const s0 = Date.now();
        // rabbitmq-server traps SIGTERM and runs an orderly broker shutdown.
        await stopChild(server, 'SIGTERM', 30_000);
        if (epmd) await stopChild(epmd, 'SIGTERM', 5_000);
        removeRoot();
        log(`rabbitmq (local) node ${node} stopped in ${Date.now() - s0} ms`);
      })()),
  };
}

/**
 * Definitions imported at boot: the default vhost and user (an import replaces
 * their seeding) plus the extra vhosts, guest having full rights on each.
 */
function vhostDefinitions(vhosts: string[]): object {
  // rabbit_password_hashing_sha256: base64(salt ++ sha256(salt ++ password)), 4-byte salt
  const salt = crypto.randomBytes(4);
  const hash = crypto.createHash('sha256').update(Buffer.concat([salt, Buffer.from('guest')])).digest();
  const all = ['/', ...vhosts.filter((v) => v !== '/')];
  return {
    users: [{ name: 'guest', password_hash: Buffer.concat([salt, hash]).toString('base64'), hashing_algorithm: 'rabbit_password_hashing_sha256', tags: ['administrator'] }],
    vhosts: all.map((name) => ({ name })),
    permissions: all.map((vhost) => ({ user: 'guest', vhost, configure: '.*', write: '.*', read: '.*' })),
  };
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number): string {
  try {
    const buf = fs.readFileSync(file);
    return buf.subarray(Math.min(offset, buf.length)).toString('utf8');
  } catch {
    return '';
  }
}

/**
 * Ready = the broker logged the end of its boot sequence and answers an AMQP
 * handshake (listeners open before the last boot steps have run).
 */
async function waitBooted(port: number, brokerLog: string, offset: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited()) throw new Error('rabbitmq-server exited during startup');
    if (/Server startup complete/.test(readFrom(brokerLog, offset)) && (await amqpHandshake(port))) return;
    if (Date.now() > deadline) throw new Error(`not ready after ${READY_TIMEOUT_MS} ms`);
    await sleep(200);
  }
}

async function startDocker(opts: RabbitOptions, log: Log): Promise<RunningRabbit> {
  // Loaded lazily: testcontainers is only needed when an engine is there.
  const { GenericContainer, Wait } = await import('testcontainers');
  const t0 = Date.now();
  let container = new GenericContainer('rabbitmq:3.13-management-alpine')
    // guest is loopback-only and the port mapping is not loopback inside the container.
    .withEnvironment({ RABBITMQ_DEFAULT_USER: DOCKER_USER, RABBITMQ_DEFAULT_PASS: DOCKER_PASSWORD })
    .withExposedPorts(opts.port ? { container: 5672, host: opts.port } : 5672, 15672)
    .withWaitStrategy(Wait.forAll([Wait.forLogMessage(/Server startup complete/), Wait.forListeningPorts()]))
    .withStartupTimeout(120_000);
  if (opts.persistent) {
    const dir = path.resolve(opts.dataDir ?? path.join(process.cwd(), '.data', 'rabbitmq'), 'docker-data');
    mkdirp(dir);
    // Mnesia is keyed by node name, which derives from the hostname: keep it fixed.
    container = container
      .withHostname('inventory-rabbitmq')
      .withBindMounts([{ source: dir, target: '/var/lib/rabbitmq', mode: 'rw' }]);
  }
  const started = await container.start();
  const host = started.getHost();
  const port = started.getMappedPort(5672);
  log(`rabbitmq (docker) ready at ${host}:${port} in ${Date.now() - t0} ms`);
  let stopping: Promise<void> | undefined;
  // No exit hook needed: testcontainers' reaper removes the container if we die.
  return {
    url: `amqp://${DOCKER_USER}:${DOCKER_PASSWORD}@${host}:${port}`,
    managementUrl: `http://${host}:${started.getMappedPort(15672)}`,
    kind: 'docker',
    stop: () => (stopping ??= started.stop().then(() => undefined)),
  };
}
