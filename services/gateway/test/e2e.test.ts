import http from 'node:http';
import { IDENTITY_HEADER, serviceIdentity } from '@inventory/auth';
import { bootStack, Client, mintIdentity, superuser, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { stackGateway } from '@inventory/gateway';

/**
 * End to end: a client talks only to the gateway, with real tokens issued by
 * the real users service, and real tenancy/extras behind it.
 */
let stack: Stack;
let gw: Client;
let base: string;
let adminKey: string;

const token = (key: string) => ({ headers: { authorization: `Token ${key}` }, identity: null });
const anon = { identity: null };

/** A request whose path goes out exactly as written (fetch would resolve `..` and `%2e%2e` first). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

beforeAll(async () => {
  stack = await bootStack({
    users,
    tenancy,
    extras,
    gateway: stackGateway({ TOKEN_CACHE_SECONDS: '30' }),
  }, {}, { template: true });
  base = stack.urls.gateway;
  gw = new Client(base, { identity: null });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'admin', password: 'admin-password-1' });
  await stack.client('users').patch(`/api/users/users/${admin.body.id}/`, {});
  // make the admin a superuser through the users service's own bootstrap path: a permission on everything is the API way
  const provisioned = await gw.post('/api/users/tokens/provision/', { username: 'admin', password: 'admin-password-1' }, anon);
  expect(provisioned.status).toBe(201);
  adminKey = provisioned.body.key;
  await stack.client('users').post('/api/users/permissions/', {
    name: 'admin all',
    object_types: ['tenancy.tenant', 'tenancy.tenantgroup', 'extras.tag', 'users.token', 'auth.user', 'users.objectpermission'],
    actions: ['view', 'add', 'change', 'delete'],
    users: [admin.body.id],
  });
});
afterAll(() => stack?.stop());

describe('authentication through the gateway', () => {
  test('when provisioning with good and bad credentials, then 201 with a 40-hex key or 403 Invalid username/password', async () => {
    const bad = await gw.post('/api/users/tokens/provision/', { username: 'admin', password: 'wrong' }, anon);
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual({ detail: 'Invalid username/password' });
    const good = await gw.post('/api/users/tokens/provision/', { username: 'admin', password: 'admin-password-1' }, anon);
    expect(good.status).toBe(201);
    expect(good.body.key).toMatch(/^[0-9a-f]{40}$/);
    expect(good.body.write_enabled).toBe(true);
    expect(good.body.url).toBe(`${base}/api/users/tokens/${good.body.id}/`);
    expect(good.body.user.username).toBe('admin');
  });

  test('when no token is sent, then reads of permission-guarded models are 403 and writes say credentials were not provided', async () => {
    const read = await gw.get('/api/tenancy/tenants/', anon);
    expect(read.status).toBe(403);
    const write = await gw.post('/api/tenancy/tenants/', { name: 'x', slug: 'x' }, anon);
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  test('when the token is unknown, expired, read-only or deleted, then the answers are NetBox texts', async () => {
    expect((await gw.get('/api/tenancy/tenants/', token('0'.repeat(40)))).body).toEqual({ detail: 'Invalid token' });
    const users = stack.client('users');
    const me = (await users.get('/api/users/users/?username=admin')).body.results[0];
    const expired = await users.post('/api/users/tokens/', { user: me.id, expires: '2020-01-01T00:00:00Z' });
    const e = await gw.get('/api/tenancy/tenants/', token(expired.body.key));
    expect(e.status).toBe(403);
    expect(e.body).toEqual({ detail: 'Token expired' });
    const ro = await users.post('/api/users/tokens/', { user: me.id, write_enabled: false });
    expect((await gw.get('/api/tenancy/tenants/', token(ro.body.key))).status).toBe(200);
    const roWrite = await gw.post('/api/tenancy/tenants/', { name: 'ro', slug: 'ro' }, token(ro.body.key));
    expect(roWrite.status).toBe(403);
    expect(roWrite.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    const temp = await users.post('/api/users/tokens/', { user: me.id });
    expect((await gw.get('/api/tenancy/tenants/', token(temp.body.key))).status).toBe(200);
    const del = await gw.delete(`/api/users/tokens/${temp.body.id}/`, undefined, token(adminKey));
    expect(del.status).toBe(204);
    const after = await gw.get('/api/tenancy/tenants/', token(temp.body.key));
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ detail: 'Invalid token' });
  });

  test('when a user is granted a constrained permission, then the gateway passes it and the service applies it', async () => {
    const admin = token(adminKey);
    await gw.post('/api/tenancy/tenants/', [{ name: 'Mine', slug: 'mine' }, { name: 'Theirs', slug: 'theirs' }], admin);
    const bob = await gw.post('/api/users/users/', { username: 'bob', password: 'bob-password-1' }, admin);
    expect(bob.status).toBe(201);
    await gw.post('/api/users/permissions/', { name: 'bob mine', object_types: ['tenancy.tenant'], actions: ['view', 'change'], users: [bob.body.id], constraints: { slug: 'mine' } }, admin);
    const bobKey = (await gw.post('/api/users/tokens/provision/', { username: 'bob', password: 'bob-password-1' }, anon)).body.key;
    const list = await gw.get('/api/tenancy/tenants/', token(bobKey));
    expect(list.body.results.map((t: { slug: string }) => t.slug)).toEqual(['mine']);
    const theirs = (await gw.get('/api/tenancy/tenants/?slug=theirs', admin)).body.results[0];
    expect((await gw.get(`/api/tenancy/tenants/${theirs.id}/`, token(bobKey))).status).toBe(404);
    expect((await gw.post('/api/tenancy/tenants/', { name: 'No', slug: 'no' }, token(bobKey))).status).toBe(403);
    const myTokens = await gw.get('/api/users/tokens/', token(bobKey));
    expect(myTokens.body.results.every((t: { user: { username: string } }) => t.user.username === 'bob')).toBe(true);
  });
});

describe('the public face', () => {
  test('when a token request takes the proxy fast path, then it carries the same headers as any other answer', async () => {
    const ok = await gw.get('/api/tenancy/tenants/?limit=1', token(adminKey));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('api-version')).toBe('3.7');
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await gw.get('/api/tenancy/tenants/', token('f'.repeat(40)));
    expect([bad.status, bad.body, bad.headers.get('api-version')]).toEqual([403, { detail: 'Invalid token' }, '3.7']);
    const malformed = await gw.get('/api/tenancy/tenants/', { headers: { authorization: 'Token a b' }, identity: null });
    expect(malformed.body).toEqual({ detail: 'Invalid token header. Token string should not contain spaces.' });
    const undeployed = await gw.get('/api/dcim/sites/', token(adminKey));
    expect(undeployed.status).toBe(404);
  });

  test('when a path lacks its trailing slash, then 302 to the slashed path with the query kept', async () => {
    const r = await gw.get('/api/tenancy/tenants?limit=1', token(adminKey));
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toMatch(/\/api\/tenancy\/tenants\/\?limit=1$/);
  });

  test('when /api/ is read without a token, then areas, API-Version and a request id come back', async () => {
    const r = await gw.get('/api/', { ...anon, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('api-version')).toBe('3.7');
    expect(Object.keys(r.body)).toEqual(['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless']);
    expect(r.body.tenancy).toBe(`${base}/api/tenancy/`);
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const area = await gw.get('/api/tenancy/', anon);
    expect(area.body.tenants).toBe(`${base}/api/tenancy/tenants/`);
    const status = await gw.get('/api/status/', anon);
    expect(status.body['netbox-version']).toMatch(/^3\.7\.\d+$/);
  });

  test('when /api/schema/ is asked without an Accept header, then the OpenAPI document comes as YAML (JSON text) and as JSON on request', async () => {
    const yaml = await fetch(`${base}/api/schema/`);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/vnd\.oai\.openapi/);
    const doc = JSON.parse(await yaml.text());
    expect(doc.openapi).toMatch(/^3\.0/);
    expect(doc.paths['/api/tenancy/tenants/'].get.parameters.map((p: { name: string }) => p.name)).toContain('name__ic');
    const json = await fetch(`${base}/api/schema/?format=json`);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('when /internal/ is asked through the gateway, then it is not there', async () => {
    expect((await gw.post('/internal/resolve', { model: 'tenancy.tenant', refs: [1] }, token(adminKey))).status).toBe(404);
    expect((await gw.get('/api/tenancy/../../internal/openapi', token(adminKey))).status).toBe(404);
  });
});

describe('internal endpoints trust only services', () => {
  const SERVICE_ONLY = { detail: 'Internal endpoints accept only a service identity.' };
  const INVALID = { detail: 'Invalid identity token.' };

  test('when a client with a valid token asks for /internal/ through the gateway, however the path is spelled, then 404', async () => {
    const auth = { authorization: `Token ${adminKey}` };
    for (const [method, path] of [
      ['POST', '/internal/resolve'],
      ['GET', '/internal/openapi'],
      ['POST', '/internal/auth/token'],
      ['POST', '/internal/auth/password'],
      ['GET', '/internal/custom-fields?content_type=tenancy.tenant'],
      ['POST', '/internal/auth/invalidate'],
      ['GET', '/INTERNAL/openapi'],
      // (with the trailing slash every /api/ path needs; without it the answer is the redirect that adds one)
      ['GET', '/api/../internal/openapi/'],
      ['GET', '/api/tenancy/../../internal/openapi/'],
      ['POST', '/api/users/../../internal/auth/token/'],
      ['GET', '/api/tenancy/%2e%2e/%2e%2e/internal/openapi/'],
      ['GET', '/api/tenancy/..%2f..%2finternal/openapi/'],
      ['GET', '/api/extras/%2e%2e%5c%2e%2e%5cinternal/custom-fields/'],
      // under /api/ it is only ever a public path of the area's service
      ['GET', '/api/tenancy/internal/openapi/'],
    ] as const) {
      const res = await rawRequest(method, path, auth, method === 'POST' ? { model: 'tenancy.tenant', refs: [1], key: adminKey } : undefined);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
  });

  test('when a user identity, even a superuser correctly signed for the service, calls /internal/, then 403; the public API still takes it', async () => {
    const tenant = (await gw.post('/api/tenancy/tenants/', { name: 'Internal', slug: 'internal' }, token(adminKey))).body;
    const asUser = stack.client('tenancy'); // superuser identity signed for tenancy
    const refused = await asUser.post('/internal/resolve', { model: 'tenancy.tenant', refs: [tenant.id] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(SERVICE_ONLY);
    expect((await asUser.get('/internal/openapi')).body).toEqual(SERVICE_ONLY);
    expect((await asUser.get(`/api/tenancy/tenants/${tenant.id}/`)).status).toBe(200);
    // the users service's authentication endpoints, which only the gateway may call
    const verify = await stack.client('users').post('/internal/auth/token', { key: adminKey });
    expect(verify.status).toBe(403);
    expect(verify.body).toEqual(SERVICE_ONLY);
    expect((await stack.client('users').post('/internal/auth/password', { username: 'admin', password: 'admin-password-1' })).body).toEqual(SERVICE_ONLY);
    expect((await stack.client('extras').post('/internal/tags/by-slug', { slugs: ['x'] })).body).toEqual(SERVICE_ONLY);
  });

  test('when a service identity is signed for the right service, then it is answered', async () => {
    const tenant = (await gw.get('/api/tenancy/tenants/?slug=internal', token(adminKey))).body.results[0];
    const resolved = await stack.serviceClient('tenancy', 'extras').post('/internal/resolve', { model: 'tenancy.tenant', refs: [tenant.id] });
    expect(resolved.status).toBe(200);
    expect(resolved.body.results).toEqual([{ id: tenant.id }]);
    // with what the caller keeps of it in its projection
    expect(resolved.body.records).toEqual([expect.objectContaining({ id: tenant.id, deleted: false, nested: expect.objectContaining({ slug: 'internal' }) })]);
    const verified = await stack.serviceClient('users').post('/internal/auth/token', { key: adminKey });
    expect(verified.status).toBe(200);
    expect(verified.body.identity.user.username).toBe('admin');
    const tag = await gw.post('/api/extras/tags/', { name: 'Internal', slug: 'internal' }, token(adminKey));
    expect(tag.status).toBe(201);
    expect((await stack.serviceClient('extras', 'tenancy').post('/internal/tags/by-slug', { slugs: ['internal'] })).body).toEqual({ ids: { internal: tag.body.id } });
  });

  test('when an identity was minted for tenancy, then extras (and users) refuse it, service or not', async () => {
    const forTenancy = new Client(stack.urls.extras, { audience: 'tenancy' });
    const asService = await forTenancy.asService('tenancy').post('/internal/tags/by-slug', { slugs: ['internal'] });
    expect(asService.status).toBe(403);
    expect(asService.body).toEqual(INVALID);
    const asUser = await forTenancy.get('/api/extras/tags/');
    expect(asUser.status).toBe(403);
    expect(asUser.body).toEqual(INVALID);
    const atUsers = await fetch(`${stack.urls.users}/internal/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [IDENTITY_HEADER]: mintIdentity(serviceIdentity('gateway'), 'tenancy') },
      body: JSON.stringify({ key: adminKey }),
    });
    expect(atUsers.status).toBe(403);
    expect(await atUsers.json()).toEqual(INVALID);
    // the very same token is fine where it belongs (the verified-token cache does not leak it elsewhere)
    const same = mintIdentity(superuser, 'tenancy');
    expect((await fetch(`${stack.urls.tenancy}/api/tenancy/tenants/`, { headers: { [IDENTITY_HEADER]: same } })).status).toBe(200);
    expect((await fetch(`${stack.urls.extras}/api/extras/tags/`, { headers: { [IDENTITY_HEADER]: same } })).status).toBe(403);
  });

  test('when services call each other through a gateway request, then each call carries an identity for its target', async () => {
    // tenancy resolves the tag at extras, the gateway verifies the token at users, the schema merges every service's /internal/openapi
    const created = await gw.post('/api/tenancy/tenants/', { name: 'Tagged', slug: 'tagged', tags: [{ slug: 'internal' }] }, token(adminKey));
    expect(created.status).toBe(201);
    expect(created.body.tags.map((t: { slug: string }) => t.slug)).toEqual(['internal']);
    const schema = await gw.get('/api/schema/?format=json', anon);
    expect(Object.keys(schema.body.paths)).toEqual(expect.arrayContaining(['/api/tenancy/tenants/', '/api/extras/tags/', '/api/users/tokens/']));
  });
});
