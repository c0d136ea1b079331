import type { ServerResponse } from 'node:http';

/**
 * Django's ALLOWED_HOSTS: the hosts the API answers for, from the Host
 * header (or, behind TRUSTED_PROXIES, X-Forwarded-Host). Without it a
 * client's `Host: evil.example` would come back in every `url` and `next`
 * link (pynetbox follows `next`). Comma-separated; `*` allows any host, a
 * leading dot a domain and its subdomains (`.example.com`), anything else
 * one host; the port is not compared. Health and metrics paths answer
 * whatever the host (probes call pods by address).
 */
export class AllowedHosts {
  private readonly any: boolean;
  private readonly exact = new Set<string>();
  private readonly domains: string[] = [];

  /** Throws, naming the entry, on one that is no host pattern. */
  constructor(value = '*') {
    const entries = value
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    this.any = entries.includes('*');
    for (const entry of entries) {
      if (entry === '*') continue;
      if (!/^\.?[a-z0-9_.:[\]-]+$/.test(entry)) throw new Error(`"${entry}" is not a host name, a .domain or *`);
      if (entry.startsWith('.')) this.domains.push(entry);
      else this.exact.add(entry.replace(/\.$/, ''));
    }
  }

  allows(host: string): boolean {
    if (this.any) return true;
    const name = hostName(host);
    if (name === null) return false;
    if (this.exact.has(name)) return true;
    return this.domains.some((d) => name === d.slice(1) || name.endsWith(d));
  }
}

/** The host of a Host header without its port, lower case, no trailing dot; null when it is no host (Django's split_domain_port). */
function hostName(host: string): string | null {
  const h = host.trim().toLowerCase();
  if (!/^([a-z0-9_.-]+|\[[a-f0-9:.]+\])(:\d+)?$/.test(h)) return null;
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.split(':')[0];
  return name.replace(/\.$/, '');
}

const EXEMPT = new Set(['/healthz', '/readyz', '/metrics']);

/** Answers 400 (as Django does) when the request's host (as the gateway believes it) is not allowed; true when it was answered. */
export function refuseHost(res: ServerResponse, allowed: AllowedHosts, host: string, pathname: string): boolean {
  if (allowed.allows(host) || EXEMPT.has(pathname)) return false;
  const shown = host.replace(/'/g, '');
  const body = JSON.stringify({ detail: `Invalid HTTP_HOST header: '${shown}'. You may need to add '${hostName(shown) ?? shown}' to ALLOWED_HOSTS.` });
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}
