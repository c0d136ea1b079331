import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { HttpError, SERVER_ERROR, sendJson, type HttpMetrics, type Logger } from '@inventory/core';
import { requireWritable } from '../auth/auth';
import { beginRequest } from './request-id';
import { clientIp, identifyClient, type TrustedProxies } from './forwarded';
import { refuseHost, type AllowedHosts } from './allowed-hosts';
import type { GatewayLocals } from '../auth/identity';
import type { ServiceProxies } from './proxy';
import { formatParam, prefersHtml } from '../pages/negotiation';
import { routeFor } from './routing';
import { parseAuthorization, type TokenVerifier } from '../auth/tokens';

const PROVISION_PATH = '/api/users/tokens/provision/';

/**
 * The hot path: a request with `Authorization: Token ...` for an endpoint of a
 * deployed service goes from the HTTP server straight to the proxy, skipping
 * express's router and middleware chain: that halved the gateway's CPU per
 * proxied request (0.7 ms to 0.4 ms, measured with bench/). It does exactly what that chain
 * does for such a request: request id, API-Version, token verification,
 * the write_enabled rule, the identity for the proxy. Everything else
 * (anonymous callers, cookie sessions, redirects, roots, status, docs,
 * provisioning, malformed headers, browsers asking for HTML) takes the express app.
 */
export function withFastPath(app: RequestListener, deps: { verifier: TokenVerifier; proxies: ServiceProxies; urls: Record<string, string>; log: Logger; trusted: TrustedProxies; allowed: AllowedHosts; metrics: HttpMetrics }): RequestListener {
  return (req, res) => {
    // every request, fast or not: forwarding headers are believed only from TRUSTED_PROXIES
    const view = identifyClient(req, deps.trusted);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const pathname = q >= 0 ? url.slice(0, q) : url;
    // and answered only for the hosts ALLOWED_HOSTS names (its links carry the host)
    if (refuseHost(res, deps.allowed, view.host, pathname)) return;
    const header = req.headers.authorization;
    if (!header || !pathname.endsWith('/') || pathname === PROVISION_PATH) return app(req, res);
    // a browser asking for the browsable API's page (one string search for a JSON client)
    const accept = req.headers.accept;
    if (((accept !== undefined && accept.includes('text/')) || (q >= 0 && url.includes('format=', q))) && prefersHtml(accept, formatParam(url))) return app(req, res);
    const route = routeFor(pathname);
    if (!route || route.root || !(route.service in deps.urls)) return app(req, res);
    let key: string;
    try {
      const credentials = parseAuthorization(header);
      if (credentials.kind !== 'token') return app(req, res);
      key = credentials.key;
    } catch {
      return app(req, res); // the express chain answers malformed headers
    }
    const requestId = beginRequest(req, res, pathname, deps.log, deps.metrics);
    const fail = (err: unknown) => sendError(res, err, deps.log, requestId);
    deps.verifier.verify(key, clientIp(req)).then((verified) => {
      try {
        requireWritable(req.method, verified.identity);
      } catch (err) {
        return fail(err);
      }
      (res as unknown as { locals: GatewayLocals }).locals = { requestId, identity: verified.identity };
      // a read without a body (the lists): node's http client alone, no http-proxy (proxy.ts)
      if (req.method === 'GET' && !hasBody(req)) {
        try {
          return deps.proxies.forwardRead(route.service, req, res);
        } catch (err) {
          return fail(err);
        }
      }
      deps.proxies.forward(route.service, req as Request, res as unknown as Response, ((err?: unknown) => (err ? fail(err) : undefined)) as NextFunction).catch(fail);
    }, fail);
  };
}

/** Whether a request says it carries a body. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function sendError(res: ServerResponse, err: unknown, log: Logger, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof HttpError) return sendJson(res, err.status, err.body);
  log.error({ err, request_id: requestId }, 'unhandled error');
  sendJson(res, 500, SERVER_ERROR);
}

