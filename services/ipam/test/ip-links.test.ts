import { ipamSuite, type Obj } from './stack';

/**
 * What links IP addresses and prefixes to other ipam objects: a service's IP addresses
 * (§3.14), an FHRP group's (§3.11), a VLAN's prefixes (§3.13 `prefix_count`, §3.8 `vlan_id` /
 * `vlan_vid`).
 */
const suite = ipamSuite();
const { made } = suite;
const api = () => suite.api();
const I = '/api/ipam';
const ids = async (path: string): Promise<number[]> => (await api().get(path)).body.results.map((o: Obj) => o.id);

let device: Promise<Obj> | null = null;
function theDevice(): Promise<Obj> {
  return (device ??= (async () => {
    const dcim = suite.stack().client('dcim');
    const site = await made('/api/dcim/sites/', { name: 'Links site', slug: 'links-site' }, dcim);
    const maker = await made('/api/dcim/manufacturers/', { name: 'Links maker', slug: 'links-maker' }, dcim);
    const type = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Links box', slug: 'links-box' }, dcim);
    const role = await made('/api/dcim/device-roles/', { name: 'Links role', slug: 'links-role' }, dcim);
    return made('/api/dcim/devices/', { name: 'links-device', device_type: type.id, role: role.id, site: site.id }, dcim);
  })());
}

describe('a service\'s IP addresses', () => {
  test('when a service lists IP addresses, then they read nested and the ipaddress / ipaddress_id filters find it', async () => {
    const d = await theDevice();
    const a = await made(`${I}/ip-addresses/`, { address: '10.80.0.1/24' });
    const b = await made(`${I}/ip-addresses/`, { address: '10.80.0.2/24' });
    const s = await made(`${I}/services/`, { device: d.id, name: 'dns', protocol: 'udp', ports: [53], ipaddresses: [b.id, a.id] });
    const other = await made(`${I}/services/`, { device: d.id, name: 'ntp', protocol: 'udp', ports: [123] });
    expect(other.ipaddresses).toEqual([]);
    const nested = (ip: Obj) => ({ id: ip.id, url: ip.url, display: ip.display, family: 4, address: ip.address });
    expect(s.ipaddresses.map((x: Obj) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect((await api().get(`${I}/services/${s.id}/`)).body.ipaddresses).toEqual(expect.arrayContaining([nested(a), nested(b)]));
    expect(Object.keys(s).indexOf('ipaddresses')).toBe(Object.keys(s).indexOf('protocol') + 1);

    expect(await ids(`${I}/services/?ipaddress_id=${a.id}`)).toEqual([s.id]);
    expect(await ids(`${I}/services/?ipaddress=10.80.0.2/24`)).toEqual([s.id]);
    expect(await ids(`${I}/services/?ipaddress__n=10.80.0.2/24&device_id=${d.id}`)).toEqual([other.id]);
    expect(await ids(`${I}/services/?ipaddress_id__n=${a.id}&device_id=${d.id}`)).toEqual([other.id]);
    // as stored: the mask is part of the value; none such is NetBox's 400
    for (const q of ['ipaddress=10.80.0.2', 'ipaddress=10.80.0.2/32', 'ipaddress=nonsense', 'ipaddress_id=99999999']) {
      const r = await api().get(`${I}/services/?${q}`);
      expect(r.status).toBe(400);
    }
  });

  test('when the list is changed, cleared, or an address deleted, then the service shows what remains', async () => {
    const d = await theDevice();
    const a = await made(`${I}/ip-addresses/`, { address: '10.81.0.1/24' });
    const b = await made(`${I}/ip-addresses/`, { address: '10.81.0.2/24' });
    const s = await made(`${I}/services/`, { device: d.id, name: 'web', protocol: 'tcp', ports: [80], ipaddresses: [a.id, b.id] });
    expect((await api().patch(`${I}/services/${s.id}/`, { ipaddresses: [b.id] })).body.ipaddresses.map((x: Obj) => x.id)).toEqual([b.id]);
    expect((await api().delete(`${I}/ip-addresses/${b.id}/`)).status).toBe(204);
    expect((await api().get(`${I}/services/${s.id}/`)).body.ipaddresses).toEqual([]);
    expect((await api().patch(`${I}/services/${s.id}/`, { ipaddresses: [a.id] })).body.ipaddresses.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await api().patch(`${I}/services/${s.id}/`, { ipaddresses: [] })).body.ipaddresses).toEqual([]);
    expect((await api().patch(`${I}/services/${s.id}/`, { ipaddresses: [99999999] })).status).toBe(400);
  });
});

describe('an FHRP group\'s IP addresses', () => {
  test('when addresses are assigned to a group, then ip_addresses nests them by host and display adds the first, in every form', async () => {
    const g = await made(`${I}/fhrp-groups/`, { protocol: 'hsrp', group_id: 17 });
    expect(g.ip_addresses).toEqual([]);
    expect(g.display).toBe('HSRP: 17');
    const assigned = { assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: g.id, role: 'hsrp' };
    const second = await made(`${I}/ip-addresses/`, { address: '10.90.0.20/24', ...assigned });
    const first = await made(`${I}/ip-addresses/`, { address: '10.90.0.3/24', ...assigned });
    const loose = await made(`${I}/ip-addresses/`, { address: '10.90.0.4/24' });

    const full = (await api().get(`${I}/fhrp-groups/${g.id}/`)).body;
    expect(full.display).toBe('HSRP: 17 (10.90.0.3/24)');
    expect(full.ip_addresses).toEqual([
      { id: first.id, url: first.url, display: '10.90.0.3/24', family: 4, address: '10.90.0.3/24' },
      { id: second.id, url: second.url, display: '10.90.0.20/24', family: 4, address: '10.90.0.20/24' },
    ]);
    expect(Object.keys(full).at(-1)).toBe('ip_addresses');
    expect((await api().get(`${I}/fhrp-groups/${g.id}/?brief=1`)).body).toEqual({ id: g.id, url: g.url, display: 'HSRP: 17 (10.90.0.3/24)', protocol: 'hsrp', group_id: 17 });
    const listed = (await api().get(`${I}/fhrp-groups/?group_id=17`)).body.results;
    expect(listed.map((x: Obj) => [x.display, x.ip_addresses.length])).toEqual([['HSRP: 17 (10.90.0.3/24)', 2]]);
    // the address's assigned object is the group, nested with the same display
    expect((await api().get(`${I}/ip-addresses/${second.id}/`)).body.assigned_object).toMatchObject({ id: g.id, display: 'HSRP: 17 (10.90.0.3/24)', protocol: 'hsrp', group_id: 17 });
    // a PATCH answers it too (it is read-only: a value sent is ignored)
    const patched = await api().patch(`${I}/fhrp-groups/${g.id}/`, { name: 'edge', ip_addresses: [] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ display: 'edge HSRP: 17 (10.90.0.3/24)' });
    expect(patched.body.ip_addresses).toHaveLength(2);

    // related_ip: groups holding an address inside that address's network, in its VRF (or both global)
    const vrf = await made(`${I}/vrfs/`, { name: 'Fhrp VRF', rd: '65300:1' });
    const inVrf = await made(`${I}/fhrp-groups/`, { protocol: 'vrrp3', group_id: 18 });
    await made(`${I}/ip-addresses/`, { address: '10.90.0.9/24', vrf: vrf.id, assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: inVrf.id, role: 'vrrp' });
    const vrfAddress = await made(`${I}/ip-addresses/`, { address: '10.90.0.10/24', vrf: vrf.id });
    expect(await ids(`${I}/fhrp-groups/?related_ip=${loose.id}`)).toEqual([g.id]);
    expect(await ids(`${I}/fhrp-groups/?related_ip=${vrfAddress.id}`)).toEqual([inVrf.id]);
    expect(await ids(`${I}/fhrp-groups/?related_ip=${loose.id}&related_ip=${vrfAddress.id}`)).toEqual([g.id, inVrf.id]);
    expect((await api().get(`${I}/fhrp-groups/?related_ip=99999999`)).status).toBe(400);
  });
});

describe('a VLAN\'s prefixes', () => {
  test('when prefixes name a VLAN, then its prefix_count counts them and the prefix filters vlan_id and vlan_vid find them', async () => {
    const v = await made(`${I}/vlans/`, { vid: 701, name: 'pfx-vlan' });
    const w = await made(`${I}/vlans/`, { vid: 702, name: 'pfx-vlan-2' });
    const p1 = await made(`${I}/prefixes/`, { prefix: '10.95.1.0/24', vlan: v.id });
    const p2 = await made(`${I}/prefixes/`, { prefix: '10.95.2.0/24', vlan: v.id });
    const p3 = await made(`${I}/prefixes/`, { prefix: '10.95.3.0/24', vlan: w.id });
    const p4 = await made(`${I}/prefixes/`, { prefix: '10.95.4.0/24' });
    expect((await api().get(`${I}/vlans/${v.id}/`)).body.prefix_count).toBe(2);
    expect((await api().get(`${I}/vlans/?vid=702`)).body.results[0].prefix_count).toBe(1);
    const within = 'within=10.95.0.0/16';
    expect(await ids(`${I}/prefixes/?${within}&vlan_id=${v.id}`)).toEqual([p1.id, p2.id]);
    expect(await ids(`${I}/prefixes/?${within}&vlan_id=null`)).toEqual([p4.id]);
    expect(await ids(`${I}/prefixes/?${within}&vlan_id__n=${v.id}`)).toEqual([p3.id, p4.id]);
    expect(await ids(`${I}/prefixes/?${within}&vlan_vid=702`)).toEqual([p3.id]);
    expect(await ids(`${I}/prefixes/?${within}&vlan_vid__gte=701`)).toEqual([p1.id, p2.id, p3.id]);
    expect(await ids(`${I}/prefixes/?${within}&vlan_vid__lt=702`)).toEqual([p1.id, p2.id]);
    expect((await api().get(`${I}/prefixes/?vlan_id=99999999`)).status).toBe(400);
    expect((await api().get(`${I}/prefixes/?vlan_vid=x`)).status).toBe(400);
    // a VLAN referenced by prefixes is protected
    expect((await api().delete(`${I}/vlans/${w.id}/`)).status).toBe(409);
  });
});
