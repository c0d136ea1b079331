import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookieHeader, serialize as serializeCookieValue } from 'cookie';
import { Cache, HttpError, ServiceUnavailable, type Logger } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import type { ServiceClient } from '@inventory/refs';
import { CsrfTokens, safeEqual } from './csrf';
import { forwardedFor } from '../forwarding/forwarded';
import { withTimeout } from '../forwarding/timeout';

/**
 * Browser sessions for the browsable API and the gateway's own pages.
 *
 * Stateless signed cookies: `sessionid=<user id>.<session id>.<issued at>.<expires>.<signature>`,
 * the signature an HMAC-SHA256 over the other fields under a key derived from
 * SESSION_SECRET. The session id is random; it binds the CSRF token (csrf.ts)
 * and is what logout revokes. Who the user is (permissions, active flag) is
 * asked of the users service per user id and cached briefly, as tokens are.
 */

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
/** Django's SESSION_COOKIE_AGE: two weeks, absolute (not renewed on use). */
export const SESSION_MAX_AGE_SECONDS = 14 * 24 * 3600;

/** Label under which a session secret is derived from INTERNAL_TOKEN_SECRET when SESSION_SECRET is not set. */
const DERIVED_SECRET_LABEL = 'inventory/gateway/session-secret/v1';
const SIGNATURE_VERSION = 'v1';
const COOKIE_VALUE = /^(\d{1,15})\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
/** Longest wait for the users service before the request fails with 503. */
const LOOKUP_TIMEOUT_MS = 10_000;
/** Bounds memory: cached users and revoked sessions. */
const MAX_ENTRIES = 10_000;
const MAX_REVOKED = 100_000;

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * SESSION_SECRET when configured; otherwise one derived from
 * INTERNAL_TOKEN_SECRET under a fixed label, so the quick start works without
 * another variable (and the internal secret itself never signs a cookie).
 */
export function sessionSecret(config: { SESSION_SECRET?: string; INTERNAL_TOKEN_SECRET: string }): Buffer {
  if (config.SESSION_SECRET) return Buffer.from(config.SESSION_SECRET, 'utf8');
  return hmac(config.INTERNAL_TOKEN_SECRET, DERIVED_SECRET_LABEL);
}

/** What a session cookie says. Times are epoch seconds. */
export interface SessionClaims {
  userId: number;
  sid: string;
  issuedAt: number;
  expires: number;
}

/** Signs and checks session cookie values. */
export class SessionCodec {
  constructor(private readonly key: Buffer) {}

  encode(c: SessionClaims): string {
    const payload = `${c.userId}.${c.sid}.${c.issuedAt}.${c.expires}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /** The claims of a well-formed, correctly signed, unexpired value; else null. */
  decode(value: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): SessionClaims | null {
    const m = value ? COOKIE_VALUE.exec(value) : null;
    if (!m) return null;
    const [, user, sid, iat, exp, signature] = m;
    if (!safeEqual(signature, this.sign(`${user}.${sid}.${iat}.${exp}`))) return null;
    const claims: SessionClaims = { userId: Number(user), sid, issuedAt: Number(iat), expires: Number(exp) };
    if (!Number.isSafeInteger(claims.userId) || claims.expires <= nowSeconds || claims.issuedAt > nowSeconds + 60) return null;
    return claims;
  }

  private sign(payload: string): string {
    return hmac(this.key, `${SIGNATURE_VERSION}|${payload}`).toString('base64url');
  }
}

/**
 * `Cookie` header → name/value pairs, by the `cookie` package (what express
 * uses): first occurrence wins (as in Django), quotes dropped, values
 * percent-decoded when they decode.
 */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const [name, value] of Object.entries(parseCookieHeader(header))) {
    if (name && name !== '__proto__' && typeof value === 'string') out[name] = value;
  }
  return out;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  httpOnly: boolean;
  secure: boolean;
}

/** One Set-Cookie value, by the `cookie` package: Path=/ and SameSite=Lax always; the value percent-encoded. */
export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  return serializeCookieValue(name, value, {
    path: '/',
    maxAge: o.maxAgeSeconds,
    expires: new Date(o.maxAgeSeconds > 0 ? Date.now() + o.maxAgeSeconds * 1000 : 0),
    httpOnly: o.httpOnly,
    secure: o.secure,
    sameSite: 'lax',
  });
}

function appendSetCookie(res: ServerResponse, cookie: string): void {
  const prev = res.getHeader('Set-Cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  res.setHeader('Set-Cookie', [...list, cookie]);
}

/** A signed-in browser. */
export interface ActiveSession {
  sid: string;
  userId: number;
  identity: Identity;
  /** Epoch seconds. */
  expires: number;
  /** The CSRF token bound to this session (what forms and X-CSRFToken must carry). */
  csrfToken: string;
}

/** The session found for this request by `Sessions.fromRequest` (null: none or invalid). */
export function sessionOf(res: ServerResponse): ActiveSession | null {
  return ((res as { locals?: { session?: ActiveSession | null } }).locals?.session ?? null) as ActiveSession | null;
}

function rememberSession(res: ServerResponse, session: ActiveSession | null): void {
  const holder = res as { locals?: Record<string, unknown> };
  holder.locals ??= {};
  holder.locals.session = session;
}

/**
 * Identities of session users, from the users service, kept for a few seconds
 * (like token verifications) and dropped on the same invalidation calls.
 * Failures are not cached.
 */
class SessionUsers {
  private readonly entries: Cache<number, Identity>;

  constructor(
    private readonly users: ServiceClient,
    ttlMs: number,
    private readonly log: Logger,
  ) {
    this.entries = new Cache({ max: MAX_ENTRIES, ttlMs });
  }

  async identity(userId: number): Promise<Identity | null> {
    // the cache's generation rule: an answer asked for before an invalidation is not cached after it
    return (await this.entries.load(userId, async () => (await this.ask(userId)) ?? undefined)) ?? null;
  }

  remember(userId: number, identity: Identity): void {
    this.entries.set(userId, identity);
  }

  invalidate(userIds: Set<number> | null): number {
    if (!userIds) return this.entries.clear();
    return this.entries.deleteWhere((_identity, id) => userIds.has(id));
  }

  /** null when users refuses (unknown or inactive user): the session is then simply not valid. */
  private async ask(userId: number): Promise<Identity | null> {
    let answer: { identity?: Identity };
    try {
      answer = await withTimeout(
        this.users.call<{ identity?: Identity }>('users', 'POST', '/internal/auth/session-user', { user_id: userId }),
        LOOKUP_TIMEOUT_MS,
        () => new Error('users did not answer in time'),
      );
    } catch (err) {
      if (err instanceof HttpError && err.status >= 400 && err.status < 500) return null;
      this.log.error({ err: err instanceof HttpError ? { status: err.status, detail: err.message } : err }, 'session user lookup failed');
      throw new ServiceUnavailable('Service users is unavailable.');
    }
    if (!answer?.identity?.user || answer.identity.user.id !== userId) {
      this.log.error('session user lookup: malformed answer from users');
      throw new ServiceUnavailable('Service users is unavailable.');
    }
    return answer.identity;
  }
}

/**
 * Sessions ended by logout, until they would have expired anyway. Kept in
 * memory: with several gateway replicas, a copied cookie stays valid on the
 * others (the browser's own copy is deleted by the logout response).
 */
class RevokedSessions {
  private readonly entries = new Map<string, number>();

  revoke(sid: string, expires: number): void {
    const now = Math.floor(Date.now() / 1000);
    if (this.entries.size >= MAX_REVOKED) {
      for (const [id, exp] of this.entries) if (exp <= now) this.entries.delete(id);
      if (this.entries.size >= MAX_REVOKED) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(sid, expires);
  }

  has(sid: string): boolean {
    return this.entries.has(sid);
  }
}

export interface SessionOptions {
  secret: Buffer;
  users: ServiceClient;
  /** How long a session user's identity is reused (ms; 0 = ask users every time). */
  cacheMs: number;
  log: Logger;
  publicUrl?: string;
  maxAgeSeconds?: number;
}

/** Everything the gateway does with browser sessions. */
export class Sessions {
  readonly csrf: CsrfTokens;
  private readonly codec: SessionCodec;
  private readonly users: SessionUsers;
  private readonly revoked = new RevokedSessions();
  private readonly maxAge: number;

  constructor(private readonly opts: SessionOptions) {
    // separate keys per use: a session signature is never a valid CSRF token and vice versa
    this.codec = new SessionCodec(hmac(opts.secret, 'session-cookie'));
    this.csrf = new CsrfTokens(hmac(opts.secret, 'csrf-token'));
    this.users = new SessionUsers(opts.users, opts.cacheMs, opts.log);
    this.maxAge = opts.maxAgeSeconds ?? SESSION_MAX_AGE_SECONDS;
  }

  /**
   * The valid session of this request, or null (no cookie, bad signature,
   * expired, logged out, user gone or inactive: all simply anonymous).
   * Remembered on the response, so later middleware asks at no cost.
   */
  async fromRequest(req: IncomingMessage, res: ServerResponse): Promise<ActiveSession | null> {
    const locals = (res as { locals?: Record<string, unknown> }).locals;
    if (locals && 'session' in locals) return sessionOf(res);
    const claims = this.codec.decode(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
    let session: ActiveSession | null = null;
    if (claims && !this.revoked.has(claims.sid)) {
      const identity = await this.users.identity(claims.userId);
      if (identity) session = { sid: claims.sid, userId: claims.userId, identity, expires: claims.expires, csrfToken: this.csrf.forSession(claims.sid) };
    }
    rememberSession(res, session);
    return session;
  }

  /** Starts a session for a user who just proved who they are; sets both cookies. */
  start(req: IncomingMessage, res: ServerResponse, identity: Identity): ActiveSession {
    const user = identity.user;
    if (!user) throw new Error('a session needs a user');
    const now = Math.floor(Date.now() / 1000);
    const claims: SessionClaims = { userId: user.id, sid: randomBytes(16).toString('base64url'), issuedAt: now, expires: now + this.maxAge };
    const session: ActiveSession = { sid: claims.sid, userId: user.id, identity, expires: claims.expires, csrfToken: this.csrf.forSession(claims.sid) };
    this.users.remember(user.id, identity);
    const secure = this.secure(req);
    appendSetCookie(res, serializeCookie(SESSION_COOKIE, this.codec.encode(claims), { maxAgeSeconds: this.maxAge, httpOnly: true, secure }));
    // readable by scripts on purpose: they send it back in X-CSRFToken (Django's csrftoken cookie)
    appendSetCookie(res, serializeCookie(CSRF_COOKIE, session.csrfToken, { maxAgeSeconds: this.maxAge, httpOnly: false, secure }));
    rememberSession(res, session);
    return session;
  }

  /** The session's cookie stops being accepted (by this gateway process). */
  revoke(session: ActiveSession): void {
    this.revoked.revoke(session.sid, session.expires);
  }

  /** Ends the session (revoked here, deleted in the browser). */
  end(req: IncomingMessage, res: ServerResponse, session: ActiveSession | null): void {
    if (session) this.revoke(session);
    const secure = this.secure(req);
    appendSetCookie(res, serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure }));
    appendSetCookie(res, serializeCookie(CSRF_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure }));
    rememberSession(res, null);
  }

  /** The CSRF token for a page shown to a visitor without a session (the login form); sets its cookie when new. */
  anonymousCsrf(req: IncomingMessage, res: ServerResponse): string {
    const current = parseCookies(req.headers.cookie)[CSRF_COOKIE];
    if (current && this.csrf.validAnonymous(current)) return current;
    const token = this.csrf.issueAnonymous();
    appendSetCookie(res, serializeCookie(CSRF_COOKIE, token, { maxAgeSeconds: this.maxAge, httpOnly: false, secure: this.secure(req) }));
    return token;
  }

  /** The anonymous CSRF cookie of this request (double-submit counterpart of the login form's field). */
  csrfCookie(req: IncomingMessage): string | undefined {
    return parseCookies(req.headers.cookie)[CSRF_COOKIE];
  }

  /** Same filter as TokenVerifier.invalidate: `{}` drops every cached user, `user_ids` only those. */
  invalidate(filter: { token_ids?: number[]; user_ids?: number[] } = {}): number {
    const users = new Set((filter.user_ids ?? []).map(Number));
    if (users.size === 0 && (filter.token_ids ?? []).length === 0) return this.users.invalidate(null);
    return this.users.invalidate(users);
  }

  clear(): void {
    this.users.invalidate(null);
  }

  private secure(req: IncomingMessage): boolean {
    return forwardedFor(req, this.opts.publicUrl).proto === 'https';
  }
}
