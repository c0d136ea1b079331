import { HttpError, ServiceUnavailable, parseServiceUrls } from '@inventory/core';
import { IDENTITY_HEADER, serviceIdentity, signIdentity } from '@inventory/auth';
import { contentType } from './catalogue';

/**
 * Calls another service's /internal/ endpoints with the calling service's own
 * identity. Services only ever talk HTTP to each other, even when they share
 * a process.
 */
export class ServiceClient {
  private readonly urls: Record<string, string>;
  private token = '';
  private tokenExpires = 0;

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

  private identity(): string {
    const now = Date.now();
    if (now > this.tokenExpires) {
      this.token = signIdentity(this.secret, serviceIdentity(this.self), 120);
      this.tokenExpires = now + 60_000;
    }
    return this.token;
  }

  async call<T>(service: string, method: string, path: string, body?: unknown): Promise<T> {
    const base = this.urls[service];
    if (!base) throw new ServiceUnavailable(`Service ${service} is not deployed.`);
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', [IDENTITY_HEADER]: this.identity() },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ServiceUnavailable(`Service ${service} is unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    const data = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      // pass a client error from the owner through unchanged (e.g. a validation error)
      if (res.status < 500) throw new HttpError(res.status, data);
      throw new ServiceUnavailable(`Service ${service} failed: ${res.status}`);
    }
    return data as T;
  }
}
