import type { RestService } from '@inventory/rest';
import { bootStack, readOutbox, type Client, type Stack } from '@inventory/testkit';
import { bootstrapAdmin, createService } from '@inventory/users';

let stack: Stack;
let api: Client;
/** The gateway's view: /internal/ takes a service identity only. */
let internal: Client;
let service: RestService;
beforeAll(async () => {
  stack = await bootStack({
    users: (config) => {
      service = createService(config);
      return service;
    },
  }, {}, { template: true });
  api = stack.client('users');
  internal = stack.serviceClient('users');
});
afterAll(() => stack?.stop());

describe('bootstrap', () => {
  test('when nothing is configured and there are no users, then an admin with a random password and token is created once', async () => {
    const first = await bootstrapAdmin(service, {});
    expect(first.created).toBe(true);
    expect(first.username).toBe('admin');
    expect(first.password).toEqual(expect.any(String));
    expect(first.password!.length).toBeGreaterThanOrEqual(16);
    expect(first.token).toMatch(/^[0-9a-f]{40}$/);

    const login = await internal.post('/internal/auth/password', { username: 'admin', password: first.password });
    expect(login.status).toBe(200);
    expect(login.body.identity.user).toMatchObject({ username: 'admin', is_superuser: true, is_staff: true, is_active: true });
    const byToken = await internal.post('/internal/auth/token', { key: first.token });
    expect(byToken.status).toBe(200);
    expect(byToken.body.identity.token.write_enabled).toBe(true);

    const again = await bootstrapAdmin(service, {});
    expect(again).toEqual({ created: false, username: null });
    expect((await api.get('/api/users/users/')).body.count).toBe(1);

    // through the write pipeline: one created event each for the user and its token, none for the second call
    const events = await readOutbox(stack.databaseUrl, 'users');
    expect(events.map((e) => [e.event, e.model])).toEqual([
      ['created', 'auth.user'],
      ['created', 'users.token'],
    ]);
    expect(events[0].data).toMatchObject({ username: 'admin', is_staff: true });
    expect(events[0].snapshots.postchange).not.toHaveProperty('password');
    expect(events[1].data).toMatchObject({ user: expect.objectContaining({ username: 'admin' }) });
    expect(events.every((e) => e.username === 'service:users')).toBe(true);
  });

  test('when SUPERUSER_* is configured, then that superuser and its API token are created once', async () => {
    const env = { SUPERUSER_NAME: 'ops', SUPERUSER_PASSWORD: 'Ops-pass-1', SUPERUSER_EMAIL: 'ops@example.com', SUPERUSER_API_TOKEN: '0123456789abcdef0123456789abcdef01234567' };
    const first = await bootstrapAdmin(service, env);
    expect(first).toEqual({ created: true, username: 'ops' });
    const byToken = await internal.post('/internal/auth/token', { key: env.SUPERUSER_API_TOKEN });
    expect(byToken.status).toBe(200);
    expect(byToken.body.identity.user).toMatchObject({ username: 'ops', is_superuser: true, is_staff: true });
    const users = await api.get('/api/users/users/?is_superuser=true');
    expect(users.body.results.map((u: { username: string }) => u.username)).toEqual(['admin', 'ops']);
    expect(users.body.results[1].email).toBe('ops@example.com');

    // a restart: nothing new, the password is not reset
    const again = await bootstrapAdmin(service, { ...env, SUPERUSER_PASSWORD: 'different' });
    expect(again).toEqual({ created: false, username: 'ops' });
    expect((await internal.post('/internal/auth/password', { username: 'ops', password: 'Ops-pass-1' })).status).toBe(200);
    expect((await api.get('/api/users/tokens/?user=ops')).body.count).toBe(1);
  });

  test('when the configured API token is not 40 characters, then bootstrap refuses', async () => {
    await expect(bootstrapAdmin(service, { SUPERUSER_NAME: 'x', SUPERUSER_PASSWORD: 'y', SUPERUSER_API_TOKEN: 'short' })).rejects.toThrow(/40 characters/);
  });

  test('when two bootstraps race on one database, then only one creates the user', async () => {
    const env = { SUPERUSER_NAME: 'racer', SUPERUSER_PASSWORD: 'Race-pass-1' };
    const results = await Promise.all([bootstrapAdmin(service, env), bootstrapAdmin(service, env)]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await api.get('/api/users/users/?username=racer')).body.count).toBe(1);
  });
});
