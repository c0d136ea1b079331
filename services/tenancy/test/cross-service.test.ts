import type { BaseConfig } from '@inventory/core';
import { TENANT_GROUP_HOPS, createModelTables, sharedTables, createRestService, defineModel, f, type RestService } from '@inventory/rest';
import { bootStack, eventually, type Client, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

/**
 * Tenancy as the owner of objects another service refers to, with every
 * delete rule: a referrer (a circuits service of this test's own, declared
 * like any service) keeps projections of tenants and tenant groups fed by
 * tenancy's events, reads and filters through them without calling tenancy,
 * and applies PROTECT, SET_NULL and CASCADE across the service boundary.
 */
const circuit = defineModel({
  label: 'circuits.circuit',
  endpoint: 'circuits',
  verboseName: 'circuit',
  fields: {
    cid: f.name(100),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    sponsor: f.fk('tenancy.tenant', 'SET_NULL', { nullable: true, filterKey: 'slug' }),
    group: f.fk('tenancy.tenantgroup', 'CASCADE', { nullable: true, treeFilter: true }),
    // the only reference to contact groups here: clearing it needs no say before the delete
    team: f.fk('tenancy.contactgroup', 'SET_NULL', { nullable: true }),
  },
  brief: ['cid'],
  display: (r) => String(r.cid),
  ordering: ['cid'],
  search: ['cid'],
});

function circuits(config: BaseConfig): RestService {
  return createRestService({
    name: 'circuits',
    area: 'circuits',
    config,
    models: [circuit],
    migrations: [{ name: '0001_declared', up: ({ qi, schema, models }) => createModelTables(qi, schema, models) }, sharedTables],
  });
}

let stack: Stack;
let ten: Client;
let cir: Client;
/** The running tenancy (a restart makes a new one). */
let tenancyService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy: (config) => (tenancyService = tenancy(config)), circuits });
  ten = stack.client('tenancy');
  cir = stack.client('circuits');
}, 120_000);
afterAll(() => stack?.stop());

const names = (r: { body: { results: { cid: string }[] } }) => r.body.results.map((c) => c.cid);

test('when a circuit names a tenant by attribute set a moment after it was made, then it resolves (a projection miss goes to the owner) and reads nested', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'C1', tenant: { slug: 'acme' } });
  expect(c.status).toBe(201);
  expect(c.body.tenant).toEqual({ id: t.body.id, url: `${stack.urls.circuits}/api/tenancy/tenants/${t.body.id}/`, display: 'Acme', name: 'Acme', slug: 'acme' });
  const bad = await cir.post('/api/circuits/circuits/', { cid: 'C2', tenant: { slug: 'nobody' } });
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ tenant: ["Related object not found using the provided attributes: {'slug': 'nobody'}"] });
});

test('when a tenant is renamed, then the circuits show the new name once its event arrives', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Old name', slug: 'renamed' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'R1', tenant: t.body.id });
  expect(c.body.tenant.name).toBe('Old name');
  await ten.patch(`/api/tenancy/tenants/${t.body.id}/`, { name: 'New name' });
  await eventually(async () => (await cir.get(`/api/circuits/circuits/${c.body.id}/`)).body.tenant?.name === 'New name', 10_000, 'the new name');
});

test('when circuits are filtered and ordered by tenant, tenant group (any depth) and group, then it is local SQL with a fixed number of queries', async () => {
  const root = await ten.post('/api/tenancy/tenant-groups/', { name: 'Root', slug: 'root' });
  const child = await ten.post('/api/tenancy/tenant-groups/', { name: 'Child', slug: 'child', parent: root.body.id });
  const a = await ten.post('/api/tenancy/tenants/', { name: 'Alpha', slug: 'alpha', group: child.body.id });
  const z = await ten.post('/api/tenancy/tenants/', { name: 'Zulu', slug: 'zulu' });
  await cir.post('/api/circuits/circuits/', [
    { cid: 'F1', tenant: z.body.id, group: root.body.id },
    { cid: 'F2', tenant: a.body.id, group: child.body.id },
  ]);
  await eventually(async () => (await cir.get('/api/circuits/circuits/?tenant_group=root')).body.count === 1, 10_000, 'the groups projected');
  expect(names(await cir.get('/api/circuits/circuits/?tenant_group=root'))).toEqual(['F2']);
  expect(names(await cir.get(`/api/circuits/circuits/?tenant_group_id=${child.body.id}`))).toEqual(['F2']);
  expect(names(await cir.get('/api/circuits/circuits/?tenant=zulu'))).toEqual(['F1']);
  expect(names(await cir.get(`/api/circuits/circuits/?tenant_id=${a.body.id}`))).toEqual(['F2']);
  expect(names(await cir.get('/api/circuits/circuits/?group=root&ordering=cid'))).toEqual(['F1', 'F2']);
  expect((await cir.get('/api/circuits/circuits/?tenant=nobody')).status).toBe(400);
  // ordered by the tenant's own ordering (its name): Alpha before Zulu
  expect(names(await cir.get('/api/circuits/circuits/?cid=F1&cid=F2&ordering=tenant'))).toEqual(['F2', 'F1']);
  expect(names(await cir.get('/api/circuits/circuits/?cid=F1&cid=F2&ordering=-tenant'))).toEqual(['F1', 'F2']);
  // the same statements for a page of 2 as for a page of 30 (one per relation, none per object)
  await cir.post('/api/circuits/circuits/', Array.from({ length: 30 }, (_, i) => ({ cid: `Q${i}`, tenant: i % 2 ? a.body.id : z.body.id, sponsor: a.body.id, group: child.body.id })));
  const few = await cir.get('/api/circuits/circuits/?q=Q&limit=2');
  const many = await cir.get('/api/circuits/circuits/?q=Q&limit=30');
  expect(many.body.results).toHaveLength(30);
  expect(many.body.results.every((c: { tenant: unknown; sponsor: unknown; group: unknown }) => c.tenant && c.sponsor && c.group)).toBe(true);
  expect(Number(many.headers.get('x-query-count'))).toBe(Number(few.headers.get('x-query-count')));
});

test('when tenancy is stopped, then circuits still list with their nested tenants', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Outage', slug: 'outage' });
  await cir.post('/api/circuits/circuits/', { cid: 'O1', tenant: t.body.id });
  await stack.stopService('tenancy');
  try {
    const r = await cir.get('/api/circuits/circuits/?cid=O1');
    expect(r.status).toBe(200);
    expect(r.body.results[0].tenant).toMatchObject({ id: t.body.id, name: 'Outage' });
    // a reference the projection holds needs no owner either
    expect((await cir.post('/api/circuits/circuits/', { cid: 'O2', tenant: t.body.id })).status).toBe(201);
    // one it does not hold names the owner that could not answer
    const miss = await cir.post('/api/circuits/circuits/', { cid: 'O3', tenant: { slug: 'not-projected' } });
    expect(miss.status).toBe(503);
    expect(miss.body.detail).toMatch(/tenancy/);
  } finally {
    await stack.startService('tenancy');
  }
});

test('when a tenant that a circuit protects is deleted, alone or in bulk, then 409 names the circuit and nothing is deleted', async () => {
  const kept = await ten.post('/api/tenancy/tenants/', { name: 'Kept', slug: 'kept' });
  const free = await ten.post('/api/tenancy/tenants/', { name: 'Free', slug: 'free' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'P1', tenant: kept.body.id });
  const one = await ten.delete(`/api/tenancy/tenants/${kept.body.id}/`);
  expect(one.status).toBe(409);
  expect(one.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: P1 (${c.body.id})` });
  const bulk = await ten.delete('/api/tenancy/tenants/', [{ id: free.body.id }, { id: kept.body.id }]);
  expect(bulk.status).toBe(409);
  expect((await ten.get(`/api/tenancy/tenants/?id=${kept.body.id}&id=${free.body.id}`)).body.count).toBe(2);
});

test('when circuits is stopped, then deleting a tenant is a 503 naming it and nothing is deleted', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Unasked', slug: 'unasked' });
  await stack.stopService('circuits');
  try {
    const r = await ten.delete(`/api/tenancy/tenants/${t.body.id}/`);
    expect(r.status).toBe(503);
    expect(r.body.detail).toMatch(/circuits/);
    expect((await ten.get(`/api/tenancy/tenants/${t.body.id}/`)).status).toBe(200);
  } finally {
    await stack.startService('circuits');
  }
});

test('when a tenant a circuit sponsors is deleted, then circuits clears the reference itself (SET_NULL)', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Sponsor', slug: 'sponsor' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'S1', sponsor: t.body.id });
  expect(c.body.sponsor.id).toBe(t.body.id);
  expect((await ten.delete(`/api/tenancy/tenants/${t.body.id}/`)).status).toBe(204);
  await eventually(async () => (await cir.get(`/api/circuits/circuits/${c.body.id}/`)).body.sponsor === null, 15_000, 'the sponsor cleared');
});

test('when a burst of bulk creates, updates and deletes arrives, then the projection ends at every newest version, the referrers of the deleted are cleared, and it took far fewer transactions than events', async () => {
  const made = await ten.post('/api/tenancy/tenants/', Array.from({ length: 200 }, (_, i) => ({ name: `Burst ${i}`, slug: `burst-${i}` })));
  expect(made.status).toBe(201);
  const ids: number[] = made.body.map((t: { id: number }) => t.id);
  const sponsored = await cir.post('/api/circuits/circuits/', ids.slice(0, 20).map((id, i) => ({ cid: `BS${i}`, sponsor: id })));
  expect(sponsored.status).toBe(201);
  expect((await ten.patch('/api/tenancy/tenants/', ids.map((id) => ({ id, description: 'second' })))).status).toBe(200);
  expect((await ten.patch('/api/tenancy/tenants/', ids.slice(20).map((id) => ({ id, description: 'third' })))).status).toBe(200);
  expect((await ten.delete('/api/tenancy/tenants/', ids.slice(0, 20).map((id) => ({ id })))).status).toBe(204);
  const pg = new (await import('pg')).default.Client({ connectionString: stack.databaseUrl });
  await pg.connect();
  try {
    const state = () =>
      pg.query(
        `SELECT p.id, p.deleted, p.data->>'description' AS description, p.version = o._version AS newest, p.xmin::text AS tx
           FROM circuits._proj_tenancy_tenant p LEFT JOIN tenancy.tenant o ON o.id = p.id WHERE p.id = ANY($1::bigint[])`,
        [ids],
      );
    await eventually(async () => {
      const { rows } = await state();
      const live = rows.filter((r) => !r.deleted);
      return live.length === 180 && live.every((r) => r.newest && r.description === 'third') && rows.filter((r) => r.deleted).length === 20;
    }, 30_000, 'every tenant at its newest version, 20 deleted');
    const sponsors = await cir.get(`/api/circuits/circuits/?${sponsored.body.map((c: { id: number }) => `id=${c.id}`).join('&')}&limit=50`);
    await eventually(async () => (await cir.get(`/api/circuits/circuits/?cid__isw=BS&limit=50`)).body.results.every((c: { sponsor: unknown }) => c.sponsor === null), 15_000, 'the sponsors cleared');
    expect(sponsors.body.count).toBe(20);
    // 400 events to this projection since the creates: one transaction per event would leave ~180 distinct xmins on the live rows
    const { rows } = await state();
    expect(new Set(rows.filter((r) => !r.deleted).map((r) => r.tx)).size).toBeLessThan(90);
  } finally {
    await pg.end();
  }
});

test('when a contact group a circuit names is deleted while circuits is stopped, then the reference is cleared after circuits restarts', async () => {
  const g = await ten.post('/api/tenancy/contact-groups/', { name: 'Team', slug: 'team' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'T1', team: g.body.id });
  expect(c.body.team.id).toBe(g.body.id);
  // tenancy learns what circuits protects with its first delete (it asks every service once a minute) ...
  const warm = await ten.post('/api/tenancy/contact-groups/', { name: 'Warm', slug: 'warm' });
  expect((await ten.delete(`/api/tenancy/contact-groups/${warm.body.id}/`)).status).toBe(204);
  // ... so with circuits down it knows circuits only clears references to contact groups: nothing to ask
  await stack.stopService('circuits');
  try {
    expect((await ten.delete(`/api/tenancy/contact-groups/${g.body.id}/`)).status).toBe(204);
  } finally {
    await stack.startService('circuits');
  }
  await eventually(async () => (await cir.get(`/api/circuits/circuits/${c.body.id}/`)).body.team === null, 15_000, 'the team cleared');
});

test('when a tenant group is deleted, then the circuits in it are deleted by circuits itself (CASCADE), and tenant counts follow the circuits', async () => {
  const g = await ten.post('/api/tenancy/tenant-groups/', { name: 'Doomed', slug: 'doomed' });
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Counted', slug: 'counted' });
  const made = await cir.post('/api/circuits/circuits/', [
    { cid: 'D1', group: g.body.id, tenant: t.body.id },
    { cid: 'D2', group: g.body.id },
  ]);
  expect(made.status).toBe(201);
  await eventually(async () => (await ten.get(`/api/tenancy/tenants/${t.body.id}/`)).body.circuit_count === 1, 10_000, 'circuit_count 1');
  expect((await ten.delete(`/api/tenancy/tenant-groups/${g.body.id}/`)).status).toBe(204);
  await eventually(async () => (await cir.get('/api/circuits/circuits/?cid=D1&cid=D2')).body.count === 0, 10_000, 'the circuits deleted');
  await eventually(async () => (await ten.get(`/api/tenancy/tenants/${t.body.id}/`)).body.circuit_count === 0, 10_000, 'circuit_count 0');
  // counts of another service's objects sort like any column
  expect((await ten.get('/api/tenancy/tenants/?ordering=-circuit_count')).status).toBe(200);
});

test('when a projection is lost, then it is filled again from the owner\'s snapshot at start, and converges with the events', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Backfilled', slug: 'backfilled' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'B1', tenant: t.body.id });
  await stack.stopService('circuits');
  const pg = new (await import('pg')).default.Client({ connectionString: stack.databaseUrl });
  await pg.connect();
  try {
    await pg.query('TRUNCATE circuits._proj_tenancy_tenant');
  } finally {
    await pg.end();
  }
  // changed while circuits is away: its event waits in the queue, the snapshot has it too
  await ten.patch(`/api/tenancy/tenants/${t.body.id}/`, { name: 'Backfilled again' });
  await stack.startService('circuits');
  await eventually(async () => (await cir.get(`/api/circuits/circuits/${c.body.id}/`)).body.tenant?.name === 'Backfilled again', 15_000, 'the tenant back');
  const all = await cir.get('/api/circuits/circuits/?limit=1000');
  expect(all.body.results.filter((x: { tenant: unknown }) => x.tenant === null).map((x: { cid: string }) => x.cid)).not.toContain('B1');
});

test('when a permission constrains circuits through their tenant (tenant__slug), then only those circuits are seen, from the projection', async () => {
  const mine = await ten.post('/api/tenancy/tenants/', { name: 'Mine', slug: 'mine' });
  const theirs = await ten.post('/api/tenancy/tenants/', { name: 'Theirs', slug: 'theirs' });
  await cir.post('/api/circuits/circuits/', [
    { cid: 'K1', tenant: mine.body.id },
    { cid: 'K2', tenant: theirs.body.id },
  ]);
  const viewer = {
    user: { id: 42, username: 'viewer', is_superuser: false, is_staff: false, is_active: true },
    token: { id: 42, write_enabled: true },
    permissions: [{ object_types: ['circuits.circuit'], actions: ['view'], constraints: { tenant__slug: 'mine' } }],
  };
  const seen = await stack.client('circuits').withIdentity(viewer).get('/api/circuits/circuits/?cid=K1&cid=K2');
  expect(seen.status).toBe(200);
  expect(names(seen)).toEqual(['K1']);
  const other = await stack.client('circuits').withIdentity({ ...viewer, permissions: [{ ...viewer.permissions[0], constraints: { tenant__slug__in: ['theirs'] } }] }).get('/api/circuits/circuits/?cid=K1&cid=K2');
  expect(names(other)).toEqual(['K2']);
});

test('when extras is stopped, then tagged tenants still list with their tags and custom fields, and filter by tag (tags are projected too)', async () => {
  const tag = await stack.client('extras').post('/api/extras/tags/', { name: 'Gold', slug: 'gold', color: 'ffd700' });
  expect(tag.status).toBe(201);
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Tagged', slug: 'tagged', tags: [{ slug: 'gold' }] });
  expect(t.status).toBe(201);
  await eventually(async () => (await ten.get('/api/tenancy/tenants/?tag=gold')).body.count === 1, 10_000, 'the tag projected');
  await stack.stopService('extras');
  try {
    // its cached custom-field definitions expire meanwhile: the ones last seen serve until extras is back
    tenancyService.ctx.extras.invalidate();
    const r = await ten.get(`/api/tenancy/tenants/?tag=gold`);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { slug: string }) => x.slug)).toEqual(['tagged']);
    expect(r.body.results[0].tags).toEqual([{ id: tag.body.id, url: `${stack.urls.tenancy}/api/extras/tags/${tag.body.id}/`, display: 'Gold', name: 'Gold', slug: 'gold', color: 'ffd700' }]);
  } finally {
    await stack.startService('extras');
  }
});

test('when a projection is behind (an object missing: events lost with a queue), then the owner\'s snapshot fills it in at the next start', async () => {
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Missed', slug: 'missed' });
  const c = await cir.post('/api/circuits/circuits/', { cid: 'M1', tenant: t.body.id });
  expect(c.body.tenant.name).toBe('Missed');
  await stack.stopService('circuits');
  const pg = new (await import('pg')).default.Client({ connectionString: stack.databaseUrl });
  await pg.connect();
  try {
    const { rowCount } = await pg.query('DELETE FROM circuits._proj_tenancy_tenant WHERE id = $1', [t.body.id]);
    expect(rowCount).toBe(1);
    const { rows } = await pg.query('SELECT count(*)::int AS n FROM circuits._proj_tenancy_tenant');
    expect(rows[0].n).toBeGreaterThan(0); // not empty: only a count against the owner's shows it is behind
  } finally {
    await pg.end();
  }
  await stack.startService('circuits');
  await eventually(async () => (await cir.get(`/api/circuits/circuits/${c.body.id}/`)).body.tenant?.name === 'Missed', 15_000, 'the missing tenant back');
});
