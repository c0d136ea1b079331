import express, { type NextFunction, type Request, type Response } from 'express';
import { HttpError, sendHtml, type Logger } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import { CSRF_FIELD } from '../auth/csrf';
import { escapeHtml } from '@inventory/core';
import type { IdentityMinter } from '../auth/identity';
import { sessionOf, type ActiveSession, type Sessions } from '../auth/session';

/**
 * Building blocks of the gateway's own server-rendered pages (no front-end build): sign-in,
 * sign-out and the user's API tokens. Every value is HTML-escaped; pages are
 * never cached or framed and run no scripts.
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

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;max-width:64rem;color:#222}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem;margin-bottom:1.5rem}
form.inline{display:inline;margin:0}
button.link{background:none;border:none;padding:0;color:#0645ad;cursor:pointer;font:inherit;text-decoration:underline}
label{display:block;margin:.75rem 0 .25rem}
input[type=text],input[type=password],input[type=datetime-local]{padding:.4rem;min-width:18rem}
button.primary{margin-top:1rem;padding:.5rem 1rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}
th,td{border-bottom:1px solid #ddd;padding:.4rem .6rem;text-align:left;vertical-align:middle}
.error{background:#fdecea;border:1px solid #f5c2c7;padding:.75rem 1rem;margin:1rem 0}
.new-key{background:#fff8d6;border:2px solid #e0b000;padding:1rem;margin:1rem 0}
.new-key code{font-size:1.2rem;user-select:all;word-break:break-all}
code{font-family:ui-monospace,monospace}`;

/** The whole document around a page's body. `navHtml` and `bodyHtml` must already be escaped. */
export function layout(title: string, bodyHtml: string, navHtml: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)} | NetBox</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <header><strong>NetBox</strong><nav>${navHtml}</nav></header>
    <main>
${bodyHtml}
    </main>
  </body>
</html>
`;
}

export function csrfInput(token: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(token)}">`;
}

/** `Signed in as X · API tokens · Log out`, or a `Log in` link. */
export function navHtml(session: ActiveSession | null, prefix: string, next: string): string {
  if (!session) return `<a href="${escapeHtml(`${prefix}${LOGIN_PATH}?next=${encodeURIComponent(next)}`)}">Log in</a>`;
  const name = session.identity.user?.username ?? '';
  return (
    `Signed in as <strong>${escapeHtml(name)}</strong> · <a href="${escapeHtml(prefix + TOKENS_PATH)}">API tokens</a> · ` +
    `<form class="inline" method="post" action="${escapeHtml(prefix + LOGOUT_PATH)}">${csrfInput(session.csrfToken)}<button type="submit" class="link">Log out</button></form>`
  );
}

/** A page for a failure (the services' `{detail}` texts are shown as they are). */
export function errorPage(res: Response, status: number, message: string, session: ActiveSession | null, prefix: string): void {
  const body = `      <h1>${status === 403 ? 'Forbidden' : 'Error'} (${status})</h1>\n      <p class="error">${escapeHtml(message)}</p>`;
  sendPage(res, status, layout('Error', body, navHtml(session, prefix, `${prefix}/api/`)));
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
