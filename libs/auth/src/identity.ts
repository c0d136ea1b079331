import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { PermissionDenied } from '@inventory/core';

/** Header that carries the internal identity token from the gateway (or a calling service). */
export const IDENTITY_HEADER = 'x-identity';

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

/** Short-lived: the gateway mints one per identity and reuses it for part of its life. */
export function signIdentity(secret: string, identity: Identity, ttlSeconds = 60): string {
  return jwt.sign(identity as object, keyFor(secret), { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: 'inventory' });
}

/** Tokens already verified, until they expire (bounded; the gateway reuses each token for many requests). */
const verifiedBySecret = new Map<string, Map<string, { identity: Identity; exp: number }>>();
const MAX_VERIFIED = 10_000;

export function verifyIdentity(secret: string, token: string | undefined): Identity {
  if (!token) throw new PermissionDenied('Authentication credentials were not provided.');
  let verified = verifiedBySecret.get(secret);
  if (!verified) verifiedBySecret.set(secret, (verified = new Map()));
  const hit = verified.get(token);
  if (hit && hit.exp > Date.now() / 1000) return hit.identity;
  try {
    const payload = jwt.verify(token, keyFor(secret), { algorithms: ['HS256'], issuer: 'inventory' }) as Identity & {
      iat?: number;
      exp?: number;
    };
    const identity: Identity = { user: payload.user, token: payload.token, permissions: payload.permissions ?? [], service: payload.service };
    if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value as string);
    verified.set(token, { identity, exp: payload.exp ?? 0 });
    return identity;
  } catch {
    throw new PermissionDenied('Invalid identity token.');
  }
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
