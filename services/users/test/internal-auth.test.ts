import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService } from '@inventory/users';
import { PASSWORD, createUser, dbRow } from './helpers';

let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ users: createService });
  api = stack.client('users');
});
afterAll(() => stack?.stop());

async function tokenFor(userId: number, extra: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const res = await api.post('/api/users/tokens/', { user: userId, ...extra });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

const verify = (body: unknown) => api.post('/internal/auth/token', body);

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
    const res = await api.withIdentity(null).post('/internal/auth/token', { key: 'x' });
    expect(res.status).toBe(403);
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
    const session = await api.post('/internal/auth/session-user', { user_id: u.id });
    expect(session.status).toBe(200);
    expect(session.body.identity.permissions).toHaveLength(2);
    expect(session.body.identity.token).toBeNull();
  });
});

describe('password and session lookups', () => {
  test('when a password matches an active user, then the identity is returned and last_login is set', async () => {
    const u = await createUser(api, 'eta');
    const res = await api.post('/internal/auth/password', { username: 'eta', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.identity).toEqual({ user: { id: u.id, username: 'eta', is_superuser: false, is_staff: false, is_active: true }, token: null, permissions: [] });
    expect((await api.get(`/api/users/users/${u.id}/`)).body.last_login).toEqual(expect.any(String));
  });

  test('when the password is wrong or the user unknown or inactive, then the answer is 403', async () => {
    const u = await createUser(api, 'theta');
    const bad = { detail: 'Invalid username/password' };
    expect((await api.post('/internal/auth/password', { username: 'theta', password: 'wrong' })).body).toEqual(bad);
    expect((await api.post('/internal/auth/password', { username: 'no-such-user', password: PASSWORD })).body).toEqual(bad);
    expect((await api.post('/internal/auth/password', {})).status).toBe(403);
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const inactive = await api.post('/internal/auth/password', { username: 'theta', password: PASSWORD });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual(bad);
  });

  test('when a session user is looked up, then only active users get an identity', async () => {
    const u = await createUser(api, 'iota');
    expect((await api.post('/internal/auth/session-user', { user_id: u.id })).body.identity.user.username).toBe('iota');
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const inactive = await api.post('/internal/auth/session-user', { user_id: u.id });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual({ detail: 'User inactive' });
    expect((await api.post('/internal/auth/session-user', { user_id: 999999 })).status).toBe(403);
  });

  test('when a user is deleted, then their tokens stop working', async () => {
    const u = await createUser(api, 'kappa');
    const t = await tokenFor(u.id);
    expect((await api.delete(`/api/users/users/${u.id}/`)).status).toBe(204);
    expect((await verify({ key: t.key })).body).toEqual({ detail: 'Invalid token' });
  });
});
