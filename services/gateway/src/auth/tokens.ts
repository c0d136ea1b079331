import { createHash } from 'node:crypto';
import { Cache, HttpError, PermissionDenied, ServiceUnavailable, type Logger } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import type { ServiceClient } from '@inventory/refs';
import { withTimeout } from '../forwarding/timeout';

/** What the Authorization header holds, read the way DRF's TokenAuthentication reads it. */
export type Credentials = { kind: 'none' } | { kind: 'token'; key: string };

/**
 * `Token <key>` (keyword case-insensitive). Any other scheme (Bearer, Basic)
 * is not ours: the request is anonymous, as in NetBox 3.7.
 */
export function parseAuthorization(header: string | undefined): Credentials {
  const parts = (header ?? '').trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0 || parts[0].toLowerCase() !== 'token') return { kind: 'none' };
  if (parts.length === 1) throw new PermissionDenied('Invalid token header. No credentials provided.');
  if (parts.length > 2) throw new PermissionDenied('Invalid token header. Token string should not contain spaces.');
  return { kind: 'token', key: parts[1] };
}

/** A token the users service accepted. */
export interface VerifiedToken {
  identity: Identity;
  tokenId: number;
  /** Epoch ms, or null for a token that never expires. */
  expires: number | null;
}

/** Answer of `POST {users}/internal/auth/token`. */
interface TokenAnswer {
  identity: Identity;
  token: { id: number; expires: string | null };
}

/** Longest wait for the users service before the request fails with 503. */
const VERIFY_TIMEOUT_MS = 10_000;
/** Bounds memory if many distinct tokens are seen within one TTL. */
const MAX_ENTRIES = 10_000;

/**
 * Verifies token keys through the users service and keeps successful answers
 * for a few seconds, so a burst of requests costs one round trip. Entries are
 * keyed by a SHA-256 of the key (plus the client address, which the users
 * service may check against the token's allowed IPs): the key itself is never
 * stored or logged. Failures are not cached: a fixed token works at once.
 * An answer asked for before an invalidation is never cached after it (the
 * token may have been revoked while its verification was in flight): the
 * same generation rule as the session users' cache.
 */
export class TokenVerifier {
  private readonly entries: Cache<string, VerifiedToken>;

  constructor(
    private readonly users: ServiceClient,
    ttlMs: number,
    private readonly log: Logger,
  ) {
    this.entries = new Cache({ max: MAX_ENTRIES, ttlMs });
  }

  async verify(key: string, clientIp: string): Promise<VerifiedToken> {
    const id = createHash('sha256').update(key).update('\0').update(clientIp).digest('hex');
    // concurrent requests with the same token share one call to users
    const value = (await this.entries.load(id, () => this.ask(key, clientIp)))!;
    return checkExpiry(value, () => this.entries.delete(id));
  }

  /**
   * Drops cached verifications: all of them, or those of the named tokens or
   * users (on the users service's change events).
   */
  invalidate(filter: { token_ids?: number[]; user_ids?: number[] } = {}): number {
    const tokens = new Set((filter.token_ids ?? []).map(Number));
    const users = new Set((filter.user_ids ?? []).map(Number));
    if (tokens.size === 0 && users.size === 0) return this.entries.clear();
    return this.entries.deleteWhere((value) => tokens.has(value.tokenId) || (!!value.identity.user && users.has(value.identity.user.id)));
  }

  clear(): void {
    this.entries.clear();
  }

  private async ask(key: string, clientIp: string): Promise<VerifiedToken> {
    let answer: TokenAnswer;
    try {
      answer = await withTimeout(
        this.users.call<TokenAnswer>('users', 'POST', '/internal/auth/token', { key, client_ip: clientIp }),
        VERIFY_TIMEOUT_MS,
        () => new Error('users did not answer in time'),
      );
    } catch (err) {
      // the users service's own refusal texts (Invalid token, Token expired, User inactive) go to the client as they are
      if (err instanceof HttpError && (err.status === 401 || err.status === 403)) {
        const detail = (err.body as { detail?: unknown } | undefined)?.detail;
        throw new PermissionDenied(typeof detail === 'string' ? detail : 'Invalid token');
      }
      this.log.error({ err: err instanceof HttpError ? { status: err.status, detail: err.message } : err }, 'token verification failed');
      throw new ServiceUnavailable('Service users is unavailable.');
    }
    if (!answer?.identity || !answer.token) {
      this.log.error('token verification: malformed answer from users');
      throw new ServiceUnavailable('Service users is unavailable.');
    }
    const expires = answer.token.expires ? Date.parse(answer.token.expires) : null;
    return { identity: answer.identity, tokenId: answer.token.id, expires: expires === null || Number.isNaN(expires) ? null : expires };
  }
}

/** Expiry is re-checked on every use, so a cached token still stops working at its `expires`. */
function checkExpiry(value: VerifiedToken, drop: () => void): VerifiedToken {
  if (value.expires !== null && Date.now() >= value.expires) {
    drop();
    throw new PermissionDenied('Token expired');
  }
  return value;
}
