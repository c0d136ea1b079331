import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as tenancy, tenancyModels } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
});
afterAll(() => stack?.stop());

const tooLong = 'x'.repeat(101);

runModelContract('tenant group', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.tenantGroup,
  path: '/api/tenancy/tenant-groups/',
  schema: 'TenantGroup',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Group ${i}`, slug: `group-${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
    { body: { name: 'bad slug', slug: 'a b' }, field: 'slug' },
  ],
  brief: ['name', 'slug', 'tenant_count', '_depth'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `slug__ic=${o[2].slug.slice(-3)}`, expect: (o) => o.filter((x) => x.slug.includes(o[2].slug.slice(-3))) },
  ],
});

runModelContract('tenant', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.tenant,
  path: '/api/tenancy/tenants/',
  schema: 'Tenant',
  badPatch: { group: 999999 },
  make: (i) => ({ name: `Tenant ${i}`, slug: `tenant-${i}`, description: i % 2 ? 'odd' : 'even', comments: 'c' }),
  patch: { description: 'patched', comments: 'new comments' },
  invalid: [
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: 'bad group', slug: 'bad-group', group: 999999 }, field: 'group' },
    { body: { name: 'bad group ref', slug: 'bad-group-ref', group: { slug: 'nope' } }, field: 'group' },
    { body: { name: 'tags', slug: 'tags-bad', tags: 'x' }, field: 'tags' },
    { body: { name: 'cf', slug: 'cf-bad', custom_fields: { nope: 1 } }, field: '__all__' },
  ],
  brief: ['name', 'slug'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[0].name)}&name=${encodeURIComponent(o[2].name)}`, expect: (o) => [o[0], o[2]] },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: (o) => `name__nie=${encodeURIComponent(o[0].name.toUpperCase())}`, expect: (o) => o.slice(1) },
    { query: () => 'q=tenant', expect: (o) => o },
  ],
});

runModelContract('contact group', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.contactGroup,
  path: '/api/tenancy/contact-groups/',
  schema: 'ContactGroup',
  badPatch: { slug: 'bad slug' },
  make: (i) => ({ name: `CG ${i}`, slug: `cg-${i}` }),
  patch: { description: 'patched' },
  invalid: [{ body: { slug: 'cg-x' }, field: 'name' }],
  brief: ['name', 'slug', 'contact_count', '_depth'],
});

runModelContract('contact role', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.contactRole,
  path: '/api/tenancy/contact-roles/',
  schema: 'ContactRole',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Role ${i}`, slug: `role-${i}` }),
  patch: { description: 'patched' },
  invalid: [{ body: { name: 'r' }, field: 'slug' }],
  brief: ['name', 'slug'],
});

runModelContract('contact', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.contact,
  path: '/api/tenancy/contacts/',
  schema: 'Contact',
  badPatch: { email: 'bad' },
  make: (i) => ({ name: `Contact ${i}`, email: `c${i}@example.com`, phone: `+1-555-${i}`, link: 'https://example.com/x' }),
  patch: { title: 'Engineer', address: 'Somewhere 1' },
  invalid: [
    { body: { name: 'bad mail', email: 'not-an-email' }, field: 'email' },
    { body: { name: 'bad link', link: 'not a url' }, field: 'link' },
  ],
  brief: ['name'],
});

runModelContract('contact assignment', {
  stack: () => stack,
  service: 'tenancy',
  model: tenancyModels.contactAssignment,
  path: '/api/tenancy/contact-assignments/',
  schema: 'ContactAssignment',
  badPatch: { priority: 'first' },
  make: async (i) => {
    const api = stack.client('tenancy');
    const contact = await api.post('/api/tenancy/contacts/', { name: `Assigned ${i}` });
    const role = await api.post('/api/tenancy/contact-roles/', { name: `Assign role ${i}`, slug: `assign-role-${i}` });
    const tenant = await api.post('/api/tenancy/tenants/', { name: `Assigned tenant ${i}`, slug: `assigned-tenant-${i}` });
    return { content_type: 'tenancy.tenant', object_id: tenant.body.id, contact: contact.body.id, role: role.body.id, priority: 'primary' };
  },
  patch: { priority: 'secondary' },
  invalid: [
    { body: { content_type: 'tenancy.tenant', object_id: 1, contact: 1, role: 1, priority: 'first' }, field: 'priority' },
    { body: { content_type: 'extras.tag', object_id: 1, contact: 1, role: 1 }, field: 'content_type' },
  ],
  brief: ['contact', 'role', 'priority'],
  choices: ['priority'],
  volume: 20,
});
