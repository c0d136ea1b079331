import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DataSourceSettings } from '../config';
import { checkSourceUrl, ignored, isBelow, localPathOf, schemeOf } from './policy';

/** A sync that cannot go on: its message is the job's error. */
export class SyncError extends Error {}

/** The error of a sync its service stopped. */
export const INTERRUPTED = 'The sync was interrupted (the service stopped).';

/** One file a sync found: its path relative to the root (`/`-separated) and where to read it. */
export interface FoundFile {
  path: string;
  real: string;
  size: number;
}

/** The folder a sync reads, and what to do once it is read. */
export interface Fetched {
  root: string;
  cleanup(): Promise<void>;
}

export interface SourceRow {
  id: number;
  name: string;
  type: string;
  source_url: string;
  parameters: Record<string, unknown> | null;
  ignore_rules: string;
}

/**
 * The folder holding a source's files (NetBox's backend `fetch`): a local
 * source's own folder, checked again against the settings with every link
 * resolved (its real path must still be below an allowed root); a git
 * source's shallow clone in a temporary folder (removed by `cleanup`).
 */
export async function fetchSource(source: SourceRow, settings: DataSourceSettings, signal?: AbortSignal): Promise<Fetched> {
  const refused = checkSourceUrl(source.type, source.source_url, settings);
  if (refused) throw new SyncError(refused);
  if (source.type === 'local') {
    const named = localPathOf(source.source_url)!;
    const real = await fs.realpath(named).catch(() => {
      throw new SyncError(`The folder ${named} does not exist.`);
    });
    const roots = await Promise.all(settings.localRoots.map((r) => fs.realpath(r).catch(() => null)));
    if (!roots.some((r) => r !== null && isBelow(real, r))) throw new SyncError(`The folder ${named} resolves to ${real}, which is not below a folder allowed by DATA_SOURCE_LOCAL_ROOTS.`);
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) throw new SyncError(`${named} is not a folder.`);
    return { root: real, cleanup: async () => undefined };
  }
  if (source.type === 'git') return cloneGit(source, settings, signal);
  throw new SyncError(`Unknown backend type: ${source.type}`);
}

/** The system's own variables git is given as they are (where to find programs, the proxies); none of this service's settings. */
const PASSED_THROUGH = ['PATH', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'];

/** Only the environment git needs: no secret of this process reaches it, no user or system config is read. */
function gitEnv(home: string, settings: DataSourceSettings, extra: Record<string, string>): NodeJS.ProcessEnv {
  const system: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) system[name] = value;
  }
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    ...system,
    HOME: home,
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // the protocols git itself may use, redirects and submodules included
    GIT_ALLOW_PROTOCOL: settings.gitSchemes.join(':'),
    // ssh (when allowed) never asks anything either
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    ...extra,
  };
}

const CLONE_PREFIX = 'inventory-git-';

/** Clone folders a process that went away left behind (older than `olderThanMs`: no clone runs that long). */
export async function sweepClones(olderThanMs: number): Promise<void> {
  const dir = os.tmpdir();
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(CLONE_PREFIX));
  for (const name of names) {
    const full = path.join(dir, name);
    const stat = await fs.lstat(full).catch(() => null);
    if (stat?.isDirectory() && Date.now() - stat.mtimeMs > olderThanMs) await fs.rm(full, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function cloneGit(source: SourceRow, settings: DataSourceSettings, signal?: AbortSignal): Promise<Fetched> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), CLONE_PREFIX));
  const cleanup = () => fs.rm(tmp, { recursive: true, force: true });
  try {
    const params = source.parameters ?? {};
    const branch = typeof params.branch === 'string' && params.branch ? params.branch : null;
    const username = typeof params.username === 'string' ? params.username : '';
    const password = typeof params.password === 'string' ? params.password : '';
    const extra: Record<string, string> = {};
    // credentials (HTTP(S) only, as NetBox): answered by an askpass script from the environment, never on a command line
    if (username && ['http', 'https'].includes(schemeOf(source.source_url))) {
      const askpass = path.join(tmp, 'askpass.sh');
      await fs.writeFile(askpass, '#!/bin/sh\ncase "$1" in\n  Username*) printf \'%s\\n\' "$INVENTORY_GIT_USERNAME" ;;\n  *) printf \'%s\\n\' "$INVENTORY_GIT_PASSWORD" ;;\nesac\n', { mode: 0o700 });
      Object.assign(extra, { GIT_ASKPASS: askpass, INVENTORY_GIT_USERNAME: username, INVENTORY_GIT_PASSWORD: password });
    }
    const dest = path.join(tmp, 'repo');
    const args = ['-c', 'credential.helper=', '-c', 'core.hooksPath=/dev/null', 'clone', '--quiet', '--depth', '1', '--single-branch', ...(branch ? ['--branch', branch] : []), '--', source.source_url, dest];
    await new Promise<void>((resolve, reject) => {
      execFile('git', args, { env: gitEnv(tmp, settings, extra), timeout: settings.gitTimeoutMs, maxBuffer: 1024 * 1024, cwd: tmp, signal }, (err, _stdout, stderr) => {
        if (!err) return resolve();
        if (signal?.aborted) return reject(new SyncError(INTERRUPTED));
        const why = (err as NodeJS.ErrnoException & { killed?: boolean }).killed ? `timed out after ${settings.gitTimeoutMs / 1000} s` : String(stderr).trim().split('\n').pop() || err.message;
        reject(new SyncError(`Fetching remote data failed (git clone): ${why}`));
      });
    });
    return { root: await fs.realpath(dest), cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The files below `root` a sync reads (NetBox's `_walk`): folders whose
 * name starts with a dot are skipped (`.git`), so are the names the ignore
 * rules match. A symbolic link is read only when it is a file whose real
 * path is inside `root`: a link out of it, or to a folder, is not followed.
 * More than `maxFiles` files, or one larger than `maxFileSize`, fails the sync.
 */
export async function walk(root: string, rules: string, settings: DataSourceSettings, signal?: AbortSignal): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  const visit = async (dir: string, rel: string): Promise<void> => {
    if (signal?.aborted) throw new SyncError(INTERRUPTED);
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await visit(full, relPath);
        continue;
      }
      if (ignored(entry.name, rules)) continue;
      let real = full;
      if (entry.isSymbolicLink()) {
        const target = await fs.realpath(full).catch(() => null);
        if (!target || !isBelow(target, root)) continue;
        real = target;
      } else if (!entry.isFile()) continue;
      const stat = await fs.stat(real).catch(() => null);
      if (!stat?.isFile()) continue;
      if (stat.size > settings.maxFileSize) throw new SyncError(`${relPath} is larger than ${settings.maxFileSize} bytes (DATA_SOURCE_MAX_FILE_SIZE).`);
      found.push({ path: relPath, real, size: stat.size });
      if (found.length > settings.maxFiles) throw new SyncError(`The source holds more than ${settings.maxFiles} files (DATA_SOURCE_MAX_FILES).`);
    }
  };
  await visit(root, '');
  return found;
}

/**
 * A file's content and its SHA-256, read without blocking the event loop.
 * The file is opened without following a final link, and what was opened is
 * checked to be inside `root` (Linux: the descriptor's path), so a file
 * swapped for a link after the walk is not read either.
 */
export async function readFile(file: FoundFile, root: string, settings: DataSourceSettings): Promise<{ data: Buffer; hash: string }> {
  const handle = await fs.open(file.real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    throw new SyncError(`${file.path} could not be read (${err.code ?? err.message}).`);
  });
  try {
    const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => fs.realpath(file.real));
    if (!isBelow(opened, root)) throw new SyncError(`${file.path} is not inside the source's folder.`);
    const stat = await handle.stat();
    if (!stat.isFile()) throw new SyncError(`${file.path} is not a file.`);
    if (stat.size > settings.maxFileSize) throw new SyncError(`${file.path} is larger than ${settings.maxFileSize} bytes (DATA_SOURCE_MAX_FILE_SIZE).`);
    const data = await handle.readFile();
    if (data.length > settings.maxFileSize) throw new SyncError(`${file.path} is larger than ${settings.maxFileSize} bytes (DATA_SOURCE_MAX_FILE_SIZE).`);
    return { data, hash: createHash('sha256').update(data).digest('hex') };
  } finally {
    await handle.close();
  }
}
