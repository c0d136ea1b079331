import { readConfig } from '@inventory/core';
import { IDENTITY_HEADER, serviceIdentity, signIdentity, verifyIdentity, type IdentityUser } from '@inventory/auth';
import { freePort } from '@inventory/infra';
import { bootStack, Client, eventually, mintIdentity, scrapeMetrics, superuser, TEST_SECRET, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createGateway, gatewayConfig, type Gateway } from '@inventory/gateway';
import { startUsersDouble, type UsersDouble } from './users-double';
import { validateOpenApi } from './validate-openapi';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOT_PROVIDED = 'Authentication credentials were not provided.';
const NO_PERMISSION = 'You do not have permission to perform this action.';

const admin: IdentityUser = { id: 1, username: 'admin', is_superuser: true, is_staff: true, is_active: true };
const reader: IdentityUser = { id: 2, username: 'reader', is_superuser: false, is_staff: false, is_active: true };
const KEY = {
  admin: '0123456789abcdef0123456789abcdef01234567',
  readOnly: '1111111111111111111111111111111111111111',
  expired: '2222222222222222222222222222222222222222',
  inactive: '3333333333333333333333333333333333333333',
  revocable: '4444444444444444444444444444444444444444',
  reader: '5555555555555555555555555555555555555555',
  unknown: '9999999999999999999999999999999999999999',
};

let stack: Stack;
let users: UsersDouble;
let gateway: Gateway;
let base: string;
const extraGateways: Gateway[] = [];

async function startGateway(env: Record<string, string> = {}, serviceUrls?: Record<string, string>): Promise<{ gw: Gateway; url: string }> {
  const urls = serviceUrls ?? { ...stack.urls, users: users.url };
  const config = readConfig(gatewayConfig, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN_SECRET: TEST_SECRET,
    SERVICE_URLS: Object.entries(urls)
      .map(([n, u]) => `${n}=${u}`)
      .join(','),
    ...env,
  });
  const gw = createGateway(config);
  const server = await gw.start(0);
  return { gw, url: server.url };
}

/** A client of the gateway: no internal identity of its own, only what a real client can send. */
function client(key?: string, url = base): Client {
  return new Client(url, { identity: null, headers: key ? { authorization: `Token ${key}` } : {} });
}

beforeAll(async () => {
  // tenant groups are exempt from view permissions, tenants are not: anonymous reads show both outcomes
  stack = await bootStack({ extras, tenancy }, { EXEMPT_VIEW_PERMISSIONS: 'tenancy.tenantgroup' }, { template: true });
  users = await startUsersDouble(TEST_SECRET);
  const add = (key: string, id: number, user: IdentityUser, write_enabled = true, expires: string | null = null) =>
    users.tokens.set(key, { id, key, user, write_enabled, expires });
  add(KEY.admin, 1, admin);
  add(KEY.readOnly, 2, admin, false);
  add(KEY.expired, 3, admin, true, '2020-01-01T00:00:00Z');
  add(KEY.inactive, 4, { ...admin, id: 3, is_active: false });
  add(KEY.revocable, 5, admin);
  add(KEY.reader, 6, reader);
  ({ gw: gateway, url: base } = await startGateway());
});

afterAll(async () => {
  for (const g of [gateway, ...extraGateways]) await g?.stop();
  await users?.stop();
  await stack?.stop();
});

describe('routing', () => {
  test('when a tenant is created and listed with a valid token, then tenancy answers through the gateway', async () => {
    const api = client(KEY.admin);
    const created = await api.post('/api/tenancy/tenants/', { name: 'T1', slug: 't1' });
    expect(created.status).toBe(201);
    // the Host header is preserved, so the service's URLs are the gateway's
    expect(created.body.url).toBe(`${base}/api/tenancy/tenants/${created.body.id}/`);
    const list = await api.get('/api/tenancy/tenants/');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].slug).toBe('t1');
  });

  test('when /api/tenancy/ is requested, then the service answers its endpoint map with absolute URLs', async () => {
    const res = await client().get('/api/tenancy/');
    expect(res.status).toBe(200);
    expect(res.body.tenants).toBe(`${base}/api/tenancy/tenants/`);
    expect(res.body['tenant-groups']).toBe(`${base}/api/tenancy/tenant-groups/`);
    expect(Object.keys(res.body)).toEqual([...Object.keys(res.body)].sort());
  });

  test('when /api/extras/ is requested, then the extras service answers it', async () => {
    const res = await client(KEY.admin).get('/api/extras/');
    expect(res.status).toBe(200);
    expect(res.body.tags).toBe(`${base}/api/extras/tags/`);
  });

  test('when a browser asks for an area root, then it gets an HTML page of links', async () => {
    const res = await client().get('/api/tenancy/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain(`&quot;tenants&quot;: &quot;<a href="${base}/api/tenancy/tenants/" rel="nofollow">${base}/api/tenancy/tenants/</a>&quot;`);
  });

  test('when an area has no deployed service, then its root is {} and deeper paths 404', async () => {
    const root = await client().get('/api/dcim/');
    expect(root.status).toBe(200);
    expect(root.body).toEqual({});
    const sites = await client(KEY.admin).get('/api/dcim/sites/');
    expect(sites.status).toBe(404);
    expect(sites.body).toEqual({ detail: 'Not found.' });
    // webhooks live in their own service, not in extras
    const hooks = await client(KEY.admin).get('/api/extras/webhooks/');
    expect(hooks.status).toBe(404);
    expect(hooks.body).toEqual({ detail: 'Not found.' });
  });

  test('when an unknown area or a non-API path is requested, then 404 JSON', async () => {
    for (const p of ['/api/nonsense/', '/api/nonsense/things/', '/', '/admin/']) {
      const res = await client().get(p);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
    }
  });

  test('when a client requests an /internal/ path, then 404 and nothing is proxied', async () => {
    for (const [method, p] of [
      ['GET', '/internal/openapi'],
      ['POST', '/internal/resolve'],
      ['GET', '/internal/'],
      ['POST', '/internal/auth/token'],
    ] as const) {
      const res = await client(KEY.admin).request(method, p, method === 'POST' ? { body: { model: 'tenancy.tenant', refs: [] } } : {});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
    }
    // even with an identity a client forged with the right secret, a user's or a service's, for the gateway or a service
    for (const identity of [superuser, serviceIdentity('users')]) {
      for (const audience of ['gateway', 'tenancy']) {
        const forged = await client().get('/internal/openapi', { headers: { [IDENTITY_HEADER]: mintIdentity(identity, audience) } });
        expect(forged.status).toBe(404);
      }
    }
  });

  test('when a request is forwarded, then credentials stay at the gateway and forwarding headers are set', async () => {
    const res = await client(KEY.admin).get('/api/users/echo/?a=1', {
      headers: { cookie: 'sessionid=abc', 'x-request-id': 'client-chosen', 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.9' },
    });
    expect(res.status).toBe(200);
    const h = res.body.headers;
    expect(h.authorization).toBeUndefined();
    expect(h.cookie).toBeUndefined();
    expect(h.host).toBe(new URL(base).host);
    expect(h['x-forwarded-host']).toBe(new URL(base).host);
    expect(h['x-forwarded-proto']).toBe('http');
    // the client is not a trusted proxy (TRUSTED_PROXIES unset): its forwarding headers are dropped, not extended
    expect(h['x-forwarded-for']).toBe('127.0.0.1');
    expect(h['x-real-ip']).toBe('127.0.0.1');
    expect(h['x-request-id']).toBe(res.headers.get('x-request-id'));
    expect(res.body.url).toBe('/api/users/echo/?a=1');
    expect(res.body.identity.user.username).toBe('admin');
    expect(res.body.identity.token).toEqual({ id: 1, write_enabled: true });
    expect(res.body.identity.service).toBeUndefined();
  });

  test('when a request is forwarded, then its identity is signed for that service only and reused while fresh', async () => {
    const first = await client(KEY.admin).get('/api/users/echo/');
    const minted: string = first.body.headers[IDENTITY_HEADER];
    expect(verifyIdentity(TEST_SECRET, minted, 'users').user?.username).toBe('admin');
    expect(() => verifyIdentity(TEST_SECRET, minted, 'tenancy')).toThrow('Invalid identity token.');
    // replayed at another service it is worthless
    const replay = await fetch(`${stack.urls.tenancy}/api/tenancy/tenant-groups/`, { headers: { [IDENTITY_HEADER]: minted } });
    expect(replay.status).toBe(403);
    expect(await replay.json()).toEqual({ detail: 'Invalid identity token.' });
    // the same caller again: the same token (one signature per identity and service, not per request)
    expect((await client(KEY.admin).get('/api/users/echo/')).body.headers[IDENTITY_HEADER]).toBe(minted);
    // while tenancy, asked for the same caller, gets one of its own
    expect((await client(KEY.admin).get('/api/tenancy/tenant-groups/')).status).toBe(200);
  });
});

describe('authentication', () => {
  test('when an anonymous client reads, then the gateway lets it through and the service applies the exemptions', async () => {
    const groups = await client().get('/api/tenancy/tenant-groups/');
    expect(groups.status).toBe(200);
    const tenants = await client().get('/api/tenancy/tenants/');
    expect(tenants.status).toBe(403);
    expect(tenants.body).toEqual({ detail: NOT_PROVIDED });
  });

  test('when an anonymous client writes, then 403 with the credentials text for every unsafe method', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await client().request(method, '/api/tenancy/tenant-groups/', { body: { name: 'x', slug: 'x' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: NOT_PROVIDED });
    }
  });

  test('when the token is unknown, then 403 Invalid token, even where no token is needed', async () => {
    for (const p of ['/api/tenancy/tenant-groups/', '/api/', '/api/status/']) {
      const res = await client(KEY.unknown).get(p);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid token' });
    }
  });

  test('when the token has expired, then 403 Token expired', async () => {
    const res = await client(KEY.expired).get('/api/tenancy/tenant-groups/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Token expired' });
  });

  test("when the token's user is inactive, then 403 User inactive", async () => {
    const res = await client(KEY.inactive).get('/api/tenancy/tenant-groups/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'User inactive' });
  });

  test('when the Authorization header is malformed, then 403 with DRF texts; other schemes are anonymous', async () => {
    const get = (authorization: string, method = 'GET') =>
      new Client(base, { identity: null, headers: { authorization } }).request(method, '/api/tenancy/tenant-groups/', method === 'POST' ? { body: { name: 'y', slug: 'y' } } : {});
    expect((await get('Token')).body).toEqual({ detail: 'Invalid token header. No credentials provided.' });
    expect((await get('Token ')).body).toEqual({ detail: 'Invalid token header. No credentials provided.' });
    const spaces = await get(`Token ${KEY.admin} extra`);
    expect(spaces.status).toBe(403);
    expect(spaces.body).toEqual({ detail: 'Invalid token header. Token string should not contain spaces.' });
    // keyword is case-insensitive
    expect((await get(`token ${KEY.admin}`)).status).toBe(200);
    expect((await get(`TOKEN ${KEY.admin}`)).status).toBe(200);
    // Bearer is not recognised by NetBox 3.7: anonymous
    expect((await get(`Bearer ${KEY.admin}`)).status).toBe(200);
    const bearerWrite = await get(`Bearer ${KEY.admin}`, 'POST');
    expect(bearerWrite.status).toBe(403);
    expect(bearerWrite.body).toEqual({ detail: NOT_PROVIDED });
  });

  test('when a write-disabled token writes, then 403 no permission; it can still read', async () => {
    const api = client(KEY.readOnly);
    expect((await api.get('/api/tenancy/tenants/')).status).toBe(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await api.request(method, '/api/tenancy/tenants/', { body: { name: 'RO', slug: 'ro' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: NO_PERMISSION });
    }
    expect((await api.options('/api/tenancy/tenants/')).status).toBe(200);
  });

  test('when a token is used repeatedly, then users is asked once while the cache holds it', async () => {
    const before = users.verifications;
    for (let i = 0; i < 5; i++) expect((await client(KEY.reader).get('/api/tenancy/tenant-groups/')).status).toBe(200);
    expect(users.verifications - before).toBe(1);
    // the key is sent to users, never stored by the gateway under its own value
    expect(users.verifyBodies.at(-1)).toMatchObject({ key: KEY.reader });
  });

  // (the users service's change events drive these drops: see event-invalidation.test.ts)
  test('when a cached token is revoked and its verification dropped, then the token fails at once', async () => {
    const api = client(KEY.revocable);
    expect((await api.get('/api/tenancy/tenant-groups/')).status).toBe(200);
    users.tokens.delete(KEY.revocable);
    // still cached: TOKEN_CACHE_SECONDS has not passed
    expect((await api.get('/api/tenancy/tenant-groups/')).status).toBe(200);
    expect(gateway.tokens.invalidate({})).toBeGreaterThan(0);
    const after = await api.get('/api/tenancy/tenant-groups/');
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ detail: 'Invalid token' });
  });

  test('when a drop names token ids, then only those entries are dropped', async () => {
    await client(KEY.admin).get('/api/tenancy/tenant-groups/');
    await client(KEY.reader).get('/api/tenancy/tenant-groups/');
    const before = users.verifications;
    expect(gateway.tokens.invalidate({ token_ids: [6] })).toBe(1);
    await client(KEY.admin).get('/api/tenancy/tenant-groups/');
    await client(KEY.reader).get('/api/tenancy/tenant-groups/');
    expect(users.verifications - before).toBe(1);
  });

  test('when anyone posts to the old invalidation endpoint, even a service, then 404 as any /internal path', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/internal/auth/invalidate`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect((await post({})).status).toBe(404);
    expect((await post({ [IDENTITY_HEADER]: mintIdentity(serviceIdentity('users'), 'gateway') })).status).toBe(404);
    expect((await post({ authorization: `Token ${KEY.admin}` })).status).toBe(404);
  });

  test('when a cached token reaches its expiry, then it fails although still cached', async () => {
    const key = '6666666666666666666666666666666666666666';
    users.tokens.set(key, { id: 7, key, user: admin, write_enabled: true, expires: new Date(Date.now() + 700).toISOString() });
    expect((await client(key).get('/api/tenancy/tenant-groups/')).status).toBe(200);
    const calls = users.verifications;
    await new Promise((r) => setTimeout(r, 800));
    const res = await client(key).get('/api/tenancy/tenant-groups/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Token expired' });
    expect(users.verifications).toBe(calls); // decided from the cached expiry
  });

  test('when a client sends its own x-identity, then it is not trusted', async () => {
    // straight at the service with a token signed by a wrong secret: refused by the service
    const forged = signIdentity('not-the-secret-0123456789abcdef!', superuser, 60, 'tenancy');
    const direct = await fetch(`${stack.urls.tenancy}/api/tenancy/tenants/`, { headers: { [IDENTITY_HEADER]: forged } });
    expect(direct.status).toBe(403);
    expect(await direct.json()).toEqual({ detail: 'Invalid identity token.' });
    // through the gateway even a correctly signed superuser identity is stripped: the caller stays anonymous
    const good = mintIdentity(superuser, 'tenancy');
    const read = await client().get('/api/tenancy/tenants/', { headers: { [IDENTITY_HEADER]: good } });
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ detail: NOT_PROVIDED });
    const write = await client().post('/api/tenancy/tenant-groups/', { name: 'F', slug: 'f' }, { headers: { [IDENTITY_HEADER]: good } });
    expect(write.status).toBe(403);
    const reader403 = await client(KEY.reader).get('/api/tenancy/tenants/', { headers: { [IDENTITY_HEADER]: good } });
    expect(reader403.status).toBe(403);
    expect(reader403.body).toEqual({ detail: NO_PERMISSION });
    const echo = await client(KEY.reader).get('/api/users/echo/', { headers: { [IDENTITY_HEADER]: good } });
    expect(echo.body.identity.user.username).toBe('reader');
  });

  test('when tokens are provisioned, then the request is forwarded anonymously; an invalid token is still refused', async () => {
    const anon = await client().post('/api/users/tokens/provision/', { username: 'admin', password: 'pw' });
    expect(anon.status).toBe(201);
    expect(anon.body.seen.identity.user).toBeNull();
    expect(anon.body.seen.body).toBe(JSON.stringify({ username: 'admin', password: 'pw' }));
    const readOnly = await client(KEY.readOnly).post('/api/users/tokens/provision/', { username: 'admin', password: 'pw' });
    expect(readOnly.status).toBe(201);
    expect(readOnly.body.seen.identity.user).toBeNull();
    expect(readOnly.body.seen.headers.authorization).toBeUndefined();
    const invalid = await client(KEY.unknown).post('/api/users/tokens/provision/', { username: 'admin', password: 'pw' });
    expect(invalid.status).toBe(403);
    expect(invalid.body).toEqual({ detail: 'Invalid token' });
  });
});

describe('transport', () => {
  test('when a path lacks its trailing slash, then 302 to the slashed path with the query kept, for GET and POST', async () => {
    const get = await client().get('/api/tenancy/tenants?limit=5&offset=0');
    expect(get.status).toBe(302);
    expect(get.headers.get('location')).toBe('/api/tenancy/tenants/?limit=5&offset=0');
    expect(get.headers.get('api-version')).toBe('3.7');
    const post = await client(KEY.admin).post('/api/tenancy/tenants?x=1', { name: 'N', slug: 'n' });
    expect(post.status).toBe(302);
    expect(post.headers.get('location')).toBe('/api/tenancy/tenants/?x=1');
    const detail = await client().request('DELETE', '/api/tenancy/tenants/1');
    expect(detail.status).toBe(302);
    expect(detail.headers.get('location')).toBe('/api/tenancy/tenants/1/');
    const root = await client().get('/api');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/api/');
  });

  test('when requests are made, then each gets a fresh UUID v4 X-Request-ID, whatever the client sent', async () => {
    const a = await client().get('/api/', { headers: { 'x-request-id': '11111111-1111-4111-8111-111111111111' } });
    const b = await client().get('/api/tenancy/tenant-groups/');
    const c = await client().get('/healthz');
    const ids = [a, b, c].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).not.toBe('11111111-1111-4111-8111-111111111111');
  });

  test('when a request reaches a service, then the service runs it under the gateway request id', async () => {
    const res = await client(KEY.admin).post('/api/tenancy/tenant-groups/', { name: 'RID', slug: 'rid' }, { headers: { 'x-request-id': '11111111-1111-4111-8111-111111111111' } });
    expect(res.status).toBe(201);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(UUID_V4);
    expect(id).not.toBe('11111111-1111-4111-8111-111111111111');
  });

  test('when any /api/ response is returned, then it carries API-Version 3.7, with or without a JSON Content-Type', async () => {
    const withCt = await client().get('/api/', { headers: { 'content-type': 'application/json' } });
    expect(withCt.status).toBe(200);
    expect(withCt.headers.get('api-version')).toBe('3.7');
    const bare = await fetch(`${base}/api/`);
    expect(bare.headers.get('api-version')).toBe('3.7');
    expect(bare.headers.get('content-type')).toMatch(/^application\/json/);
    for (const r of [
      await client().get('/api/tenancy/tenant-groups/'), // proxied
      await client().get('/api/tenancy/tenants/'), // service error
      await client().post('/api/tenancy/tenants/', {}), // gateway error
      await client().get('/api/dcim/sites/'), // 404
    ]) {
      expect(r.headers.get('api-version')).toBe('3.7');
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect((await client().get('/healthz')).headers.get('api-version')).toBeNull();
  });

  test('when /api/ is requested as JSON, then the areas are listed in order with absolute URLs', async () => {
    const res = await client().get('/api/');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless']);
    expect(res.body.dcim).toBe(`${base}/api/dcim/`);
    // forwarding headers count only from TRUSTED_PROXIES (see trusted-proxies.test.ts)
    const proxied = await client().get('/api/', { headers: { 'x-forwarded-host': 'netbox.example.com', 'x-forwarded-proto': 'https' } });
    expect(proxied.body.tenancy).toBe(`${base}/api/tenancy/`);
  });

  test('when /api/ is requested by a browser, then an HTML page links every area', async () => {
    const res = await client().get('/api/', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    for (const area of ['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless']) {
      expect(res.text).toContain(`&quot;${area}&quot;: &quot;<a href="${base}/api/${area}/" rel="nofollow">${base}/api/${area}/</a>&quot;`);
    }
    // JSON wins when both are acceptable
    expect((await client().get('/api/', { headers: { accept: 'application/json, text/html' } })).body.dcim).toBe(`${base}/api/dcim/`);
  });

  test('when PUBLIC_URL is set, then the gateway and the services build URLs from it', async () => {
    const { gw, url } = await startGateway({ PUBLIC_URL: 'https://netbox.example.com' });
    extraGateways.push(gw);
    expect((await client(undefined, url).get('/api/')).body.ipam).toBe('https://netbox.example.com/api/ipam/');
    expect((await client(undefined, url).get('/api/tenancy/')).body.tenants).toBe('https://netbox.example.com/api/tenancy/tenants/');
  });

  test('when /api/ is asked with HEAD, OPTIONS or ?format=api, then DRF-like answers are given', async () => {
    const head = await fetch(`${base}/api/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('api-version')).toBe('3.7');
    const options = await client().options('/api/');
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ name: 'API Root', renders: ['application/json', 'text/html'] });
    const html = await client().get('/api/?format=api');
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
  });

  test('when the plugins area is requested, then it lists installed-plugins, which is empty for staff', async () => {
    const res = await client().get('/api/plugins/');
    expect(res.body).toEqual({ 'installed-plugins': `${base}/api/plugins/installed-plugins/` });
    const installed = await client(KEY.admin).get('/api/plugins/installed-plugins/');
    expect(installed.status).toBe(200);
    expect(installed.body).toEqual([]);
    expect((await client().get('/api/plugins/installed-plugins/')).body).toEqual({ detail: NOT_PROVIDED });
    expect((await client(KEY.reader).get('/api/plugins/installed-plugins/')).body).toEqual({ detail: NO_PERMISSION });
  });

  test('when a gateway endpoint gets a method it does not serve, then 405 in DRF words', async () => {
    const res = await client(KEY.admin).post('/api/status/', {});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "POST" not allowed.' });
  });
});

describe('status, schema and docs', () => {
  test('when /api/status/ is requested, then NetBox keys and each service state are returned', async () => {
    const res = await client().get('/api/status/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      'django-version': '4.2.11',
      'netbox-version': '3.7.8',
      plugins: {},
      'python-version': '3.11.9',
      'rq-workers-running': 0,
      services: { extras: 'ok', tenancy: 'ok', users: 'ok' },
    });
    expect(typeof res.body['installed-apps']).toBe('object');
  });

  test('when /api/schema/ is requested, then one valid OpenAPI 3.0.3 document covers every service', async () => {
    const res = await client().get('/api/schema/', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info).toEqual({ title: 'NetBox REST API', version: '3.7.8', license: { name: 'Apache v2 License' } });
    expect(doc.servers).toEqual([{ url: '', description: 'NetBox' }]);
    expect(doc.security).toEqual([{ tokenAuth: [] }]);
    expect(doc.components.securitySchemes.tokenAuth).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Token-based authentication with required prefix "Token"',
    });
    for (const p of ['/api/tenancy/tenants/', '/api/tenancy/tenants/{id}/', '/api/extras/tags/', '/api/status/']) expect(doc.paths[p]).toBeDefined();
    const validation = await validateOpenApi(doc);
    expect(validation).toEqual({ valid: true });
    // older clients
    const legacy = await client().get('/api/docs/?format=openapi');
    expect(legacy.body.paths['/api/tenancy/tenants/']).toBeDefined();
  });

  test('when /api/docs/ is requested, then Swagger UI is served with its assets from the gateway', async () => {
    const page = await client().get('/api/docs/', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    expect(page.text).toContain('../schema/');
    const css = await fetch(`${base}/api/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const js = await fetch(`${base}/api/docs/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    await js.arrayBuffer();
    // the package's demo page is not exposed
    expect((await fetch(`${base}/api/docs/index.html`, { redirect: 'manual' })).status).not.toBe(200);
  });

  test('when the gateway health endpoints are probed, then healthz is ok and readyz reflects the services', async () => {
    expect((await client().get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await client().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});

describe('failures and settings', () => {
  test('when a service is down, then 503 with its name, status reports it and readyz names it but stays ready (the rest of the API works)', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const { gw, url } = await startGateway({}, { ...stack.urls, users: users.url, circuits: dead });
    extraGateways.push(gw);
    const started = Date.now();
    const res = await client(KEY.admin, url).get('/api/circuits/providers/');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service circuits is unavailable.' });
    expect(res.headers.get('api-version')).toBe('3.7');
    expect(Date.now() - started).toBeLessThan(5000);
    const root = await client(KEY.admin, url).get('/api/circuits/');
    expect(root.status).toBe(503);
    expect(root.body).toEqual({ detail: 'Service circuits is unavailable.' });
    const status = await client(KEY.admin, url).get('/api/status/');
    expect(status.body.services).toEqual({ circuits: 'unavailable', extras: 'ok', tenancy: 'ok', users: 'ok' });
    const ready = await client(undefined, url).get('/readyz');
    expect([ready.status, ready.body.status, ready.body.detail, ready.body.services.circuits]).toEqual([200, 'ready', 'Unavailable: circuits', 'unavailable']);
    expect((await client(KEY.admin, url).get('/api/tenancy/tenant-groups/')).status).toBe(200);
    // the schema still answers, without the missing service
    const schema = await client(undefined, url).get('/api/schema/');
    expect(schema.status).toBe(200);
    expect(schema.body.paths['/api/tenancy/tenants/']).toBeDefined();
  });

  test('when the users service is down, then token requests get 503, anonymous reads still work, and the gateway is not ready', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const { gw, url } = await startGateway({}, { ...stack.urls, users: dead });
    extraGateways.push(gw);
    const res = await client(KEY.admin, url).get('/api/tenancy/tenant-groups/');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service users is unavailable.' });
    expect((await client(undefined, url).get('/api/tenancy/tenant-groups/')).status).toBe(200);
    const ready = await client(undefined, url).get('/readyz');
    expect([ready.status, ready.body.status, ready.body.services.users]).toEqual([503, 'unavailable', 'unavailable']);
  });

  test('when SERVICE_URLS names the gateway itself, then it is neither probed nor proxied to', async () => {
    const port = await freePort();
    const self = `http://127.0.0.1:${port}`;
    const config = readConfig(gatewayConfig, {
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN_SECRET: TEST_SECRET,
      SERVICE_URLS: `gateway=${self},tenancy=${stack.urls.tenancy},users=${users.url}`,
    });
    const gw = createGateway(config);
    extraGateways.push(gw);
    await gw.start(port);
    const status = await client(undefined, self).get('/api/status/');
    expect(status.body.services).toEqual({ tenancy: 'ok', users: 'ok' });
    expect((await client(undefined, self).get('/readyz')).status).toBe(200);
    // never probed: the one readiness request the gateway answered is the test's (a probe of itself would be
    // another, each in turn probing again; this used to be a time bound, which a loaded machine broke)
    const readiness = async () => (await scrapeMetrics(self)).value('inventory_http_requests_total', { route: '/readyz' });
    await eventually(async () => (await readiness()) >= 1, 5_000, 'the readiness request counted');
    expect(await readiness()).toBe(1);
  });

  test('when LOGIN_REQUIRED is on, then anonymous model requests are refused but the roots, docs and schema answer', async () => {
    const { gw, url } = await startGateway({ LOGIN_REQUIRED: 'true' });
    extraGateways.push(gw);
    const anon = client(undefined, url);
    for (const p of ['/api/tenancy/tenant-groups/', '/api/status/', '/api/plugins/installed-plugins/']) {
      const res = await anon.get(p);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: NOT_PROVIDED });
    }
    expect((await anon.options('/api/tenancy/tenant-groups/')).status).toBe(403);
    for (const p of ['/api/', '/api/tenancy/', '/api/plugins/', '/api/docs/', '/api/schema/']) expect((await anon.get(p)).status).toBe(200);
    expect((await anon.get('/api/', { headers: { 'content-type': 'application/json' } })).headers.get('api-version')).toBe('3.7');
    expect((await client(KEY.admin, url).get('/api/tenancy/tenant-groups/')).status).toBe(200);
    expect((await client(KEY.admin, url).get('/api/status/')).status).toBe(200);
    // provisioning stays open: it is how a client gets its token
    expect((await anon.post('/api/users/tokens/provision/', { username: 'a', password: 'b' })).status).toBe(201);
  });
});
