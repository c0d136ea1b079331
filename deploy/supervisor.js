'use strict';
/**
 * The quick start's process supervision: each service (and the gateway) is a
 * child process of its own, as the image and Kubernetes run them, so one
 * stall or crash does not take the others with it and every core is used.
 * A child that dies is started again (after 1 s, doubling up to 30 s while it
 * keeps dying young); stopping takes them down newest first, each given
 * SHUTDOWN_GRACE_MS to drain before it is killed. Their output is passed on,
 * each line prefixed with the child's name.
 */
const { fork } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const ENTRY = path.join(__dirname, 'quick-service.js');
const GRACE_MS = 15_000;
/** A child that lived this long before dying is restarted at the shortest delay again. */
const HEALTHY_MS = 60_000;

class Supervisor {
  constructor(log) {
    this.log = log;
    this.children = [];
    this.stopping = false;
  }

  /** Starts `name` with `env`; resolves with what it reported once it listens (rejects if it dies first). */
  start(name, env) {
    const child = { name, env, proc: null, delay: 1000, startedAt: 0 };
    this.children.push(child);
    return this.spawn(child);
  }

  spawn(child) {
    return new Promise((resolve, reject) => {
      const proc = fork(ENTRY, [child.name], { env: child.env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      child.proc = proc;
      child.startedAt = Date.now();
      prefixLines(proc.stdout, process.stdout, child.name);
      prefixLines(proc.stderr, process.stderr, child.name);
      let ready = false;
      proc.on('message', (m) => {
        if (!m || !m.ready || ready) return;
        ready = true;
        resolve(m);
      });
      proc.on('exit', (code, signal) => {
        if (!ready) return reject(new Error(`${child.name} exited before it was ready (${signal || `code ${code}`})`));
        if (this.stopping) return;
        this.restart(child, signal || `code ${code}`);
      });
    });
  }

  restart(child, how) {
    if (Date.now() - child.startedAt > HEALTHY_MS) child.delay = 1000;
    this.log.warn({ service: child.name, exit: how, restart_in_ms: child.delay }, 'service exited; restarting it');
    const delay = child.delay;
    child.delay = Math.min(child.delay * 2, 30_000);
    setTimeout(() => {
      if (this.stopping) return;
      this.spawn(child).then(
        () => this.log.info({ service: child.name }, 'service restarted'),
        (err) => this.log.error({ service: child.name, err: err.message }, 'service did not restart'),
      );
    }, delay).unref();
  }

  /** Stops every child, newest first (SIGTERM, then SIGKILL after the grace). */
  async stop() {
    this.stopping = true;
    for (const child of [...this.children].reverse()) {
      const proc = child.proc;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) continue;
      await new Promise((resolve) => {
        const kill = setTimeout(() => proc.kill('SIGKILL'), GRACE_MS);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      });
    }
  }

  /** The children's process ids, for a memory report. */
  pids() {
    return this.children.map((c) => c.proc && c.proc.pid).filter(Boolean);
  }
}

function prefixLines(from, to, name) {
  readline.createInterface({ input: from }).on('line', (line) => to.write(`${name.padEnd(14)} | ${line}\n`));
}

module.exports = { Supervisor };
