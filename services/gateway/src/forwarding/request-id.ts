import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { routePattern, type HttpMetrics, type Logger } from '@inventory/core';
import { locals } from '../auth/identity';
import { routeFor } from './routing';
import { API_VERSION } from '../endpoints/status';

/**
 * Every request gets a fresh UUID v4 (a client-supplied X-Request-ID is
 * ignored: it ends up in the change log, so it must be ours), returned to the
 * client and forwarded to the service. Every /api/ response, errors and
 * redirects included, carries API-Version.
 */
export function requestContext(log: Logger, metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    locals(res).requestId = beginRequest(req, res, req.path, log, metrics);
    // no AsyncLocalStorage here: it adds work to every promise on the proxy path, and the
    // gateway's log lines carry the request id themselves (res.locals)
    next();
  };
}

/**
 * The route label of a gateway request: the pattern of the gateway's own
 * route that answered, or for a request meant for a service (proxied, or
 * refused on its way) its area, `/api/dcim/*` (the service's own metrics
 * break that down by its routes): never the URL.
 */
export function gatewayRoute(path: string): (req: IncomingMessage) => string | null {
  return (req) => {
    const own = routePattern(req);
    if (own) return own;
    const route = routeFor(path);
    return route ? `/api/${route.area}/${route.root ? '' : '*'}` : null;
  };
}

/** Request id, API-Version, metrics and the access log line: what every answer of the gateway carries. Returns the id. */
export function beginRequest(req: IncomingMessage, res: ServerResponse, path: string, log: Logger, metrics: HttpMetrics): string {
  metrics.observe(req, res, gatewayRoute(path));
  const requestId = randomUUID();
  res.setHeader('X-Request-ID', requestId);
  if (path === '/api' || path.startsWith('/api/')) res.setHeader('API-Version', API_VERSION);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    // path only: query strings are the client's business and may carry anything
    log.info({ request_id: requestId, method: req.method, path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
  });
  return requestId;
}
