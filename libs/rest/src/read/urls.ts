import type { Request } from 'express';

/**
 * Absolute base URL of the API as the client sees it: a configured public URL,
 * else the forwarded host and scheme set by the gateway, else the Host header.
 */
export function baseUrl(req: Request, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/$/, '');
  const fwdHost = first(req.headers['x-forwarded-host']);
  const fwdProto = first(req.headers['x-forwarded-proto']);
  const host = fwdHost ?? req.headers.host ?? 'localhost';
  const proto = fwdProto ?? (req.socket && 'encrypted' in req.socket ? 'https' : 'http');
  return `${proto}://${host}`;
}

function first(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.split(',')[0].trim() : undefined;
}
