import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

/**
 * Read options beyond NetBox 3.7 on tenancy's lists (the contract checks
 * them on every model): what they cost in statements, keyset pages deep in
 * a long list, NULLs and mixed directions, nested field selections.
 */

let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
  api = stack.client('tenancy');
}, 120_000);
afterAll(() => stack?.stop());

type Obj = Record<string, any>;
const TENANTS = '/api/tenancy/tenants/';
const GROUPS = '/api/tenancy/tenant-groups/';
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
const statements = (r: { headers: Headers }) => Number(r.headers.get('x-query-count'));

async function get(path: string): Promise<{ body: Obj; headers: Headers }> {
  const r = await api.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text.slice(0, 500)}`);
  return r;
}

/** Every id of a cursor walk from `first`, and what each page cost. */
async function walk(first: string): Promise<{ ids: number[]; costs: number[] }> {
  const ids: number[] = [];
  const costs: number[] = [];
  let url: string | null = first;
  while (url) {
    const r = await get(url);
    ids.push(...r.body.results.map((o: Obj) => o.id));
    costs.push(statements(r));
    url = r.body.next ? local(r.body.next) : null;
    if (costs.length > 500) throw new Error('walk did not end');
  }
  return { ids, costs };
}

describe('count=false', () => {
  test('when the page lies past the end, then count=false runs one statement fewer (no COUNT) and count is null', async () => {
    const made = (await api.post(TENANTS, [{ name: 'Past 1', slug: 'past-1' }, { name: 'Past 2', slug: 'past-2' }])).body as Obj[];
    const range = `id__gte=${made[0].id}&id__lte=${made[1].id}&offset=10`;
    const counted = await get(`${TENANTS}?${range}`);
    const uncounted = await get(`${TENANTS}?${range}&count=false`);
    expect(counted.body.count).toBe(2);
    expect(uncounted.body.count).toBeNull();
    expect(uncounted.body.results).toEqual([]);
    expect(statements(counted)).toBeGreaterThan(0);
    expect(statements(uncounted)).toBe(statements(counted) - 1);
  });
});

describe('fields= and omit=', () => {
  test('when fields= or omit= leave out tags or name them, then the page is one statement still: tags are read with the rows, never by a query of their own', async () => {
    const made = (await api.post(TENANTS, [{ name: 'Cheap 1', slug: 'cheap-1' }, { name: 'Cheap 2', slug: 'cheap-2' }])).body as Obj[];
    const ids = `id=${made[0].id}&id=${made[1].id}`;
    const full = await get(`${TENANTS}?${ids}`);
    const slim = await get(`${TENANTS}?${ids}&fields=id,name`);
    const tagged = await get(`${TENANTS}?${ids}&fields=id,name,tags`);
    const omitted = await get(`${TENANTS}?${ids}&omit=tags,custom_fields`);
    expect(slim.body.results).toEqual(full.body.results.map((o: Obj) => ({ id: o.id, name: o.name })));
    expect(tagged.body.results.map((o: Obj) => o.tags)).toEqual([[], []]);
    expect(statements(full)).toBe(1);
    expect(statements(slim)).toBe(1);
    expect(statements(tagged)).toBe(1);
    expect(statements(omitted)).toBe(1);
    expect(omitted.body.results[0]).not.toHaveProperty('tags');
    expect(omitted.body.results[0]).not.toHaveProperty('custom_fields');
  });

  test('when fields= names keys of a relation, then the related object shows only those keys, and null stays null', async () => {
    const group = (await api.post(GROUPS, { name: 'Nested sel', slug: 'nested-sel', description: 'g' })).body;
    const [a, b] = (await api.post(TENANTS, [{ name: 'Sel A', slug: 'sel-a', group: group.id }, { name: 'Sel B', slug: 'sel-b' }])).body as Obj[];
    const part = await get(`${TENANTS}?id=${a.id}&id=${b.id}&ordering=name&fields=id,group.name,group.slug,group.nope`);
    expect(part.body.results).toEqual([
      { id: a.id, group: { name: 'Nested sel', slug: 'nested-sel' } },
      { id: b.id, group: null },
    ]);
    const whole = await get(`${TENANTS}${a.id}/?fields=group,group.name`);
    expect(whole.body).toEqual({ group: a.group });
    // deeper than one level selects nothing
    const deep = await get(`${TENANTS}${a.id}/?fields=id,group.parent.name`);
    expect(deep.body).toEqual({ id: a.id });
  });

  test('when a count is shown with fields=, then it is counted; when the order sorts by a count not shown, then the walk still follows it', async () => {
    const groups = (await api.post(GROUPS, [1, 2, 3].map((i) => ({ name: `Counted ${i}`, slug: `counted-${i}` })))).body as Obj[];
    await api.post(
      TENANTS,
      [0, 1, 1, 2, 2, 2].map((g, i) => ({ name: `Member ${i}`, slug: `member-${i}`, group: groups[g].id })),
    );
    const range = `id__gte=${groups[0].id}&id__lte=${groups[2].id}`;
    const shown = await get(`${GROUPS}?${range}&fields=id,tenant_count&ordering=id`);
    expect(shown.body.results).toEqual(groups.map((g, i) => ({ id: g.id, tenant_count: i + 1 })));
    const { ids } = await walk(`${GROUPS}?${range}&fields=id,name&ordering=-tenant_count&cursor=&limit=1`);
    expect(ids).toEqual([...groups].reverse().map((g) => g.id));
  });
});

describe('keyset pages', () => {
  const N = 2000;
  /** The ids of the 2,000 tenants, ascending. */
  let made: number[] = [];
  let first = 0;
  let last = 0;

  beforeAll(async () => {
    const groups = (await api.post(GROUPS, [1, 2].map((i) => ({ name: `Deep ${i}`, slug: `deep-${i}` })))).body as Obj[];
    const objs: Obj[] = [];
    for (let from = 0; from < N; from += 500) {
      const bodies = Array.from({ length: 500 }, (_, k) => {
        const i = from + k;
        // a third without a group (NULLs), descriptions repeating (ties broken by the next terms)
        return { name: `Deep tenant ${i}`, slug: `deep-tenant-${i}`, description: `d${i % 7}`, group: i % 3 === 0 ? null : groups[i % 2].id };
      });
      const r = await api.post(TENANTS, bodies);
      if (r.status !== 201) throw new Error(r.text.slice(0, 500));
      objs.push(...r.body);
    }
    made = objs.map((o) => o.id).sort((a, b) => a - b);
    first = made[0];
    last = made[N - 1];
  }, 300_000);

  test('when cursor pages are walked through a 2,000-object list, then every page costs the same statements and every object comes once, in order', async () => {
    const range = `id__gte=${first}&id__lte=${last}`;
    const listed = (await get(`${TENANTS}?${range}&limit=0&fields=id`)).body.results.map((o: Obj) => o.id);
    expect(listed).toHaveLength(1000); // MAX_PAGE_SIZE: the offset listing stops here
    const { ids, costs } = await walk(`${TENANTS}?${range}&limit=50&cursor=`);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect(ids.slice(0, 1000)).toEqual(listed);
    expect(costs).toHaveLength(N / 50);
    expect(new Set(costs)).toEqual(new Set([costs[0]]));
  }, 120_000);

  test('when the ordering mixes directions and a nullable relation, then cursor pages give exactly the offset order', async () => {
    const range = `id__gte=${first}&id__lte=${made[599]}`;
    for (const ordering of ['group,-name', '-group,description,-id', 'description,group', '-description,-group,name']) {
      const offset = (await get(`${TENANTS}?${range}&limit=0&fields=id&ordering=${ordering}`)).body.results.map((o: Obj) => o.id);
      const { ids, costs } = await walk(`${TENANTS}?${range}&limit=40&fields=id&ordering=${ordering}&cursor=`);
      expect([ordering, ids]).toEqual([ordering, offset]);
      expect([ordering, new Set(costs).size]).toEqual([ordering, 1]);
    }
  }, 120_000);

  test('when start= pages are walked, then ids come in order, each once, at a constant cost per page', async () => {
    const { ids, costs } = await walk(`${TENANTS}?start=${first}&id__lte=${last}&limit=100&fields=id`);
    expect(ids).toEqual(made);
    expect(new Set(costs).size).toBe(1);
  }, 120_000);

  test('when objects are created and deleted while a cursor walk runs, then no object present throughout is missed or repeated', async () => {
    const range = `id__gte=${first}`;
    const seen: number[] = [];
    let url: string | null = `${TENANTS}?${range}&limit=100&ordering=-name&cursor=&fields=id,name`;
    let i = 0;
    const deleted = new Set<number>();
    while (url) {
      const r = await get(url);
      seen.push(...r.body.results.map((o: Obj) => o.id));
      // between pages: new tenants that sort anywhere, and one not yet seen deleted
      await api.post(TENANTS, [{ name: `Deep tenant ${i}x`, slug: `late-${i}` }, { name: `A late ${i}`, slug: `late-a-${i}` }]);
      const victim = made[N - 1 - i];
      if (!seen.includes(victim) && (await api.delete(`${TENANTS}${victim}/`)).status === 204) deleted.add(victim);
      i++;
      url = r.body.next ? local(r.body.next) : null;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const throughout = made.filter((id) => !deleted.has(id));
    expect(throughout.filter((id) => !seen.includes(id))).toEqual([]);
    expect(deleted.size).toBeGreaterThan(0);
  }, 120_000);
});

describe('OpenAPI', () => {
  test('when the schema is read, then list operations document the read options and detail reads fields and omit', async () => {
    const doc = (await stack.serviceClient('tenancy').get('/internal/openapi')).body;
    const names = (path: string, op = 'get') => doc.paths[path][op].parameters.map((p: Obj) => p.name);
    expect(names(TENANTS)).toEqual(expect.arrayContaining(['fields', 'omit', 'count', 'start', 'cursor']));
    expect(names(`${TENANTS}{id}/`)).toEqual(expect.arrayContaining(['id', 'fields', 'omit']));
    expect(doc.components.schemas.PaginatedTenantList.properties.count.nullable).toBe(true);
  });
});
