import type { Express } from 'express';
import { mountLogin } from './login';
import { LOGIN_PATH, LOGOUT_PATH, TOKENS_PATH, pathPrefix, type PageDeps } from './page-html';
import { mountTokenPages } from './tokens-page';

const PAGE_PATHS = [LOGIN_PATH, LOGOUT_PATH, TOKENS_PATH];

/**
 * The browser side of the gateway: sign-in and sign-out (login.ts) and the
 * user's API tokens (tokens-page.ts). Mounted before the gateway's 404 for
 * paths outside /api/.
 */
export function mountPages(app: Express, deps: PageDeps): void {
  // `/login` → `/login/`, as Django's APPEND_SLASH
  app.use((req, res, next) => {
    const slashed = `${req.path}/`;
    if (!PAGE_PATHS.includes(slashed)) return next();
    const q = req.originalUrl.indexOf('?');
    res.redirect(302, `${pathPrefix(deps.publicUrl)}${slashed}${q >= 0 ? req.originalUrl.slice(q) : ''}`);
  });
  mountLogin(app, deps);
  mountTokenPages(app, deps);
}
