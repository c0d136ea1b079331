import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PermissionDenied } from '@inventory/core';

/** DRF's text when SessionAuthentication's CSRF check fails. */
export const CSRF_FAILED = 'CSRF Failed: CSRF token missing or incorrect.';
/** Django's text when a form's CSRF check fails (the gateway's own pages). */
export const CSRF_PAGE_FAILED = 'CSRF verification failed. Request aborted.';
/** Django's header (CSRF_HEADER_NAME = HTTP_X_CSRFTOKEN) and form field. */
export const CSRF_HEADER = 'x-csrftoken';
export const CSRF_FIELD = 'csrfmiddlewaretoken';

const ANONYMOUS = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/**
 * CSRF tokens without server state.
 *
 * - With a session: HMAC(key, session id). Forms carry it in `csrfmiddlewaretoken`,
 *   scripts in `X-CSRFToken` (from the readable `csrftoken` cookie). Another
 *   site can neither read it nor compute it, and it dies with the session.
 * - Before a session (the login form): `<nonce>.<HMAC(key, nonce)>`, sent as
 *   cookie and form field (signed double submit: a cookie planted by a
 *   sibling domain without the key does not pass).
 */
export class CsrfTokens {
  constructor(private readonly key: Buffer) {}

  forSession(sid: string): string {
    return this.mac(`session|${sid}`);
  }

  issueAnonymous(): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${this.mac(`anonymous|${nonce}`)}`;
  }

  validAnonymous(token: string | undefined): boolean {
    const m = token ? ANONYMOUS.exec(token) : null;
    return !!m && safeEqual(m[2], this.mac(`anonymous|${m[1]}`));
  }

  /** Whether `given` is the session's token. */
  checkSession(sid: string, given: unknown): boolean {
    return typeof given === 'string' && safeEqual(given, this.forSession(sid));
  }

  /** Login form: the field must be a token we issued and the same as the cookie. */
  checkAnonymous(cookie: string | undefined, given: unknown): boolean {
    return typeof given === 'string' && this.validAnonymous(given) && cookie !== undefined && safeEqual(given, cookie);
  }

  private mac(data: string): string {
    return createHmac('sha256', this.key).update(data, 'utf8').digest('base64url');
  }
}

/** The token a request presents: the X-CSRFToken header, else the form field (when the body was parsed). */
export function submittedCsrf(req: IncomingMessage & { body?: unknown }): string | undefined {
  const header = req.headers[CSRF_HEADER];
  if (typeof header === 'string' && header) return header;
  const body = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const field = (body as Record<string, unknown>)[CSRF_FIELD];
    if (typeof field === 'string') return field;
  }
  return undefined;
}

export function csrfFailed(): PermissionDenied {
  return new PermissionDenied(CSRF_FAILED);
}

/** Constant-time comparison of two strings (false for different lengths). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
