import pg from 'pg';
import { bootStack, Client, readOutbox, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';

/**
 * NetBox 3.7's wireless app, served by dcim (decision 028): what a link does
 * to the interfaces it joins (wireless_link, link peers, connected endpoints,
 * occupancy, events), its rules with NetBox's messages, the delete rules,
 * an interface's wireless LANs, a LAN's VLAN (ipam's, through dcim's
 * projection), and /api/wireless/ through the gateway.
 */
type Obj = Record<string, any>;
const KEY = 'abcdef0123456789abcdef0123456789abcdef02';
let stack: Stack;
let api: Client;
let gw: Client;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, gateway: stackGateway() }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  api = stack.client('dcim');
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(() => stack?.stop());

async function made(path: string, body: Obj | Obj[]): Promise<any> {
  const r = await api.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}
async function get(path: string): Promise<any> {
  const r = await api.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body;
}

let n = 0;
/** A device of its own (site, role, type made once per call). */
async function device(): Promise<Obj> {
  n += 1;
  const site = await made('/api/dcim/sites/', { name: `Wireless site ${n}`, slug: `wireless-site-${n}` });
  const maker = await made('/api/dcim/manufacturers/', { name: `Wireless maker ${n}`, slug: `wireless-maker-${n}` });
  const role = await made('/api/dcim/device-roles/', { name: `Wireless role ${n}`, slug: `wireless-role-${n}`, color: '00ff00' });
  const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: `Wireless model ${n}`, slug: `wireless-model-${n}` });
  return made('/api/dcim/devices/', { name: `ap-${n}`, device_type: dt.id, role: role.id, site: site.id });
}
const radio = (d: Obj, name: string, type = 'ieee802.11ac') => made('/api/dcim/interfaces/', { device: d.id, name, type });

describe('wireless links', () => {
  test('when a link joins two radios, then each shows the link, its peer and its connected endpoint, is occupied, and has its own change event', async () => {
    const [d1, d2] = [await device(), await device()];
    const [a, b] = [await radio(d1, 'wlan0'), await radio(d2, 'wlan0')];
    const link = await made('/api/wireless/wireless-links/', { interface_a: a.id, interface_b: b.id, ssid: 'backhaul', auth_type: 'wpa-personal', auth_psk: 'secret' });
    expect(link).toMatchObject({
      display: 'backhaul',
      interface_a: { id: a.id, name: 'wlan0', device: expect.objectContaining({ id: d1.id }), cable: null, _occupied: true },
      interface_b: { id: b.id, _occupied: true },
      status: { value: 'connected', label: 'Connected' },
      auth_type: { value: 'wpa-personal', label: 'WPA Personal (PSK)' },
      auth_cipher: null,
      auth_psk: 'secret',
      tenant: null,
    });
    expect(link.url).toMatch(new RegExp(`/api/wireless/wireless-links/${link.id}/$`));
    const ia = await get(`/api/dcim/interfaces/${a.id}/`);
    expect(ia).toMatchObject({
      wireless_link: { id: link.id, url: link.url, display: 'backhaul', ssid: 'backhaul' },
      link_peers_type: null,
      connected_endpoints_type: 'dcim.interface',
      connected_endpoints_reachable: true,
      _occupied: true,
      cable: null,
    });
    expect(ia.link_peers.map((p: Obj) => p.id)).toEqual([b.id]);
    expect(ia.connected_endpoints.map((p: Obj) => p.id)).toEqual([b.id]);
    expect((await get(`/api/dcim/interfaces/${b.id}/`)).wireless_link).toMatchObject({ id: link.id });
    expect((await get(`/api/dcim/interfaces/${a.id}/?brief=1`)).connection_status).toEqual({ value: true, label: 'Connected' });
    // the path across the link is stored as a cable's: the connected filter and the trace read it
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&connected=true`)).results.map((x: Obj) => x.id)).toEqual([a.id]);
    const trace = await get(`/api/dcim/interfaces/${a.id}/trace/`);
    expect(trace).toHaveLength(1);
    expect(trace[0][0].map((x: Obj) => x.id)).toEqual([a.id]);
    expect(trace[0][1]).toEqual({ id: link.id, url: link.url, status: 'connected', length: null, description: '' });
    expect(trace[0][2].map((x: Obj) => x.id)).toEqual([b.id]);
    // a planned link is not an active path
    await api.patch(`/api/wireless/wireless-links/${link.id}/`, { status: 'planned' });
    expect((await get(`/api/dcim/interfaces/${a.id}/`)).connected_endpoints_reachable).toBe(false);
    expect((await get(`/api/dcim/interfaces/${b.id}/?brief=1`)).connection_status).toEqual({ value: false, label: 'Not Connected' });
    expect((await get(`/api/dcim/interfaces/?device_id=${d1.id}&connected=true`)).count).toBe(0);
    const events = (await readOutbox(stack.databaseUrl, 'dcim')).filter((e) => e.model === 'dcim.interface' && [a.id, b.id].includes(e.object_id) && e.event === 'updated');
    expect(events.map((e) => e.object_id).sort()).toEqual([a.id, b.id].sort());
    expect(events.map((e) => (e.data as Obj).wireless_link?.id)).toEqual([link.id, link.id]);
    // the device's link filters of NetBox 3.7: the ends by number
    expect((await get(`/api/wireless/wireless-links/?interface_a_id=${a.id}`)).results.map((x: Obj) => x.id)).toEqual([link.id]);
    expect((await get(`/api/wireless/wireless-links/?interface_b_id__lt=${b.id}&id=${link.id}`)).count).toBe(0);
  });

  test("when a link names a wired interface, the same interface twice or an interface already linked, then it is refused with NetBox's messages", async () => {
    const d = await device();
    const [a, b, c] = [await radio(d, 'wlan0'), await radio(d, 'wlan1', 'ieee802.11ax'), await radio(d, 'wlan2')];
    const wired = await made('/api/dcim/interfaces/', { device: d.id, name: 'eth0', type: '1000base-t' });
    const refused = async (body: Obj) => {
      const r = await api.post('/api/wireless/wireless-links/', body);
      expect(r.status).toBe(400);
      return r.body;
    };
    expect(await refused({ interface_a: wired.id, interface_b: a.id })).toEqual({ interface_a: ['1000BASE-T (1GE) is not a wireless interface.'] });
    // NetBox names interface_a for either end
    expect(await refused({ interface_a: a.id, interface_b: wired.id })).toEqual({ interface_a: ['1000BASE-T (1GE) is not a wireless interface.'] });
    expect(await refused({ interface_a: a.id, interface_b: a.id })).toEqual({ interface_b: ['A wireless link cannot connect an interface to itself.'] });
    expect(await refused({ interface_a: a.id })).toEqual({ interface_b: ['This field is required.'] });
    const link = await made('/api/wireless/wireless-links/', { interface_a: a.id, interface_b: b.id });
    expect(link.display).toBe(`#${link.id}`);
    const dup = await refused({ interface_a: a.id, interface_b: b.id });
    expect(Object.values(dup).flat()).toEqual(['Wireless link with this Interface A and Interface B already exists.']);
    expect(await refused({ interface_a: c.id, interface_b: b.id })).toEqual({ interface_b: [`Interface wlan1 of ${d.name} already has a wireless link (#${link.id}).`] });
    // one bulk write naming an interface twice: none of it is stored
    const e = await radio(d, 'wlan3');
    const f = await radio(d, 'wlan4');
    const bulk = await api.post('/api/wireless/wireless-links/', [
      { interface_a: c.id, interface_b: e.id },
      { interface_a: f.id, interface_b: e.id },
    ]);
    expect(bulk.status).toBe(400);
    expect((await get(`/api/wireless/wireless-links/?interface_a_id=${c.id}`)).count).toBe(0);
    expect((await get(`/api/dcim/interfaces/${e.id}/`)).wireless_link).toBeNull();
  });

  test('when a link moves to another interface, then the old one is cleared and the new one set', async () => {
    const d = await device();
    const [a, b, c] = [await radio(d, 'wlan0'), await radio(d, 'wlan1'), await radio(d, 'wlan2')];
    const link = await made('/api/wireless/wireless-links/', { interface_a: a.id, interface_b: b.id, ssid: 'move' });
    const r = await api.patch(`/api/wireless/wireless-links/${link.id}/`, { interface_b: c.id });
    expect(r.status).toBe(200);
    expect((await get(`/api/dcim/interfaces/${b.id}/`)).wireless_link).toBeNull();
    expect((await get(`/api/dcim/interfaces/${b.id}/`))._occupied).toBe(false);
    expect((await get(`/api/dcim/interfaces/${c.id}/`)).wireless_link).toMatchObject({ id: link.id });
    const ia = await get(`/api/dcim/interfaces/${a.id}/`);
    expect(ia.link_peers.map((p: Obj) => p.id)).toEqual([c.id]);
    expect(ia.connected_endpoints.map((p: Obj) => p.id)).toEqual([c.id]);
    expect((await get(`/api/dcim/interfaces/${c.id}/`)).connected_endpoints.map((p: Obj) => p.id)).toEqual([a.id]);
    expect((await get(`/api/dcim/interfaces/${b.id}/`)).connected_endpoints).toBeNull();
  });

  test('when an interface in a link is deleted it is refused; when the link is deleted the interfaces are freed; when a device is deleted its links go', async () => {
    const [d1, d2] = [await device(), await device()];
    const [a, b] = [await radio(d1, 'wlan0'), await radio(d2, 'wlan0')];
    const link = await made('/api/wireless/wireless-links/', { interface_a: a.id, interface_b: b.id, ssid: 'doomed' });
    const protectedDelete = await api.delete(`/api/dcim/interfaces/${a.id}/`);
    expect(protectedDelete.status).toBe(409);
    expect(protectedDelete.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: doomed (${link.id})`);
    expect((await api.delete(`/api/wireless/wireless-links/${link.id}/`)).status).toBe(204);
    for (const id of [a.id, b.id]) {
      expect(await get(`/api/dcim/interfaces/${id}/`)).toMatchObject({ wireless_link: null, link_peers: [], connected_endpoints: null, _occupied: false });
    }
    const again = await made('/api/wireless/wireless-links/', { interface_a: a.id, interface_b: b.id });
    expect((await api.delete(`/api/dcim/devices/${d1.id}/`)).status).toBe(204);
    expect((await api.get(`/api/wireless/wireless-links/${again.id}/`)).status).toBe(404);
    expect((await get(`/api/dcim/interfaces/${b.id}/`)).wireless_link).toBeNull();
  });
});

describe('wireless LANs', () => {
  test('when interfaces name wireless LANs, then they show them by id and lose them when a LAN goes; groups count the LANs below them', async () => {
    const d = await device();
    const top = await made('/api/wireless/wireless-lan-groups/', { name: 'Campus', slug: 'campus' });
    const sub = await made('/api/wireless/wireless-lan-groups/', { name: 'Building 1', slug: 'building-1', parent: top.id });
    // the nested parent has no count: NetBox's parent is not annotated, and DRF skips the read-only field
    expect(sub).toMatchObject({ parent: { id: top.id, url: top.url, display: 'Campus', name: 'Campus', slug: 'campus', _depth: 0 }, _depth: 1 });
    expect(sub.parent).not.toHaveProperty('wirelesslan_count');
    const corp = await made('/api/wireless/wireless-lans/', { ssid: 'corp', group: sub.id });
    const guest = await made('/api/wireless/wireless-lans/', { ssid: 'guest', group: top.id, status: 'disabled' });
    expect(corp).toMatchObject({ group: { id: sub.id, slug: 'building-1', _depth: 1 }, status: { value: 'active', label: 'Active' }, auth_type: null, vlan: null });
    expect((await get(`/api/wireless/wireless-lan-groups/${top.id}/`)).wirelesslan_count).toBe(2);
    expect((await get(`/api/wireless/wireless-lan-groups/${sub.id}/`)).wirelesslan_count).toBe(1);
    expect((await get(`/api/wireless/wireless-lans/?group_id=${top.id}`)).results.map((x: Obj) => x.ssid)).toEqual(['corp', 'guest']);
    expect((await get(`/api/wireless/wireless-lans/?group=building-1`)).results.map((x: Obj) => x.ssid)).toEqual(['corp']);
    // names and slugs of groups are unique among all groups, not only siblings
    const twin = await api.post('/api/wireless/wireless-lan-groups/', { name: 'Building 1', slug: 'building-1b' });
    expect(twin.status).toBe(400);
    expect(twin.body).toEqual({ name: ['wireless LAN group with this name already exists.'] });

    const wlan = await made('/api/dcim/interfaces/', { device: d.id, name: 'wlan0', type: 'ieee802.11ax', wireless_lans: [corp.id, guest.id] });
    expect(wlan.wireless_lans).toEqual([
      { id: corp.id, url: corp.url, display: 'corp', ssid: 'corp' },
      { id: guest.id, url: guest.url, display: 'guest', ssid: 'guest' },
    ]);
    // a bulk create stores each item's own links and tags (one statement per link table for all of them)
    const tagged = await gw.post('/api/extras/tags/', { name: 'Radio', slug: 'radio' });
    expect(tagged.status).toBe(201);
    const tag = tagged.body;
    const bulk = await made('/api/dcim/interfaces/', [
      { device: d.id, name: 'wlan1', type: 'ieee802.11ax', wireless_lans: [guest.id], tags: [tag.id] },
      { device: d.id, name: 'wlan2', type: 'ieee802.11ax', wireless_lans: [], tags: [] },
      { device: d.id, name: 'wlan3', type: 'ieee802.11ax', wireless_lans: [corp.id, guest.id] },
    ]);
    const stored = await Promise.all(bulk.map((w: Obj) => get(`/api/dcim/interfaces/${w.id}/`)));
    expect(stored.map((w: Obj) => [w.wireless_lans.map((x: Obj) => x.id), w.tags.map((t: Obj) => t.slug)])).toEqual([
      [[guest.id], ['radio']],
      [[], []],
      [[corp.id, guest.id], []],
    ]);
    const bad = await api.patch(`/api/dcim/interfaces/${wlan.id}/`, { wireless_lans: [999999] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['wireless_lans']);
    expect((await api.delete(`/api/wireless/wireless-lans/${guest.id}/`)).status).toBe(204);
    expect((await get(`/api/dcim/interfaces/${wlan.id}/`)).wireless_lans.map((x: Obj) => x.id)).toEqual([corp.id]);
    // a group's delete leaves its LANs without a group (SET_NULL); its child groups go with it (CASCADE)
    expect((await api.delete(`/api/wireless/wireless-lan-groups/${top.id}/`)).status).toBe(204);
    expect((await get(`/api/wireless/wireless-lans/${corp.id}/`)).group).toBeNull();
    expect((await api.get(`/api/wireless/wireless-lan-groups/${sub.id}/`)).status).toBe(404);
  });

  test("when a LAN names ipam's VLAN, then it reads it from dcim's projection and vlan_id finds it", async () => {
    const client = new pg.Client({ connectionString: stack.databaseUrl });
    await client.connect();
    const id = 800001;
    try {
      await client.query('INSERT INTO "dcim"."_proj_ipam_vlan" (id, version, deleted, nested, data) VALUES ($1, 1, false, $2, $3)', [
        id,
        { id, url: `/api/ipam/vlans/${id}/`, display: 'users (100)', vid: 100, name: 'users' },
        { id, vid: 100, name: 'users', site: null, group: null, status: 'active' },
      ]);
    } finally {
      await client.end();
    }
    const lan = await made('/api/wireless/wireless-lans/', { ssid: 'vlan-lan', vlan: id });
    expect(lan.vlan).toMatchObject({ id, vid: 100, name: 'users' });
    expect((await get(`/api/wireless/wireless-lans/?vlan_id=${id}`)).results.map((x: Obj) => x.id)).toEqual([lan.id]);
    expect((await api.post('/api/wireless/wireless-lans/', { ssid: 'no-vlan', vlan: 999999 })).status).toBe(400);
  });
});

describe('the wireless area through the gateway', () => {
  test('when a client reads /api/ and /api/wireless/, then wireless is listed last and its three endpoints are dcim\'s', async () => {
    const root = await gw.get('/api/');
    expect(root.status).toBe(200);
    expect(Object.keys(root.body).pop()).toBe('wireless');
    expect(root.body.wireless).toBe(`${stack.urls.gateway}/api/wireless/`);
    const area = await gw.get('/api/wireless/');
    expect(area.status).toBe(200);
    expect(area.body).toEqual({
      'wireless-lan-groups': `${stack.urls.gateway}/api/wireless/wireless-lan-groups/`,
      'wireless-lans': `${stack.urls.gateway}/api/wireless/wireless-lans/`,
      'wireless-links': `${stack.urls.gateway}/api/wireless/wireless-links/`,
    });
    const made = await gw.post('/api/wireless/wireless-lan-groups/', { name: 'Through gateway', slug: 'through-gateway' });
    expect(made.status).toBe(201);
    expect(made.body.url).toBe(`${stack.urls.gateway}/api/wireless/wireless-lan-groups/${made.body.id}/`);
    // the merged OpenAPI document has the wireless paths and components
    const schema = await gw.get('/api/schema/?format=json');
    expect(schema.status).toBe(200);
    expect(Object.keys(schema.body.paths)).toEqual(expect.arrayContaining(['/api/wireless/wireless-lans/', '/api/wireless/wireless-links/{id}/']));
    expect(Object.keys(schema.body.components.schemas)).toEqual(expect.arrayContaining(['WirelessLANGroup', 'BriefWirelessLAN', 'WirelessLink']));
  });
});
