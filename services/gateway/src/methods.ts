import type { Express, Request, Response } from 'express';
import { MethodNotAllowed } from '@inventory/core';

type Handler = (req: Request, res: Response) => void | Promise<void>;

/**
 * A read-only endpoint the gateway answers itself, with DRF's method rules:
 * GET/HEAD answer, OPTIONS describes the view, anything else is 405.
 */
export function ownRoute(app: Express, path: string, handler: Handler, name = titleOf(path)): void {
  app.all(path, async (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') return handler(req, res);
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.json({ name, description: '', renders: ['application/json', 'text/html'], parses: ['application/json'] });
      return;
    }
    throw new MethodNotAllowed(req.method);
  });
}

function titleOf(path: string): string {
  const last = path.split('/').filter(Boolean).pop() ?? 'api';
  const words = last === 'api' ? ['API', 'Root'] : last.split('-');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
