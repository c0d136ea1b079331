import { eventually } from '@inventory/testkit';
import { virtualizationSuite, type Obj } from './stack';

const suite = virtualizationSuite();
const { made } = suite;
const dcim = () => suite.stack().client('dcim');
const V = '/api/virtualization';

let n = 0;
/** A dcim site of its own (in a region or site group when given). */
const aSite = (extra: Obj = {}) => {
  n++;
  return made('/api/dcim/sites/', { name: `VM site ${n}`, slug: `vm-site-${n}`, ...extra }, dcim());
};
const aType = () => {
  n++;
  return made(`${V}/cluster-types/`, { name: `Type ${n}`, slug: `type-${n}` });
};
const aCluster = async (extra: Obj = {}) => {
  n++;
  return made(`${V}/clusters/`, { name: `Cluster ${n}`, type: (await aType()).id, ...extra });
};
const aMachine = async (extra: Obj = {}) => {
  n++;
  return made(`${V}/virtual-machines/`, { name: `vm-${n}`, ...extra });
};
const get = async (path: string) => {
  const r = await suite.api().get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body;
};
const ids = (list: Obj[]) => list.map((o) => o.id).sort((a, b) => a - b);

describe('virtual machines, sites and clusters', () => {
  test('when a machine is created in a cluster without a site, then it takes the cluster\'s site (or none)', async () => {
    const site = await aSite();
    const inSite = await aCluster({ site: site.id });
    const nowhere = await aCluster();
    const vm = await aMachine({ cluster: inSite.id });
    expect(vm.site).toMatchObject({ id: site.id, name: site.name, slug: site.slug });
    expect(vm.cluster).toMatchObject({ id: inSite.id, name: inSite.name });
    const floating = await aMachine({ cluster: nowhere.id });
    expect(floating.site).toBeNull();
    // a machine with a site and no cluster keeps it; the site's region scope filters find it
    const alone = await aMachine({ site: site.id });
    expect(alone.site.id).toBe(site.id);
    expect(ids((await get(`${V}/virtual-machines/?site_id=${site.id}`)).results)).toEqual(ids([vm, alone]));
  });

  test('when site and cluster disagree, or neither is given, then NetBox\'s messages refuse the machine', async () => {
    const site = await aSite();
    const other = await aSite();
    const cluster = await aCluster({ site: site.id });
    const nowhere = await aCluster();
    const api = suite.api();
    const mismatch = await api.post(`${V}/virtual-machines/`, { name: 'mismatch', site: other.id, cluster: cluster.id });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({ cluster: [`The selected cluster (${cluster.name}) is not assigned to this site (${other.name}).`] });
    const siteless = await api.post(`${V}/virtual-machines/`, { name: 'siteless', site: site.id, cluster: nowhere.id });
    expect(siteless.body).toEqual({ cluster: [`The selected cluster (${nowhere.name}) is not assigned to this site (${site.name}).`] });
    const neither = await api.post(`${V}/virtual-machines/`, { name: 'neither' });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ cluster: ['A virtual machine must be assigned to a site and/or cluster.'] });
    // a machine moved to a cluster of another site keeps its site: refused on update too
    const vm = await aMachine({ cluster: cluster.id });
    const moved = await api.patch(`${V}/virtual-machines/${vm.id}/`, { cluster: (await aCluster({ site: other.id })).id });
    expect(moved.body).toEqual({ cluster: [expect.stringMatching(/^The selected cluster \(Cluster \d+\) is not assigned to this site \(VM site \d+\)\.$/)] });
  });

  test('when a role is not a VM role, then the machine is refused as NetBox refuses it', async () => {
    const site = await aSite();
    const router = await made('/api/dcim/device-roles/', { name: 'Router only', slug: 'router-only', vm_role: false }, dcim());
    const server = await made('/api/dcim/device-roles/', { name: 'Server', slug: 'server', vm_role: true }, dcim());
    const bad = await suite.api().post(`${V}/virtual-machines/`, { name: 'routed', site: site.id, role: router.id });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ role: [`device role instance with id ${router.id} does not exist.`] });
    const vm = await aMachine({ site: site.id, role: server.id });
    expect(vm.role).toMatchObject({ id: server.id, slug: 'server' });
  });

  test('when names repeat, then they are unique per cluster case-insensitively, and not among machines without a cluster', async () => {
    const site = await aSite();
    const cluster = await aCluster({ site: site.id });
    await aMachine({ name: 'Web01', cluster: cluster.id });
    const again = await suite.api().post(`${V}/virtual-machines/`, { name: 'web01', cluster: cluster.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ __all__: ['Virtual machine name must be unique per cluster.'] });
    await aMachine({ name: 'Solo', site: site.id });
    await aMachine({ name: 'solo', site: site.id });
    expect((await get(`${V}/virtual-machines/?name=SOLO`)).count).toBe(2);
    expect((await get(`${V}/virtual-machines/?name__n=Solo&site_id=${site.id}`)).results.map((o: Obj) => o.name).sort()).toEqual(['Web01', 'solo']);
  });
});

describe('counts and the disk total', () => {
  test('when interfaces and virtual disks are added, changed and deleted, then counts and the disk total follow as in NetBox', async () => {
    const site = await aSite();
    const cluster = await aCluster({ site: site.id });
    const vm = await aMachine({ cluster: cluster.id });
    expect(vm).toMatchObject({ disk: null, interface_count: 0, virtual_disk_count: 0 });
    await made(`${V}/interfaces/`, [
      { virtual_machine: vm.id, name: 'eth0' },
      { virtual_machine: vm.id, name: 'eth1' },
    ]);
    // one bulk create: the total counts every disk of the request
    const disks = await made(`${V}/virtual-disks/`, [
      { virtual_machine: vm.id, name: 'root', size: 10 },
      { virtual_machine: vm.id, name: 'data', size: 20 },
    ]);
    expect(disks[0]).toMatchObject({ virtual_machine: { id: vm.id, name: vm.name }, name: 'root', size: 10 });
    expect(await get(`${V}/virtual-machines/${vm.id}/`)).toMatchObject({ disk: 30, interface_count: 2, virtual_disk_count: 2 });

    const api = suite.api();
    expect((await api.patch(`${V}/virtual-disks/${disks[1].id}/`, { size: 25 })).status).toBe(200);
    expect((await get(`${V}/virtual-machines/${vm.id}/`)).disk).toBe(35);
    // a disk size other than the disks' total is refused; null takes the total
    const wrong = await api.patch(`${V}/virtual-machines/${vm.id}/`, { disk: 99 });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ disk: ['The specified disk size (99) must match the aggregate size of assigned virtual disks (35).'] });
    expect((await api.patch(`${V}/virtual-machines/${vm.id}/`, { disk: null })).body.disk).toBe(35);
    expect((await api.delete(`${V}/virtual-disks/${disks[0].id}/`)).status).toBe(204);
    expect(await get(`${V}/virtual-machines/${vm.id}/`)).toMatchObject({ disk: 25, virtual_disk_count: 1 });
    // a disk moved to another machine leaves both totals right
    const other = await aMachine({ cluster: cluster.id, disk: 500 });
    expect((await api.patch(`${V}/virtual-disks/${disks[1].id}/`, { virtual_machine: other.id })).status).toBe(200);
    expect(await get(`${V}/virtual-machines/${vm.id}/`)).toMatchObject({ disk: null, virtual_disk_count: 0 });
    expect(await get(`${V}/virtual-machines/${other.id}/`)).toMatchObject({ disk: 25, virtual_disk_count: 1 });
    // without disks a machine's disk is its own to set
    expect((await api.patch(`${V}/virtual-machines/${vm.id}/`, { disk: 77 })).body.disk).toBe(77);
    // the machine's new total is a change of its own: its event carries it
    const changes = await api.get(`${V}/virtual-machines/?id=${other.id}&updated_by_request=${(await api.patch(`${V}/virtual-disks/${disks[1].id}/`, { size: 26 })).headers.get('x-request-id')}`);
    expect(changes.body.count).toBe(1);
  });

  test('when clusters hold machines, then cluster, type and group counts follow, and dcim counts them too', async () => {
    const region = await made('/api/dcim/regions/', { name: 'Count region', slug: 'count-region' }, dcim());
    const site = await aSite({ region: region.id });
    const type = await aType();
    const group = await made(`${V}/cluster-groups/`, { name: 'Count group', slug: 'count-group' });
    const cluster = await made(`${V}/clusters/`, { name: 'Counted', type: type.id, group: group.id, site: site.id });
    const role = await made('/api/dcim/device-roles/', { name: 'Counted role', slug: 'counted-role' }, dcim());
    const platform = await made('/api/dcim/platforms/', { name: 'Counted platform', slug: 'counted-platform' }, dcim());
    await aMachine({ cluster: cluster.id, role: role.id, platform: platform.id });
    await aMachine({ cluster: cluster.id });
    // a machine of the site in no cluster: NetBox's site count is by the cluster's site
    await aMachine({ site: site.id, role: role.id });
    expect(await get(`${V}/clusters/${cluster.id}/`)).toMatchObject({ virtualmachine_count: 2, device_count: 0 });
    expect((await get(`${V}/clusters/${cluster.id}/?brief=1`)).virtualmachine_count).toBe(2);
    expect((await get(`${V}/cluster-types/${type.id}/`)).cluster_count).toBe(1);
    expect((await get(`${V}/cluster-groups/${group.id}/?brief=1`)).cluster_count).toBe(1);
    const counts = async () => {
      const [s, r, p] = await Promise.all(
        [`/api/dcim/sites/${site.id}/`, `/api/dcim/device-roles/${role.id}/`, `/api/dcim/platforms/${platform.id}/`].map(async (path) => (await dcim().get(path)).body),
      );
      return [s.virtualmachine_count, r.virtualmachine_count, p.virtualmachine_count];
    };
    let last: unknown[] = [];
    await eventually(async () => JSON.stringify((last = await counts())) === JSON.stringify([2, 2, 1]), 15_000, () => `dcim's counts [2, 2, 1], got ${JSON.stringify(last)}`);
  });
});

describe('VM interfaces', () => {
  test('when parent or bridge is on another machine or the interface itself, then NetBox\'s messages refuse it', async () => {
    const site = await aSite();
    const a = await aMachine({ site: site.id, name: 'parent-a' });
    const b = await aMachine({ site: site.id, name: 'parent-b' });
    const eth0 = await made(`${V}/interfaces/`, { virtual_machine: a.id, name: 'eth0' });
    const other = await made(`${V}/interfaces/`, { virtual_machine: b.id, name: 'eth9' });
    const api = suite.api();
    const foreignParent = await api.post(`${V}/interfaces/`, { virtual_machine: a.id, name: 'eth0.10', parent: other.id });
    expect(foreignParent.status).toBe(400);
    expect(foreignParent.body).toEqual({ parent: ['The selected parent interface (eth9) belongs to a different virtual machine (parent-b).'] });
    const foreignBridge = await api.post(`${V}/interfaces/`, { virtual_machine: a.id, name: 'br0', bridge: other.id });
    expect(foreignBridge.body).toEqual({ bridge: ['The selected bridge interface (eth9) belongs to a different virtual machine (parent-b).'] });
    expect((await api.patch(`${V}/interfaces/${eth0.id}/`, { parent: eth0.id })).body).toEqual({ parent: ['An interface cannot be its own parent.'] });
    expect((await api.patch(`${V}/interfaces/${eth0.id}/`, { bridge: eth0.id })).body).toEqual({ bridge: ['An interface cannot be bridged to itself.'] });

    const child = await made(`${V}/interfaces/`, { virtual_machine: a.id, name: 'eth0.10', parent: eth0.id });
    const br = await made(`${V}/interfaces/`, { virtual_machine: a.id, name: 'br0', bridge: eth0.id });
    expect(child.parent).toMatchObject({ id: eth0.id, name: 'eth0', virtual_machine: { id: a.id, name: 'parent-a' } });
    expect(ids((await get(`${V}/interfaces/?parent_id=${eth0.id}`)).results)).toEqual([child.id]);
    expect(ids((await get(`${V}/interfaces/?bridge_id=${eth0.id}`)).results)).toEqual([br.id]);
    // a parent with children cannot go alone (RESTRICT); the bridged interface loses its bridge
    const refused = await api.delete(`${V}/interfaces/${eth0.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: eth0.10 (${child.id})` });
    // parent and child in one bulk delete, or with their machine, go together
    expect((await api.delete(`${V}/interfaces/`, [{ id: eth0.id }, { id: child.id }])).status).toBe(204);
    expect((await get(`${V}/interfaces/${br.id}/`)).bridge).toBeNull();
    const p = await made(`${V}/interfaces/`, { virtual_machine: b.id, name: 'bond0' });
    await made(`${V}/interfaces/`, { virtual_machine: b.id, name: 'bond0.5', parent: p.id });
    expect((await api.delete(`${V}/virtual-machines/${b.id}/`)).status).toBe(204);
    expect((await get(`${V}/interfaces/?virtual_machine_id=${a.id}`)).results.map((o: Obj) => o.name)).toEqual(['br0']);
    expect((await api.get(`${V}/interfaces/${p.id}/`)).status).toBe(404);
  });

  test('when MAC addresses are written in any of netaddr\'s forms, then they read back upper-case with colons and filter', async () => {
    const vm = await aMachine({ site: (await aSite()).id, name: 'mac-host' });
    const forms = ['00-1a-2b-3c-4d-5e', '001a.2b3c.4d5f', '001a2b3c4d60', '0:1a:2b:3c:4d:61'];
    const made_ = await made(`${V}/interfaces/`, forms.map((mac, i) => ({ virtual_machine: vm.id, name: `eth${i}`, mac_address: mac })));
    expect(made_.map((o: Obj) => o.mac_address)).toEqual(['00:1A:2B:3C:4D:5E', '00:1A:2B:3C:4D:5F', '00:1A:2B:3C:4D:60', '00:1A:2B:3C:4D:61']);
    const bad = await suite.api().post(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'bad', mac_address: '00:1a:2b' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ mac_address: ['Invalid MAC address format: 00:1a:2b'] });
    expect(ids((await get(`${V}/interfaces/?mac_address=001a.2b3c.4d5e`)).results)).toEqual([made_[0].id]);
    expect((await get(`${V}/interfaces/?mac_address=zz`)).count).toBe(0);
    expect(ids((await get(`${V}/virtual-machines/?mac_address=00:1a:2b:3c:4d:60`)).results)).toEqual([vm.id]);
  });

  test('when an interface\'s 802.1Q mode is left blank, then it reads null with NetBox\'s defaults, and mode and enabled filter', async () => {
    const vm = await aMachine({ site: (await aSite()).id });
    const plain = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0' });
    const access = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth1', mode: 'access', mtu: 9000, enabled: false });
    expect(plain).toMatchObject({ count_ipaddresses: 0, mode: null, enabled: true, mtu: null, mac_address: null, untagged_vlan: null, tagged_vlans: [], vrf: null, parent: null, bridge: null });
    expect(access.mode).toEqual({ value: 'access', label: 'Access' });
    expect(ids((await get(`${V}/interfaces/?virtual_machine_id=${vm.id}&mode=access`)).results)).toEqual([access.id]);
    expect(ids((await get(`${V}/interfaces/?virtual_machine_id=${vm.id}&enabled=false`)).results)).toEqual([access.id]);
  });
});

describe('filters through clusters and sites', () => {
  test('when machines live in clusters of groups and types, then cluster_group, cluster_type and the interfaces\' cluster filters find them', async () => {
    const g1 = await made(`${V}/cluster-groups/`, { name: 'Filter group 1', slug: 'filter-group-1' });
    const g2 = await made(`${V}/cluster-groups/`, { name: 'Filter group 2', slug: 'filter-group-2' });
    const t1 = await made(`${V}/cluster-types/`, { name: 'Filter type 1', slug: 'filter-type-1' });
    const c1 = await made(`${V}/clusters/`, { name: 'Filter cluster 1', type: t1.id, group: g1.id });
    const c2 = await made(`${V}/clusters/`, { name: 'Filter cluster 2', type: (await aType()).id, group: g2.id });
    const v1 = await aMachine({ cluster: c1.id });
    const v2 = await aMachine({ cluster: c2.id });
    const i1 = await made(`${V}/interfaces/`, { virtual_machine: v1.id, name: 'eth0' });
    const d2 = await made(`${V}/virtual-disks/`, { virtual_machine: v2.id, name: 'root', size: 1 });
    expect(ids((await get(`${V}/virtual-machines/?cluster_group=filter-group-1`)).results)).toEqual([v1.id]);
    expect(ids((await get(`${V}/virtual-machines/?cluster_group_id=${g2.id}`)).results)).toEqual([v2.id]);
    expect(ids((await get(`${V}/virtual-machines/?cluster_type=filter-type-1`)).results)).toEqual([v1.id]);
    expect(ids((await get(`${V}/virtual-machines/?cluster_type_id=${t1.id}&cluster_group__n=filter-group-2`)).results)).toEqual([v1.id]);
    expect(ids((await get(`${V}/virtual-machines/?cluster=Filter cluster 2`)).results)).toEqual([v2.id]);
    expect(ids((await get(`${V}/interfaces/?cluster=Filter cluster 1`)).results)).toEqual([i1.id]);
    expect(ids((await get(`${V}/interfaces/?cluster_id=${c2.id}`)).results)).toEqual([]);
    expect(ids((await get(`${V}/virtual-disks/?cluster_id=${c2.id}`)).results)).toEqual([d2.id]);
    expect(ids((await get(`${V}/clusters/?group=filter-group-1&type=filter-type-1`)).results)).toEqual([c1.id]);
    const unknown = await suite.api().get(`${V}/virtual-machines/?cluster_group=nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ cluster_group: ['Select a valid choice. nope is not one of the available choices.'] });
  });

  test('when sites are in regions and site groups, then clusters and machines filter by them at any depth', async () => {
    const top = await made('/api/dcim/regions/', { name: 'Scope top', slug: 'scope-top' }, dcim());
    const sub = await made('/api/dcim/regions/', { name: 'Scope sub', slug: 'scope-sub', parent: top.id }, dcim());
    const sg = await made('/api/dcim/site-groups/', { name: 'Scope group', slug: 'scope-group' }, dcim());
    const deep = await aSite({ region: sub.id, group: sg.id });
    const flat = await aSite();
    const c = await aCluster({ site: deep.id });
    const inDeep = await aMachine({ cluster: c.id });
    const inFlat = await aMachine({ site: flat.id });
    // the regions reach virtualization's projection by their events
    const found = async (q: string) => {
      const r = await suite.api().get(`${V}/virtual-machines/?${q}&id=${inDeep.id}&id=${inFlat.id}`);
      return r.status === 200 ? ids(r.body.results) : r.status;
    };
    await eventually(async () => JSON.stringify(await found('region=scope-top')) === JSON.stringify([inDeep.id]), 15_000, 'region=scope-top');
    expect(await found(`region_id=${sub.id}`)).toEqual([inDeep.id]);
    expect(await found('site_group=scope-group')).toEqual([inDeep.id]);
    expect(await found(`region__n=scope-top`)).toEqual([inFlat.id]);
    expect(ids((await get(`${V}/clusters/?region=scope-top`)).results)).toEqual([c.id]);
    expect(ids((await get(`${V}/clusters/?site_group_id=${sg.id}`)).results)).toEqual([c.id]);
  });
});

describe('deletes across services', () => {
  test('when a dcim site is used by a cluster, then dcim refuses to delete it naming the cluster', async () => {
    const site = await aSite();
    const cluster = await aCluster({ site: site.id });
    const r = await dcim().delete(`/api/dcim/sites/${site.id}/`);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: ${cluster.name} (${cluster.id})` });
    expect((await dcim().get(`/api/dcim/sites/${site.id}/`)).status).toBe(200);
    // without the cluster the site goes
    expect((await suite.api().delete(`${V}/clusters/${cluster.id}/`)).status).toBe(204);
    expect((await dcim().delete(`/api/dcim/sites/${site.id}/`)).status).toBe(204);
  });

  test('when a platform is deleted, then machines on it lose it once virtualization consumes the event', async () => {
    const platform = await made('/api/dcim/platforms/', { name: 'Doomed platform', slug: 'doomed-platform' }, dcim());
    const vm = await aMachine({ site: (await aSite()).id, platform: platform.id });
    expect(vm.platform).toMatchObject({ id: platform.id, slug: 'doomed-platform' });
    expect((await dcim().delete(`/api/dcim/platforms/${platform.id}/`)).status).toBe(204);
    await eventually(async () => (await get(`${V}/virtual-machines/${vm.id}/`)).platform === null, 15_000, 'the platform cleared');
  });

  test('when a cluster type, group or cluster is in use, then its delete is refused naming what uses it', async () => {
    const type = await aType();
    const group = await made(`${V}/cluster-groups/`, { name: 'Busy group', slug: 'busy-group' });
    const cluster = await made(`${V}/clusters/`, { name: 'Busy', type: type.id, group: group.id });
    const vm = await aMachine({ cluster: cluster.id });
    const api = suite.api();
    expect((await api.delete(`${V}/cluster-types/${type.id}/`)).body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: Busy (${cluster.id})` });
    expect((await api.delete(`${V}/cluster-groups/${group.id}/`)).status).toBe(409);
    expect((await api.delete(`${V}/clusters/${cluster.id}/`)).body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: ${vm.name} (${vm.id})` });
    // a machine goes with its interfaces and disks
    const eth = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0' });
    const disk = await made(`${V}/virtual-disks/`, { virtual_machine: vm.id, name: 'root', size: 5 });
    expect((await api.delete(`${V}/virtual-machines/${vm.id}/`)).status).toBe(204);
    expect((await api.get(`${V}/interfaces/${eth.id}/`)).status).toBe(404);
    expect((await api.get(`${V}/virtual-disks/${disk.id}/`)).status).toBe(404);
  });
});

describe("ipam's VLANs and addresses, as virtualization's projections hold them (ipam is not served yet)", () => {
  /** Puts objects in virtualization's projection of an ipam model, as ipam's events would. */
  const project = async (label: string, records: { id: number; nested: Obj; data: Obj }[]) => {
    const pg = new (await import('pg')).default.Client({ connectionString: suite.stack().databaseUrl });
    await pg.connect();
    try {
      for (const r of records) {
        await pg.query(`INSERT INTO virtualization._proj_${label.replace('.', '_')} (id, version, nested, data) VALUES ($1, 1, $2, $3)`, [
          r.id,
          JSON.stringify(r.nested),
          JSON.stringify({ id: r.id, ...r.data }),
        ]);
      }
    } finally {
      await pg.end();
    }
  };
  const vlan = (id: number, vid: number, site: number | null) => ({
    id,
    nested: { id, url: `/api/ipam/vlans/${id}/`, display: `VLAN ${vid} (${vid})`, vid, name: `VLAN ${vid}` },
    data: { vid, name: `VLAN ${vid}`, site },
  });
  const address = (id: number, text: string, assigned: number | null, natInside: number | null = null) => ({
    id,
    nested: { id, url: `/api/ipam/ip-addresses/${id}/`, display: text, family: text.includes(':') ? 6 : 4, address: text },
    data: { address: text, assigned_object_type: assigned === null ? null : 'virtualization.vminterface', assigned_object_id: assigned, nat_inside: natInside },
  });

  test('when VLANs are of another site, then untagged and tagged assignments are refused; the 802.1Q mode clears them as NetBox does', async () => {
    const site = await aSite();
    const elsewhere = await aSite();
    const vm = await aMachine({ site: site.id, name: 'vlan-host' });
    await project('ipam.vlan', [vlan(9001, 10, site.id), vlan(9002, 20, null), vlan(9003, 30, elsewhere.id)]);
    const api = suite.api();
    const foreign = await api.post(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0', mode: 'access', untagged_vlan: 9003 });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({
      untagged_vlan: ["The untagged VLAN (VLAN 30 (30)) must belong to the same site as the interface's parent virtual machine, or it must be global."],
    });
    const taggedForeign = await api.post(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0', mode: 'tagged', tagged_vlans: [9001, 9003] });
    expect(taggedForeign.body).toEqual({ tagged_vlans: ["VLAN VLAN 30 (30) must belong to the same site as the interface's parent virtual machine, or it must be global."] });
    const trunk = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0', mode: 'tagged', untagged_vlan: 9001, tagged_vlans: [9001, 9002] });
    expect(trunk.untagged_vlan).toMatchObject({ id: 9001, vid: 10 });
    expect(trunk.tagged_vlans.map((v: Obj) => v.vid)).toEqual([10, 20]);
    expect(ids((await get(`${V}/interfaces/?vlan_id=9002`)).results)).toEqual([trunk.id]);
    expect(ids((await get(`${V}/interfaces/?vlan=10`)).results)).toEqual([trunk.id]);
    // a mode other than tagged drops the tagged VLANs; no mode drops the untagged one too
    expect((await api.patch(`${V}/interfaces/${trunk.id}/`, { mode: 'access' })).body).toMatchObject({ mode: { value: 'access' }, tagged_vlans: [], untagged_vlan: { id: 9001 } });
    expect((await api.patch(`${V}/interfaces/${trunk.id}/`, { mode: '' })).body).toMatchObject({ mode: null, untagged_vlan: null });
  });

  test('when primary addresses are set, then each must be of its family and on one of the machine\'s interfaces; primary_ip prefers IPv6', async () => {
    const vm = await aMachine({ site: (await aSite()).id, name: 'ip-host' });
    const other = await aMachine({ site: (await aSite()).id, name: 'ip-other' });
    const eth0 = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'eth0' });
    const far = await made(`${V}/interfaces/`, { virtual_machine: other.id, name: 'eth0' });
    await project('ipam.ipaddress', [
      address(9101, '192.0.2.10/24', eth0.id),
      address(9102, '2001:db8::10/64', eth0.id),
      address(9103, '192.0.2.99/24', far.id),
      address(9104, '198.51.100.10/24', null, 9101),
    ]);
    const api = suite.api();
    const wrongFamily = await api.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: 9102 });
    expect(wrongFamily.status).toBe(400);
    expect(wrongFamily.body).toEqual({ primary_ip4: ['Must be an IPv4 address. (2001:db8::10/64 is an IPv6 address.)'] });
    expect((await api.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: 9103 })).body).toEqual({
      primary_ip4: ['The specified IP address (192.0.2.99/24) is not assigned to this VM.'],
    });
    const v4 = (await api.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: 9101 })).body;
    expect(v4.primary_ip4).toMatchObject({ id: 9101, address: '192.0.2.10/24' });
    expect(v4.primary_ip).toEqual(v4.primary_ip4);
    const both = (await api.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip6: 9102 })).body;
    expect(both.primary_ip).toMatchObject({ id: 9102, family: 6 });
    // the NAT outside address of one of its addresses will do
    expect((await api.patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip4: 9104 })).status).toBe(200);
    expect(ids((await get(`${V}/virtual-machines/?has_primary_ip=true&id=${vm.id}&id=${other.id}`)).results)).toEqual([vm.id]);
    expect(ids((await get(`${V}/virtual-machines/?q=2001:db8::1&id=${vm.id}&id=${other.id}`)).results)).toEqual([vm.id]);
    expect((await get(`${V}/interfaces/${eth0.id}/`)).count_ipaddresses).toBe(2);
  });
});

describe("dcim's devices as hosts of clusters", () => {
  test('when a cluster has host devices, then device_count counts them, a machine\'s device must be one of them, the cluster keeps its hosts\' site, and its delete clears theirs', async () => {
    const site = await aSite();
    const other = await aSite();
    const cluster = await aCluster({ site: site.id });
    const elsewhere = await aCluster({ site: site.id });
    const maker = await made('/api/dcim/manufacturers/', { name: 'Host maker', slug: 'host-maker' }, dcim());
    const type = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Host type', slug: 'host-type' }, dcim());
    const role = await made('/api/dcim/device-roles/', { name: 'Hypervisor', slug: 'hypervisor' }, dcim());
    const host = (name: string, clusterId: number) => made('/api/dcim/devices/', { name, device_type: type.id, role: role.id, site: site.id, cluster: clusterId }, dcim());
    const host1 = await host('host-1', cluster.id);
    const host2 = await host('host-2', elsewhere.id);
    // the hosts reach virtualization's projection of dcim's devices by their events
    await eventually(async () => (await get(`${V}/clusters/${cluster.id}/`)).device_count === 1, 15_000, 'the cluster\'s device_count');
    const api = suite.api();
    const noCluster = await api.post(`${V}/virtual-machines/`, { name: 'hosted', site: site.id, device: host1.id });
    expect(noCluster.status).toBe(400);
    expect(noCluster.body).toEqual({ device: ['Must specify a cluster when assigning a host device.'] });
    await eventually(async () => (await get(`${V}/clusters/${elsewhere.id}/`)).device_count === 1, 15_000, 'the other cluster\'s device_count');
    const notHost = await api.post(`${V}/virtual-machines/`, { name: 'hosted', cluster: cluster.id, device: host2.id });
    expect(notHost.body).toEqual({ device: [`The selected device (host-2) is not assigned to this cluster (${cluster.name}).`] });
    const vm = await aMachine({ cluster: cluster.id, device: host1.id });
    expect(vm.device).toMatchObject({ id: host1.id, name: 'host-1' });
    expect(ids((await get(`${V}/virtual-machines/?device=host-1`)).results)).toEqual([vm.id]);
    expect(ids((await get(`${V}/virtual-machines/?device_id=${host1.id}`)).results)).toEqual([vm.id]);
    // the cluster cannot move away from its hosts' site
    const moved = await api.patch(`${V}/clusters/${elsewhere.id}/`, { site: other.id });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual({ site: [`1 devices are assigned as hosts for this cluster but are not in site ${other.name}`] });
    // a host that machines run on cannot go (PROTECT, asked of virtualization); a cluster's delete clears its hosts' cluster
    const refused = await dcim().delete(`/api/dcim/devices/${host1.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: ${vm.name} (${vm.id})` });
    expect((await api.delete(`${V}/clusters/${elsewhere.id}/`)).status).toBe(204);
    await eventually(async () => (await dcim().get(`/api/dcim/devices/${host2.id}/`)).body.cluster === null, 15_000, 'host-2\'s cluster cleared');
  });
});

describe('contacts', () => {
  test('when contacts are assigned to clusters and machines, then the Contacts filters find them, and the assignments go with the object', async () => {
    const tenancy = suite.stack().client('tenancy');
    const group = await made('/api/tenancy/contact-groups/', { name: 'Ops', slug: 'ops' }, tenancy);
    const contact = await made('/api/tenancy/contacts/', { name: 'Ada', group: group.id }, tenancy);
    const role = await made('/api/tenancy/contact-roles/', { name: 'Owner', slug: 'owner' }, tenancy);
    const cluster = await aCluster();
    const quiet = await aCluster();
    const vm = await aMachine({ cluster: cluster.id });
    const assigned = await made(
      '/api/tenancy/contact-assignments/',
      [
        { content_type: 'virtualization.cluster', object_id: cluster.id, contact: contact.id, role: role.id },
        { content_type: 'virtualization.virtualmachine', object_id: vm.id, contact: contact.id, role: role.id },
      ],
      tenancy,
    );
    expect(assigned[0].object).toMatchObject({ id: cluster.id, name: cluster.name });
    const found = async (path: string, q: string, among: number[]) => {
      const r = await suite.api().get(`${V}/${path}/?${q}&${among.map((id) => `id=${id}`).join('&')}`);
      return r.status === 200 ? ids(r.body.results) : r.status;
    };
    await eventually(async () => JSON.stringify(await found('clusters', `contact=${contact.id}`, [cluster.id, quiet.id])) === JSON.stringify([cluster.id]), 15_000, 'the cluster by contact');
    expect(await found('clusters', `contact_role=${role.id}`, [cluster.id, quiet.id])).toEqual([cluster.id]);
    await eventually(async () => JSON.stringify(await found('virtual-machines', `contact_group=${group.id}`, [vm.id])) === JSON.stringify([vm.id]), 15_000, 'the machine by contact group');
    // deleting the machine deletes its assignment (tenancy consumes the delete)
    expect((await suite.api().delete(`${V}/virtual-machines/${vm.id}/`)).status).toBe(204);
    await eventually(async () => (await tenancy.get(`/api/tenancy/contact-assignments/${assigned[1].id}/`)).status === 404, 15_000, 'the assignment deleted');
    expect((await tenancy.get(`/api/tenancy/contact-assignments/${assigned[0].id}/`)).status).toBe(200);
  });
});
