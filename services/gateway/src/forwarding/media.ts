import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { MethodNotAllowed, NotFound } from '@inventory/core';
import type { ServiceProxies } from './proxy';
import { hasDotSegments } from './routing';

/** Uploaded files (NetBox's MEDIA_URL): image attachments' images, which extras stores and serves. */
export const MEDIA_PREFIX = '/media/';
const MEDIA_SERVICE = 'extras';

/**
 * `/media/...`: read-only, authenticated as the API is (a token, or the
 * browser's session cookie, which is what an `<img>` sends; anonymous
 * callers only without LOGIN_REQUIRED), proxied to extras, which checks the
 * caller may see the attachment and serves the file as the image it is.
 */
export function mountMedia(app: Express, deps: { authenticate: RequestHandler; proxies: ServiceProxies; urls: Record<string, string> }): void {
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith(MEDIA_PREFIX)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      throw new MethodNotAllowed(req.method);
    }
    if (hasDotSegments(req.path) || !(MEDIA_SERVICE in deps.urls)) throw new NotFound();
    await new Promise<void>((resolve, reject) => {
      Promise.resolve(deps.authenticate(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
    });
    return deps.proxies.forward(MEDIA_SERVICE, req, res, next);
  });
}
