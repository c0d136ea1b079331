import pg from 'pg';
import { readOutbox } from '@inventory/testkit';
import { dcimSuite, type Obj } from './stack';

const suite = dcimSuite();
const made = (path: string, body: Obj | Obj[]) => suite.made(path, body);
const get = async (path: string) => {
  const r = await suite.api().get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body;
};
let n = 0;

/** A site, role and device type, and `count` devices of them. */
async function devices(count: number): Promise<Obj[]> {
  n += 1;
  const site = await made('/api/dcim/sites/', { name: `Cable site ${n}`, slug: `cable-site-${n}` });
  const maker = await made('/api/dcim/manufacturers/', { name: `Cable maker ${n}`, slug: `cable-maker-${n}` });
  const role = await made('/api/dcim/device-roles/', { name: `Cable role ${n}`, slug: `cable-role-${n}`, color: '00ff00' });
  const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: `Cable model ${n}`, slug: `cable-model-${n}` });
  const out: Obj[] = [];
  for (let i = 1; i <= count; i++) out.push(await made('/api/dcim/devices/', { name: `dev${n}-${i}`, device_type: dt.id, role: role.id, site: site.id }));
  return out;
}

const iface = (device: Obj, name: string, extra: Obj = {}) => made('/api/dcim/interfaces/', { device: device.id, name, type: '1000base-t', ...extra });
const end = (type: string, ...objs: Obj[]) => objs.map((o) => ({ object_type: type, object_id: o.id }));
const cable = (a: Obj[], b: Obj[], extra: Obj = {}) => made('/api/dcim/cables/', { a_terminations: a, b_terminations: b, ...extra });
/** A path node as the nested form shows it: id and display. */
const brief = (o: Obj) => ({ id: o.id, display: o.display });

describe('cables', () => {
  test('when a cable joins two interfaces, then both show the cable, their end, link peers and connected endpoints', async () => {
    const [d1, d2] = await devices(2);
    const i1 = await iface(d1, 'eth0');
    const i2 = await iface(d2, 'eth0', { label: 'Uplink' });
    const c = await cable(end('dcim.interface', i1), end('dcim.interface', i2), { label: 'C1', color: 'ff0000', length: 2.5, length_unit: 'm' });
    expect(c).toMatchObject({ display: 'C1', type: '', status: { value: 'connected', label: 'Connected' }, length: 2.5, length_unit: { value: 'm', label: 'Meters' } });
    expect(c.a_terminations).toEqual([{ object_type: 'dcim.interface', object_id: i1.id, object: expect.objectContaining({ id: i1.id, name: 'eth0', cable: c.id, _occupied: true }) }]);
    const a = await get(`/api/dcim/interfaces/${i1.id}/`);
    const b = await get(`/api/dcim/interfaces/${i2.id}/`);
    expect(a).toMatchObject({
      cable: { id: c.id, display: 'C1', label: 'C1' },
      cable_end: 'A',
      link_peers_type: 'dcim.interface',
      connected_endpoints_type: 'dcim.interface',
      connected_endpoints_reachable: true,
      _occupied: true,
      mark_connected: false,
    });
    expect(a.link_peers).toEqual([expect.objectContaining({ id: i2.id, display: 'eth0 (Uplink)', device: expect.objectContaining({ id: d2.id }), cable: c.id, _occupied: true })]);
    expect(a.connected_endpoints.map(brief)).toEqual([brief(b)]);
    expect(b).toMatchObject({ cable_end: 'B', link_peers_type: 'dcim.interface', connected_endpoints_reachable: true });
    expect(b.connected_endpoints.map(brief)).toEqual([brief(a)]);
    expect(Object.keys(a).pop()).toBe('_occupied');
    // the nested interface (brief) carries the cable's PK and the seed's connection_status
    const nested = await get(`/api/dcim/interfaces/${i1.id}/?brief=1`);
    expect(nested).toEqual({
      id: i1.id,
      url: a.url,
      display: 'eth0',
      device: expect.objectContaining({ id: d1.id, name: d1.name }),
      name: 'eth0',
      cable: c.id,
      connection_status: { value: true, label: 'Connected' },
      _occupied: true,
    });
    // filters
    const ids = async (q: string) => (await get(`/api/dcim/interfaces/?device_id=${d1.id}&device_id=${d2.id}&${q}`)).results.map((x: Obj) => x.id).sort();
    await iface(d1, 'eth1');
    expect(await ids('cabled=true')).toEqual([i1.id, i2.id].sort());
    expect(await ids('connected=true')).toEqual([i1.id, i2.id].sort());
    expect(await ids('cable_end=B')).toEqual([i2.id]);
    expect((await get(`/api/dcim/cables/?device_id=${d2.id}`)).results.map((x: Obj) => x.id)).toEqual([c.id]);
    expect((await get(`/api/dcim/cables/?interface_id=${i1.id}`)).results.map((x: Obj) => x.id)).toEqual([c.id]);
    expect((await get(`/api/dcim/cable-terminations/?cable=${c.id}`)).results.map((x: Obj) => x.cable_end)).toEqual(['A', 'B']);
    // the trace: one segment
    const trace = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(trace).toHaveLength(1);
    expect(trace[0][0].map(brief)).toEqual([brief(a)]);
    expect(trace[0][1]).toEqual({ id: c.id, url: c.url, type: '', status: 'connected', label: 'C1', color: 'ff0000', length: 2.5, length_unit: 'm', description: '' });
    expect(trace[0][2].map(brief)).toEqual([brief(b)]);
  });

  test('when a cable is refused, then NetBox messages say why', async () => {
    const [d1, d2] = await devices(2);
    const i1 = await iface(d1, 'eth0');
    const i2 = await iface(d2, 'eth0');
    const v = await iface(d1, 'vlan10', { type: 'virtual' });
    const cp = await made('/api/dcim/console-ports/', { device: d1.id, name: 'con0' });
    const pp = await made('/api/dcim/power-ports/', { device: d2.id, name: 'psu0' });
    const post = (body: Obj) => suite.api().post('/api/dcim/cables/', body);
    expect((await post({ a_terminations: end('dcim.interface', i1) })).body).toEqual({ __all__: ['Must define A and B terminations when creating a new cable.'] });
    expect((await post({ a_terminations: end('dcim.interface', i1), b_terminations: end('dcim.powerport', pp) })).body).toEqual({
      __all__: ['Incompatible termination types: interface and powerport'],
    });
    expect((await post({ a_terminations: [...end('dcim.interface', i1), ...end('dcim.consoleport', cp)], b_terminations: end('dcim.interface', i2) })).body).toEqual({
      __all__: ['Cannot connect different termination types to same end of cable.'],
    });
    expect((await post({ a_terminations: end('dcim.interface', i1), b_terminations: end('dcim.interface', i1) })).body).toEqual({
      __all__: ['A and B terminations cannot connect to the same object.'],
    });
    expect((await post({ a_terminations: end('dcim.interface', v), b_terminations: end('dcim.interface', i2) })).body).toEqual({
      __all__: ['Cables cannot be terminated to Virtual interfaces'],
    });
    expect((await post({ a_terminations: end('dcim.interface', i1), b_terminations: end('dcim.interface', i2), length: 3 })).body).toEqual({
      __all__: ['Must specify a unit when setting a cable length'],
    });
    expect((await post({ a_terminations: [{ object_type: 'dcim.nothing', object_id: 1 }], b_terminations: [{ object_type: 'interface', object_id: 'x' }] })).body).toEqual({
      a_terminations: [{ object_type: ['Invalid content type: dcim.nothing'] }],
      b_terminations: [{ object_type: ["Invalid value. Specify a content type as '<app_label>.<model_name>'."], object_id: ['A valid integer is required.'] }],
    });
    expect((await post({ a_terminations: end('dcim.interface', { id: 99999999 }), b_terminations: 'x' })).body).toEqual({
      a_terminations: [{ object_id: ['Related object not found using the provided numeric ID: 99999999'] }],
      b_terminations: ['Expected a list of items but got type "str".'],
    });
    const c = await cable(end('dcim.interface', i1), end('dcim.interface', i2));
    const i3 = await iface(d2, 'eth1');
    expect((await post({ a_terminations: end('dcim.interface', i1), b_terminations: end('dcim.interface', i3) })).body).toEqual({
      __all__: [`Duplicate termination found for dcim.interface ${i1.id}: cable ${c.id}`],
    });
    // cabled objects refuse mark_connected; virtual interfaces refuse it too
    expect((await suite.api().patch(`/api/dcim/interfaces/${i1.id}/`, { mark_connected: true })).body).toEqual({ mark_connected: ['Cannot mark as connected with a cable attached.'] });
    expect((await suite.api().patch(`/api/dcim/interfaces/${v.id}/`, { mark_connected: true })).body).toEqual({ mark_connected: ['Virtual interfaces cannot be marked as connected.'] });
    expect((await suite.api().patch(`/api/dcim/interfaces/${i1.id}/`, { type: 'lag' })).body).toEqual({ type: ['Link Aggregation Group (LAG) interfaces cannot have a cable attached.'] });
    const moved = await suite.api().patch(`/api/dcim/interfaces/${i3.id}/`, { device: d1.id });
    expect(moved.body).toEqual({ device: ['Components cannot be moved to a different device.'] });
  });

  test('when a cable is deleted, then both ends lose it and their paths; a status change marks the path inactive', async () => {
    const [d1, d2] = await devices(2);
    const i1 = await iface(d1, 'eth0');
    const i2 = await iface(d2, 'eth0');
    const c = await cable(end('dcim.interface', i1), end('dcim.interface', i2), { status: 'planned' });
    let a = await get(`/api/dcim/interfaces/${i1.id}/`);
    expect(a).toMatchObject({ connected_endpoints_reachable: false, connected_endpoints: [expect.objectContaining({ id: i2.id })] });
    expect((await get(`/api/dcim/interfaces/?id=${i1.id}&connected=true`)).count).toBe(0);
    expect((await get(`/api/dcim/interfaces/${i1.id}/?brief=1`)).connection_status).toEqual({ value: false, label: 'Not Connected' });
    expect((await suite.api().patch(`/api/dcim/cables/${c.id}/`, { status: 'connected' })).status).toBe(200);
    a = await get(`/api/dcim/interfaces/${i1.id}/`);
    expect(a.connected_endpoints_reachable).toBe(true);
    expect((await suite.api().patch(`/api/dcim/cables/${c.id}/`, { status: 'decommissioning' })).status).toBe(200);
    expect((await get(`/api/dcim/interfaces/${i2.id}/`)).connected_endpoints_reachable).toBe(false);
    expect((await suite.api().delete(`/api/dcim/cables/${c.id}/`)).status).toBe(204);
    for (const i of [i1, i2]) {
      expect(await get(`/api/dcim/interfaces/${i.id}/`)).toMatchObject({
        cable: null,
        cable_end: '',
        link_peers: [],
        link_peers_type: null,
        connected_endpoints: null,
        connected_endpoints_type: null,
        connected_endpoints_reachable: null,
        _occupied: false,
      });
      expect(await get(`/api/dcim/interfaces/${i.id}/trace/`)).toEqual([]);
    }
    expect((await get(`/api/dcim/cable-terminations/?cable=${c.id}`)).count).toBe(0);
  });

  test('when interfaces are joined through front and rear ports, then the 6-hop path is stored, traced and listed on the ports', async () => {
    const [d1, p1, p2, d2] = await devices(4);
    const i1 = await iface(d1, 'eth0');
    const i2 = await iface(d2, 'eth0');
    const r1 = await made('/api/dcim/rear-ports/', { device: p1.id, name: 'R1', type: 'lc' });
    const f1 = await made('/api/dcim/front-ports/', { device: p1.id, name: 'F1', type: 'lc', rear_port: r1.id });
    const r2 = await made('/api/dcim/rear-ports/', { device: p2.id, name: 'R2', type: 'lc' });
    const f2 = await made('/api/dcim/front-ports/', { device: p2.id, name: 'F2', type: 'lc', rear_port: r2.id });
    // built from the far end first: the path from i2 stops at the front port until the rest exists
    const c3 = await cable(end('dcim.frontport', f2), end('dcim.interface', i2));
    const c2 = await cable(end('dcim.rearport', r1), end('dcim.rearport', r2));
    expect((await get(`/api/dcim/interfaces/${i2.id}/`)).connected_endpoints).toBeNull();
    const c1 = await cable(end('dcim.interface', i1), end('dcim.frontport', f1));
    const expected = [[i1], [c1], [f1], [r1], [c2], [r2], [f2], [c3], [i2]].map((hop) => hop.map((o) => o.id));
    const a = await get(`/api/dcim/interfaces/${i1.id}/`);
    const b = await get(`/api/dcim/interfaces/${i2.id}/`);
    expect(a.connected_endpoints.map((x: Obj) => x.id)).toEqual([i2.id]);
    expect(b.connected_endpoints.map((x: Obj) => x.id)).toEqual([i1.id]);
    expect(a.link_peers_type).toBe('dcim.frontport');
    const trace = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(trace.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), [seg[1].id], seg[2].map((o: Obj) => o.id)]).flat()).toEqual(expected);
    const back = await get(`/api/dcim/interfaces/${i2.id}/trace/`);
    expect(back.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), [seg[1].id], seg[2].map((o: Obj) => o.id)]).flat()).toEqual([...expected].reverse());
    const paths = await get(`/api/dcim/rear-ports/${r1.id}/paths/`);
    expect(paths).toHaveLength(2);
    for (const p of paths) expect(p).toMatchObject({ is_active: true, is_complete: true, is_split: false });
    expect(paths.map((p: Obj) => p.path.map((hop: Obj[]) => hop.map((o) => o.id)))).toEqual(expect.arrayContaining([expected, [...expected].reverse()]));
    expect((await get(`/api/dcim/front-ports/${f2.id}/paths/`)).length).toBe(2);
    // the device at the other end
    const peer = await get(`/api/dcim/connected-device/?peer_device=${encodeURIComponent(d2.name)}&peer_interface=eth0`);
    expect(peer).toMatchObject({ id: d1.id, name: d1.name });
    expect((await suite.api().get('/api/dcim/connected-device/?peer_device=x')).body).toEqual({ detail: 'Request must include "peer_device" and "peer_interface" filters.' });
    expect((await suite.api().get(`/api/dcim/connected-device/?peer_device=${encodeURIComponent(d2.name)}&peer_interface=nope`)).status).toBe(404);
    // the middle cable goes: both paths stop at the rear ports, incomplete
    expect((await suite.api().delete(`/api/dcim/cables/${c2.id}/`)).status).toBe(204);
    const cut = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(cut.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), seg[1].id === undefined ? [] : [seg[1].id], seg[2].map((o: Obj) => o.id)]).flat()).toEqual([[i1.id], [c1.id], [f1.id], [r1.id], [], []]);
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints).toBeNull();
    expect((await suite.api().get(`/api/dcim/connected-device/?peer_device=${encodeURIComponent(d2.name)}&peer_interface=eth0`)).status).toBe(404);
  });

  test('when a multi-position rear port carries several front ports, then each path comes out at the front port of its own position', async () => {
    const [d1, p1, p2, d2] = await devices(4);
    const left = [await iface(d1, 'eth1'), await iface(d1, 'eth2')];
    const right = [await iface(d2, 'eth1'), await iface(d2, 'eth2')];
    const r1 = await made('/api/dcim/rear-ports/', { device: p1.id, name: 'R1', type: 'mpo', positions: 2 });
    const r2 = await made('/api/dcim/rear-ports/', { device: p2.id, name: 'R2', type: 'mpo', positions: 2 });
    const f1 = [1, 2].map((pos) => made('/api/dcim/front-ports/', { device: p1.id, name: `F${pos}`, type: 'lc', rear_port: r1.id, rear_port_position: pos }));
    const fa = await Promise.all(f1);
    // the far panel's front ports in the other order: position 2 first
    const fb2 = await made('/api/dcim/front-ports/', { device: p2.id, name: 'F2', type: 'lc', rear_port: r2.id, rear_port_position: 2 });
    const fb1 = await made('/api/dcim/front-ports/', { device: p2.id, name: 'F1', type: 'lc', rear_port: r2.id, rear_port_position: 1 });
    await cable(end('dcim.rearport', r1), end('dcim.rearport', r2));
    await cable(end('dcim.interface', left[0]), end('dcim.frontport', fa[0]));
    await cable(end('dcim.interface', left[1]), end('dcim.frontport', fa[1]));
    await cable(end('dcim.frontport', fb1), end('dcim.interface', right[0]));
    await cable(end('dcim.frontport', fb2), end('dcim.interface', right[1]));
    for (const [i, peer] of [[left[0], right[0]], [left[1], right[1]], [right[0], left[0]], [right[1], left[1]]]) {
      const got = await get(`/api/dcim/interfaces/${i.id}/`);
      expect(got.connected_endpoints.map((x: Obj) => x.id)).toEqual([peer.id]);
      expect(got.connected_endpoints_reachable).toBe(true);
    }
    const trace = await get(`/api/dcim/interfaces/${left[1].id}/trace/`);
    expect(trace.map((seg: Obj[]) => seg[2].map((o: Obj) => o.id))).toEqual([[fa[1].id], [r2.id], [right[1].id]]);
    // moving a front port to the other position moves the paths with it
    expect((await suite.api().delete(`/api/dcim/front-ports/${fb1.id}/`)).status).toBe(204);
    expect((await suite.api().patch(`/api/dcim/front-ports/${fb2.id}/`, { rear_port_position: 1 })).status).toBe(200);
    expect((await get(`/api/dcim/interfaces/${left[0].id}/`)).connected_endpoints.map((x: Obj) => x.id)).toEqual([right[1].id]);
    expect((await get(`/api/dcim/interfaces/${left[1].id}/`)).connected_endpoints).toBeNull();
    // a rear port cannot drop below its mapped front ports
    expect((await suite.api().patch(`/api/dcim/rear-ports/${r1.id}/`, { positions: 1 })).body).toEqual({
      positions: ['The number of positions cannot be less than the number of mapped front ports (2)'],
    });
  });

  test('when a power feed feeds a power port and an outlet another, then both are path endpoints', async () => {
    const [d1, d2] = await devices(2);
    const site = (await get(`/api/dcim/devices/${d1.id}/`)).site;
    const panel = await made('/api/dcim/power-panels/', { site: site.id, name: `Panel ${n}` });
    const feed = await made('/api/dcim/power-feeds/', { power_panel: panel.id, name: 'Feed A' });
    expect(feed).toMatchObject({ status: { value: 'active' }, type: { value: 'primary' }, supply: { value: 'ac' }, phase: { value: 'single-phase' }, voltage: 120, amperage: 15, max_utilization: 80, cable: null, _occupied: false });
    const psu = await made('/api/dcim/power-ports/', { device: d1.id, name: 'PSU1', maximum_draw: 500 });
    const outlet = await made('/api/dcim/power-outlets/', { device: d1.id, name: 'O1', power_port: psu.id, feed_leg: 'A' });
    const psu2 = await made('/api/dcim/power-ports/', { device: d2.id, name: 'PSU1' });
    await cable(end('dcim.powerfeed', feed), end('dcim.powerport', psu));
    await cable(end('dcim.poweroutlet', outlet), end('dcim.powerport', psu2));
    expect(await get(`/api/dcim/power-feeds/${feed.id}/`)).toMatchObject({ connected_endpoints_type: 'dcim.powerport', connected_endpoints: [expect.objectContaining({ id: psu.id })], _occupied: true });
    expect(await get(`/api/dcim/power-ports/${psu2.id}/`)).toMatchObject({ connected_endpoints_type: 'dcim.poweroutlet', link_peers_type: 'dcim.poweroutlet' });
    expect((await get(`/api/dcim/power-panels/${panel.id}/`)).powerfeed_count).toBe(1);
    expect((await get(`/api/dcim/power-feeds/?site_id=${site.id}&cabled=true`)).count).toBe(1);
    const other = await made('/api/dcim/power-ports/', { device: d2.id, name: 'PSU2' });
    const bad = await suite.api().post('/api/dcim/power-outlets/', { device: d2.id, name: 'O9', power_port: psu.id });
    expect(bad.body).toEqual({ __all__: ['Parent power port (PSU1) must belong to the same device'] });
    expect((await suite.api().patch(`/api/dcim/power-ports/${other.id}/`, { maximum_draw: 100, allocated_draw: 200 })).body).toEqual({
      allocated_draw: ['Allocated draw cannot exceed the maximum draw (100W).'],
    });
    expect((await suite.api().patch(`/api/dcim/power-feeds/${feed.id}/`, { voltage: -5 })).body).toEqual({ voltage: ['Voltage cannot be negative for AC supply'] });
    // deleting the device takes its components and their ends: the feed's cable now ends nowhere, its path is incomplete
    expect((await suite.api().delete(`/api/dcim/devices/${d1.id}/`)).status).toBe(204);
    expect(await get(`/api/dcim/power-feeds/${feed.id}/`)).toMatchObject({ link_peers: [], link_peers_type: null, connected_endpoints: null, connected_endpoints_reachable: false, _occupied: true });
    const trace = await get(`/api/dcim/power-feeds/${feed.id}/trace/`);
    expect(trace.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), seg[2]])).toEqual([[[feed.id], []]]);
  });

  test('when interfaces name parents, bridges and LAGs, then NetBox rules hold', async () => {
    const [d1, d2] = await devices(2);
    const phys = await iface(d1, 'eth0');
    const other = await iface(d2, 'eth0');
    const lag = await iface(d1, 'bond0', { type: 'lag' });
    const bad = (body: Obj) => suite.api().post('/api/dcim/interfaces/', { device: d1.id, name: `x${Math.random()}`, type: '1000base-t', ...body });
    expect((await bad({ parent: phys.id })).body).toEqual({ parent: ['Only virtual interfaces may be assigned to a parent interface.'] });
    expect((await bad({ type: 'virtual', parent: other.id })).body).toEqual({ parent: [`The selected parent interface (eth0) belongs to a different device (${d2.name})`] });
    expect((await bad({ lag: other.id })).body).toEqual({ lag: [`The selected LAG interface (eth0) belongs to a different device (${d2.name}).`] });
    expect((await bad({ type: 'virtual', lag: lag.id })).body).toEqual({ lag: ['Virtual interfaces cannot have a parent LAG interface.'] });
    expect((await bad({ poe_type: 'type1-ieee802.3af' })).body).toEqual({ poe_type: ['Must specify PoE mode when designating a PoE type.'] });
    expect((await bad({ rf_role: 'ap' })).body).toEqual({ rf_role: ['Wireless role may be set only on wireless interfaces.'] });
    expect((await suite.api().patch(`/api/dcim/interfaces/${lag.id}/`, { lag: lag.id })).body).toEqual({ lag: ['A LAG interface cannot be its own parent.'] });
    const member = await iface(d1, 'eth1', { lag: lag.id, mac_address: 'aa-bb-cc-dd-ee-ff', mode: 'access' });
    expect(member).toMatchObject({ lag: { id: lag.id, name: 'bond0' }, mac_address: 'AA:BB:CC:DD:EE:FF', mode: { value: 'access', label: 'Access' } });
    expect((await bad({ mac_address: 'nope' })).body).toEqual({ mac_address: ['Invalid MAC address format: nope'] });
    for (const spelling of ['aa:bb:cc:dd:ee:ff', 'aabb.ccdd.eeff', 'AABBCCDDEEFF']) {
      expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&mac_address=${spelling}`)).results.map((x: Obj) => x.id)).toEqual([member.id]);
    }
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&mac_address=zz`)).count).toBe(0);
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&mac_address__ic=cc:dd`)).results.map((x: Obj) => x.id)).toEqual([member.id]);
    const wifi = await iface(d1, 'wlan0', { type: 'ieee802.11ac', rf_channel: '5g-36-5180-20' });
    expect(wifi).toMatchObject({ rf_channel_frequency: 5180, rf_channel_width: 20 });
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&lag_id=${lag.id}`)).results.map((x: Obj) => x.id)).toEqual([member.id]);
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&kind=virtual`)).results.map((x: Obj) => x.id)).toEqual([lag.id]);
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&kind=wireless`)).results.map((x: Obj) => x.id)).toEqual([wifi.id]);
  });

  test('when a device has 1,000 interfaces, a quarter of them cabled, then its interface list costs the same statements for 10, 50 or 1,000 rows', async () => {
    const [d1, d2] = await devices(2);
    const mine = await made('/api/dcim/interfaces/', Array.from({ length: 1000 }, (_, i) => ({ device: d1.id, name: `ge-0/0/${i}`, type: '1000base-t', mark_connected: i % 10 === 9 })));
    const theirs = await made('/api/dcim/interfaces/', Array.from({ length: 250 }, (_, i) => ({ device: d2.id, name: `ge-0/0/${i}`, type: '1000base-t' })));
    await made(
      '/api/dcim/cables/',
      theirs.map((t: Obj, i: number) => ({ a_terminations: end('dcim.interface', mine[i * 4]), b_terminations: end('dcim.interface', t), status: i % 2 ? 'connected' : 'planned' })),
    );
    const counts: number[] = [];
    let full: Obj[] = [];
    for (const limit of [10, 50, 1000]) {
      const started = Date.now();
      const r = await suite.api().get(`/api/dcim/interfaces/?device_id=${d1.id}&limit=${limit}`);
      const ms = Date.now() - started;
      expect(r.status).toBe(200);
      expect(r.body.results).toHaveLength(limit);
      counts.push(Number(r.headers.get('x-query-count')));
      if (limit === 1000) {
        full = r.body.results;
        console.log(`GET /api/dcim/interfaces/?device_id=…&limit=1000: ${ms} ms, ${counts[2]} statements`);
      }
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(counts[0]);
    expect(counts[2]).toBe(counts[0]);
    // natural order, and every fourth interface reaches its peer
    expect(full.slice(0, 3).map((x) => x.name)).toEqual(['ge-0/0/0', 'ge-0/0/1', 'ge-0/0/2']);
    const cabled = full.filter((x) => x.cable);
    expect(cabled).toHaveLength(250);
    expect(cabled.every((x) => x.connected_endpoints?.length === 1 && x.link_peers.length === 1)).toBe(true);
    expect(full.filter((x) => x.connected_endpoints_reachable).length).toBe(125);
    expect(full.filter((x) => x._occupied).length).toBe(250 + 100);
  });

  test('when a circuit joins two interfaces, then the path crosses it from A to Z; a circuit on a provider network takes no cable', async () => {
    const [d1, d2] = await devices(2);
    const site = (await get(`/api/dcim/devices/${d1.id}/`)).site;
    const i1 = await iface(d1, 'wan0');
    const i2 = await iface(d2, 'wan0');
    // the circuits service is not part of this stack: its terminations arrive in dcim's projection as its events would bring them
    const client = new pg.Client({ connectionString: suite.stack().databaseUrl });
    await client.connect();
    const term = (id: number, circuit: number, side: string, extra: Obj) => ({
      id,
      nested: { id, url: `/api/circuits/circuit-terminations/${id}/`, display: `CID-${n}: Termination ${side}`, term_side: side, cable: null, _occupied: false },
      data: { id, circuit, term_side: side, site: null, provider_network: null, ...extra },
    });
    const base = 800000 + n * 10;
    const records = [
      term(base + 1, base, 'A', { site: site.id }),
      term(base + 2, base, 'Z', { site: site.id }),
      term(base + 3, base + 1, 'A', { site: site.id }),
      term(base + 4, base + 1, 'Z', { provider_network: 77 }),
    ];
    try {
      for (const r of records) {
        await client.query('INSERT INTO "dcim"."_proj_circuits_circuittermination" (id, version, deleted, nested, data) VALUES ($1, 1, false, $2, $3)', [r.id, r.nested, r.data]);
      }
    } finally {
      await client.end();
    }
    const [ctA, ctZ, ctOther, ctNetwork] = records.map((r) => ({ id: r.id }));
    const c1 = await cable(end('dcim.interface', i1), end('circuits.circuittermination', ctA));
    // the far end of the circuit is on a site with nothing cabled: the path stops there, incomplete
    let trace = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(trace.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), Array.isArray(seg[1]) ? [] : [seg[1].id], seg[2].map((o: Obj) => o.id)])).toEqual([
      [[i1.id], [c1.id], [ctA.id]],
      [[ctZ.id], [], [site.id]],
    ]);
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints).toBeNull();
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).link_peers_type).toBe('circuits.circuittermination');
    // cabled at Z too: complete, both ways
    const c2 = await cable(end('circuits.circuittermination', ctZ), end('dcim.interface', i2));
    trace = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(trace.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), [seg[1].id], seg[2].map((o: Obj) => o.id)])).toEqual([
      [[i1.id], [c1.id], [ctA.id]],
      [[ctZ.id], [c2.id], [i2.id]],
    ]);
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints.map((x: Obj) => x.id)).toEqual([i2.id]);
    expect((await get(`/api/dcim/interfaces/${i2.id}/`)).connected_endpoints.map((x: Obj) => x.id)).toEqual([i1.id]);
    expect((await get(`/api/dcim/cables/?circuittermination_id=${ctZ.id}`)).results.map((x: Obj) => x.id)).toEqual([c2.id]);
    const refused = await suite.api().post('/api/dcim/cables/', { a_terminations: end('circuits.circuittermination', ctNetwork), b_terminations: end('dcim.interface', await iface(d2, 'wan1')) });
    expect(refused.body).toEqual({ __all__: ['Circuit terminations attached to a provider network may not be cabled.'] });
    const missing = await suite.api().post('/api/dcim/cables/', { a_terminations: end('circuits.circuittermination', { id: base + 9 }), b_terminations: end('dcim.interface', await iface(d2, 'wan2')) });
    expect(missing.body).toEqual({ a_terminations: [{ object_id: [`Related object not found using the provided numeric ID: ${base + 9}`] }] });
    // a circuit whose far end is on a provider network completes there
    const i3 = await iface(d1, 'wan3');
    await cable(end('dcim.interface', i3), end('circuits.circuittermination', ctOther));
    expect(await get(`/api/dcim/interfaces/${i3.id}/`)).toMatchObject({ connected_endpoints_type: 'circuits.providernetwork', connected_endpoints_reachable: true });
  });

  test('when the far interface is bridged to another cabled interface, then the trace continues across the bridge', async () => {
    const [d1, d2, d3] = await devices(3);
    const i1 = await iface(d1, 'eth0');
    const i3 = await iface(d2, 'eth1');
    const i2 = await iface(d2, 'eth0', { bridge: i3.id });
    const i4 = await iface(d3, 'eth0');
    const c1 = await cable(end('dcim.interface', i1), end('dcim.interface', i2));
    const c2 = await cable(end('dcim.interface', i3), end('dcim.interface', i4));
    const trace = await get(`/api/dcim/interfaces/${i1.id}/trace/`);
    expect(trace.map((seg: Obj[]) => [seg[0].map((o: Obj) => o.id), [seg[1].id], seg[2].map((o: Obj) => o.id)])).toEqual([
      [[i1.id], [c1.id], [i2.id]],
      [[i3.id], [c2.id], [i4.id]],
    ]);
    // the connected endpoint is still the cable's far end
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints.map((x: Obj) => x.id)).toEqual([i2.id]);
  });

  test("when an interface names ipam's VLANs, then they are global or of the device's site, tagged ones only in tagged mode, and filters find them", async () => {
    const [d1] = await devices(1);
    const site = (await get(`/api/dcim/devices/${d1.id}/`)).site;
    const client = new pg.Client({ connectionString: suite.stack().databaseUrl });
    await client.connect();
    const base = 700000 + n * 10;
    const vlan = (id: number, vid: number, siteId: number | null) => [
      id,
      { id, url: `/api/ipam/vlans/${id}/`, display: `v${vid}`, vid, name: `v${vid}` },
      { id, vid, name: `v${vid}`, site: siteId, group: null, status: 'active' },
    ];
    try {
      for (const v of [vlan(base + 1, 10, null), vlan(base + 2, 20, site.id), vlan(base + 3, 30, 999999)]) {
        await client.query('INSERT INTO "dcim"."_proj_ipam_vlan" (id, version, deleted, nested, data) VALUES ($1, 1, false, $2, $3)', v);
      }
    } finally {
      await client.end();
    }
    const post = (body: Obj) => suite.api().post('/api/dcim/interfaces/', { device: d1.id, name: `v-${Math.random()}`, type: '1000base-t', ...body });
    expect((await post({ mode: 'access', untagged_vlan: base + 3 })).body).toEqual({
      untagged_vlan: ["The untagged VLAN (v30) must belong to the same site as the interface's parent device, or it must be global."],
    });
    expect((await post({ mode: 'tagged', tagged_vlans: [base + 2, base + 3] })).body).toEqual({
      tagged_vlans: ["VLAN v30 must belong to the same site as the interface's parent device, or it must be global."],
    });
    const trunk = await iface(d1, 'trunk0', { mode: 'tagged', untagged_vlan: base + 1, tagged_vlans: [base + 2] });
    expect(trunk).toMatchObject({ untagged_vlan: { id: base + 1, vid: 10, name: 'v10' }, tagged_vlans: [{ id: base + 2, vid: 20, name: 'v20' }] });
    const ids = async (q: string) => (await get(`/api/dcim/interfaces/?device_id=${d1.id}&${q}`)).results.map((x: Obj) => x.id);
    expect(await ids('vlan=20')).toEqual([trunk.id]);
    expect(await ids(`vlan_id=${base + 1}`)).toEqual([trunk.id]);
    // leaving tagged mode drops the tagged VLANs; no mode drops the untagged one too
    expect((await suite.api().patch(`/api/dcim/interfaces/${trunk.id}/`, { mode: 'access' })).body).toMatchObject({ tagged_vlans: [], untagged_vlan: { id: base + 1 } });
    expect((await suite.api().patch(`/api/dcim/interfaces/${trunk.id}/`, { mode: null })).body).toMatchObject({ mode: null, untagged_vlan: null });
  });

  test('when an interface belongs to virtual device contexts, then it shows them and the vdc filters find it', async () => {
    const [d1] = await devices(1);
    const vdc = await made('/api/dcim/virtual-device-contexts/', { name: `VDC ${n}`, device: d1.id, identifier: 7, status: 'active' });
    const i1 = await iface(d1, 'eth0', { vdcs: [vdc.id] });
    await iface(d1, 'eth1');
    expect(Object.keys(i1).slice(3, 6)).toEqual(['device', 'vdcs', 'module']);
    expect(i1.vdcs).toEqual([expect.objectContaining({ id: vdc.id, name: vdc.name, identifier: 7, device: expect.objectContaining({ id: d1.id }) })]);
    const ids = async (q: string) => (await get(`/api/dcim/interfaces/?device_id=${d1.id}&${q}`)).results.map((x: Obj) => x.id);
    expect(await ids(`vdc_id=${vdc.id}`)).toEqual([i1.id]);
    expect(await ids(`vdc=${encodeURIComponent(vdc.name)}`)).toEqual([i1.id]);
    expect(await ids('vdc_identifier=7')).toEqual([i1.id]);
  });

  test('when a cable is moved to another far end, then the old end is detached, the new one attached, and both paths follow', async () => {
    const [d1, d2] = await devices(2);
    const i1 = await iface(d1, 'eth0');
    const old = await iface(d2, 'eth0');
    const next = await iface(d2, 'eth1');
    const c = await cable(end('dcim.interface', i1), end('dcim.interface', old));
    const moved = await suite.api().patch(`/api/dcim/cables/${c.id}/`, { b_terminations: end('dcim.interface', next) });
    expect(moved.status).toBe(200);
    expect(moved.body.b_terminations.map((t: Obj) => t.object_id)).toEqual([next.id]);
    expect(moved.body.a_terminations.map((t: Obj) => t.object_id)).toEqual([i1.id]);
    expect(await get(`/api/dcim/interfaces/${old.id}/`)).toMatchObject({ cable: null, cable_end: '', connected_endpoints: null, _occupied: false });
    expect(await get(`/api/dcim/interfaces/${next.id}/`)).toMatchObject({ cable: { id: c.id }, cable_end: 'B', connected_endpoints: [expect.objectContaining({ id: i1.id })] });
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints.map((x: Obj) => x.id)).toEqual([next.id]);
    // both ends on one side of one cable (a breakout): each end reaches both far ends
    const other = await iface(d2, 'eth2');
    expect((await suite.api().patch(`/api/dcim/cables/${c.id}/`, { b_terminations: end('dcim.interface', next, other) })).status).toBe(200);
    expect((await get(`/api/dcim/interfaces/${i1.id}/`)).connected_endpoints.map((x: Obj) => x.id).sort()).toEqual([next.id, other.id].sort());
    expect((await get(`/api/dcim/interfaces/${other.id}/`)).link_peers.map((x: Obj) => x.id)).toEqual([i1.id]);
    // a PUT without ends keeps them
    const put = await suite.api().put(`/api/dcim/cables/${c.id}/`, { label: 'kept', status: 'connected' });
    expect(put.status).toBe(200);
    expect(put.body.b_terminations).toHaveLength(2);
  });

  test('when a cable is created and deleted, then its ends each have a change event in the same request, with cable and cable_end before and after', async () => {
    const [d1, d2] = await devices(2);
    const i1 = await iface(d1, 'eth0');
    const i2 = await iface(d2, 'eth0');
    const created = await suite.api().post('/api/dcim/cables/', { a_terminations: end('dcim.interface', i1), b_terminations: end('dcim.interface', i2) });
    expect(created.status).toBe(201);
    const c = created.body;
    const deleted = await suite.api().delete(`/api/dcim/cables/${c.id}/`);
    expect(deleted.status).toBe(204);
    const events = (await readOutbox(suite.stack().databaseUrl, 'dcim')).filter(
      (e) => (e.model === 'dcim.cable' && e.object_id === c.id) || (e.model === 'dcim.interface' && [i1.id, i2.id].includes(e.object_id) && e.event === 'updated'),
    );
    const [made, ...rest] = events;
    expect(made).toMatchObject({ event: 'created', model: 'dcim.cable' });
    expect((made.data as Obj).a_terminations.map((t: Obj) => t.object_id)).toEqual([i1.id]);
    const attach = rest.filter((e) => e.request_id === made.request_id);
    expect(attach.map((e) => [e.object_id, e.snapshots.prechange?.cable, e.snapshots.postchange?.cable, e.snapshots.postchange?.cable_end])).toEqual([
      [i1.id, null, c.id, 'A'],
      [i2.id, null, c.id, 'B'],
    ]);
    const gone = rest.find((e) => e.model === 'dcim.cable' && e.event === 'deleted')!;
    const detach = rest.filter((e) => e.model === 'dcim.interface' && e.request_id === gone.request_id);
    expect(detach.map((e) => [e.object_id, e.snapshots.prechange?.cable, e.snapshots.postchange?.cable, e.snapshots.postchange?.cable_end]).sort()).toEqual([
      [i1.id, c.id, null, ''],
      [i2.id, c.id, null, ''],
    ].sort());
  });
});
