import { bootStack, eventually, Client, type Stack, gatewayUser } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as dcim } from '@inventory/dcim';
import { stackGateway } from '@inventory/gateway';

/**
 * Sites (dcim) and the tenants they name (tenancy), through the gateway, as
 * a NetBox client sees them: dcim keeps a projection of tenants fed by
 * tenancy's events, so a rename reaches every site, sites list with tenancy
 * stopped, and a tenant is not deleted while sites protect it or while dcim
 * cannot say whether they do.
 */
let stack: Stack;
let gw: Client;
let auth: { headers: { authorization: string }; identity: null };

beforeAll(async () => {
  stack = await bootStack({
    users,
    tenancy,
    extras,
    dcim,
    gateway: stackGateway(),
  }, {}, { template: true });
  const types = ['tenancy.tenant', 'tenancy.tenantgroup', 'tenancy.contact', 'tenancy.contactrole', 'tenancy.contactassignment', 'dcim.site', 'dcim.region'];
  const { key } = await gatewayUser(stack, 'admin', [{ object_types: types }]);
  gw = new Client(stack.urls.gateway, { identity: null });
  auth = { headers: { authorization: `Token ${key}` }, identity: null };
}, 120_000);
afterAll(() => stack?.stop());

test('when a tenant is renamed, then every site that names it shows the new name once the event arrives (the lag is printed)', async () => {
  const t = await gw.post('/api/tenancy/tenants/', { name: 'Before', slug: 'before' }, auth);
  const sites = await gw.post('/api/dcim/sites/', Array.from({ length: 20 }, (_, i) => ({ name: `Site ${i}`, slug: `site-${i}`, tenant: { slug: 'before' } })), auth);
  expect(sites.status).toBe(201);
  expect(sites.body.every((s: { tenant: { name: string } }) => s.tenant.name === 'Before')).toBe(true);
  const t0 = Date.now();
  expect((await gw.patch(`/api/tenancy/tenants/${t.body.id}/`, { name: 'After' }, auth)).status).toBe(200);
  await eventually(async () => {
    const r = await gw.get(`/api/dcim/sites/?tenant_id=${t.body.id}&limit=100`, auth);
    return r.body.count === 20 && r.body.results.every((s: { tenant: { name: string } }) => s.tenant.name === 'After');
  }, 10_000, 'the new name on every site');
  console.log(`rename to projection through the gateway: ${Date.now() - t0} ms (commit, relay, consumer, then a list read)`);
  // tenancy counts the sites from dcim's events
  await eventually(async () => (await gw.get(`/api/tenancy/tenants/${t.body.id}/`, auth)).body.site_count === 20, 10_000, 'site_count 20');
});

test('when tenancy is stopped, then sites still list with their nested tenants', async () => {
  await stack.stopService('tenancy');
  try {
    const r = await gw.get('/api/dcim/sites/?tenant=before&limit=5', auth);
    expect(r.status).toBe(200);
    expect(r.body.results[0].tenant).toMatchObject({ name: 'After', slug: 'before' });
  } finally {
    await stack.startService('tenancy');
  }
});

test('when dcim is stopped, then deleting a tenant is a 503 naming dcim, and nothing is deleted', async () => {
  const t = await gw.post('/api/tenancy/tenants/', { name: 'Lonely', slug: 'lonely' }, auth);
  await stack.stopService('dcim');
  try {
    const r = await gw.delete(`/api/tenancy/tenants/${t.body.id}/`, undefined, auth);
    expect(r.status).toBe(503);
    expect(r.body.detail).toMatch(/dcim/);
  } finally {
    await stack.startService('dcim');
  }
  expect((await gw.get(`/api/tenancy/tenants/${t.body.id}/`, auth)).status).toBe(200);
  expect((await gw.delete(`/api/tenancy/tenants/${t.body.id}/`, undefined, auth)).status).toBe(204);
});

test('when tenants are deleted in bulk and a site protects one, then 409 names the site and none is deleted', async () => {
  const free = await gw.post('/api/tenancy/tenants/', { name: 'Free', slug: 'free' }, auth);
  const used = await gw.post('/api/tenancy/tenants/', { name: 'Used', slug: 'used' }, auth);
  const site = await gw.post('/api/dcim/sites/', { name: 'Keeper', slug: 'keeper', tenant: used.body.id }, auth);
  const r = await gw.delete('/api/tenancy/tenants/', [{ id: free.body.id }, { id: used.body.id }], auth);
  expect(r.status).toBe(409);
  expect(r.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: Keeper (${site.body.id})` });
  expect((await gw.get(`/api/tenancy/tenants/?id=${free.body.id}&id=${used.body.id}`, auth)).body.count).toBe(2);
});

test('when a contact is assigned to a site, then the assignment shows the site from tenancy\'s projection (dcim stopped too), and goes when the site is deleted', async () => {
  const site = await gw.post('/api/dcim/sites/', { name: 'Assigned', slug: 'assigned' }, auth);
  const contact = await gw.post('/api/tenancy/contacts/', { name: 'Noc' }, auth);
  const role = await gw.post('/api/tenancy/contact-roles/', { name: 'Operations', slug: 'operations' }, auth);
  const a = await gw.post('/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site.body.id, contact: contact.body.id, role: role.body.id }, auth);
  expect(a.status).toBe(201);
  // made a moment ago: tenancy asked dcim for it before writing, so the answer already shows it
  expect(a.body.object).toMatchObject({ id: site.body.id, name: 'Assigned' });
  await stack.stopService('dcim');
  try {
    const r = await gw.get(`/api/tenancy/contact-assignments/?id=${a.body.id}`, auth);
    expect(r.status).toBe(200);
    expect(r.body.results[0].object).toMatchObject({ id: site.body.id, name: 'Assigned', slug: 'assigned' });
  } finally {
    await stack.startService('dcim');
  }
  // and dcim filters its sites by the contacts tenancy assigned (contact, role, group at any depth), from its own projections
  await eventually(async () => (await gw.get(`/api/dcim/sites/?contact=${contact.body.id}`, auth)).body.count === 1, 10_000, 'the assignment projected');
  expect((await gw.get(`/api/dcim/sites/?contact_role=${role.body.id}`, auth)).body.results.map((x: { slug: string }) => x.slug)).toEqual(['assigned']);
  expect((await gw.get(`/api/dcim/sites/?contact__n=${contact.body.id}&slug=assigned`, auth)).body.count).toBe(0);
  expect((await gw.get('/api/dcim/sites/?contact=999999', auth)).status).toBe(400);
  expect((await gw.delete(`/api/dcim/sites/${site.body.id}/`, undefined, auth)).status).toBe(204);
  await eventually(async () => (await gw.get(`/api/tenancy/contact-assignments/${a.body.id}/`, auth)).status === 404, 10_000, 'the assignment deleted with its site');
});
