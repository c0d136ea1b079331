import { readConfig } from '@inventory/core';
import { bootStack, startBroker, Client, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { authFilter, createGateway, gatewayConfig } from '@inventory/gateway';

/**
 * With a broker, caches are dropped by change events, not HTTP calls: two
 * gateway replicas both stop accepting a deleted token, and every service
 * sees a new custom field, without being told over HTTP.
 */
let stack: Stack;
let broker: { url: string; stop(): Promise<void> };
let adminKey: string;
let adminId: number;

const token = (key: string) => ({ headers: { authorization: `Token ${key}` }, identity: null });
const anon = { identity: null };

async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  broker = await startBroker();
  const gateway = (cfg: { INTERNAL_TOKEN_SECRET: string; SERVICE_URLS: string; PORT: number }) =>
    createGateway(
      readConfig(gatewayConfig, {
        INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET,
        SERVICE_URLS: cfg.SERVICE_URLS,
        PORT: String(cfg.PORT),
        LOG_LEVEL: 'silent',
        TOKEN_CACHE_SECONDS: '300',
        AMQP_URL: broker.url,
      }),
    );
  stack = await bootStack({ users, tenancy, extras, gateway, gateway2: gateway }, { AMQP_URL: broker.url });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'admin', password: 'admin-password-1' });
  adminId = admin.body.id;
  const provisioned = await new Client(stack.urls.gateway, anon).post('/api/users/tokens/provision/', { username: 'admin', password: 'admin-password-1' }, anon);
  expect(provisioned.status).toBe(201);
  adminKey = provisioned.body.key;
  await stack.client('users').post('/api/users/permissions/', {
    name: 'admin all',
    object_types: ['tenancy.tenant', 'extras.customfield', 'users.token', 'auth.user'],
    actions: ['view', 'add', 'change', 'delete'],
    users: [adminId],
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await broker?.stop();
});

test('a users-service change event drops one token, one user, or (groups, permissions) everything', () => {
  expect(authFilter({ model: 'users.token', object_id: 4 })).toEqual({ token_ids: [4] });
  expect(authFilter({ model: 'auth.user', object_id: 2 })).toEqual({ user_ids: [2] });
  expect(authFilter({ model: 'users.objectpermission', object_id: 1 })).toEqual({});
});

test('when a token cached by two gateway replicas is deleted, then both stop accepting it once its event arrives', async () => {
  const gws = [new Client(stack.urls.gateway, anon), new Client(stack.urls.gateway2, anon)];
  const temp = await stack.client('users').post('/api/users/tokens/', { user: adminId });
  expect(temp.status).toBe(201);
  // both replicas verify (and cache) it
  await eventually(async () => (await Promise.all(gws.map((g) => g.get('/api/tenancy/tenants/', token(temp.body.key))))).every((r) => r.status === 200));
  expect((await stack.client('users').delete(`/api/users/tokens/${temp.body.id}/`)).status).toBe(204);
  for (const g of gws) await eventually(async () => (await g.get('/api/tenancy/tenants/', token(temp.body.key))).status === 403);
});

test('when a custom field is created in extras, then tenancy accepts it once its event arrives (no HTTP broadcast)', async () => {
  const api = stack.client('tenancy');
  // tenancy caches the (empty) definitions
  expect((await api.post('/api/tenancy/tenants/', { name: 'Pre', slug: 'pre' })).status).toBe(201);
  const cf = await stack.client('extras').post('/api/extras/custom-fields/', { name: 'evented', type: 'text', content_types: ['tenancy.tenant'] });
  expect(cf.status).toBe(201);
  await eventually(async () => {
    const r = await api.get('/api/tenancy/tenants/?slug=pre');
    return r.body.results?.[0]?.custom_fields?.evented === null;
  });
  const t = await api.post('/api/tenancy/tenants/', { name: 'Post', slug: 'post', custom_fields: { evented: 'yes' } });
  expect(t.status).toBe(201);
  expect(t.body.custom_fields).toEqual({ evented: 'yes' });
  expect(adminKey).toMatch(/^[0-9a-f]{40}$/);
});
