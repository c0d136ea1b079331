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

/** Short-lived: the gateway mints one per request. */
export function signIdentity(secret: string, identity: Identity, ttlSeconds = 60): string {
  return jwt.sign(identity as object, secret, { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: 'inventory' });
}

export function verifyIdentity(secret: string, token: string | undefined): Identity {
  if (!token) throw new PermissionDenied('Authentication credentials were not provided.');
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: 'inventory' }) as Identity & {
      iat?: number;
      exp?: number;
    };
    return { user: payload.user, token: payload.token, permissions: payload.permissions ?? [], service: payload.service };
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
