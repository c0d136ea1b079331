import http from 'node:http';
import { bootStack, mintIdentity, superuser, type Stack, type Client } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

/** Each class of bad input the issue names answers a NetBox-shaped 4xx, decided by the engine for every model. */
let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, { MAX_BODY_SIZE: '65536' }, { template: true });
  api = stack.client('tenancy');
});
afterAll(() => stack?.stop());

const TENANTS = '/api/tenancy/tenants/';
const count = async () => (await api.get(`${TENANTS}?limit=1`)).body.count as number;

describe('integers beyond what PostgreSQL holds', () => {
  test('when a path id cannot exist, then it is a 404', async () => {
    for (const id of ['18446744073709551616', '9223372036854775808', '99999999999999999999999', '-1', '1e3']) {
      const r = await api.get(`/api/tenancy/contact-roles/${id}/`);
      expect([id, r.status, r.body]).toEqual([id, 404, { detail: 'Not found.' }]);
    }
    expect((await api.patch(`${TENANTS}18446744073709551616/`, { name: 'x' })).status).toBe(404);
    expect((await api.delete(`${TENANTS}18446744073709551616/`)).status).toBe(404);
  });

  test('when limit and offset are huge or not integers, then they fall back as NetBox does and a far offset is an empty page with the right count', async () => {
    await api.post(TENANTS, [{ name: 'P1', slug: 'p1' }, { name: 'P2', slug: 'p2' }]);
    const far = await api.get(`${TENANTS}?offset=99999999999999999999&slug__isw=p`);
    expect(far.status).toBe(200);
    expect(far.body.results).toEqual([]);
    expect(far.body.count).toBe(2);
    expect(far.body.next).toBeNull();
    const bad = await api.get(`${TENANTS}?limit=1e3&offset=-4&slug__isw=p`);
    expect(bad.status).toBe(200);
    expect(bad.body.results).toHaveLength(2);
    const huge = await api.get(`${TENANTS}?limit=99999999999999999999&slug__isw=p`);
    expect(huge.status).toBe(200);
    expect(huge.body.results).toHaveLength(2);
  });

  test('when a filter or a field gets an integer out of range, then the 400 names it', async () => {
    expect((await api.get(`${TENANTS}?id=18446744073709551616`)).body).toEqual({ id: ['Enter a whole number.'] });
    expect(Object.keys((await api.get(`${TENANTS}?group_id=18446744073709551616`)).body)).toEqual(['group_id']);
    const role = (await api.post('/api/tenancy/contact-roles/', { name: 'Owner', slug: 'owner' })).body;
    const contact = (await api.post('/api/tenancy/contacts/', { name: 'Ann' })).body;
    const before = (await api.get('/api/tenancy/contact-assignments/')).body.count;
    const r = await api.post('/api/tenancy/contact-assignments/', { content_type: 'tenancy.tenant', object_id: 2 ** 40, contact: contact.id, role: role.id });
    expect(r.status).toBe(400);
    expect(r.body.object_id).toBeDefined();
    const group = await api.post(TENANTS, { name: 'G', slug: 'g', group: 1.5e300 });
    expect(group.status).toBe(400);
    expect(group.body.group).toBeDefined();
    expect((await api.get('/api/tenancy/contact-assignments/')).body.count).toBe(before);
  });
});

describe('text PostgreSQL cannot store', () => {
  test('when a query value or name holds a NUL byte, then the 400 names the parameter', async () => {
    const r = await api.get(`${TENANTS}?name=a%00b`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ name: ['Null characters are not allowed.'] });
    expect((await api.get(`${TENANTS}?q=%00`)).body).toEqual({ q: ['Null characters are not allowed.'] });
    expect((await api.get(`${TENANTS}?ordering=%00`)).status).toBe(400);
    expect((await api.get(`${TENANTS}?x%00y=1`)).status).toBe(400);
  });

  test('when an unknown parameter is not Latin-1, then it is reported percent-encoded', async () => {
    const r = await api.get(`${TENANTS}?${encodeURIComponent('名前')}=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ignored-parameters')).toBe(encodeURIComponent('名前'));
  });

  test('when a body string holds a NUL byte or an unpaired surrogate, then the 400 names the field (per item in bulk) and nothing is written', async () => {
    const before = await count();
    const nul = await api.request('POST', TENANTS, { raw: '{"name": "a\\u0000b", "slug": "nul"}', headers: { 'content-type': 'application/json' } });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ name: ['Null characters are not allowed.'] });
    const sur = await api.request('POST', TENANTS, { raw: '[{"name": "ok", "slug": "ok-1"}, {"name": "x", "slug": "s", "description": "\\ud800"}]', headers: { 'content-type': 'application/json' } });
    expect(sur.status).toBe(400);
    expect(sur.body).toEqual([{}, { description: ['Surrogate characters are not allowed: U+D800.'] }]);
    const nested = await api.request('POST', TENANTS, { raw: '{"name": "n", "slug": "n", "custom_fields": {"a": ["\\u0000"]}}', headers: { 'content-type': 'application/json' } });
    expect(nested.body).toEqual({ custom_fields: ['Null characters are not allowed.'] });
    expect(await count()).toBe(before);
  });

  test('when JSON nests deeper than the limit, then it is a 400', async () => {
    const deep = '{"name": "d", "slug": "d", "custom_fields": ' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    const r = await api.request('POST', TENANTS, { raw: deep, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/nesting deeper than 100 levels/);
  });
});

describe('ordering', () => {
  test('when ordering names a declared field, count or reference, then it works or is a 400 naming ordering', async () => {
    // counts of other services' objects too: they are kept locally (projections), so they sort like any column
    for (const o of ['name', '-slug', 'group', '-group', 'id', 'created', '-last_updated', 'site_count', '-device_count', 'nosuchfield', 'constructor', '__proto__']) {
      const r = await api.get(`${TENANTS}?ordering=${o}`);
      expect([o, r.status]).toEqual([o, 200]);
    }
    expect((await api.get('/api/tenancy/tenant-groups/?ordering=-tenant_count')).status).toBe(200);
    expect((await api.get('/api/tenancy/tenant-groups/?ordering=_depth')).status).toBe(200);
    for (const o of ['tags', 'custom_fields']) {
      const r = await api.get(`${TENANTS}?ordering=${o}`);
      expect([o, r.status, Object.keys(r.body)]).toEqual([o, 400, ['ordering']]);
    }
  });
});

describe('malformed references, tags and custom fields', () => {
  test('when they have the wrong shape, then the 400 names the field before any other service is asked', async () => {
    const before = await count();
    // JSON text, so `__proto__` arrives as an own key the way a client sends it
    const cases: [string, string][] = [
      ['"tags": [1.5e300]', 'tags'],
      ['"tags": [{"__proto__": 1}]', 'tags'],
      ['"tags": [[1]]', 'tags'],
      ['"tags": [-1]', 'tags'],
      ['"group": {"constructor": {}}', 'group'],
      ['"group": {"name": {"a": {"b": {"c": {"d": {"e": 1}}}}}}', 'group'],
      ['"group": "99999999999999999999"', 'group'],
      ['"group": true', 'group'],
      ['"custom_fields": {"__proto__": 1}', '__all__'],
    ];
    for (const [extra, field] of cases) {
      const r = await api.request('POST', TENANTS, { raw: `{"name": "r", "slug": "r", ${extra}}`, headers: { 'content-type': 'application/json' } });
      expect([extra, r.status]).toEqual([extra, 400]);
      expect(Object.keys(r.body)).toContain(field);
    }
    // a value of the wrong type inside an attribute set matches nothing; it must not abort the transaction for the next item
    const typed = await api.post(TENANTS, [{ name: 't1', slug: 't1', group: { parent: 'abc' } }, { name: 't2', slug: 't2', group: { slug: 'nope' } }]);
    expect(typed.status).toBe(400);
    expect(typed.body[0].group[0]).toMatch(/^Related object not found using the provided attributes/);
    expect(typed.body[1].group[0]).toMatch(/^Related object not found using the provided attributes/);
    const proto = await api.request('POST', TENANTS, { raw: '{"name": "p", "slug": "p", "tags": [{"__proto__": 1}], "group": {"__proto__": {"x": 1}}}', headers: { 'content-type': 'application/json' } });
    expect(proto.status).toBe(400);
    expect(Object.keys(proto.body).sort()).toEqual(['group', 'tags']);
    expect(await count()).toBe(before);
  });
});

describe('request size', () => {
  test('when a body is over MAX_BODY_SIZE, then it is a 413 and the same keep-alive connection answers the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(TENANTS, stack.urls.tenancy);
    const send = (body: string) =>
      new Promise<{ status: number; socket: unknown; text: string }>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-identity': mintIdentity(superuser, 'tenancy') } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      const big = await send(JSON.stringify({ name: 'big', slug: 'big', comments: 'x'.repeat(100_000) }));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.text).detail).toMatch(/too large/);
      const next = await send(JSON.stringify({ name: 'small', slug: 'small' }));
      expect(next.status).toBe(201);
      expect(next.socket).toBe(big.socket);
    } finally {
      agent.destroy();
    }
  });
});

describe('concurrent writers', () => {
  test('when two groups are re-parented under each other at once, again and again, then nobody gets a 5xx and no cycle forms', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 15; i++) {
      const a = (await api.post('/api/tenancy/tenant-groups/', { name: `A${i}`, slug: `a-${i}` })).body;
      const b = (await api.post('/api/tenancy/tenant-groups/', { name: `B${i}`, slug: `b-${i}` })).body;
      const [ra, rb] = await Promise.all([
        api.patch(`/api/tenancy/tenant-groups/${a.id}/`, { parent: b.id }),
        api.patch(`/api/tenancy/tenant-groups/${b.id}/`, { parent: a.id }),
      ]);
      statuses.add(ra.status).add(rb.status);
      expect([ra.status, rb.status].sort()).toEqual([200, 400]);
      const [ga, gb] = [(await api.get(`/api/tenancy/tenant-groups/${a.id}/`)).body, (await api.get(`/api/tenancy/tenant-groups/${b.id}/`)).body];
      expect(ga.parent?.id === b.id && gb.parent?.id === a.id).toBe(false);
      expect(Math.max(ga._depth, gb._depth)).toBe(1);
    }
    expect([...statuses].every((s) => s < 500)).toBe(true);
  });
});
