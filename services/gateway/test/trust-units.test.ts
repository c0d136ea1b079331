import type { IncomingMessage } from 'node:http';
import { createLogger } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import { TokenVerifier } from '@inventory/gateway';
import { TrustedProxies, clientIp, forwardedFor, identifyClient } from '../src/forwarding/forwarded';
import { parseCookies, serializeCookie } from '../src/auth/session';

/** Pure logic: the token cache's generation rule, cookies, and who the client is. */

const log = createLogger('test', 'silent');

/** A users service whose answers the test releases by hand. */
function controllableUsers() {
  const waiting: { body: { key: string }; resolve: (v: unknown) => void }[] = [];
  const client = {
    call: (_service: string, _method: string, _path: string, body: { key: string }) => new Promise((resolve) => waiting.push({ body, resolve })),
  } as unknown as ServiceClient;
  const answer = (i: number) =>
    waiting[i].resolve({
      identity: { user: { id: 7, username: 'u', is_superuser: false, is_staff: false, is_active: true }, token: { id: 3, write_enabled: true }, permissions: [] },
      token: { id: 3, expires: null },
    });
  return { client, waiting, answer };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('TokenVerifier generations', () => {
  test('when nothing is invalidated, then a verification is cached', async () => {
    const users = controllableUsers();
    const verifier = new TokenVerifier(users.client, 60_000, log);
    const first = verifier.verify('k', '192.0.2.1');
    await tick();
    users.answer(0);
    await first;
    await verifier.verify('k', '192.0.2.1');
    expect(users.waiting).toHaveLength(1);
  });

  test('when the token is revoked while its verification is in flight, then the answer is not cached and later requests ask again', async () => {
    const users = controllableUsers();
    const verifier = new TokenVerifier(users.client, 60_000, log);
    const inFlight = verifier.verify('k', '192.0.2.1');
    await tick();
    expect(users.waiting).toHaveLength(1);
    verifier.invalidate({ token_ids: [3] });
    // a request after the invalidation does not join the call that started before it
    const after = verifier.verify('k', '192.0.2.1');
    await tick();
    expect(users.waiting).toHaveLength(2);
    users.answer(0); // the stale answer arrives last-but-one: it must not be cached
    expect((await inFlight).tokenId).toBe(3);
    users.answer(1);
    await after;
    // the answer asked for after the invalidation is cached
    await verifier.verify('k', '192.0.2.1');
    expect(users.waiting).toHaveLength(2);
  });

  test('when the whole cache is invalidated during a verification, then that answer is not cached either', async () => {
    const users = controllableUsers();
    const verifier = new TokenVerifier(users.client, 60_000, log);
    const inFlight = verifier.verify('k', '192.0.2.1');
    await tick();
    verifier.invalidate();
    users.answer(0);
    await inFlight;
    const again = verifier.verify('k', '192.0.2.1');
    await tick();
    expect(users.waiting).toHaveLength(2);
    users.answer(1);
    await again;
  });
});

describe('cookies', () => {
  const ODD = ['a b;c=d,e', '"quoted"', 'pct%41%zz', 'unicode é ✓', '=leading=equals=', ''];

  test('when odd values are serialised and parsed back, then they round-trip', () => {
    for (const value of ODD) {
      const line = serializeCookie('name', value, { maxAgeSeconds: 60, httpOnly: true, secure: false });
      const pair = line.split('; ')[0];
      expect(parseCookies(`other=1; ${pair}; last=2`)).toEqual({ other: '1', name: value, last: '2' });
    }
  });

  test('when a Set-Cookie line is made, then it has Path=/, SameSite=Lax, Max-Age and Expires, HttpOnly and Secure as asked', () => {
    const line = serializeCookie('sessionid', 'v', { maxAgeSeconds: 1209600, httpOnly: true, secure: true });
    expect(line).toMatch(/^sessionid=v; /);
    for (const attr of [/; Path=\/(;|$)/, /; SameSite=Lax(;|$)/, /; Max-Age=1209600(;|$)/, /; Expires=[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} /, /; HttpOnly(;|$)/, /; Secure(;|$)/]) expect(line).toMatch(attr);
    const deleted = serializeCookie('csrftoken', '', { maxAgeSeconds: 0, httpOnly: false, secure: false });
    expect(deleted).toMatch(/^csrftoken=; Max-Age=0; /);
    expect(deleted).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    expect(deleted).not.toMatch(/HttpOnly|Secure/);
  });

  test('when a Cookie header repeats a name, quotes a value or is malformed, then the first occurrence wins and nothing throws', () => {
    expect(parseCookies('csrftoken=first; csrftoken=second')).toEqual({ csrftoken: 'first' });
    expect(parseCookies('a="quoted value"; b=%E2%9C%93; c=%E0%A4%A')).toEqual({ a: 'quoted value', b: '✓', c: '%E0%A4%A' });
    expect(parseCookies('; =nameless; novalue; __proto__=x; ok=1;')).toEqual({ ok: '1' });
    expect(parseCookies(undefined)).toEqual({});
    expect(parseCookies('')).toEqual({});
  });
});

describe('who the client is', () => {
  const request = (peer: string, headers: Record<string, string> = {}, encrypted = false) =>
    ({ socket: { remoteAddress: peer, encrypted }, headers: { host: 'gw.local:8000', ...headers } }) as unknown as IncomingMessage;
  const SPOOF = { 'x-forwarded-for': '203.0.113.1', 'x-real-ip': '203.0.113.2', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };

  test('when the peer is not trusted, then forwarding headers are ignored', () => {
    const req = request('192.0.2.10', SPOOF);
    identifyClient(req, new TrustedProxies('10.0.0.0/8'));
    expect(clientIp(req)).toBe('192.0.2.10');
    expect(forwardedFor(req)).toEqual({ host: 'gw.local:8000', proto: 'http', for: '192.0.2.10' });
    // a request never identified is treated the same way
    expect(clientIp(request('192.0.2.11', SPOOF))).toBe('192.0.2.11');
    expect(forwardedFor(request('::ffff:192.0.2.12', SPOOF), 'https://netbox.example.com/')).toEqual({ host: 'netbox.example.com', proto: 'https', for: '192.0.2.12' });
  });

  test('when the peer is trusted, then X-Forwarded-For is walked from the right past trusted hops', () => {
    const trusted = new TrustedProxies('10.0.0.0/8, 2001:db8::/32');
    const client = (peer: string, headers: Record<string, string>) => {
      const req = request(peer, headers);
      identifyClient(req, trusted);
      return clientIp(req);
    };
    expect(client('10.0.0.1', { 'x-forwarded-for': '198.51.100.1, 203.0.113.5, 10.9.9.9' })).toBe('203.0.113.5');
    expect(client('::ffff:10.0.0.1', { 'x-forwarded-for': '203.0.113.5:4431' })).toBe('203.0.113.5');
    expect(client('2001:db8::1', { 'x-forwarded-for': '[2001:db8:1::5]:80, [2001:db9::7]:443' })).toBe('2001:db9::7');
    expect(client('10.0.0.1', { 'x-forwarded-for': '10.1.1.1, 10.2.2.2' })).toBe('10.1.1.1'); // all trusted: the leftmost
    expect(client('10.0.0.1', { 'x-real-ip': '203.0.113.9' })).toBe('203.0.113.9');
    expect(client('10.0.0.1', { 'x-forwarded-for': '203.0.113.5', 'x-real-ip': '198.51.100.66' })).toBe('203.0.113.5');
    expect(client('10.0.0.1', {})).toBe('10.0.0.1');
    const req = request('10.0.0.1', { 'x-forwarded-for': '203.0.113.5', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'netbox.example.com' });
    identifyClient(req, trusted);
    expect(forwardedFor(req)).toEqual({ host: 'netbox.example.com', proto: 'https', for: '203.0.113.5, 10.0.0.1' });
    const odd = request('10.0.0.1', { 'x-forwarded-proto': 'gopher' }, true);
    identifyClient(odd, trusted);
    expect(forwardedFor(odd).proto).toBe('https'); // not a scheme we know: the connection's own
  });

  test('when TRUSTED_PROXIES is malformed, then it throws naming the entry', () => {
    expect(() => new TrustedProxies('10.0.0.0/8,nope')).toThrow('"nope" is not an IP address or CIDR network');
    expect(() => new TrustedProxies('10.0.0.0/40')).toThrow(/10\.0\.0\.0\/40/);
    expect(() => new TrustedProxies('10.0.0.0/')).toThrow();
    expect(new TrustedProxies('').has('127.0.0.1')).toBe(false);
    expect(new TrustedProxies('192.0.2.1').has('192.0.2.1')).toBe(true);
    expect(new TrustedProxies('192.0.2.1').has('192.0.2.2')).toBe(false);
  });
});
