/**
 * IP networks and addresses as NetBox reads them (netaddr's IPNetwork): an
 * IPv4 or IPv6 address with an optional mask (`/24`, or an IPv4 netmask
 * `/255.255.255.0`); a bare address is a host (/32, /128). Pure parsing and
 * formatting only: containment, ordering and arithmetic are PostgreSQL's
 * (`cidr`/`inet` columns and operators), never done here.
 */

export interface IpNetwork {
  version: 4 | 6;
  /** The address, as an unsigned integer of 32 or 128 bits. */
  value: bigint;
  /** The mask length. */
  length: number;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

function parseV4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let out = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    out = (out << 8n) | BigInt(Number(p));
  }
  return out;
}

function parseV6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split('::').length > 2) return null;
  let tail: bigint | null = null;
  let body = text;
  // an embedded IPv4 address in the last 32 bits (`::ffff:192.0.2.1`)
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = parseV4(text.slice(lastColon + 1));
    if (tail === null) return null;
    body = `${text.slice(0, lastColon + 1)}0:0`;
    if (body.endsWith(':::0:0')) return null;
  }
  const [head, rest] = body.includes('::') ? body.split('::') : [body, null];
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(head);
  const right = rest === null ? [] : groups(rest);
  const total = left.length + right.length;
  if (rest === null ? total !== 8 : total > 7) return null;
  const all = [...left, ...Array<string>(8 - total).fill('0'), ...right];
  let out = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    out = (out << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail !== null) out = (out & ~0xffffffffn) | tail;
  return out;
}

/** A mask length from `/n` text or an IPv4 netmask; null when it is neither. */
function parseMask(text: string, version: 4 | 6): number | null {
  if (/^\d{1,3}$/.test(text)) {
    const n = Number(text);
    return n <= bitsOf(version) ? n : null;
  }
  if (version !== 4) return null;
  const mask = parseV4(text);
  if (mask === null) return null;
  const bin = mask.toString(2).padStart(32, '0');
  return /^1*0*$/.test(bin) ? bin.indexOf('0') === -1 ? 32 : bin.indexOf('0') : null;
}

/** Parses `address[/mask]`; null when it is not one. */
export function parseNetwork(input: unknown): IpNetwork | null {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (text === '' || text.length > 100) return null;
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const v4 = parseV4(addr);
  const version: 4 | 6 = v4 !== null ? 4 : 6;
  const value = v4 ?? parseV6(addr);
  if (value === null) return null;
  const length = slash < 0 ? bitsOf(version) : parseMask(text.slice(slash + 1), version);
  if (length === null) return null;
  return { version, value, length };
}

/** The network of an address: host bits cleared. */
export function networkOf(n: IpNetwork): IpNetwork {
  const host = hostBits(n);
  return { ...n, value: n.value & ~host };
}

const hostBits = (n: IpNetwork) => (1n << BigInt(bitsOf(n.version) - n.length)) - 1n;

/** The host bits are all zero (a valid prefix). */
export function isNetwork(n: IpNetwork): boolean {
  return (n.value & hostBits(n)) === 0n;
}

/** The address's text without mask: dotted quad, or IPv6 compressed in lower case (RFC 5952, as netaddr). */
export function formatAddress(version: 4 | 6, value: bigint): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  // an IPv4-mapped address keeps its dotted tail (netaddr and PostgreSQL alike)
  if (value >> 32n === 0xffffn) return `::ffff:${formatAddress(4, value & 0xffffffffn)}`;
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // the longest run of two or more zero groups (the first of equal runs) becomes `::`
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** `address/length`. */
export function formatNetwork(n: IpNetwork): string {
  return `${formatAddress(n.version, n.value)}/${n.length}`;
}

/**
 * The text of a stored `inet`/`cidr` value as NetBox shows it: always with
 * the mask (PostgreSQL leaves a host's `/32` or `/128` out of an inet's text).
 */
export function networkText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  if (s.includes('/')) return s;
  return `${s}/${s.includes(':') ? 128 : 32}`;
}
