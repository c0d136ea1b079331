import { eventually, readOutbox } from '@inventory/testkit';
import { modelOpenApi, schemaName } from '@inventory/rest';
import { dcimModels } from '@inventory/dcim';
import { dcimSuite, type Obj } from './stack';

const suite = dcimSuite();
const made = (path: string, body: Obj | Obj[]) => suite.made(path, body);
let n = 0;

/** A site, a manufacturer, a role and a type (with the given attributes), unique per call. */
async function world(type: Obj = {}): Promise<Obj> {
  n += 1;
  const site = await made('/api/dcim/sites/', { name: `Dev site ${n}`, slug: `dev-site-${n}` });
  const maker = await made('/api/dcim/manufacturers/', { name: `Maker ${n}`, slug: `maker-${n}` });
  const role = await made('/api/dcim/device-roles/', { name: `Role ${n}`, slug: `role-${n}`, color: 'ff0000' });
  const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: `Model ${n}`, slug: `model-${n}`, ...type });
  return { site, maker, role, dt };
}

describe('devices', () => {
  test('when a device is created with device_role (the deprecated name), then role and device_role both show it; nested it carries display_name', async () => {
    const w = await world();
    const d = await made('/api/dcim/devices/', { name: 'sw1', device_type: w.dt.id, device_role: w.role.id, site: w.site.id });
    expect(d.role).toMatchObject({ id: w.role.id, slug: w.role.slug });
    expect(d.device_role).toEqual(d.role);
    expect(d).toMatchObject({ display: 'sw1', status: { value: 'active', label: 'Active' }, face: null, airflow: null, parent_device: null, primary_ip: null });
    expect(Object.keys(d).slice(0, 8)).toEqual(['id', 'url', 'display', 'name', 'device_type', 'role', 'device_role', 'tenant']);
    const brief = (await suite.api().get(`/api/dcim/devices/${d.id}/?brief=1`)).body;
    expect(brief).toEqual({ id: d.id, url: d.url, display: 'sw1', name: 'sw1', display_name: 'sw1' });
    const missing = await suite.api().post('/api/dcim/devices/', { name: 'sw2', device_type: w.dt.id, site: w.site.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ role: ['This field is required.'] });
  });

  test('when a device has no name, then its display is the manufacturer and model with its id (or asset tag)', async () => {
    const w = await world();
    const d = await made('/api/dcim/devices/', { device_type: w.dt.id, role: w.role.id, site: w.site.id });
    expect(d.display).toBe(`${w.maker.name} ${w.dt.model} (${d.id})`);
    const tagged = await made('/api/dcim/devices/', { device_type: w.dt.id, role: w.role.id, site: w.site.id, asset_tag: `AT-${n}` });
    expect(tagged.display).toBe(`${w.maker.name} ${w.dt.model} (AT-${n})`);
  });

  test('when names clash case-insensitively in a site without tenant, then NetBox refuses; in another site they do not', async () => {
    const w = await world();
    await made('/api/dcim/devices/', { name: 'Core', device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const clash = await suite.api().post('/api/dcim/devices/', { name: 'core', device_type: w.dt.id, role: w.role.id, site: w.site.id });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ name: ['Device name must be unique per site.'] });
    const other = await world();
    await made('/api/dcim/devices/', { name: 'core', device_type: w.dt.id, role: w.role.id, site: other.site.id });
  });

  test('when a device is racked, then NetBox rack rules apply and it takes the rack location', async () => {
    const w = await world({ u_height: 2 });
    const loc = await made('/api/dcim/locations/', { name: 'Room', slug: 'room', site: w.site.id });
    const rack = await made('/api/dcim/racks/', { name: 'R1', site: w.site.id, location: loc.id, u_height: 10 });
    const base = { device_type: w.dt.id, role: w.role.id, site: w.site.id };
    const noRack = await suite.api().post('/api/dcim/devices/', { ...base, face: 'front' });
    expect(noRack.body).toEqual({ face: ['Cannot select a rack face without assigning a rack.'] });
    const noFace = await suite.api().post('/api/dcim/devices/', { ...base, rack: rack.id, position: 1 });
    expect(noFace.body).toEqual({ face: ['Must specify rack face when defining rack position.'] });
    const half = await suite.api().post('/api/dcim/devices/', { ...base, rack: rack.id, position: 1.3, face: 'front' });
    expect(half.status).toBe(400);
    const d = await made('/api/dcim/devices/', { ...base, name: 'r1', rack: rack.id, position: 1, face: 'front' });
    expect(d).toMatchObject({ position: 1, face: { value: 'front', label: 'Front' }, location: { id: loc.id } });
    const overlap = await suite.api().post('/api/dcim/devices/', { ...base, name: 'r2', rack: rack.id, position: 2, face: 'rear' });
    expect(overlap.body).toEqual({ position: [`U2.0 is already occupied or does not have sufficient space to accommodate this device type: ${w.dt.model} (2.0U)`] });
    const top = await suite.api().post('/api/dcim/devices/', { ...base, name: 'r3', rack: rack.id, position: 10, face: 'front' });
    expect(top.body.position[0]).toMatch(/^U10\.0 is already occupied/);
    await made('/api/dcim/devices/', { ...base, name: 'r4', rack: rack.id, position: 3, face: 'front' });
    const elsewhere = await world();
    const wrongSite = await suite.api().post('/api/dcim/devices/', { ...base, site: elsewhere.site.id, rack: rack.id });
    expect(wrongSite.body).toEqual({ rack: [`Rack R1 does not belong to site ${elsewhere.site.name}.`] });
    expect((await suite.api().get(`/api/dcim/racks/${rack.id}/`)).body.device_count).toBe(2);
  });

  test('when a platform of another manufacturer is given, then it is refused; a type default platform and airflow are taken', async () => {
    const w = await world();
    const other = await made('/api/dcim/manufacturers/', { name: `Other ${n}`, slug: `other-${n}` });
    const foreign = await made('/api/dcim/platforms/', { name: `P ${n}`, slug: `p-${n}`, manufacturer: other.id });
    const own = await made('/api/dcim/platforms/', { name: `Own ${n}`, slug: `own-${n}`, manufacturer: w.maker.id });
    const dt = await made('/api/dcim/device-types/', { manufacturer: w.maker.id, model: `Def ${n}`, slug: `def-${n}`, default_platform: own.id, airflow: 'front-to-rear' });
    const refused = await suite.api().post('/api/dcim/devices/', { device_type: w.dt.id, role: w.role.id, site: w.site.id, platform: foreign.id });
    expect(refused.body).toEqual({
      platform: [`The assigned platform is limited to ${other.name} device types, but this device's type belongs to ${w.maker.name}.`],
    });
    const d = await made('/api/dcim/devices/', { device_type: dt.id, role: w.role.id, site: w.site.id });
    expect(d.platform).toMatchObject({ id: own.id });
    expect(d.airflow).toEqual({ value: 'front-to-rear', label: 'Front to rear' });
  });

  test('when a device is created from a type with bays, then its bays are made from the templates in one write with their events', async () => {
    const w = await world({ subdevice_role: 'parent' });
    await made('/api/dcim/module-bay-templates/', [
      { device_type: w.dt.id, name: 'Slot 1', position: '1' },
      { device_type: w.dt.id, name: 'Slot 2', position: '2' },
    ]);
    await made('/api/dcim/device-bay-templates/', { device_type: w.dt.id, name: 'Bay A', label: 'A' });
    const devices = await made('/api/dcim/devices/', [1, 2, 3].map((i) => ({ name: `chassis-${n}-${i}`, device_type: w.dt.id, role: w.role.id, site: w.site.id })));
    const ids = devices.map((d: Obj) => d.id);
    const bays = (await suite.api().get(`/api/dcim/module-bays/?device_id=${ids.join('&device_id=')}&limit=0`)).body;
    expect(bays.count).toBe(6);
    expect(bays.results.map((b: Obj) => [b.device.id, b.name, b.position])).toEqual(ids.flatMap((id: number) => [[id, 'Slot 1', '1'], [id, 'Slot 2', '2']]));
    const dbays = (await suite.api().get(`/api/dcim/device-bays/?device_id=${ids[0]}`)).body.results;
    expect(dbays).toMatchObject([{ name: 'Bay A', label: 'A', display: 'Bay A (A)', installed_device: null }]);
    const detail = (await suite.api().get(`/api/dcim/devices/${ids[0]}/`)).body;
    expect(detail).toMatchObject({ module_bay_count: 2, device_bay_count: 1 });
  });

  test('when a child device is installed in a bay, then it shows its parent_device; a non-child type is refused', async () => {
    const parent = await world({ subdevice_role: 'parent' });
    await made('/api/dcim/device-bay-templates/', { device_type: parent.dt.id, name: 'Bay 1' });
    const chassis = await made('/api/dcim/devices/', { name: `chassis-${n}`, device_type: parent.dt.id, role: parent.role.id, site: parent.site.id });
    const childType = await made('/api/dcim/device-types/', { manufacturer: parent.maker.id, model: `Blade ${n}`, slug: `blade-${n}`, subdevice_role: 'child', u_height: 0 });
    const blade = await made('/api/dcim/devices/', { name: `blade-${n}`, device_type: childType.id, role: parent.role.id, site: parent.site.id });
    const plain = await made('/api/dcim/devices/', { name: `plain-${n}`, device_type: parent.dt.id, role: parent.role.id, site: parent.site.id });
    const [bay] = (await suite.api().get(`/api/dcim/device-bays/?device_id=${chassis.id}`)).body.results;
    const refused = await suite.api().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: plain.id });
    expect(refused.body).toEqual({ installed_device: [`Cannot install the specified device; device's type (${parent.dt.model}) has no parent/child role.`] });
    const ok = await suite.api().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: blade.id });
    expect(ok.status).toBe(200);
    expect(ok.body.installed_device).toEqual({ id: blade.id, url: blade.url, display: blade.name, name: blade.name, display_name: blade.name });
    const child = (await suite.api().get(`/api/dcim/devices/${blade.id}/`)).body;
    expect(child.parent_device).toMatchObject({ id: chassis.id, name: chassis.name, device_bay: { id: bay.id, name: 'Bay 1', device: { id: chassis.id } } });
    const filtered = (await suite.api().get(`/api/dcim/devices/?parent_device_id=${chassis.id}`)).body.results;
    expect(filtered.map((d: Obj) => d.id)).toEqual([blade.id]);
  });

  test('when a module is installed, then the bay must be the device one and the bay shows the module', async () => {
    const w = await world();
    await made('/api/dcim/module-bay-templates/', { device_type: w.dt.id, name: 'Slot 1', position: '1' });
    const mt = await made('/api/dcim/module-types/', { manufacturer: w.maker.id, model: `Line card ${n}` });
    const a = await made('/api/dcim/devices/', { name: `a-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const b = await made('/api/dcim/devices/', { name: `b-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const [bayA] = (await suite.api().get(`/api/dcim/module-bays/?device_id=${a.id}`)).body.results;
    const wrong = await suite.api().post('/api/dcim/modules/', { device: b.id, module_bay: bayA.id, module_type: mt.id });
    expect(wrong.body).toEqual({ __all__: [`Module must be installed within a module bay belonging to the assigned device (${b.name}).`] });
    const m = await made('/api/dcim/modules/', { device: a.id, module_bay: bayA.id, module_type: mt.id, serial: 'S1' });
    expect(m.display).toBe(`Slot 1: ${mt.model} (${m.id})`);
    const bay = (await suite.api().get(`/api/dcim/module-bays/${bayA.id}/`)).body;
    expect(bay.installed_module).toEqual({ id: m.id, url: m.url, display: m.display, serial: 'S1' });
    const again = await suite.api().post('/api/dcim/modules/', { device: a.id, module_bay: bayA.id, module_type: mt.id });
    expect(again.body).toEqual({ module_bay: ['Module with this Module bay already exists.'] });
  });

  test('when a virtual chassis is created with a master, then the master becomes member 1; deleting it releases the members', async () => {
    const w = await world();
    const d1 = await made('/api/dcim/devices/', { name: `m1-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const d2 = await made('/api/dcim/devices/', { name: `m2-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const vc = await made('/api/dcim/virtual-chassis/', { name: `VC ${n}`, master: d1.id });
    const member = (await suite.api().get(`/api/dcim/devices/${d1.id}/`)).body;
    expect(member).toMatchObject({ virtual_chassis: { id: vc.id, name: vc.name }, vc_position: 1 });
    const noPosition = await suite.api().patch(`/api/dcim/devices/${d2.id}/`, { virtual_chassis: vc.id });
    expect(noPosition.body).toEqual({ vc_position: ['A device assigned to a virtual chassis must have its position defined.'] });
    const notMember = await suite.api().patch(`/api/dcim/virtual-chassis/${vc.id}/`, { master: d2.id });
    expect(notMember.body).toEqual({ master: [`The selected master (${d2.name}) is not assigned to this virtual chassis.`] });
    await suite.api().patch(`/api/dcim/devices/${d2.id}/`, { virtual_chassis: vc.id, vc_position: 2 });
    expect((await suite.api().get(`/api/dcim/virtual-chassis/${vc.id}/`)).body.member_count).toBe(2);
    const unnamed = (await suite.api().patch(`/api/dcim/devices/${d2.id}/`, { name: null })).body;
    expect(unnamed.display).toBe(`${vc.name}:2 (${d2.id})`);
    await suite.api().patch(`/api/dcim/virtual-chassis/${vc.id}/`, { master: null });
    expect((await suite.api().delete(`/api/dcim/virtual-chassis/${vc.id}/`)).status).toBe(204);
    const after = (await suite.api().get(`/api/dcim/devices/${d1.id}/`)).body;
    expect(after).toMatchObject({ virtual_chassis: null, vc_position: null });
  });

  test('when a device type, role or site has devices, then deleting it is refused naming them; a platform delete clears the device platform', async () => {
    const w = await world();
    const p = await made('/api/dcim/platforms/', { name: `Del ${n}`, slug: `del-${n}` });
    const d = await made('/api/dcim/devices/', { name: `keep-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id, platform: p.id });
    const refused = await suite.api().delete(`/api/dcim/device-roles/${w.role.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: ${d.name} (${d.id})`);
    expect((await suite.api().delete(`/api/dcim/platforms/${p.id}/`)).status).toBe(204);
    expect((await suite.api().get(`/api/dcim/devices/${d.id}/`)).body.platform).toBeNull();
  });

  test('when a rack elevation is asked for, then its half units run top to bottom with the devices on them, paginated; as SVG it draws them', async () => {
    const w = await world({ u_height: 2 });
    const rack = await made('/api/dcim/racks/', { name: `Elev ${n}`, site: w.site.id, u_height: 4 });
    const d = await made('/api/dcim/devices/', { name: `e-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id, rack: rack.id, position: 2, face: 'front' });
    const page = (await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?limit=3`)).body;
    expect(page.count).toBe(8);
    expect(page.results.map((u: Obj) => u.name)).toEqual(['U4.5', 'U4', 'U3.5']);
    expect(page.next).toContain('offset=3');
    const all = (await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?limit=0`)).body.results;
    const nested = { id: d.id, url: d.url, display: d.name, name: d.name, display_name: d.name };
    expect(all.find((u: Obj) => u.name === 'U3')).toEqual({ id: 3, name: 'U3', face: { value: 'front', label: 'Front' }, device: nested, occupied: true, display: 'U3' });
    expect(all.filter((u: Obj) => u.occupied).map((u: Obj) => u.id)).toEqual([3.5, 3, 2.5, 2]);
    const rear = (await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?face=rear&limit=0`)).body.results;
    expect(rear.filter((u: Obj) => u.occupied).map((u: Obj) => u.id)).toEqual([3.5, 3, 2.5, 2]); // full depth
    const lowest = (await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?expand_devices=false&limit=0`)).body.results;
    expect(lowest.filter((u: Obj) => u.occupied).map((u: Obj) => u.id)).toEqual([2]);
    const q = (await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?q=.5`)).body;
    expect(q.results.map((u: Obj) => u.name)).toEqual(['U4.5', 'U3.5', 'U2.5', 'U1.5']);
    const bad = await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?face=top`);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['face']);
    const svg = await suite.api().get(`/api/dcim/racks/${rack.id}/elevation/?render=svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toContain(`>${d.name}</text>`);
    expect(svg.text).toContain(d.url);
    expect((await suite.api().get('/api/dcim/racks/999999/elevation/')).status).toBe(404);
  });

  test('when 100 devices are made from a type with every kind of template, then each gets its components with ports, outlets and bridges mapped to its own', async () => {
    const w = await world();
    const t = w.dt.id;
    const psu = await made('/api/dcim/power-port-templates/', { device_type: t, name: 'PSU1', type: 'iec-60320-c14', maximum_draw: 500 });
    await made('/api/dcim/power-outlet-templates/', { device_type: t, name: 'Out1', power_port: psu.id, feed_leg: 'A' });
    await made('/api/dcim/console-port-templates/', { device_type: t, name: 'Console', type: 'rj-45' });
    await made('/api/dcim/console-server-port-templates/', { device_type: t, name: 'CS1' });
    const br = await made('/api/dcim/interface-templates/', { device_type: t, name: 'br0', type: 'bridge' });
    await made('/api/dcim/interface-templates/', Array.from({ length: 48 }, (_, i) => ({ device_type: t, name: `eth${i + 1}`, type: '1000base-t', bridge: i === 0 ? br.id : null, mgmt_only: i === 47 })));
    const rear = await made('/api/dcim/rear-port-templates/', { device_type: t, name: 'R1', type: 'lc', positions: 2 });
    await made('/api/dcim/front-port-templates/', [1, 2].map((p) => ({ device_type: t, name: `F${p}`, type: 'lc', rear_port: rear.id, rear_port_position: p })));
    const created = await suite.api().post('/api/dcim/devices/', Array.from({ length: 100 }, (_, i) => ({ name: `bulk-${n}-${i}`, device_type: t, role: w.role.id, site: w.site.id })));
    expect(created.status).toBe(201);
    const devices = created.body as Obj[];
    expect(devices).toHaveLength(100);
    // 5,700 change events (several outbox chunks), each object once, in write order: the devices, then their components
    const events = (await readOutbox(suite.stack().databaseUrl, 'dcim')).filter((e) => e.request_id === created.headers.get('x-request-id'));
    expect(events).toHaveLength(5700);
    expect(new Set(events.map((e) => `${e.model}:${e.object_id}`)).size).toBe(5700);
    expect(events.every((e) => e.event === 'created' && e.data !== null && e.snapshots.postchange !== null)).toBe(true);
    expect(events.slice(0, 100).map((e) => e.object_id)).toEqual(devices.map((d) => d.id));
    expect(events.filter((e) => e.model === 'dcim.interface')).toHaveLength(4900);
    const last = devices[99];
    const detail = (await suite.api().get(`/api/dcim/devices/${last.id}/`)).body;
    expect(detail).toMatchObject({ interface_count: 49, power_port_count: 1, power_outlet_count: 1, console_port_count: 1, console_server_port_count: 1, rear_port_count: 1, front_port_count: 2 });
    const ifaces = (await suite.api().get(`/api/dcim/interfaces/?device_id=${last.id}&limit=100`)).body.results;
    const own = ifaces.find((i: Obj) => i.name === 'br0');
    expect(ifaces.find((i: Obj) => i.name === 'eth1').bridge).toMatchObject({ id: own.id, name: 'br0' });
    expect(ifaces.find((i: Obj) => i.name === 'eth48').mgmt_only).toBe(true);
    const outlet = (await suite.api().get(`/api/dcim/power-outlets/?device_id=${last.id}`)).body.results[0];
    const port = (await suite.api().get(`/api/dcim/power-ports/?device_id=${last.id}`)).body.results[0];
    expect(outlet.power_port).toMatchObject({ id: port.id, name: 'PSU1' });
    expect(port.maximum_draw).toBe(500);
    const fronts = (await suite.api().get(`/api/dcim/front-ports/?device_id=${last.id}`)).body.results;
    const ownRear = (await suite.api().get(`/api/dcim/rear-ports/?device_id=${last.id}`)).body.results[0];
    expect(fronts.map((f: Obj) => [f.name, f.rear_port.id, f.rear_port_position])).toEqual([['F1', ownRear.id, 1], ['F2', ownRear.id, 2]]);
    expect(ownRear.positions).toBe(2);
    const all = (await suite.api().get(`/api/dcim/interfaces/?site_id=${w.site.id}&limit=1`)).body.count;
    expect(all).toBe(4900);
  });

  test('when a module is installed in a bay, then its type makes its components on the device with {module} replaced by the bay position', async () => {
    const w = await world();
    await made('/api/dcim/module-bay-templates/', { device_type: w.dt.id, name: 'Slot 3', position: '3' });
    const mt = await made('/api/dcim/module-types/', { manufacturer: w.maker.id, model: `Optics ${n}` });
    await made('/api/dcim/interface-templates/', [1, 2].map((p) => ({ module_type: mt.id, name: `xe-{module}/0/${p}`, type: '10gbase-x-sfpp' })));
    const d = await made('/api/dcim/devices/', { name: `mod-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const [bay] = (await suite.api().get(`/api/dcim/module-bays/?device_id=${d.id}`)).body.results;
    const m = await made('/api/dcim/modules/', { device: d.id, module_bay: bay.id, module_type: mt.id });
    const ifaces = (await suite.api().get(`/api/dcim/interfaces/?device_id=${d.id}`)).body.results;
    expect(ifaces.map((i: Obj) => [i.name, i.module?.id])).toEqual([['xe-3/0/1', m.id], ['xe-3/0/2', m.id]]);
    expect((await suite.api().delete(`/api/dcim/modules/${m.id}/`)).status).toBe(204);
    expect((await suite.api().get(`/api/dcim/interfaces/?device_id=${d.id}`)).body.count).toBe(0);
  });

  test('when config contexts match a device by region tree, role and tag, then it shows them merged by weight and name with its local data on top; exclude and brief leave it out', async () => {
    const w = await world();
    const extras = suite.stack().client('extras');
    const parent = await made('/api/dcim/regions/', { name: `Continent ${n}`, slug: `continent-${n}` });
    const child = await made('/api/dcim/regions/', { name: `Country ${n}`, slug: `country-${n}`, parent: parent.id });
    await suite.api().patch(`/api/dcim/sites/${w.site.id}/`, { region: child.id });
    const tag = await suite.made('/api/extras/tags/', { name: `Ctx tag ${n}`, slug: `ctx-tag-${n}` }, extras);
    const ctx = (body: Obj) => suite.made('/api/extras/config-contexts/', body, extras);
    await ctx({ name: `a-all-${n}`, weight: 100, data: { ntp: ['10.0.0.1'], snmp: { community: 'public', location: 'x' } } });
    await ctx({ name: `b-region-${n}`, weight: 200, regions: [parent.id], data: { snmp: { location: 'continent' }, dns: ['1.1.1.1'] } });
    await ctx({ name: `c-role-${n}`, weight: 200, roles: [w.role.id], data: { dns: ['9.9.9.9'] } });
    await ctx({ name: `d-tag-${n}`, weight: 300, tags: [tag.slug], data: { tagged: true } });
    await ctx({ name: `e-off-${n}`, weight: 400, is_active: false, data: { ntp: ['never'] } });
    const other = await made('/api/dcim/device-roles/', { name: `Other role ${n}`, slug: `other-role-${n}` });
    await ctx({ name: `f-other-role-${n}`, weight: 500, roles: [other.id], data: { ntp: ['never'] } });
    const d = await made('/api/dcim/devices/', { name: `ctx-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id, tags: [tag.id], local_context_data: { dns: ['8.8.8.8'], local: 1 } });
    const expected = { ntp: ['10.0.0.1'], snmp: { community: 'public', location: 'continent' }, dns: ['8.8.8.8'], tagged: true, local: 1 };
    await eventually(async () => JSON.stringify((await suite.api().get(`/api/dcim/devices/${d.id}/`)).body.config_context) === JSON.stringify(sortKeys(expected)), 15_000, 'the merged context');
    const listed = (await suite.api().get(`/api/dcim/devices/?id=${d.id}`)).body.results[0];
    expect(listed.config_context).toEqual(expected);
    const keys = Object.keys(listed);
    expect(keys.indexOf('config_context')).toBe(keys.indexOf('local_context_data') - 1);
    expect((await suite.api().get(`/api/dcim/devices/?id=${d.id}&exclude=config_context`)).body.results[0]).not.toHaveProperty('config_context');
    expect((await suite.api().get(`/api/dcim/devices/${d.id}/?brief=1`)).body).not.toHaveProperty('config_context');
  });

  test('when a device renders its config, then its own template wins over its role and platform, with the context and the posted body', async () => {
    const w = await world();
    const extras = suite.stack().client('extras');
    const roleTemplate = await suite.made('/api/extras/config-templates/', { name: `role-tpl-${n}`, template_code: 'role {{ device.name }}' }, extras);
    const own = await suite.made('/api/extras/config-templates/', { name: `own-tpl-${n}`, template_code: 'hostname {{ device.name }}\n{% for s in ntp %}ntp {{ s }}\n{% endfor %}' }, extras);
    await suite.api().patch(`/api/dcim/device-roles/${w.role.id}/`, { config_template: roleTemplate.id });
    const d = await made('/api/dcim/devices/', { name: `rc-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id, local_context_data: { ntp: ['a'] } });
    const byRole = await suite.api().post(`/api/dcim/devices/${d.id}/render-config/`, {});
    expect(byRole.status).toBe(200);
    // the url is dcim's (the template was made on extras' own port)
    expect(byRole.body).toEqual({
      configtemplate: { id: roleTemplate.id, url: expect.stringMatching(new RegExp(`/api/extras/config-templates/${roleTemplate.id}/$`)), display: roleTemplate.name, name: roleTemplate.name },
      content: `role rc-${n}`,
    });
    await suite.api().patch(`/api/dcim/devices/${d.id}/`, { config_template: own.id });
    const rendered = await suite.api().post(`/api/dcim/devices/${d.id}/render-config/`, { ntp: ['b', 'c'] });
    expect(rendered.body.content).toBe(`hostname rc-${n}\nntp b\nntp c\n`);
    const bare = await made('/api/dcim/devices/', { name: `bare-${n}`, device_type: w.dt.id, role: (await made('/api/dcim/device-roles/', { name: `R ${n}x`, slug: `r-${n}x` })).id, site: w.site.id });
    const none = await suite.api().post(`/api/dcim/devices/${bare.id}/render-config/`, {});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'No config template found for this device.' });
  });
  test('when a device is made from a type with inventory item templates, then it gets the items as a tree, linked to its own components', async () => {
    const w = await world();
    const t = w.dt.id;
    const port = await made('/api/dcim/interface-templates/', { device_type: t, name: 'xe-0/0/0', type: '10gbase-x-sfpp' });
    const chassis = await made('/api/dcim/inventory-item-templates/', { device_type: t, name: 'Chassis', part_id: 'CH-1' });
    await made('/api/dcim/inventory-item-templates/', { device_type: t, name: 'Optic', parent: chassis.id, component_type: 'dcim.interfacetemplate', component_id: port.id });
    const [d1, d2] = await made('/api/dcim/devices/', [1, 2].map((i) => ({ name: `inv-${n}-${i}`, device_type: t, role: w.role.id, site: w.site.id })));
    const items = (await suite.api().get(`/api/dcim/inventory-items/?device_id=${d2.id}`)).body.results;
    const iface = (await suite.api().get(`/api/dcim/interfaces/?device_id=${d2.id}`)).body.results[0];
    expect(items.map((i: Obj) => [i.name, i._depth])).toEqual([['Chassis', 0], ['Optic', 1]]);
    expect(items[0]).toMatchObject({ part_id: 'CH-1', parent: null, component: null });
    expect(items[1]).toMatchObject({ parent: items[0].id, component_type: 'dcim.interface', component_id: iface.id, component: { id: iface.id, name: 'xe-0/0/0' } });
    expect((await suite.api().get(`/api/dcim/devices/${d1.id}/`)).body.inventory_item_count).toBe(2);
    const children = (await suite.api().get(`/api/dcim/inventory-items/?parent_id=${items[0].id}`)).body.results;
    expect(children.map((i: Obj) => i.id)).toEqual([items[1].id]);
    // NetBox's parent is a PrimaryKeyRelatedField: an id both ways, an attribute set refused, and the schema says so
    for (const [path, owner] of [['/api/dcim/inventory-items/', { device: d1.id }], ['/api/dcim/inventory-item-templates/', { device_type: t }]] as const) {
      const parent = (await suite.api().get(`${path}?${'device' in owner ? `device_id=${d1.id}` : `device_type_id=${t}`}&name=Chassis`)).body.results[0];
      const byObject = await suite.api().post(path, { ...owner, name: `By object ${n}`, parent: { id: parent.id } });
      expect([byObject.status, byObject.body]).toEqual([400, { parent: ['Incorrect type. Expected pk value, received dict.'] }]);
      const byId = await suite.api().post(path, { ...owner, name: `By id ${n}`, parent: parent.id });
      expect([byId.status, byId.body.parent]).toEqual([201, parent.id]);
    }
    for (const model of [dcimModels.inventoryItem, dcimModels.inventoryItemTemplate]) {
      const { schemas } = modelOpenApi(model, 'dcim', new Map(), []);
      expect((schemas[schemaName(model)] as { properties: Obj }).properties.parent).toEqual({ type: 'integer', nullable: true });
    }
  });
  test('when interfaces are put in a virtual device context, then its interface_count counts them', async () => {
    const w = await world();
    await made('/api/dcim/interface-templates/', [1, 2, 3].map((i) => ({ device_type: w.dt.id, name: `e${i}`, type: '1000base-t' })));
    const d = await made('/api/dcim/devices/', { name: `vdc-host-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id });
    const vdc = await made('/api/dcim/virtual-device-contexts/', { name: `VDC ${n}`, device: d.id, identifier: 1, status: 'active' });
    const ifaces = (await suite.api().get(`/api/dcim/interfaces/?device_id=${d.id}`)).body.results;
    await suite.api().patch('/api/dcim/interfaces/', ifaces.slice(0, 2).map((i: Obj) => ({ id: i.id, vdcs: [vdc.id] })));
    expect((await suite.api().get(`/api/dcim/virtual-device-contexts/${vdc.id}/`)).body.interface_count).toBe(2);
    const byCount = (await suite.api().get(`/api/dcim/virtual-device-contexts/?device_id=${d.id}&ordering=-interface_count`)).body.results;
    expect(byCount.map((v: Obj) => v.interface_count)).toEqual([2]);
  });
  test('when a racked type grows past its neighbours or goes 0U, then NetBox refuses; children follow their parent; platforms filter by device type', async () => {
    const w = await world({ u_height: 1 });
    const rack = await made('/api/dcim/racks/', { name: `Grow ${n}`, site: w.site.id, u_height: 10 });
    await made('/api/dcim/devices/', [1, 2].map((p) => ({ name: `g-${n}-${p}`, device_type: w.dt.id, role: w.role.id, site: w.site.id, rack: rack.id, position: p, face: 'front' })));
    const taller = await suite.api().patch(`/api/dcim/device-types/${w.dt.id}/`, { u_height: 2 });
    expect(taller.body).toEqual({ u_height: [`Device g-${n}-1 in rack Grow ${n} does not have sufficient space to accommodate a height of 2.0U`] });
    const flat = await suite.api().patch(`/api/dcim/device-types/${w.dt.id}/`, { u_height: 0 });
    expect(flat.body).toEqual({ u_height: ['Unable to set 0U height: Found 2 instances already mounted within racks.'] });

    const parentType = await made('/api/dcim/device-types/', { manufacturer: w.maker.id, model: `Chassis ${n}`, slug: `chassis-${n}`, subdevice_role: 'parent' });
    await made('/api/dcim/device-bay-templates/', { device_type: parentType.id, name: 'Bay 1' });
    const childType = await made('/api/dcim/device-types/', { manufacturer: w.maker.id, model: `Blade ${n}`, slug: `blade-x-${n}`, subdevice_role: 'child', u_height: 0 });
    const chassis = await made('/api/dcim/devices/', { name: `ch-${n}`, device_type: parentType.id, role: w.role.id, site: w.site.id });
    const blade = await made('/api/dcim/devices/', { name: `bl-${n}`, device_type: childType.id, role: w.role.id, site: w.site.id });
    const [bay] = (await suite.api().get(`/api/dcim/device-bays/?device_id=${chassis.id}`)).body.results;
    await suite.api().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: blade.id });
    const elsewhere = await made('/api/dcim/sites/', { name: `Moved ${n}`, slug: `moved-${n}` });
    expect((await suite.api().patch(`/api/dcim/devices/${chassis.id}/`, { site: elsewhere.id })).status).toBe(200);
    expect((await suite.api().get(`/api/dcim/devices/${blade.id}/`)).body.site.id).toBe(elsewhere.id);

    const other = await made('/api/dcim/manufacturers/', { name: `Other maker ${n}`, slug: `other-maker-${n}` });
    const [any, own, foreign] = await made('/api/dcim/platforms/', [
      { name: `Any ${n}`, slug: `any-${n}` },
      { name: `Own OS ${n}`, slug: `own-os-${n}`, manufacturer: w.maker.id },
      { name: `Foreign OS ${n}`, slug: `foreign-os-${n}`, manufacturer: other.id },
    ]);
    const available = (await suite.api().get(`/api/dcim/platforms/?available_for_device_type=${w.dt.id}&limit=0`)).body.results.map((p: Obj) => p.id);
    expect(available).toEqual(expect.arrayContaining([any.id, own.id]));
    expect(available).not.toContain(foreign.id);
  });
});

/** Keys in PostgreSQL's jsonb order (shorter keys first, then bytewise), as the merged context comes back. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const keys = Object.keys(v as Obj).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, sortKeys((v as Obj)[k])]));
}

describe("filters NetBox 3.7 clients send", () => {
  test('when interfaces are filtered by virtual_chassis_member(_id), then a lone device gives its own, a chassis member every member\'s except management-only ones', async () => {
    const w = await world();
    const [m1, m2, lone] = await Promise.all(['vcm1', 'vcm2', 'lone'].map((name) => made('/api/dcim/devices/', { name: `${name}-${n}`, device_type: w.dt.id, role: w.role.id, site: w.site.id })));
    const vc = await made('/api/dcim/virtual-chassis/', { name: `VCM ${n}`, master: m1.id });
    expect((await suite.api().patch(`/api/dcim/devices/${m2.id}/`, { virtual_chassis: vc.id, vc_position: 2 })).status).toBe(200);
    const iface = (device: Obj, name: string, extra: Obj = {}) => made('/api/dcim/interfaces/', { device: device.id, name, type: '1000base-t', ...extra });
    const a = await iface(m1, 'ge-0/0/1');
    const b = await iface(m2, 'ge-1/0/1');
    const mgmt = await iface(m2, 'mgmt0', { mgmt_only: true });
    const own = await iface(m1, 'mgmt-own', { mgmt_only: true });
    const c = await iface(lone, 'ge-0/0/1');
    const ids = async (q: string) => (await suite.api().get(`/api/dcim/interfaces/?${q}&limit=0`)).body.results.map((i: Obj) => i.id).sort((x: number, y: number) => x - y);
    const sorted = (...xs: Obj[]) => xs.map((x) => x.id).sort((x, y) => x - y);
    // a member: its own interfaces (management ones too) and the other members' that are not management-only
    expect(await ids(`virtual_chassis_member_id=${m2.id}`)).toEqual(sorted(a, b, mgmt));
    expect(await ids(`virtual_chassis_member_id=${m1.id}`)).toEqual(sorted(a, own, b));
    expect(await ids(`virtual_chassis_member=${m1.name}`)).toEqual(sorted(a, own, b));
    // the name Ansible looks up, on the lone device: its own interface, not every interface of that name
    expect(await ids(`virtual_chassis_member_id=${lone.id}&name=ge-0/0/1`)).toEqual(sorted(c));
    expect(await ids(`virtual_chassis_member_id=999999999`)).toEqual([]);
    expect((await suite.api().get('/api/dcim/interfaces/?virtual_chassis_member_id=abc')).status).toBe(400);
  });

  test('when component templates are filtered by devicetype_id and moduletype_id (3.7\'s names), then only their templates come back', async () => {
    const w = await world();
    const other = await made('/api/dcim/device-types/', { manufacturer: w.maker.id, model: `Other ${n}`, slug: `other-${n}` });
    const mt = await made('/api/dcim/module-types/', { manufacturer: w.maker.id, model: `Card ${n}` });
    const mine = await made('/api/dcim/interface-templates/', { device_type: w.dt.id, name: 'eth0', type: '1000base-t' });
    await made('/api/dcim/interface-templates/', { device_type: other.id, name: 'eth0', type: '1000base-t' });
    const onModule = await made('/api/dcim/interface-templates/', { module_type: mt.id, name: 'eth{module}', type: '1000base-t' });
    const bay = await made('/api/dcim/module-bay-templates/', { device_type: w.dt.id, name: 'bay1' });
    const list = async (path: string) => (await suite.api().get(path)).body.results.map((i: Obj) => i.id);
    expect(await list(`/api/dcim/interface-templates/?devicetype_id=${w.dt.id}`)).toEqual([mine.id]);
    expect(await list(`/api/dcim/interface-templates/?moduletype_id=${mt.id}`)).toEqual([onModule.id]);
    expect(await list(`/api/dcim/module-bay-templates/?devicetype_id=${w.dt.id}`)).toEqual([bay.id]);
    expect((await suite.api().get('/api/dcim/interface-templates/?devicetype_id=999999999')).status).toBe(400);
  });
});
