import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

/**
 * Bulk creates are set-based: the unique rules of every row are checked with
 * one statement per rule and the rows are inserted with one statement, so a
 * request of 50 costs what a request of 5 does; errors still name the row.
 */
let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
  api = stack.client('tenancy');
}, 120_000);
afterAll(() => stack?.stop());

const TENANTS = '/api/tenancy/tenants/';
const statements = (r: { headers: Headers }) => Number(r.headers.get('x-query-count'));
const tenants = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}`, slug: `${prefix}-${i}`.toLowerCase(), ...extra }));
const count = async (q: string) => (await api.get(`${TENANTS}?${q}&limit=1`)).body.count as number;

test('when 50 tenants are created in one request, then it costs the statements 5 do, and the answer keeps the request\'s order', async () => {
  const few = await api.post(TENANTS, tenants('Few', 5));
  const many = await api.post(TENANTS, tenants('Many', 50));
  expect(few.status).toBe(201);
  expect(many.status).toBe(201);
  expect(statements(many)).toBe(statements(few));
  expect(many.body.map((t: { name: string }) => t.name)).toEqual(tenants('Many', 50).map((t) => t.name));
  const ids = many.body.map((t: { id: number }) => t.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  // what was stored is what was answered, row by row
  for (const t of many.body.slice(0, 3)) expect((await api.get(`${TENANTS}${t.id}/`)).body.slug).toBe(t.slug);
});

test('when two rows of one request clash with each other, then the later one is named and nothing is created', async () => {
  const rows = [...tenants('Twin', 3)];
  rows[2] = { ...rows[2], slug: rows[0].slug };
  const r = await api.post(TENANTS, rows);
  expect(r.status).toBe(400);
  expect(r.body).toEqual([{}, {}, { slug: ['Tenant slug must be unique per group.'] }]);
  expect(await count('name__isw=Twin')).toBe(0);
});

test('when a row clashes with a stored tenant, then that row is named (the rules compare case-sensitively) and nothing is created', async () => {
  await api.post(TENANTS, { name: 'Stored', slug: 'stored' });
  const r = await api.post(TENANTS, [{ name: 'Fresh', slug: 'fresh' }, { name: 'Stored', slug: 'stored-2' }, { name: 'stored', slug: 'stored-3' }]);
  expect(r.status).toBe(400);
  expect(r.body[0]).toEqual({});
  expect(r.body[1]).toEqual({ name: ['Tenant name must be unique per group.'] });
  expect(r.body[2]).toEqual({});
  expect(await count('slug=fresh')).toBe(0);
});

test('when names repeat in different groups, then only a repeat within one group is refused', async () => {
  const groups = await api.post('/api/tenancy/tenant-groups/', [
    { name: 'Bulk A', slug: 'bulk-a' },
    { name: 'Bulk B', slug: 'bulk-b' },
  ]);
  expect(groups.status).toBe(201);
  const [a, b] = groups.body.map((g: { id: number }) => g.id);
  const r = await api.post(TENANTS, [
    { name: 'In A', slug: 'same', group: a },
    { name: 'In B', slug: 'same', group: b },
    { name: 'In A again', slug: 'same', group: a },
  ]);
  expect(r.status).toBe(400);
  expect(r.body[0]).toEqual({});
  expect(r.body[1]).toEqual({});
  expect(r.body[2]).toEqual({ slug: ['Tenant slug must be unique per group.'] });
});

test('when a tree model is created in bulk, then each row still gets its place in the tree', async () => {
  const parent = await api.post('/api/tenancy/tenant-groups/', { name: 'Bulk root', slug: 'bulk-root' });
  const kids = await api.post('/api/tenancy/tenant-groups/', [
    { name: 'Kid 1', slug: 'kid-1', parent: parent.body.id },
    { name: 'Kid 2', slug: 'kid-2', parent: parent.body.id },
  ]);
  expect(kids.status).toBe(201);
  expect(kids.body.map((k: { _depth: number }) => k._depth)).toEqual([1, 1]);
  expect((await api.get(`/api/tenancy/tenant-groups/?parent_id=${parent.body.id}`)).body.count).toBe(2);
});
