import { bootStack, eventually, type Client, type Stack } from '@inventory/testkit';
import { createService as ipam } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';
import { createService as circuits } from '@inventory/circuits';

type Obj = Record<string, any>;

let stack: Stack;
let api: Client;
let dcimApi: Client;
let virt: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, virtualization, circuits, ipam }, {}, { template: true });
  api = stack.client('ipam');
  dcimApi = stack.client('dcim');
  virt = stack.client('virtualization');
});
afterAll(() => stack?.stop());

const made = async (path: string, body: Obj | Obj[], client: Client = api): Promise<any> => {
  const r = await client.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
};
let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}`;
const site = async () => {
  const name = uniq('site');
  return made('/api/dcim/sites/', { name, slug: name }, dcimApi);
};
const group = async (body: Obj = {}) => {
  const name = uniq('group');
  return made('/api/ipam/vlan-groups/', { name, slug: name, ...body });
};

describe('VLAN groups', () => {
  test('when a scope type comes without its id (or the id without its type), then 400 names neither field', async () => {
    const half = await api.post('/api/ipam/vlan-groups/', { name: 'half', slug: 'half', scope_type: 'dcim.site' });
    expect(half.status).toBe(400);
    expect(half.body).toEqual({ __all__: ['Cannot set scope_type without scope_id.'] });
    const other = await api.post('/api/ipam/vlan-groups/', { name: 'half', slug: 'half', scope_id: 1 });
    expect(other.body).toEqual({ __all__: ['Cannot set scope_id without scope_type.'] });
  });

  test('when max_vid is below min_vid, then 400 on max_vid; out of 1…4094, 400 on the field', async () => {
    const r = await api.post('/api/ipam/vlan-groups/', { name: 'rev', slug: 'rev', min_vid: 200, max_vid: 100 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ max_vid: ['Maximum child VID must be greater than or equal to minimum child VID'] });
    expect((await api.post('/api/ipam/vlan-groups/', { name: 'x', slug: 'x', min_vid: 0 })).body).toHaveProperty('min_vid');
    expect((await api.post('/api/ipam/vlan-groups/', { name: 'x', slug: 'x', scope_type: 'dcim.device', scope_id: 1 })).body).toHaveProperty('scope_type');
  });

  test('when two groups share a name in one scope, then 400; unscoped groups may share it', async () => {
    const s = await site();
    await group({ name: 'twin', slug: 'twin', scope_type: 'dcim.site', scope_id: s.id });
    const clash = await api.post('/api/ipam/vlan-groups/', { name: 'twin', slug: 'twin-2', scope_type: 'dcim.site', scope_id: s.id });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ __all__: ['VLAN group with this Scope type, Scope id and Name already exists.'] });
    await group({ name: 'global twin', slug: 'global-twin' });
    await group({ name: 'global twin', slug: 'global-twin' });
  });

  test('when scoped to a site, region, cluster group or cluster, then scope is that object nested and the scope filters find it', async () => {
    const s = await site();
    const region = await made('/api/dcim/regions/', { name: 'Scope region', slug: 'scope-region' }, dcimApi);
    const cgroup = await made('/api/virtualization/cluster-groups/', { name: 'Scope cgroup', slug: 'scope-cgroup' }, virt);
    const ctype = await made('/api/virtualization/cluster-types/', { name: 'Scope type', slug: 'scope-type' }, virt);
    const cluster = await made('/api/virtualization/clusters/', { name: 'Scope cluster', type: ctype.id }, virt);
    const targets: [string, Obj, string][] = [
      ['dcim.site', s, 'site'],
      ['dcim.region', region, 'region'],
      ['virtualization.clustergroup', cgroup, 'clustergroup'],
      ['virtualization.cluster', cluster, 'cluster'],
    ];
    for (const [type, target, filter] of targets) {
      const g = await group({ scope_type: type, scope_id: target.id });
      expect(g.scope).toMatchObject({ id: target.id, display: target.display, name: target.name });
      expect(new URL(g.scope.url).pathname).toBe(new URL(target.url).pathname);
      expect(g.scope_type).toBe(type);
      const found = await api.get(`/api/ipam/vlan-groups/?${filter}=${target.id}`);
      expect(found.body.results.map((x: Obj) => x.id)).toEqual([g.id]);
    }
    const unscoped = await group();
    expect(unscoped.scope).toBeNull();
    expect(unscoped.scope_type).toBeNull();
  });

  test('when VLANs join a group, then vlan_count counts them and utilization is the share of its range, rendered as a float', async () => {
    const g = await group({ min_vid: 1, max_vid: 4094 });
    expect(g.utilization).toBe('0.0');
    await made('/api/ipam/vlans/', { vid: 10, name: 'one', group: g.id });
    let read = (await api.get(`/api/ipam/vlan-groups/${g.id}/`)).body;
    expect(read.vlan_count).toBe(1);
    expect(read.utilization).toBe('0.02');
    const small = await group({ min_vid: 100, max_vid: 103 });
    for (const vid of [100, 101, 102, 103]) await made('/api/ipam/vlans/', { vid, name: `s${vid}`, group: small.id });
    read = (await api.get(`/api/ipam/vlan-groups/${small.id}/`)).body;
    expect([read.vlan_count, read.utilization]).toEqual([4, '100.0']);
    const brief = (await api.get(`/api/ipam/vlan-groups/${small.id}/?brief=1`)).body;
    expect(Object.keys(brief).sort()).toEqual(['display', 'id', 'name', 'slug', 'url', 'vlan_count']);
    const sorted = await api.get(`/api/ipam/vlan-groups/?id=${g.id}&id=${small.id}&ordering=-vlan_count`);
    expect(sorted.body.results.map((x: Obj) => x.id)).toEqual([small.id, g.id]);
  });

  test('when the scope object is deleted, then its empty groups go with it; while they hold VLANs its delete is refused (409)', async () => {
    const s = await site();
    const empty = await group({ scope_type: 'dcim.site', scope_id: s.id });
    const held = await group({ scope_type: 'dcim.site', scope_id: s.id });
    const v = await made('/api/ipam/vlans/', { vid: 9, name: 'keeper', group: held.id });
    const refused = await dcimApi.delete(`/api/dcim/sites/${s.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: keeper (9) (${v.id})`);
    expect((await api.delete(`/api/ipam/vlans/${v.id}/`)).status).toBe(204);
    expect((await dcimApi.delete(`/api/dcim/sites/${s.id}/`)).status).toBe(204);
    await eventually(
      async () => (await api.get(`/api/ipam/vlan-groups/?id=${empty.id}&id=${held.id}`)).body.count === 0,
      15_000,
      'the groups scoped to the site deleted with it',
    );
  });

  test('when a group holds VLANs, then deleting it is refused (409)', async () => {
    const g = await group();
    await made('/api/ipam/vlans/', { vid: 5, name: 'held', group: g.id });
    const r = await api.delete(`/api/ipam/vlan-groups/${g.id}/`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/^Unable to delete object\. 1 dependent objects were found: held \(5\)/);
  });
});

describe('VLANs', () => {
  test('when a VLAN is written, then its status is an integer choice: 1 by default, the label slug accepted', async () => {
    const v = await made('/api/ipam/vlans/', { vid: 100, name: 'status default' });
    expect(v.status).toEqual({ value: 1, label: 'Active' });
    expect(v.display).toBe('status default (100)');
    expect(v.display_name).toBe('status default (100)');
    expect(v.l2vpn_termination).toBeNull();
    const reserved = await made('/api/ipam/vlans/', { vid: 101, name: 'reserved', status: 'reserved' });
    expect(reserved.status).toEqual({ value: 2, label: 'Reserved' });
    const deprecated = await made('/api/ipam/vlans/', { vid: 102, name: 'deprecated', status: 3 });
    expect(deprecated.status).toEqual({ value: 3, label: 'Deprecated' });
    const bad = await api.post('/api/ipam/vlans/', { vid: 103, name: 'bad', status: 9 });
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('status');
    const found = await api.get(`/api/ipam/vlans/?status=deprecated&id=${deprecated.id}&id=${v.id}`);
    expect(found.body.results.map((x: Obj) => x.id)).toEqual([deprecated.id]);
  });

  test('when the VID is outside the group range, then 400 on vid with NetBox\'s message', async () => {
    const g = await group({ min_vid: 100, max_vid: 199 });
    const r = await api.post('/api/ipam/vlans/', { vid: 200, name: 'outside', group: g.id });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ vid: [`VID must be between 100 and 199 for VLANs in group ${g.name}`] });
    await made('/api/ipam/vlans/', { vid: 199, name: 'inside', group: g.id });
    const moved = await api.post('/api/ipam/vlans/', { vid: 1, name: 'zero' });
    expect(moved.status).toBe(201);
    const patched = await api.patch(`/api/ipam/vlans/${moved.body.id}/`, { group: g.id });
    expect(patched.status).toBe(400);
    expect(patched.body).toHaveProperty('vid');
  });

  test('when a grouped VLAN names a site, then the group must be scoped to exactly that site', async () => {
    const s = await site();
    const other = await site();
    const scoped = await group({ scope_type: 'dcim.site', scope_id: s.id });
    const ok = await made('/api/ipam/vlans/', { vid: 10, name: 'at site', group: scoped.id, site: s.id });
    expect(ok.site.id).toBe(s.id);
    const wrong = await api.post('/api/ipam/vlans/', { vid: 11, name: 'elsewhere', group: scoped.id, site: other.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      __all__: [`VLAN is assigned to group ${scoped.name} (scope: ${s.display}); cannot also assign to site ${other.display}.`],
    });
    const global = await group();
    const unscoped = await api.post('/api/ipam/vlans/', { vid: 12, name: 'global', group: global.id, site: s.id });
    expect(unscoped.status).toBe(400);
    expect(unscoped.body.__all__[0]).toContain('(scope: None)');
  });

  test('when VIDs or names repeat inside a group, then 400; ungrouped VLANs may repeat both', async () => {
    const g = await group();
    await made('/api/ipam/vlans/', { vid: 30, name: 'thirty', group: g.id });
    const vid = await api.post('/api/ipam/vlans/', { vid: 30, name: 'other', group: g.id });
    expect(vid.body).toEqual({ __all__: ['VLAN with this Group and VLAN ID already exists.'] });
    const name = await api.post('/api/ipam/vlans/', { vid: 31, name: 'thirty', group: g.id });
    expect(name.body).toEqual({ __all__: ['VLAN with this Group and Name already exists.'] });
    await made('/api/ipam/vlans/', [{ vid: 30, name: 'thirty' }, { vid: 30, name: 'thirty' }]);
  });

  test('when VLANs name a site and a tenant, then dcim\'s site and tenancy\'s tenant count them (their vlan_count, from ipam\'s events)', async () => {
    const s = await site();
    const tenant = await made('/api/tenancy/tenants/', { name: 'Counting tenant', slug: 'counting-tenant' }, stack.client('tenancy'));
    await made('/api/ipam/vlans/', [{ vid: 50, name: 'c1', site: s.id, tenant: tenant.id }, { vid: 51, name: 'c2', site: s.id }]);
    await eventually(async () => (await dcimApi.get(`/api/dcim/sites/${s.id}/`)).body.vlan_count === 2, 15_000, 'the site\'s vlan_count');
    await eventually(async () => (await stack.client('tenancy').get(`/api/tenancy/tenants/${tenant.id}/`)).body.vlan_count === 1, 15_000, 'the tenant\'s vlan_count');
  });

  test('when VLANs have a role, then the role counts them (vlan_count), also in brief', async () => {
    const role = await made('/api/ipam/roles/', { name: 'Counted', slug: 'counted' });
    await made('/api/ipam/vlans/', [{ vid: 40, name: 'r1', role: role.id }, { vid: 41, name: 'r2', role: role.id }]);
    expect((await api.get(`/api/ipam/roles/${role.id}/`)).body.vlan_count).toBe(2);
    expect((await api.get(`/api/ipam/roles/${role.id}/?brief=1`)).body).toMatchObject({ vlan_count: 2, slug: 'counted' });
  });

  test('when listed without ordering, then by site (natural name, none last), group (name, none last), VID, id', async () => {
    const s10 = await made('/api/dcim/sites/', { name: 'Order 10', slug: 'order-10' }, dcimApi);
    const s2 = await made('/api/dcim/sites/', { name: 'Order 2', slug: 'order-2' }, dcimApi);
    const gb = await group({ name: 'order b', slug: 'order-b' });
    const ga = await group({ name: 'order a', slug: 'order-a' });
    const ids = [
      (await made('/api/ipam/vlans/', { vid: 1, name: 'none-none' })).id,
      (await made('/api/ipam/vlans/', { vid: 9, name: 'none-b', group: gb.id })).id,
      (await made('/api/ipam/vlans/', { vid: 8, name: 'none-a', group: ga.id })).id,
      (await made('/api/ipam/vlans/', { vid: 7, name: 's10', site: s10.id })).id,
      (await made('/api/ipam/vlans/', { vid: 6, name: 's2-high', site: s2.id })).id,
      (await made('/api/ipam/vlans/', { vid: 5, name: 's2-low', site: s2.id })).id,
    ];
    const r = await api.get(`/api/ipam/vlans/?${ids.map((id) => `id=${id}`).join('&')}`);
    expect(r.body.results.map((x: Obj) => x.name)).toEqual(['s2-low', 's2-high', 's10', 'none-a', 'none-b', 'none-none']);
  });

  test('when filtered by q, then name, description or an exact VID match', async () => {
    const g = await group();
    const a = await made('/api/ipam/vlans/', { vid: 3901, name: 'quartz', group: g.id, description: 'granite' });
    const b = await made('/api/ipam/vlans/', { vid: 3902, name: 'basalt', group: g.id });
    const q = async (text: string) => (await api.get(`/api/ipam/vlans/?group_id=${g.id}&q=${text}`)).body.results.map((x: Obj) => x.id);
    expect(await q('3902')).toEqual([b.id]);
    expect(await q('quar')).toEqual([a.id]);
    expect(await q('GRAN')).toEqual([a.id]);
    expect((await api.get(`/api/ipam/vlans/?group=${g.slug}&vid__gte=3902`)).body.results.map((x: Obj) => x.id)).toEqual([b.id]);
  });

  test('when filtered by the site\'s region, then VLANs of sites in it (and below) match', async () => {
    const region = await made('/api/dcim/regions/', { name: 'Vlan region', slug: 'vlan-region' }, dcimApi);
    const s = await made('/api/dcim/sites/', { name: 'Regional', slug: 'regional', region: region.id }, dcimApi);
    const v = await made('/api/ipam/vlans/', { vid: 7, name: 'regional', site: s.id });
    const found = await api.get(`/api/ipam/vlans/?region=vlan-region`);
    expect(found.body.results.map((x: Obj) => x.id)).toEqual([v.id]);
    expect((await api.get(`/api/ipam/vlans/?site=regional`)).body.results.map((x: Obj) => x.id)).toEqual([v.id]);
  });
});

describe('VLANs available at a place', () => {
  test('when asked at a site, on a device or on a machine, then the VLANs of groups scoped there (and above), of the site, and the global ones match', async () => {
    const top = await made('/api/dcim/regions/', { name: 'Avail top', slug: 'avail-top' }, dcimApi);
    const region = await made('/api/dcim/regions/', { name: 'Avail region', slug: 'avail-region', parent: top.id }, dcimApi);
    const sgroup = await made('/api/dcim/site-groups/', { name: 'Avail sg', slug: 'avail-sg' }, dcimApi);
    const s = await made('/api/dcim/sites/', { name: 'Avail site', slug: 'avail-site', region: region.id, group: sgroup.id }, dcimApi);
    const elsewhere = await site();
    const location = await made('/api/dcim/locations/', { name: 'Avail loc', slug: 'avail-loc', site: s.id }, dcimApi);
    const rack = await made('/api/dcim/racks/', { name: 'Avail rack', site: s.id, location: location.id }, dcimApi);
    const maker = await made('/api/dcim/manufacturers/', { name: 'Avail maker', slug: 'avail-maker' }, dcimApi);
    const type = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Avail box', slug: 'avail-box' }, dcimApi);
    const role = await made('/api/dcim/device-roles/', { name: 'Avail role', slug: 'avail-role' }, dcimApi);
    const device = await made('/api/dcim/devices/', { name: 'avail-device', device_type: type.id, role: role.id, site: s.id, location: location.id, rack: rack.id }, dcimApi);
    const ctype = await made('/api/virtualization/cluster-types/', { name: 'Avail type', slug: 'avail-type' }, virt);
    const cgroup = await made('/api/virtualization/cluster-groups/', { name: 'Avail cgroup', slug: 'avail-cgroup' }, virt);
    const cluster = await made('/api/virtualization/clusters/', { name: 'Avail cluster', type: ctype.id, group: cgroup.id, site: s.id }, virt);
    const machine = await made('/api/virtualization/virtual-machines/', { name: 'avail-vm', cluster: cluster.id }, virt);

    const inGroup = async (scope_type: string | null, scope_id: number | null) => {
      const g = await group(scope_type ? { scope_type, scope_id } : {});
      return (await made('/api/ipam/vlans/', { vid: 100, name: uniq('v'), group: g.id })).id;
    };
    const v = {
      site: await inGroup('dcim.site', s.id),
      top: await inGroup('dcim.region', top.id),
      sgroup: await inGroup('dcim.sitegroup', sgroup.id),
      other: await inGroup('dcim.site', elsewhere.id),
      global: await inGroup(null, null),
      location: await inGroup('dcim.location', location.id),
      rack: await inGroup('dcim.rack', rack.id),
      cluster: await inGroup('virtualization.cluster', cluster.id),
      cgroup: await inGroup('virtualization.clustergroup', cgroup.id),
      atSite: (await made('/api/ipam/vlans/', { vid: 200, name: 'at site', site: s.id })).id,
      atOther: (await made('/api/ipam/vlans/', { vid: 200, name: 'at other', site: elsewhere.id })).id,
      bare: (await made('/api/ipam/vlans/', { vid: 200, name: 'bare' })).id,
    };
    const all = Object.values(v).map((id) => `id=${id}`).join('&');
    const found = async (q: string) => {
      const r = await api.get(`/api/ipam/vlans/?${q}&${all}`);
      expect(r.status).toBe(200);
      return r.body.results.map((x: Obj) => x.id).sort((a: number, b: number) => a - b);
    };
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
    const common = [v.site, v.top, v.sgroup, v.global, v.atSite, v.bare];
    expect(await found(`available_at_site=${s.id}`)).toEqual(sorted(common));
    expect(await found(`available_on_device=${device.id}`)).toEqual(sorted([...common, v.location, v.rack]));
    expect(await found(`available_on_virtualmachine=${machine.id}`)).toEqual(sorted([...common, v.cluster, v.cgroup]));
    expect((await api.get('/api/ipam/vlans/?available_at_site=99999999')).status).toBe(400);
  });
});

describe('ASNs and ASN ranges', () => {
  test('when an ASN is beyond 16 bits, then its display adds the asdot form', async () => {
    const rir = await made('/api/ipam/rirs/', { name: 'Display RIR', slug: 'display-rir' });
    expect((await made('/api/ipam/asns/', { asn: 65000, rir: rir.id })).display).toBe('AS65000');
    expect((await made('/api/ipam/asns/', { asn: 4200000000, rir: rir.id })).display).toBe('AS4200000000 (64086.59904)');
    const dup = await api.post('/api/ipam/asns/', { asn: 65000, rir: rir.id });
    expect(dup.status).toBe(400);
    expect(dup.body).toHaveProperty('asn');
    expect((await api.post('/api/ipam/asns/', { asn: 0, rir: rir.id })).body).toHaveProperty('asn');
  });

  test('when sites list an ASN, then its site_count counts them and the site filters find it', async () => {
    const rir = await made('/api/ipam/rirs/', { name: 'Site RIR', slug: 'site-rir' });
    const a = await made('/api/ipam/asns/', { asn: 64999, rir: rir.id });
    const b = await made('/api/ipam/asns/', { asn: 64998, rir: rir.id });
    const s = await made('/api/dcim/sites/', { name: 'Asn site', slug: 'asn-site', asns: [a.id] }, dcimApi);
    await made('/api/dcim/sites/', { name: 'Asn site 2', slug: 'asn-site-2', asns: [a.id, b.id] }, dcimApi);
    await eventually(async () => (await api.get(`/api/ipam/asns/${a.id}/`)).body.site_count === 2, 15_000, 'site_count from the sites\' asns');
    let read = (await api.get(`/api/ipam/asns/${b.id}/`)).body;
    expect([read.site_count, read.provider_count]).toEqual([1, 0]);
    await made('/api/circuits/providers/', { name: 'Asn provider', slug: 'asn-provider', asns: [b.id] }, stack.client('circuits'));
    await eventually(async () => (await api.get(`/api/ipam/asns/${b.id}/`)).body.provider_count === 1, 15_000, 'provider_count from the providers\' asns');
    read = (await api.get(`/api/ipam/asns/?id=${a.id}&id=${b.id}&ordering=-provider_count`)).body;
    expect(read.results.map((x: Obj) => [x.asn, x.site_count, x.provider_count])).toEqual([[64998, 1, 1], [64999, 2, 0]]);
    expect((await api.get(`/api/ipam/asns/?site_id=${s.id}`)).body.results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await api.get('/api/ipam/asns/?site=asn-site&site=asn-site-2')).body.results.map((x: Obj) => x.id)).toEqual([b.id, a.id]);
    expect((await api.get('/api/ipam/asns/?site=nowhere')).status).toBe(400);
  });

  test('when a range ends at or before its start, then 400 (non-field)', async () => {
    const rir = await made('/api/ipam/rirs/', { name: 'Range RIR', slug: 'range-rir' });
    const r = await api.post('/api/ipam/asn-ranges/', { name: 'bad', slug: 'bad', rir: rir.id, start: 100, end: 100 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ __all__: ['Starting ASN (100) must be lower than ending ASN (100).'] });
    const ok = await made('/api/ipam/asn-ranges/', { name: 'ok', slug: 'ok', rir: rir.id, start: 100, end: 200 });
    expect(ok.display).toBe('ok (100-200)');
  });
});

describe('FHRP groups and assignments', () => {
  test('when a group is shown, then protocol and auth type are bare strings and display follows NetBox', async () => {
    const g = await made('/api/ipam/fhrp-groups/', { protocol: 'hsrp', group_id: 7 });
    expect(g).toMatchObject({ protocol: 'hsrp', auth_type: '', auth_key: '', name: '', display: 'HSRP: 7' });
    const named = await made('/api/ipam/fhrp-groups/', { name: 'edge', protocol: 'vrrp3', group_id: 8, auth_type: 'md5', auth_key: 'k' });
    expect(named.display).toBe('edge VRRPv3: 8');
    expect((await api.get(`/api/ipam/fhrp-groups/${named.id}/?brief=1`)).body).toEqual({ id: named.id, url: named.url, display: 'edge VRRPv3: 8', protocol: 'vrrp3', group_id: 8 });
  });

  test('when interfaces of a device and a machine are assigned, then the interface is nested, the parent filters find them, and a group delete takes its assignments', async () => {
    const device = await theDevice();
    const iface = await made('/api/dcim/interfaces/', { device: device.id, name: 'eth9', type: '1000base-t' }, dcimApi);
    const machine = await theMachine();
    const vmIface = await made('/api/virtualization/interfaces/', { virtual_machine: machine.id, name: 'veth9' }, virt);
    const g = await made('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 99 });
    const a = await made('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 10 });
    const b = await made('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'virtualization.vminterface', interface_id: vmIface.id, priority: 200 });
    expect(a.interface).toMatchObject({ id: iface.id, name: 'eth9' });
    expect(a.display).toBe(`eth9: ${g.display} (10)`);
    const ordered = await api.get(`/api/ipam/fhrp-group-assignments/?group_id=${g.id}`);
    expect(ordered.body.results.map((x: Obj) => x.id)).toEqual([b.id, a.id]);
    expect((await api.get(`/api/ipam/fhrp-group-assignments/?device_id=${device.id}`)).body.results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await api.get(`/api/ipam/fhrp-group-assignments/?device=${encodeURIComponent(device.name)}`)).body.results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await api.get(`/api/ipam/fhrp-group-assignments/?virtual_machine_id=${machine.id}&group_id=${g.id}`)).body.results.map((x: Obj) => x.id)).toEqual([b.id]);
    const again = await api.post('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 1 });
    expect(again.body).toEqual({ __all__: ['FHRP group assignment with this Interface type, Interface id and Group already exists.'] });
    expect((await api.delete(`/api/ipam/fhrp-groups/${g.id}/`)).status).toBe(204);
    expect((await api.get(`/api/ipam/fhrp-group-assignments/?id=${a.id}&id=${b.id}`)).body.count).toBe(0);
  });

  test('when an assigned interface is deleted, then its assignments go with it', async () => {
    const machine = await theMachine();
    const vmIface = await made('/api/virtualization/interfaces/', { virtual_machine: machine.id, name: 'gone0' }, virt);
    const g = await made('/api/ipam/fhrp-groups/', { protocol: 'carp', group_id: 3 });
    const a = await made('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'virtualization.vminterface', interface_id: vmIface.id, priority: 1 });
    expect((await virt.delete(`/api/virtualization/interfaces/${vmIface.id}/`)).status).toBe(204);
    await eventually(async () => (await api.get(`/api/ipam/fhrp-group-assignments/${a.id}/`)).status === 404, 15_000, 'the assignment deleted with its interface');
  });
});

/** One device (and its type, role, site) and one machine for the suites that need a parent. */
let device: Promise<Obj> | null = null;
function theDevice(): Promise<Obj> {
  return (device ??= (async () => {
    const s = await site();
    const maker = await made('/api/dcim/manufacturers/', { name: 'Svc maker', slug: 'svc-maker' }, dcimApi);
    const type = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Svc box', slug: 'svc-box' }, dcimApi);
    const role = await made('/api/dcim/device-roles/', { name: 'Svc role', slug: 'svc-role' }, dcimApi);
    return made('/api/dcim/devices/', { name: 'svc-device', device_type: type.id, role: role.id, site: s.id }, dcimApi);
  })());
}
let machine: Promise<Obj> | null = null;
function theMachine(): Promise<Obj> {
  return (machine ??= (async () => {
    const type = await made('/api/virtualization/cluster-types/', { name: 'Svc type', slug: 'svc-type' }, virt);
    const cluster = await made('/api/virtualization/clusters/', { name: 'Svc cluster', type: type.id }, virt);
    return made('/api/virtualization/virtual-machines/', { name: 'svc-machine', cluster: cluster.id }, virt);
  })());
}

describe('services', () => {
  test('when a service has both a device and a machine, or neither, then 400 with NetBox\'s message', async () => {
    const d = await theDevice();
    const m = await theMachine();
    const both = await api.post('/api/ipam/services/', { device: d.id, virtual_machine: m.id, name: 'both', protocol: 'tcp', ports: [22] });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ __all__: ['A service cannot be associated with both a device and a virtual machine.'] });
    const neither = await api.post('/api/ipam/services/', { name: 'neither', protocol: 'tcp', ports: [22] });
    expect(neither.body).toEqual({ __all__: ['A service must be associated with either a device or a virtual machine.'] });
  });

  test('when a service runs on a device, then it reads nested, shows its ports compacted, and the device filters find it', async () => {
    const d = await theDevice();
    const s = await made('/api/ipam/services/', { device: d.id, name: 'web', protocol: 'tcp', ports: [443, 80, 81, 82, 22] });
    expect(s.device).toMatchObject({ id: d.id, name: d.name });
    expect(s.virtual_machine).toBeNull();
    expect(s.protocol).toEqual({ value: 'tcp', label: 'TCP' });
    expect(s.ports).toEqual([443, 80, 81, 82, 22]);
    expect(s.display).toBe('web (TCP/22, 80-82, 443)');
    expect((await api.get(`/api/ipam/services/${s.id}/?brief=1`)).body).toEqual({ id: s.id, url: s.url, display: s.display, name: 'web', protocol: 'tcp', ports: s.ports });
    expect((await api.get(`/api/ipam/services/?device_id=${d.id}&port=81`)).body.results.map((x: Obj) => x.id)).toEqual([s.id]);
    expect((await api.get(`/api/ipam/services/?device=${d.name}&port=8080`)).body.count).toBe(0);
  });

  test('when a port is out of 1…65535, then 400 names its index', async () => {
    const m = await theMachine();
    const r = await api.post('/api/ipam/services/', { virtual_machine: m.id, name: 'bad', protocol: 'udp', ports: [53, 70000] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ ports: { 1: ['Ensure this value is less than or equal to 65535.'] } });
  });

  test('when the machine is deleted, then its services go with it (CASCADE)', async () => {
    const type = await made('/api/virtualization/cluster-types/', { name: 'Doomed type', slug: 'doomed-type' }, virt);
    const cluster = await made('/api/virtualization/clusters/', { name: 'Doomed cluster', type: type.id }, virt);
    const m = await made('/api/virtualization/virtual-machines/', { name: 'doomed', cluster: cluster.id }, virt);
    const s = await made('/api/ipam/services/', { virtual_machine: m.id, name: 'ssh', protocol: 'tcp', ports: [22] });
    expect((await virt.delete(`/api/virtualization/virtual-machines/${m.id}/`)).status).toBe(204);
    await eventually(async () => (await api.get(`/api/ipam/services/${s.id}/`)).status === 404, 15_000, 'the service deleted with its machine');
  });
});

describe('available VLANs', () => {
  test('when VLANs 1, 3 and 5 exist, then GET lists 2, 4, 6 … with the group nested, and limit bounds it', async () => {
    const g = await group({ min_vid: 1, max_vid: 10 });
    for (const vid of [1, 3, 5]) await made('/api/ipam/vlans/', { vid, name: `v${vid}`, group: g.id });
    const r = await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/`);
    expect(r.status).toBe(200);
    expect(r.body.map((x: Obj) => x.vid)).toEqual([2, 4, 6, 7, 8, 9, 10]);
    expect(r.body[0].group).toEqual({ id: g.id, url: g.url, display: g.display, name: g.name, slug: g.slug });
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/?limit=2`)).body.map((x: Obj) => x.vid)).toEqual([2, 4]);
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/?limit=x`)).body).toHaveLength(7);
    expect((await api.get('/api/ipam/vlan-groups/99999999/available-vlans/')).status).toBe(404);
  });

  test('when 0 or no limit is given on a large group, then 1000 or 50 come back', async () => {
    const g = await group();
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/`)).body).toHaveLength(50);
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/?limit=0`)).body).toHaveLength(1000);
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/?limit=5000`)).body).toHaveLength(1000);
  });

  test('when three items are posted, then they get the next free VIDs in order and the group, with their events in the outbox', async () => {
    const g = await group({ min_vid: 1, max_vid: 10 });
    for (const vid of [1, 3, 5]) await made('/api/ipam/vlans/', { vid, name: `v${vid}`, group: g.id });
    const r = await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, [
      { name: 'a', vid: 999, group: null },
      { name: 'b', status: 'reserved' },
      { name: 'c', description: 'third' },
    ]);
    expect(r.status).toBe(201);
    expect(r.body.map((x: Obj) => [x.vid, x.name, x.group.id])).toEqual([[2, 'a', g.id], [4, 'b', g.id], [6, 'c', g.id]]);
    expect(r.body[1].status).toEqual({ value: 2, label: 'Reserved' });
    const requestId = r.headers.get('x-request-id');
    const created = await api.get(`/api/ipam/vlans/?created_by_request=${requestId}`);
    expect(created.body.results.map((x: Obj) => x.vid).sort()).toEqual([2, 4, 6]);
    const one = await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, { name: 'single' });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ vid: 7, name: 'single' });
    expect((await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, [])).body).toEqual([]);
  });

  test('when an item lacks a name, then 400 with a list of per-item errors; a site off the group scope is the model\'s 400', async () => {
    const s = await site();
    const g = await group({ min_vid: 1, max_vid: 10 });
    const missing = await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, { description: 'nameless' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual([{ name: ['This field is required.'] }]);
    const off = await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, { name: 'off', site: s.id });
    expect(off.status).toBe(400);
    expect(off.body.__all__[0]).toMatch(/^VLAN is assigned to group/);
    expect((await api.get(`/api/ipam/vlans/?group_id=${g.id}`)).body.count).toBe(0);
  });

  test('when the group is full, then 409 and nothing is created', async () => {
    const g = await group({ min_vid: 10, max_vid: 12 });
    await made('/api/ipam/vlans/', { vid: 11, name: 'taken', group: g.id });
    const r = await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, [{ name: 'x' }, { name: 'y' }, { name: 'z' }]);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: 'Insufficient resources are available to satisfy the request' });
    expect((await api.get(`/api/ipam/vlans/?group_id=${g.id}`)).body.count).toBe(1);
    expect((await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, [{ name: 'x' }, { name: 'y' }])).status).toBe(201);
    expect((await api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, { name: 'w' })).status).toBe(409);
    expect((await api.get(`/api/ipam/vlan-groups/${g.id}/available-vlans/`)).body).toEqual([]);
  });

  test('when the user may not view the group, then 404; may not view or add VLANs, then 403; a constrained view limits the groups', async () => {
    const g = await group({ min_vid: 1, max_vid: 10 });
    const other = await group({ min_vid: 1, max_vid: 10 });
    const as = (permissions: Obj[], write = true) =>
      api.withIdentity({
        user: { id: 9_100_001, username: 'allocator', is_superuser: false, is_staff: false, is_active: true },
        token: { id: 9_100_001, write_enabled: write },
        permissions,
      } as any);
    const path = `/api/ipam/vlan-groups/${g.id}/available-vlans/`;
    expect((await as([{ object_types: ['ipam.vlan'], actions: ['view', 'add'] }]).get(path)).status).toBe(404);
    expect((await as([{ object_types: ['ipam.vlangroup'], actions: ['view'] }]).get(path)).status).toBe(403);
    const viewer = as([{ object_types: ['ipam.vlangroup', 'ipam.vlan'], actions: ['view'] }]);
    expect((await viewer.get(path)).status).toBe(200);
    expect((await viewer.post(path, { name: 'nope' })).status).toBe(403);
    const constrained = as([
      { object_types: ['ipam.vlangroup'], actions: ['view'], constraints: { id: other.id } },
      { object_types: ['ipam.vlan'], actions: ['view', 'add'] },
    ]);
    expect((await constrained.get(path)).status).toBe(404);
    const made1 = await constrained.post(`/api/ipam/vlan-groups/${other.id}/available-vlans/`, { name: 'allowed' });
    expect([made1.status, made1.body.vid]).toEqual([201, 1]);
    const readOnly = as([{ object_types: ['ipam.vlangroup', 'ipam.vlan'], actions: ['view', 'add'] }], false);
    expect((await readOnly.post(path, { name: 'ro' })).status).toBe(403);
  });

  test('when 50 allocations run at once, then they get 50 distinct VIDs', async () => {
    const g = await group({ min_vid: 100, max_vid: 199 });
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post(`/api/ipam/vlan-groups/${g.id}/available-vlans/`, { name: `c${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const vids = replies.map((r) => r.body.vid).sort((a, b) => a - b);
    expect(vids).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    expect((await api.get(`/api/ipam/vlans/?group_id=${g.id}&limit=0`)).body.count).toBe(50);
  });
});

describe('available ASNs', () => {
  const range = async (start: number, end: number) => {
    const rir = await made('/api/ipam/rirs/', { name: uniq('rir'), slug: uniq('rir') });
    const name = uniq('range');
    return made('/api/ipam/asn-ranges/', { name, slug: name, rir: rir.id, start, end });
  };

  test('when some numbers are taken (by any RIR), then GET lists the free ones with the range\'s RIR', async () => {
    const r = await range(64600, 64609);
    const otherRir = await made('/api/ipam/rirs/', { name: uniq('rir'), slug: uniq('rir') });
    await made('/api/ipam/asns/', { asn: 64601, rir: otherRir.id });
    await made('/api/ipam/asns/', { asn: 64603, rir: r.rir.id });
    const free = await api.get(`/api/ipam/asn-ranges/${r.id}/available-asns/`);
    expect(free.status).toBe(200);
    expect(free.body.map((x: Obj) => x.asn)).toEqual([64600, 64602, 64604, 64605, 64606, 64607, 64608, 64609]);
    expect(free.body[0].rir).toEqual(r.rir);
    expect((await api.get(`/api/ipam/asn-ranges/${r.id}/available-asns/?limit=3`)).body.map((x: Obj) => x.asn)).toEqual([64600, 64602, 64604]);
  });

  test('when the range spans every 32-bit number, then the gaps are found without a series over it', async () => {
    const r = await range(1, 4294967295);
    const taken = await api.get(`/api/ipam/asns/?asn__lte=5&limit=0`);
    const used = new Set(taken.body.results.map((x: Obj) => x.asn));
    const t0 = Date.now();
    const free = await api.get(`/api/ipam/asn-ranges/${r.id}/available-asns/?limit=0`);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(free.body).toHaveLength(1000);
    expect(free.body.some((x: Obj) => used.has(x.asn))).toBe(false);
    const top = await range(4294967290, 4294967295);
    await made('/api/ipam/asns/', { asn: 4294967294, rir: top.rir.id });
    expect((await api.get(`/api/ipam/asn-ranges/${top.id}/available-asns/`)).body.map((x: Obj) => x.asn)).toEqual([4294967290, 4294967291, 4294967292, 4294967293, 4294967295]);
  });

  test('when items are posted, then they get the next free numbers and the range\'s RIR, whatever they sent', async () => {
    const r = await range(64700, 64709);
    const tenant = await made('/api/tenancy/tenants/', { name: 'Asn tenant', slug: 'asn-tenant' }, stack.client('tenancy'));
    await made('/api/ipam/asns/', { asn: 64700, rir: r.rir.id });
    const one = await api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, { asn: 1, rir: 999999, description: 'first', tenant: tenant.id });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ asn: 64701, description: 'first', rir: { id: r.rir.id }, tenant: { id: tenant.id } });
    const many = await api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, [{}, { comments: 'c' }]);
    expect(many.body.map((x: Obj) => x.asn)).toEqual([64702, 64703]);
  });

  test('when 11 are asked of 10 free numbers, then 409 and none is created', async () => {
    const r = await range(64800, 64809);
    const over = await api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, Array.from({ length: 11 }, () => ({})));
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ detail: 'Insufficient resources are available to satisfy the request' });
    expect((await api.get('/api/ipam/asns/?asn__gte=64800&asn__lte=64809')).body.count).toBe(0);
    expect((await api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, Array.from({ length: 10 }, () => ({})))).status).toBe(201);
    expect((await api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, {})).status).toBe(409);
  });

  test('when 50 allocations run at once, then they get 50 distinct ASNs', async () => {
    const r = await range(65100, 65199);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post(`/api/ipam/asn-ranges/${r.id}/available-asns/`, { description: `c${i}` })));
    expect(replies.map((x) => x.status)).toEqual(Array(50).fill(201));
    expect(replies.map((x) => x.body.asn).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => 65100 + i));
  });
});

describe('filters NetBox 3.7 clients send', () => {
  test('when an address and an FHRP group are assigned to a device\'s and a machine\'s interfaces, then each interface counts them at once (count_ipaddresses, count_fhrp_groups)', async () => {
    const [d, m] = await Promise.all([theDevice(), theMachine()]);
    const di = await made('/api/dcim/interfaces/', { device: d.id, name: uniq('cnt'), type: '1000base-t' }, dcimApi);
    const vi = await made('/api/virtualization/interfaces/', { virtual_machine: m.id, name: uniq('cnt') }, virt);
    const group = await made('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 7 });
    for (const [type, iface, host] of [['dcim.interface', di, 11], ['virtualization.vminterface', vi, 12]] as const) {
      await made('/api/ipam/ip-addresses/', { address: `198.51.100.${host}/24`, assigned_object_type: type, assigned_object_id: iface.id });
      await made('/api/ipam/fhrp-group-assignments/', { group: group.id, interface_type: type, interface_id: iface.id, priority: 100 });
    }
    const dcimSide = (await dcimApi.get(`/api/dcim/interfaces/${di.id}/`)).body;
    const virtSide = (await virt.get(`/api/virtualization/interfaces/${vi.id}/`)).body;
    expect([dcimSide.count_ipaddresses, dcimSide.count_fhrp_groups]).toEqual([1, 1]);
    expect([virtSide.count_ipaddresses, virtSide.count_fhrp_groups, virtSide.l2vpn_termination]).toEqual([1, 1, null]);
  });

  test('when sites are filtered by asn (the number), then only the sites holding that ASN come back; an unknown number is a 400', async () => {
    const rir = await made('/api/ipam/rirs/', { name: uniq('RIR'), slug: uniq('rir') });
    const asn = await made('/api/ipam/asns/', { asn: 64512 + seq, rir: rir.id });
    const holder = await made('/api/dcim/sites/', { name: uniq('ASN site'), slug: uniq('asn-site'), asns: [asn.id] }, dcimApi);
    await made('/api/dcim/sites/', { name: uniq('Other site'), slug: uniq('other-site') }, dcimApi);
    const list = await dcimApi.get(`/api/dcim/sites/?asn=${asn.asn}`);
    expect(list.body.results.map((s: Obj) => s.id)).toEqual([holder.id]);
    const none = await dcimApi.get(`/api/dcim/sites/?asn__n=${asn.asn}`);
    expect(none.body.results.map((s: Obj) => s.id)).not.toContain(holder.id);
    // a number no test here creates
    const unknown = await dcimApi.get('/api/dcim/sites/?asn=3999999999');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ asn: ['Select a valid choice. 3999999999 is not one of the available choices.'] });
  });

  test('when route targets are filtered by importing_vrf(_id) and exporting_vrf(_id), then only those the VRF imports or exports come back', async () => {
    const [imported, exported, other] = await Promise.all(['65000:1', '65000:2', '65000:3'].map((name) => made('/api/ipam/route-targets/', { name: `${name}${seq}` })));
    const vrf = await made('/api/ipam/vrfs/', { name: uniq('VRF'), rd: `65000:${100 + seq}`, import_targets: [imported.id], export_targets: [exported.id] });
    const names = async (q: string) => (await api.get(`/api/ipam/route-targets/?${q}`)).body.results.map((r: Obj) => r.id);
    expect(await names(`importing_vrf_id=${vrf.id}`)).toEqual([imported.id]);
    expect(await names(`exporting_vrf_id=${vrf.id}`)).toEqual([exported.id]);
    expect(await names(`importing_vrf=${encodeURIComponent(vrf.rd)}`)).toEqual([imported.id]);
    expect(await names(`exporting_vrf=${encodeURIComponent(vrf.rd)}`)).toEqual([exported.id]);
    expect(await names(`importing_vrf_id=${vrf.id}`)).not.toContain(other.id);
    const excluded = await names(`importing_vrf_id__n=${vrf.id}&limit=0`);
    expect(excluded).toEqual(expect.arrayContaining([exported.id, other.id]));
    expect(excluded).not.toContain(imported.id);
    const unknown = await api.get('/api/ipam/route-targets/?importing_vrf_id=999999999');
    expect(unknown.status).toBe(400);
  });
});
