import { bootStack, eventually, type Client, type Stack } from '@inventory/testkit';
import { createService as ipam } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

type Obj = Record<string, any>;

/** NetBox 3.7's vpn app (served by ipam under /api/vpn/): what the contract suite does not check. */
let stack: Stack;
let api: Client;
let dcimApi: Client;
let virt: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, virtualization, ipam }, {}, { template: true });
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
/** A representation with its urls' origins left out (each service of the stack answers on its own port). */
const paths = (o: unknown) => JSON.parse(JSON.stringify(o).replace(/https?:\/\/[^/"]+/g, ''));
let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}`;

/** A device at a site (in a region), with one interface; a VM with one interface. */
async function fixtures() {
  const region = await made('/api/dcim/regions/', { name: uniq('region'), slug: uniq('region') }, dcimApi);
  const site = await made('/api/dcim/sites/', { name: uniq('site'), slug: uniq('site'), region: region.id }, dcimApi);
  const manufacturer = await made('/api/dcim/manufacturers/', { name: uniq('maker'), slug: uniq('maker') }, dcimApi);
  const type = await made('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: uniq('model'), slug: uniq('model') }, dcimApi);
  const role = await made('/api/dcim/device-roles/', { name: uniq('role'), slug: uniq('role') }, dcimApi);
  const device = await made('/api/dcim/devices/', { name: uniq('device'), device_type: type.id, role: role.id, site: site.id }, dcimApi);
  const iface = await made('/api/dcim/interfaces/', { device: device.id, name: uniq('eth'), type: 'virtual' }, dcimApi);
  const ctype = await made('/api/virtualization/cluster-types/', { name: uniq('ctype'), slug: uniq('ctype') }, virt);
  const cluster = await made('/api/virtualization/clusters/', { name: uniq('cluster'), type: ctype.id, site: site.id }, virt);
  const vm = await made('/api/virtualization/virtual-machines/', { name: uniq('vm'), cluster: cluster.id, site: site.id }, virt);
  const vmIface = await made('/api/virtualization/interfaces/', { virtual_machine: vm.id, name: uniq('veth') }, virt);
  return { region, site, device, iface, vm, vmIface };
}

describe('the vpn area', () => {
  test('when /api/vpn/ is read, then it lists the ten endpoints', async () => {
    const r = await api.get('/api/vpn/');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(
      ['ike-policies', 'ike-proposals', 'ipsec-policies', 'ipsec-profiles', 'ipsec-proposals', 'l2vpn-terminations', 'l2vpns', 'tunnel-groups', 'tunnel-terminations', 'tunnels'].sort(),
    );
    expect(r.body.tunnels).toMatch(/\/api\/vpn\/tunnels\/$/);
  });

  test('when objects are read, then their keys are NetBox 3.7.8 serializers\' fields, in order', async () => {
    const proposal = await made('/api/vpn/ike-proposals/', { name: uniq('ikep'), authentication_method: 'certificates', encryption_algorithm: 'aes-128-gcm', group: 19 });
    expect(Object.keys(proposal)).toEqual([
      'id', 'url', 'display', 'name', 'description', 'authentication_method', 'encryption_algorithm', 'authentication_algorithm', 'group', 'sa_lifetime', 'comments', 'tags', 'custom_fields', 'created', 'last_updated',
    ]);
    expect(proposal.group).toEqual({ value: 19, label: 'Group 19' });
    expect(proposal.authentication_algorithm).toBeNull();
    const policy = await made('/api/vpn/ike-policies/', { name: uniq('ike'), proposals: [proposal.id] });
    expect(Object.keys(policy)).toEqual(['id', 'url', 'display', 'name', 'description', 'version', 'mode', 'proposals', 'preshared_key', 'comments', 'tags', 'custom_fields', 'created', 'last_updated']);
    expect(policy.version).toEqual({ value: 2, label: 'IKEv2' });
    expect(policy.proposals).toEqual([{ id: proposal.id, url: proposal.url, display: proposal.display, name: proposal.name }]);
    const group = await made('/api/vpn/tunnel-groups/', { name: uniq('tg'), slug: uniq('tg') });
    expect(Object.keys(group)).toEqual(['id', 'url', 'display', 'name', 'slug', 'description', 'tags', 'custom_fields', 'created', 'last_updated', 'tunnel_count']);
    const tunnel = await made('/api/vpn/tunnels/', { name: uniq('tunnel'), encapsulation: 'ipsec-tunnel', group: group.id });
    expect(Object.keys(tunnel)).toEqual([
      'id', 'url', 'display', 'name', 'status', 'group', 'encapsulation', 'ipsec_profile', 'tenant', 'tunnel_id', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated',
    ]);
    expect(tunnel.status).toEqual({ value: 'active', label: 'Active' });
    // nested in a tunnel, as NetBox's (whose queryset does not count them there): no tunnel_count
    expect(tunnel.group).toEqual({ id: group.id, url: group.url, display: group.display, name: group.name, slug: group.slug });
    expect((await api.get(`/api/vpn/tunnel-groups/${group.id}/`)).body.tunnel_count).toBe(1);
    const l2vpn = await made('/api/vpn/l2vpns/', { name: uniq('l2'), slug: uniq('l2'), type: 'vxlan', identifier: 77 });
    expect(Object.keys(l2vpn)).toEqual([
      'id', 'url', 'display', 'identifier', 'name', 'slug', 'type', 'import_targets', 'export_targets', 'description', 'comments', 'tenant', 'tags', 'custom_fields', 'created', 'last_updated',
    ]);
    expect(l2vpn.display).toBe(`${l2vpn.name} (77)`);
    const brief = await api.get(`/api/vpn/l2vpns/${l2vpn.id}/?brief=1`);
    expect(Object.keys(brief.body)).toEqual(['id', 'url', 'display', 'identifier', 'name', 'slug', 'type']);
  });
});

describe('tunnel terminations', () => {
  test('when an interface terminates a tunnel, then it reads nested, its display names the tunnel, and a second termination of it is refused', async () => {
    const { iface, vmIface } = await fixtures();
    const tunnel = await made('/api/vpn/tunnels/', { name: uniq('tunnel'), encapsulation: 'gre' });
    const other = await made('/api/vpn/tunnels/', { name: uniq('tunnel'), encapsulation: 'gre' });
    const address = await made('/api/ipam/ip-addresses/', { address: '198.51.100.7/24' });
    const t = await made('/api/vpn/tunnel-terminations/', { tunnel: tunnel.id, role: 'hub', termination_type: 'dcim.interface', termination_id: iface.id, outside_ip: address.id });
    expect(Object.keys(t)).toEqual(['id', 'url', 'display', 'tunnel', 'role', 'termination_type', 'termination_id', 'termination', 'outside_ip', 'tags', 'custom_fields', 'created', 'last_updated']);
    expect(t.display).toBe(`${tunnel.name}: Termination ${t.id}`);
    expect(t.termination).toMatchObject({ id: iface.id, name: iface.name });
    expect(t.outside_ip).toMatchObject({ id: address.id, address: '198.51.100.7/24' });
    expect(t.role).toEqual({ value: 'hub', label: 'Hub' });
    const again = await api.post('/api/vpn/tunnel-terminations/', { tunnel: other.id, termination_type: 'dcim.interface', termination_id: iface.id });
    expect(again.status).toBe(400);
    const brief = await api.get(`/api/vpn/tunnel-terminations/${t.id}/?brief=1`);
    expect(brief.body).toEqual({ id: t.id, url: t.url, display: t.display });
    // filters by the interface, by name or id, and by the outside IP
    const vm = await made('/api/vpn/tunnel-terminations/', { tunnel: other.id, termination_type: 'virtualization.vminterface', termination_id: vmIface.id });
    const ids = async (q: string) => ((await api.get(`/api/vpn/tunnel-terminations/?${q}`)).body.results as Obj[]).map((x) => x.id).sort();
    expect(await ids(`interface_id=${iface.id}`)).toEqual([t.id]);
    expect(await ids(`interface=${iface.name}`)).toEqual([t.id]);
    expect(await ids(`vminterface_id=${vmIface.id}`)).toEqual([vm.id]);
    expect(await ids(`outside_ip_id=${address.id}`)).toEqual([t.id]);
    expect((await api.get('/api/vpn/tunnel-terminations/?interface_id=999999')).status).toBe(400);
    // the outside IP is protected while used
    expect((await api.delete(`/api/ipam/ip-addresses/${address.id}/`)).status).toBe(409);
    // deleting the tunnel deletes its terminations
    expect((await api.delete(`/api/vpn/tunnels/${tunnel.id}/`)).status).toBe(204);
    expect((await api.get(`/api/vpn/tunnel-terminations/${t.id}/`)).status).toBe(404);
  });

  test('when the interface is deleted, then its termination goes with it', async () => {
    const { vmIface } = await fixtures();
    const tunnel = await made('/api/vpn/tunnels/', { name: uniq('tunnel'), encapsulation: 'gre' });
    const t = await made('/api/vpn/tunnel-terminations/', { tunnel: tunnel.id, termination_type: 'virtualization.vminterface', termination_id: vmIface.id });
    expect((await virt.delete(`/api/virtualization/interfaces/${vmIface.id}/`)).status).toBe(204);
    await eventually(async () => (await api.get(`/api/vpn/tunnel-terminations/${t.id}/`)).status === 404, 15_000, 'the termination deleted with its interface');
  });
});

describe('crypto', () => {
  test('when an IKE proposal is listed by a policy, then ike_policy(_id) find it; a profile protects its policies', async () => {
    const p1 = await made('/api/vpn/ike-proposals/', { name: uniq('ikep'), authentication_method: 'certificates', encryption_algorithm: 'aes-128-gcm', group: 19 });
    const p2 = await made('/api/vpn/ike-proposals/', { name: uniq('ikep'), authentication_method: 'certificates', encryption_algorithm: 'aes-128-gcm', group: 20 });
    const policy = await made('/api/vpn/ike-policies/', { name: uniq('ike'), version: 1, mode: 'main', proposals: [p1.id] });
    const found = await api.get(`/api/vpn/ike-proposals/?ike_policy_id=${policy.id}`);
    expect(found.body.results.map((x: Obj) => x.id)).toEqual([p1.id]);
    expect((await api.get(`/api/vpn/ike-proposals/?ike_policy=${encodeURIComponent(policy.name)}`)).body.results.map((x: Obj) => x.id)).toEqual([p1.id]);
    const excluded = (await api.get(`/api/vpn/ike-proposals/?ike_policy_id__n=${policy.id}&id=${p1.id}&id=${p2.id}`)).body.results.map((x: Obj) => x.id);
    expect(excluded).toEqual([p2.id]);
    expect((await api.get('/api/vpn/ike-proposals/?ike_policy_id=999999')).status).toBe(400);
    const ipsec = await made('/api/vpn/ipsec-proposals/', { name: uniq('ipsecp'), authentication_algorithm: 'hmac-sha256' });
    const ipsecPolicy = await made('/api/vpn/ipsec-policies/', { name: uniq('ipsec'), proposals: [ipsec.id] });
    expect(ipsecPolicy.pfs_group).toBeNull();
    const profile = await made('/api/vpn/ipsec-profiles/', { name: uniq('profile'), mode: 'esp', ike_policy: policy.id, ipsec_policy: ipsecPolicy.id });
    expect(profile.ike_policy).toEqual({ id: policy.id, url: policy.url, display: policy.display, name: policy.name });
    expect((await api.delete(`/api/vpn/ike-policies/${policy.id}/`)).status).toBe(409);
  });

  test('when an IKE policy breaks NetBox\'s rules of version and mode, then the messages are NetBox\'s', async () => {
    expect((await api.post('/api/vpn/ike-policies/', { name: uniq('ike'), version: 1 })).body).toEqual({ __all__: ['Mode is required for selected IKE version'] });
    expect((await api.post('/api/vpn/ike-policies/', { name: uniq('ike'), version: 2, mode: 'aggressive' })).body).toEqual({ __all__: ['Mode cannot be used for selected IKE version'] });
    expect((await api.post('/api/vpn/ipsec-proposals/', { name: uniq('ipsecp') })).body).toEqual({ __all__: ['Encryption and/or authentication algorithm must be defined'] });
  });
});

describe('L2VPN terminations', () => {
  test('when a VLAN, an interface and a VM interface terminate an L2VPN, then they read nested and every filter of NetBox\'s finds them', async () => {
    const { region, site, device, iface, vm, vmIface } = await fixtures();
    const l2vpn = await made('/api/vpn/l2vpns/', { name: uniq('l2'), slug: uniq('l2'), type: 'vxlan-evpn', identifier: 4242 });
    const vlan = await made('/api/ipam/vlans/', { vid: 242, name: uniq('vlan'), site: site.id });
    const tv = await made('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
    const ti = await made('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
    const tm = await made('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'virtualization.vminterface', assigned_object_id: vmIface.id });
    expect(Object.keys(tv)).toEqual(['id', 'url', 'display', 'l2vpn', 'assigned_object_type', 'assigned_object_id', 'assigned_object', 'tags', 'custom_fields', 'created', 'last_updated']);
    expect(tv.display).toBe(`${vlan.name} (242) <> ${l2vpn.name} (4242)`);
    expect(tv.assigned_object).toMatchObject({ id: vlan.id, vid: 242, name: vlan.name });
    expect((await api.get(`/api/vpn/l2vpn-terminations/${tv.id}/?brief=1`)).body).toEqual({ id: tv.id, url: tv.url, display: tv.display, l2vpn: tv.l2vpn });
    expect(ti.display).toBe(`${iface.name} <> ${l2vpn.name} (4242)`);
    expect(tv.l2vpn).toEqual({ id: l2vpn.id, url: l2vpn.url, display: l2vpn.display, identifier: 4242, name: l2vpn.name, slug: l2vpn.slug, type: { value: 'vxlan-evpn', label: 'VXLAN-EVPN' } });
    const ids = async (q: string) => ((await api.get(`/api/vpn/l2vpn-terminations/?l2vpn_id=${l2vpn.id}&${q}`)).body.results as Obj[]).map((x) => x.id).sort((a, b) => a - b);
    const all = [tv.id, ti.id, tm.id].sort((a, b) => a - b);
    expect(await ids(`site_id=${site.id}`)).toEqual(all);
    expect(await ids(`site=${site.slug}`)).toEqual(all);
    expect(await ids(`region_id=${region.id}`)).toEqual(all);
    expect(await ids(`region=${region.slug}`)).toEqual(all);
    expect(await ids(`device_id=${device.id}`)).toEqual([ti.id]);
    expect(await ids(`device=${device.name}`)).toEqual([ti.id]);
    expect(await ids(`virtual_machine_id=${vm.id}`)).toEqual([tm.id]);
    expect(await ids(`virtual_machine=${vm.name}`)).toEqual([tm.id]);
    expect(await ids(`interface_id=${iface.id}`)).toEqual([ti.id]);
    expect(await ids(`vminterface=${vmIface.name}`)).toEqual([tm.id]);
    expect(await ids(`vlan_id=${vlan.id}`)).toEqual([tv.id]);
    expect(await ids(`vlan=${vlan.name}`)).toEqual([tv.id]);
    expect(await ids('vlan_vid=242')).toEqual([tv.id]);
    expect(await ids('vlan_vid__gt=242')).toEqual([]);
    expect(await ids('assigned_object_type=ipam.vlan')).toEqual([tv.id]);
    const ct = (await stack.client('extras').get('/api/extras/content-types/?app_label=ipam&model=vlan')).body.results[0];
    expect(await ids(`assigned_object_type_id=${ct.id}`)).toEqual([tv.id]);
    expect(await ids(`assigned_object_type_id__n=${ct.id}`)).toEqual([ti.id, tm.id].sort((a, b) => a - b));
    expect(await ids('site_id=999999')).toEqual([]);
    expect((await api.get('/api/vpn/l2vpn-terminations/?device_id=999999')).status).toBe(400);

    // the VLAN shows its termination, and VLANs filter by L2VPN (id, or identifier)
    const read = (await api.get(`/api/ipam/vlans/${vlan.id}/`)).body;
    expect(read.l2vpn_termination).toEqual({ id: tv.id, url: tv.url, display: tv.display, l2vpn: tv.l2vpn });
    expect((await api.get(`/api/ipam/vlans/?l2vpn_id=${l2vpn.id}`)).body.results.map((x: Obj) => x.id)).toEqual([vlan.id]);
    expect((await api.get('/api/ipam/vlans/?l2vpn=4242')).body.results.map((x: Obj) => x.id)).toEqual([vlan.id]);
    expect((await api.get('/api/ipam/vlans/?l2vpn=999999')).status).toBe(400);

    // dcim's interfaces and virtualization's VM interfaces show theirs (from their projections) and filter by L2VPN
    expect(paths((await dcimApi.get(`/api/dcim/interfaces/${iface.id}/`)).body.l2vpn_termination)).toEqual(paths({ id: ti.id, url: ti.url, display: ti.display, l2vpn: ti.l2vpn }));
    expect(paths((await virt.get(`/api/virtualization/interfaces/${vmIface.id}/`)).body.l2vpn_termination)).toEqual(paths({ id: tm.id, url: tm.url, display: tm.display, l2vpn: tm.l2vpn }));
    expect((await dcimApi.get(`/api/dcim/interfaces/?l2vpn_id=${l2vpn.id}`)).body.results.map((x: Obj) => x.id)).toEqual([iface.id]);
    expect((await dcimApi.get('/api/dcim/interfaces/?l2vpn=4242')).body.results.map((x: Obj) => x.id)).toEqual([iface.id]);
    expect((await virt.get(`/api/virtualization/interfaces/?l2vpn_id=${l2vpn.id}`)).body.results.map((x: Obj) => x.id)).toEqual([vmIface.id]);
    expect((await virt.get('/api/virtualization/interfaces/?l2vpn=4242')).body.results.map((x: Obj) => x.id)).toEqual([vmIface.id]);
    expect((await virt.get(`/api/virtualization/interfaces/?l2vpn_id__n=${l2vpn.id}&id=${vmIface.id}`)).body.results).toEqual([]);
    expect((await dcimApi.get('/api/dcim/interfaces/?l2vpn_id=999999')).status).toBe(400);
    // a renamed L2VPN reads renamed there too
    const renamed = (await api.patch(`/api/vpn/l2vpns/${l2vpn.id}/`, { name: `${l2vpn.name} renamed` })).body;
    await eventually(async () => (await dcimApi.get(`/api/dcim/interfaces/${iface.id}/`)).body.l2vpn_termination?.l2vpn?.name === renamed.name, 15_000, 'the new name in dcim');
    const shown = (await dcimApi.get(`/api/dcim/interfaces/${iface.id}/`)).body.l2vpn_termination;
    expect(shown.display).toBe(`${iface.name} <> ${renamed.name} (4242)`);
    expect(paths(shown.l2vpn)).toEqual(paths({ id: l2vpn.id, url: l2vpn.url, display: renamed.display, identifier: 4242, name: renamed.name, slug: l2vpn.slug, type: l2vpn.type }));
    expect((await api.get(`/api/vpn/l2vpn-terminations/${ti.id}/`)).body.display).toBe(shown.display);

    // one termination per object
    const dup = await api.post('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
    expect(dup.status).toBe(400);

    // deleting the VLAN deletes its termination
    expect((await api.delete(`/api/ipam/vlans/${vlan.id}/`)).status).toBe(204);
    expect((await api.get(`/api/vpn/l2vpn-terminations/${tv.id}/`)).status).toBe(404);
    // deleting a termination clears the interface's
    expect((await api.delete(`/api/vpn/l2vpn-terminations/${tm.id}/`)).status).toBe(204);
    expect((await virt.get(`/api/virtualization/interfaces/${vmIface.id}/`)).body.l2vpn_termination).toBeNull();
  });

  test('when a point-to-point L2VPN has two terminations, then a third is refused with NetBox\'s message', async () => {
    const l2vpn = await made('/api/vpn/l2vpns/', { name: uniq('l2'), slug: uniq('l2'), type: 'vpws' });
    for (const vid of [301, 302]) {
      const vlan = await made('/api/ipam/vlans/', { vid, name: uniq('vlan') });
      await made('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
    }
    const vlan = await made('/api/ipam/vlans/', { vid: 303, name: uniq('vlan') });
    const third = await api.post('/api/vpn/l2vpn-terminations/', { l2vpn: l2vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
    expect(third.status).toBe(400);
    expect(third.body).toEqual({ __all__: ['VPWS L2VPNs cannot have more than two terminations; found 2 already defined.'] });
  });
});

describe('other services', () => {
  test('when a contact is assigned to an L2VPN, then tenancy shows it nested, and deleting the L2VPN deletes the assignment', async () => {
    const ten = stack.client('tenancy');
    const l2vpn = await made('/api/vpn/l2vpns/', { name: uniq('l2'), slug: uniq('l2'), type: 'evpl' });
    const contact = await made('/api/tenancy/contacts/', { name: uniq('contact') }, ten);
    const role = await made('/api/tenancy/contact-roles/', { name: uniq('crole'), slug: uniq('crole') }, ten);
    const a = await made('/api/tenancy/contact-assignments/', { content_type: 'vpn.l2vpn', object_id: l2vpn.id, contact: contact.id, role: role.id }, ten);
    expect(paths(a.object)).toEqual(paths({ id: l2vpn.id, url: l2vpn.url, display: l2vpn.display, identifier: null, name: l2vpn.name, slug: l2vpn.slug, type: l2vpn.type }));
    expect((await api.delete(`/api/vpn/l2vpns/${l2vpn.id}/`)).status).toBe(204);
    await eventually(async () => (await ten.get(`/api/tenancy/contact-assignments/${a.id}/`)).status === 404, 15_000, 'the assignment deleted with its L2VPN');
  });

  test('when vpn objects are written, then the change log names them by their vpn content types', async () => {
    const ex = stack.client('extras');
    const group = await made('/api/vpn/tunnel-groups/', { name: uniq('tg'), slug: uniq('tg') });
    await eventually(
      async () => (await ex.get(`/api/extras/object-changes/?changed_object_type=vpn.tunnelgroup&changed_object_id=${group.id}`)).body.count === 1,
      15_000,
      'the change recorded',
    );
    const change = (await ex.get(`/api/extras/object-changes/?changed_object_type=vpn.tunnelgroup&changed_object_id=${group.id}`)).body.results[0];
    expect(change).toMatchObject({ action: { value: 'create' }, changed_object_type: 'vpn.tunnelgroup', changed_object_id: group.id });
    expect(change.display).toContain(`VPN | tunnel group ${group.name} created`);
  });
});
