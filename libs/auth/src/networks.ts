import { BlockList, isIP } from 'node:net';
import { formatAddress, parseNetwork as parseIpNetwork } from '@inventory/core';

/** One `allowed_ips` entry: an IPv4/IPv6 address with an optional prefix length. */
export interface Network {
  address: string;
  prefix: number;
  family: 4 | 6;
}

/**
 * Parses `192.0.2.0/24`, `2001:db8::/32` or a bare address (a host network)
 * with the API's parser (netaddr's rules, libs/core network.ts), the address
 * in its canonical text; null when invalid.
 */
export function parseNetwork(value: unknown): Network | null {
  const n = parseIpNetwork(value);
  return n ? { address: formatAddress(n.version, n.value), prefix: n.length, family: n.version } : null;
}

/** Canonical text as NetBox prints it (`192.0.2.1` → `192.0.2.1/32`). */
export function formatNetwork(n: Network): string {
  return `${n.address}/${n.prefix}`;
}

/** The client IP as gateways pass it: tolerates `host:port` and `[v6]:port` forms. */
export function normaliseClientIp(value: string): string | null {
  const v = value.trim();
  if (isIP(v)) return v.toLowerCase().startsWith('::ffff:') && isIP(v.slice(7)) === 4 ? v.slice(7) : v;
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracket && isIP(bracket[1]) === 6) return bracket[1];
  const hostPort = /^([^:]+):\d+$/.exec(v);
  if (hostPort && isIP(hostPort[1]) === 4) return hostPort[1];
  return null;
}

/** Whether an address lies inside any of the networks. */
export function ipAllowed(ip: string, networks: string[]): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  const list = new BlockList();
  for (const text of networks) {
    const n = parseNetwork(text);
    if (n) list.addSubnet(n.address, n.prefix, n.family === 4 ? 'ipv4' : 'ipv6');
  }
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
