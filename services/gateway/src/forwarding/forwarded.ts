import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { normaliseClientIp, parseNetwork } from '@inventory/auth';
import type { TLSSocket } from 'node:tls';

/**
 * Who the client is and how it reached us.
 *
 * X-Forwarded-For, X-Real-IP, X-Forwarded-Proto and X-Forwarded-Host are
 * believed only when the peer (the TCP connection's address) is one of
 * TRUSTED_PROXIES (default: none). Otherwise the gateway is the edge: the
 * client is the peer, and the Host header and the connection's scheme are
 * what it used. From a trusted peer, the client is X-Real-IP, else the
 * rightmost address of X-Forwarded-For (with the peer appended) that is not
 * itself a trusted proxy, or X-Real-IP when there is no X-Forwarded-For.
 *
 * The decision is taken once per request, where the request enters the
 * gateway (`identifyClient`, called by the server's listener) and read by
 * everything else (`clientIp`, `forwardedFor`, `baseUrl`); a request that was
 * never identified is treated as coming from an untrusted peer.
 */

/** TRUSTED_PROXIES: comma-separated addresses or CIDR networks. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  /** Throws, naming the entry, on anything that is not an address or network. */
  constructor(value = '') {
    const entries = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const n = parseNetwork(entry);
      if (!n) throw new Error(`"${entry}" is not an IP address or CIDR network`);
      // an IPv4 peer may show up as ::ffff:a.b.c.d on a dual-stack socket; normaliseClientIp handles that side
      this.list.addSubnet(n.address, n.prefix, n.family === 4 ? 'ipv4' : 'ipv6');
    }
    this.size = entries.length;
  }

  has(ip: string | undefined): boolean {
    if (!ip || this.size === 0) return false;
    const family = isIP(ip);
    if (family === 0) return false;
    return this.list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** What the gateway believes about a request's client. */
export interface ClientView {
  /** The client's address ('' when the socket has none). */
  ip: string;
  /** Host and scheme the client used (before PUBLIC_URL). */
  host: string;
  proto: string;
  /** X-Forwarded-For to pass on: the trusted chain with the peer appended, or the peer alone. */
  chain: string;
}

const views = new WeakMap<IncomingMessage, ClientView>();
const NO_TRUST = new TrustedProxies('');

/** Decides (once) who the client of this request is; later calls return the same answer. */
export function identifyClient(req: IncomingMessage, trusted: TrustedProxies): ClientView {
  let view = views.get(req);
  if (!view) {
    view = computeView(req, trusted);
    views.set(req, view);
  }
  return view;
}

function viewOf(req: IncomingMessage): ClientView {
  return views.get(req) ?? identifyClient(req, NO_TRUST);
}

function computeView(req: IncomingMessage, trusted: TrustedProxies): ClientView {
  const rawPeer = req.socket?.remoteAddress ?? '';
  const peer = normaliseClientIp(rawPeer) ?? rawPeer;
  const ownHost = req.headers.host || 'localhost';
  const ownProto = (req.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http';
  if (!trusted.has(peer)) return { ip: peer, host: ownHost, proto: ownProto, chain: peer };

  const xff = headerValue(req.headers['x-forwarded-for']);
  const hops = (xff ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // right to left: skip the trusted proxies; the first address they vouch for that is not one of them is the client
  let ip = peer;
  for (let i = hops.length - 1; i >= 0 && trusted.has(ip); i--) ip = normaliseClientIp(hops[i]) ?? hops[i];
  // X-Real-IP only without X-Forwarded-For: a proxy that appends to the latter may pass a client's X-Real-IP through untouched
  const realIp = hops.length === 0 ? normaliseClientIp(first(req.headers['x-real-ip']) ?? '') : null;
  if (realIp) ip = realIp;
  const proto = first(req.headers['x-forwarded-proto'])?.toLowerCase();
  return {
    ip,
    host: first(req.headers['x-forwarded-host']) ?? ownHost,
    proto: proto === 'http' || proto === 'https' ? proto : ownProto,
    chain: [xff, peer].filter(Boolean).join(', '),
  };
}

/**
 * How the client reached us, for the services' absolute URLs: PUBLIC_URL when
 * configured (so every service builds the same URLs as the gateway), else
 * what a trusted proxy in front of the gateway said, else our own Host and scheme.
 */
export interface Forwarded {
  host: string;
  proto: string;
  /** X-Forwarded-For to send on (see ClientView.chain). */
  for: string;
}

export function forwardedFor(req: IncomingMessage, publicUrl?: string): Forwarded {
  const view = viewOf(req);
  const pub = publicUrl ? new URL(publicUrl) : null;
  return { host: pub?.host ?? view.host, proto: pub?.protocol.replace(/:$/, '') ?? view.proto, for: view.chain };
}

/** `<scheme>://<host>` (or PUBLIC_URL) without a trailing slash. */
export function baseUrl(req: IncomingMessage, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const f = forwardedFor(req);
  return `${f.proto}://${f.host}`;
}

/** The client's address (for allowed_ips and the sign-in rate limits). */
export function clientIp(req: IncomingMessage): string {
  return viewOf(req).ip;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function first(v: string | string[] | undefined): string | undefined {
  const s = headerValue(v)?.split(',')[0].trim();
  return s ? s : undefined;
}
