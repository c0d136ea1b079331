import { HttpError, ServiceUnavailable, currentContext, parseServiceUrls } from '@inventory/core';
import { IDENTITY_HEADER, serviceIdentity, signIdentity } from '@inventory/auth';
import { contentType } from './catalogue';

/**
 * Calls another service's /internal/ endpoints with the calling service's own
 * identity. Services only ever talk HTTP to each other, even when they share
 * a process.
 */
export class ServiceClient {
  private readonly urls: Record<string, string>;
  /** One token per target service (each names its audience), renewed once a minute. */
  private readonly tokens = new Map<string, { token: string; renewAt: number }>();
  /** Deadline of one call: an owner that does not answer by then is a 503 naming it. */
  timeoutMs = 10_000;

  constructor(
    readonly self: string,
    serviceUrls: string | Record<string, string>,
    private readonly secret: string,
  ) {
    this.urls = typeof serviceUrls === 'string' ? parseServiceUrls(serviceUrls) : serviceUrls;
  }

  /** Whether the named service is part of this deployment. */
  has(service: string): boolean {
    return service in this.urls;
  }

  ownerOf(label: string): string {
    const ct = contentType(label);
    if (!ct) throw new Error(`unknown content type ${label}`);
    return ct.service;
  }

  services(): string[] {
    return Object.keys(this.urls);
  }

  /** This service's identity, signed for `service` only. */
  private identity(service: string): string {
    const now = Date.now();
    let t = this.tokens.get(service);
    if (!t || now > t.renewAt) {
      t = { token: signIdentity(this.secret, serviceIdentity(this.self), 120, service), renewAt: now + 60_000 };
      this.tokens.set(service, t);
    }
    return t.token;
  }

  async call<T>(service: string, method: string, path: string, body?: unknown): Promise<T> {
    const base = this.urls[service];
    if (!base) throw new ServiceUnavailable(`Service ${service} is not deployed.`);
    let res: Response;
    let text: string;
    try {
      const requestId = currentContext()?.requestId;
      res = await fetch(base + path, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          [IDENTITY_HEADER]: this.identity(service),
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError') throw new ServiceUnavailable(`Service ${service} did not answer within ${this.timeoutMs / 1000} s.`);
      throw new ServiceUnavailable(`Service ${service} is unreachable: ${e.message}`);
    }
    if (res.status === 503) throw new ServiceUnavailable(`Service ${service} is unavailable.`);
    // any other failure of the owner is a fault (a 500 here, logged), not an outage
    if (res.status >= 500) throw new Error(`Service ${service} answered ${res.status} to ${method} ${path}`);
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      throw new Error(`Service ${service} answered ${method} ${path} with a body that is not JSON`);
    }
    // a client error from the owner is the client's: passed through unchanged (e.g. a validation error)
    if (!res.ok) throw new HttpError(res.status, data);
    return data as T;
  }
}
