import { bootStack, Client, eventually, type Reply, type Stack, gatewayUser } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';
import { stackGateway } from '@inventory/gateway';

/**
 * Saved filters, export templates, bookmarks and custom links as a NetBox
 * client meets them, end to end through the gateway with real tokens: a
 * saved filter (extras) narrowing dcim's device list, private to its owner;
 * export templates and the CSV export of that list; a bookmark that goes
 * with its device. dcim reads the saved filters and templates from its copy
 * of them (fed by extras' events), so each test waits for a new one to
 * arrive there.
 */
const KEY = 'abcdef0123456789abcdef0123456789abcdef01';
const SF = '/api/extras/saved-filters/';
const ET = '/api/extras/export-templates/';
const BM = '/api/extras/bookmarks/';
const CL = '/api/extras/custom-links/';
const DEV = '/api/dcim/devices/';

type Obj = Record<string, any>;
let stack: Stack;
let admin: Client;
let alice: Client;
let bob: Client;
let aliceId: number;
let usersService: RestService;
let devices: Obj[] = [];

function ok(r: Reply, status: number, what: string): Reply {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r;
}
const made = async (c: Client, path: string, body: Obj | Obj[]) => ok(await c.post(path, body), 201, `POST ${path}`).body;
const ids = (list: Obj[]) => list.map((o) => o.id).sort((a, b) => a - b);
/** Ids of the devices a query lists (every page). */
const listed = async (c: Client, query: string) => ids(ok(await c.get(`${DEV}?${query}&limit=0`), 200, `devices ?${query}`).body.results);
const where = (test: (d: Obj) => boolean) => ids(devices.filter(test));

/** A user with a token and the given permissions, as a client of the gateway. */
const user = (name: string, permissions: { object_types: string[]; actions: string[] }[]) => gatewayUser(stack, name, permissions, admin);

beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, gateway: stackGateway() }, { TEMPLATE_TIME_LIMIT_MS: '1500' }, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  admin = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } });
  const reader = [
    { object_types: ['dcim.device', 'dcim.site'], actions: ['view'] },
    { object_types: ['extras.savedfilter'], actions: ['view', 'add', 'change', 'delete'] },
  ];
  const a = await user('alice', reader);
  alice = a.client;
  aliceId = a.id;
  bob = (await user('bob', reader)).client;

  const siteA = await made(admin, '/api/dcim/sites/', { name: 'Site A', slug: 'site-a' });
  const siteB = await made(admin, '/api/dcim/sites/', { name: 'Site B', slug: 'site-b' });
  const maker = await made(admin, '/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await made(admin, '/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box', slug: 'box' });
  const role = await made(admin, '/api/dcim/device-roles/', { name: 'Router', slug: 'router' });
  const spec: [string, Obj, string][] = [
    ['r1', siteA, 'active'],
    ['r2', siteA, 'active'],
    ['r3', siteA, 'planned'],
    ['r4, "quoted"', siteA, 'planned'],
    ['r5', siteA, 'active'],
    ['r6', siteB, 'active'],
  ];
  devices = await made(admin, DEV, spec.map(([name, site, status]) => ({ name, site: site.id, status, device_type: type.id, role: role.id })));
}, 180_000);
afterAll(() => stack?.stop());

/** RFC 4180 rows (quoted cells with doubled quotes, CRLF line ends). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

/** Waits until dcim's copy of the saved filters (or export templates) answers a query as `expect` says. */
const arrives = (c: Client, query: string, expect: (r: Reply) => boolean, what: string) =>
  eventually(async () => expect(await c.get(`${DEV}?${query}&limit=0`)), 15_000, what);

describe('saved filters on a list', () => {
  test('when a shared saved filter is named by id or slug, then the device list is filtered by its parameters, merged with the request\'s own as NetBox merges them', async () => {
    const sf = await made(admin, SF, { name: 'Active devices', slug: 'active-devices', content_types: ['dcim.device'], parameters: { status: 'active' } });
    expect(sf.user).toBe(1); // the caller, when no user is given
    await arrives(admin, `filter_id=${sf.id}`, (r) => r.status === 200, 'the saved filter in dcim');
    const active = where((d) => d.status.value === 'active');
    expect(await listed(admin, `filter_id=${sf.id}`)).toEqual(active);
    expect(await listed(alice, 'filter=active-devices')).toEqual(active);
    // another parameter narrows it further; the same parameter adds values (OR), as NetBox appends to the list
    expect(await listed(admin, 'filter=active-devices&site=site-b')).toEqual(where((d) => d.status.value === 'active' && d.site.slug === 'site-b'));
    expect(await listed(admin, 'filter=active-devices&status=planned')).toEqual(ids(devices));
    // two saved filters add up too
    const siteB = await made(admin, SF, { name: 'Site B things', slug: 'site-b-things', content_types: ['dcim.device'], parameters: { site: ['site-b'] } });
    await arrives(admin, `filter_id=${siteB.id}`, (r) => r.status === 200, 'the second saved filter in dcim');
    expect(await listed(admin, `filter=active-devices&filter_id=${siteB.id}`)).toEqual(where((d) => d.status.value === 'active' && d.site.slug === 'site-b'));
  });

  test('when a list applies a saved filter, then it costs one statement more whatever the page size, and no call to extras', async () => {
    const sf = await made(admin, SF, { name: 'Planned', slug: 'planned', content_types: ['dcim.device'], parameters: { status: ['planned'] } });
    const direct = stack.client('dcim');
    await eventually(async () => (await direct.get(`${DEV}?filter_id=${sf.id}`)).status === 200, 15_000, 'the saved filter in dcim');
    const count = async (q: string) => Number(ok(await direct.get(`${DEV}?${q}`), 200, q).headers.get('x-query-count'));
    const plain = [await count('status=planned&limit=1'), await count('status=planned&limit=50')];
    const saved = [await count(`filter_id=${sf.id}&limit=1`), await count(`filter_id=${sf.id}&limit=50`)];
    expect(saved[0]).toBe(saved[1]);
    expect(saved[1]).toBe(plain[1] + 1);
    // extras down: dcim still applies it (its own copy)
    await stack.stopService('extras');
    try {
      expect(ids(ok(await direct.get(`${DEV}?filter=planned&limit=0`), 200, 'extras down').body.results)).toEqual(where((d) => d.status.value === 'planned'));
    } finally {
      await stack.startService('extras');
    }
  });

  test('when a saved filter is private, then only its owner (and a superuser) sees and uses it; to anyone else it does not exist', async () => {
    const mine = ok(await alice.post(SF, { name: 'Alice only', slug: 'alice-only', content_types: ['dcim.device'], shared: false, parameters: { site: ['site-b'] } }), 201, 'private').body;
    expect(mine.user).toBe(aliceId);
    expect(mine.shared).toBe(false);
    const siteB = where((d) => d.site.slug === 'site-b');
    await arrives(alice, 'filter=alice-only', (r) => r.status === 200, 'the private filter in dcim');
    expect(await listed(alice, 'filter=alice-only')).toEqual(siteB);
    expect(await listed(admin, `filter_id=${mine.id}`)).toEqual(siteB);
    // bob: a 400 naming the parameter, as for a filter that does not exist
    const refused = await bob.get(`${DEV}?filter=alice-only`);
    expect([refused.status, refused.body]).toEqual([400, { filter: ['Select a valid choice. alice-only is not one of the available choices.'] }]);
    expect((await bob.get(`${DEV}?filter_id=${mine.id}`)).body).toEqual({ filter_id: [`Select a valid choice. ${mine.id} is not one of the available choices.`] });
    // nor in the saved filters' own endpoints
    expect((await bob.get(`${SF}${mine.id}/`)).status).toBe(404);
    expect((await bob.patch(`${SF}${mine.id}/`, { shared: true })).status).toBe(404);
    expect(ids(ok(await bob.get(`${SF}?limit=0`), 200, 'bob').body.results)).not.toContain(mine.id);
    expect(ids(ok(await alice.get(`${SF}?limit=0`), 200, 'alice').body.results)).toContain(mine.id);
    expect(ids(ok(await admin.get(`${SF}?limit=0`), 200, 'admin').body.results)).toContain(mine.id);
    // usable: enabled, and shared or the caller's own
    expect(ids(ok(await alice.get(`${SF}?usable=true&limit=0`), 200, 'alice usable').body.results)).toContain(mine.id);
    expect(ids(ok(await admin.get(`${SF}?usable=false&limit=0`), 200, 'admin unusable').body.results)).toContain(mine.id);
    // a private filter made for someone else is outside what bob may reach: 403, nothing made
    const forAlice = await bob.post(SF, { name: 'For alice', slug: 'for-alice', content_types: ['dcim.device'], shared: false, user: aliceId, parameters: {} });
    expect(forAlice.status).toBe(403);
    expect((await admin.get(`${SF}?slug=for-alice`)).body.count).toBe(0);
  });

  test('when a saved filter is disabled, is for another model or does not exist, then naming it is a 400 naming the parameter', async () => {
    const off = await made(admin, SF, { name: 'Off', slug: 'off', content_types: ['dcim.device'], enabled: false, parameters: { status: 'active' } });
    const sites = await made(admin, SF, { name: 'Sites only', slug: 'sites-only', content_types: ['dcim.site'], parameters: { slug: 'site-a' } });
    await eventually(async () => (await admin.get(`/api/dcim/sites/?filter=sites-only`)).status === 200, 15_000, 'the site filter in dcim');
    // on the sites list it applies
    expect(ok(await admin.get('/api/dcim/sites/?filter=sites-only'), 200, 'sites').body.results.map((s: Obj) => s.slug)).toEqual(['site-a']);
    for (const [query, param, value] of [
      [`filter_id=${off.id}`, 'filter_id', String(off.id)],
      ['filter=off', 'filter', 'off'],
      [`filter_id=${sites.id}`, 'filter_id', String(sites.id)],
      ['filter=no-such-filter', 'filter', 'no-such-filter'],
      ['filter_id=abc', 'filter_id', 'abc'],
      ['filter_id=99999999', 'filter_id', '99999999'],
    ]) {
      const r = await admin.get(`${DEV}?${query}`);
      expect([query, r.status, r.body]).toEqual([query, 400, { [param]: [`Select a valid choice. ${value} is not one of the available choices.`] }]);
    }
    // enabled again: it applies (once dcim's copy has the change)
    ok(await admin.patch(`${SF}${off.id}/`, { enabled: true }), 200, 'enable');
    await arrives(admin, 'filter=off', (r) => r.status === 200, 'the enabled filter in dcim');
    expect(await listed(admin, 'filter=off')).toEqual(where((d) => d.status.value === 'active'));
    // deleted: gone everywhere
    ok(await admin.delete(`${SF}${off.id}/`), 204, 'delete');
    await arrives(admin, 'filter=off', (r) => r.status === 400, 'the deleted filter gone from dcim');
  });
});

describe('exports of a list', () => {
  test('when a list is exported with a template, then every matching object (not one page) is rendered with the template\'s MIME type and attachment name', async () => {
    const code = '{% for d in queryset %}{{ d.name }}|{{ d.site }}|{{ d.site.slug }}|{{ d.status }}|{{ d.role.name }}\n{% endfor %}';
    await made(admin, ET, { name: 'Device lines', content_types: ['dcim.device'], template_code: code, mime_type: 'text/csv', file_extension: 'csv' });
    await arrives(admin, 'export=Device%20lines', (r) => r.status === 200, 'the template in dcim');
    const r = ok(await alice.get(`${DEV}?export=Device%20lines&site=site-a&limit=1&ordering=name`, { headers: { accept: '*/*' } }), 200, 'export');
    expect(r.headers.get('content-type')).toBe('text/csv');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="netbox_devices.csv"');
    const siteA = devices.filter((d) => d.site.slug === 'site-a').sort((a, b) => a.name.localeCompare(b.name));
    expect(r.text).toBe(siteA.map((d) => `${d.name}|Site A|site-a|${d.status.value}|Router\n`).join(''));
  });

  test('when a template does not ask for an attachment or a MIME type, then it answers inline text/plain; a name no template of the model has is a 404', async () => {
    await made(admin, ET, { name: 'Count', content_types: ['dcim.device'], template_code: '{{ queryset | length }} devices: {{ queryset | map(attribute=\'name\') | join(\', \') }}', as_attachment: false });
    await made(admin, ET, { name: 'Site names', content_types: ['dcim.site'], template_code: '{% for s in queryset %}{{ s.name }}{% endfor %}' });
    await arrives(admin, 'export=Count', (r) => r.status === 200, 'the template in dcim');
    const r = ok(await admin.get(`${DEV}?export=Count&site=site-b`, { headers: { accept: '*/*' } }), 200, 'export');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBeNull();
    expect(r.text).toBe('1 devices: r6');
    for (const name of ['Site%20names', 'nothing-like-it']) {
      const missing = await admin.get(`${DEV}?export=${name}`);
      expect([name, missing.status, missing.body]).toEqual([name, 404, { detail: 'Not found.' }]);
    }
    await eventually(async () => (await admin.get('/api/dcim/sites/?export=Site%20names')).status === 200, 15_000, 'the site template in dcim');
    expect(ok(await admin.get('/api/dcim/sites/?export=Site%20names&ordering=name'), 200, 'sites').text).toBe('Site ASite B');
  });

  test('when a template fails to render, then the answer is NetBox\'s 500 naming the line', async () => {
    await made(admin, ET, { name: 'Broken', content_types: ['dcim.device'], template_code: 'ok\n{{ queryset | nosuchfilter }}' });
    await arrives(admin, 'export=Broken', (r) => r.status !== 404, 'the template in dcim');
    const r = await admin.get(`${DEV}?export=Broken`);
    expect(r.status).toBe(500);
    expect(r.body.detail).toMatch(/^An error occurred while rendering the template \(line 2\): /);
  });

  test('when a template loops past the render time limit, then it answers 400 naming the template and the limit, and other requests are answered meanwhile', async () => {
    await made(admin, ET, { name: 'Spin', content_types: ['dcim.device'], template_code: '{% for i in (1..100000000) %}{% endfor %}' });
    await arrives(admin, 'export=Spin&name=nobody', (r) => r.status !== 404, 'the template in dcim');
    let answered = 0;
    let rendering = true;
    const spin = admin.get(`${DEV}?export=Spin`).finally(() => (rendering = false));
    // the render runs on a template worker: dcim (and the whole process) keeps answering while it spins
    while (rendering) {
      ok(await admin.get('/api/dcim/sites/?limit=1'), 200, 'sites meanwhile');
      if (rendering) answered++;
    }
    const r = await spin;
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Export template "Spin": rendering took longer than the limit of 1500 ms (TEMPLATE_TIME_LIMIT_MS).');
    expect(answered).toBeGreaterThan(3);
  });

  test('when a list is exported with an empty export name, then it is the CSV of the list\'s fields, every matching row, with a saved filter applied too', async () => {
    const r = ok(await admin.get(`${DEV}?export=&site=site-a&ordering=name&limit=2`, { headers: { accept: '*/*' } }), 200, 'csv');
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="netbox_devices.csv"');
    expect(r.text.endsWith('\r\n')).toBe(true);
    const lines = parseCsv(r.text);
    const header = lines[0];
    const full = ok(await admin.get(`${DEV}${devices[0].id}/`), 200, 'device').body;
    expect(header).toEqual(Object.keys(full).filter((k) => k !== 'config_context'));
    const siteA = devices.filter((d) => d.site.slug === 'site-a').sort((a, b) => a.name.localeCompare(b.name));
    expect(lines.length).toBe(1 + siteA.length);
    const col = (name: string) => header.indexOf(name);
    // a choice as its label, a related object as its name, a name with a comma and quotes quoted
    expect(r.text).toContain('"r4, ""quoted"""');
    expect(lines.map((l) => l[col('name')])).toEqual(['name', ...siteA.map((d) => d.name)]);
    const r1 = lines[1];
    expect([r1[col('id')], r1[col('name')], r1[col('status')], r1[col('site')], r1[col('role')]]).toEqual([String(siteA[0].id), 'r1', 'Active', 'Site A', 'Router']);
    // fields= picks the columns; a saved filter narrows the rows
    const sf = await made(admin, SF, { name: 'CSV planned', slug: 'csv-planned', content_types: ['dcim.device'], parameters: { status: ['planned'] } });
    await arrives(admin, `filter_id=${sf.id}`, (x) => x.status === 200, 'the saved filter in dcim');
    const narrow = ok(await admin.get(`${DEV}?export=table&filter=csv-planned&fields=id,name,status&ordering=name`), 200, 'narrow');
    const planned = devices.filter((d) => d.status.value === 'planned').sort((a, b) => a.name.localeCompare(b.name));
    expect(narrow.text).toBe(['id,name,status', ...planned.map((d) => `${d.id},${d.name.includes(',') ? `"${d.name.replace(/"/g, '""')}"` : d.name},Planned`), ''].join('\r\n'));
    // nothing matching: the header alone
    expect(ok(await admin.get(`${DEV}?export=&name=nobody&fields=id,name`), 200, 'empty').text).toBe('id,name\r\n');
  });
});

describe('bookmarks', () => {
  test('when users bookmark a device, then each lists their own, one per device, and the bookmark follows the device\'s name and goes with it', async () => {
    const device = await made(admin, DEV, { name: 'marked', site: devices[0].site.id, device_type: devices[0].device_type.id, role: devices[0].role.id });
    const mark = ok(await alice.post(BM, { object_type: 'dcim.device', object_id: device.id }), 201, 'bookmark').body;
    expect(mark.user).toMatchObject({ id: aliceId, username: 'alice' });
    expect(mark.object).toMatchObject({ id: device.id, display: 'marked', name: 'marked', url: `${stack.urls.gateway}${DEV}${device.id}/` });
    expect(mark.display).toBe('marked');
    const bobs = ok(await bob.post(BM, { object_type: 'dcim.device', object_id: device.id }), 201, 'bob bookmark').body;
    // each sees their own only; the superuser sees both
    expect(ids(ok(await alice.get(`${BM}?limit=0`), 200, 'alice').body.results)).toEqual([mark.id]);
    expect(ids(ok(await bob.get(`${BM}?limit=0`), 200, 'bob').body.results)).toEqual([bobs.id]);
    expect(ids(ok(await admin.get(`${BM}?object_id=${device.id}`), 200, 'admin').body.results)).toEqual(ids([mark, bobs]));
    expect((await bob.get(`${BM}${mark.id}/`)).status).toBe(404);
    // one per object and user; none for another user (outside bob's own)
    const again = await alice.post(BM, { object_type: 'dcim.device', object_id: device.id });
    expect([again.status, again.body]).toEqual([400, { __all__: ['Bookmark with this Object type, Object id and User already exists.'] }]);
    expect((await bob.post(BM, { object_type: 'dcim.device', object_id: devices[1].id, user: aliceId })).status).toBe(403);
    // renamed: the bookmark shows the new name (from the device's event)
    ok(await admin.patch(`${DEV}${device.id}/`, { name: 'marked-renamed' }), 200, 'rename');
    await eventually(async () => (await alice.get(`${BM}${mark.id}/`)).body?.object?.name === 'marked-renamed', 15_000, 'the renamed device in the bookmark');
    // deleted: its bookmarks go (from the delete event)
    ok(await admin.delete(`${DEV}${device.id}/`), 204, 'delete');
    await eventually(async () => (await admin.get(`${BM}?object_id=${device.id}`)).body?.count === 0, 15_000, 'the bookmarks deleted with the device');
    expect((await alice.get(`${BM}${mark.id}/`)).status).toBe(404);
  });

  test('when a bookmark names an object that does not exist or a model without bookmarks, then the answer is a 400 naming the field', async () => {
    const missing = await alice.post(BM, { object_type: 'dcim.device', object_id: 99999999 });
    expect([missing.status, missing.body]).toEqual([400, { object_id: ['Related object not found using the provided numeric ID: 99999999'] }]);
    const tag = await alice.post(BM, { object_type: 'extras.tag', object_id: 1 });
    expect([tag.status, tag.body]).toEqual([400, { object_type: ['Invalid content type: extras.tag'] }]);
  });
});

describe('custom links', () => {
  test('when custom links are created, listed, changed and deleted through the gateway, then each step answers as NetBox does', async () => {
    const link = await made(admin, CL, { name: 'Graphs', content_types: ['dcim.device'], link_text: 'Graphs of {{ object.name }}', link_url: 'https://graphs/{{ object.pk }}', button_class: 'blue' });
    expect(link).toMatchObject({ enabled: true, weight: 100, group_name: '', button_class: 'blue', new_window: false, display: 'Graphs' });
    const other = await made(admin, CL, { name: 'Site wiki', content_types: ['dcim.site'], link_text: 'Wiki', link_url: 'https://wiki/{{ object.slug }}', group_name: 'Docs' });
    expect(ids(ok(await admin.get(`${CL}?content_types=dcim.device`), 200, 'by type').body.results)).toEqual([link.id]);
    expect(ids(ok(await admin.get(`${CL}?group_name=Docs`), 200, 'by group').body.results)).toEqual([other.id]);
    const changed = ok(await admin.patch(`${CL}${link.id}/`, { button_class: 'ghost-dark', new_window: true }), 200, 'patch').body;
    expect([changed.button_class, changed.new_window]).toEqual(['ghost-dark', true]);
    const bad = await admin.patch(`${CL}${link.id}/`, { button_class: 'mauve' });
    // a stock DRF choice field's message (NetBox's own choice fields leave the quotes out)
    expect([bad.status, bad.body]).toEqual([400, { button_class: ['"mauve" is not a valid choice.'] }]);
    const options = ok(await admin.options(CL), 200, 'options').body;
    expect(options.actions.POST.button_class.choices[0]).toEqual({ value: 'outline-dark', display_name: 'Default' });
    expect(options.actions.POST.button_class.choices.at(-1)).toEqual({ value: 'ghost-dark', display_name: 'Link' });
    ok(await admin.delete(`${CL}${link.id}/`), 204, 'delete');
    expect((await admin.get(`${CL}${link.id}/`)).status).toBe(404);
    // alice holds no permission on custom links
    expect((await alice.get(CL)).status).toBe(403);
  });
});

describe('the API surface', () => {
  test('when the extras root and the OpenAPI document are read, then the new endpoints and the list parameters are in them', async () => {
    const root = ok(await admin.get('/api/extras/'), 200, 'root').body;
    for (const e of ['bookmarks', 'custom-links', 'export-templates', 'saved-filters']) expect(root[e]).toBe(`${stack.urls.gateway}/api/extras/${e}/`);
    const doc = ok(await admin.get('/api/schema/?format=json'), 200, 'schema').body;
    for (const e of ['bookmarks', 'custom-links', 'export-templates', 'saved-filters']) expect(Object.keys(doc.paths)).toContain(`/api/extras/${e}/{id}/`);
    const params = (doc.paths['/api/dcim/devices/'].get.parameters as Obj[]).map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['filter_id', 'filter', 'export']));
    expect(doc.components.schemas.SavedFilter.properties.user).toEqual({ type: 'integer', nullable: true });
  });
});
