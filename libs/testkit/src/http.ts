import * as http from 'node:http';
import { IDENTITY_HEADER, serviceIdentity, signIdentity, type Identity } from '@inventory/auth';

export const TEST_SECRET = 'test-internal-secret-0123456789abcdef';

export const superuser: Identity = {
  user: { id: 1, username: 'admin', is_superuser: true, is_staff: true, is_active: true },
  token: { id: 1, write_enabled: true },
  permissions: [],
};

/** A signed identity token for the service named `audience` (no other service accepts it). */
export function mintIdentity(identity: Identity, audience: string, secret = TEST_SECRET): string {
  return signIdentity(secret, identity, 300, audience);
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  /** A multipart/form-data body (fields and files, as pynetbox sends an upload): fetch writes the boundary. */
  form?: FormData;
  headers?: Record<string, string>;
  identity?: Identity | null;
}

export interface ClientDefaults {
  /** Identity minted for every request (a superuser when absent; null = none). */
  identity?: Identity | null;
  headers?: Record<string, string>;
  secret?: string;
  /** The service the minted identity is for (its `aud`); required unless no identity is ever minted. */
  audience?: string;
  /** Every request on a connection of its own (another client, as far as the server can tell), not fetch's pool. */
  newConnection?: boolean;
}

/** A small HTTP client for tests: JSON in, JSON out, with a minted identity unless told otherwise. */
export class Client {
  constructor(
    readonly base: string,
    private readonly defaults: ClientDefaults = {},
  ) {}

  withIdentity(identity: Identity | null): Client {
    return new Client(this.base, { ...this.defaults, identity });
  }

  /** The same client opening a new TCP connection for every request (a second client, not a kept-alive socket). */
  onNewConnections(): Client {
    return new Client(this.base, { ...this.defaults, newConnection: true });
  }

  /**
   * The same client calling as the service `caller` (an identity with the
   * service claim), as services call each other's /internal/ endpoints.
   */
  asService(caller: string): Client {
    return this.withIdentity(serviceIdentity(caller));
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.defaults.headers, ...opts.headers };
    const identity = opts.identity !== undefined ? opts.identity : this.defaults.identity !== undefined ? this.defaults.identity : superuser;
    if (identity) {
      if (!this.defaults.audience) throw new Error(`Client for ${this.base}: no audience to mint the identity for (pass { audience } or use stack.client(service))`);
      headers[IDENTITY_HEADER] = mintedFor(identity, this.defaults.audience, this.defaults.secret);
    }
    if (opts.form !== undefined) return viaFetch<T>(method, this.base + path, headers, opts.form);
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return send<T>(method, this.base + path, headers, body, this.defaults.newConnection ? false : keepAlive);
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('POST', path, { ...opts, body });
  }
  put<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PUT', path, { ...opts, body });
  }
  patch<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
  delete<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, { ...opts, body });
  }
  options<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('OPTIONS', path, opts);
  }
}

/**
 * Minted identities, reused while they have more than a minute to live: a
 * request costs no signature, and the service's cache of verified tokens
 * hits (a token minted per request never would).
 */
const minted = new Map<string, { token: string; until: number }>();
const IDENTITY_TTL_S = 300;

function mintedFor(identity: Identity, audience: string, secret = TEST_SECRET): string {
  const key = `${audience}\0${secret}\0${JSON.stringify(identity)}`;
  const hit = minted.get(key);
  if (hit && hit.until > Date.now()) return hit.token;
  const token = mintIdentity(identity, audience, secret);
  if (minted.size > 1000) minted.clear();
  minted.set(key, { token, until: Date.now() + (IDENTITY_TTL_S - 60) * 1000 });
  return token;
}

/**
 * Kept-alive connections for every client of the test process: node's own
 * http is several times cheaper per request than fetch, and the suite sends
 * hundreds of thousands of them. Idle sockets close before a server's
 * 5-second keep-alive would close them under a request.
 */
const keepAlive = new http.Agent({ keepAlive: true, timeout: 4_000 });

/** Multipart bodies (uploads) go through fetch, which writes the boundary. */
async function viaFetch<T>(method: string, url: string, headers: Record<string, string>, body: FormData): Promise<Reply<T>> {
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  return reply<T>(res.status, res.headers, await res.text());
}

function reply<T>(status: number, headers: Headers, text: string): Reply<T> {
  const parsed = text && (headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
  return { status, headers, body: parsed as T, text };
}

/**
 * One request: on a kept-alive connection, or (agent false) on a TCP
 * connection of its own, closed after the answer. A kept-alive socket the
 * server closed just as it was reused fails before any answer: that request
 * never reached the server and is sent again once, as node's docs advise.
 */
function send<T>(method: string, url: string, headers: Record<string, string>, body: string | undefined, agent: http.Agent | false, retried = false): Promise<Reply<T>> {
  // node sends a DELETE's (or GET's) body without a length unless told it: the server would see none
  const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: agent ? sent : { ...sent, connection: 'close' }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const replyHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          if (Array.isArray(v)) for (const one of v) replyHeaders.append(k, one);
          else replyHeaders.set(k, v);
        }
        try {
          resolve(reply<T>(res.statusCode ?? 0, replyHeaders, Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (agent && req.reusedSocket && !retried && err.code === 'ECONNRESET') resolve(send<T>(method, url, headers, body, agent, true));
      else reject(err);
    });
    req.end(body);
  });
}
