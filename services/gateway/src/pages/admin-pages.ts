import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError, NotAuthenticated, NotFound, PermissionDenied } from '@inventory/core';
import { PAGE_CSRF_HEADER, isStaff } from '@inventory/auth';
import { authenticate } from '../auth/auth';
import { wantsHtml } from './html';
import { locals } from '../auth/identity';
import { LOGIN_PATH, errorMessages, errorPage, formBody, pathPrefix } from './page-html';
import type { ServiceProxies } from '../forwarding/proxy';
import { hasDotSegments } from '../forwarding/routing';
import { sessionOf, type Sessions } from '../auth/session';
import type { TokenVerifier } from '../auth/tokens';

/** Admin pages that a service renders (its own data, its own HTML), by path prefix → the owning service. */
export const ADMIN_PAGES: Readonly<Record<string, string>> = { '/admin/webhooks/': 'webhooks' };

export interface AdminPageDeps {
  sessions: Sessions;
  verifier: TokenVerifier;
  proxies: ServiceProxies;
  urls: Record<string, string>;
  publicUrl: string | undefined;
}

/**
 * `/admin/<page>/...` for staff: the gateway authenticates as it does for the
 * API (a token, or the session cookie, whose unsafe requests need the CSRF
 * token: the forms' `csrfmiddlewaretoken` or X-CSRFToken), lets only active
 * staff and superusers through (others 403; an anonymous browser goes to the
 * login page, an anonymous script gets 403), and proxies to the service that
 * owns the page with the signed identity. A session's CSRF token goes along
 * in X-Page-CSRF-Token for the page's forms; a form's body (that token and
 * nothing else: the actions take their arguments from the path) stays here.
 */
export function mountAdminPages(app: Express, deps: AdminPageDeps): void {
  const prefix = pathPrefix(deps.publicUrl);
  const auth = authenticate(deps.verifier, false, deps.sessions);

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const page = Object.keys(ADMIN_PAGES).find((p) => req.path.startsWith(p) || `${req.path}/` === p);
    if (!page) return next();
    // every page path ends with `/`, as the API's do
    if (!req.path.endsWith('/')) {
      const q = req.originalUrl.indexOf('?');
      return res.redirect(302, `${prefix}${req.path}/${q >= 0 ? req.originalUrl.slice(q) : ''}`);
    }
    const service = ADMIN_PAGES[page];
    if (hasDotSegments(req.path) || !(service in deps.urls)) throw new NotFound();
    try {
      await run(formBody, req, res);
      await run(auth, req, res);
      const identity = locals(res).identity;
      if (!identity.user) {
        if ((req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req)) {
          return res.redirect(302, `${prefix}${LOGIN_PATH}?next=${encodeURIComponent(prefix + req.originalUrl)}`);
        }
        throw new NotAuthenticated();
      }
      if (!isStaff(identity)) throw new PermissionDenied();
    } catch (err) {
      return refuse(req, res, err, prefix);
    }
    if (req.body !== undefined) {
      req.headers['content-length'] = '0';
      delete req.headers['content-type'];
      delete req.headers['transfer-encoding'];
    }
    delete req.headers[PAGE_CSRF_HEADER];
    const session = sessionOf(res);
    if (session) req.headers[PAGE_CSRF_HEADER] = session.csrfToken;
    return deps.proxies.forward(service, req, res, next);
  });
}

/** Runs a middleware to its `next` (or its thrown error). */
function run(mw: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    Promise.resolve(mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });
}

/** A refusal as a page for a browser, else as the API's JSON (the error handler's). */
function refuse(req: Request, res: Response, err: unknown, prefix: string): void {
  const status = err instanceof HttpError ? err.status : (err as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500 && wantsHtml(req)) {
    return errorPage(res, status, errorMessages(err).join(' '), sessionOf(res), prefix);
  }
  throw err;
}
