import pg from 'pg';
import { ipamSuite, type Obj } from './stack';

/**
 * The allocation endpoints of prefixes and IP addresses over HTTP (spec §4, §4.1–4.3): what GET
 * lists, what POST creates, their 400 / 404 / 409 answers, and allocations racing each other.
 * Each test works in address space of its own.
 */
const suite = ipamSuite();
const { made } = suite;
const api = () => suite.api();
const I = '/api/ipam';
const INSUFFICIENT = { detail: 'Insufficient resources are available to satisfy the request' };

let n = 0;
const aVrf = (extra: Obj = {}) => {
  n++;
  return made(`${I}/vrfs/`, { name: `Alloc VRF ${n}`, rd: `65200:${n}`, ...extra });
};
const aPrefix = (prefix: string, extra: Obj = {}) => made(`${I}/prefixes/`, { prefix, ...extra });
const anAddress = (address: string, extra: Obj = {}) => made(`${I}/ip-addresses/`, { address, ...extra });
const count = async (path: string): Promise<number> => (await api().get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).body.count;
const prefixesOf = (p: Obj) => `${I}/prefixes/${p.id}/available-prefixes/`;
const ipsOf = (p: Obj) => `${I}/prefixes/${p.id}/available-ips/`;
const rangeIpsOf = (r: Obj) => `${I}/ip-ranges/${r.id}/available-ips/`;

/** A client acting as a user with only these permissions. */
const as = (permissions: Obj[], write = true) =>
  api().withIdentity({
    user: { id: 9_200_001, username: 'ip-allocator', is_superuser: false, is_staff: false, is_active: true },
    token: { id: 9_200_001, write_enabled: write },
    permissions,
  } as any);

describe('available-prefixes (§4.1)', () => {
  test('when the parent holds the spec\'s children, then GET lists the minimal free blocks with family and VRF, ignoring limit', async () => {
    const parent = await aPrefix('192.0.2.0/24');
    await aPrefix('192.0.2.64/26');
    await aPrefix('192.0.2.192/27');
    const r = await api().get(prefixesOf(parent));
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { family: 4, prefix: '192.0.2.0/26', vrf: null },
      { family: 4, prefix: '192.0.2.128/26', vrf: null },
      { family: 4, prefix: '192.0.2.224/27', vrf: null },
    ]);
    expect((await api().get(`${prefixesOf(parent)}?limit=1`)).body).toHaveLength(3);
  });

  test('when the parent is global, then only global children count, whatever its status; a VRF parent counts its own VRF\'s', async () => {
    const vrf = await aVrf();
    const container = await aPrefix('10.1.0.0/16', { status: 'container' });
    await aPrefix('10.1.0.0/17', { vrf: vrf.id });
    expect((await api().get(prefixesOf(container))).body.map((x: Obj) => x.prefix)).toEqual(['10.1.0.0/16']);
    const inVrf = await aPrefix('10.1.0.0/16', { vrf: vrf.id });
    const free = (await api().get(prefixesOf(inVrf))).body;
    expect(free.map((x: Obj) => x.prefix)).toEqual(['10.1.128.0/17']);
    expect(free[0].vrf).toMatchObject({ id: vrf.id, name: vrf.name, rd: vrf.rd, display: vrf.display });
  });

  test('when an IPv6 parent is asked, then family is 6 and blocks are compressed', async () => {
    const parent = await aPrefix('2001:db8:100::/48');
    await aPrefix('2001:db8:100::/49');
    expect((await api().get(prefixesOf(parent))).body).toEqual([{ family: 6, prefix: '2001:db8:100:8000::/49', vrf: null }]);
    const one = await api().post(prefixesOf(parent), { prefix_length: 64 });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ prefix: '2001:db8:100:8000::/64', family: { value: 6, label: 'IPv6' } });
  });

  test('when one item is posted, then 201 with the prefix in the parent\'s VRF, the client\'s prefix and VRF replaced, other fields its own', async () => {
    const vrf = await aVrf();
    const other = await aVrf();
    const parent = await aPrefix('10.2.0.0/24', { vrf: vrf.id, status: 'container', description: 'parent', is_pool: true });
    const r = await api().post(prefixesOf(parent), { prefix_length: 26, prefix: '172.16.0.0/12', vrf: other.id, description: 'mine', status: 'reserved' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ prefix: '10.2.0.0/26', vrf: { id: vrf.id }, description: 'mine', status: { value: 'reserved' }, is_pool: false, site: null });
    expect(r.body).not.toHaveProperty('prefix_length');
    expect(Array.isArray(r.body)).toBe(false);
  });

  test('when a list is posted, then each item takes the first free block that holds its length, in request order', async () => {
    const parent = await aPrefix('10.3.0.0/24');
    const r = await api().post(prefixesOf(parent), [{ prefix_length: 26 }, { prefix_length: 25 }, { prefix_length: 26 }]);
    expect(r.status).toBe(201);
    expect(r.body.map((x: Obj) => x.prefix)).toEqual(['10.3.0.0/26', '10.3.0.128/25', '10.3.0.64/26']);
    expect((await api().get(`${I}/prefixes/${parent.id}/`)).body.children).toBe(3);
  });

  test('when the items ask more than is free, or a length shorter than the parent, then 409 and nothing is created; an empty list is 201 []', async () => {
    const parent = await aPrefix('10.4.0.0/24');
    const over = await api().post(prefixesOf(parent), Array.from({ length: 5 }, () => ({ prefix_length: 26 })));
    expect(over.status).toBe(409);
    expect(over.body).toEqual(INSUFFICIENT);
    expect(await count(`${I}/prefixes/?within=10.4.0.0/24`)).toBe(0);
    expect((await api().post(prefixesOf(parent), { prefix_length: 23 })).status).toBe(409);
    const empty = await api().post(prefixesOf(parent), []);
    expect([empty.status, empty.body]).toEqual([201, []]);
    expect((await api().post(prefixesOf(parent), Array.from({ length: 4 }, () => ({ prefix_length: 26 })))).status).toBe(201);
    // exhausted: even a /32 finds nothing
    const none = await api().post(prefixesOf(parent), { prefix_length: 32 });
    expect([none.status, none.body]).toEqual([409, INSUFFICIENT]);
    expect((await api().get(prefixesOf(parent))).body).toEqual([]);
    expect(await count(`${I}/prefixes/?within=10.4.0.0/24`)).toBe(4);
  });

  test('when prefix_length is missing, not a JSON integer or too long for the family, then 400 with a list of per-item errors and nothing created', async () => {
    const v4 = await aPrefix('10.5.0.0/24');
    const v6 = await aPrefix('2001:db8:500::/48');
    const cases: [Obj, unknown, Obj][] = [
      [v4, {}, { prefix_length: ['this field can not be missing'] }],
      [v4, { prefix_length: null }, { prefix_length: ['this field can not be missing'] }],
      [v4, { prefix_length: '30' }, { prefix_length: ['this field must be int type'] }],
      [v4, { prefix_length: 25.5 }, { prefix_length: ['this field must be int type'] }],
      [v4, { prefix_length: true }, { prefix_length: ['this field must be int type'] }],
      [v4, { prefix_length: 33 }, { prefix_length: ['Invalid prefix length (33) for IPv4'] }],
      [v6, { prefix_length: 129 }, { prefix_length: ['Invalid prefix length (129) for IPv6'] }],
      [v4, { prefix_length: -1 }, { prefix_length: ['Ensure this value is greater than or equal to 0.'] }],
    ];
    for (const [parent, body, error] of cases) {
      const r = await api().post(prefixesOf(parent), body);
      expect([r.status, r.body]).toEqual([400, [error]]);
    }
    const notAnObject = await api().post(prefixesOf(v4), ['text']);
    expect([notAnObject.status, notAnObject.body]).toEqual([400, [{ non_field_errors: ['Invalid data. Expected a dictionary.'] }]]);
    const mixed = await api().post(prefixesOf(v4), [{ prefix_length: 30 }, { prefix_length: 40 }]);
    expect([mixed.status, mixed.body]).toEqual([400, [{}, { prefix_length: ['Invalid prefix length (40) for IPv4'] }]]);
    expect(await count(`${I}/prefixes/?within=10.5.0.0/24`)).toBe(0);
    expect((await api().post(prefixesOf(v6), { prefix_length: 128 })).status).toBe(201);
  });

  test('when an allocated item breaks the model\'s rules, then 400 with its error object (a list for a list) and nothing created', async () => {
    const parent = await aPrefix('10.6.0.0/24');
    const one = await api().post(prefixesOf(parent), { prefix_length: 26, status: 'bogus' });
    expect(one.status).toBe(400);
    expect(Object.keys(one.body)).toEqual(['status']);
    const list = await api().post(prefixesOf(parent), [{ prefix_length: 26 }, { prefix_length: 26, status: 'bogus' }]);
    expect(list.status).toBe(400);
    expect(list.body[0]).toEqual({});
    expect(Object.keys(list.body[1])).toEqual(['status']);
    expect(await count(`${I}/prefixes/?within=10.6.0.0/24`)).toBe(0);
  });

  test('when 50 allocations run at once, then they get 50 distinct, non-overlapping prefixes', async () => {
    const parent = await aPrefix('10.50.0.0/16');
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => api().post(prefixesOf(parent), { prefix_length: 24, description: `c${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const got = replies.map((r) => r.body.prefix as string);
    expect(new Set(got).size).toBe(50);
    // /24s of one /16 overlap only when equal: together they are the first 50
    expect([...got].sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]))).toEqual(Array.from({ length: 50 }, (_, i) => `10.50.${i}.0/24`));
    expect(await count(`${I}/prefixes/?within=10.50.0.0/16`)).toBe(50);
    expect((await api().get(`${I}/prefixes/${parent.id}/`)).body.children).toBe(50);
  });
});

describe('available-ips of a prefix (§4.2)', () => {
  test('when some hosts are taken, then GET lists the free ones with the parent\'s mask, without network and broadcast, and limit bounds it', async () => {
    const parent = await aPrefix('10.20.0.0/29');
    await anAddress('10.20.0.2/24'); // its own mask does not matter: its host is inside
    await anAddress('10.20.0.5/29');
    const r = await api().get(ipsOf(parent));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(['10.20.0.1', '10.20.0.3', '10.20.0.4', '10.20.0.6'].map((a) => ({ family: 4, address: `${a}/29`, vrf: null })));
    expect((await api().get(`${ipsOf(parent)}?limit=2`)).body).toHaveLength(2);
    expect((await api().get(`${ipsOf(parent)}?limit=x`)).body).toHaveLength(4);
    expect((await api().get(`${ipsOf(parent)}?limit=-3`)).body).toHaveLength(4);
  });

  test('when limit is absent, 0 or above 1000, then 50, 1000 and 1000 addresses come back', async () => {
    const parent = await aPrefix('10.21.0.0/16');
    expect((await api().get(ipsOf(parent))).body).toHaveLength(50);
    expect((await api().get(`${ipsOf(parent)}?limit=0`)).body).toHaveLength(1000);
    const capped = (await api().get(`${ipsOf(parent)}?limit=5000`)).body;
    expect(capped).toHaveLength(1000);
    expect(capped[999].address).toBe('10.21.3.232/16');
  });

  test('when a pool has 8 free addresses, then 9 items are a 409 with none created and 8 are 201 with 8 objects (the spec\'s example)', async () => {
    const pool = await aPrefix('10.22.0.0/29', { is_pool: true });
    const nine = await api().post(ipsOf(pool), Array.from({ length: 9 }, (_, i) => ({ description: `a${i}` })));
    expect([nine.status, nine.body]).toEqual([409, INSUFFICIENT]);
    expect(await count(`${I}/ip-addresses/?parent=10.22.0.0/29`)).toBe(0);
    const eight = await api().post(ipsOf(pool), Array.from({ length: 8 }, (_, i) => ({ description: `a${i}` })));
    expect(eight.status).toBe(201);
    expect(eight.body.map((x: Obj) => x.address)).toEqual(Array.from({ length: 8 }, (_, i) => `10.22.0.${i}/29`));
    expect(eight.body.map((x: Obj) => x.description)).toEqual(Array.from({ length: 8 }, (_, i) => `a${i}`));
    expect((await api().post(ipsOf(pool), {})).status).toBe(409);
    expect((await api().get(ipsOf(pool))).body).toEqual([]);
  });

  test('when the prefix is an IPv4 /31 or /32 or an IPv6 /127 or /128, then every address is usable; a larger IPv6 prefix loses its first', async () => {
    const p31 = await aPrefix('10.23.0.0/31');
    expect((await api().get(ipsOf(p31))).body.map((x: Obj) => x.address)).toEqual(['10.23.0.0/31', '10.23.0.1/31']);
    const p32 = await aPrefix('10.23.0.9/32');
    expect((await api().get(ipsOf(p32))).body.map((x: Obj) => x.address)).toEqual(['10.23.0.9/32']);
    const p127 = await aPrefix('2001:db8:127::/127');
    const v6 = (await api().get(ipsOf(p127))).body;
    expect(v6).toEqual([
      { family: 6, address: '2001:db8:127::/127', vrf: null },
      { family: 6, address: '2001:db8:127::1/127', vrf: null },
    ]);
    const p128 = await aPrefix('2001:db8:128::5/128');
    expect((await api().get(ipsOf(p128))).body.map((x: Obj) => x.address)).toEqual(['2001:db8:128::5/128']);
    const p64 = await aPrefix('2001:db8:64::/64');
    expect((await api().get(`${ipsOf(p64)}?limit=2`)).body.map((x: Obj) => x.address)).toEqual(['2001:db8:64::1/64', '2001:db8:64::2/64']);
    const made31 = await api().post(ipsOf(p31), [{}, {}]);
    expect([made31.status, made31.body.map((x: Obj) => x.address)]).toEqual([201, ['10.23.0.0/31', '10.23.0.1/31']]);
    const six = await api().post(ipsOf(p64), {});
    expect(six.body).toMatchObject({ address: '2001:db8:64::1/64', family: { value: 6, label: 'IPv6' } });
  });

  test('when a /30 is not a pool, then only its two middle addresses are free: three items are a 409', async () => {
    const p = await aPrefix('10.24.0.0/30');
    expect((await api().get(ipsOf(p))).body.map((x: Obj) => x.address)).toEqual(['10.24.0.1/30', '10.24.0.2/30']);
    expect((await api().post(ipsOf(p), [{}, {}, {}])).status).toBe(409);
    expect(await count(`${I}/ip-addresses/?parent=10.24.0.0/30`)).toBe(0);
  });

  test('when the prefix is marked utilized, then GET lists nothing and POST is a 409', async () => {
    const p = await aPrefix('10.25.0.0/24', { mark_utilized: true });
    expect((await api().get(ipsOf(p))).body).toEqual([]);
    expect([(await api().post(ipsOf(p), {})).status, (await api().post(ipsOf(p), [])).status]).toEqual([409, 201]);
    expect(await count(`${I}/ip-addresses/?parent=10.25.0.0/24`)).toBe(0);
  });

  test('when an IP range of the prefix\'s VRF lies inside it, then its addresses are not free; a range of another VRF is', async () => {
    const vrf = await aVrf();
    const p = await aPrefix('10.26.0.0/24');
    await made(`${I}/ip-ranges/`, { start_address: '10.26.0.1/24', end_address: '10.26.0.10/24' });
    await made(`${I}/ip-ranges/`, { start_address: '10.26.0.11/24', end_address: '10.26.0.20/24', vrf: vrf.id });
    expect((await api().get(`${ipsOf(p)}?limit=1`)).body[0].address).toBe('10.26.0.11/24');
  });

  test('when the prefix is in a VRF, then addresses of other VRFs do not count and POST gives the parent\'s VRF and the next address, whatever was sent', async () => {
    const vrf = await aVrf();
    const other = await aVrf();
    const p = await aPrefix('10.27.0.0/24', { vrf: vrf.id });
    await anAddress('10.27.0.1/24', { vrf: vrf.id });
    await anAddress('10.27.0.2/24', { vrf: other.id });
    await anAddress('10.27.0.3/24');
    const free = (await api().get(`${ipsOf(p)}?limit=3`)).body;
    expect(free.map((x: Obj) => x.address)).toEqual(['10.27.0.2/24', '10.27.0.3/24', '10.27.0.4/24']);
    expect(free[0].vrf).toMatchObject({ id: vrf.id, name: vrf.name, rd: vrf.rd });
    const r = await api().post(ipsOf(p), { address: '192.0.2.1/32', vrf: other.id, description: 'given', dns_name: 'host.example.com', status: 'reserved' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ address: '10.27.0.2/24', vrf: { id: vrf.id }, description: 'given', dns_name: 'host.example.com', status: { value: 'reserved' } });
  });

  test('when the parent is a global container, then addresses of every VRF count; a global prefix of another status counts only global ones', async () => {
    const vrf = await aVrf();
    const container = await aPrefix('10.28.0.0/24', { status: 'container' });
    const active = await aPrefix('10.28.1.0/24');
    await anAddress('10.28.0.1/24', { vrf: vrf.id });
    await anAddress('10.28.1.1/24', { vrf: vrf.id });
    expect((await api().get(`${ipsOf(container)}?limit=1`)).body).toEqual([{ family: 4, address: '10.28.0.2/24', vrf: null }]);
    expect((await api().get(`${ipsOf(active)}?limit=1`)).body).toEqual([{ family: 4, address: '10.28.1.1/24', vrf: null }]);
    const r = await api().post(ipsOf(container), {});
    expect(r.body).toMatchObject({ address: '10.28.0.2/24', vrf: null });
  });

  test('when an item\'s description is not a string, or an item is not an object, then 400 with a list of per-item errors; model errors are the model\'s 400', async () => {
    const p = await aPrefix('10.29.0.0/24');
    const single = await api().post(ipsOf(p), { description: { x: 1 } });
    expect([single.status, single.body]).toEqual([400, [{ description: ['Not a valid string.'] }]]);
    const list = await api().post(ipsOf(p), [{ description: 'ok' }, { description: null }, 7]);
    expect([list.status, list.body]).toEqual([
      400,
      [{}, { description: ['This field may not be null.'] }, { non_field_errors: ['Invalid data. Expected a dictionary.'] }],
    ]);
    const model = await api().post(ipsOf(p), { status: 'bogus' });
    expect(model.status).toBe(400);
    expect(Object.keys(model.body)).toEqual(['status']);
    const models = await api().post(ipsOf(p), [{}, { dns_name: 'bad name!' }]);
    expect(models.status).toBe(400);
    expect(models.body[0]).toEqual({});
    expect(Object.keys(models.body[1])).toEqual(['dns_name']);
    expect(await count(`${I}/ip-addresses/?parent=10.29.0.0/24`)).toBe(0);
  });

  test('when allocations continue until the prefix is full, then the next is a 409 and creates nothing', async () => {
    const p = await aPrefix('10.30.0.0/28');
    expect((await api().post(ipsOf(p), Array.from({ length: 10 }, () => ({})))).status).toBe(201);
    expect((await api().post(ipsOf(p), Array.from({ length: 5 }, () => ({})))).status).toBe(409);
    expect(await count(`${I}/ip-addresses/?parent=10.30.0.0/28`)).toBe(10);
    const last = await api().post(ipsOf(p), Array.from({ length: 4 }, () => ({})));
    expect(last.body.map((x: Obj) => x.address)).toEqual(['10.30.0.11/28', '10.30.0.12/28', '10.30.0.13/28', '10.30.0.14/28']);
    const full = await api().post(ipsOf(p), { description: 'one more' });
    expect([full.status, full.body]).toEqual([409, INSUFFICIENT]);
    expect(await count(`${I}/ip-addresses/?parent=10.30.0.0/28`)).toBe(14);
    expect(await count(`${I}/ip-addresses/?description=one more`)).toBe(0);
  });

  test('when 50 allocations run at once, then they get 50 distinct addresses', async () => {
    const p = await aPrefix('10.60.0.0/24');
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => api().post(ipsOf(p), { description: `c${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const got = replies.map((r) => r.body.address as string);
    expect(new Set(got).size).toBe(50);
    expect([...got].sort((a, b) => Number(a.split('.')[3].split('/')[0]) - Number(b.split('.')[3].split('/')[0]))).toEqual(
      Array.from({ length: 50 }, (_, i) => `10.60.0.${i + 1}/24`),
    );
    expect(await count(`${I}/ip-addresses/?parent=10.60.0.0/24`)).toBe(50);
  });

  test('when Ansible posts its body (prefix, assigned_object as an integer, tenant), then the keys it cannot write are ignored and the rest is the address\'s', async () => {
    const p = await aPrefix('10.62.0.0/24');
    const tenant = await made('/api/tenancy/tenants/', { name: 'Alloc tenant', slug: 'alloc-tenant' }, suite.stack().client('tenancy'));
    const r = await api().post(ipsOf(p), { prefix: '10.62.0.0/24', assigned_object: 5, status: 'reserved', tenant: tenant.id, description: 'from ansible' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ address: '10.62.0.1/24', assigned_object: null, status: { value: 'reserved' }, tenant: { id: tenant.id }, description: 'from ansible', vrf: null });
  });

  test('when manual creates race allocations, then no address is given twice', async () => {
    const p = await aPrefix('10.61.0.0/24');
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? api().post(ipsOf(p), {}) : api().post(`${I}/ip-addresses/`, { address: `10.61.0.${i / 2 + 1}/24` }))),
    );
    const ok = replies.filter((r) => r.status === 201).map((r) => r.body.address);
    expect(new Set(ok).size).toBe(ok.length);
    expect(replies.every((r) => r.status === 201 || r.status === 400)).toBe(true);
  });
});

describe('available-ips of an IP range (§4.3)', () => {
  test('when addresses of the range\'s VRF lie in it, then they are not free (inet order, mask-sensitive); items carry the range\'s mask and VRF', async () => {
    const vrf = await aVrf();
    const range = await made(`${I}/ip-ranges/`, { start_address: '10.40.0.10/24', end_address: '10.40.0.20/24', vrf: vrf.id, mark_utilized: true });
    await anAddress('10.40.0.10/24', { vrf: vrf.id });
    await anAddress('10.40.0.11/24'); // global: another VRF
    await anAddress('10.40.0.12/32', { vrf: vrf.id }); // after 10.40.0.20/24 in inet order: outside the range (Quirk)
    const free = (await api().get(rangeIpsOf(range))).body;
    expect(free.map((x: Obj) => x.address)).toEqual(Array.from({ length: 10 }, (_, i) => `10.40.0.${11 + i}/24`));
    expect(free[0]).toMatchObject({ family: 4, vrf: { id: vrf.id } });
    expect((await api().get(`${rangeIpsOf(range)}?limit=2`)).body).toHaveLength(2);
  });

  test('when the range starts on a network address, then it is free (no network or broadcast exclusion)', async () => {
    const range = await made(`${I}/ip-ranges/`, { start_address: '10.41.0.0/24', end_address: '10.41.0.2/24' });
    expect((await api().get(rangeIpsOf(range))).body.map((x: Obj) => x.address)).toEqual(['10.41.0.0/24', '10.41.0.1/24', '10.41.0.2/24']);
  });

  test('when 11 are asked of 10 free addresses, then 409 and none created; 10 are 201 in the range\'s VRF; then it is full', async () => {
    const vrf = await aVrf();
    const range = await made(`${I}/ip-ranges/`, { start_address: '2001:db8:40::a/64', end_address: '2001:db8:40::14/64', vrf: vrf.id });
    await anAddress('2001:db8:40::b/64', { vrf: vrf.id });
    expect((await api().post(rangeIpsOf(range), Array.from({ length: 11 }, () => ({})))).status).toBe(409);
    expect(await count(`${I}/ip-addresses/?vrf_id=${vrf.id}`)).toBe(1);
    const ten = await api().post(rangeIpsOf(range), Array.from({ length: 10 }, () => ({ vrf: null })));
    expect(ten.status).toBe(201);
    expect(ten.body[0]).toMatchObject({ address: '2001:db8:40::a/64', vrf: { id: vrf.id }, family: { value: 6 } });
    expect(ten.body[1].address).toBe('2001:db8:40::c/64');
    expect([(await api().post(rangeIpsOf(range), {})).body]).toEqual([INSUFFICIENT]);
  });
});

describe('permissions and missing parents', () => {
  test('when the parent does not exist or the user may not view it, then 404; without view or add on IP addresses, then 403', async () => {
    const p = await aPrefix('10.70.0.0/24');
    const other = await aPrefix('10.71.0.0/24');
    const range = await made(`${I}/ip-ranges/`, { start_address: '10.70.0.10/24', end_address: '10.70.0.20/24' });
    expect((await api().get(`${I}/prefixes/99999999/available-ips/`)).status).toBe(404);
    expect((await api().post(`${I}/prefixes/99999999/available-prefixes/`, { prefix_length: 24 })).body).toEqual({ detail: 'Not found.' });
    expect((await api().get(`${I}/ip-ranges/99999999/available-ips/`)).status).toBe(404);

    const noParent = as([{ object_types: ['ipam.ipaddress'], actions: ['view', 'add'] }]);
    expect((await noParent.get(ipsOf(p))).status).toBe(404);
    expect((await noParent.post(ipsOf(p), {})).status).toBe(404);
    expect((await noParent.get(rangeIpsOf(range))).status).toBe(404);
    const noChild = as([{ object_types: ['ipam.prefix', 'ipam.iprange'], actions: ['view'] }]);
    expect((await noChild.get(ipsOf(p))).status).toBe(403);
    expect((await noChild.get(rangeIpsOf(range))).status).toBe(403);
    expect((await noChild.get(prefixesOf(p))).status).toBe(200);
    expect((await noChild.post(prefixesOf(p), { prefix_length: 26 })).status).toBe(403);
    const viewer = as([{ object_types: ['ipam.prefix', 'ipam.ipaddress'], actions: ['view'] }]);
    expect((await viewer.get(ipsOf(p))).status).toBe(200);
    expect((await viewer.post(ipsOf(p), {})).status).toBe(403);
    const constrained = as([
      { object_types: ['ipam.prefix'], actions: ['view'], constraints: { id: other.id } },
      { object_types: ['ipam.ipaddress'], actions: ['view', 'add'] },
    ]);
    expect((await constrained.get(ipsOf(p))).status).toBe(404);
    const allowed = await constrained.post(ipsOf(other), {});
    expect([allowed.status, allowed.body.address]).toEqual([201, '10.71.0.1/24']);
    const readOnly = as([{ object_types: ['ipam.prefix', 'ipam.ipaddress'], actions: ['view', 'add'] }], false);
    expect((await readOnly.post(ipsOf(p), {})).status).toBe(403);
    expect(await count(`${I}/ip-addresses/?parent=10.70.0.0/24`)).toBe(0);
  });

  test('when the created object would leave the user\'s permitted scope, then 403 and nothing is kept', async () => {
    const p = await aPrefix('10.72.0.0/24');
    const scoped = as([
      { object_types: ['ipam.prefix'], actions: ['view'] },
      { object_types: ['ipam.ipaddress'], actions: ['view', 'add'], constraints: { description: 'allowed' } },
    ]);
    expect((await scoped.post(ipsOf(p), [{ description: 'allowed' }, { description: 'other' }])).status).toBe(403);
    expect(await count(`${I}/ip-addresses/?parent=10.72.0.0/24`)).toBe(0);
    expect((await scoped.post(ipsOf(p), { description: 'allowed' })).status).toBe(201);
  });
});

describe('indexes (decision 019, migration 0005)', () => {
  test('when the ipam tables are migrated, then network columns have SP-GiST indexes (no GiST), containment reads them, and ordered walks read the btrees', async () => {
    const client = new pg.Client({ connectionString: suite.stack().databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        // the models' tables (their histories' GiST indexes are on validity periods, not networks: decision 034)
        `SELECT c.relname AS name, am.amname AS method FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_am am ON am.oid = c.relam
          JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'ipam' AND am.amname IN ('gist', 'spgist') AND t.relname NOT LIKE '%\\_\\_history' ORDER BY 1`,
      );
      expect(rows).toEqual(
        ['aggregate_prefix_spgist', 'ip_address_address_spgist', 'ip_range_end_address_spgist', 'ip_range_start_address_spgist', 'prefix_prefix_spgist'].map((name) => ({
          name,
          method: 'spgist',
        })),
      );
      const plan = async (query: string) => {
        await client.query('BEGIN');
        try {
          // the tables are small: make the planner show which index it can use
          await client.query('SET LOCAL enable_seqscan = off');
          return (await client.query(`EXPLAIN ${query}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          await client.query('ROLLBACK');
        }
      };
      expect(await plan(`SELECT id FROM ipam.prefix WHERE prefix >>= '10.50.7.0/24'::cidr`)).toMatch(/prefix_prefix_spgist/);
      expect(await plan(`SELECT id FROM ipam.ip_address WHERE address <<= '10.60.0.0/24'::cidr`)).toMatch(/ip_address_address_(spgist|idx)/);
      expect(await plan(`SELECT prefix FROM ipam.prefix WHERE prefix > '10.50.0.0/16'::inet AND prefix <= '10.50.255.255/32'::inet ORDER BY prefix LIMIT 5`)).toMatch(
        /Index (Only )?Scan using prefix_prefix_idx/,
      );
      expect(await plan(`SELECT id FROM ipam.ip_address ORDER BY CAST(HOST(address) AS inet) LIMIT 5`)).toMatch(/Index (Only )?Scan using ip_address_host_idx/);
      expect(await plan(`SELECT id FROM ipam.ip_range ORDER BY CAST(HOST(start_address) AS inet) LIMIT 5`)).toMatch(/Index (Only )?Scan using ip_range_start_host_idx/);
    } finally {
      await client.end();
    }
  });
});
