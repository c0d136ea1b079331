import type { Express, Request, Response } from 'express';
import { HttpError, ServiceUnavailable } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { CSRF_FIELD, CSRF_PAGE_FAILED } from '../auth/csrf';
import { clientIp } from '../forwarding/forwarded';
import {
  LOGIN_PATH,
  LOGOUT_PATH,
  allow,
  errorPage,
  formBody,
  formField,
  pageRoute,
  pathPrefix,
  safeNext,
  sendPage,
  type PageDeps,
} from './page-html';
import { withTimeout } from '../forwarding/timeout';
import { renderPage } from './templates';

/** The users service's answer to bad credentials (also NetBox's text). */
export const INVALID_LOGIN = 'Invalid username/password';
const LOGIN_TIMEOUT_MS = 10_000;

/** The wait a 429 from users announces (DRF's text: "... Expected available in N seconds."). */
function throttledFor(err: HttpError): { detail: string; seconds: number } {
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  const text = typeof detail === 'string' ? detail : 'Request was throttled.';
  const m = /available in (\d+) seconds?/.exec(text);
  return { detail: text, seconds: m ? Number(m[1]) : 60 };
}

interface LoginForm {
  username: string;
  next: string;
  error?: string;
}

function loginPage(prefix: string, csrfToken: string, form: LoginForm): string {
  return renderPage('login', { action: prefix + LOGIN_PATH, csrfToken, ...form });
}

/**
 * `GET /login/` shows the form; `POST /login/` checks the credentials with
 * the users service and starts a session; `POST /logout/` ends it. The login
 * form is CSRF-protected too (signed double submit), so another site cannot
 * sign a browser in to an account of its choosing.
 */
export function mountLogin(app: Express, deps: PageDeps): void {
  const { sessions, refs, publicUrl } = deps;
  const prefix = pathPrefix(publicUrl);

  const showForm = (req: Request, res: Response, status: number, form: LoginForm, csrfToken?: string) => {
    sendPage(res, status, loginPage(prefix, csrfToken ?? sessions.anonymousCsrf(req, res), form));
  };

  app.all(LOGIN_PATH, allow(['GET', 'POST']), formBody, pageRoute(publicUrl, async (req, res) => {
    const current = await sessions.fromRequest(req, res);
    if (req.method !== 'POST') {
      const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined, prefix);
      // a signed-in user may sign in again (as somebody else): the form uses the session's token
      return showForm(req, res, 200, { username: '', next }, current?.csrfToken);
    }

    const username = formField(req.body, 'username');
    const password = formField(req.body, 'password');
    const next = safeNext(formField(req.body, 'next'), prefix);
    const given = formField(req.body, CSRF_FIELD);
    const csrfOk = sessions.csrf.checkAnonymous(sessions.csrfCookie(req), given) || (current !== null && sessions.csrf.checkSession(current.sid, given));
    if (!csrfOk) return showForm(req, res, 403, { username, next, error: CSRF_PAGE_FAILED });
    if (!username || !password) return showForm(req, res, 403, { username, next, error: INVALID_LOGIN });

    let identity: Identity;
    try {
      const answer = await withTimeout(
        // the client's address (as TRUSTED_PROXIES allow it to be known) for users' sign-in rate limits
        refs.call<{ identity?: Identity }>('users', 'POST', '/internal/auth/password', { username, password, client_ip: clientIp(req) }),
        LOGIN_TIMEOUT_MS,
        () => new ServiceUnavailable('Service users is unavailable.'),
      );
      if (!answer?.identity?.user) throw new ServiceUnavailable('Service users is unavailable.');
      identity = answer.identity;
    } catch (err) {
      if (err instanceof HttpError && (err.status === 401 || err.status === 403)) return showForm(req, res, 403, { username, next, error: INVALID_LOGIN });
      if (err instanceof HttpError && err.status === 429) {
        const { detail, seconds } = throttledFor(err);
        res.setHeader('Retry-After', String(seconds));
        return showForm(req, res, 429, { username, next, error: detail });
      }
      // the password never reaches a log line: only the failure's kind
      deps.log.error({ err: err instanceof HttpError ? { status: err.status, detail: err.message } : { message: (err as Error).message } }, 'login: users did not answer');
      throw err instanceof HttpError && err.status >= 500 ? err : new ServiceUnavailable('Service users is unavailable.');
    }

    // a new session id (and CSRF token) at every login: no fixation of an older one
    if (current) sessions.revoke(current);
    sessions.start(req, res, identity);
    res.redirect(302, next);
  }));

  app.all(LOGOUT_PATH, allow(['POST']), formBody, pageRoute(publicUrl, async (req, res) => {
    const session = await sessions.fromRequest(req, res);
    if (session && !sessions.csrf.checkSession(session.sid, formField(req.body, CSRF_FIELD))) {
      return errorPage(res, 403, CSRF_PAGE_FAILED, session, prefix);
    }
    sessions.end(req, res, session);
    res.redirect(302, prefix + LOGIN_PATH);
  }));
}
