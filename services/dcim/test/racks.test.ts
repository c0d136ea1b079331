import { dcimSuite, type Obj } from './stack';

const suite = dcimSuite();
const { made } = suite;

let n = 0;
const aSite = () => {
  n++;
  return made('/api/dcim/sites/', { name: `Rack site ${n}`, slug: `rack-site-${n}` });
};

describe('manufacturers, roles and platforms', () => {
  test('when roles are created without color or vm_role, then NetBox defaults apply, and a bad color is refused', async () => {
    const role = await made('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
    expect(role).toMatchObject({ color: '9e9e9e', vm_role: true, description: '' });
    const rackRole = await made('/api/dcim/rack-roles/', { name: 'Storage', slug: 'storage' });
    expect(rackRole.color).toBe('9e9e9e');
    const bad = await suite.api().post('/api/dcim/rack-roles/', { name: 'Upper', slug: 'upper', color: 'ABCDEF' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ color: ['Enter a valid hexadecimal RGB color code.'] });
  });

  test('when a manufacturer has platforms, then platform_count counts them, platforms filter by it and it cannot be deleted', async () => {
    const maker = await made('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
    await made('/api/dcim/platforms/', [
      { name: 'Junos', slug: 'junos', manufacturer: maker.id },
      { name: 'Junos EVO', slug: 'junos-evo', manufacturer: { slug: 'juniper' } },
      { name: 'Linux', slug: 'linux' },
    ]);
    const got = (await suite.api().get(`/api/dcim/manufacturers/${maker.id}/`)).body;
    expect(got).toMatchObject({ platform_count: 2, devicetype_count: 0, inventoryitem_count: 0 });
    expect((await suite.api().get(`/api/dcim/manufacturers/${maker.id}/?brief=1`)).body).toEqual({
      id: maker.id,
      url: maker.url,
      display: 'Juniper',
      name: 'Juniper',
      slug: 'juniper',
      devicetype_count: 0,
    });
    const mine = await suite.api().get('/api/dcim/platforms/?manufacturer=juniper');
    expect(mine.body.results.map((p: Obj) => p.slug)).toEqual(['junos', 'junos-evo']);
    const junos = mine.body.results[0];
    expect(junos).toMatchObject({ device_count: 0, virtualmachine_count: 0, manufacturer: { id: maker.id, slug: 'juniper' } });
    const refused = await suite.api().delete(`/api/dcim/manufacturers/${maker.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/^Unable to delete object\. 2 dependent objects were found: /);
  });
});

describe('racks', () => {
  test('when a rack is created with only a name and site, then NetBox defaults apply and display is the name', async () => {
    const site = await aSite();
    const rack = await made('/api/dcim/racks/', { name: 'R1', site: site.id });
    expect(rack).toMatchObject({
      display: 'R1',
      facility_id: null,
      status: { value: 'active', label: 'Active' },
      role: null,
      tenant: null,
      serial: '',
      asset_tag: null,
      type: null,
      width: { value: 19, label: '19 inches' },
      u_height: 42,
      starting_unit: 1,
      weight: null,
      max_weight: null,
      weight_unit: null,
      desc_units: false,
      outer_width: null,
      outer_depth: null,
      outer_unit: null,
      mounting_depth: null,
      comments: '',
    });
    const named = await made('/api/dcim/racks/', { name: 'R2', facility_id: 'F-7', site: site.id });
    expect(named.display).toBe('R2 (F-7)');
    expect((await suite.api().get(`/api/dcim/racks/${named.id}/?brief=1`)).body).toEqual({ id: named.id, url: named.url, display: 'R2 (F-7)', name: 'R2', device_count: 0 });
  });

  test('when u_height or starting_unit is out of range, then the field is refused with the Django message', async () => {
    const site = await aSite();
    const tall = await suite.api().post('/api/dcim/racks/', { name: 'Tall', site: site.id, u_height: 101 });
    expect(tall.status).toBe(400);
    expect(tall.body).toEqual({ u_height: ['Ensure this value is less than or equal to 100.'] });
    const flat = await suite.api().post('/api/dcim/racks/', { name: 'Flat', site: site.id, u_height: 0 });
    expect(flat.body).toEqual({ u_height: ['Ensure this value is greater than or equal to 1.'] });
    const low = await suite.api().post('/api/dcim/racks/', { name: 'Low', site: site.id, starting_unit: 0 });
    expect(low.body).toEqual({ starting_unit: ['Ensure this value is greater than or equal to 1.'] });
    expect((await suite.api().post('/api/dcim/racks/', { name: 'Max', site: site.id, u_height: 100 })).status).toBe(201);
  });

  test('when the location is in another site, then the rack is refused naming the site', async () => {
    const home = await aSite();
    const away = await aSite();
    const loc = await made('/api/dcim/locations/', { name: 'Away room', slug: 'away-room', site: away.id });
    const r = await suite.api().post('/api/dcim/racks/', { name: 'Lost', site: home.id, location: loc.id });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ __all__: [`Assigned location must belong to parent site (${home.name}).`] });
    const ok = await made('/api/dcim/racks/', { name: 'Found', site: away.id, location: loc.id });
    const moved = await suite.api().patch(`/api/dcim/racks/${ok.id}/`, { site: home.id });
    expect(moved.body).toEqual({ __all__: [`Assigned location must belong to parent site (${home.name}).`] });
  });

  test('when outer dimensions or weights are set without a unit, then NetBox refuses them; without dimensions the outer unit is cleared', async () => {
    const site = await aSite();
    const cases: [Obj, string][] = [
      [{ outer_width: 600 }, 'Must specify a unit when setting an outer width/depth'],
      [{ outer_depth: 0 }, 'Must specify a unit when setting an outer width/depth'],
      [{ weight: 12.5 }, 'Must specify a unit when setting a weight'],
      [{ max_weight: 500 }, 'Must specify a unit when setting a maximum weight'],
    ];
    for (const [body, message] of cases) {
      const r = await suite.api().post('/api/dcim/racks/', { name: 'Unitless', site: site.id, ...body });
      expect([body, r.status, r.body]).toEqual([body, 400, { __all__: [message] }]);
    }
    const rack = await made('/api/dcim/racks/', { name: 'Measured', site: site.id, outer_width: 600, outer_depth: 1000, outer_unit: 'mm', weight: 80, max_weight: 900, weight_unit: 'kg' });
    expect(rack).toMatchObject({ outer_unit: { value: 'mm', label: 'Millimeters' }, weight: 80, weight_unit: { value: 'kg', label: 'Kilograms' } });
    const cleared = await suite.api().patch(`/api/dcim/racks/${rack.id}/`, { outer_width: null, outer_depth: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.outer_unit).toBeNull();
    const badWeight = await suite.api().post('/api/dcim/racks/', { name: 'Heavy', site: site.id, weight: 1234567.5, weight_unit: 'kg' });
    expect(badWeight.body).toEqual({ weight: ['Ensure that there are no more than 6 digits before the decimal point.'] });
  });

  test('when names repeat within a location, then NetBox refuses them; without a location they may repeat; asset tags are unique everywhere', async () => {
    const site = await aSite();
    const loc = await made('/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: site.id });
    await made('/api/dcim/racks/', { name: 'A1', facility_id: 'X1', site: site.id, location: loc.id, asset_tag: 'TAG-1' });
    const sameName = await suite.api().post('/api/dcim/racks/', { name: 'A1', site: site.id, location: loc.id });
    expect(sameName.body).toEqual({ __all__: ['Rack with this Location and Name already exists.'] });
    const sameFacility = await suite.api().post('/api/dcim/racks/', { name: 'A2', facility_id: 'X1', site: site.id, location: loc.id });
    expect(sameFacility.body).toEqual({ __all__: ['Rack with this Location and Facility ID already exists.'] });
    await made('/api/dcim/racks/', [
      { name: 'A1', site: site.id },
      { name: 'A1', site: site.id },
    ]);
    const tag = await suite.api().post('/api/dcim/racks/', { name: 'A3', site: site.id, asset_tag: 'TAG-1' });
    expect(tag.body).toEqual({ asset_tag: ['Rack with this Asset tag already exists.'] });
  });

  test('when racks have a role, site and location, then rack_count counts them there (locations with their descendants) and filters follow', async () => {
    const site = await aSite();
    const role = await made('/api/dcim/rack-roles/', { name: 'Network', slug: 'network' });
    const top = await made('/api/dcim/locations/', { name: 'Floor', slug: 'floor', site: site.id });
    const room = await made('/api/dcim/locations/', { name: 'Room', slug: 'room', site: site.id, parent: top.id });
    await made('/api/dcim/racks/', [
      { name: 'N1', site: site.id, location: room.id, role: role.id },
      { name: 'N2', site: site.id, location: top.id, role: { slug: 'network' } },
      { name: 'N3', site: site.id },
    ]);
    expect((await suite.api().get(`/api/dcim/rack-roles/${role.id}/`)).body.rack_count).toBe(2);
    expect((await suite.api().get(`/api/dcim/sites/${site.id}/`)).body.rack_count).toBe(3);
    const locs = await suite.api().get(`/api/dcim/locations/?site_id=${site.id}`);
    expect(locs.body.results.map((l: Obj) => [l.slug, l.rack_count])).toEqual([
      ['floor', 2],
      ['room', 1],
    ]);
    const inFloor = await suite.api().get(`/api/dcim/racks/?location=floor&site_id=${site.id}`);
    // ordered by site, then location in tree order (the floor before its room), then name
    expect(inFloor.body.results.map((r: Obj) => r.name)).toEqual(['N2', 'N1']);
    const deleted = await suite.api().delete(`/api/dcim/rack-roles/${role.id}/`);
    expect(deleted.status).toBe(409);
  });
});

describe('racks and what they sit in', () => {
  test('when a location moves to another site, then the racks in it and in its descendants move with it', async () => {
    const [from, to] = [await aSite(), await aSite()];
    const top = await made('/api/dcim/locations/', { name: 'Moving floor', slug: 'moving-floor', site: from.id });
    const room = await made('/api/dcim/locations/', { name: 'Moving room', slug: 'moving-room', site: from.id, parent: top.id });
    const [inTop, inRoom, outside] = await made('/api/dcim/racks/', [
      { name: 'M1', site: from.id, location: top.id },
      { name: 'M2', site: from.id, location: room.id },
      { name: 'M3', site: from.id },
    ]);
    expect((await suite.api().patch(`/api/dcim/locations/${top.id}/`, { site: to.id })).status).toBe(200);
    const siteOf = async (id: number) => (await suite.api().get(`/api/dcim/racks/${id}/`)).body.site.id;
    expect([await siteOf(inTop.id), await siteOf(inRoom.id), await siteOf(outside.id)]).toEqual([to.id, to.id, from.id]);
  });

  test('when a site, location or rack is deleted, then racks protect the site, lose the location, and take their reservations along', async () => {
    const site = await aSite();
    const loc = await made('/api/dcim/locations/', { name: 'Doomed', slug: 'doomed', site: site.id });
    const rack = await made('/api/dcim/racks/', { name: 'Survivor', site: site.id, location: loc.id });
    const protectedSite = await suite.api().delete(`/api/dcim/sites/${site.id}/`);
    expect(protectedSite.status).toBe(409);
    expect(protectedSite.body.detail).toMatch(/^Unable to delete object\. 1 dependent objects were found: Survivor/);
    expect((await suite.api().delete(`/api/dcim/locations/${loc.id}/`)).status).toBe(204);
    expect((await suite.api().get(`/api/dcim/racks/${rack.id}/`)).body.location).toBeNull();
    const user = await made('/api/users/users/', { username: 'doomed-reserver', password: 'Secret-Passw0rd!' }, suite.stack().client('users'));
    const res = await made('/api/dcim/rack-reservations/', { rack: rack.id, units: [1], user: user.id, description: 'gone with the rack' });
    expect((await suite.api().delete(`/api/dcim/racks/${rack.id}/`)).status).toBe(204);
    expect((await suite.api().get(`/api/dcim/rack-reservations/${res.id}/`)).status).toBe(404);
  });
});

describe('rack reservations', () => {
  let user: Obj;
  beforeAll(async () => {
    user = await made('/api/users/users/', { username: 'planner', password: 'Secret-Passw0rd!', first_name: 'Pat', last_name: 'Planner' }, suite.stack().client('users'));
  });

  test('when units are outside the rack, then NetBox refuses them on units naming the rack height and the units', async () => {
    const site = await aSite();
    const rack = await made('/api/dcim/racks/', { name: 'Small', site: site.id, u_height: 10, starting_unit: 5 });
    const r = await suite.api().post('/api/dcim/rack-reservations/', { rack: rack.id, units: [4, 5, 14, 15], user: user.id, description: 'too far' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ units: ['Invalid unit(s) for 10U rack: 4, 15'] });
    const negative = await suite.api().post('/api/dcim/rack-reservations/', { rack: rack.id, units: [5, -1], user: user.id, description: 'negative' });
    expect(negative.body).toEqual({ units: ['Item 2 in the array did not validate: Ensure this value is greater than or equal to 0.'] });
    expect((await suite.api().post('/api/dcim/rack-reservations/', { rack: rack.id, units: [5, 14], user: user.id, description: 'edges' })).status).toBe(201);
  });

  test('when units are already reserved in the rack, then NetBox refuses them; the reservation itself and other racks do not conflict', async () => {
    const site = await aSite();
    const [rackA, rackB] = await made('/api/dcim/racks/', [
      { name: 'Busy', site: site.id },
      { name: 'Free', site: site.id },
    ]);
    const first = await made('/api/dcim/rack-reservations/', { rack: rackA.id, units: [1, 2, 3], user: user.id, description: 'first' });
    const clash = await suite.api().post('/api/dcim/rack-reservations/', { rack: rackA.id, units: [3, 4, 2], user: user.id, description: 'second' });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ units: ['The following units have already been reserved: 3, 2'] });
    expect((await suite.api().patch(`/api/dcim/rack-reservations/${first.id}/`, { units: [1, 2, 3, 4] })).status).toBe(200);
    expect((await suite.api().post('/api/dcim/rack-reservations/', { rack: rackB.id, units: [1, 2, 3], user: user.id, description: 'other rack' })).status).toBe(201);
  });

  test('when a reservation is read, then units are integers, the user is nested (brief: its username) and display names the rack', async () => {
    const site = await aSite();
    const rack = await made('/api/dcim/racks/', { name: 'Shown', facility_id: 'S-1', site: site.id });
    const res = await made('/api/dcim/rack-reservations/', { rack: rack.id, units: [7, 8], user: { username: 'planner' }, description: 'shown' });
    expect(res).toMatchObject({ display: 'Reservation for rack Shown (S-1)', units: [7, 8], user: { id: user.id, username: 'planner', display: 'planner (Pat Planner)' }, tenant: null, comments: '' });
    const brief = (await suite.api().get(`/api/dcim/rack-reservations/${res.id}/?brief=1`)).body;
    expect(brief).toEqual({ id: res.id, url: res.url, display: 'Reservation for rack Shown (S-1)', user: 'planner', units: [7, 8] });
    const blank = await suite.api().post('/api/dcim/rack-reservations/', { rack: rack.id, units: [9], user: user.id, description: '' });
    expect(blank.body).toEqual({ description: ['This field may not be blank.'] });
    const noUser = await suite.api().post('/api/dcim/rack-reservations/', { rack: rack.id, units: [9], description: 'nobody' });
    expect(noUser.body).toEqual({ user: ['This field is required.'] });
  });

  test("when reservations are filtered by the rack's region, site, location or the user, then the rack's place decides", async () => {
    const region = await made('/api/dcim/regions/', { name: 'Reserved region', slug: 'reserved-region' });
    const sub = await made('/api/dcim/regions/', { name: 'Reserved subregion', slug: 'reserved-subregion', parent: region.id });
    const site = await made('/api/dcim/sites/', { name: 'Regional', slug: 'regional', region: sub.id });
    const loc = await made('/api/dcim/locations/', { name: 'Cage', slug: 'cage', site: site.id });
    const rack = await made('/api/dcim/racks/', { name: 'Caged', site: site.id, location: loc.id });
    const other = await made('/api/dcim/racks/', { name: 'Elsewhere', site: (await aSite()).id });
    const here = await made('/api/dcim/rack-reservations/', { rack: rack.id, units: [1], user: user.id, description: 'here' });
    await made('/api/dcim/rack-reservations/', { rack: other.id, units: [1], user: user.id, description: 'there' });
    const ids = async (q: string) => (await suite.api().get(`/api/dcim/rack-reservations/?${q}`)).body.results.map((r: Obj) => r.id);
    expect(await ids('region=reserved-region')).toEqual([here.id]);
    expect(await ids(`region_id=${region.id}`)).toEqual([here.id]);
    expect(await ids('site=regional')).toEqual([here.id]);
    expect(await ids(`location_id=${loc.id}`)).toEqual([here.id]);
    expect(await ids('q=caged')).toEqual([here.id]);
    expect(await ids('user=planner&description=there')).toHaveLength(1);
    expect((await suite.api().get('/api/dcim/rack-reservations/?region=nowhere')).status).toBe(400);
  });
});
