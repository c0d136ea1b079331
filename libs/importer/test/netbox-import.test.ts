import { Client as Pg } from 'pg';
import { bootStack, Client, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as dcim } from '@inventory/dcim';
import { createService as ipam } from '@inventory/ipam';
import { createService as circuits } from '@inventory/circuits';
import { createService as virtualization } from '@inventory/virtualization';
import { stackGateway } from '@inventory/gateway';
import { runImport, type ImportOptions } from '@inventory/importer';

/**
 * A NetBox 3.7 inventory copied over the REST API between two instances of
 * ours (both speak NetBox's API): a representative inventory across the
 * areas, imported with its ids, verified equal; changed and imported again;
 * stopped half way and resumed; an object our validation refuses, with stop
 * and with skip.
 */
const KEY = '0123456789abcdef0123456789abcdef01234567';
type Obj = Record<string, any>;

async function boot(): Promise<{ stack: Stack; gw: Client }> {
  let u: RestService | undefined;
  const stack = await bootStack({
    users: (c) => (u = users(c)),
    tenancy,
    extras,
    dcim,
    ipam,
    circuits,
    virtualization,
    gateway: stackGateway(),
  }, {}, { template: true });
  await bootstrapAdmin(u!, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  return { stack, gw: new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } }) };
}

let source: { stack: Stack; gw: Client };
let target: { stack: Stack; gw: Client };
const lines: string[] = [];
const options = (more: Partial<ImportOptions> = {}): ImportOptions => ({
  from: source.stack.urls.gateway,
  token: KEY,
  to: target.stack.urls.gateway,
  toToken: KEY,
  out: (l) => lines.push(l),
  ...more,
});

async function made(gw: Client, path: string, body: Obj | Obj[]): Promise<any> {
  const r = await gw.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** Sites, racks, devices with their interfaces, a cable, addresses with a primary IP, a virtual chassis, tenants, contacts, tags, custom fields, config contexts, journal entries, users, groups, permissions... */
async function fill(gw: Client): Promise<Obj> {
  const tag = await made(gw, '/api/extras/tags/', { name: 'Core', slug: 'core' });
  await made(gw, '/api/extras/custom-fields/', { name: 'asset_code', type: 'text', content_types: ['dcim.site', 'dcim.device'] });
  const tg = await made(gw, '/api/tenancy/tenant-groups/', { name: 'Parent', slug: 'parent' });
  const tgc = await made(gw, '/api/tenancy/tenant-groups/', { name: 'Child', slug: 'child', parent: tg.id });
  // a gap in the ids: the import must keep them, not renumber
  const gone = await made(gw, '/api/tenancy/tenants/', { name: 'Gone', slug: 'gone' });
  await gw.delete(`/api/tenancy/tenants/${gone.id}/`);
  const tenant = await made(gw, '/api/tenancy/tenants/', { name: 'Acme', slug: 'acme', group: tgc.id, tags: [tag.id] });
  const region = await made(gw, '/api/dcim/regions/', { name: 'Europe', slug: 'europe' });
  const sub = await made(gw, '/api/dcim/regions/', { name: 'France', slug: 'france', parent: region.id });
  const site = await made(gw, '/api/dcim/sites/', { name: 'Paris', slug: 'paris', region: sub.id, tenant: tenant.id, status: 'active', tags: [tag.id], custom_fields: { asset_code: 'P-1' } });
  const site2 = await made(gw, '/api/dcim/sites/', { name: 'Lyon', slug: 'lyon', region: sub.id });
  const location = await made(gw, '/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: site.id });
  const rack = await made(gw, '/api/dcim/racks/', { name: 'R1', site: site.id, location: location.id, u_height: 42 });
  const maker = await made(gw, '/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  const type = await made(gw, '/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX', slug: 'mx', u_height: 1 });
  await made(gw, '/api/dcim/interface-templates/', { device_type: type.id, name: 'et-0/0/0', type: '10gbase-x-sfpp' });
  const role = await made(gw, '/api/dcim/device-roles/', { name: 'Router', slug: 'router', color: 'ff0000' });
  const vc = await made(gw, '/api/dcim/virtual-chassis/', { name: 'VC1' });
  const devices = await made(gw, '/api/dcim/devices/', [
    { name: 'r1', device_type: type.id, role: role.id, site: site.id, rack: rack.id, position: 1, face: 'front', custom_fields: { asset_code: 'A1' }, virtual_chassis: vc.id, vc_position: 1 },
    { name: 'r2', device_type: type.id, role: role.id, site: site.id, rack: rack.id, position: 2, face: 'front', virtual_chassis: vc.id, vc_position: 2 },
  ]);
  expect((await gw.patch(`/api/dcim/virtual-chassis/${vc.id}/`, { master: devices[0].id })).status).toBe(200);
  // a site's custom field naming a device: a model copied after sites (set in the second pass)
  await made(gw, '/api/extras/custom-fields/', { name: 'edge_device', type: 'object', object_type: 'dcim.device', content_types: ['dcim.site'] });
  expect((await gw.patch(`/api/dcim/sites/${site.id}/`, { custom_fields: { edge_device: devices[0].id } })).status).toBe(200);
  const lag = await made(gw, '/api/dcim/interfaces/', { device: devices[0].id, name: 'ae0', type: 'lag' });
  const ifaces = (await gw.get(`/api/dcim/interfaces/?name=et-0/0/0&ordering=id`)).body.results;
  await gw.patch(`/api/dcim/interfaces/${ifaces[0].id}/`, { lag: lag.id, description: 'uplink' });
  await made(gw, '/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[0].id }], b_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[1].id }], status: 'connected' });
  const vlan = await made(gw, '/api/ipam/vlans/', { vid: 10, name: 'users', site: site.id });
  await made(gw, '/api/ipam/prefixes/', { prefix: '10.0.0.0/24', site: site.id, vlan: vlan.id, tenant: tenant.id });
  const ip = await made(gw, '/api/ipam/ip-addresses/', { address: '10.0.0.1/24', assigned_object_type: 'dcim.interface', assigned_object_id: lag.id });
  expect((await gw.patch(`/api/dcim/devices/${devices[0].id}/`, { primary_ip4: ip.id })).status).toBe(200);
  const cg = await made(gw, '/api/tenancy/contact-groups/', { name: 'NOC', slug: 'noc' });
  const crole = await made(gw, '/api/tenancy/contact-roles/', { name: 'Owner', slug: 'owner' });
  const contact = await made(gw, '/api/tenancy/contacts/', { name: 'Ada', group: cg.id, email: 'ada@example.com' });
  await made(gw, '/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site.id, contact: contact.id, role: crole.id, priority: 'primary' });
  await made(gw, '/api/extras/config-contexts/', { name: 'ntp', weight: 100, data: { ntp: ['10.0.0.2'] }, sites: [site.id], tags: [tag.slug] });
  await made(gw, '/api/extras/config-templates/', { name: 'base', template_code: 'hostname {{ device.name }}' });
  await made(gw, '/api/extras/journal-entries/', { assigned_object_type: 'dcim.device', assigned_object_id: devices[0].id, kind: 'info', comments: 'racked' });
  const provider = await made(gw, '/api/circuits/providers/', { name: 'Telco', slug: 'telco' });
  const ctype = await made(gw, '/api/circuits/circuit-types/', { name: 'Transit', slug: 'transit' });
  await made(gw, '/api/circuits/circuits/', { cid: 'C-1', provider: provider.id, type: ctype.id });
  const ctp = await made(gw, '/api/virtualization/cluster-types/', { name: 'KVM', slug: 'kvm' });
  const cluster = await made(gw, '/api/virtualization/clusters/', { name: 'c1', type: ctp.id, site: site2.id });
  await made(gw, '/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id });
  const group = await made(gw, '/api/users/groups/', { name: 'ops' });
  const user = await made(gw, '/api/users/users/', { username: 'bob', password: 'bob-password-1', groups: [group.id] });
  await made(gw, '/api/users/permissions/', { name: 'read dcim', object_types: ['dcim.site', 'dcim.device'], actions: ['view'], users: [user.id], groups: [group.id] });
  return { site, devices, vc, tenant, ifaces, lag, ip };
}

let objects: Obj;
beforeAll(async () => {
  const t0 = Date.now();
  [source, target] = await Promise.all([boot(), boot()]);
  const t1 = Date.now();
  objects = await fill(source.gw);
  console.log(`two stacks booted in ${t1 - t0} ms, the source filled in ${Date.now() - t1} ms`);
}, 120_000);
afterAll(async () => {
  await Promise.all([source?.stack.stop(), target?.stack.stop()]);
});
afterEach(() => {
  lines.length = 0;
});

test('when a filled instance is imported into an empty one, then every object is there with its id, verified equal, with no change log, and later creates get new ids', async () => {
  const dry = await runImport(options({ dryRun: true }));
  expect(dry.exitCode).toBe(0);
  expect(dry.reports.find((r) => r.model === 'dcim.devices')).toMatchObject({ source: 2, created: 2, updated: 0 });
  expect((await target.gw.get('/api/dcim/devices/')).body.count).toBe(0);

  const t0 = Date.now();
  const result = await runImport(options());
  console.log(`first import and verify: ${Date.now() - t0} ms\n${lines.filter((l) => /^(total|verify|model) /.test(l)).join('\n')}`);
  expect(result.differences).toEqual([]);
  expect(result.exitCode).toBe(0);
  const byModel = Object.fromEntries(result.reports.map((r) => [r.model, r]));
  expect(byModel['dcim.interfaces']).toMatchObject({ source: 3, created: 3 });
  // the cycle's second pass: the primary IP and the chassis's master, set once both ends existed
  const device = (await target.gw.get(`/api/dcim/devices/${objects.devices[0].id}/`)).body;
  expect(device.primary_ip4.id).toBe(objects.ip.id);
  expect((await target.gw.get(`/api/dcim/sites/${objects.site.id}/`)).body.custom_fields.edge_device.id).toBe(objects.devices[0].id);
  expect((await target.gw.get(`/api/dcim/virtual-chassis/${objects.vc.id}/`)).body.master.id).toBe(objects.devices[0].id);
  // projections fed by the import's events: the tenant counts its site, the site its devices
  expect((await target.gw.get(`/api/tenancy/tenants/${objects.tenant.id}/`)).body.site_count).toBe(1);
  // the change log is off during an import (the source's has the creates)
  expect((await target.gw.get('/api/extras/object-changes/?changed_object_type=dcim.site')).body.count).toBe(0);
  expect((await source.gw.get('/api/extras/object-changes/?changed_object_type=dcim.site')).body.count).toBeGreaterThan(0);
  // the sequences moved past the imported ids
  const fresh = await made(target.gw, '/api/tenancy/tenants/', { name: 'Fresh', slug: 'fresh' });
  expect(fresh.id).toBeGreaterThan(objects.tenant.id);
  expect((await target.gw.delete(`/api/tenancy/tenants/${fresh.id}/`)).status).toBe(204);
}, 120_000);

test('when a write gives an id without the import header, or a non-superuser asks for an import, then the id is ignored or the write refused', async () => {
  const plain = await made(target.gw, '/api/dcim/manufacturers/', { id: 9000, name: 'Plain', slug: 'plain' });
  expect(plain.id).not.toBe(9000);
  await target.gw.delete(`/api/dcim/manufacturers/${plain.id}/`);
  const taken = await target.gw.post('/api/dcim/manufacturers/', [{ id: objects.devices[0].device_type.manufacturer.id, name: 'Dup', slug: 'dup' }], { headers: { 'x-inventory-import': '1' } });
  expect(taken.status).toBe(400);
  expect(taken.body[0].id[0]).toMatch(/already exists/);
  // a user who may add manufacturers, but is no superuser
  const eve = await made(target.gw, '/api/users/users/', { username: 'eve', password: 'eve-password-1' });
  await made(target.gw, '/api/users/permissions/', { name: 'add makers', object_types: ['dcim.manufacturer'], actions: ['add', 'view'], users: [eve.id] });
  const token = await made(target.gw, '/api/users/tokens/', { user: eve.id });
  const as = { headers: { authorization: `Token ${token.key}`, 'x-inventory-import': '1' } };
  const refused = await target.gw.post('/api/dcim/manufacturers/', [{ id: 9001, name: 'Eve', slug: 'eve' }], as);
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toMatch(/Only a superuser may import/);
  for (const p of [`/api/users/tokens/${token.id}/`, `/api/users/users/${eve.id}/`]) await target.gw.delete(p);
}, 30_000);

test('when the source changes and deletes objects, then a second import brings exactly that over', async () => {
  const gw = source.gw;
  expect((await gw.patch(`/api/dcim/sites/${objects.site.id}/`, { description: 'moved', custom_fields: { asset_code: 'P-2' } })).status).toBe(200);
  expect((await gw.patch(`/api/dcim/devices/${objects.devices[0].id}/`, { primary_ip4: null })).status).toBe(200);
  expect((await gw.delete(`/api/ipam/ip-addresses/${objects.ip.id}/`)).status).toBe(204);
  expect((await gw.delete(`/api/dcim/devices/${objects.devices[1].id}/`)).status).toBe(204);
  const dry = await runImport(options({ dryRun: true }));
  expect(dry.reports.find((r) => r.model === 'dcim.sites')).toMatchObject({ updated: 1, created: 0, deleted: 0 });
  expect(dry.reports.find((r) => r.model === 'ipam.ip-addresses')).toMatchObject({ deleted: 1 });

  const second = await runImport(options());
  expect(second.differences).toEqual([]);
  expect(second.reports.find((r) => r.model === 'dcim.devices')).toMatchObject({ deleted: 1, updated: 1 });
  expect((await target.gw.get(`/api/dcim/sites/${objects.site.id}/`)).body.custom_fields.asset_code).toBe('P-2');
}, 60_000);

test('when an import stops half way, then the next run resumes: it writes only what was missing, and nothing else', async () => {
  const slugs = Array.from({ length: 25 }, (_, i) => ({ name: `T${i}`, slug: `t${i}` }));
  await made(source.gw, '/api/tenancy/tenants/', slugs);
  const stopAt = (model: string, page: number) => {
    if (model === 'tenancy.tenants' && page === 2) throw new Error('injected fault after two pages');
  };
  await expect(runImport(options({ pageSize: 10, afterPage: stopAt }))).rejects.toThrow('injected fault');
  expect((await target.gw.get('/api/tenancy/tenants/?slug__isw=t&limit=1')).body.count).toBe(20);
  const resumed = await runImport(options({ pageSize: 10 }));
  expect(resumed.reports.find((r) => r.model === 'tenancy.tenants')).toMatchObject({ created: 5 });
  // and nothing else: what the earlier runs wrote is equal, so a run after a run writes nothing
  expect(resumed.reports.filter((r) => r.created || r.updated || r.deleted).map((r) => r.model)).toEqual(['tenancy.tenants']);
  expect(resumed.differences).toEqual([]);
}, 60_000);

test('when the source holds an object our validation refuses, then stop names it and writes none of its page, and skip goes on and lists it', async () => {
  const bad = await made(source.gw, '/api/dcim/manufacturers/', [{ name: 'Good', slug: 'good' }, { name: 'Bad', slug: 'bad' }]);
  // data NetBox let through and we refuse: stored behind the API's back
  const pg = new Pg({ connectionString: source.stack.databaseUrl });
  await pg.connect();
  try {
    await pg.query(`UPDATE dcim.manufacturer SET slug = 'not a slug!' WHERE id = $1`, [bad[1].id]);
  } finally {
    await pg.end();
  }
  await expect(runImport(options())).rejects.toThrow(new RegExp(`dcim.manufacturers id ${bad[1].id} refused .*slug`));
  expect((await target.gw.get(`/api/dcim/manufacturers/${bad[0].id}/`)).status).toBe(404);

  const skipped = await runImport(options({ onError: 'skip' }));
  expect(skipped.exitCode).toBe(1);
  expect(skipped.reports.find((r) => r.model === 'dcim.manufacturers')!.skipped.map((s) => s.id)).toEqual([bad[1].id]);
  expect(lines.some((l) => l.startsWith(`refused: dcim.manufacturers id ${bad[1].id}`))).toBe(true);
  expect((await target.gw.get(`/api/dcim/manufacturers/${bad[0].id}/`)).status).toBe(200);
  // the verification names the one object missing
  expect(skipped.differences.map((d) => [d.model, d.id])).toEqual([['dcim.manufacturers', null], ['dcim.manufacturers', bad[1].id]]);
}, 60_000);
