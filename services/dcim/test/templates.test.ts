import { dcimSuite, type Obj } from './stack';

const suite = dcimSuite();
const { made } = suite;

let n = 0;
/** A fresh manufacturer with one device type and one module type. */
async function types(deviceType: Obj = {}): Promise<{ dt: any; mt: any }> {
  n++;
  const maker = await made('/api/dcim/manufacturers/', { name: `Template maker ${n}`, slug: `template-maker-${n}` });
  const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: `Switch ${n}`, slug: `switch-${n}`, ...deviceType });
  const mt = await made('/api/dcim/module-types/', { manufacturer: maker.id, model: `Line card ${n}` });
  return { dt, mt };
}

describe('component templates', () => {
  test('when a template names neither or both of a device type and a module type, then NetBox messages refuse it', async () => {
    const { dt, mt } = await types();
    const neither = await suite.api().post('/api/dcim/console-port-templates/', { name: 'Console' });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ __all__: ['A component template must be associated with either a device type or a module type.'] });
    const both = await suite.api().post('/api/dcim/interface-templates/', { device_type: dt.id, module_type: mt.id, name: 'eth0', type: '1000base-t' });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ __all__: ['A component template cannot be associated with both a device type and a module type.'] });
    const onModule = await made('/api/dcim/interface-templates/', { module_type: mt.id, name: 'eth0', type: '1000base-t', label: 'Uplink' });
    expect(onModule).toMatchObject({ display: 'eth0 (Uplink)', device_type: null, module_type: { id: mt.id, model: mt.model }, enabled: true, mgmt_only: false, bridge: null, poe_mode: null, rf_role: null });
    const moved = await suite.api().patch(`/api/dcim/interface-templates/${onModule.id}/`, { device_type: dt.id });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual({ __all__: ['A component template cannot be associated with both a device type and a module type.'] });
  });

  test('when a name repeats on one device type or module type, then NetBox messages refuse it; another owner may reuse it', async () => {
    const { dt, mt } = await types();
    await made('/api/dcim/power-port-templates/', { device_type: dt.id, name: 'PSU1' });
    const again = await suite.api().post('/api/dcim/power-port-templates/', { device_type: dt.id, name: 'PSU1' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ __all__: ['Power port template with this Device type and Name already exists.'] });
    await made('/api/dcim/power-port-templates/', { module_type: mt.id, name: 'PSU1' });
    const onModule = await suite.api().post('/api/dcim/power-port-templates/', { module_type: mt.id, name: 'PSU1' });
    expect(onModule.body).toEqual({ __all__: ['Power port template with this Module type and Name already exists.'] });
  });

  test('when templates are added, then the device type counts them, filters by them, and sorts names naturally', async () => {
    const { dt } = await types();
    await made('/api/dcim/interface-templates/', ['eth10', 'eth2', 'eth1'].map((name) => ({ device_type: dt.id, name, type: '10gbase-x-sfpp' })));
    const rear = await made('/api/dcim/rear-port-templates/', { device_type: dt.id, name: 'R1', type: 'lc', positions: 2 });
    await made('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F1', type: 'lc', rear_port: rear.id });
    const got = (await suite.api().get(`/api/dcim/device-types/${dt.id}/`)).body;
    expect(got).toMatchObject({ interface_template_count: 3, rear_port_template_count: 1, front_port_template_count: 1, console_port_template_count: 0 });
    const names = (await suite.api().get(`/api/dcim/interface-templates/?device_type_id=${dt.id}`)).body.results.map((x: Obj) => x.name);
    expect(names).toEqual(['eth1', 'eth2', 'eth10']);
    const withInterfaces = (await suite.api().get(`/api/dcim/device-types/?interfaces=true&id=${dt.id}`)).body.count;
    const withConsoles = (await suite.api().get(`/api/dcim/device-types/?console_ports=true&id=${dt.id}`)).body.count;
    const passThrough = (await suite.api().get(`/api/dcim/device-types/?pass_through_ports=true&id=${dt.id}`)).body.count;
    expect([withInterfaces, withConsoles, passThrough]).toEqual([1, 0, 1]);
    expect((await suite.api().delete(`/api/dcim/device-types/${dt.id}/`)).status).toBe(204);
    expect((await suite.api().get('/api/dcim/interface-templates/?name=eth1&name=eth2&name=eth10')).body.count).toBe(0);
  });

  test('when a front port names a rear port position beyond its positions or taken, or a rear port of another type, then it is refused', async () => {
    const { dt } = await types();
    const other = await types();
    const rear = await made('/api/dcim/rear-port-templates/', { device_type: dt.id, name: 'Rear', type: '8p8c', positions: 2 });
    const beyond = await suite.api().post('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F3', type: '8p8c', rear_port: rear.id, rear_port_position: 3 });
    expect(beyond.status).toBe(400);
    expect(beyond.body).toEqual({ __all__: ['Invalid rear port position (3); rear port Rear has only 2 positions'] });
    const first = await made('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F1', type: '8p8c', rear_port: rear.id });
    expect(first).toMatchObject({ rear_port_position: 1, color: '', rear_port: { id: rear.id, name: 'Rear' } });
    const taken = await suite.api().post('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F2', type: '8p8c', rear_port: rear.id, rear_port_position: 1 });
    expect(taken.body).toEqual({ __all__: ['Front port template with this Rear port and Rear port position already exists.'] });
    const foreign = await suite.api().post('/api/dcim/front-port-templates/', { device_type: other.dt.id, name: 'F1', type: '8p8c', rear_port: rear.id });
    expect(foreign.body).toEqual({ __all__: ['Rear port (Rear) must belong to the same device type'] });
    const zero = await suite.api().post('/api/dcim/front-port-templates/', { device_type: dt.id, name: 'F0', type: '8p8c', rear_port: rear.id, rear_port_position: 0 });
    expect(Object.keys(zero.body)).toEqual(['rear_port_position']);
  });

  test('when a power outlet or bridge names a template of another owner, or draw exceeds the maximum, then NetBox messages refuse it', async () => {
    const { dt, mt } = await types();
    const psu = await made('/api/dcim/power-port-templates/', { module_type: mt.id, name: 'PSU' });
    const outlet = await suite.api().post('/api/dcim/power-outlet-templates/', { device_type: dt.id, name: 'O1', power_port: psu.id, feed_leg: 'A' });
    expect(outlet.body).toEqual({ __all__: ['Parent power port (PSU) must belong to the same device type'] });
    const ok = await made('/api/dcim/power-outlet-templates/', { module_type: mt.id, name: 'O1', power_port: psu.id, feed_leg: 'A' });
    expect(ok).toMatchObject({ power_port: { id: psu.id, name: 'PSU' }, feed_leg: { value: 'A', label: 'A' }, type: null });
    const draw = await suite.api().post('/api/dcim/power-port-templates/', { device_type: dt.id, name: 'PSU2', maximum_draw: 100, allocated_draw: 200 });
    expect(draw.body).toEqual({ allocated_draw: ['Allocated draw cannot exceed the maximum draw (100W).'] });
    const br = await made('/api/dcim/interface-templates/', { module_type: mt.id, name: 'br0', type: 'bridge' });
    const bridged = await suite.api().post('/api/dcim/interface-templates/', { device_type: dt.id, name: 'eth0', type: '1000base-t', bridge: br.id });
    expect(bridged.body).toEqual({ bridge: ['Bridge interface (br0) must belong to the same device type'] });
    const self = await suite.api().patch(`/api/dcim/interface-templates/${br.id}/`, { bridge: br.id });
    expect(self.body).toEqual({ bridge: ['An interface cannot be bridged to itself.'] });
  });

  test('when device bays are added to a type that is not a parent, then they are refused; a parent with bays keeps its role', async () => {
    const { dt } = await types();
    const refused = await suite.api().post('/api/dcim/device-bay-templates/', { device_type: dt.id, name: 'Bay 1' });
    expect(refused.body).toEqual({ __all__: [`Subdevice role of device type (${dt.model}) must be set to "parent" to allow device bays.`] });
    const parent = (await types({ subdevice_role: 'parent' })).dt;
    await made('/api/dcim/device-bay-templates/', { device_type: parent.id, name: 'Bay 1' });
    const demoted = await suite.api().patch(`/api/dcim/device-types/${parent.id}/`, { subdevice_role: null });
    expect(demoted.status).toBe(400);
    expect(demoted.body).toEqual({ subdevice_role: ['Must delete all device bay templates associated with this device before declassifying it as a parent device.'] });
    expect((await suite.api().get(`/api/dcim/device-types/${parent.id}/`)).body).toMatchObject({ device_bay_template_count: 1, subdevice_role: { value: 'parent' } });
    const bay = await made('/api/dcim/module-bay-templates/', { device_type: parent.id, name: 'Slot 1', position: '1' });
    expect(bay).toMatchObject({ display: 'Slot 1', position: '1', label: '' });
    const noType = await suite.api().post('/api/dcim/module-bay-templates/', { name: 'Slot 2', module_type: 1 });
    expect(noType.status).toBe(400);
    expect(Object.keys(noType.body)).toEqual(['device_type']);
  });
});
