import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { TooManyRequests } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import type { ServiceContext } from '@inventory/rest';
import type { AuthRateLimits } from './config';
import { normaliseClientIp } from '@inventory/auth';

export const AUTH_ATTEMPT_TABLE = 'auth_attempt';

/** A sign-in attempt that passed the limits: tell it how it ended. */
export interface SignInAttempt {
  /** The credentials were right: the attempt does not count against the username. */
  succeeded(): Promise<void>;
}

const NOOP: SignInAttempt = { succeeded: async () => undefined };

/**
 * Rate limits of password sign-in (browser login, token provisioning), kept
 * in the database so they hold across replicas of the gateway and of this
 * service. Per client address every attempt counts; per username only the
 * failed ones (an attempt is counted before the password is checked, so
 * concurrent guesses cannot overshoot, and taken back when it succeeds).
 * A window starts at a key's first attempt and lasts
 * AUTH_RATE_LIMIT_WINDOW_SECONDS; past the limit the answer is 429 with
 * Retry-After until the window ends. Keys are stored hashed: a password
 * typed into the username field does not end up in the table.
 */
export class SignInThrottle {
  private readonly table: ReturnType<typeof raw>;
  private lastPurge = 0;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly limits: AuthRateLimits,
  ) {
    this.table = raw(ctx.db.table(AUTH_ATTEMPT_TABLE));
  }

  /**
   * Counts the attempt; throws 429 (TooManyRequests, with Retry-After) when the address
   * or the username is over its limit. Call before checking the password.
   */
  async begin(username: string, address: string): Promise<SignInAttempt> {
    const { AUTH_RATE_LIMIT_ADDRESS: perAddress, AUTH_RATE_LIMIT_USERNAME: perUsername } = this.limits;
    if (perAddress === 0 && perUsername === 0) return NOOP;
    this.purge();
    if (perAddress > 0) {
      const { count, retry } = await this.count('address', address);
      if (count > perAddress) throw new TooManyRequests(retry);
    }
    if (perUsername === 0) return NOOP;
    const key = keyOf('username', username);
    const { count, retry } = await this.count('username', username);
    if (count > perUsername) throw new TooManyRequests(retry);
    return {
      succeeded: async () => {
        await this.ctx.db.query(sql`UPDATE ${this.table} SET count = greatest(count - 1, 0) WHERE scope = 'username' AND key = ${key}`);
      },
    };
  }

  /** One more attempt for the key; the count in its window and the seconds until the window ends. */
  private async count(scope: 'address' | 'username', subject: string): Promise<{ count: number; retry: number }> {
    const window = this.limits.AUTH_RATE_LIMIT_WINDOW_SECONDS;
    const [row] = await this.ctx.db.query(sql`
      INSERT INTO ${this.table} AS a (scope, key, window_start, count)
      VALUES (${scope}, ${keyOf(scope, subject)}, now(), 1)
      ON CONFLICT (scope, key) DO UPDATE SET
        count = CASE WHEN a.window_start <= now() - make_interval(secs => ${window}) THEN 1 ELSE a.count + 1 END,
        window_start = CASE WHEN a.window_start <= now() - make_interval(secs => ${window}) THEN now() ELSE a.window_start END
      RETURNING count, ceil(extract(epoch FROM (window_start + make_interval(secs => ${window}) - now()))) AS retry`);
    return { count: Number(row.count), retry: Math.max(1, Number(row.retry) || 1) };
  }

  /** Drops ended windows, at most once per window length per process. */
  private purge(): void {
    const window = this.limits.AUTH_RATE_LIMIT_WINDOW_SECONDS;
    const now = Date.now();
    if (now - this.lastPurge < window * 1000) return;
    this.lastPurge = now;
    this.ctx.db
      .query(sql`DELETE FROM ${this.table} WHERE window_start <= now() - make_interval(secs => ${window})`)
      .catch((err: Error) => this.ctx.log.warn({ err: err.message }, 'auth attempts purge failed'));
  }
}

function keyOf(scope: string, subject: string): string {
  return createHash('sha256').update(scope).update('\0').update(subject, 'utf8').digest('hex');
}

/**
 * The client's address for the limits: what the caller says (`client_ip` in
 * the body of the gateway's internal calls, else the X-Real-IP the gateway
 * sets on what it proxies, never a client's: the gateway strips that), else
 * the peer. Only internal callers with a signed identity reach this service.
 */
export function signInAddress(req: Request, bodyValue?: unknown): string {
  const header = req.headers['x-real-ip'];
  const candidates = [bodyValue, Array.isArray(header) ? header[0] : header, req.socket.remoteAddress];
  for (const c of candidates) {
    if (typeof c !== 'string' || !c) continue;
    const ip = normaliseClientIp(c);
    if (ip) return ip;
  }
  return 'unknown';
}
