import http from 'node:http';
import type { Request, Response, NextFunction } from 'express';
import { createProxyMiddleware, type RequestHandler } from 'http-proxy-middleware';
import { IDENTITY_HEADER } from '@inventory/auth';
import { DEFAULT_MAX_BODY_SIZE, PayloadTooLarge, type Logger } from '@inventory/core';
import { clientIp, forwardedFor } from './forwarded';
import { locals, type IdentityMinter } from '../auth/identity';

/**
 * Client headers a service must never see: credentials stay at the edge (the
 * signed identity replaces them), and the identity, request id and forwarding
 * headers are the gateway's to set, not the client's.
 */
const STRIPPED = ['authorization', 'proxy-authorization', 'cookie', IDENTITY_HEADER, 'x-request-id', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'];

/** A service that accepts the connection but never answers must not hold the client forever. */
const PROXY_TIMEOUT_MS = 120_000;

export interface ServiceProxies {
  /** Forwards the request to the named service (which must be in the map). */
  forward(service: string, req: Request, res: Response, next: NextFunction): Promise<void>;
  /** The fast path's GET or HEAD without a body: forwarded with node's http client alone (`forwardRead`). */
  forwardRead(service: string, req: http.IncomingMessage, res: http.ServerResponse): void;
  close(): void;
}

/** One proxy per service, sharing a keep-alive agent so each request does not pay a TCP handshake. */
/** Methods that never change anything. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createServiceProxies(
  urls: Record<string, string>,
  minter: IdentityMinter,
  publicUrl: string | undefined,
  log: Logger,
  maxBodySize = DEFAULT_MAX_BODY_SIZE,
  /** Called when a service accepted a write, before its answer reaches the client. */
  onWrite: (service: string) => void = () => undefined,
): ServiceProxies {
  // idle sockets are dropped before the services' 65 s keep-alive timeout, so a reused socket is never half-closed
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 30_000 });
  const proxies = new Map<string, RequestHandler<Request, Response>>();
  /** The headers a service gets beyond the client's: forwarding, request id, its signed identity (http-proxy's and forwardRead's). */
  const forwarding = (req: http.IncomingMessage, res: http.ServerResponse, service: string): Record<string, string> => {
    const f = forwardedFor(req, publicUrl);
    const { identity, requestId } = locals(res as Response);
    return {
      'x-forwarded-host': f.host,
      'x-forwarded-proto': f.proto,
      'x-forwarded-for': f.for,
      // the client's address as the gateway decided it (TRUSTED_PROXIES): users' sign-in rate limits
      'x-real-ip': clientIp(req),
      'x-request-id': requestId,
      [IDENTITY_HEADER]: minter.mint(identity, service),
    };
  };
  const unavailable = (err: Error, service: string, req: http.IncomingMessage, res: http.ServerResponse) => {
    log.warn({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code }, service, path: (req as Request).path ?? req.url, request_id: locals(res as Response).requestId }, 'service unavailable');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.statusCode = 503;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ detail: `Service ${service} is unavailable.` }));
  };
  const targets = new Map(Object.entries(urls).map(([service, target]) => [service, new URL(target)]));
  for (const [service, target] of Object.entries(urls)) {
    proxies.set(
      service,
      createProxyMiddleware<Request, Response>({
        target,
        agent,
        changeOrigin: false,
        proxyTimeout: PROXY_TIMEOUT_MS,
        on: {
          proxyReq: (proxyReq, req, res) => {
            for (const h of STRIPPED) proxyReq.removeHeader(h);
            for (const [k, v] of Object.entries(forwarding(req, res, service))) proxyReq.setHeader(k, v);
          },
          proxyRes: (proxyRes, req) => {
            if (!SAFE_METHODS.has(req.method ?? 'GET') && (proxyRes.statusCode ?? 500) < 400) onWrite(service);
          },
          error: (err, req, res) => {
            const out = res as http.ServerResponse;
            if (typeof out.writeHead !== 'function') return; // websocket upgrade: not used
            unavailable(err, service, req, out);
          },
        },
      }),
    );
  }
  return {
    forward(service, req, res, next) {
      const proxy = proxies.get(service);
      if (!proxy) throw new Error(`no proxy for ${service}`);
      // a body declared too large is never streamed to a service: read to its end and dropped, so the keep-alive connection stays usable
      if (Number(req.headers['content-length'] ?? 0) > maxBodySize) {
        req.resume();
        req.once('end', () => next(new PayloadTooLarge(maxBodySize)));
        return Promise.resolve();
      }
      return proxy(req, res, next);
    },
    forwardRead(service, req, res) {
      const target = targets.get(service);
      if (!target) throw new Error(`no proxy for ${service}`);
      forwardRead(target, agent, req, res, forwarding(req, res, service), (err) => unavailable(err, service, req, res));
    },
    close() {
      agent.destroy();
    },
  };
}

const STRIPPED_SET = new Set(STRIPPED);

/**
 * A read forwarded as http-proxy forwards it (the client's headers but the
 * stripped ones, the Host kept, the service's status and headers copied, its
 * body piped), with node's http client alone: http-proxy's and
 * http-proxy-middleware's passes per request were 13 % of the gateway's CPU
 * on the tenants list (decision 037). Only for requests without a body.
 */
function forwardRead(target: URL, agent: http.Agent, req: http.IncomingMessage, res: http.ServerResponse, extra: Record<string, string>, fail: (err: Error) => void): void {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !STRIPPED_SET.has(k)) headers[k] = v;
  Object.assign(headers, extra);
  const out = http.request({ agent, protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers });
  out.setTimeout(PROXY_TIMEOUT_MS, () => out.destroy(new Error('The service did not answer in time.')));
  // the client went away: so does the request to the service (its reset is no outage, as in http-proxy)
  let gone = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    gone = true;
    out.destroy();
  });
  out.on('error', (err) => {
    if (!gone && !res.writableEnded) fail(err);
  });
  out.on('response', (answer) => {
    // as http-proxy: a connection header the service did not send is the client's, else keep-alive
    if (!answer.headers.connection) res.setHeader('connection', req.headers.connection ?? 'keep-alive');
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) res.setHeader(k, v);
    res.statusCode = answer.statusCode ?? 502;
    if (answer.statusMessage) res.statusMessage = answer.statusMessage;
    answer.pipe(res);
  });
  out.end();
}
