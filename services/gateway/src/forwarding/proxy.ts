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
            const f = forwardedFor(req, publicUrl);
            const { identity, requestId } = locals(res);
            proxyReq.setHeader('x-forwarded-host', f.host);
            proxyReq.setHeader('x-forwarded-proto', f.proto);
            proxyReq.setHeader('x-forwarded-for', f.for);
            // the client's address as the gateway decided it (TRUSTED_PROXIES): users' sign-in rate limits
            proxyReq.setHeader('x-real-ip', clientIp(req));
            proxyReq.setHeader('x-request-id', requestId);
            proxyReq.setHeader(IDENTITY_HEADER, minter.mint(identity, service));
          },
          proxyRes: (proxyRes, req) => {
            if (!SAFE_METHODS.has(req.method ?? 'GET') && (proxyRes.statusCode ?? 500) < 400) onWrite(service);
          },
          error: (err, req, res) => {
            log.warn({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code }, service, path: (req as Request).path, request_id: locals(res as Response).requestId }, 'service unavailable');
            const out = res as http.ServerResponse;
            if (typeof out.writeHead !== 'function') return; // websocket upgrade: not used
            if (out.headersSent) {
              out.destroy();
              return;
            }
            out.statusCode = 503;
            out.setHeader('Content-Type', 'application/json');
            out.end(JSON.stringify({ detail: `Service ${service} is unavailable.` }));
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
    close() {
      agent.destroy();
    },
  };
}
