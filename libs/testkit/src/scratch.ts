import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Where the run's throwaway PostgreSQL and RabbitMQ keep their data.
 *
 * Every test file clones a template database of ~5,000 relations (CREATE
 * DATABASE … TEMPLATE): on this project's ext4 disk that takes 2–3 s, on a
 * tmpfs 0.1–0.2 s, and every write of the run is cheaper there too. So the
 * data goes to memory (/dev/shm) when it has room for a whole run, and to the
 * temp dir otherwise (a container's 64 MB /dev/shm, a machine short of RAM).
 * `TEST_DATA_DIR` names the place outright.
 */
export const SCRATCH_MIN_FREE = 4 * 1024 ** 3;

const MEMORY = '/dev/shm';

/** The parent of the servers' temporary data directories (undefined: the temp dir). */
export function scratchDir(): string | undefined {
  if (process.env.TEST_DATA_DIR) return process.env.TEST_DATA_DIR;
  try {
    const s = fs.statfsSync(MEMORY);
    if (s.bavail * s.bsize < SCRATCH_MIN_FREE) return undefined;
    fs.accessSync(MEMORY, fs.constants.W_OK);
    clearLeftovers(MEMORY);
    return MEMORY;
  } catch {
    return undefined;
  }
}

/** An interrupted run's data would hold memory until reboot: servers' directories whose server is gone are removed. */
function clearLeftovers(dir: string): void {
  const hour = 3_600_000;
  for (const name of fs.readdirSync(dir)) {
    if (!/^inventory-(postgres|rabbitmq)-/.test(name)) continue;
    const root = path.join(dir, name);
    try {
      if (Date.now() - fs.statSync(root).mtimeMs < hour) continue; // may be another run's, starting or running
      if (['pgdata/postmaster.pid', 'rabbitmq.pid'].some((f) => running(path.join(root, f)))) continue;
      fs.rmSync(root, { recursive: true, force: true });
    } catch {
      /* another run removed it first, or it is not ours to remove */
    }
  }
}

/** Whether the pid in a server's pid file is alive. */
function running(pidFile: string): boolean {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0].trim());
    if (!(pid > 0)) return false;
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}
