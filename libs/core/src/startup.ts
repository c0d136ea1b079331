import type { Logger } from './logging';

/** A URL as it may be logged: scheme, host, port and path; never the user or the password. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** An error's message with any `scheme://user:password@` in it reduced to `scheme://` (drivers may quote the URL they were given). */
export function safeMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}

export interface WaitOptions {
  /** First pause (ms, default 250); doubled after each failure... */
  initialMs?: number;
  /** ...up to this (ms, default 10,000). */
  maxMs?: number;
}

/**
 * Runs `probe` until it succeeds, pausing between tries with exponential
 * backoff (capped, and with jitter: a fleet of replicas started together
 * does not knock in step). Each failure is logged as a warning naming the
 * dependency, where it is (without credentials) and why; the success after
 * failures as info. Used at start so a service started before its database
 * or broker waits for them instead of crashing.
 */
export async function waitFor(what: string, where: string, probe: () => Promise<void>, log: Logger, opts: WaitOptions = {}): Promise<void> {
  const max = opts.maxMs ?? 10_000;
  let pause = opts.initialMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      await probe();
      if (attempt > 1) log.info({ dependency: what, target: where, attempts: attempt }, `${what} is reachable`);
      return;
    } catch (err) {
      // half to all of the step: spread, but never much shorter than the step
      const wait = Math.round(pause / 2 + Math.random() * (pause / 2));
      log.warn({ dependency: what, target: where, attempt, retry_in_ms: wait, code: (err as { code?: unknown }).code, err: safeMessage(err) }, `waiting for ${what}`);
      await new Promise((r) => setTimeout(r, wait));
      pause = Math.min(pause * 2, max);
    }
  }
}
