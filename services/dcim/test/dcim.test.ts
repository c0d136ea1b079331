import { bootStack, eventually, readOutbox, type Client, type Stack } from '@inventory/testkit';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, dcim }, {}, { template: true });
  api = stack.client('dcim');
});
afterAll(() => stack?.stop());

type Obj = Record<string, any>;

async function made(path: string, body: Obj | Obj[]): Promise<any> {
  const r = await api.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}

const names = (r: { body: { results: Obj[] } }) => r.body.results.map((x) => x.name);
const slugs = (r: { body: { results: Obj[] } }) => r.body.results.map((x) => x.slug).sort();

describe('regions and site groups', () => {
  test('when a name or slug repeats among siblings or among top-level nodes, then the write is refused with NetBox messages', async () => {
    const europe = await made('/api/dcim/regions/', { name: 'Europe', slug: 'europe' });
    await made('/api/dcim/regions/', { name: 'North', slug: 'eu-north', parent: europe.id });
    const sibling = await api.post('/api/dcim/regions/', { name: 'North', slug: 'eu-north-2', parent: europe.id });
    expect(sibling.status).toBe(400);
    expect(sibling.body).toEqual({ __all__: ['Region with this Parent and Name already exists.'] });
    const siblingSlug = await api.post('/api/dcim/regions/', { name: 'North 2', slug: 'eu-north', parent: europe.id });
    expect(siblingSlug.body).toEqual({ __all__: ['Region with this Parent and Slug already exists.'] });
    const topName = await api.post('/api/dcim/regions/', { name: 'Europe', slug: 'europe-2' });
    expect(topName.body).toEqual({ __all__: ['A top-level region with this name already exists.'] });
    const topSlug = await api.post('/api/dcim/regions/', { name: 'Europe 2', slug: 'europe' });
    expect(topSlug.body).toEqual({ __all__: ['A top-level region with this slug already exists.'] });
    // the same name and slug under another parent (or at the top) are fine
    expect((await api.post('/api/dcim/regions/', { name: 'North', slug: 'north' })).status).toBe(201);
    const group = await made('/api/dcim/site-groups/', { name: 'Edge', slug: 'edge' });
    const topGroup = await api.post('/api/dcim/site-groups/', { name: 'Edge', slug: 'edge-2' });
    expect(topGroup.body).toEqual({ __all__: ['A top-level site group with this name already exists.'] });
    await made('/api/dcim/site-groups/', { name: 'POP', slug: 'pop', parent: group.id });
    const groupSibling = await api.post('/api/dcim/site-groups/', { name: 'POP', slug: 'pop-2', parent: group.id });
    expect(groupSibling.body).toEqual({ __all__: ['Site group with this Parent and Name already exists.'] });
  });

  test('when a region or site group would become its own ancestor, then the write is refused naming the parent', async () => {
    const root = await made('/api/dcim/regions/', { name: 'Cycle root', slug: 'cycle-root' });
    const child = await made('/api/dcim/regions/', { name: 'Cycle child', slug: 'cycle-child', parent: root.id });
    const grandchild = await made('/api/dcim/regions/', { name: 'Cycle grandchild', slug: 'cycle-grandchild', parent: child.id });
    const self = await api.patch(`/api/dcim/regions/${root.id}/`, { parent: root.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ parent: ['Cannot assign self or child region as parent.'] });
    const descendant = await api.patch(`/api/dcim/regions/${root.id}/`, { parent: grandchild.id });
    expect(descendant.body).toEqual({ parent: ['Cannot assign self or child region as parent.'] });
    expect((await api.get(`/api/dcim/regions/${root.id}/`)).body.parent).toBeNull();
    const group = await made('/api/dcim/site-groups/', { name: 'Cycle group', slug: 'cycle-group' });
    const groupSelf = await api.patch(`/api/dcim/site-groups/${group.id}/`, { parent: group.id });
    expect(groupSelf.body).toEqual({ parent: ['Cannot assign self or child site group as parent.'] });
  });

  test('when sites sit in a region and its descendants, then site_count counts them all and parent filters only the direct children', async () => {
    const root = await made('/api/dcim/regions/', { name: 'Americas', slug: 'americas' });
    const mid = await made('/api/dcim/regions/', { name: 'US', slug: 'us', parent: root.id });
    const leaf = await made('/api/dcim/regions/', { name: 'US East', slug: 'us-east', parent: mid.id });
    await made('/api/dcim/sites/', [
      { name: 'Count mid', slug: 'count-mid', region: mid.id },
      { name: 'Count leaf 1', slug: 'count-leaf-1', region: leaf.id },
      { name: 'Count leaf 2', slug: 'count-leaf-2', region: { slug: 'us-east' } },
    ]);
    const counts = await api.get(`/api/dcim/regions/?id=${root.id}&id=${mid.id}&id=${leaf.id}`);
    expect(counts.body.results.map((r: Obj) => [r.slug, r.site_count, r._depth])).toEqual([
      ['americas', 3, 0],
      ['us', 3, 1],
      ['us-east', 2, 2],
    ]);
    const brief = await api.get(`/api/dcim/regions/${root.id}/?brief=1`);
    expect(brief.body).toMatchObject({ slug: 'americas', site_count: 3, _depth: 0 });
    expect(slugs(await api.get('/api/dcim/regions/?parent=americas'))).toEqual(['us']);
    expect(slugs(await api.get(`/api/dcim/regions/?parent_id=${mid.id}`))).toEqual(['us-east']);

    const groupRoot = await made('/api/dcim/site-groups/', { name: 'Tier 1', slug: 'tier-1' });
    const groupLeaf = await made('/api/dcim/site-groups/', { name: 'Tier 1a', slug: 'tier-1a', parent: groupRoot.id });
    await made('/api/dcim/sites/', { name: 'Grouped', slug: 'grouped', group: groupLeaf.id });
    expect((await api.get(`/api/dcim/site-groups/${groupRoot.id}/`)).body.site_count).toBe(1);
    // a site leaving the subtree is no longer counted
    const site = (await api.get('/api/dcim/sites/?slug=grouped')).body.results[0];
    expect((await api.patch(`/api/dcim/sites/${site.id}/`, { group: null })).status).toBe(200);
    expect((await api.get(`/api/dcim/site-groups/${groupRoot.id}/`)).body.site_count).toBe(0);
  });
});

describe('sites', () => {
  test('when names hold numbers, then the default order and ordering=name compare them as numbers', async () => {
    await made('/api/dcim/sites/', [
      { name: 'Nat 10', slug: 'nat-10' },
      { name: 'Nat 2', slug: 'nat-2' },
      { name: 'Nat 1', slug: 'nat-1' },
      { name: 'Nat 2a', slug: 'nat-2a' },
    ]);
    const natural = ['Nat 1', 'Nat 2', 'Nat 2a', 'Nat 10'];
    expect(names(await api.get('/api/dcim/sites/?name__isw=Nat '))).toEqual(natural);
    expect(names(await api.get('/api/dcim/sites/?name__isw=Nat &ordering=name'))).toEqual(natural);
    expect(names(await api.get('/api/dcim/sites/?name__isw=Nat &ordering=-name'))).toEqual([...natural].reverse());
    // relations sort by the site's key too
    const a = (await api.get('/api/dcim/sites/?slug=nat-10')).body.results[0];
    const b = (await api.get('/api/dcim/sites/?slug=nat-2')).body.results[0];
    await made('/api/dcim/locations/', [
      { name: 'In ten', slug: 'in-ten', site: a.id },
      { name: 'In two', slug: 'in-two', site: b.id },
    ]);
    expect(names(await api.get('/api/dcim/locations/?slug=in-ten&slug=in-two&ordering=site'))).toEqual(['In two', 'In ten']);
  });

  test('when latitude or longitude has too many digits, then DRF decimal messages name the field', async () => {
    const cases: [Obj, string, string][] = [
      [{ latitude: 123.5 }, 'latitude', 'Ensure that there are no more than 2 digits before the decimal point.'],
      [{ latitude: 1.1234567 }, 'latitude', 'Ensure that there are no more than 6 decimal places.'],
      [{ latitude: '123456789' }, 'latitude', 'Ensure that there are no more than 8 digits in total.'],
      [{ latitude: 1e-7 }, 'latitude', 'Ensure that there are no more than 6 decimal places.'],
      [{ longitude: 1234.5 }, 'longitude', 'Ensure that there are no more than 3 digits before the decimal point.'],
      [{ longitude: 'east' }, 'longitude', 'A valid number is required.'],
      [{ longitude: true }, 'longitude', 'A valid number is required.'],
    ];
    for (const [body, field, message] of cases) {
      const r = await api.post('/api/dcim/sites/', { name: 'Bad geo', slug: 'bad-geo', ...body });
      expect([body, r.status, r.body]).toEqual([body, 400, { [field]: [message] }]);
    }
    const ok = await made('/api/dcim/sites/', { name: 'Geo', slug: 'geo', latitude: '40.712776', longitude: -74.005974 });
    expect([ok.latitude, ok.longitude]).toEqual([40.712776, -74.005974]);
    const edge = await api.patch(`/api/dcim/sites/${ok.id}/`, { latitude: -99.999999, longitude: '179.1e0' });
    expect([edge.status, edge.body.latitude, edge.body.longitude]).toEqual([200, -99.999999, 179.1]);
    const cleared = await api.patch(`/api/dcim/sites/${ok.id}/`, { latitude: '', longitude: null });
    expect([cleared.body.latitude, cleared.body.longitude]).toEqual([null, null]);
    expect(names(await api.get('/api/dcim/sites/?latitude__empty=false&slug=geo'))).toEqual([]);
  });

  test('when a time zone is written, then IANA names and aliases are kept as strings and anything else is refused', async () => {
    const site = await made('/api/dcim/sites/', { name: 'Zoned', slug: 'zoned', time_zone: 'America/New_York' });
    expect(site.time_zone).toBe('America/New_York');
    for (const zone of ['UTC', 'US/Eastern', 'Etc/GMT+5', 'Asia/Kolkata', 'Europe/Kyiv']) {
      const r = await api.patch(`/api/dcim/sites/${site.id}/`, { time_zone: zone });
      expect([zone, r.status, r.body.time_zone]).toEqual([zone, 200, zone]);
    }
    for (const zone of ['Mars/Olympus_Mons', 'america/new_york', '', '+01:00', 5]) {
      const r = await api.patch(`/api/dcim/sites/${site.id}/`, { time_zone: zone });
      expect([zone, r.status, r.body]).toEqual([zone, 400, { time_zone: ['A valid timezone is required.'] }]);
    }
    const cleared = await api.patch(`/api/dcim/sites/${site.id}/`, { time_zone: null });
    expect(cleared.body.time_zone).toBeNull();
  });

  test('when sites are filtered by a region or group slug, then sites of descendant nodes match too', async () => {
    const emea = await made('/api/dcim/regions/', { name: 'EMEA', slug: 'emea' });
    const de = await made('/api/dcim/regions/', { name: 'Germany', slug: 'de', parent: emea.id });
    const ber = await made('/api/dcim/regions/', { name: 'Berlin', slug: 'ber', parent: de.id });
    const other = await made('/api/dcim/regions/', { name: 'APAC', slug: 'apac' });
    const core = await made('/api/dcim/site-groups/', { name: 'Core', slug: 'core' });
    const coreDc = await made('/api/dcim/site-groups/', { name: 'Core DC', slug: 'core-dc', parent: core.id });
    await made('/api/dcim/sites/', [
      { name: 'Tree top', slug: 'tree-top', region: emea.id },
      { name: 'Tree deep', slug: 'tree-deep', region: ber.id, group: coreDc.id },
      { name: 'Tree other', slug: 'tree-other', region: other.id, group: core.id },
      { name: 'Tree none', slug: 'tree-none' },
    ]);
    const within = 'slug__isw=tree-';
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&region=emea`))).toEqual(['tree-deep', 'tree-top']);
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&region_id=${de.id}`))).toEqual(['tree-deep']);
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&region__n=emea`))).toEqual(['tree-none', 'tree-other']);
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&region=null`))).toEqual(['tree-none']);
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&group=core`))).toEqual(['tree-deep', 'tree-other']);
    expect(slugs(await api.get(`/api/dcim/sites/?${within}&group_id=${coreDc.id}`))).toEqual(['tree-deep']);
    const unknown = await api.get(`/api/dcim/sites/?${within}&region=atlantis`);
    expect([unknown.status, unknown.body]).toEqual([400, { region: ['Select a valid choice. atlantis is not one of the available choices.'] }]);
    // locations are scoped by their site's region
    const deep = (await api.get('/api/dcim/sites/?slug=tree-deep')).body.results[0];
    const top = (await api.get('/api/dcim/sites/?slug=tree-top')).body.results[0];
    await made('/api/dcim/locations/', [
      { name: 'Scoped deep', slug: 'scoped-deep', site: deep.id },
      { name: 'Scoped top', slug: 'scoped-top', site: top.id },
    ]);
    expect(slugs(await api.get(`/api/dcim/locations/?slug__isw=scoped-&region_id=${de.id}`))).toEqual(['scoped-deep']);
    expect(slugs(await api.get('/api/dcim/locations/?slug__isw=scoped-&region=emea'))).toEqual(['scoped-deep', 'scoped-top']);
    expect(slugs(await api.get('/api/dcim/locations/?slug__isw=scoped-&site_group=core'))).toEqual(['scoped-deep']);
  });

  test("when a site names a tenancy tenant, then it is rendered nested, filtered by the tenant's group, counted by the tenant and protects it", async () => {
    const tenant = (await stack.client('tenancy').post('/api/tenancy/tenants/', { name: 'Site owner', slug: 'site-owner' })).body;
    const site = await made('/api/dcim/sites/', { name: 'Owned', slug: 'owned', tenant: tenant.id });
    expect(site.tenant).toEqual({ id: tenant.id, url: expect.stringMatching(new RegExp(`/api/tenancy/tenants/${tenant.id}/$`)), display: 'Site owner', name: 'Site owner', slug: 'site-owner' });
    expect(slugs(await api.get('/api/dcim/sites/?tenant=site-owner'))).toEqual(['owned']);
    // tenancy counts dcim's sites, and the dcim models that do not exist yet count nothing (not an error)
    await eventually(async () => {
      const r = await stack.client('tenancy').get(`/api/tenancy/tenants/${tenant.id}/`);
      return r.status === 200 && r.body.site_count === 1 && r.body.device_count === 0 && r.body.rack_count === 0;
    }, 15_000, "the tenant's site_count");
    // Tenancy filters through the tenant's group, at any depth
    const tenancyApi = stack.client('tenancy');
    const top = (await tenancyApi.post('/api/tenancy/tenant-groups/', { name: 'Customers', slug: 'customers' })).body;
    const sub = (await tenancyApi.post('/api/tenancy/tenant-groups/', { name: 'Retail', slug: 'retail', parent: top.id })).body;
    const grouped = (await tenancyApi.post('/api/tenancy/tenants/', { name: 'Shop', slug: 'shop', group: sub.id })).body;
    await made('/api/dcim/sites/', { name: 'Shop site', slug: 'shop-site', tenant: grouped.id });
    const building = await made('/api/dcim/locations/', { name: 'Shop floor', slug: 'shop-floor', site: site.id, tenant: grouped.id });
    await eventually(async () => {
      const r = await api.get('/api/dcim/sites/?slug=owned&slug=shop-site&tenant_group=customers');
      return r.status === 200 && JSON.stringify(slugs(r)) === JSON.stringify(['shop-site']);
    }, 15_000, 'sites by tenant group');
    expect(slugs(await api.get(`/api/dcim/sites/?slug=owned&slug=shop-site&tenant_group_id=${sub.id}`))).toEqual(['shop-site']);
    expect(slugs(await api.get('/api/dcim/sites/?slug=owned&slug=shop-site&tenant_group__n=customers'))).toEqual(['owned']);
    expect(slugs(await api.get('/api/dcim/locations/?tenant_group=retail'))).toEqual([building.slug]);
    // the site protects its tenant (PROTECT across services)
    const refused = await stack.client('tenancy').delete(`/api/tenancy/tenants/${tenant.id}/`);
    expect([refused.status, refused.body]).toEqual([409, { detail: `Unable to delete object. 1 dependent objects were found: Owned (${site.id})` }]);
  });
});

describe('locations', () => {
  test('when a parent location is in another site, then the write is refused with the NetBox message', async () => {
    const a = await made('/api/dcim/sites/', { name: 'Parent site A', slug: 'parent-site-a' });
    const b = await made('/api/dcim/sites/', { name: 'Parent site B', slug: 'parent-site-b' });
    const hall = await made('/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: a.id });
    const r = await api.post('/api/dcim/locations/', { name: 'Room', slug: 'room', site: b.id, parent: hall.id });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ __all__: ['Parent location (Hall) must belong to the same site (Parent site B).'] });
    const room = await made('/api/dcim/locations/', { name: 'Room', slug: 'room', site: a.id, parent: hall.id });
    expect(room).toMatchObject({ _depth: 1, parent: { id: hall.id, _depth: 0 } });
    const away = await api.patch(`/api/dcim/locations/${room.id}/`, { site: b.id });
    expect(away.body).toEqual({ __all__: ['Parent location (Hall) must belong to the same site (Parent site B).'] });
    const topName = await api.post('/api/dcim/locations/', { name: 'Hall', slug: 'hall-2', site: a.id });
    expect(topName.body).toEqual({ __all__: ['A location with this name already exists within the specified site.'] });
    const topSlug = await api.post('/api/dcim/locations/', { name: 'Hall 2', slug: 'hall', site: a.id });
    expect(topSlug.body).toEqual({ __all__: ['A location with this slug already exists within the specified site.'] });
    const sibling = await api.post('/api/dcim/locations/', { name: 'Room', slug: 'room-2', site: a.id, parent: hall.id });
    expect(sibling.body).toEqual({ __all__: ['Location with this Site, Parent and Name already exists.'] });
    // the same name in another site is fine
    expect((await api.post('/api/dcim/locations/', { name: 'Hall', slug: 'hall', site: b.id })).status).toBe(201);
    const selfParent = await api.patch(`/api/dcim/locations/${hall.id}/`, { parent: room.id });
    expect(selfParent.body).toEqual({ parent: ['Cannot assign self or child location as parent.'] });
  });

  test("when a location moves to another site, then its descendants move with it, each with its own change event", async () => {
    const from = await made('/api/dcim/sites/', { name: 'Move from', slug: 'move-from' });
    const to = await made('/api/dcim/sites/', { name: 'Move to', slug: 'move-to' });
    const building = await made('/api/dcim/locations/', { name: 'Building', slug: 'building', site: from.id });
    const floor = await made('/api/dcim/locations/', { name: 'Floor', slug: 'floor', site: from.id, parent: building.id });
    const room = await made('/api/dcim/locations/', { name: 'Room 1', slug: 'room-1', site: from.id, parent: floor.id });
    const bystander = await made('/api/dcim/locations/', { name: 'Annex', slug: 'annex', site: from.id });
    const moved = await api.patch(`/api/dcim/locations/${building.id}/`, { site: to.id });
    expect(moved.status).toBe(200);
    expect(moved.body.site.id).toBe(to.id);
    for (const l of [floor, room]) {
      const now = (await api.get(`/api/dcim/locations/${l.id}/`)).body;
      expect([l.slug, now.site.id, now.parent?.id ?? null]).toEqual([l.slug, to.id, l.parent?.id ?? null]);
    }
    expect((await api.get(`/api/dcim/locations/${bystander.id}/`)).body.site.id).toBe(from.id);
    expect(slugs(await api.get(`/api/dcim/locations/?site_id=${to.id}`))).toEqual(['building', 'floor', 'room-1']);
    const requestId = moved.headers.get('x-request-id');
    const events = (await readOutbox(stack.databaseUrl, 'dcim')).filter((e) => e.request_id === requestId);
    expect(events.map((e) => [e.event, e.object_id]).sort()).toEqual([['updated', building.id], ['updated', floor.id], ['updated', room.id]].sort());
    const floorEvent = events.find((e) => e.object_id === floor.id)!;
    expect([floorEvent.snapshots.prechange?.site, floorEvent.snapshots.postchange?.site]).toEqual([from.id, to.id]);
    // parent filters are tree filters on locations: anything below the building
    expect(slugs(await api.get(`/api/dcim/locations/?parent_id=${building.id}`))).toEqual(['floor', 'room-1']);
    expect(slugs(await api.get('/api/dcim/locations/?parent=floor'))).toEqual(['room-1']);
  });

  test('when a site is deleted, then its locations go with it', async () => {
    const site = await made('/api/dcim/sites/', { name: 'Doomed', slug: 'doomed' });
    const hall = await made('/api/dcim/locations/', { name: 'Doomed hall', slug: 'doomed-hall', site: site.id });
    const room = await made('/api/dcim/locations/', { name: 'Doomed room', slug: 'doomed-room', site: site.id, parent: hall.id });
    expect((await api.delete(`/api/dcim/sites/${site.id}/`)).status).toBe(204);
    expect((await api.get(`/api/dcim/locations/${hall.id}/`)).status).toBe(404);
    expect((await api.get(`/api/dcim/locations/${room.id}/`)).status).toBe(404);
  });
});
