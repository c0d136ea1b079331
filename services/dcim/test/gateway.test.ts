import { bootStack, Client, eventually, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as dcim } from '@inventory/dcim';
import { createService as circuits } from '@inventory/circuits';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';

/**
 * The inventory as a NetBox client meets it, end to end through the gateway
 * with a token: devices placed by names, components from templates, cables
 * and their trace, config contexts, and deletes across services.
 */
const KEY = 'abcdef0123456789abcdef0123456789abcdef01';
let stack: Stack;
let gw: Client;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, circuits, virtualization, gateway: stackGateway() }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(() => stack?.stop());

type Obj = Record<string, any>;
async function made(path: string, body: Obj | Obj[]): Promise<any> {
  const r = await gw.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}

test('when a device is placed in a rack named by its name and its site name, then it is racked there with its components, and its interfaces cable and trace', async () => {
  const site = await made('/api/dcim/sites/', { name: 'E2E site', slug: 'e2e-site' });
  await made('/api/dcim/racks/', { name: 'R1', site: { name: 'E2E site' }, u_height: 42 });
  const other = await made('/api/dcim/sites/', { name: 'Other site', slug: 'other-site' });
  await made('/api/dcim/racks/', { name: 'R1', site: other.id });
  await made('/api/dcim/manufacturers/', { name: 'Acme', slug: 'acme' });
  const type = await made('/api/dcim/device-types/', { manufacturer: { slug: 'acme' }, model: 'Switch 4', slug: 'switch-4', u_height: 1 });
  await made('/api/dcim/interface-templates/', [1, 2, 3, 4].map((i) => ({ device_type: type.id, name: `ge-0/0/${i}`, type: '1000base-t' })));
  await made('/api/dcim/device-roles/', { name: 'Access', slug: 'access', color: '00ff00' });

  const body = (name: string, position: number) => ({
    name,
    device_type: { slug: 'switch-4' },
    device_role: { slug: 'access' },
    site: { name: 'E2E site' },
    rack: { name: 'R1', site: { name: 'E2E site' } },
    position,
    face: 'front',
  });
  const [a, b] = await made('/api/dcim/devices/', [body('sw-a', 10), body('sw-b', 11)]);
  expect(a).toMatchObject({ site: { id: site.id }, rack: { name: 'R1' }, position: 10, role: { slug: 'access' }, device_role: { slug: 'access' }, interface_count: 4 });
  expect(a.url).toBe(`${stack.urls.gateway}/api/dcim/devices/${a.id}/`);
  const ambiguous = await gw.post('/api/dcim/devices/', { ...body('sw-c', 20), rack: { name: 'R1' } });
  expect(ambiguous.status).toBe(400);
  expect(Object.keys(ambiguous.body)).toEqual(['rack']);

  const ifA = (await gw.get(`/api/dcim/interfaces/?device=sw-a&name=ge-0/0/1`)).body.results[0];
  const ifB = (await gw.get(`/api/dcim/interfaces/?device_id=${b.id}&name=ge-0/0/1`)).body.results[0];
  expect(ifA.device).toEqual({ id: a.id, url: a.url, display: 'sw-a', name: 'sw-a', display_name: 'sw-a' });
  const cable = await made('/api/dcim/cables/', {
    a_terminations: [{ object_type: 'dcim.interface', object_id: ifA.id }],
    b_terminations: [{ object_type: 'dcim.interface', object_id: ifB.id }],
    label: 'uplink',
  });
  const cabled = (await gw.get(`/api/dcim/interfaces/${ifA.id}/`)).body;
  expect(cabled).toMatchObject({ cable: { id: cable.id, label: 'uplink' }, cable_end: 'A', link_peers_type: 'dcim.interface', connected_endpoints_type: 'dcim.interface', connected_endpoints_reachable: true });
  expect(cabled.connected_endpoints.map((e: Obj) => e.id)).toEqual([ifB.id]);
  const trace = (await gw.get(`/api/dcim/interfaces/${ifA.id}/trace/`)).body;
  expect(trace).toHaveLength(1);
  expect(trace[0][0].map((e: Obj) => e.id)).toEqual([ifA.id]);
  expect(trace[0][1]).toMatchObject({ id: cable.id, label: 'uplink', status: 'connected' });
  expect(trace[0][2].map((e: Obj) => e.id)).toEqual([ifB.id]);
  const elevation = (await gw.get(`/api/dcim/racks/${a.rack.id}/elevation/?q=U1`)).body.results;
  expect(elevation.find((u: Obj) => u.name === 'U10').device).toMatchObject({ id: a.id });
});

test('when a site has a cluster, then deleting the site is refused naming it; a platform delete clears a virtual machine platform', async () => {
  const site = await made('/api/dcim/sites/', { name: 'Cluster site', slug: 'cluster-site' });
  const type = await made('/api/virtualization/cluster-types/', { name: 'VMware', slug: 'vmware' });
  const cluster = await made('/api/virtualization/clusters/', { name: 'C1', type: type.id, site: site.id });
  const refused = await gw.delete(`/api/dcim/sites/${site.id}/`);
  expect(refused.status).toBe(409);
  expect(refused.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: C1 (${cluster.id})`);
  const platform = await made('/api/dcim/platforms/', { name: 'ESXi guest', slug: 'esxi-guest' });
  const vm = await made('/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id, platform: platform.id });
  expect(vm.site).toMatchObject({ id: site.id });
  expect((await gw.delete(`/api/dcim/platforms/${platform.id}/`)).status).toBe(204);
  await eventually(async () => (await gw.get(`/api/virtualization/virtual-machines/${vm.id}/`)).body.platform === null, 15_000, 'the platform cleared on the machine');
});

test('when interfaces are cabled through a circuit, then the trace crosses it, its terminations show their cables, and paths/ through an end answers', async () => {
  const site = await made('/api/dcim/sites/', { name: 'Circuit site', slug: 'circuit-site' });
  const type = (await gw.get('/api/dcim/device-types/?slug=switch-4')).body.results[0];
  const [a, b] = await made('/api/dcim/devices/', ['edge-a', 'edge-b'].map((name) => ({ name, device_type: type.id, role: { slug: 'access' }, site: site.id })));
  const provider = await made('/api/circuits/providers/', { name: 'Carrier', slug: 'carrier' });
  const ctype = await made('/api/circuits/circuit-types/', { name: 'Transit', slug: 'transit' });
  const circuit = await made('/api/circuits/circuits/', { cid: 'CKT-1', provider: provider.id, type: ctype.id });
  const [termA, termZ] = await made('/api/circuits/circuit-terminations/', ['A', 'Z'].map((term_side) => ({ circuit: circuit.id, term_side, site: site.id })));
  const iface = async (device: number) => (await gw.get(`/api/dcim/interfaces/?device_id=${device}&name=ge-0/0/2`)).body.results[0];
  const [ifA, ifB] = [await iface(a.id), await iface(b.id)];
  // dcim knows circuits' terminations from their events: a cable may end on one once they have arrived
  let last = '';
  await eventually(async () => {
    const r = await gw.post('/api/dcim/cables/', {
      a_terminations: [{ object_type: 'dcim.interface', object_id: ifA.id }],
      b_terminations: [{ object_type: 'circuits.circuittermination', object_id: termA.id }],
    });
    if (r.status !== 201) last = r.text;
    return r.status === 201;
  }, 15_000, () => `a cable to the circuit termination (${last})`);
  const second = await made('/api/dcim/cables/', {
    a_terminations: [{ object_type: 'circuits.circuittermination', object_id: termZ.id }],
    b_terminations: [{ object_type: 'dcim.interface', object_id: ifB.id }],
  });
  const trace = (await gw.get(`/api/dcim/interfaces/${ifA.id}/trace/`)).body;
  expect(trace.map((seg: any[]) => [seg[0].map((o: Obj) => o.id), seg[2].map((o: Obj) => o.id)])).toEqual([
    [[ifA.id], [termA.id]],
    [[termZ.id], [ifB.id]],
  ]);
  expect(trace[1][1]).toMatchObject({ id: second.id });
  expect((await gw.get(`/api/dcim/interfaces/${ifA.id}/`)).body.connected_endpoints.map((e: Obj) => e.id)).toEqual([ifB.id]);

  // circuits shows the cable on its terminations once dcim's events have arrived
  await eventually(async () => (await gw.get(`/api/circuits/circuit-terminations/${termZ.id}/`)).body.cable?.id === second.id, 15_000, 'the cable on the termination');
  const z = (await gw.get(`/api/circuits/circuit-terminations/${termZ.id}/`)).body;
  expect(z).toMatchObject({ cable: { id: second.id, url: `${stack.urls.gateway}/api/dcim/cables/${second.id}/` }, cable_end: 'A', link_peers_type: 'dcim.interface', _occupied: true });
  expect(z.link_peers.map((p: Obj) => [p.id, p.name, p.url])).toEqual([[ifB.id, 'ge-0/0/2', `${stack.urls.gateway}/api/dcim/interfaces/${ifB.id}/`]]);
  expect(Object.keys(z).slice(-1)).toEqual(['_occupied']);
  const brief = (await gw.get(`/api/circuits/circuit-terminations/${termZ.id}/?brief=1`)).body;
  expect(brief).toMatchObject({ cable: second.id, _occupied: true });
  const cabled = (await gw.get(`/api/circuits/circuit-terminations/?circuit_id=${circuit.id}&cabled=true`)).body.results.map((t: Obj) => t.id);
  expect(cabled.sort()).toEqual([termA.id, termZ.id].sort());

  const paths = await gw.get(`/api/circuits/circuit-terminations/${termA.id}/paths/`);
  expect(paths.status).toBe(200);
  expect(paths.body.length).toBeGreaterThan(0);
  expect(paths.body[0]).toMatchObject({ is_active: true, is_complete: true, is_split: false });
  expect(paths.body[0].path[0].map((o: Obj) => o.id)).toContain(paths.body[0].path[0][0].id);
  expect((await gw.get('/api/circuits/circuit-terminations/999999/paths/')).status).toBe(404);
});
