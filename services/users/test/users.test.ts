import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService } from '@inventory/users';
import { PASSWORD, anonymous, createUser, dbRow, regular } from './helpers';

let stack: Stack;
let api: Client;
/** The gateway's view: /internal/ takes a service identity only. */
let internal: Client;
beforeAll(async () => {
  stack = await bootStack({ users: createService }, {}, { template: true });
  api = stack.client('users');
  internal = stack.serviceClient('users');
});
afterAll(() => stack?.stop());

describe('users', () => {
  test('when a user is created, then the password is never returned and is stored as an argon2id hash (OWASP parameters)', async () => {
    const res = await api.post('/api/users/users/', { username: 'alice', password: 'S3cret-alice', email: 'alice@example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: 'alice', display: 'alice', is_staff: false, is_active: true, last_login: null, groups: [], email: 'alice@example.com' });
    expect(res.body).not.toHaveProperty('password');
    expect(res.body).not.toHaveProperty('is_superuser');
    expect(res.body.url).toMatch(/\/api\/users\/users\/\d+\/$/);
    expect(typeof res.body.date_joined).toBe('string');
    const detail = await api.get(`/api/users/users/${res.body.id}/`);
    expect(detail.body).not.toHaveProperty('password');
    const row = await dbRow(stack, 'SELECT password, is_superuser FROM users."user" WHERE id = $1', [res.body.id]);
    expect(row?.password).not.toBe('S3cret-alice');
    expect(String(row?.password)).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(row?.is_superuser).toBe(false);
    const login = await internal.post('/internal/auth/password', { username: 'alice', password: 'S3cret-alice' });
    expect(login.status).toBe(200);
    expect(login.body.identity.user).toEqual({ id: res.body.id, username: 'alice', is_superuser: false, is_staff: false, is_active: true });
  });

  test('when a user is patched without a password, then the stored password is kept', async () => {
    const u = await createUser(api, 'bob');
    const before = await dbRow(stack, 'SELECT password FROM users."user" WHERE id = $1', [u.id]);
    const res = await api.patch(`/api/users/users/${u.id}/`, { first_name: 'Bob', last_name: 'Builder' });
    expect(res.status).toBe(200);
    expect(res.body.display).toBe('bob (Bob Builder)');
    const after = await dbRow(stack, 'SELECT password FROM users."user" WHERE id = $1', [u.id]);
    expect(after?.password).toBe(before?.password);
    expect((await internal.post('/internal/auth/password', { username: 'bob', password: PASSWORD })).status).toBe(200);
  });

  test('when a user is patched with a new password, then only the new password is accepted', async () => {
    const u = await createUser(api, 'carol');
    expect((await api.patch(`/api/users/users/${u.id}/`, { password: 'New-pass-2' })).status).toBe(200);
    expect((await internal.post('/internal/auth/password', { username: 'carol', password: PASSWORD })).status).toBe(403);
    expect((await internal.post('/internal/auth/password', { username: 'carol', password: 'New-pass-2' })).status).toBe(200);
  });

  test('when a user is replaced with PUT without a password, then the answer is 400', async () => {
    const u = await createUser(api, 'dave');
    const res = await api.put(`/api/users/users/${u.id}/`, { username: 'dave' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ password: ['This field is required.'] });
    const ok = await api.put(`/api/users/users/${u.id}/`, { username: 'dave2', password: 'x-Y-z-123' });
    expect(ok.status).toBe(200);
    expect(ok.body.username).toBe('dave2');
  });

  test('when a user is created without username and password, then both are required', async () => {
    const res = await api.post('/api/users/users/', { first_name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ username: ['This field is required.'], password: ['This field is required.'] });
  });

  test('when a username has forbidden characters, then NetBox\'s message is returned', async () => {
    const res = await api.post('/api/users/users/', { username: 'bad name!', password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.username).toEqual(['Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.']);
    expect((await api.post('/api/users/users/', { username: 'ok.name+x@y-z_1', password: PASSWORD })).status).toBe(201);
  });

  test('when a username is longer than 150 characters, then the length message is returned', async () => {
    const res = await api.post('/api/users/users/', { username: 'a'.repeat(151), password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.username).toContain('Ensure this field has no more than 150 characters.');
  });

  test('when a username is taken, then the uniqueness message is returned (case-sensitive)', async () => {
    await createUser(api, 'erin');
    const dup = await api.post('/api/users/users/', { username: 'erin', password: PASSWORD });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ username: ['A user with that username already exists.'] });
    expect((await api.post('/api/users/users/', { username: 'Erin', password: PASSWORD })).status).toBe(201);
  });

  test('when is_superuser is sent, then it is ignored and the user stays a regular user', async () => {
    const u = await createUser(api, 'mallory', { is_superuser: true });
    const row = await dbRow(stack, 'SELECT is_superuser FROM users."user" WHERE id = $1', [u.id]);
    expect(row?.is_superuser).toBe(false);
  });

  test('when users are filtered by is_superuser and q, then matching users are listed', async () => {
    await createUser(api, 'frank', { first_name: 'Francis', email: 'frank@corp.example' });
    const sup = await dbRow(stack, 'UPDATE users."user" SET is_superuser = true WHERE username = $1 RETURNING id', ['frank']);
    const supers = await api.get('/api/users/users/?is_superuser=true');
    expect(supers.body.results.map((u: { id: number }) => u.id)).toEqual([sup?.id]);
    const notSupers = await api.get('/api/users/users/?is_superuser=false');
    expect(notSupers.body.results.map((u: { username: string }) => u.username)).not.toContain('frank');
    const q = await api.get('/api/users/users/?q=corp.example');
    expect(q.body.results.map((u: { username: string }) => u.username)).toEqual(['frank']);
    const byName = await api.get('/api/users/users/?username=frank&brief=1');
    expect(byName.body.results).toEqual([{ id: sup?.id, url: expect.any(String), display: 'frank (Francis)', username: 'frank' }]);
  });

  test('when users are listed, then they are ordered by username', async () => {
    for (const name of ['ord-zed', 'ord-amy', 'ord-mia']) await createUser(api, name);
    const list = await api.get('/api/users/users/?username__isw=ord-');
    expect(list.body.results.map((u: { username: string }) => u.username)).toEqual(['ord-amy', 'ord-mia', 'ord-zed']);
  });
});

describe('groups', () => {
  test('when users join groups, then groups show user_count and users show nested groups', async () => {
    const g1 = await api.post('/api/users/groups/', { name: 'netops' });
    const g2 = await api.post('/api/users/groups/', { name: 'empty' });
    expect(g1.status).toBe(201);
    expect(g1.body).toMatchObject({ name: 'netops', display: 'netops', user_count: 0 });
    const u1 = await createUser(api, 'gina', { groups: [g1.body.id] });
    await createUser(api, 'hank', { groups: [g1.body.id, g2.body.id] });
    expect(u1.groups).toEqual([{ id: g1.body.id, url: g1.body.url, display: 'netops', name: 'netops' }]);
    const groups = await api.get('/api/users/groups/');
    const counts = Object.fromEntries(groups.body.results.map((g: { name: string; user_count: number }) => [g.name, g.user_count]));
    expect(counts).toEqual({ empty: 1, netops: 2 });
    const detail = await api.get(`/api/users/groups/${g1.body.id}/`);
    expect(detail.body.user_count).toBe(2);
    const brief = await api.get(`/api/users/groups/${g1.body.id}/?brief=1`);
    expect(brief.body).toEqual({ id: g1.body.id, url: g1.body.url, display: 'netops', name: 'netops' });
  });

  test('when users are filtered by group id or name, then only members are listed', async () => {
    const g = await api.post('/api/users/groups/', { name: 'auditors' });
    await createUser(api, 'ivan', { groups: [g.body.id] });
    const byId = await api.get(`/api/users/users/?group_id=${g.body.id}`);
    expect(byId.body.results.map((u: { username: string }) => u.username)).toEqual(['ivan']);
    const byName = await api.get('/api/users/users/?group=auditors');
    expect(byName.body.results.map((u: { username: string }) => u.username)).toEqual(['ivan']);
    const unknown = await api.get('/api/users/users/?group=nobody');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ group: ['Select a valid choice. nobody is not one of the available choices.'] });
  });

  test('when a group name is taken, then the uniqueness message is returned', async () => {
    await api.post('/api/users/groups/', { name: 'dupes' });
    const res = await api.post('/api/users/groups/', { name: 'dupes' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ['group with this name already exists.'] });
  });

  test('when user groups are written as objects, then only primary keys are accepted', async () => {
    const res = await api.post('/api/users/users/', { username: 'judy', password: PASSWORD, groups: [{ name: 'netops' }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ groups: ['Incorrect type. Expected pk value, received dict.'] });
  });

  test('when a user is removed from all groups, then the group count drops', async () => {
    const g = await api.post('/api/users/groups/', { name: 'temp' });
    const u = await createUser(api, 'kate', { groups: [g.body.id] });
    expect((await api.patch(`/api/users/users/${u.id}/`, { groups: [] })).body.groups).toEqual([]);
    expect((await api.get(`/api/users/groups/${g.body.id}/`)).body.user_count).toBe(0);
  });
});

describe('object permissions', () => {
  test('when a permission is created, then the full and brief forms follow NetBox', async () => {
    const g = await api.post('/api/users/groups/', { name: 'perm-group' });
    const u = await createUser(api, 'leo');
    const res = await api.post('/api/users/permissions/', {
      name: 'View sites',
      object_types: ['dcim.site', 'dcim.rack'],
      actions: ['view', 'change'],
      groups: [g.body.id],
      users: [u.id],
      constraints: { status: 'active' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'View sites',
      display: 'View sites',
      description: '',
      enabled: true,
      object_types: ['dcim.site', 'dcim.rack'],
      actions: ['view', 'change'],
      constraints: { status: 'active' },
    });
    expect(res.body.groups).toEqual([{ id: g.body.id, url: g.body.url, display: 'perm-group', name: 'perm-group' }]);
    expect(res.body.users).toEqual([{ id: u.id, url: expect.any(String), display: 'leo', username: 'leo' }]);
    const brief = await api.get(`/api/users/permissions/${res.body.id}/?brief=1`);
    expect(brief.body).toEqual({
      id: res.body.id,
      url: res.body.url,
      display: 'View sites',
      name: 'View sites',
      enabled: true,
      object_types: ['dcim.site', 'dcim.rack'],
      groups: ['perm-group'],
      users: ['leo'],
      actions: ['view', 'change'],
    });
  });

  test('when object types or actions are invalid, then NetBox\'s messages are returned', async () => {
    const unknown = await api.post('/api/users/permissions/', { name: 'x', object_types: ['dcim.nothing'], actions: ['view'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ object_types: ['Invalid content type: dcim.nothing'] });
    const malformed = await api.post('/api/users/permissions/', { name: 'x', object_types: ['nodot'], actions: ['view'] });
    expect(malformed.body).toEqual({ object_types: ["Invalid value. Specify a content type as '<app_label>.<model_name>'."] });
    const blank = await api.post('/api/users/permissions/', { name: 'x', object_types: ['dcim.site'], actions: [] });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ actions: ['This field cannot be blank.'] });
    const missing = await api.post('/api/users/permissions/', { name: 'x' });
    expect(missing.body).toEqual({ object_types: ['This field is required.'], actions: ['This field is required.'] });
    const badConstraints = await api.post('/api/users/permissions/', { name: 'x', object_types: ['dcim.site'], actions: ['view'], constraints: 'status' });
    expect(badConstraints.status).toBe(400);
    expect(Object.keys(badConstraints.body)).toEqual(['constraints']);
    const list = await api.post('/api/users/permissions/', { name: 'or', object_types: ['dcim.site'], actions: ['view'], constraints: [{ a: 1 }, { b: 2 }] });
    expect(list.status).toBe(201);
    expect(list.body.constraints).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test('when permissions are filtered by action, user, group and content type, then matches are listed', async () => {
    const g = await api.post('/api/users/groups/', { name: 'filter-group' });
    const u = await createUser(api, 'mike');
    const p1 = await api.post('/api/users/permissions/', { name: 'f-delete', object_types: ['ipam.prefix'], actions: ['delete'], users: [u.id] });
    const p2 = await api.post('/api/users/permissions/', { name: 'f-add', object_types: ['ipam.vlan'], actions: ['add', 'view'], groups: [g.body.id], enabled: false });
    const ids = (body: { results: { id: number }[] }) => body.results.map((p) => p.id);
    expect(ids((await api.get('/api/users/permissions/?can_delete=true&name__isw=f-')).body)).toEqual([p1.body.id]);
    expect(ids((await api.get('/api/users/permissions/?can_delete=false&name__isw=f-')).body)).toEqual([p2.body.id]);
    expect(ids((await api.get('/api/users/permissions/?user=mike')).body)).toEqual([p1.body.id]);
    expect(ids((await api.get(`/api/users/permissions/?user_id=${u.id}`)).body)).toEqual([p1.body.id]);
    expect(ids((await api.get('/api/users/permissions/?group=filter-group')).body)).toEqual([p2.body.id]);
    expect(ids((await api.get('/api/users/permissions/?enabled=false&name__isw=f-')).body)).toEqual([p2.body.id]);
    const ct = await api.get('/api/users/permissions/?q=f-');
    expect(ids(ct.body).sort()).toEqual([p1.body.id, p2.body.id].sort());
    // content type ids come from the catalogue (ipam.prefix / ipam.vlan)
    const { contentType } = await import('@inventory/refs');
    expect(ids((await api.get(`/api/users/permissions/?object_types=${contentType('ipam.prefix')!.id}`)).body)).toEqual([p1.body.id]);
  });
});

describe('user config', () => {
  test('when a user patches the config, then the tree is deep-merged and returned', async () => {
    const u = await createUser(api, 'nina');
    const as = api.withIdentity(regular(u));
    expect((await as.get('/api/users/config/')).body).toEqual({});
    const first = await as.patch('/api/users/config/', { tables: { SiteTable: { columns: ['name', 'status'] } }, pagination: { per_page: 50 } });
    expect(first.status).toBe(200);
    const second = await as.patch('/api/users/config/', { tables: { DeviceTable: { columns: ['name'] } }, pagination: { per_page: 100 } });
    expect(second.body).toEqual({
      tables: { SiteTable: { columns: ['name', 'status'] }, DeviceTable: { columns: ['name'] } },
      pagination: { per_page: 100 },
    });
    expect((await as.get('/api/users/config/')).body).toEqual(second.body);
    // another user has their own tree
    const other = await createUser(api, 'oscar');
    expect((await api.withIdentity(regular(other)).get('/api/users/config/')).body).toEqual({});
  });

  test('when an anonymous caller asks for the config, then the answer is 403', async () => {
    const res = await api.withIdentity(anonymous).get('/api/users/config/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  test('when the area root is read, then config is listed beside the models', async () => {
    const res = await api.get('/api/users/');
    expect(Object.keys(res.body)).toEqual(['config', 'groups', 'permissions', 'tokens', 'users']);
  });
});

describe('permissions on the users endpoints', () => {
  test('when a regular user without permissions lists users, then the answer is 403', async () => {
    const u = await createUser(api, 'pete');
    const res = await api.withIdentity(regular(u)).get('/api/users/users/');
    expect(res.status).toBe(403);
  });
});
