import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Cache, PermissionDenied } from '@inventory/core';

/** Header that carries the internal identity token from the gateway (or a calling service). */
export const IDENTITY_HEADER = 'x-identity';

/**
 * Header in which the gateway hands a service the identity a GraphQL query
 * runs as (signed for that service, as a forwarded request's): the
 * service's `/internal/graphql` itself takes only the gateway's service
 * identity in IDENTITY_HEADER, so no client reaches it.
 */
export const GRAPHQL_IDENTITY_HEADER = 'x-graphql-identity';

/**
 * Header in which the gateway hands a service the signed-in session's CSRF
 * token, for the forms of a page the service renders (/admin/...); the
 * gateway checks what the forms send back.
 */
export const PAGE_CSRF_HEADER = 'x-page-csrf-token';

export interface IdentityUser {
  id: number;
  username: string;
  is_superuser: boolean;
  is_staff: boolean;
  is_active: boolean;
}

/** One ObjectPermission as it applies to the caller (disabled ones are never included). */
export interface GrantedPermission {
  object_types: string[];
  actions: string[];
  /** null / {} = unrestricted; object = AND of lookups; array = OR of objects. */
  constraints: Record<string, unknown> | Record<string, unknown>[] | null;
}

export interface Identity {
  /** null for an anonymous caller that the gateway let through (exempt views). */
  user: IdentityUser | null;
  token: { id: number; write_enabled: boolean } | null;
  permissions: GrantedPermission[];
  /** Set when one service calls another on its own behalf. */
  service?: string;
}

// building a key object from the secret on every call was a tenth of a service's CPU time
const keys = new Map<string, KeyObject>();
function keyFor(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * Short-lived: the gateway mints one per identity and target service and reuses
 * it for part of its life. `audience` is the name of the service the token is
 * for (the `aud` claim): no other service accepts it.
 */
export function signIdentity(secret: string, identity: Identity, ttlSeconds: number, audience: string): string {
  if (typeof audience !== 'string' || !audience) throw new Error('signIdentity: the audience (the service the token is for) is required');
  return jwt.sign(identity as object, keyFor(secret), { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: 'inventory', audience });
}

/**
 * Tokens already verified (keyed by secret and token), each until its `exp`:
 * the gateway reuses each token for many requests. Each entry keeps the
 * token's audience: a hit counts only for the service the token names.
 */
// every entry is set with its own TTL (the token's remaining life): ttlMs here only enables the cache
const verified = new Cache<string, { identity: Identity; exp: number; aud: string }>({ max: 10_000, ttlMs: 60_000 });

/** The identity in a token signed with `secret` for `audience` (the verifying service's own name); 403 otherwise. */
export function verifyIdentity(secret: string, token: string | undefined, audience: string): Identity {
  if (!token) throw new PermissionDenied('Authentication credentials were not provided.');
  if (typeof audience !== 'string' || !audience) throw new PermissionDenied('Invalid identity token.');
  const cacheKey = `${secret}\0${token}`;
  const hit = verified.get(cacheKey);
  // the exp check too: the entry's TTL runs on a monotonic clock, exp (as jwt.verify) on the wall clock
  if (hit && hit.aud === audience && hit.exp > Date.now() / 1000) return hit.identity;
  let payload: Identity & { aud?: unknown; exp?: number };
  try {
    payload = jwt.verify(token, keyFor(secret), { algorithms: ['HS256'], issuer: 'inventory', audience }) as Identity & { aud?: unknown; exp?: number };
  } catch {
    throw new PermissionDenied('Invalid identity token.');
  }
  // exactly one audience: a token naming several services is for none of them
  if (payload.aud !== audience) throw new PermissionDenied('Invalid identity token.');
  const identity: Identity = { user: payload.user, token: payload.token, permissions: payload.permissions ?? [], service: payload.service };
  const exp = payload.exp ?? 0;
  verified.set(cacheKey, { identity, exp, aud: audience }, exp * 1000 - Date.now());
  return identity;
}

/** The identity a service uses for its own calls to another service: full rights. */
export function serviceIdentity(service: string): Identity {
  return {
    user: { id: 0, username: `service:${service}`, is_superuser: true, is_staff: true, is_active: true },
    token: null,
    permissions: [],
    service,
  };
}
