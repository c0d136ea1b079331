import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { TemplateRenderError } from './config';
import { DEFAULT_RENDER_LIMITS, type RenderLimits, type RenderReply, type RenderTask, TemplateLimitError } from './render-task';

/**
 * User-written templates (export templates, config templates, webhook URLs,
 * headers and bodies) render on worker threads, never on a service's event
 * loop: a template that loops for minutes holds one worker, not every
 * request of the process. A render that outlasts its time limit has its
 * worker terminated (a loop in liquid cannot be interrupted any other way);
 * one whose output passes the size limit is stopped by the worker.
 *
 * The pool holds no service's state: the limits come with each render, so
 * the services of one process (the tests) share it. Decision 030.
 */
interface Job {
  id: number;
  task: RenderTask;
  limits: RenderLimits;
  resolve: (reply: RenderReply) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded its modules (that time is not a render's). */
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/**
 * The worker's entry: compiled JavaScript beside this file or, when the
 * TypeScript sources run as they are (tests), the source through the loader
 * that runs them, which says where it is in `TS_REGISTER`.
 */
function spawn(): Worker {
  if (__filename.endsWith('.js')) return new Worker(path.join(__dirname, 'render-worker.js'));
  const register = process.env.TS_REGISTER;
  if (!register) throw new Error('render workers: the TypeScript sources run without TS_REGISTER (the loader for the worker): build, or set it');
  const entry = path.join(__dirname, 'render-worker.ts');
  return new Worker(`require(${JSON.stringify(register)}); require(${JSON.stringify(entry)});`, { eval: true });
}

export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private next = 1;

  constructor(private readonly size: number) {}

  /** Renders `task` on a worker within `limits`; the worker's own errors come back as a `RenderReply` with `ok: false`. */
  render(task: RenderTask, limits: RenderLimits): Promise<RenderReply> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.next++, task, limits, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates every worker (queued renders are refused). */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('the render pool was closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.retire(s, new Error('the render pool was closed'))));
  }

  private dispatch(): void {
    while (this.queue.length) {
      const slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) {
        // a worker still loading takes the next job when it is ready
        if (this.slots.length < this.size && !this.slots.some((s) => !s.ready)) this.open();
        return;
      }
      this.start(slot, this.queue.shift()!);
    }
  }

  private open(): Slot {
    const slot: Slot = { worker: spawn(), ready: false, job: null, timer: null };
    slot.worker.on('message', (reply: RenderReply | 'ready') => {
      if (reply !== 'ready') return this.finish(slot, reply);
      slot.ready = true;
      this.dispatch();
    });
    slot.worker.on('error', (err) => this.fail(slot, err));
    slot.worker.on('exit', () => this.fail(slot, new Error('the template worker stopped')));
    // an idle worker does not keep the process alive: after the listeners, for a 'message' listener refs the worker's port again
    slot.worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.timer = setTimeout(() => {
      const limit = new TemplateLimitError('time', `rendering took longer than the limit of ${job.limits.timeMs} ms (TEMPLATE_TIME_LIMIT_MS)`);
      void this.retire(slot, limit);
    }, job.limits.timeMs);
    slot.worker.postMessage({ id: job.id, task: job.task, outputChars: job.limits.outputChars });
  }

  private finish(slot: Slot, reply: RenderReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    this.clear(slot);
    job.resolve(reply);
    this.dispatch();
  }

  /** The worker died (or was terminated): its render fails with `err`, and the slot is dropped. */
  private fail(slot: Slot, err: Error): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const job = slot.job;
    this.clear(slot);
    if (job) job.reject(err);
    // a worker that could not even load fails what waits for it, rather than respawning forever
    else if (!slot.ready) for (const waiting of this.queue.splice(0)) waiting.reject(err);
    this.dispatch();
  }

  private async retire(slot: Slot, err: Error): Promise<void> {
    this.fail(slot, err);
    await slot.worker.terminate().catch(() => undefined);
  }

  private clear(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
  }
}

/** The process's pool: two workers, enough to keep one long render from queueing the next. */
let shared: RenderPool | null = null;
export function renderPool(): RenderPool {
  return (shared ??= new RenderPool(2));
}

/**
 * Renders a user's template off the event loop, within `limits`: its output,
 * or a `TemplateLimitError` (a limit passed) or `TemplateRenderError` (the
 * template failed, with the line Jinja would name).
 */
export async function renderTemplate(task: RenderTask, limits: RenderLimits = DEFAULT_RENDER_LIMITS): Promise<string> {
  const reply = await renderPool().render(task, limits);
  if (reply.ok) return reply.out;
  if (reply.name === 'TemplateLimitError') throw new TemplateLimitError('size', reply.message);
  throw new TemplateRenderError(reply.message, reply.line);
}
