import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService, usersModels } from '@inventory/users';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ users: createService }, {}, { template: true });
  const owner = await stack.client('users').post('/api/users/users/', { username: 'contract-owner', password: 'Owner-pass-1' });
  if (owner.status !== 201) throw new Error(owner.text);
});
afterAll(() => stack?.stop());

const owner = { username: 'contract-owner' };

runModelContract('user', {
  stack: () => stack,
  service: 'users',
  model: usersModels.user,
  path: '/api/users/users/',
  schema: 'User',
  make: (i) => ({ username: `user${i}`, password: `Pass-word-${i}`, first_name: i % 2 ? 'Odd' : 'Even', email: `u${i}@example.com` }),
  patch: { last_name: 'Patched', is_staff: true },
  badPatch: { username: 'bad name' },
  invalid: [
    { body: { password: 'Pass-word-x' }, field: 'username' },
    { body: { username: 'no password' }, field: 'username' },
    { body: { username: 'nopassword' }, field: 'password' },
    { body: { username: 'x'.repeat(151), password: 'p' }, field: 'username' },
    { body: { username: 'bad-email', password: 'p', email: 'not-an-email' }, field: 'email' },
    { body: { username: 'bad-groups', password: 'p', groups: [{ name: 'x' }] }, field: 'groups' },
  ],
  brief: ['username'],
  filters: [
    { query: (o) => `username=${o[1].username}`, expect: (o) => [o[1]] },
    { query: (o) => `first_name=${o[0].first_name}`, expect: (o) => o.filter((x) => x.first_name === o[0].first_name) },
    { query: (o) => `q=${o[2].email}`, expect: (o) => [o[2]] },
    { query: () => 'is_superuser=false', expect: (o) => o },
  ],
  volume: 30,
});

runModelContract('group', {
  stack: () => stack,
  service: 'users',
  model: usersModels.group,
  path: '/api/users/groups/',
  schema: 'Group',
  make: (i) => ({ name: `group ${i}` }),
  // the name is the only writable field and unique, so the shared patch body is empty
  patch: {},
  badPatch: { name: '' },
  invalid: [
    { body: {}, field: 'name' },
    { body: { name: 'x'.repeat(151) }, field: 'name' },
  ],
  brief: ['name'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `q=${encodeURIComponent(o[2].name)}`, expect: (o) => [o[2]] },
  ],
});

runModelContract('token', {
  stack: () => stack,
  service: 'users',
  model: usersModels.token,
  path: '/api/users/tokens/',
  schema: 'Token',
  make: (i) => ({ user: owner, description: `token ${i}`, write_enabled: i % 2 === 0 }),
  patch: { description: 'patched', write_enabled: false },
  badPatch: { key: 'short' },
  invalid: [
    { body: { description: 'no user' }, field: 'user' },
    { body: { user: owner, key: 'abc' }, field: 'key' },
    { body: { user: owner, allowed_ips: ['nope'] }, field: 'allowed_ips' },
    { body: { user: { username: 'nobody' } }, field: 'user' },
  ],
  brief: ['key', 'write_enabled'],
  filters: [
    { query: (o) => `key=${o[1].key}`, expect: (o) => [o[1]] },
    { query: () => 'write_enabled=true', expect: (o) => o.filter((x) => x.write_enabled) },
    { query: (o) => `q=${encodeURIComponent(o[2].description)}`, expect: (o) => [o[2]] },
    { query: () => 'user=contract-owner', expect: (o) => o },
  ],
});

runModelContract('object permission', {
  stack: () => stack,
  service: 'users',
  model: usersModels.objectPermission,
  path: '/api/users/permissions/',
  schema: 'ObjectPermission',
  make: (i) => ({ name: `perm ${i}`, object_types: ['dcim.site'], actions: i % 2 ? ['view'] : ['view', 'delete'], description: i % 2 ? 'odd' : 'even' }),
  patch: { description: 'patched', enabled: false, actions: ['view', 'change'] },
  badPatch: { object_types: ['nope.nope'] },
  invalid: [
    { body: { name: 'no types' }, field: 'object_types' },
    { body: { name: 'no actions', object_types: ['dcim.site'], actions: [] }, field: 'actions' },
    { body: { name: 'bad type', object_types: ['bad'], actions: ['view'] }, field: 'object_types' },
    { body: { name: 'x'.repeat(101), object_types: ['dcim.site'], actions: ['view'] }, field: 'name' },
  ],
  brief: ['name', 'enabled', 'object_types', 'groups', 'users', 'actions'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[0].name)}`, expect: (o) => [o[0]] },
    { query: () => 'can_delete=true', expect: (o) => o.filter((x) => x.actions.includes('delete')) },
    { query: () => 'can_view=false', expect: () => [] },
    { query: () => 'description=odd', expect: (o) => o.filter((x) => x.description === 'odd') },
  ],
});
