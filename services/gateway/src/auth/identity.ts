import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import { signIdentity, type Identity } from '@inventory/auth';

/** The identity forwarded for a request without a token: the services apply EXEMPT_VIEW_PERMISSIONS/LOGIN_REQUIRED to it. */
export const ANONYMOUS: Identity = Object.freeze({ user: null, token: null, permissions: [] }) as Identity;

/** Lifetime of a minted identity token: long enough for one request, short enough to be useless if leaked. */
const TTL_SECONDS = 60;
/** A minted token is reused while it has at least this much life left (saves one HMAC per request). */
const REUSE_MS = 30_000;

/**
 * Mints the signed identity header for requests forwarded to services. Each
 * token names the service it is for (its audience), so one service cannot
 * replay it at another. Verified identities are immutable objects held by the
 * token cache, so a signature can be memoised per (object, service) and is
 * dropped with the object.
 */
export class IdentityMinter {
  private readonly memo = new WeakMap<Identity, Map<string, { jwt: string; at: number }>>();

  constructor(private readonly secret: string) {}

  /** The identity header for a request to `service`. */
  mint(identity: Identity, service: string): string {
    const now = Date.now();
    let perService = this.memo.get(identity);
    const m = perService?.get(service);
    if (m && now - m.at < REUSE_MS) return m.jwt;
    // a client never chooses the service claim: it is only for service-to-service calls
    const { service: _service, ...forwarded } = identity;
    const jwt = signIdentity(this.secret, forwarded, TTL_SECONDS, service);
    if (!perService) this.memo.set(identity, (perService = new Map()));
    perService.set(service, { jwt, at: now });
    return jwt;
  }
}

/** Per-request state set by the gateway's middleware. */
export interface GatewayLocals {
  requestId: string;
  identity: Identity;
}

export function locals(res: ServerResponse | Response): GatewayLocals {
  return (res as Response).locals as GatewayLocals;
}
