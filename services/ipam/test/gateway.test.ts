import pg from 'pg';
import { bootStack, Client, eventually, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as ipam } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';

/**
 * ipam as a NetBox client (pynetbox, the Ansible collection) meets it, end to
 * end through the gateway with a token: addresses on device and VM
 * interfaces with their `assigned_object`, the owners' primary IPs and what
 * they forbid, the generic-relation cascade across services, the
 * device/VM/interface filters, and allocation to exhaustion.
 */
const KEY = '0123456789abcdef0123456789abcdef01234567';
let stack: Stack;
let gw: Client;
let base: string;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, virtualization, ipam, gateway: stackGateway() }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  base = stack.urls.gateway;
  gw = new Client(base, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(() => stack?.stop());

type Obj = Record<string, any>;
const I = '/api/ipam';
const D = '/api/dcim';
const V = '/api/virtualization';
const INSUFFICIENT = { detail: 'Insufficient resources are available to satisfy the request' };
const PRIMARY = { __all__: ['Cannot reassign IP address while it is designated as the primary IP for the parent object'] };

async function made(path: string, body: Obj | Obj[]): Promise<any> {
  const r = await gw.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}
async function read(path: string): Promise<any> {
  const r = await gw.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body;
}
/** The ids a filtered list (every page: `limit=0`) returns, sorted. */
const ids = async (query: string): Promise<number[]> => (await read(`${I}/ip-addresses/?${query}&limit=0`)).results.map((o: Obj) => o.id).sort((a: number, b: number) => a - b);
const sorted = (...list: number[]) => [...list].sort((a, b) => a - b);

/** Waits until ipam's projection holds the interface (its id filter answers 400 for an unknown one). */
const projected = (filter: 'interface_id' | 'vminterface_id', id: number) =>
  eventually(async () => (await gw.get(`${I}/ip-addresses/?${filter}=${id}`)).status === 200, 15_000, `${filter} ${id} in ipam`);

/**
 * Waits until ipam's projection of the device or machine names the address
 * as a primary IP. The owner's event reaches ipam asynchronously, and there
 * is no read of it through the API: retrying the refused write until it is
 * refused would apply it while it is not, so this looks at ipam's table.
 */
async function primaryKnown(label: 'dcim.device' | 'virtualization.virtualmachine', id: number, ip: number): Promise<void> {
  await eventually(async () => {
    const client = new pg.Client({ connectionString: stack.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT 1 FROM ipam."_proj_${label.replace('.', '_')}" WHERE id = $1 AND $2 IN (data->>'primary_ip4', data->>'primary_ip6')`, [id, String(ip)]);
      return rows.length === 1;
    } finally {
      await client.end();
    }
  }, 15_000, `${label} ${id}'s primary IP in ipam`);
}

describe('ipam through the gateway', () => {
  let site: Obj;
  let dtype: Obj;
  beforeAll(async () => {
    site = await made(`${D}/sites/`, { name: 'IPAM E2E site', slug: 'ipam-e2e-site' });
    await made(`${D}/manufacturers/`, { name: 'IPAM maker', slug: 'ipam-maker' });
    dtype = await made(`${D}/device-types/`, { manufacturer: { slug: 'ipam-maker' }, model: 'Router 2', slug: 'router-2' });
    await made(`${D}/interface-templates/`, ['eth0', 'eth1'].map((name) => ({ device_type: dtype.id, name, type: '1000base-t' })));
    await made(`${D}/device-roles/`, { name: 'IPAM router', slug: 'ipam-router' });
  });
  const device = (name: string) => made(`${D}/devices/`, { name, device_type: { slug: 'router-2' }, role: { slug: 'ipam-router' }, site: { slug: 'ipam-e2e-site' } });
  const iface = async (deviceId: number, name: string): Promise<Obj> => (await read(`${D}/interfaces/?device_id=${deviceId}&name=${name}&limit=0`)).results[0];

  test('when addresses are put on a device interface and made its primary IPs, then they show the interface in the seed\'s shape and cannot leave the device until the interface goes', async () => {
    const r1 = await device('ipam-r1');
    const r2 = await device('ipam-r2');
    const [eth0, eth1, far] = [await iface(r1.id, 'eth0'), await iface(r1.id, 'eth1'), await iface(r2.id, 'eth0')];
    await projected('interface_id', far.id);
    await projected('interface_id', eth1.id);

    // the Ansible collection's create: an integer `assigned_object` (not a field) next to type and id, ignored
    const v4 = await made(`${I}/ip-addresses/`, { address: '192.0.2.1/24', assigned_object: eth0.id, assigned_object_type: 'dcim.interface', assigned_object_id: eth0.id, status: 'active', dns_name: 'R1.example.com' });
    expect(v4).toMatchObject({ address: '192.0.2.1/24', family: { value: 4, label: 'IPv4' }, status: { value: 'active', label: 'Active' }, dns_name: 'r1.example.com' });
    expect(v4.url).toBe(`${base}${I}/ip-addresses/${v4.id}/`);
    expect([v4.assigned_object_type, v4.assigned_object_id]).toEqual(['dcim.interface', eth0.id]);
    // the seed's nested interface: id, url, device {id, url, name, display_name}, name, cable, connection_status
    expect(v4.assigned_object).toMatchObject({
      id: eth0.id,
      url: `${base}${D}/interfaces/${eth0.id}/`,
      device: { id: r1.id, url: `${base}${D}/devices/${r1.id}/`, name: 'ipam-r1', display_name: 'ipam-r1' },
      name: 'eth0',
      cable: null,
      connection_status: null,
    });
    for (const key of ['id', 'url', 'device', 'name', 'cable', 'connection_status']) expect(v4.assigned_object).toHaveProperty(key);
    const v6 = await made(`${I}/ip-addresses/`, { address: '2001:db8:e2e::1/64', assigned_object_type: 'dcim.interface', assigned_object_id: eth0.id });
    expect(v6).toMatchObject({ address: '2001:db8:e2e::1/64', family: { value: 6, label: 'IPv6' }, assigned_object: { id: eth0.id, device: { id: r1.id } } });
    const second = await made(`${I}/ip-addresses/`, { address: '192.0.2.2/24', assigned_object_type: 'dcim.interface', assigned_object_id: eth1.id });
    const elsewhere = await made(`${I}/ip-addresses/`, { address: '192.0.2.3/24', assigned_object_type: 'dcim.interface', assigned_object_id: far.id });
    const loose = await made(`${I}/ip-addresses/`, { address: '192.0.2.4/24' });
    // the detail read through the gateway shows the same
    expect((await read(`${I}/ip-addresses/${v4.id}/`)).assigned_object).toEqual(v4.assigned_object);

    // the filters a client finds a device's and an interface's addresses by
    expect(await ids(`device_id=${r1.id}`)).toEqual(sorted(v4.id, v6.id, second.id));
    expect(await ids(`device=ipam-r1`)).toEqual(sorted(v4.id, v6.id, second.id));
    expect(await ids(`device_id=${r1.id}&device_id=${r2.id}`)).toEqual(sorted(v4.id, v6.id, second.id, elsewhere.id));
    expect(await ids(`interface_id=${eth0.id}`)).toEqual(sorted(v4.id, v6.id));
    expect(await ids(`interface_id=${eth1.id}&family=4`)).toEqual([second.id]);
    expect(await ids(`parent=192.0.2.0/24&assigned=false`)).toEqual([loose.id]);
    // the Ansible lookup: address with mask, the unknown `assigned_object` ignored, `interface_id` filtering
    const lookup = await read(`${I}/ip-addresses/?address=192.0.2.1%2F24&assigned_object=${eth0.id}&assigned_object_id=${eth0.id}&interface_id=${eth0.id}&limit=0`);
    expect(lookup.results.map((o: Obj) => o.id)).toEqual([v4.id]);
    expect((await read(`${I}/ip-addresses/?address=192.0.2.1%2F24&interface_id=${eth1.id}&limit=0`)).count).toBe(0);

    // dcim takes the addresses as primary IPs once ipam's events have reached its projection
    await eventually(async () => (await gw.patch(`${D}/devices/${r1.id}/`, { primary_ip4: v4.id, primary_ip6: v6.id })).status === 200, 15_000, 'the primary IPs set');
    const owner = await read(`${D}/devices/${r1.id}/`);
    expect(owner.primary_ip4).toMatchObject({ id: v4.id, url: `${base}${I}/ip-addresses/${v4.id}/`, address: '192.0.2.1/24', family: 4 });
    expect(owner.primary_ip6).toMatchObject({ id: v6.id, address: '2001:db8:e2e::1/64', family: 6 });
    expect(owner.primary_ip).toMatchObject({ id: v6.id });
    // an address of another device is refused as a primary IP (dcim's rule)
    const foreign = await gw.patch(`${D}/devices/${r1.id}/`, { primary_ip4: elsewhere.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ primary_ip4: ['The specified IP address (192.0.2.3/24) is not assigned to this device.'] });

    // the primary address may not move to another device's interface, nor be unassigned
    await primaryKnown('dcim.device', r1.id, v4.id);
    await primaryKnown('dcim.device', r1.id, v6.id);
    const moved = await gw.patch(`${I}/ip-addresses/${v4.id}/`, { assigned_object_type: 'dcim.interface', assigned_object_id: far.id });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual(PRIMARY);
    const unassigned = await gw.patch(`${I}/ip-addresses/${v6.id}/`, { assigned_object_type: null, assigned_object_id: null });
    expect([unassigned.status, unassigned.body]).toEqual([400, PRIMARY]);
    expect((await read(`${I}/ip-addresses/${v4.id}/`)).assigned_object_id).toBe(eth0.id);
    // an address that is no primary IP moves freely
    expect((await gw.patch(`${I}/ip-addresses/${second.id}/`, { assigned_object_id: far.id })).status).toBe(200);
    expect(await ids(`device_id=${r2.id}`)).toEqual(sorted(second.id, elsewhere.id));

    // the interface goes: its addresses go with it (NetBox's generic relation), and dcim clears the primary IPs
    expect((await gw.delete(`${D}/interfaces/${eth0.id}/`)).status).toBe(204);
    await eventually(async () => (await gw.get(`${I}/ip-addresses/${v4.id}/`)).status === 404, 15_000, 'the interface\'s addresses deleted');
    expect((await gw.get(`${I}/ip-addresses/${v6.id}/`)).status).toBe(404);
    await eventually(async () => {
      const d = await read(`${D}/devices/${r1.id}/`);
      return d.primary_ip4 === null && d.primary_ip6 === null && d.primary_ip === null;
    }, 15_000, 'the device\'s primary IPs cleared');
    expect(await ids(`device_id=${r1.id}`)).toEqual([]);
    expect(await ids(`parent=192.0.2.0/24`)).toEqual(sorted(second.id, elsewhere.id, loose.id));
  });

  test('when an address is put on a VM interface and made the machine\'s primary IPv4, then it shows the machine, the VM filters find it, and deleting the interface deletes it', async () => {
    const ctype = await made(`${V}/cluster-types/`, { name: 'IPAM KVM', slug: 'ipam-kvm' });
    const cluster = await made(`${V}/clusters/`, { name: 'IPAM cluster', type: ctype.id, site: site.id });
    const [vm, other] = await made(`${V}/virtual-machines/`, [{ name: 'ipam-vm1', cluster: cluster.id }, { name: 'ipam-vm2', cluster: { name: 'IPAM cluster' } }]);
    const [veth0, veth1] = await made(`${V}/interfaces/`, [{ virtual_machine: vm.id, name: 'veth0' }, { virtual_machine: vm.id, name: 'veth1' }]);
    const otherIf = await made(`${V}/interfaces/`, { virtual_machine: other.id, name: 'veth0' });
    await projected('vminterface_id', otherIf.id);
    await projected('vminterface_id', veth1.id);

    const ip = await made(`${I}/ip-addresses/`, { address: '198.51.100.10/24', assigned_object_type: 'virtualization.vminterface', assigned_object_id: veth0.id });
    expect([ip.assigned_object_type, ip.assigned_object_id]).toEqual(['virtualization.vminterface', veth0.id]);
    expect(ip.assigned_object).toEqual({
      id: veth0.id,
      url: `${base}${V}/interfaces/${veth0.id}/`,
      display: 'veth0',
      virtual_machine: { id: vm.id, url: `${base}${V}/virtual-machines/${vm.id}/`, display: 'ipam-vm1', name: 'ipam-vm1' },
      name: 'veth0',
    });
    const v6 = await made(`${I}/ip-addresses/`, { address: '2001:db8:e2f::10/64', assigned_object_type: 'virtualization.vminterface', assigned_object_id: veth0.id });
    const onVeth1 = await made(`${I}/ip-addresses/`, { address: '198.51.100.11/24', assigned_object_type: 'virtualization.vminterface', assigned_object_id: veth1.id });
    const onOther = await made(`${I}/ip-addresses/`, { address: '198.51.100.12/24', assigned_object_type: 'virtualization.vminterface', assigned_object_id: otherIf.id });

    expect(await ids(`virtual_machine_id=${vm.id}`)).toEqual(sorted(ip.id, v6.id, onVeth1.id));
    expect(await ids(`virtual_machine=ipam-vm2`)).toEqual([onOther.id]);
    expect(await ids(`vminterface_id=${veth0.id}`)).toEqual(sorted(ip.id, v6.id));
    // a VM interface is no device interface
    expect(await ids(`parent=198.51.100.0/24&device_id=${vm.id}`)).toEqual([]);

    await eventually(async () => (await gw.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: ip.id, primary_ip6: v6.id })).status === 200, 15_000, 'the machine\'s primary IPs set');
    const machine = await read(`${V}/virtual-machines/${vm.id}/`);
    expect(machine.primary_ip4).toMatchObject({ id: ip.id, address: '198.51.100.10/24', family: 4 });
    expect(machine.primary_ip6).toMatchObject({ id: v6.id, address: '2001:db8:e2f::10/64', family: 6 });
    const wrong = await gw.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: onOther.id });
    expect([wrong.status, wrong.body]).toEqual([400, { primary_ip4: ['The specified IP address (198.51.100.12/24) is not assigned to this VM.'] }]);

    await primaryKnown('virtualization.virtualmachine', vm.id, ip.id);
    const moved = await gw.patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_id: otherIf.id });
    expect([moved.status, moved.body]).toEqual([400, PRIMARY]);
    // another interface of the same machine will do (NetBox allows it within the parent)
    expect((await gw.patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_id: veth1.id })).status).toBe(200);
    expect(await ids(`vminterface_id=${veth1.id}`)).toEqual(sorted(ip.id, onVeth1.id));

    expect((await gw.delete(`${V}/interfaces/${veth1.id}/`)).status).toBe(204);
    await eventually(async () => (await gw.get(`${I}/ip-addresses/${ip.id}/`)).status === 404, 15_000, 'the VM interface\'s addresses deleted');
    expect((await gw.get(`${I}/ip-addresses/${onVeth1.id}/`)).status).toBe(404);
    await eventually(async () => (await read(`${V}/virtual-machines/${vm.id}/`)).primary_ip4 === null, 15_000, 'the machine\'s primary IPv4 cleared');
    expect((await read(`${V}/virtual-machines/${vm.id}/`)).primary_ip6).toMatchObject({ id: v6.id });
    expect(await ids(`virtual_machine_id=${vm.id}`)).toEqual([v6.id]);
  });

  test('when a VLAN group\'s and an ASN range\'s free values are allocated until none is left, then the next allocation is 409 with NetBox\'s text', async () => {
    const group = await made(`${I}/vlan-groups/`, { name: 'E2E group', slug: 'e2e-group', min_vid: 100, max_vid: 104 });
    await made(`${I}/vlans/`, { group: group.id, vid: 102, name: 'taken' });
    const free = await read(`${I}/vlan-groups/${group.id}/available-vlans/`);
    expect(free.map((v: Obj) => v.vid)).toEqual([100, 101, 103, 104]);
    expect(free[0].group).toMatchObject({ id: group.id, url: `${base}${I}/vlan-groups/${group.id}/`, name: 'E2E group', slug: 'e2e-group' });
    const one = await made(`${I}/vlan-groups/${group.id}/available-vlans/`, { name: 'first', status: 'active' });
    expect(one).toMatchObject({ vid: 100, name: 'first', group: { id: group.id }, status: { label: 'Active' } });
    // more than is left: nothing is created
    const over = await gw.post(`${I}/vlan-groups/${group.id}/available-vlans/`, [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    expect([over.status, over.body]).toEqual([409, INSUFFICIENT]);
    expect((await read(`${I}/vlans/?group_id=${group.id}&limit=0`)).count).toBe(2);
    const rest = await made(`${I}/vlan-groups/${group.id}/available-vlans/`, [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect(rest.map((v: Obj) => v.vid)).toEqual([101, 103, 104]);
    const full = await gw.post(`${I}/vlan-groups/${group.id}/available-vlans/`, { name: 'e' });
    expect([full.status, full.body]).toEqual([409, INSUFFICIENT]);
    expect(await read(`${I}/vlan-groups/${group.id}/available-vlans/`)).toEqual([]);

    const rir = await made(`${I}/rirs/`, { name: 'E2E RIR', slug: 'e2e-rir' });
    const range = await made(`${I}/asn-ranges/`, { name: 'E2E ASNs', slug: 'e2e-asns', rir: rir.id, start: 64512, end: 64514 });
    const asns = [];
    for (let i = 0; i < 3; i++) asns.push((await made(`${I}/asn-ranges/${range.id}/available-asns/`, { description: `asn ${i}` })).asn);
    expect(asns).toEqual([64512, 64513, 64514]);
    // the range counts the ASNs inside it (asn_count, last of its fields as in NetBox's serializer)
    const counted = (await gw.get(`${I}/asn-ranges/${range.id}/`)).body;
    expect(counted.asn_count).toBe(3);
    expect(Object.keys(counted).slice(-1)).toEqual(['asn_count']);
    const none = await gw.post(`${I}/asn-ranges/${range.id}/available-asns/`, { description: 'one more' });
    expect([none.status, none.body]).toEqual([409, INSUFFICIENT]);
  });

  test('when a prefix\'s available-ips are allocated through the gateway until none is left, then the next allocation is 409 with NetBox\'s text and creates nothing', async () => {
    const dev = await device('ipam-r3');
    const eth1 = await iface(dev.id, 'eth1');
    await projected('interface_id', eth1.id);
    const vrf = await made(`${I}/vrfs/`, { name: 'E2E VRF', rd: '65310:1' });
    const prefix = await made(`${I}/prefixes/`, { prefix: '203.0.113.0/29', vrf: vrf.id, status: 'active' });
    const path = `${I}/prefixes/${prefix.id}/available-ips/`;
    // six usable addresses (no network nor broadcast address), with the prefix's mask and VRF
    const free = await read(path);
    expect(free.map((f: Obj) => f.address)).toEqual([1, 2, 3, 4, 5, 6].map((h) => `203.0.113.${h}/29`));
    expect(free[0]).toMatchObject({ family: 4, address: '203.0.113.1/29', vrf: { id: vrf.id, url: `${base}${I}/vrfs/${vrf.id}/`, name: 'E2E VRF', rd: '65310:1' } });
    // an address made by hand takes its place
    const manual = await made(`${I}/ip-addresses/`, { address: '203.0.113.2/29', vrf: vrf.id });
    expect((await read(`${path}?limit=2`)).map((f: Obj) => f.address)).toEqual(['203.0.113.1/29', '203.0.113.3/29']);

    // the Ansible collection's allocation: keys that are no fields (`prefix`, `assigned_object`) ignored, the interface kept
    const first = await made(path, { prefix: '203.0.113.0/29', assigned_object: eth1.id, assigned_object_id: eth1.id, assigned_object_type: 'dcim.interface', status: 'active' });
    expect(first).toMatchObject({ address: '203.0.113.1/29', vrf: { id: vrf.id }, status: { value: 'active' }, assigned_object_type: 'dcim.interface', assigned_object_id: eth1.id });
    expect(first.assigned_object).toMatchObject({ id: eth1.id, name: 'eth1', device: { id: dev.id, name: 'ipam-r3', display_name: 'ipam-r3' } });
    expect(first.url).toBe(`${base}${I}/ip-addresses/${first.id}/`);
    expect(await ids(`interface_id=${eth1.id}`)).toEqual([first.id]);
    // `state: new`: reserved, with a description
    const reserved = await made(path, { prefix: '203.0.113.0/29', status: 'reserved', description: 'for later' });
    expect(reserved).toMatchObject({ address: '203.0.113.3/29', status: { value: 'reserved' }, description: 'for later' });

    // three left: asking for four creates nothing
    const over = await gw.post(path, [{}, {}, {}, {}]);
    expect([over.status, over.body]).toEqual([409, INSUFFICIENT]);
    expect((await read(`${I}/ip-addresses/?parent=203.0.113.0/29&vrf_id=${vrf.id}&limit=0`)).count).toBe(3);
    const rest = await made(path, [{ description: 'a' }, { description: 'b' }, { description: 'c' }]);
    expect(rest.map((o: Obj) => o.address)).toEqual(['203.0.113.4/29', '203.0.113.5/29', '203.0.113.6/29']);
    expect(await read(path)).toEqual([]);
    const full = await gw.post(path, { description: 'one more' });
    expect([full.status, full.body]).toEqual([409, INSUFFICIENT]);
    expect(await ids(`parent=203.0.113.0/29&vrf_id=${vrf.id}`)).toEqual(sorted(manual.id, first.id, reserved.id, ...rest.map((o: Obj) => o.id)));
    // freeing one address makes it the next allocation
    expect((await gw.delete(`${I}/ip-addresses/${manual.id}/`)).status).toBe(204);
    expect((await made(path, {})).address).toBe('203.0.113.2/29');
    expect((await gw.post(path, {})).status).toBe(409);
  });

  test('when an IP range\'s available-ips and a prefix\'s available-prefixes are allocated through the gateway, then they run out with 409 the same way', async () => {
    const range = await made(`${I}/ip-ranges/`, { start_address: '100.64.1.10/24', end_address: '100.64.1.13/24' });
    await made(`${I}/ip-addresses/`, { address: '100.64.1.11/24' });
    const rpath = `${I}/ip-ranges/${range.id}/available-ips/`;
    expect((await read(rpath)).map((f: Obj) => f.address)).toEqual(['100.64.1.10/24', '100.64.1.12/24', '100.64.1.13/24']);
    expect((await made(rpath, [{}, {}, {}])).map((o: Obj) => o.address)).toEqual(['100.64.1.10/24', '100.64.1.12/24', '100.64.1.13/24']);
    const rfull = await gw.post(rpath, {});
    expect([rfull.status, rfull.body]).toEqual([409, INSUFFICIENT]);

    const parent = await made(`${I}/prefixes/`, { prefix: '100.64.8.0/24', status: 'container' });
    await made(`${I}/prefixes/`, [{ prefix: '100.64.8.64/26' }, { prefix: '100.64.8.192/27' }]);
    const ppath = `${I}/prefixes/${parent.id}/available-prefixes/`;
    const blocks = await read(ppath);
    expect(blocks).toEqual(['100.64.8.0/26', '100.64.8.128/26', '100.64.8.224/27'].map((prefix) => ({ family: 4, prefix, vrf: null })));
    const child = await made(ppath, { prefix_length: 26, description: 'allocated' });
    expect(child).toMatchObject({ prefix: '100.64.8.0/26', vrf: null, description: 'allocated', status: { value: 'active' } });
    // two /26 do not fit in what is left (one /26 and one /27): nothing is created
    const over = await gw.post(ppath, [{ prefix_length: 26 }, { prefix_length: 26 }]);
    expect([over.status, over.body]).toEqual([409, INSUFFICIENT]);
    expect((await made(ppath, [{ prefix_length: 26 }, { prefix_length: 27 }])).map((p: Obj) => p.prefix)).toEqual(['100.64.8.128/26', '100.64.8.224/27']);
    expect(await read(ppath)).toEqual([]);
    const full = await gw.post(ppath, { prefix_length: 32 });
    expect([full.status, full.body]).toEqual([409, INSUFFICIENT]);
    expect((await read(`${I}/prefixes/${parent.id}/`)).children).toBe(5);
  });

  test('when /api/vpn/ is read through the gateway, then ipam answers it, the root lists it and the merged schema documents its paths and shapes', async () => {
    expect((await read('/api/')).vpn).toBe(`${base}/api/vpn/`);
    const area = await read('/api/vpn/');
    expect(area.tunnels).toBe(`${base}/api/vpn/tunnels/`);
    expect(area).not.toHaveProperty('prefixes');
    expect(await read(`${I}/`)).not.toHaveProperty('tunnels');
    const profile = await made('/api/vpn/ike-proposals/', { name: 'gw proposal', authentication_method: 'preshared-keys', encryption_algorithm: 'aes-256-cbc', group: 14 });
    expect(profile.url).toBe(`${base}/api/vpn/ike-proposals/${profile.id}/`);
    const schema = await gw.get('/api/schema/', { headers: { accept: 'application/json' } });
    for (const p of ['/api/vpn/tunnels/', '/api/vpn/tunnels/{id}/', '/api/vpn/l2vpn-terminations/', '/api/vpn/ike-proposals/']) expect(schema.body.paths[p]).toBeDefined();
    for (const c of ['Tunnel', 'BriefTunnelGroup', 'IKEProposal', 'L2VPNTermination']) expect(schema.body.components.schemas[c]).toBeDefined();
  });
});
