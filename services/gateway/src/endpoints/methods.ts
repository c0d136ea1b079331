import type { Express, Request, Response } from 'express';
import { MethodNotAllowed } from '@inventory/core';
import type { BrowsableApi } from '../pages/browsable';
import { titleOf } from '../pages/browsable-view';
import { wantsHtml } from '../pages/html';

/** Returns the JSON answer (sent as JSON, or as the browsable page to a browser), or sends the response itself and returns nothing. */
type Handler = (req: Request, res: Response) => unknown;

/**
 * A read-only endpoint the gateway answers itself, with DRF's method rules:
 * GET/HEAD answer, OPTIONS describes the view, anything else is 405. With
 * `pages`, a browser gets the JSON answers as the browsable API's page.
 */
export function ownRoute(app: Express, path: string, handler: Handler, opts: { name?: string; pages?: BrowsableApi } = {}): void {
  const name = opts.name ?? titleOf(path);
  const respond = (req: Request, res: Response, body: unknown) => {
    if (opts.pages && wantsHtml(req)) opts.pages.own(req, res, name, body);
    else res.json(body);
  };
  app.all(path, async (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      const body = await handler(req, res);
      if (body !== undefined) respond(req, res, body);
      return;
    }
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    if (req.method === 'OPTIONS') return respond(req, res, { name, description: '', renders: ['application/json', 'text/html'], parses: ['application/json'] });
    throw new MethodNotAllowed(req.method);
  });
}
