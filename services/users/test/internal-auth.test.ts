import { IDENTITY_HEADER, serviceIdentity } from '@inventory/auth';
import { bootStack, mintIdentity, superuser, type Client, type Stack } from '@inventory/testkit';
import { createService } from '@inventory/users';
import { PASSWORD, createUser, dbRow, regular } from './helpers';

let stack: Stack;
let api: Client;
/** What the gateway uses: its service identity, signed for users. */
let internal: Client;
beforeAll(async () => {
  stack = await bootStack({ users: createService }, {}, { template: true });
  api = stack.client('users');
  internal = stack.serviceClient('users');
});
afterAll(() => stack?.stop());

async function tokenFor(userId: number, extra: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const res = await api.post('/api/users/tokens/', { user: userId, ...extra });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

const verify = (body: unknown) => internal.post('/internal/auth/token', body);

describe('internal token verification', () => {
  test('when a valid key is verified, then the identity, write_enabled and token expiry are returned', async () => {
    const u = await createUser(api, 'alpha', { is_staff: true });
    const t = await tokenFor(u.id, { write_enabled: false, expires: '2099-01-01T00:00:00Z' });
    const res = await verify({ key: t.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      identity: {
        user: { id: u.id, username: 'alpha', is_superuser: false, is_staff: true, is_active: true },
        token: { id: t.id, write_enabled: false },
        permissions: [],
      },
      token: { id: t.id, expires: '2099-01-01T00:00:00Z', allowed_ips: [] },
    });
  });

  test('when a key is verified, then last_used is set and not rewritten within 60 seconds', async () => {
    const u = await createUser(api, 'beta');
    const t = await tokenFor(u.id);
    expect((await verify({ key: t.key })).status).toBe(200);
    const first = await dbRow(stack, 'SELECT last_used::text AS v FROM users.token WHERE id = $1', [t.id]);
    expect(first?.v).not.toBeNull();
    expect((await verify({ key: t.key })).status).toBe(200);
    const second = await dbRow(stack, 'SELECT last_used::text AS v FROM users.token WHERE id = $1', [t.id]);
    expect(second?.v).toBe(first?.v);
    await dbRow(stack, "UPDATE users.token SET last_used = now() - interval '2 minutes' WHERE id = $1", [t.id]);
    await verify({ key: t.key });
    const third = await dbRow(stack, "SELECT (last_used > now() - interval '1 minute') AS fresh FROM users.token WHERE id = $1", [t.id]);
    expect(third?.fresh).toBe(true);
    expect((await api.get(`/api/users/tokens/${t.id}/`)).body.last_used).toEqual(expect.any(String));
  });

  test('when an unknown key is verified, then the answer is 403 Invalid token', async () => {
    const res = await verify({ key: 'f'.repeat(40) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid token' });
    expect((await verify({})).body).toEqual({ detail: 'Invalid token' });
    expect((await verify({ key: 42 })).body).toEqual({ detail: 'Invalid token' });
  });

  test('when an expired key is verified, then the answer is 403 Token expired', async () => {
    const u = await createUser(api, 'gamma');
    const t = await tokenFor(u.id, { expires: '2020-01-01T00:00:00Z' });
    const res = await verify({ key: t.key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Token expired' });
  });

  test('when the token user is inactive, then the answer is 403 User inactive', async () => {
    const u = await createUser(api, 'delta');
    const t = await tokenFor(u.id);
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const res = await verify({ key: t.key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'User inactive' });
  });

  test('when a token has allowed_ips and the gateway passes the client address, then it is enforced', async () => {
    const u = await createUser(api, 'epsilon');
    const t = await tokenFor(u.id, { allowed_ips: ['192.0.2.0/24', '2001:db8::/32'] });
    expect((await verify({ key: t.key })).body.token.allowed_ips).toEqual(['192.0.2.0/24', '2001:db8::/32']);
    expect((await verify({ key: t.key, client_ip: '192.0.2.77' })).status).toBe(200);
    expect((await verify({ key: t.key, client_ip: '2001:db8::1' })).status).toBe(200);
    const denied = await verify({ key: t.key, client_ip: '198.51.100.1' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: 'Source IP 198.51.100.1 is not permitted to authenticate using this token.' });
    const unknown = await verify({ key: t.key, client_ip: null });
    expect(unknown.status).toBe(403);
    expect(unknown.body.detail).toMatch(/^Client IP address could not be determined/);
  });

  test('when the caller carries no internal identity, then internal endpoints answer 403', async () => {
    const res = await internal.withIdentity(null).post('/internal/auth/token', { key: 'x' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});

describe('who may call /internal/', () => {
  const SERVICE_ONLY = { detail: 'Internal endpoints accept only a service identity.' };
  const post = (path: string, body: unknown, identity: string) =>
    fetch(`${stack.urls.users}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', [IDENTITY_HEADER]: identity }, body: JSON.stringify(body) });

  test('when a user identity calls an internal endpoint, even a superuser correctly signed for users, then 403 and nothing is answered', async () => {
    const u = await createUser(api, 'mu');
    const t = (await api.post('/api/users/tokens/', { user: u.id })).body;
    for (const identity of [superuser, regular(u)]) {
      const token = await api.withIdentity(identity).post('/internal/auth/token', { key: t.key });
      expect(token.status).toBe(403);
      expect(token.body).toEqual(SERVICE_ONLY);
      expect((await api.withIdentity(identity).post('/internal/auth/password', { username: 'mu', password: PASSWORD })).body).toEqual(SERVICE_ONLY);
      expect((await api.withIdentity(identity).post('/internal/auth/session-user', { user_id: u.id })).body).toEqual(SERVICE_ONLY);
      expect((await api.withIdentity(identity).get('/internal/openapi')).status).toBe(403);
    }
    // the refused calls did nothing: the token was never marked as used
    expect((await dbRow(stack, 'SELECT last_used FROM users.token WHERE id = $1', [t.id]))?.last_used).toBeNull();
    // routing is case-insensitive and ignores a trailing slash: so is the check
    expect((await api.post('/INTERNAL/auth/token/', { key: t.key })).body).toEqual(SERVICE_ONLY);
    // the same user identities still reach the public API
    expect((await api.get(`/api/users/users/${u.id}/`)).status).toBe(200);
    expect((await api.withIdentity(regular(u)).get('/api/users/config/')).status).toBe(200);
    // and the gateway's service identity gets the answer
    expect((await verify({ key: t.key })).body.identity.user.username).toBe('mu');
  });

  test('when a service identity is signed for another service, then users refuses it', async () => {
    const forTenancy = mintIdentity(serviceIdentity('gateway'), 'tenancy');
    const res = await post('/internal/auth/token', { key: 'x' }, forTenancy);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: 'Invalid identity token.' });
    // a user token for tenancy is no better on the public API
    const read = await fetch(`${stack.urls.users}/api/users/users/`, { headers: { [IDENTITY_HEADER]: mintIdentity(superuser, 'tenancy') } });
    expect(read.status).toBe(403);
    expect(await read.json()).toEqual({ detail: 'Invalid identity token.' });
    // the same identity signed for users is accepted
    const u = await createUser(api, 'nu');
    const t = (await api.post('/api/users/tokens/', { user: u.id })).body;
    const ok = await post('/internal/auth/token', { key: t.key }, mintIdentity(serviceIdentity('gateway'), 'users'));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { identity: { user: { username: string } } }).identity.user.username).toBe('nu');
  });
});

describe('permissions in the identity', () => {
  test('when permissions are assigned through a group and directly, then the enabled ones are gathered with their constraints', async () => {
    const g = await api.post('/api/users/groups/', { name: 'site-admins' });
    const u = await createUser(api, 'zeta', { groups: [g.body.id] });
    await createUser(api, 'outsider');
    await api.post('/api/users/permissions/', {
      name: 'sites via group',
      object_types: ['dcim.site'],
      actions: ['view', 'change'],
      groups: [g.body.id],
      constraints: { tenant__slug: 'acme', status: '$user' },
    });
    await api.post('/api/users/permissions/', {
      name: 'prefixes direct',
      object_types: ['ipam.prefix'],
      actions: ['view'],
      users: [u.id],
      constraints: [{ vrf: null }, { status: 'active' }],
    });
    await api.post('/api/users/permissions/', { name: 'disabled', object_types: ['dcim.device'], actions: ['delete'], users: [u.id], enabled: false });
    await api.post('/api/users/permissions/', { name: 'unrelated', object_types: ['dcim.rack'], actions: ['view'], users: [] });
    const t = await tokenFor(u.id);
    const res = await verify({ key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.identity.permissions).toEqual([
      { object_types: ['dcim.site'], actions: ['view', 'change'], constraints: { tenant__slug: 'acme', status: '$user' } },
      { object_types: ['ipam.prefix'], actions: ['view'], constraints: [{ vrf: null }, { status: 'active' }] },
    ]);
    const session = await internal.post('/internal/auth/session-user', { user_id: u.id });
    expect(session.status).toBe(200);
    expect(session.body.identity.permissions).toHaveLength(2);
    expect(session.body.identity.token).toBeNull();
  });
});

describe('password and session lookups', () => {
  test('when a password matches an active user, then the identity is returned and last_login is set', async () => {
    const u = await createUser(api, 'eta');
    const res = await internal.post('/internal/auth/password', { username: 'eta', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.identity).toEqual({ user: { id: u.id, username: 'eta', is_superuser: false, is_staff: false, is_active: true }, token: null, permissions: [] });
    expect((await api.get(`/api/users/users/${u.id}/`)).body.last_login).toEqual(expect.any(String));
  });

  test('when the password is wrong or the user unknown or inactive, then the answer is 403', async () => {
    const u = await createUser(api, 'theta');
    const bad = { detail: 'Invalid username/password' };
    expect((await internal.post('/internal/auth/password', { username: 'theta', password: 'wrong' })).body).toEqual(bad);
    expect((await internal.post('/internal/auth/password', { username: 'no-such-user', password: PASSWORD })).body).toEqual(bad);
    expect((await internal.post('/internal/auth/password', {})).status).toBe(403);
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const inactive = await internal.post('/internal/auth/password', { username: 'theta', password: PASSWORD });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual(bad);
  });

  test('when a session user is looked up, then only active users get an identity', async () => {
    const u = await createUser(api, 'iota');
    expect((await internal.post('/internal/auth/session-user', { user_id: u.id })).body.identity.user.username).toBe('iota');
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const inactive = await internal.post('/internal/auth/session-user', { user_id: u.id });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual({ detail: 'User inactive' });
    expect((await internal.post('/internal/auth/session-user', { user_id: 999999 })).status).toBe(403);
  });

  test('when a user is deleted, then their tokens stop working', async () => {
    const u = await createUser(api, 'kappa');
    const t = await tokenFor(u.id);
    expect((await api.delete(`/api/users/users/${u.id}/`)).status).toBe(204);
    expect((await verify({ key: t.key })).body).toEqual({ detail: 'Invalid token' });
  });
});
