import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BaseConfig, RunningServer } from '@inventory/core';
import type { Startable } from './stack';

const ROOT = path.resolve(__dirname, '../../..');
const REGISTER = path.join(__dirname, 'ts-register.js');

/** One service running as a process of its own (its `src/main.ts`, no build), started by a `ServiceProcessFactory`. */
export interface ServiceProcess extends Startable {
  readonly pid: number | undefined;
  /** What it printed on stderr (its last 20 kB). */
  readonly stderr: () => string;
  /** What it printed on stdout, its log lines (its last 100 kB). */
  readonly stdout: () => string;
  /** Its exit code or signal once it ended (null while it runs). */
  readonly exited: () => string | null;
  /** Ends it at once with no shutdown of any kind (a crash, an OOM kill): SIGKILL, then waits for it to be gone. */
  kill(): Promise<void>;
}

export interface ServiceProcessFactory {
  (config: BaseConfig): ServiceProcess;
  /** The process the stack started last (the running one). */
  current(): ServiceProcess | null;
}

/**
 * A `bootStack` factory that runs service `name` as deployed, a separate
 * Node process, with the stack's configuration (plus `env`) in its
 * environment: so a test may SIGKILL it mid-work and start another, and
 * whatever the service does (an unhandled error included) stays in that
 * process. The TypeScript sources run as they are (ts-register.js).
 */
export function serviceProcess(name: string, env: Record<string, string> = {}, opts: { readyTimeoutMs?: number } = {}): ServiceProcessFactory {
  let last: ServiceProcess | null = null;
  const main = ['services', 'libs'].map((dir) => path.join(ROOT, dir, name, 'src', 'main.ts')).find((f) => fs.existsSync(f));
  if (!main) throw new Error(`serviceProcess: no src/main.ts for ${name}`);
  const factory = (config: BaseConfig): ServiceProcess => {
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(config)) if (v !== undefined && v !== null) vars[k] = String(v);
    let child: ChildProcess | null = null;
    let errors = '';
    let output = '';
    let ended: string | null = null;
    let gone: Promise<void> = Promise.resolve();
    const proc: ServiceProcess = {
      get pid() {
        return child?.pid;
      },
      stderr: () => errors,
      stdout: () => output,
      exited: () => ended,
      async start(port?: number): Promise<RunningServer> {
        const p = port ?? config.PORT;
        child = spawn(process.execPath, ['-r', REGISTER, main], {
          cwd: ROOT,
          env: { ...process.env, ...vars, ...env, PORT: String(p), LOG_LEVEL: env.LOG_LEVEL ?? vars.LOG_LEVEL ?? 'silent', INVENTORY_EXIT_WITH_PARENT: '1' },
          // the IPC channel only tells it when this process is gone
          stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        });
        const c = child;
        c.stderr?.on('data', (d: Buffer) => (errors = (errors + d.toString('utf8')).slice(-20_000)));
        c.stdout?.on('data', (d: Buffer) => (output = (output + d.toString('utf8')).slice(-100_000)));
        gone = new Promise((resolve) => c.once('exit', (code, signal) => ((ended = signal ?? `exit ${code}`), resolve())));
        // ready: its HTTP server answers and its broker and database are reachable
        const wait = opts.readyTimeoutMs ?? 60_000;
        const deadline = Date.now() + wait;
        for (;;) {
          if (ended) throw new Error(`${name} (pid ${c.pid}) ended while starting (${ended}):\n${errors}`);
          const ok = await fetch(`http://127.0.0.1:${p}/readyz`).then((r) => r.ok, () => false);
          if (ok) break;
          if (Date.now() > deadline) throw new Error(`${name} (pid ${c.pid}) not ready after ${wait / 1000} s:\n${errors}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        last = proc;
        // the server is in the other process: what a caller may use of it is its port, URL and close
        return { port: p, url: `http://127.0.0.1:${p}`, close: () => proc.stop() } as unknown as RunningServer;
      },
      async stop(): Promise<void> {
        if (!child || ended) return;
        const c = child;
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
        await gone;
        clearTimeout(timer);
      },
      async kill(): Promise<void> {
        if (!child || ended) return;
        child.kill('SIGKILL');
        await gone;
      },
    };
    return proc;
  };
  return Object.assign(factory, { current: () => last });
}
