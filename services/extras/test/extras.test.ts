import { bootStack, readOutbox, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
});
afterAll(() => stack?.stop());

// the contract suite of extras' models runs in contract.test.ts

describe('content types', () => {
  test('when listed, then every content type appears ordered by app label and model, and filters apply', async () => {
    const api = stack.client('extras');
    const all = await api.get('/api/extras/content-types/?limit=0');
    expect(all.status).toBe(200);
    const labels = all.body.results.map((c: { app_label: string; model: string }) => `${c.app_label}.${c.model}`);
    expect(labels).toEqual([...labels].sort());
    expect(labels).toContain('tenancy.tenant');
    const site = all.body.results.find((c: { model: string }) => c.model === 'site');
    expect(site.display).toBe('DCIM | site');
    const one = await api.get(`/api/extras/content-types/${site.id}/`);
    expect(one.body).toEqual(site);
    const filtered = await api.get('/api/extras/content-types/?app_label=tenancy');
    expect(filtered.body.results.every((c: { app_label: string }) => c.app_label === 'tenancy')).toBe(true);
    expect(filtered.body.count).toBe(6);
    expect((await api.get('/api/extras/content-types/?id=abc')).status).toBe(400);
    // read-only, as NetBox's ContentTypeViewSet: other methods are DRF's 405
    const post = await api.post('/api/extras/content-types/', {});
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });
});

describe('tags and custom fields on another service', () => {
  test('when a tenant is tagged by id and by slug, then it reads nested tags and the tag filter ANDs', async () => {
    const ex = stack.client('extras');
    const ten = stack.client('tenancy');
    const red = (await ex.post('/api/extras/tags/', { name: 'Red', slug: 'red', color: 'ff0000' })).body;
    await ex.post('/api/extras/tags/', { name: 'Blue', slug: 'blue' });
    const a = await ten.post('/api/tenancy/tenants/', { name: 'TA', slug: 'ta', tags: [red.id, { slug: 'blue' }] });
    expect(a.status).toBe(201);
    expect(a.body.tags.map((t: { slug: string }) => t.slug)).toEqual(['blue', 'red']);
    expect(Object.keys(a.body.tags[0]).sort()).toEqual(['color', 'display', 'id', 'name', 'slug', 'url']);
    const b = await ten.post('/api/tenancy/tenants/', { name: 'TB', slug: 'tb', tags: [{ name: 'Red' }] });
    expect(b.status).toBe(201);
    const both = await ten.get('/api/tenancy/tenants/?tag=red&tag=blue');
    expect(both.body.results.map((t: { slug: string }) => t.slug)).toEqual(['ta']);
    const notBlue = await ten.get('/api/tenancy/tenants/?tag__n=blue&slug=ta&slug=tb');
    expect(notBlue.body.results.map((t: { slug: string }) => t.slug)).toEqual(['tb']);
    const unknown = await ten.get('/api/tenancy/tenants/?tag=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ tag: ['Select a valid choice. nope is not one of the available choices.'] });
    const badTag = await ten.post('/api/tenancy/tenants/', { name: 'TC', slug: 'tc', tags: [red.id, 99999] });
    expect(badTag.status).toBe(400);
    expect(badTag.body.tags[0]).toEqual({});
    expect(badTag.body.tags[1][0]).toMatch(/Related object not found/);
    const cleared = await ten.patch(`/api/tenancy/tenants/${a.body.id}/`, { tags: [] });
    expect(cleared.body.tags).toEqual([]);
    const counted = await ex.get(`/api/extras/tags/${red.id}/`);
    expect(counted.body.tagged_items).toBe(1);
    const used = await ex.get('/api/extras/tags/?content_type=tenancy.tenant');
    expect(used.body.results.map((t: { slug: string }) => t.slug)).toEqual(['red']);
    const ct = (await ex.get('/api/extras/content-types/?app_label=tenancy&model=tenant')).body.results[0];
    expect((await ex.get(`/api/extras/tags/?content_type_id=${ct.id}`)).body.count).toBe(1);
  });

  test('when a tag is restricted to other object types, then it cannot be put on a tenant', async () => {
    const ex = stack.client('extras');
    await ex.post('/api/extras/tags/', { name: 'Sites only', slug: 'sites-only', object_types: ['dcim.site'] });
    const r = await stack.client('tenancy').post('/api/tenancy/tenants/', { name: 'TR', slug: 'tr', tags: [{ slug: 'sites-only' }] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/cannot be assigned to tenant objects/);
  });

  test('when custom fields are defined for tenants, then values are validated, defaulted, merged and filtered', async () => {
    const ex = stack.client('extras');
    const ten = stack.client('tenancy');
    const set = await ex.post('/api/extras/custom-field-choice-sets/', { name: 'Colours', extra_choices: [['red', 'Red'], ['green', 'Green']] });
    expect(set.status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'rack_units', content_types: ['tenancy.tenant'], type: 'integer', validation_maximum: 10, default: 2 })).status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'owner', content_types: ['tenancy.tenant'], type: 'text' })).status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'code', content_types: ['tenancy.tenant'], type: 'text', filter_logic: 'exact' })).status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'colour', content_types: ['tenancy.tenant'], type: 'select', choice_set: set.body.id })).status).toBe(201);
    const a = await ten.post('/api/tenancy/tenants/', { name: 'CF A', slug: 'cf-a' });
    expect(a.body.custom_fields).toEqual({ code: null, colour: null, owner: null, rack_units: 2 });
    const b = await ten.post('/api/tenancy/tenants/', { name: 'CF B', slug: 'cf-b', custom_fields: { owner: 'Network Team', code: 'ABC', colour: 'red' } });
    expect(b.status).toBe(201);
    expect(b.body.custom_fields).toEqual({ code: 'ABC', colour: 'red', owner: 'Network Team', rack_units: null });
    const merged = await ten.patch(`/api/tenancy/tenants/${b.body.id}/`, { custom_fields: { rack_units: 7 } });
    expect(merged.body.custom_fields).toEqual({ code: 'ABC', colour: 'red', owner: 'Network Team', rack_units: 7 });
    const tooBig = await ten.patch(`/api/tenancy/tenants/${b.body.id}/`, { custom_fields: { rack_units: 11 } });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.__all__[0]).toBe("Invalid value for custom field 'rack_units': Value must not exceed 10");
    const badChoice = await ten.patch(`/api/tenancy/tenants/${b.body.id}/`, { custom_fields: { colour: 'blue' } });
    expect(badChoice.body.__all__[0]).toMatch(/Invalid choice \(blue\) for choice set Colours/);
    const notDict = await ten.patch(`/api/tenancy/tenants/${b.body.id}/`, { custom_fields: [1] });
    expect(notDict.body.custom_fields[0]).toMatch(/Invalid data format/);
    const loose = await ten.get('/api/tenancy/tenants/?cf_owner=network');
    expect(loose.body.results.map((t: { slug: string }) => t.slug)).toEqual(['cf-b']);
    const exact = await ten.get('/api/tenancy/tenants/?cf_code=ab');
    expect(exact.body.count).toBe(0);
    const exactHit = await ten.get('/api/tenancy/tenants/?cf_code=ABC');
    expect(exactHit.body.count).toBe(1);
    const exactLookup = await ten.get('/api/tenancy/tenants/?cf_code__ic=ab');
    expect(exactLookup.body.count).toBe(1);
    const numeric = await ten.get('/api/tenancy/tenants/?cf_rack_units__gte=5');
    expect(numeric.body.results.map((t: { slug: string }) => t.slug)).toEqual(['cf-b']);
    const badNumber = await ten.get('/api/tenancy/tenants/?cf_rack_units=x');
    expect(badNumber.status).toBe(400);
    const required = await ex.post('/api/extras/custom-fields/', { name: 'must', content_types: ['tenancy.tenant'], type: 'text', required: true });
    expect(required.status).toBe(201);
    const missing = await ten.post('/api/tenancy/tenants/', { name: 'CF C', slug: 'cf-c' });
    expect(missing.status).toBe(400);
    expect(missing.body.__all__).toEqual(["Missing required custom field 'must'."]);
    await ex.delete(`/api/extras/custom-fields/${required.body.id}/`);
    expect((await ten.post('/api/tenancy/tenants/', { name: 'CF C', slug: 'cf-c' })).status).toBe(201);
  });

  test('when a custom field type is changed, then it is refused', async () => {
    const ex = stack.client('extras');
    const cf = await ex.post('/api/extras/custom-fields/', { name: 'fixed_type', content_types: ['dcim.site'], type: 'text' });
    const r = await ex.patch(`/api/extras/custom-fields/${cf.body.id}/`, { type: 'integer' });
    expect(r.status).toBe(400);
    expect(r.body.type).toEqual(['Changing the type of custom fields is not supported.']);
  });
});

describe('object custom fields', () => {
  test('when a custom field points at tenants, then values are written as ids or attributes and read as nested objects', async () => {
    const ex = stack.client('extras');
    const ten = stack.client('tenancy');
    expect((await ex.post('/api/extras/custom-fields/', { name: 'parent_tenant', content_types: ['tenancy.contact'], type: 'object', object_type: 'tenancy.tenant' })).status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'peers', content_types: ['tenancy.contact'], type: 'multiobject', object_type: 'tenancy.tenant' })).status).toBe(201);
    const a = (await ten.post('/api/tenancy/tenants/', { name: 'Obj A', slug: 'obj-a' })).body;
    const b = (await ten.post('/api/tenancy/tenants/', { name: 'Obj B', slug: 'obj-b' })).body;
    const c = await ten.post('/api/tenancy/contacts/', { name: 'With objects', custom_fields: { parent_tenant: a.id, peers: [{ slug: 'obj-b' }, a.id] } });
    expect(c.status).toBe(201);
    expect(c.body.custom_fields.parent_tenant).toMatchObject({ id: a.id, name: 'Obj A', slug: 'obj-a' });
    expect(c.body.custom_fields.peers.map((p: { id: number }) => p.id)).toEqual([b.id, a.id]);
    const filtered = await ten.get(`/api/tenancy/contacts/?cf_parent_tenant=${a.id}`);
    expect(filtered.body.count).toBe(1);
    const missing = await ten.post('/api/tenancy/contacts/', { name: 'Broken', custom_fields: { parent_tenant: 999999 } });
    expect(missing.status).toBe(400);
    expect(missing.body.custom_fields[0]).toMatch(/^Unknown related object/);
  });
});

describe('choice set choices and custom field filters', () => {
  test('when a choice set lists its choices, then they are paginated {id, display} pairs filtered by q', async () => {
    const ex = stack.client('extras');
    const set = await ex.post('/api/extras/custom-field-choice-sets/', { name: 'Sizes', extra_choices: [['s', 'Small'], ['m', 'Medium'], ['l', 'Large']] });
    const all = await ex.get(`/api/extras/custom-field-choice-sets/${set.body.id}/choices/`);
    expect(all.body).toEqual({ count: 3, next: null, previous: null, results: [{ id: 's', display: 'Small' }, { id: 'm', display: 'Medium' }, { id: 'l', display: 'Large' }] });
    const q = await ex.get(`/api/extras/custom-field-choice-sets/${set.body.id}/choices/?q=med`);
    expect(q.body.results).toEqual([{ id: 'm', display: 'Medium' }]);
    const paged = await ex.get(`/api/extras/custom-field-choice-sets/${set.body.id}/choices/?limit=1&offset=1`);
    expect(paged.body.results).toEqual([{ id: 'm', display: 'Medium' }]);
    expect(paged.body.next).toMatch(/limit=1&offset=2$/);
    expect((await ex.get('/api/extras/custom-field-choice-sets/999999/choices/')).status).toBe(404);
  });

  test('when custom fields are filtered by content type id, then only those assigned to it come back', async () => {
    const ex = stack.client('extras');
    await ex.post('/api/extras/custom-fields/', { name: 'only_contacts', content_types: ['tenancy.contact'] });
    const cts = await ex.get('/api/extras/content-types/?app_label=tenancy&model=contact');
    const r = await ex.get(`/api/extras/custom-fields/?content_type_id=${cts.body.results[0].id}&name=only_contacts`);
    expect(r.body.count).toBe(1);
    const none = await ex.get(`/api/extras/custom-fields/?content_type_id__n=${cts.body.results[0].id}&name=only_contacts`);
    expect(none.body.count).toBe(0);
  });
});

describe('custom field side effects', () => {
  test('when a field is added to a type, renamed, and removed, then existing objects get the default, the new key, and lose it', async () => {
    const ex = stack.client('extras');
    const ten = stack.client('tenancy');
    const contact = (await ten.post('/api/tenancy/contacts/', { name: 'Before the field' })).body;
    const cf = (await ex.post('/api/extras/custom-fields/', { name: 'tier', content_types: ['dcim.site'], type: 'integer', default: 3 })).body;
    expect((await ex.patch(`/api/extras/custom-fields/${cf.id}/`, { content_types: ['dcim.site', 'tenancy.contact'] })).status).toBe(200);
    expect((await ten.get(`/api/tenancy/contacts/?cf_tier=3&id=${contact.id}`)).body.count).toBe(1);
    await ex.patch(`/api/extras/custom-fields/${cf.id}/`, { name: 'level' });
    const renamed = (await ten.get(`/api/tenancy/contacts/${contact.id}/`)).body;
    expect(renamed.custom_fields.level).toBe(3);
    expect('tier' in renamed.custom_fields).toBe(false);
    expect((await ten.get(`/api/tenancy/contacts/?cf_level=3&id=${contact.id}`)).body.count).toBe(1);
    await ex.delete(`/api/extras/custom-fields/${cf.id}/`);
    const gone = (await ten.get(`/api/tenancy/contacts/${contact.id}/`)).body;
    expect('level' in gone.custom_fields).toBe(false);
    // each rewrite went through tenancy's write pipeline: one updated event per rewrite of the contact, with both snapshots
    const rewrites = (await readOutbox(stack.databaseUrl, 'tenancy')).filter((e) => e.model === 'tenancy.contact' && e.object_id === contact.id && e.event === 'updated');
    // (the other tests' fields are there too: only this one's keys are compared)
    const ours = (cfs: unknown) => Object.fromEntries(Object.entries((cfs ?? {}) as object).filter(([k]) => k === 'tier' || k === 'level'));
    expect(rewrites.map((e) => [ours(e.snapshots.prechange?.custom_fields), ours(e.snapshots.postchange?.custom_fields)])).toEqual([
      [{}, { tier: 3 }],
      [{ tier: 3 }, { level: 3 }],
      [{ level: 3 }, {}],
    ]);
    expect(rewrites.map((e) => ours(e.data?.custom_fields))).toEqual([{ tier: 3 }, { level: 3 }, {}]);
    expect((await ten.get(`/api/tenancy/contacts/?cf_level=3`)).status).toBe(200);
    expect((await ten.get(`/api/tenancy/contacts/?cf_level=3`)).headers.get('x-ignored-parameters')).toBe('cf_level');
  });
});
