import { bootStack, type Stack } from '@inventory/testkit';
import type { Identity } from '@inventory/auth';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
  const api = stack.client('tenancy');
  await api.post('/api/tenancy/tenant-groups/', [
    { name: 'Red', slug: 'red' },
    { name: 'Blue', slug: 'blue' },
  ]);
  await api.post('/api/tenancy/tenants/', [
    { name: 'Red 1', slug: 'red-1', group: { slug: 'red' } },
    { name: 'Red 2', slug: 'red-2', group: { slug: 'red' } },
    { name: 'Blue 1', slug: 'blue-1', group: { slug: 'blue' } },
  ]);
});
afterAll(() => stack?.stop());

function user(permissions: Identity['permissions'], writeEnabled = true): Identity {
  return { user: { id: 7, username: 'alice', is_superuser: false, is_staff: false, is_active: true }, token: { id: 9, write_enabled: writeEnabled }, permissions };
}
const anonymous: Identity = { user: null, token: null, permissions: [] };
const slugs = (r: { body: { results: { slug: string }[] } }) => r.body.results.map((x) => x.slug).sort();

describe('object permissions', () => {
  test('when a user has no permission on the model, then every action is a 403 with NetBox text', async () => {
    const api = stack.client('tenancy').withIdentity(user([]));
    const list = await api.get('/api/tenancy/tenants/');
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await api.post('/api/tenancy/tenants/', { name: 'x', slug: 'x' })).status).toBe(403);
    const anon = await stack.client('tenancy').withIdentity(anonymous).get('/api/tenancy/tenants/');
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  test('when a view permission has constraints, then lists narrow, count follows and other objects are 404', async () => {
    const api = stack.client('tenancy').withIdentity(user([{ object_types: ['tenancy.tenant'], actions: ['view'], constraints: { group__slug: 'red' } }]));
    const list = await api.get('/api/tenancy/tenants/');
    expect(list.status).toBe(200);
    expect(slugs(list)).toEqual(['red-1', 'red-2']);
    expect(list.body.count).toBe(2);
    const blue = (await stack.client('tenancy').get('/api/tenancy/tenants/?slug=blue-1')).body.results[0];
    expect((await api.get(`/api/tenancy/tenants/${blue.id}/`)).status).toBe(404);
    const options = await api.options('/api/tenancy/tenants/');
    expect(options.status).toBe(200);
    expect(options.body.actions).toBeUndefined();
  });

  test('when several constraint sets are granted, then they are OR-ed; an empty set is unrestricted', async () => {
    const either = stack.client('tenancy').withIdentity(
      user([{ object_types: ['tenancy.tenant'], actions: ['view'], constraints: [{ slug: 'red-1' }, { slug__in: ['blue-1'] }] }]),
    );
    expect(slugs(await either.get('/api/tenancy/tenants/'))).toEqual(['blue-1', 'red-1']);
    const open = stack.client('tenancy').withIdentity(
      user([
        { object_types: ['tenancy.tenant'], actions: ['view'], constraints: { slug: 'red-1' } },
        { object_types: ['tenancy.tenant'], actions: ['view'], constraints: null },
      ]),
    );
    expect((await open.get('/api/tenancy/tenants/?slug__isw=red-&slug__isw=blue-')).body.count).toBe(3);
  });

  test('when a write would leave the permitted scope, then it is a 403 and nothing is kept', async () => {
    const perms: Identity['permissions'] = [
      { object_types: ['tenancy.tenant'], actions: ['view', 'add', 'change'], constraints: { group__slug: 'red' } },
    ];
    const api = stack.client('tenancy').withIdentity(user(perms));
    const ok = await api.post('/api/tenancy/tenants/', { name: 'Red 3', slug: 'red-3', group: { slug: 'red' } });
    expect(ok.status).toBe(201);
    const outside = await api.post('/api/tenancy/tenants/', { name: 'Blue 9', slug: 'blue-9', group: { slug: 'blue' } });
    expect(outside.status).toBe(403);
    expect((await stack.client('tenancy').get('/api/tenancy/tenants/?slug=blue-9')).body.count).toBe(0);
    const bulk = await api.post('/api/tenancy/tenants/', [
      { name: 'Red 4', slug: 'red-4', group: { slug: 'red' } },
      { name: 'Blue 8', slug: 'blue-8', group: { slug: 'blue' } },
    ]);
    expect(bulk.status).toBe(403);
    expect((await stack.client('tenancy').get('/api/tenancy/tenants/?slug=red-4')).body.count).toBe(0);
    const move = await api.patch(`/api/tenancy/tenants/${ok.body.id}/`, { group: { slug: 'blue' } });
    expect(move.status).toBe(403);
    expect((await stack.client('tenancy').get(`/api/tenancy/tenants/${ok.body.id}/`)).body.group.slug).toBe('red');
    const cannotDelete = await api.delete(`/api/tenancy/tenants/${ok.body.id}/`);
    expect(cannotDelete.status).toBe(403);
  });

  test('when a token is read-only, then reads work and writes are refused', async () => {
    const api = stack.client('tenancy').withIdentity(user([{ object_types: ['tenancy.tenant'], actions: ['view', 'add'], constraints: null }], false));
    expect((await api.get('/api/tenancy/tenants/')).status).toBe(200);
    const w = await api.post('/api/tenancy/tenants/', { name: 'RO', slug: 'ro' });
    expect(w.status).toBe(403);
    expect(w.body.detail).toBe('You do not have permission to perform this action.');
  });

  test('when the user id is the constraint value "$user", then it is replaced by the caller', async () => {
    const api = stack.client('tenancy').withIdentity(user([{ object_types: ['tenancy.tenant'], actions: ['view'], constraints: { id: '$user' } }]));
    const r = await api.get('/api/tenancy/tenants/');
    expect(r.status).toBe(200);
    expect(r.body.results.every((t: { id: number }) => t.id === 7)).toBe(true);
  });
});

describe('exempt views and login required', () => {
  test('when views are exempt, then an anonymous caller may list but not write', async () => {
    const exempt = await bootStack({ extras, tenancy }, { EXEMPT_VIEW_PERMISSIONS: '*' }, { template: true });
    try {
      const anon = exempt.client('tenancy').withIdentity(anonymous);
      expect((await anon.get('/api/tenancy/tenants/')).status).toBe(200);
      expect((await anon.post('/api/tenancy/tenants/', { name: 'a', slug: 'a' })).status).toBe(403);
    } finally {
      await exempt.stop();
    }
    const login = await bootStack({ extras, tenancy }, { EXEMPT_VIEW_PERMISSIONS: 'tenancy.tenant', LOGIN_REQUIRED: 'true' }, { template: true });
    try {
      const anon = await login.client('tenancy').withIdentity(anonymous).get('/api/tenancy/tenants/');
      expect(anon.status).toBe(403);
      expect(anon.body.detail).toBe('Authentication credentials were not provided.');
      const someone = await login.client('tenancy').withIdentity(user([])).get('/api/tenancy/tenants/');
      expect(someone.status).toBe(200);
      expect((await login.client('tenancy').withIdentity(user([])).get('/api/tenancy/tenant-groups/')).status).toBe(403);
    } finally {
      await login.stop();
    }
  });
});
