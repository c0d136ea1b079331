/** Background work of a service (consumers, timers): started once it listens, stopped once its HTTP server has drained. */
export interface Worker {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/**
 * Background work run once at start and then every `everyMs` while the
 * service runs (retention, sweeps of leftovers), as a service's worker. The
 * task handles its own errors (a failed run is logged and tried again at
 * the next tick); the timer never keeps the process alive.
 */
export function periodic(task: () => Promise<void>, everyMs: number): Worker {
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      if (timer) return;
      void task();
      timer = setInterval(() => void task(), everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
