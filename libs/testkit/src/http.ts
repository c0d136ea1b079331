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
      headers[IDENTITY_HEADER] = mintIdentity(identity, this.defaults.audience, this.defaults.secret);
    }
    let body: string | FormData | undefined;
    if (opts.form !== undefined) body = opts.form;
    else if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    if (this.defaults.newConnection && !(body instanceof FormData)) return oneConnection<T>(method, this.base + path, headers, body);
    const res = await fetch(this.base + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
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

/** One request on a TCP connection of its own, closed after the answer. */
function oneConnection<T>(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<Reply<T>> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const replyHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) replyHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
        const parsed = text && (res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers: replyHeaders, body: parsed as T, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
