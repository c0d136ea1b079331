import { readConfig } from '@inventory/core';
import { bootStack, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createGateway, gatewayConfig, type Gateway } from '@inventory/gateway';

/**
 * X-Forwarded-For, X-Real-IP, X-Forwarded-Proto and X-Forwarded-Host count
 * only from TRUSTED_PROXIES: the same requests through a gateway that trusts
 * nobody (the default) and one that trusts 127.0.0.1 (where these tests
 * connect from), against the real users service (allowed_ips, sign-in).
 */

const PASSWORD = 'proxy-user-password-1';
const NOT_PERMITTED = (ip: string) => `Source IP ${ip} is not permitted to authenticate using this token.`;

let stack: Stack;
let untrusted: string;
let trusted: string;
let trustedGateway: Gateway;
let key: string;

function gatewayFor(cfg: { INTERNAL_TOKEN_SECRET: string; SERVICE_URLS: string; PORT: number }, env: Record<string, string> = {}): Gateway {
  return createGateway(
    readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET, SERVICE_URLS: cfg.SERVICE_URLS, PORT: String(cfg.PORT), LOG_LEVEL: 'silent', ...env }),
  );
}

beforeAll(async () => {
  stack = await bootStack({ users, gateway: (cfg) => gatewayFor(cfg) }, {}, { template: true });
  untrusted = stack.urls.gateway;
  const cfg = stack.config('gateway');
  trustedGateway = gatewayFor({ ...cfg, PORT: 0 }, { TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1/32,::1' });
  trusted = (await trustedGateway.start(0)).url;
  const admin = stack.client('users');
  const user = await admin.post('/api/users/users/', { username: 'proxied', password: PASSWORD });
  expect(user.status).toBe(201);
  const token = await admin.post('/api/users/tokens/', { user: user.body.id, allowed_ips: ['203.0.113.0/24'] });
  expect(token.status).toBe(201);
  key = token.body.key;
});
afterAll(async () => {
  await trustedGateway?.stop();
  await stack?.stop();
});

async function withToken(base: string, headers: Record<string, string>): Promise<{ status: number; detail: unknown }> {
  const res = await fetch(`${base}/api/users/config/`, { headers: { accept: 'application/json', authorization: `Token ${key}`, ...headers } });
  return { status: res.status, detail: ((await res.json()) as { detail?: unknown }).detail };
}

/** Signs in through the login form; the session cookie's Set-Cookie line. */
async function sessionCookie(base: string, headers: Record<string, string>): Promise<string> {
  const form = await fetch(`${base}/login/`, { headers });
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await form.text())![1];
  const res = await fetch(`${base}/login/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrfmiddlewaretoken: csrf, username: 'proxied', password: PASSWORD, next: '/api/' }).toString(),
  });
  expect(res.status).toBe(302);
  return res.headers.getSetCookie().find((c) => c.startsWith('sessionid='))!;
}

describe('without TRUSTED_PROXIES', () => {
  test('when a client sends X-Forwarded-For or X-Real-IP, then allowed_ips still sees the connection address', async () => {
    expect(await withToken(untrusted, {})).toEqual({ status: 403, detail: NOT_PERMITTED('127.0.0.1') });
    expect(await withToken(untrusted, { 'x-forwarded-for': '203.0.113.7' })).toEqual({ status: 403, detail: NOT_PERMITTED('127.0.0.1') });
    expect(await withToken(untrusted, { 'x-real-ip': '203.0.113.7' })).toEqual({ status: 403, detail: NOT_PERMITTED('127.0.0.1') });
  });

  test('when a client sends X-Forwarded-Proto: https over http, then the session cookie is not Secure', async () => {
    const cookie = await sessionCookie(untrusted, { 'x-forwarded-proto': 'https' });
    expect(cookie).not.toMatch(/Secure/i);
  });

  test('when a client sends X-Forwarded-Host, then absolute URLs keep the gateway\'s own host', async () => {
    const res = await fetch(`${untrusted}/api/`, { headers: { accept: 'application/json', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } });
    expect(((await res.json()) as Record<string, string>).users).toBe(`${untrusted}/api/users/`);
  });
});

describe('with TRUSTED_PROXIES=127.0.0.1/32 (and others)', () => {
  test('when the proxy says the client is in allowed_ips, then the token works; the rightmost untrusted address is the client', async () => {
    expect(await withToken(trusted, { 'x-forwarded-for': '203.0.113.7' })).toEqual({ status: 200, detail: undefined });
    // trusted hops (10/8) are skipped from the right
    expect((await withToken(trusted, { 'x-forwarded-for': '203.0.113.7, 10.1.2.3' })).status).toBe(200);
    // a client-chosen address left of an untrusted one is not believed
    expect(await withToken(trusted, { 'x-forwarded-for': '203.0.113.7, 198.51.100.9' })).toEqual({ status: 403, detail: NOT_PERMITTED('198.51.100.9') });
    expect((await withToken(trusted, { 'x-real-ip': '203.0.113.8' })).status).toBe(200);
    expect(await withToken(trusted, {})).toEqual({ status: 403, detail: NOT_PERMITTED('127.0.0.1') });
  });

  test('when the proxy says the scheme is https, then the session cookie is Secure', async () => {
    expect(await sessionCookie(trusted, { 'x-forwarded-proto': 'https' })).toMatch(/; Secure(;|$)/);
    expect(await sessionCookie(trusted, {})).not.toMatch(/Secure/i);
  });

  test('when the proxy says the host, then absolute URLs use it', async () => {
    const res = await fetch(`${trusted}/api/`, { headers: { accept: 'application/json', 'x-forwarded-host': 'netbox.example.com', 'x-forwarded-proto': 'https' } });
    expect(((await res.json()) as Record<string, string>).users).toBe('https://netbox.example.com/api/users/');
  });
});

describe('configuration', () => {
  test('when TRUSTED_PROXIES holds something that is not an address or network, then the config is refused, naming it', () => {
    const base = { INTERNAL_TOKEN_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' };
    expect(() => readConfig(gatewayConfig, { ...base, TRUSTED_PROXIES: '10.0.0.0/8, proxy.local' })).toThrow(/TRUSTED_PROXIES[\s\S]*proxy\.local/);
    expect(() => readConfig(gatewayConfig, { ...base, TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/);
    expect(readConfig(gatewayConfig, { ...base, TRUSTED_PROXIES: ' 10.0.0.0/8 ,192.0.2.1, 2001:db8::/32 ' }).TRUSTED_PROXIES).toBe(' 10.0.0.0/8 ,192.0.2.1, 2001:db8::/32 ');
    expect(readConfig(gatewayConfig, base).TRUSTED_PROXIES).toBe('');
  });
});

describe('ALLOWED_HOSTS', () => {
  // a token any address may use (the suite's other one allows 203.0.113.0/24 only)
  let open: string;
  beforeAll(async () => {
    const users = (await stack.client('users').get('/api/users/users/?username=proxied')).body.results;
    const token = await stack.client('users').post('/api/users/tokens/', { user: users[0].id });
    expect(token.status).toBe(201);
    open = token.body.key;
  });

  /** A GET with the given Host (and headers): fetch may not set Host, node:http may. */
  function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const u = new URL(base);
    return new Promise((resolve, reject) => {
      const req = require('node:http').request({ host: u.hostname, port: u.port, path, headers: { accept: 'application/json', authorization: `Token ${open}`, ...headers } }, (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('when a request names a host ALLOWED_HOSTS does not list, then it is a 400 as in Django, and no link carries that host; listed hosts, subdomains of a .domain and health checks answer', async () => {
    const cfg = stack.config('gateway');
    const strict = gatewayFor({ ...cfg, PORT: 0 }, { ALLOWED_HOSTS: 'inventory.example, .corp.example', TRUSTED_PROXIES: '127.0.0.1/32,::1' });
    const base = (await strict.start(0)).url;
    try {
      const evil = await get(base, '/api/users/config/', { host: 'evil.example' });
      expect(evil.status).toBe(400);
      expect(JSON.parse(evil.body)).toEqual({ detail: "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS." });
      // the host a trusted proxy forwards is the one checked
      expect((await get(base, '/api/users/config/', { host: 'inventory.example', 'x-forwarded-host': 'evil.example' })).status).toBe(400);
      expect((await get(base, '/api/users/config/', { host: 'inventory.example:8443' })).status).toBe(200);
      expect((await get(base, '/api/users/config/', { host: 'api.corp.example' })).status).toBe(200);
      expect((await get(base, '/api/users/config/', { host: 'corp.example' })).status).toBe(200);
      expect((await get(base, '/api/users/config/', { host: 'evilcorp.example' })).status).toBe(400);
      // anonymous and HTML requests too (the express chain), not only the token fast path
      expect((await get(base, '/api/', { host: 'evil.example', authorization: '' })).status).toBe(400);
      // probes call pods by address
      expect((await get(base, '/healthz', { host: '10.1.2.3:8080' })).status).toBe(200);
      const links = await get(base, '/api/users/users/?limit=1', { host: 'inventory.example' });
      expect(links.body).not.toContain('evil.example');
    } finally {
      await strict.stop();
    }
  });

  test('when ALLOWED_HOSTS is not set, then every host is answered (the quick start\'s *), and a bad entry stops the start naming it', async () => {
    expect((await get(untrusted, '/api/users/config/', { host: 'anything.example' })).status).toBe(200);
    expect(() => readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: 'x'.repeat(32), SERVICE_URLS: 'users=http://u', ALLOWED_HOSTS: 'ok.example, bad host!' })).toThrow(/bad host!/);
  });
});
