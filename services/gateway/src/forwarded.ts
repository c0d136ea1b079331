import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/**
 * How the client reached us, for the services' absolute URLs: PUBLIC_URL when
 * configured (so every service builds the same URLs as the gateway), else what
 * a proxy in front of the gateway (ingress) set in X-Forwarded-Host/Proto,
 * else the gateway is the edge and its Host header and scheme are what the
 * client used.
 */
export interface Forwarded {
  host: string;
  proto: string;
  /** X-Forwarded-For with the client's address appended. */
  for: string;
}

export function forwardedFor(req: IncomingMessage, publicUrl?: string): Forwarded {
  const pub = publicUrl ? new URL(publicUrl) : null;
  const host = pub?.host ?? first(req.headers['x-forwarded-host']) ?? req.headers.host ?? 'localhost';
  const proto = pub?.protocol.replace(/:$/, '') ?? first(req.headers['x-forwarded-proto']) ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
  const chain = [headerValue(req.headers['x-forwarded-for']), req.socket.remoteAddress].filter(Boolean).join(', ');
  return { host, proto, for: chain };
}

/** `<scheme>://<host>` (or PUBLIC_URL) without a trailing slash. */
export function baseUrl(req: IncomingMessage, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const f = forwardedFor(req);
  return `${f.proto}://${f.host}`;
}

/** NetBox's rule for the client address: X-Real-IP, else X-Forwarded-For, else the peer. */
export function clientIp(req: IncomingMessage): string {
  return first(req.headers['x-real-ip']) ?? first(req.headers['x-forwarded-for']) ?? req.socket.remoteAddress ?? '';
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function first(v: string | string[] | undefined): string | undefined {
  const s = headerValue(v)?.split(',')[0].trim();
  return s ? s : undefined;
}
