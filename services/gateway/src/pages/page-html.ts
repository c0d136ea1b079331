import express, { type NextFunction, type Request, type Response } from 'express';
import { HttpError, sendHtml, type Logger } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import type { IdentityMinter } from '../auth/identity';
import { sessionOf, type ActiveSession, type Sessions } from '../auth/session';
import { renderPage } from './templates';

/**
 * Building blocks of the gateway's own server-rendered pages (no front-end build): sign-in,
 * sign-out and the user's API tokens. The markup is templates/ (page.liquid
 * frames them), which escapes every value; pages are never cached or framed
 * and run no scripts.
 */

export interface PageDeps {
  sessions: Sessions;
  refs: ServiceClient;
  minter: IdentityMinter;
  /** Base URL of the users service (undefined when it is not deployed). */
  usersUrl: string | undefined;
  publicUrl: string | undefined;
  log: Logger;
  /** A page changed something in users (a token made or deleted): this gateway drops its auth caches at once. */
  onUsersWrite: () => void;
}

export const LOGIN_PATH = '/login/';
export const LOGOUT_PATH = '/logout/';
export const TOKENS_PATH = '/user/api-tokens/';

/** Path prefix of PUBLIC_URL (`https://host/netbox` → `/netbox`), so links and redirects work behind one. */
export function pathPrefix(publicUrl: string | undefined): string {
  if (!publicUrl) return '';
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * Where to go after login: a local absolute path only (no scheme, no `//host`
 * or `/\host`, no control characters), else the API root.
 */
export function safeNext(value: unknown, prefix = ''): string {
  const fallback = `${prefix}/api/`;
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return fallback;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return fallback;
  }
  return value;
}

/** A string field of a parsed urlencoded form ('' when absent; the first of repeated fields). */
export function formField(body: unknown, name: string): string {
  if (!body || typeof body !== 'object') return '';
  const v = (body as Record<string, unknown>)[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return '';
}

/** application/x-www-form-urlencoded bodies of the pages' forms (nothing else is parsed). */
export const formBody = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 });

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sends a page with the headers every page of ours carries. */
export function sendPage(res: Response, status: number, html: string): void {
  sendHtml(res, status, html, CSP);
}

/** What the nav partial shows: who is signed in (with the tokens link and a log-out form), else a link to sign in. */
export interface NavView {
  user?: { name: string; tokensHref: string; logoutHref: string; csrfToken: string };
  loginHref?: string;
}

/** `Signed in as X · API tokens · Log out`, or a `Log in` link that comes back to `next`. */
export function navView(session: ActiveSession | null, prefix: string, next: string): NavView {
  if (!session) return { loginHref: `${prefix}${LOGIN_PATH}?next=${encodeURIComponent(next)}` };
  const name = session.identity.user?.username ?? '';
  return { user: { name, tokensHref: prefix + TOKENS_PATH, logoutHref: prefix + LOGOUT_PATH, csrfToken: session.csrfToken } };
}

/** A page for a failure (the services' `{detail}` texts are shown as they are). */
export function errorPage(res: Response, status: number, message: string, session: ActiveSession | null, prefix: string): void {
  sendPage(res, status, renderPage('error', { status, message, nav: navView(session, prefix, `${prefix}/api/`) }));
}

/** Text of a service's error answer: `detail`, else `field: message` lines. */
export function errorMessages(err: unknown): string[] {
  const body = err instanceof HttpError ? err.body : err;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === 'string') return [b.detail];
    const out: string[] = [];
    for (const [field, msgs] of Object.entries(b)) {
      const list = Array.isArray(msgs) ? msgs : [msgs];
      for (const m of list) out.push(field === 'non_field_errors' ? String(m) : `${field}: ${typeof m === 'string' ? m : JSON.stringify(m)}`);
    }
    if (out.length) return out;
  }
  return [err instanceof Error ? err.message : 'The request failed.'];
}

/** 405 for methods a page does not answer. */
export function allow(methods: string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    if (allowed.includes(req.method)) return next();
    res.setHeader('Allow', allowed.join(', '));
    res.status(405).json({ detail: `Method "${req.method}" not allowed.` });
  };
}

type PageHandler = (req: Request, res: Response) => Promise<void>;

/** A page handler whose refusals (a service's 4xx, 503) are shown as a page rather than JSON. */
export function pageRoute(publicUrl: string | undefined, handler: PageHandler): PageHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (!(err instanceof HttpError) || res.headersSent) throw err;
      errorPage(res, err.status, errorMessages(err).join(' '), sessionOf(res), pathPrefix(publicUrl));
    }
  };
}
