import { bootStack, eventually, startBroker, Client, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { authFilter, stackGateway } from '@inventory/gateway';

/**
 * Change events as a client of the gateway sees them: caches dropped by
 * events, not HTTP calls (two gateway replicas both stop accepting a deleted
 * token, every service sees a new custom field), and the change log.
 */
let stack: Stack;
let broker: { url: string; stop(): Promise<void> };
let adminKey: string;
let adminId: number;

const token = (key: string) => ({ headers: { authorization: `Token ${key}` }, identity: null });
const anon = { identity: null };

beforeAll(async () => {
  broker = await startBroker();
  const gateway = stackGateway({ TOKEN_CACHE_SECONDS: '300' });
  stack = await bootStack({ users, tenancy, extras, gateway, gateway2: gateway }, { AMQP_URL: broker.url }, { template: true });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'admin', password: 'admin-password-1' });
  adminId = admin.body.id;
  const provisioned = await new Client(stack.urls.gateway, anon).post('/api/users/tokens/provision/', { username: 'admin', password: 'admin-password-1' }, anon);
  expect(provisioned.status).toBe(201);
  adminKey = provisioned.body.key;
  await stack.client('users').post('/api/users/permissions/', {
    name: 'admin all',
    object_types: ['tenancy.tenant', 'extras.customfield', 'extras.objectchange', 'users.token', 'auth.user'],
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

test('when a tenant is created, updated and deleted through the gateway, then the change log shows the three changes, each with its request id', async () => {
  const gw = new Client(stack.urls.gateway, anon);
  const auth = token(adminKey);
  const created = await gw.post('/api/tenancy/tenants/', { name: 'Logged', slug: 'logged' }, auth);
  expect(created.status).toBe(201);
  const id = created.body.id;
  const updated = await gw.patch(`/api/tenancy/tenants/${id}/`, { description: 'changed' }, auth);
  expect(updated.status).toBe(200);
  const deleted = await gw.delete(`/api/tenancy/tenants/${id}/`, undefined, auth);
  expect(deleted.status).toBe(204);
  const requestIds = [created, updated, deleted].map((r) => r.headers.get('x-request-id'));
  expect(new Set(requestIds).size).toBe(3);

  const path = `/api/extras/object-changes/?changed_object_type=tenancy.tenant&changed_object_id=${id}&ordering=time`;
  await eventually(async () => (await gw.get(path, auth)).body.count === 3, 15_000, 'three object changes');
  const log = await gw.get(path, auth);
  expect(log.status).toBe(200);
  const changes = log.body.results;
  expect(changes.map((c: { action: { value: string } }) => c.action.value)).toEqual(['create', 'update', 'delete']);
  expect(changes.map((c: { request_id: string }) => c.request_id)).toEqual(requestIds);
  for (const c of changes) {
    expect(c).toMatchObject({ user_name: 'admin', user: expect.objectContaining({ id: adminId, username: 'admin' }), changed_object_type: 'tenancy.tenant', changed_object_id: id });
    expect(c.changed_object).toBeNull(); // the tenant is gone
    expect(c.url).toMatch(new RegExp(`^${stack.urls.gateway}/api/extras/object-changes/\\d+/$`));
  }
  expect(changes[0].prechange_data).toBeNull();
  expect(changes[0].postchange_data).toMatchObject({ name: 'Logged', slug: 'logged', description: '' });
  expect(changes[1].prechange_data).toMatchObject({ description: '' });
  expect(changes[1].postchange_data).toMatchObject({ description: 'changed' });
  expect(changes[2].prechange_data).toMatchObject({ description: 'changed' });
  expect(changes[2].postchange_data).toBeNull();
  // the change log is read-only, through the gateway too
  expect((await gw.post('/api/extras/object-changes/', {}, auth)).status).toBe(405);
  // and each request's changes are found by its id
  const byRequest = await gw.get(`/api/extras/object-changes/?request_id=${requestIds[1]}`, auth);
  expect(byRequest.body.results.map((c: { action: { value: string } }) => c.action.value)).toEqual(['update']);
});
