import type { Express } from 'express';
import { NotFound } from '@inventory/core';

/**
 * `/internal/...` is never routed to a service, and the gateway has none of
 * its own (caches are dropped on change events): every such path is the
 * same 404 as an unknown one (nothing to probe).
 */
export function mountInternal(app: Express): void {
  app.use((req, _res, next) => {
    if (req.path === '/internal' || req.path.startsWith('/internal/')) return next(new NotFound());
    next();
  });
}
