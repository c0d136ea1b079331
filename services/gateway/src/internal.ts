import type { Express, NextFunction, Request, Response } from 'express';
import { NotFound, jsonBody } from '@inventory/core';
import { IDENTITY_HEADER, verifyIdentity } from '@inventory/auth';
import type { TokenVerifier } from './tokens';

/**
 * `/internal/...` is never routed to a service. The gateway has one internal
 * endpoint of its own, for services only: anything else, or a caller without
 * a service identity signed for the gateway (audience `gateway`), sees the
 * same 404 as an unknown path (nothing to probe).
 */
export function mountInternal(app: Express, secret: string, verifier: Pick<TokenVerifier, 'invalidate'>): void {
  const serviceOnly = (req: Request, _res: Response, next: NextFunction): void => {
    let service: string | undefined;
    try {
      service = verifyIdentity(secret, req.headers[IDENTITY_HEADER] as string | undefined, 'gateway').service;
    } catch {
      service = undefined;
    }
    if (!service) return next(new NotFound());
    next();
  };

  // body `{}` drops every cached verification; `{token_ids: [..]}` / `{user_ids: [..]}` only those
  app.post('/internal/auth/invalidate', serviceOnly, jsonBody(64 * 1024), (req, res) => {
    const body = (req.body ?? {}) as { token_ids?: unknown; user_ids?: unknown };
    const ids = (v: unknown): number[] | undefined => (Array.isArray(v) ? v.map(Number).filter(Number.isFinite) : undefined);
    const dropped = verifier.invalidate({ token_ids: ids(body.token_ids), user_ids: ids(body.user_ids) });
    res.json({ dropped });
  });

  app.use((req, _res, next) => {
    if (req.path === '/internal' || req.path.startsWith('/internal/')) return next(new NotFound());
    next();
  });
}
