import { bootStack, readOutbox, type Client, type Stack } from '@inventory/testkit';
import { createService } from '@inventory/users';
import { PASSWORD, anonymous, createUser, dbRow, regular, type UserRef } from './helpers';

let stack: Stack;
let api: Client;
let owner: UserRef;
beforeAll(async () => {
  stack = await bootStack({ users: createService }, {}, { template: true });
  api = stack.client('users');
  owner = await createUser(api, 'owner');
});
afterAll(() => stack?.stop());

const HEX40 = /^[0-9a-f]{40}$/;

describe('tokens', () => {
  test('when a token is created without a key, then a 40-character lowercase hex key is generated', async () => {
    const res = await api.post('/api/users/tokens/', { user: owner.id, description: 'ci' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(HEX40);
    expect(res.body).toMatchObject({
      display: res.body.key,
      user: { id: owner.id, url: expect.stringMatching(/\/api\/users\/users\/\d+\/$/), display: 'owner', username: 'owner' },
      expires: null,
      last_used: null,
      write_enabled: true,
      description: 'ci',
      allowed_ips: [],
    });
    expect(res.body.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Object.keys(res.body)).toEqual(['id', 'url', 'display', 'user', 'created', 'expires', 'last_used', 'key', 'write_enabled', 'description', 'allowed_ips']);
    const blank = await api.post('/api/users/tokens/', { user: owner.id, key: '' });
    expect(blank.body.key).toMatch(HEX40);
    expect(blank.body.key).not.toBe(res.body.key);
    const brief = await api.get(`/api/users/tokens/${res.body.id}/?brief=1`);
    expect(brief.body).toEqual({ id: res.body.id, url: res.body.url, display: res.body.key, key: res.body.key, write_enabled: true });
  });

  test('when a token is created with a supplied key, then that key is restored', async () => {
    const key = 'AbCdEf0123456789abcdef0123456789ABCDEF01';
    const res = await api.post('/api/users/tokens/', { user: { username: 'owner' }, key, write_enabled: false });
    expect(res.status).toBe(201);
    expect(res.body.key).toBe(key);
    expect(res.body.write_enabled).toBe(false);
    const dup = await api.post('/api/users/tokens/', { user: owner.id, key });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ key: ['Token with this Key already exists.'] });
  });

  test('when a key is not exactly 40 characters, then DRF\'s length messages are returned', async () => {
    const short = await api.post('/api/users/tokens/', { user: owner.id, key: 'abc' });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ key: ['Ensure this field has at least 40 characters.'] });
    const long = await api.post('/api/users/tokens/', { user: owner.id, key: 'a'.repeat(41) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ key: ['Ensure this field has no more than 40 characters.'] });
  });

  test('when the user is missing or unknown, then the field errors are returned', async () => {
    expect((await api.post('/api/users/tokens/', { description: 'x' })).body).toEqual({ user: ['This field is required.'] });
    expect((await api.post('/api/users/tokens/', { user: 987654 })).body).toEqual({ user: ['Related object not found using the provided numeric ID: 987654'] });
  });

  test('when allowed_ips holds a bad network, then the answer is 400 and good networks are normalised', async () => {
    const bad = await api.post('/api/users/tokens/', { user: owner.id, allowed_ips: ['192.0.2.0/24', 'nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ allowed_ips: ['Invalid IP address format: nope'] });
    const badPrefix = await api.post('/api/users/tokens/', { user: owner.id, allowed_ips: ['10.0.0.0/33'] });
    expect(badPrefix.status).toBe(400);
    const good = await api.post('/api/users/tokens/', { user: owner.id, allowed_ips: ['192.0.2.0/24', '2001:db8::/32', '10.1.1.1'] });
    expect(good.status).toBe(201);
    expect(good.body.allowed_ips).toEqual(['192.0.2.0/24', '2001:db8::/32', '10.1.1.1/32']);
    // a list: empty for no restriction, never null (the fuzz found null answered as null)
    const nulled = await api.post('/api/users/tokens/', { user: owner.id, allowed_ips: null });
    expect(nulled.status).toBe(400);
    expect(nulled.body).toEqual({ allowed_ips: ['This field may not be null.'] });
  });

  test('when tokens are filtered, then user, key, write_enabled, dates and q apply', async () => {
    const other = await createUser(api, 'filterer');
    const t = await api.post('/api/users/tokens/', { user: other.id, description: 'Nightly Backup', expires: '2031-06-01T00:00:00Z', write_enabled: false });
    const ids = (body: { results: { id: number }[] }) => body.results.map((x) => x.id);
    expect(ids((await api.get('/api/users/tokens/?user=filterer')).body)).toEqual([t.body.id]);
    expect(ids((await api.get(`/api/users/tokens/?user_id=${other.id}`)).body)).toEqual([t.body.id]);
    expect(ids((await api.get(`/api/users/tokens/?key=${t.body.key}`)).body)).toEqual([t.body.id]);
    expect(ids((await api.get('/api/users/tokens/?q=backup')).body)).toEqual([t.body.id]);
    expect(ids((await api.get('/api/users/tokens/?q=filterer')).body)).toEqual([t.body.id]);
    expect(ids((await api.get('/api/users/tokens/?expires__gte=2031-01-01T00:00:00Z')).body)).toEqual([t.body.id]);
    expect(ids((await api.get('/api/users/tokens/?write_enabled=false&user=filterer')).body)).toEqual([t.body.id]);
    expect((await api.get('/api/users/tokens/?created__lte=2000-01-01T00:00:00Z')).body.count).toBe(0);
    expect((await api.get('/api/users/tokens/?user=nobody')).status).toBe(400);
  });
});

describe('token ownership', () => {
  test('when a regular user lists tokens, then only their own tokens are visible', async () => {
    const u1 = await createUser(api, 'quinn');
    const u2 = await createUser(api, 'rita');
    const as1 = api.withIdentity(regular(u1));
    const own = await as1.post('/api/users/tokens/', { user: u1.id, description: 'mine' });
    expect(own.status).toBe(201);
    const theirs = await api.post('/api/users/tokens/', { user: u2.id });
    const list = await as1.get('/api/users/tokens/');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].id).toBe(own.body.id);
    expect((await as1.get(`/api/users/tokens/${theirs.body.id}/`)).status).toBe(404);
    expect((await as1.delete(`/api/users/tokens/${theirs.body.id}/`)).status).toBe(404);
    expect((await as1.patch(`/api/users/tokens/${own.body.id}/`, { description: 'still mine' })).body.description).toBe('still mine');
  });

  test('when a regular user creates a token for somebody else, then the grant rule answers 403', async () => {
    const u1 = await createUser(api, 'sam');
    const u2 = await createUser(api, 'tina');
    const res = await api.withIdentity(regular(u1)).post('/api/users/tokens/', { user: u2.id });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'This user does not have permission to create tokens for other users.' });
    const own = await api.withIdentity(regular(u1)).post('/api/users/tokens/', { user: u1.id });
    const moved = await api.withIdentity(regular(u1)).patch(`/api/users/tokens/${own.body.id}/`, { user: u2.id });
    expect(moved.status).toBe(403);
    expect(moved.body.detail).toBe('This user does not have permission to create tokens for other users.');
    expect((await api.get(`/api/users/tokens/?user_id=${u2.id}`)).body.count).toBe(0);
  });

  test('when a user holds the grant permission, then they may create tokens for others', async () => {
    const u1 = await createUser(api, 'uma');
    const u2 = await createUser(api, 'vic');
    const granted = regular(u1, [{ object_types: ['users.token'], actions: ['view', 'add', 'grant'], constraints: null }]);
    const res = await api.withIdentity(granted).post('/api/users/tokens/', { user: u2.id });
    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(u2.id);
  });

  test('when a superuser creates a token for another user, then no grant permission is needed', async () => {
    const u = await createUser(api, 'walt');
    expect((await api.post('/api/users/tokens/', { user: u.id })).status).toBe(201);
  });
});

describe('token provisioning', () => {
  test('when valid credentials are posted, then a new token is returned with its key', async () => {
    const u = await createUser(api, 'xena');
    const res = await api.withIdentity(anonymous).post('/api/users/tokens/provision/', {
      username: 'xena',
      password: PASSWORD,
      description: 'provisioned',
      key: '0'.repeat(40),
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(HEX40);
    expect(res.body.key).not.toBe('0'.repeat(40));
    expect(res.body).toMatchObject({ user: { id: u.id, username: 'xena', display: 'xena' }, write_enabled: true, last_used: null, expires: null, description: 'provisioned' });
    expect(res.body).not.toHaveProperty('username');
    expect(res.body).not.toHaveProperty('password');
    const custom = await api.withIdentity(anonymous).post('/api/users/tokens/provision/', {
      username: 'xena',
      password: PASSWORD,
      write_enabled: false,
      expires: '2030-01-01T00:00:00Z',
      allowed_ips: ['192.0.2.0/24'],
    });
    expect(custom.status).toBe(201);
    expect(custom.body).toMatchObject({ write_enabled: false, expires: '2030-01-01T00:00:00Z', allowed_ips: ['192.0.2.0/24'] });
    // the write pipeline's: one created event each, by the user who signed in
    const events = (await readOutbox(stack.databaseUrl, 'users')).filter((e) => e.model === 'users.token' && [res.body.id, custom.body.id].includes(e.object_id));
    expect(events.map((e) => [e.event, e.object_id, e.username])).toEqual([
      ['created', res.body.id, 'xena'],
      ['created', custom.body.id, 'xena'],
    ]);
  });

  test('when the password is wrong, the user unknown or inactive, then the answer is 403', async () => {
    const u = await createUser(api, 'yuri');
    const post = (body: unknown) => api.withIdentity(anonymous).post('/api/users/tokens/provision/', body);
    const wrong = await post({ username: 'yuri', password: 'nope' });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ detail: 'Invalid username/password' });
    expect((await post({ username: 'nobody-here', password: PASSWORD })).body).toEqual({ detail: 'Invalid username/password' });
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    const inactive = await post({ username: 'yuri', password: PASSWORD });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual({ detail: 'Invalid username/password' });
  });

  test('when username or password is missing, then the answer is 400 with field errors', async () => {
    const post = (body: unknown) => api.withIdentity(anonymous).post('/api/users/tokens/provision/', body);
    const none = await post({});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ username: ['This field is required.'], password: ['This field is required.'] });
    expect((await post({ username: 'x' })).body).toEqual({ password: ['This field is required.'] });
    expect((await post({ username: '', password: 'x' })).body).toEqual({ username: ['This field may not be blank.'] });
  });

  test('when provision is called with GET, then the method is not allowed', async () => {
    const res = await api.withIdentity(anonymous).get('/api/users/tokens/provision/');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "GET" not allowed.' });
  });

  test('when provisioned tokens use a bad allowed_ips entry, then the answer is 400 and no token is made', async () => {
    const u = await createUser(api, 'zoe');
    const res = await api.withIdentity(anonymous).post('/api/users/tokens/provision/', { username: 'zoe', password: PASSWORD, allowed_ips: ['bad'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ allowed_ips: ['Invalid IP address format: bad'] });
    const row = await dbRow(stack, 'SELECT count(*)::int AS n FROM users.token WHERE user_id = $1', [u.id]);
    expect(row?.n).toBe(0);
  });
});
