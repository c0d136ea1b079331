import type { NextFunction, Request, Response } from 'express';

/**
 * Every API path ends with `/`. Without it: 302 to the same path with the
 * slash and the query string kept, for every method (the seed says 302;
 * NetBox's Django answers 301).
 */
export function trailingSlash() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    if ((path === '/api' || path.startsWith('/api/')) && !path.endsWith('/')) {
      const q = req.originalUrl.indexOf('?');
      res.redirect(302, `${path}/${q >= 0 ? req.originalUrl.slice(q) : ''}`);
      return;
    }
    next();
  };
}
