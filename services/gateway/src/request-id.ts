import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@inventory/core';
import { locals } from './identity';
import { API_VERSION } from './status';

/**
 * Every request gets a fresh UUID v4 (a client-supplied X-Request-ID is
 * ignored: it ends up in the change log, so it must be ours), returned to the
 * client and forwarded to the service. Every /api/ response, errors and
 * redirects included, carries API-Version.
 */
export function requestContext(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = randomUUID();
    locals(res).requestId = requestId;
    res.setHeader('X-Request-ID', requestId);
    if (req.path === '/api' || req.path.startsWith('/api/')) res.setHeader('API-Version', API_VERSION);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // path only: query strings are the client's business and may carry anything
      log.info({ request_id: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
    });
    // no AsyncLocalStorage here: it cost a fifth of the gateway's CPU per request, and the
    // gateway's log lines carry the request id themselves (res.locals)
    next();
  };
}
