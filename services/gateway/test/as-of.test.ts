import { bootStack, eventually, Client, type Stack, gatewayUser } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as dcim } from '@inventory/dcim';
import { stackGateway } from '@inventory/gateway';
import { Db, loadHistoryReads, pruneHistory, type ServiceContext } from '@inventory/rest';
import { sql, raw } from '@inventory/filtering';

/**
 * Time travel (issue 27, docs/decisions/034): reads `?as_of=` a past moment
 * through the gateway, across services (a site's tenant as dcim's projection
 * had it then), bulk writes seen whole or not at all, diffs between two
 * moments, and the 400s.
 */
let stack: Stack;
let gw: Client;
let auth: { headers: { authorization: string }; identity: null };

type Site = { id: number; name: string; slug: string; status: { value: string }; last_updated: string; tenant: { name: string } | null };

beforeAll(async () => {
  stack = await bootStack({ users, tenancy, extras, dcim, gateway: stackGateway() }, {}, { template: true });
  const { key } = await gatewayUser(stack, 'admin', [{ object_types: ['tenancy.tenant', 'dcim.site', 'dcim.region'] }]);
  gw = new Client(stack.urls.gateway, { identity: null });
  auth = { headers: { authorization: `Token ${key}` }, identity: null };
}, 120_000);
afterAll(() => stack?.stop());

const at = (path: string, moment: string) => gw.get(`${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(moment)}`, auth);
const tick = () => new Promise((r) => setTimeout(r, 5));

test('when a site and its tenant change after a moment, then reads as of it show both as they were, across services', async () => {
  const tenant = await gw.post('/api/tenancy/tenants/', { name: 'Old name', slug: 'travel' }, auth);
  const created = await gw.post('/api/dcim/sites/', { name: 'Travel 1', slug: 'travel-1', status: 'planned', tenant: tenant.body.id }, auth);
  expect(created.status).toBe(201);
  const t1 = (created.body as Site).last_updated;
  await tick();
  expect((await gw.patch(`/api/tenancy/tenants/${tenant.body.id}/`, { name: 'New name' }, auth)).status).toBe(200);
  await eventually(async () => (await gw.get(`/api/dcim/sites/${created.body.id}/`, auth)).body.tenant?.name === 'New name', 10_000, 'the rename in dcim');
  const updated = await gw.patch(`/api/dcim/sites/${created.body.id}/`, { status: 'active' }, auth);
  const t2 = (updated.body as Site).last_updated;
  await tick();
  const later = await gw.post('/api/dcim/sites/', { name: 'Travel 2', slug: 'travel-2' }, auth);
  expect((await gw.delete(`/api/dcim/sites/${created.body.id}/`, undefined, auth)).status).toBe(204);
  const t3 = new Date().toISOString();

  const then = await at(`/api/dcim/sites/${created.body.id}/`, t1);
  expect(then.status).toBe(200);
  expect(then.body).toMatchObject({ name: 'Travel 1', status: { value: 'planned' }, tenant: { id: tenant.body.id, name: 'Old name' } });
  // the same representation as a current read, brief and fields= included
  expect(Object.keys(then.body)).toEqual(Object.keys(updated.body));
  expect((await at(`/api/dcim/sites/${created.body.id}/?brief=1`, t1)).body).toEqual({ id: created.body.id, url: expect.any(String), display: 'Travel 1', name: 'Travel 1', slug: 'travel-1' });
  expect((await at(`/api/dcim/sites/${created.body.id}/?fields=tenant.name`, t2)).body).toEqual({ tenant: { name: 'New name' } });
  // lists with filters: as of t2 the site is active, and the later site is not there yet
  const listT2 = await at('/api/dcim/sites/?slug__isw=travel-&status=active', t2);
  expect(listT2.body.results.map((s: Site) => s.slug)).toEqual(['travel-1']);
  expect((await at('/api/dcim/sites/?slug__isw=travel-&status=planned', t2)).body.count).toBe(0);
  // deleted since: seen as it was; now gone
  const listT3 = await at('/api/dcim/sites/?slug__isw=travel-&ordering=name', t3);
  expect(listT3.body.results.map((s: Site) => s.slug)).toEqual(['travel-2']);
  expect((await at(`/api/dcim/sites/${later.body.id}/`, t1)).status).toBe(404);
  expect((await at(`/api/dcim/sites/${created.body.id}/`, t3)).status).toBe(404);
});

test('when a bulk create commits while reads as of the present run, then every read sees all of it or none of it', async () => {
  const n = 300;
  const body = Array.from({ length: n }, (_, i) => ({ name: `Bulk ${i}`, slug: `bulk-${i}` }));
  let done = false;
  const writing = gw.post('/api/dcim/sites/', body, auth).finally(() => (done = true));
  const seen: number[] = [];
  while (!done) seen.push((await at('/api/dcim/sites/?slug__isw=bulk-&limit=1', new Date().toISOString())).body.count);
  expect((await writing).status).toBe(201);
  // reads ran while the write did (it takes hundreds of milliseconds; a read, a few)
  expect(seen.length).toBeGreaterThanOrEqual(3);
  seen.push((await at('/api/dcim/sites/?slug__isw=bulk-&limit=1', new Date().toISOString())).body.count);
  expect(seen.every((c) => c === 0 || c === n)).toBe(true);
  expect(seen[seen.length - 1]).toBe(n);
});

test('when as_of is malformed, in the future, before history, or sent with a write, then the answer is a 400 naming as_of', async () => {
  for (const bad of ['yesterday', '2024-13-45T00:00:00Z', new Date(Date.now() + 3_600_000).toISOString(), '1999-01-01T00:00:00Z']) {
    const r = await at('/api/dcim/sites/', bad);
    expect(r.status).toBe(400);
    expect(Object.keys(r.body)).toEqual(['as_of']);
  }
  const write = await gw.post(`/api/dcim/sites/?as_of=${encodeURIComponent(new Date().toISOString())}`, { name: 'No', slug: 'no' }, auth);
  expect(write.status).toBe(400);
  expect(write.body).toEqual({ as_of: [expect.any(String)] });
});

test('when an object is created, changed and deleted, then diffs over each interval show created, the changed fields, and deleted', async () => {
  const t0 = new Date().toISOString();
  await tick();
  const site = await gw.post('/api/dcim/sites/', { name: 'Diff 1', slug: 'diff-1', status: 'planned' }, auth);
  const other = await gw.post('/api/dcim/sites/', { name: 'Diff 2', slug: 'diff-2' }, auth);
  const t1 = (site.body as Site).last_updated;
  await tick();
  const changed = await gw.patch(`/api/dcim/sites/${site.body.id}/`, { status: 'active', description: 'now live' }, auth);
  const t2 = (changed.body as Site).last_updated;
  await tick();
  expect((await gw.delete(`/api/dcim/sites/${site.body.id}/`, undefined, auth)).status).toBe(204);
  const t3 = new Date().toISOString();
  const diff = (from: string, to: string) => gw.get(`/api/dcim/sites/${site.body.id}/diff/?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, auth);

  const created = await diff(t0, t1);
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ id: site.body.id, action: 'created', changes: { name: { from: null, to: 'Diff 1' } } });
  const updated = (await diff(t1, t2)).body;
  expect(updated.action).toBe('updated');
  expect(updated.changes).toEqual({
    status: { from: { value: 'planned', label: 'Planned' }, to: { value: 'active', label: 'Active' } },
    description: { from: '', to: 'now live' },
    last_updated: { from: t1, to: t2 },
  });
  expect((await diff(t2, t3)).body).toMatchObject({ action: 'deleted', changes: { name: { from: 'Diff 1', to: null } } });
  expect((await diff(t2, t2)).body).toMatchObject({ action: 'unchanged', changes: {} });

  // the list's diff: its filters, paged, each changed object once; one created and deleted within the period is not there
  expect((await gw.get(`/api/dcim/sites/diff/?from=${encodeURIComponent(t0)}&to=${encodeURIComponent(t3)}&slug__isw=diff-`, auth)).body.count).toBe(1);
  const list = await gw.get(`/api/dcim/sites/diff/?from=${encodeURIComponent(t1)}&to=${encodeURIComponent(t3)}&slug__isw=diff-&limit=1`, auth);
  expect(list.status).toBe(200);
  expect(list.body).toMatchObject({ count: 2, previous: null, results: [{ id: site.body.id, action: 'deleted' }] });
  const next = await gw.get(list.body.next.replace(/^https?:\/\/[^/]+/, ''), auth);
  expect(next.body.results).toMatchObject([{ id: other.body.id, action: 'created' }]);
  // matched at either moment: planned before, active after
  const filtered = await gw.get(`/api/dcim/sites/diff/?from=${encodeURIComponent(t1)}&to=${encodeURIComponent(t2)}&status=planned`, auth);
  expect(filtered.body.results.map((r: { id: number }) => r.id)).toEqual([site.body.id]);
  expect((await gw.get(`/api/dcim/sites/diff/?to=${encodeURIComponent(t2)}`, auth)).body).toEqual({ from: ['This field is required.'] });
  expect((await gw.get(`/api/dcim/sites/${site.body.id}/diff/?from=${encodeURIComponent(t2)}&to=${encodeURIComponent(t1)}`, auth)).status).toBe(400);
});

test('when HISTORY_RETENTION prunes, then versions that ended before the cut-off go and history starts at it', async () => {
  const db = new Db(stack.databaseUrl, 'dcim', 2);
  try {
    const run = (text: string) => db.query(sql`${raw(text)}`);
    await run(`UPDATE dcim._history_start SET started = now() - interval '10 days'`);
    // an old version that ended 3 days ago, and one still valid 3 days ago
    await run(`INSERT INTO dcim.site__history (__valid, id, name, slug) VALUES
      (tstzrange(now() - interval '5 days', now() - interval '3 days'), 900001, 'Old', 'old'),
      (tstzrange(now() - interval '5 days', now() - interval '1 day'), 900002, 'Kept', 'kept')`);
    db.history = await loadHistoryReads(run, 'dcim');
    await pruneHistory({ db } as unknown as ServiceContext, 2);
    const left = await run(`SELECT id FROM dcim.site__history WHERE id > 900000 ORDER BY id`);
    expect(left.map((r) => r.id)).toEqual([900002]);
    const [{ days }] = await run(`SELECT round(extract(epoch FROM now() - started) / 86400) AS days FROM dcim._history_start`);
    expect(Number(days)).toBe(2);
    expect(Date.now() - Date.parse(db.history!.start)).toBeGreaterThan(2 * 86_400_000 - 60_000);
  } finally {
    await db.close();
  }
});
