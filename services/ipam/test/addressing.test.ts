import pg from 'pg';
import { eventually } from '@inventory/testkit';
import { render } from '@inventory/filtering';
import { blockUsageFromScratch } from '../src/allocation';
import { addressingSuite, type Obj } from './stack';

const suite = addressingSuite();
const { made } = suite;
const I = '/api/ipam';
const get = async (path: string) => {
  const r = await suite.api().get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body;
};
/** The listed objects' values of `key`, in the list's order. */
const listed = async (path: string, key = 'id'): Promise<unknown[]> => (await get(`${path}${path.includes('?') ? '&' : '?'}limit=0`)).results.map((o: Obj) => o[key]);
let n = 0;
const aVrf = (extra: Obj = {}) => {
  n++;
  return made(`${I}/vrfs/`, { name: `Addr VRF ${n}`, rd: `65100:${n}`, ...extra });
};

/** `prefix → [_depth, children]` of the VRF's prefixes (null: the global table), read back. */
async function hierarchy(vrf: number | null): Promise<Record<string, [number, number]>> {
  const list = (await get(`${I}/prefixes/?vrf_id=${vrf ?? 'null'}&limit=0`)).results;
  return Object.fromEntries(list.map((p: Obj) => [p.prefix, [p._depth, p.children]]));
}

describe('prefix hierarchy', () => {
  test('when prefixes are created, moved and deleted, then _depth counts distinct containing prefixes and children the contained rows, per VRF', async () => {
    const vrf = await aVrf({ enforce_unique: false });
    const mk = (prefix: string, v: number | null = vrf.id) => made(`${I}/prefixes/`, { prefix, vrf: v });
    const top = await mk('10.0.0.0/8');
    const mid = await mk('10.0.0.0/16');
    await mk('10.0.0.0/16'); // a duplicate parent counts once in depth, twice in children
    await mk('10.0.0.0/24');
    const leaf = await mk('10.0.1.0/24');
    await mk('10.1.0.0/16');
    // the same networks in the global table are another hierarchy
    await mk('10.0.0.0/8', null);
    expect(await hierarchy(vrf.id)).toEqual({
      '10.0.0.0/8': [0, 5],
      '10.0.0.0/16': [1, 2],
      '10.0.0.0/24': [2, 0],
      '10.0.1.0/24': [2, 0],
      '10.1.0.0/16': [1, 0],
    });
    expect(Object.values(await hierarchy(null)).some(([, c]) => c > 0)).toBe(false);
    // a prefix whose hierarchy changed is a new version: its ETag changes
    const tagOf = async (id: number) => (await suite.api().get(`${I}/prefixes/${id}/`)).headers.get('etag');
    const before = await tagOf(top.id);
    const extra = await mk('10.200.0.0/16');
    expect(await tagOf(top.id)).not.toBe(before);
    expect((await suite.api().delete(`${I}/prefixes/${extra.id}/`)).status).toBe(204);
    const detail = await get(`${I}/prefixes/${mid.id}/`);
    expect(detail).toMatchObject({ _depth: 1, children: 2, family: { value: 4, label: 'IPv4' } });
    expect((await get(`${I}/prefixes/${mid.id}/?brief=1`))).toEqual({ id: mid.id, url: mid.url, display: '10.0.0.0/16', family: 4, prefix: '10.0.0.0/16', _depth: 1 });

    // moved out of the /16s: the leaf's old parents lose a child, its new one gains it
    expect((await suite.api().patch(`${I}/prefixes/${leaf.id}/`, { prefix: '10.1.5.0/24' })).status).toBe(200);
    let h = await hierarchy(vrf.id);
    expect(h['10.0.0.0/16']).toEqual([1, 1]);
    expect(h['10.1.0.0/16']).toEqual([1, 1]);
    expect(h['10.1.5.0/24']).toEqual([2, 0]);
    expect(h['10.0.0.0/8']).toEqual([0, 5]);

    // moved to the global table: it leaves this VRF's hierarchy and joins the global /8
    expect((await suite.api().patch(`${I}/prefixes/${leaf.id}/`, { vrf: null })).status).toBe(200);
    h = await hierarchy(vrf.id);
    expect(h['10.1.0.0/16']).toEqual([1, 0]);
    expect(h['10.0.0.0/8']).toEqual([0, 4]);
    expect(await hierarchy(null)).toMatchObject({ '10.0.0.0/8': [0, 1], '10.1.5.0/24': [1, 0] });

    // the top goes: everything below is one level up
    expect((await suite.api().delete(`${I}/prefixes/${top.id}/`)).status).toBe(204);
    expect(await hierarchy(vrf.id)).toEqual({ '10.0.0.0/16': [0, 1], '10.0.0.0/24': [1, 0], '10.1.0.0/16': [0, 0] });
  });

  test('when IPv6 prefixes nest, then their hierarchy is kept the same way and never mixes with IPv4', async () => {
    const vrf = await aVrf();
    const created = await made(`${I}/prefixes/`, ['2001:db8::/32', '2001:db8:1::/48', '2001:db8:1:1::/64', '2001:db8:2::/48', '::/8'].map((prefix) => ({ prefix, vrf: vrf.id })));
    expect(created).toHaveLength(5);
    await made(`${I}/prefixes/`, { prefix: '0.0.0.0/1', vrf: vrf.id });
    expect(await hierarchy(vrf.id)).toEqual({
      '0.0.0.0/1': [0, 0],
      '::/8': [0, 0],
      '2001:db8::/32': [0, 3],
      '2001:db8:1::/48': [1, 1],
      '2001:db8:1:1::/64': [2, 0],
      '2001:db8:2::/48': [1, 0],
    });
    // the default ordering: IPv4 first, then cidr order (depth-first)
    expect(await listed(`${I}/prefixes/?vrf_id=${vrf.id}`, 'prefix')).toEqual(['0.0.0.0/1', '::/8', '2001:db8::/32', '2001:db8:1::/48', '2001:db8:1:1::/64', '2001:db8:2::/48']);
    await suite.api().delete(`${I}/prefixes/`, created.filter((p: Obj) => p.prefix.endsWith('/48')).map((p: Obj) => ({ id: p.id })));
    expect(await hierarchy(vrf.id)).toMatchObject({ '2001:db8::/32': [0, 1], '2001:db8:1:1::/64': [1, 0] });
  });
});

/** The names (keys of `objs`) of the objects a list returns, sorted. */
async function found(path: string, objs: Record<string, Obj>): Promise<string[]> {
  const ids = await listed(path);
  return Object.entries(objs)
    .filter(([, o]) => ids.includes(o.id))
    .map(([k]) => k)
    .sort();
}

describe('filters on network values (hand-computed answers)', () => {
  let A: Obj;
  let B: Obj;
  const p: Record<string, Obj> = {};
  const a: Record<string, Obj> = {};
  const r: Record<string, Obj> = {};
  beforeAll(async () => {
    const rt = await made(`${I}/route-targets/`, { name: '65100:777' });
    A = await aVrf({ enforce_unique: false, import_targets: [rt.id] });
    B = await aVrf({ export_targets: [rt.id] });
    const pre = async (k: string, prefix: string, extra: Obj = {}) => (p[k] = await made(`${I}/prefixes/`, { prefix, vrf: A.id, ...extra }));
    await pre('p1', '10.0.0.0/8', { status: 'container' });
    await pre('p2', '10.0.0.0/16');
    await pre('p3', '10.0.5.0/24');
    await pre('p4', '192.168.0.0/16', { description: 'Lab net' });
    await pre('p5', '2001:db8::/32');
    await pre('p6', '2001:db8:ab::/48');
    await pre('p7', '10.0.0.0/24', { vrf: B.id });
    const addr = async (k: string, address: string, extra: Obj = {}) => (a[k] = await made(`${I}/ip-addresses/`, { address, vrf: A.id, ...extra }));
    await addr('a1', '10.0.5.1/24');
    await addr('a2', '10.0.5.1/32', { dns_name: 'Host.Example.com' });
    await addr('a3', '10.0.6.20/24');
    await addr('a4', '192.168.1.1/24', { description: 'gateway' });
    await addr('a5', '2001:db8:ab::1/64');
    await addr('a6', '2001:db8:cd::5/64', { status: 'slaac' });
    await addr('b1', '10.9.9.9/24', { vrf: B.id });
    const range = async (k: string, start: string, end: string) => (r[k] = await made(`${I}/ip-ranges/`, { start_address: start, end_address: end, vrf: A.id }));
    await range('r1', '10.0.5.10/24', '10.0.5.20/24');
    await range('r2', '10.0.6.1/24', '10.0.6.100/24');
    await range('r3', '2001:db8:ab::10/64', '2001:db8:ab::ff/64');
  });

  test('when prefixes are filtered by containment, mask, family, depth and text, then the answers are the hand-computed ones', async () => {
    const q = (query: string) => found(`${I}/prefixes/?vrf_id=${A.id}&${query}`, p);
    expect(await q('within=10.0.0.0/8')).toEqual(['p2', 'p3']);
    expect(await q('within=10.0.0.1/8')).toEqual(['p2', 'p3']);
    expect(await q('within_include=10.0.0.0/8')).toEqual(['p1', 'p2', 'p3']);
    expect(await q('within=bogus')).toEqual([]);
    expect(await q('within=')).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    expect(await q('contains=10.0.5.7')).toEqual(['p1', 'p2', 'p3']);
    expect(await q('contains=10.0.0.0/16')).toEqual(['p1', 'p2']);
    expect(await q('contains=2001:db8:ab:1::1')).toEqual(['p5', 'p6']);
    expect(await q('contains=2001:db8::/32')).toEqual(['p5']);
    expect(await q('contains=nope')).toEqual([]);
    expect(await q('mask_length=16')).toEqual(['p2', 'p4']);
    expect(await q('mask_length=16&mask_length=48')).toEqual(['p2', 'p4', 'p6']);
    expect(await q('mask_length__gte=24')).toEqual(['p3', 'p5', 'p6']);
    expect(await q('mask_length__lte=16')).toEqual(['p1', 'p2', 'p4']);
    expect(await q('family=6')).toEqual(['p5', 'p6']);
    expect(await q('family=4')).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(await q('depth=1')).toEqual(['p2', 'p6']);
    expect(await q('depth__gte=1')).toEqual(['p2', 'p3', 'p6']);
    expect(await q('children__gt=0')).toEqual(['p1', 'p2', 'p5']);
    expect(await q('prefix=10.0.0.0/16')).toEqual(['p2']);
    expect(await q('prefix=10.0.0.1/16')).toEqual([]);
    expect(await q('prefix=10.0.0.0/16&prefix=2001:db8::/32')).toEqual(['p2', 'p5']);
    expect(await q('q=Lab')).toEqual(['p4']);
    expect(await q('q=10.0.')).toEqual(['p1', 'p2', 'p3']);
    expect(await q('q=10.0.5.9')).toEqual(['p1', 'p2', 'p3']);
    expect(await q('q=2001:db8:ab::/48')).toEqual(['p5', 'p6']);
    expect(await q('status=container')).toEqual(['p1']);
    // B's prefix is present in A (B exports a target A imports), not A's in B
    expect(await found(`${I}/prefixes/?present_in_vrf_id=${A.id}`, p)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(await found(`${I}/prefixes/?present_in_vrf=${A.rd}`, p)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(await found(`${I}/prefixes/?present_in_vrf_id=${B.id}`, p)).toEqual(['p7']);
    expect(await found(`${I}/prefixes/?vrf=${B.rd}`, p)).toEqual(['p7']);
    expect(await found(`${I}/prefixes/?vrf_id=null`, p)).toEqual([]);
    expect(await found(`${I}/prefixes/?vrf_id=null&vrf_id=${B.id}`, p)).toEqual(['p7']);
    expect((await suite.api().get(`${I}/prefixes/?present_in_vrf_id=999999`)).status).toBe(400);
    expect((await suite.api().get(`${I}/prefixes/?mask_length=x`)).status).toBe(400);
  });

  test('when IP addresses are filtered by parent, address, mask, family and text, then the answers are the hand-computed ones', async () => {
    const q = (query: string) => found(`${I}/ip-addresses/?vrf_id=${A.id}&${query}`, a);
    expect(await q('parent=10.0.5.0/24')).toEqual(['a1', 'a2']);
    expect(await q('parent=10.0.0.0/16')).toEqual(['a1', 'a2', 'a3']);
    expect(await q('parent=10.0.5.0/24&parent=192.168.0.0/16')).toEqual(['a1', 'a2', 'a4']);
    expect(await q('parent=2001:db8:ab::/48')).toEqual(['a5']);
    expect(await q('parent=10.0.5.0/24&parent=bogus')).toEqual([]);
    expect(await q('address=10.0.5.1')).toEqual(['a1', 'a2']);
    expect(await q('address=10.0.5.1/24')).toEqual(['a1']);
    expect(await q('address=10.0.5.1/24&address=192.168.1.1')).toEqual(['a1', 'a4']);
    expect(await q('address=2001:DB8:AB:0::1')).toEqual(['a5']);
    expect(await q('address=nope')).toEqual([]);
    expect(await q('mask_length=24')).toEqual(['a1', 'a3', 'a4']);
    expect(await q('mask_length__gte=64')).toEqual(['a5', 'a6']);
    expect(await q('mask_length__lte=24')).toEqual(['a1', 'a3', 'a4']);
    expect(await q('family=6')).toEqual(['a5', 'a6']);
    expect(await q('q=host.example')).toEqual(['a2']);
    expect(await q('q=10.0.5')).toEqual(['a1', 'a2']);
    expect(await q('q=GATE')).toEqual(['a4']);
    expect(await q('status=slaac')).toEqual(['a6']);
    expect(await q('assigned_to_interface=false')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(await q('assigned=true')).toEqual([]);
    expect(await found(`${I}/ip-addresses/?present_in_vrf_id=${A.id}`, a)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1']);
    // by host only: a mask takes no part (the two 10.0.5.1 tie, then by id)
    expect(await listed(`${I}/ip-addresses/?vrf_id=${A.id}`, 'address')).toEqual([
      '10.0.5.1/24',
      '10.0.5.1/32',
      '10.0.6.20/24',
      '192.168.1.1/24',
      '2001:db8:ab::1/64',
      '2001:db8:cd::5/64',
    ]);
    expect(a.a2).toMatchObject({ dns_name: 'host.example.com', display: '10.0.5.1/32', family: { value: 4, label: 'IPv4' }, role: null, assigned_object: null, nat_outside: [] });
    expect(a.a2.created).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('when addresses sit on the edges of a parent, then parent takes its first and last address and nothing beside them, in either family', async () => {
    const V = await aVrf({ enforce_unique: false });
    const edges: Record<string, Obj> = {};
    const at = async (k: string, address: string) => (edges[k] = await made(`${I}/ip-addresses/`, { address, vrf: V.id }));
    await at('before', '10.77.255.255/8');
    await at('first', '10.78.0.0/16');
    await at('last', '10.78.255.255/32');
    await at('after', '10.79.0.0/24');
    await at('v6first', '2001:db8:78::/64');
    await at('v6last', '2001:db8:78:ffff:ffff:ffff:ffff:ffff/48');
    await at('v6after', '2001:db8:79::/64');
    await at('mapped', '::ffff:10.78.0.1/128');
    const q = (query: string) => found(`${I}/ip-addresses/?vrf_id=${V.id}&${query}`, edges);
    expect(await q('parent=10.78.0.0/16')).toEqual(['first', 'last']);
    expect(await q('parent=10.78.0.0/32')).toEqual(['first']);
    expect(await q('parent=10.77.0.0/16')).toEqual(['before']);
    expect(await q('parent=10.0.0.0/8')).toEqual(['after', 'before', 'first', 'last']);
    expect(await q('parent=0.0.0.0/0')).toEqual(['after', 'before', 'first', 'last']);
    expect(await q('parent=2001:db8:78::/48')).toEqual(['v6first', 'v6last']);
    expect(await q('parent=::/0')).toEqual(['mapped', 'v6after', 'v6first', 'v6last']);
    expect(await q('parent=::ffff:0:0/96')).toEqual(['mapped']);
    // host bits in the parent: NetBox reads the network
    expect(await q('parent=10.78.1.2/16')).toEqual(['first', 'last']);
  });

  test('when IP ranges are filtered, then contains compares in inet order (mask-sensitive) and parent needs both bounds inside', async () => {
    expect(r.r1).toMatchObject({ display: '10.0.5.10-20/24', size: 11, family: { value: 4, label: 'IPv4' }, start_address: '10.0.5.10/24' });
    expect(r.r3).toMatchObject({ display: '2001:db8:ab::10-ff/64', size: 240 });
    const q = (query: string) => found(`${I}/ip-ranges/?vrf_id=${A.id}&${query}`, r);
    expect(await q('contains=10.0.5.15/24')).toEqual(['r1']);
    expect(await q('contains=10.0.5.15')).toEqual([]);
    expect(await q('contains=2001:db8:ab::20/64')).toEqual(['r3']);
    expect(await q('parent=10.0.0.0/16')).toEqual(['r1', 'r2']);
    expect(await q('parent=10.0.5.0/24')).toEqual(['r1']);
    expect(await q('parent=10.0.5.0/28')).toEqual([]);
    expect(await q('parent=2001:db8::/32')).toEqual(['r3']);
    expect(await q('family=6')).toEqual(['r3']);
    expect(await q('q=10.0.5')).toEqual(['r1']);
    expect(await q('q=10.0.6.1/24')).toEqual(['r2']);
    expect(await q('start_address=10.0.5.10')).toEqual(['r1']);
    expect(await q('end_address=10.0.6.100/24')).toEqual(['r2']);
  });

  test('when a range is invalid or overlaps another of its VRF, then NetBox\'s messages refuse it', async () => {
    const post = (start: string, end: string, vrf: number | null = A.id) => suite.api().post(`${I}/ip-ranges/`, { start_address: start, end_address: end, vrf });
    expect((await post('10.0.5.15/24', '10.0.5.30/24')).body).toEqual({ __all__: [`Defined addresses overlap with range 10.0.5.10-20/24 in VRF ${A.name} (${A.rd})`] });
    expect((await post('10.0.5.1/24', '10.0.5.200/24')).body).toEqual({ __all__: [`Defined addresses overlap with range 10.0.5.10-20/24 in VRF ${A.name} (${A.rd})`] });
    expect((await post('10.0.5.15/24', '10.0.5.30/24', B.id)).status).toBe(201);
    expect((await post('10.0.7.9/24', '10.0.7.1/24')).body).toEqual({ end_address: ['Ending address must be greater than the starting address (10.0.7.9/24)'] });
    expect((await post('10.0.7.1/24', '10.0.7.9/25')).body).toEqual({ end_address: ['Starting and ending IP address masks must match'] });
    expect((await post('10.0.7.1/24', '2001:db8::9/24')).body).toEqual({ end_address: ['Starting and ending IP address versions must match'] });
    expect((await post('2001:db8:f::/64', '2001:db8:f::1:0:0/64')).body).toEqual({ __all__: ['Defined range exceeds maximum supported size (4294967295)'] });
    // the largest size allowed is stored (past an int4)
    const widest = await post('2001:db8:e::/64', '2001:db8:e::ffff:fffe/64');
    expect([widest.status, widest.body.size]).toEqual([201, 4294967295]);
  });
});

describe('aggregates', () => {
  test('when aggregates would overlap, have host bits or a /0 mask, then NetBox\'s messages refuse them; the prefix filter normalises', async () => {
    const rir = await made(`${I}/rirs/`, { name: 'Agg RIR', slug: 'agg-rir' });
    const g1 = await made(`${I}/aggregates/`, { prefix: '203.0.113.0/24', rir: rir.id, date_added: '2024-05-06' });
    const g2 = await made(`${I}/aggregates/`, { prefix: '2001:db8::/32', rir: rir.id });
    expect(g1).toMatchObject({ display: '203.0.113.0/24', family: { value: 4, label: 'IPv4' }, date_added: '2024-05-06', rir: { id: rir.id, slug: 'agg-rir' } });
    const post = (prefix: string) => suite.api().post(`${I}/aggregates/`, { prefix, rir: rir.id });
    expect((await post('203.0.113.128/25')).body).toEqual({ prefix: ['Aggregates cannot overlap. 203.0.113.128/25 is already covered by an existing aggregate (203.0.113.0/24).'] });
    expect((await post('203.0.113.0/24')).body).toEqual({ prefix: ['Aggregates cannot overlap. 203.0.113.0/24 is already covered by an existing aggregate (203.0.113.0/24).'] });
    expect((await post('203.0.0.0/16')).body).toEqual({ prefix: ['Prefixes cannot overlap aggregates. 203.0.0.0/16 covers an existing aggregate (203.0.113.0/24).'] });
    expect((await post('203.0.114.5/24')).body).toEqual({ prefix: ['203.0.114.5/24 is not a valid prefix. Did you mean 203.0.114.0/24?'] });
    expect((await post('0.0.0.0/0')).body).toEqual({ prefix: ['Cannot create aggregate with /0 mask.'] });
    expect((await post('not-an-ip')).body).toEqual({ prefix: ['Invalid IP address format: not-an-ip'] });
    // an update may keep its own prefix
    expect((await suite.api().patch(`${I}/aggregates/${g1.id}/`, { prefix: '203.0.113.0/24', description: 'kept' })).status).toBe(200);
    const byId = { g1, g2 };
    expect(await found(`${I}/aggregates/?prefix=203.0.113.7/24`, byId)).toEqual(['g1']);
    expect(await found(`${I}/aggregates/?prefix=bogus`, byId)).toEqual([]);
    expect(await found(`${I}/aggregates/?family=6`, byId)).toEqual(['g2']);
    expect(await found(`${I}/aggregates/?q=203.0.113.9`, byId)).toEqual(['g1']);
    expect(await found(`${I}/aggregates/?q=db8`, byId)).toEqual(['g2']);
    expect((await get(`${I}/rirs/${rir.id}/`)).aggregate_count).toBe(2);
    expect((await get(`${I}/aggregates/${g2.id}/?brief=1`))).toEqual({ id: g2.id, url: g2.url, display: '2001:db8::/32', family: 6, prefix: '2001:db8::/32' });
    expect((await suite.api().delete(`${I}/rirs/${rir.id}/`)).status).toBe(409);
  });
});

describe('uniqueness', () => {
  test('when a prefix is repeated in the global table or in a VRF that enforces it, then it is refused naming the table; elsewhere it is not', async () => {
    const strict = await aVrf();
    const loose = await aVrf({ enforce_unique: false });
    await made(`${I}/prefixes/`, { prefix: '172.16.0.0/12' });
    expect((await suite.api().post(`${I}/prefixes/`, { prefix: '172.16.0.0/12' })).body).toEqual({ prefix: ['Duplicate prefix found in global table: 172.16.0.0/12'] });
    const first = await made(`${I}/prefixes/`, { prefix: '172.16.0.0/12', vrf: strict.id });
    expect((await suite.api().post(`${I}/prefixes/`, { prefix: '172.16.0.0/12', vrf: strict.id })).body).toEqual({
      prefix: [`Duplicate prefix found in VRF ${strict.name} (${strict.rd}): 172.16.0.0/12`],
    });
    await made(`${I}/prefixes/`, [{ prefix: '172.16.0.0/12', vrf: loose.id }, { prefix: '172.16.0.0/12', vrf: loose.id }]);
    // an update onto another's prefix is a duplicate too; a bulk create of two equal ones is refused whole
    const other = await made(`${I}/prefixes/`, { prefix: '172.17.0.0/16', vrf: strict.id });
    expect((await suite.api().patch(`${I}/prefixes/${other.id}/`, { prefix: '172.16.0.0/12' })).status).toBe(400);
    expect((await suite.api().patch(`${I}/prefixes/${first.id}/`, { description: 'same prefix, same object' })).status).toBe(200);
    const bulk = await suite.api().post(`${I}/prefixes/`, [{ prefix: '172.18.0.0/16' }, { prefix: '172.18.0.0/16' }]);
    expect(bulk.status).toBe(400);
    expect(await listed(`${I}/prefixes/?prefix=172.18.0.0/16`)).toEqual([]);
    expect((await get(`${I}/vrfs/${loose.id}/`)).prefix_count).toBe(2);
    expect((await get(`${I}/vrfs/${loose.id}/?brief=1`)).prefix_count).toBe(2);
  });

  test('when an address repeats a host (any mask) in an enforcing table, then it is refused unless every one has a non-unique role', async () => {
    await made(`${I}/ip-addresses/`, { address: '198.51.100.5/24' });
    expect((await suite.api().post(`${I}/ip-addresses/`, { address: '198.51.100.5/25' })).body).toEqual({ address: ['Duplicate IP address found in global table: 198.51.100.5/24'] });
    await made(`${I}/ip-addresses/`, { address: '198.51.100.7/24', role: 'anycast' });
    await made(`${I}/ip-addresses/`, { address: '198.51.100.7/24', role: 'vip' });
    expect((await suite.api().post(`${I}/ip-addresses/`, { address: '198.51.100.7/24', role: 'loopback' })).status).toBe(400);
    const v6 = await made(`${I}/ip-addresses/`, { address: '2001:db8:99::1' });
    expect(v6.address).toBe('2001:db8:99::1/128');
    expect((await suite.api().post(`${I}/ip-addresses/`, { address: '2001:DB8:99::1/64' })).body).toEqual({ address: ['Duplicate IP address found in global table: 2001:db8:99::1/128'] });
    const bulk = await suite.api().post(`${I}/ip-addresses/`, [{ address: '198.51.100.8/24' }, { address: '198.51.100.8/32' }]);
    expect(bulk.status).toBe(400);
    expect(await listed(`${I}/ip-addresses/?address=198.51.100.8`)).toEqual([]);
  });

  test('when the same address is created by concurrent requests, then exactly one is stored', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => suite.api().post(`${I}/ip-addresses/`, { address: `198.51.100.9/${24 + (i % 4)}` })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 400)).toHaveLength(7);
    expect(await listed(`${I}/ip-addresses/?address=198.51.100.9`)).toHaveLength(1);
    const prefixes = await Promise.all(Array.from({ length: 6 }, () => suite.api().post(`${I}/prefixes/`, { prefix: '172.20.0.0/16' })));
    expect(prefixes.filter((r) => r.status === 201)).toHaveLength(1);
  });

  test('when an address breaks a field rule, then NetBox\'s messages name the field', async () => {
    const post = (body: Obj) => suite.api().post(`${I}/ip-addresses/`, body);
    expect((await post({ address: '0.0.0.0/0' })).body).toEqual({ address: ['Cannot create IP address with /0 mask.'] });
    expect((await post({ address: '192.0.2.300/24' })).body).toEqual({ address: ['Invalid IP address format: 192.0.2.300/24'] });
    expect((await post({ address: '192.0.2.50/24', status: 'slaac' })).body).toEqual({ status: ['Only IPv6 addresses can be assigned SLAAC status'] });
    expect((await post({ address: '192.0.2.51/24', dns_name: 'bad name' })).body).toEqual({
      dns_name: ['Only alphanumeric characters, asterisks, hyphens, periods, and underscores are allowed in DNS names'],
    });
    expect((await post({ address: '192.0.2.52/24', dns_name: '*.Wild_card-1.example.' })).body.dns_name).toBe('*.wild_card-1.example.');
    expect((await post({ address: '192.0.2.53/24', assigned_object_id: 5 })).status).toBe(400);
    expect((await post({ address: '192.0.2.54/24', assigned_object_type: 'dcim.interface', assigned_object_id: 999999 })).body).toEqual({
      assigned_object_id: ['Related object not found using the provided numeric ID: 999999'],
    });
    expect((await post({ address: '192.0.2.55/24', assigned_object_type: 'dcim.site', assigned_object_id: 1 })).status).toBe(400);
  });
});

describe('assignment to interfaces of dcim and virtualization', () => {
  const dcim = () => suite.stack().client('dcim');
  const virt = () => suite.stack().client('virtualization');
  const D = '/api/dcim';
  const V = '/api/virtualization';
  let site: Obj;
  let dtype: Obj;
  let drole: Obj;
  beforeAll(async () => {
    site = await made(`${D}/sites/`, { name: 'Addr site', slug: 'addr-site' }, dcim());
    const maker = await made(`${D}/manufacturers/`, { name: 'Addr maker', slug: 'addr-maker' }, dcim());
    dtype = await made(`${D}/device-types/`, { manufacturer: maker.id, model: 'Addr type', slug: 'addr-type' }, dcim());
    drole = await made(`${D}/device-roles/`, { name: 'Addr role', slug: 'addr-role' }, dcim());
  });
  const aDevice = (name: string) => made(`${D}/devices/`, { name, device_type: dtype.id, role: drole.id, site: site.id }, dcim());
  const anInterface = (device: Obj, name: string, extra: Obj = {}) => made(`${D}/interfaces/`, { device: device.id, name, type: '1000base-t', ...extra }, dcim());
  /**
   * Waits until ipam's projection of a device or machine names the address
   * as its primary IP (the owner's event is relayed asynchronously; trying
   * the refused write until it is refused would apply it while it is not).
   */
  const primaryKnown = (label: string, id: number, ip: number) =>
    eventually(async () => {
      const client = new pg.Client({ connectionString: suite.stack().databaseUrl });
      await client.connect();
      try {
        const table = `ipam."_proj_${label.replace('.', '_')}"`;
        const { rows } = await client.query(`SELECT 1 FROM ${table} WHERE id = $1 AND $2 IN (data->>'primary_ip4', data->>'primary_ip6')`, [id, String(ip)]);
        return rows.length === 1;
      } finally {
        await client.end();
      }
    }, 15_000, `${label} ${id}'s primary IP in ipam`);
  /** Waits until ipam's projection holds the object (its events are relayed asynchronously). */
  const projected = (type: string, id: number) => {
    const filter = type === 'dcim.interface' ? 'interface_id' : 'vminterface_id';
    // the id filter knows an interface once ipam's projection holds it
    return eventually(async () => (await suite.api().get(`${I}/ip-addresses/?${filter}=${id}`)).status === 200, 15_000, `${type} ${id} in ipam`);
  };

  test('when an address is assigned to a device interface, then assigned_object has its nested shape and the device filters find it', async () => {
    const dev = await aDevice('addr-dev-1');
    const eth0 = await anInterface(dev, 'eth0');
    const mgmt = await anInterface(dev, 'mgmt0', { mgmt_only: true });
    await projected('dcim.interface', mgmt.id);
    const ip = await made(`${I}/ip-addresses/`, { address: '192.0.2.10/24', assigned_object_type: 'dcim.interface', assigned_object_id: eth0.id });
    expect(ip.assigned_object_type).toBe('dcim.interface');
    expect(ip.assigned_object_id).toBe(eth0.id);
    expect(ip.assigned_object).toMatchObject({ id: eth0.id, url: expect.stringMatching(new RegExp(`/api/dcim/interfaces/${eth0.id}/$`)), display: 'eth0', name: 'eth0', device: { id: dev.id, name: 'addr-dev-1' } });
    // the seed's shape: id, url, display, device {id, url, display, name, display_name}, name, cable, connection_status, _occupied
    expect(Object.keys(ip.assigned_object).sort()).toEqual(['_occupied', 'cable', 'connection_status', 'device', 'display', 'id', 'name', 'url']);
    expect(ip.assigned_object).toMatchObject({ cable: null, _occupied: false, device: { display: 'addr-dev-1', display_name: 'addr-dev-1' } });
    expect(Object.keys(ip.assigned_object.device).sort()).toEqual(['display', 'display_name', 'id', 'name', 'url']);
    const other = await made(`${I}/ip-addresses/`, { address: '192.0.2.11/24', assigned_object_type: 'dcim.interface', assigned_object_id: mgmt.id });
    const loose = await made(`${I}/ip-addresses/`, { address: '192.0.2.12/24' });
    const objs = { ip, other, loose };
    expect(await found(`${I}/ip-addresses/?device=addr-dev-1`, objs)).toEqual(['ip', 'other']);
    expect(await found(`${I}/ip-addresses/?device_id=${dev.id}`, objs)).toEqual(['ip', 'other']);
    expect(await found(`${I}/ip-addresses/?device=nobody`, objs)).toEqual([]);
    expect(await found(`${I}/ip-addresses/?interface_id=${eth0.id}`, objs)).toEqual(['ip']);
    expect(await found(`${I}/ip-addresses/?interface=mgmt0`, objs)).toEqual(['other']);
    expect(await found(`${I}/ip-addresses/?assigned_to_interface=true&parent=192.0.2.0/24`, objs)).toEqual(['ip', 'other']);
    expect(await found(`${I}/ip-addresses/?assigned=false&parent=192.0.2.0/24`, objs)).toEqual(['loose']);
    expect((await suite.api().get(`${I}/ip-addresses/?interface=nope`)).status).toBe(400);
    // an interface's address is neither its network's id nor (IPv4) its broadcast address
    const post = (address: string) => suite.api().post(`${I}/ip-addresses/`, { address, assigned_object_type: 'dcim.interface', assigned_object_id: eth0.id });
    expect((await post('192.0.2.0/24')).body).toEqual({ __all__: ['192.0.2.0 is a network ID, which may not be assigned to an interface.'] });
    expect((await post('192.0.2.255/24')).body).toEqual({ __all__: ['192.0.2.255 is a broadcast address, which may not be assigned to an interface.'] });
    expect((await post('198.18.0.0/31')).status).toBe(201);
  });

  test('when the device is a virtual-chassis master, then the device filter finds the members\' non-management addresses too', async () => {
    const master = await aDevice('addr-vc-master');
    const member = await aDevice('addr-vc-member');
    const vc = await made(`${D}/virtual-chassis/`, { name: 'Addr VC', master: master.id }, dcim());
    expect((await dcim().patch(`${D}/devices/${member.id}/`, { virtual_chassis: vc.id, vc_position: 2 })).status).toBe(200);
    const own = await anInterface(master, 'eth0');
    const data = await anInterface(member, 'eth0');
    const mgmt = await anInterface(member, 'mgmt0', { mgmt_only: true });
    await projected('dcim.interface', mgmt.id);
    const on = (address: string, iface: Obj) => made(`${I}/ip-addresses/`, { address, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
    const objs = { own: await on('192.0.2.30/24', own), data: await on('192.0.2.31/24', data), mgmt: await on('192.0.2.32/24', mgmt) };
    // the member's chassis comes through dcim's events: wait until ipam's projection has it
    await eventually(async () => (await found(`${I}/ip-addresses/?device=addr-vc-master`, objs)).length === 2, 15_000, 'the chassis in ipam');
    expect(await found(`${I}/ip-addresses/?device=addr-vc-master`, objs)).toEqual(['data', 'own']);
    expect(await found(`${I}/ip-addresses/?device_id=${master.id}`, objs)).toEqual(['data', 'own']);
    expect(await found(`${I}/ip-addresses/?device=addr-vc-member`, objs)).toEqual(['data', 'mgmt']);
  });

  test('when an address is some device\'s primary IP, then it cannot be unassigned or moved to another device; deleting the interface deletes its addresses', async () => {
    const dev = await aDevice('addr-dev-2');
    const far = await aDevice('addr-dev-3');
    const eth0 = await anInterface(dev, 'eth0');
    const eth1 = await anInterface(dev, 'eth1');
    const farIf = await anInterface(far, 'eth0');
    await projected('dcim.interface', farIf.id);
    const ip = await made(`${I}/ip-addresses/`, { address: '192.0.2.20/24', assigned_object_type: 'dcim.interface', assigned_object_id: eth0.id });
    // dcim sees the address once ipam's event reaches its projection
    await eventually(async () => (await dcim().patch(`${D}/devices/${dev.id}/`, { primary_ip4: ip.id })).status === 200, 15_000, 'the primary IP set');
    expect((await dcim().get(`${D}/devices/${dev.id}/`)).body.primary_ip4).toMatchObject({ id: ip.id, address: '192.0.2.20/24', family: 4 });
    await primaryKnown('dcim.device', dev.id, ip.id);
    const unassign = await suite.api().patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_type: null, assigned_object_id: null });
    expect(unassign.body).toEqual({ __all__: ['Cannot reassign IP address while it is designated as the primary IP for the parent object'] });
    expect((await suite.api().patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_id: farIf.id })).status).toBe(400);
    // dcim counts the site's prefixes from its projection of ipam's
    await made(`${I}/prefixes/`, { prefix: '192.0.2.0/24', site: site.id });
    await eventually(async () => (await dcim().get(`${D}/sites/${site.id}/`)).body.prefix_count === 1, 15_000, 'the site\'s prefix_count');
    // another interface of the same device will do
    expect((await suite.api().patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_id: eth1.id })).status).toBe(200);
    const second = await made(`${I}/ip-addresses/`, { address: '192.0.2.21/24', assigned_object_type: 'dcim.interface', assigned_object_id: eth1.id });
    // the interface goes: its addresses go (NetBox's generic relation cascade), and dcim clears the primary IP
    expect((await dcim().delete(`${D}/interfaces/${eth1.id}/`)).status).toBe(204);
    await eventually(async () => (await suite.api().get(`${I}/ip-addresses/${second.id}/`)).status === 404, 15_000, 'the interface\'s addresses deleted');
    expect((await suite.api().get(`${I}/ip-addresses/${ip.id}/`)).status).toBe(404);
    await eventually(async () => (await dcim().get(`${D}/devices/${dev.id}/`)).body.primary_ip4 === null, 15_000, 'the device\'s primary IP cleared');
  });

  test('when an address is assigned to a VM interface, then it shows the machine, the VM filters find it and virtualization counts it', async () => {
    const ctype = await made(`${V}/cluster-types/`, { name: 'Addr ctype', slug: 'addr-ctype' }, virt());
    const cluster = await made(`${V}/clusters/`, { name: 'Addr cluster', type: ctype.id }, virt());
    const vm = await made(`${V}/virtual-machines/`, { name: 'addr-vm', cluster: cluster.id }, virt());
    const vif = await made(`${V}/interfaces/`, { virtual_machine: vm.id, name: 'veth0' }, virt());
    await projected('virtualization.vminterface', vif.id);
    const ip = await made(`${I}/ip-addresses/`, { address: '2001:db8:77::5/64', assigned_object_type: 'virtualization.vminterface', assigned_object_id: vif.id });
    expect(ip.assigned_object).toMatchObject({ id: vif.id, display: 'veth0', name: 'veth0', virtual_machine: { id: vm.id, name: 'addr-vm' } });
    const inside = await made(`${I}/ip-addresses/`, { address: '198.18.1.5/24', nat_inside: ip.id });
    const objs = { ip, inside };
    expect(await found(`${I}/ip-addresses/?virtual_machine=addr-vm`, objs)).toEqual(['ip']);
    expect(await found(`${I}/ip-addresses/?virtual_machine_id=${vm.id}`, objs)).toEqual(['ip']);
    expect(await found(`${I}/ip-addresses/?vminterface_id=${vif.id}`, objs)).toEqual(['ip']);
    expect(await found(`${I}/ip-addresses/?vminterface=veth0`, objs)).toEqual(['ip']);
    expect(await found(`${I}/ip-addresses/?assigned_to_interface=true&id=${ip.id}&id=${inside.id}`, objs)).toEqual(['ip']);
    expect((await get(`${I}/ip-addresses/${ip.id}/`)).nat_outside).toEqual([expect.objectContaining({ id: inside.id, address: '198.18.1.5/24', family: 4 })]);
    expect((await get(`${I}/ip-addresses/${inside.id}/`)).nat_inside).toMatchObject({ id: ip.id, address: '2001:db8:77::5/64', family: 6 });
    await eventually(async () => (await virt().get(`${V}/interfaces/${vif.id}/`)).body.count_ipaddresses === 1, 15_000, 'the VM interface\'s count');
    expect((await virt().patch(`${V}/virtual-machines/${vm.id}/`, { primary_ip6: ip.id })).status).toBe(200);
    // the machine's primary IP stays on one of its interfaces
    const unassign = () => suite.api().patch(`${I}/ip-addresses/${ip.id}/`, { assigned_object_type: null, assigned_object_id: null });
    await primaryKnown('virtualization.virtualmachine', vm.id, ip.id);
    expect((await unassign()).body).toEqual({ __all__: ['Cannot reassign IP address while it is designated as the primary IP for the parent object'] });
    // deleting the machine deletes its interfaces, and so their addresses
    expect((await virt().delete(`${V}/virtual-machines/${vm.id}/`)).status).toBe(204);
    await eventually(async () => (await suite.api().get(`${I}/ip-addresses/${ip.id}/`)).status === 404, 15_000, 'the machine\'s addresses deleted');
    expect((await get(`${I}/ip-addresses/${inside.id}/`)).nat_inside).toBeNull();
  });
});

export { eventually };

describe('block-usage summary (docs/decisions/019-ip-index.md)', () => {
  /** The summary as kept, and as counted from scratch from the addresses stored. */
  async function usage(): Promise<{ kept: unknown[]; scratch: unknown[] }> {
    const client = new pg.Client({ connectionString: suite.stack().databaseUrl });
    await client.connect();
    try {
      const kept = (await client.query('SELECT u.scope::int, u.len::int, u.block::text, u.used FROM ipam.ip_block_usage u ORDER BY u.scope, u.len, u.block')).rows;
      const { text, values } = render(blockUsageFromScratch('ipam.ip_address'));
      const scratch = (await client.query(text, values)).rows.map((r) => ({ scope: Number(r.scope), len: Number(r.len), block: String(r.block), used: Number(r.used) }));
      return { kept, scratch };
    } finally {
      await client.end();
    }
  }

  test('when addresses are created in bulk, moved, deleted one by one, in bulk and by cascades, then the summary equals a count from scratch', async () => {
    const vrf = await aVrf({ enforce_unique: false });
    // a bulk create of 600: a full /24 of the global table, VRF rows, a host twice in the VRF (other masks)
    const body = Array.from({ length: 600 }, (_, i) => ({ address: `172.16.${Math.floor(i / 256)}.${i % 256}/16`, vrf: i >= 256 && i % 3 === 0 ? vrf.id : null }));
    body.push({ address: '172.16.0.7/32', vrf: vrf.id }, { address: '172.16.0.7/24', vrf: vrf.id });
    const created: Obj[] = await made(`${I}/ip-addresses/`, body);
    let u = await usage();
    expect(u.kept).toEqual(u.scratch);
    expect(u.kept).toContainEqual({ scope: 0, len: 24, block: '172.16.0.0/24', used: 256 });
    expect(u.kept).toContainEqual({ scope: Number(vrf.id), len: 24, block: '172.16.0.0/24', used: 1 });
    // moved: a new address, another VRF (a bulk PATCH), then one alone
    const patch = await suite.api().patch(`${I}/ip-addresses/`, [
      { id: created[300].id, address: '172.17.0.1/16' },
      { id: created[301].id, vrf: vrf.id },
      { id: created[601].id, vrf: null, address: '172.18.0.1/24' },
    ]);
    expect(patch.status).toBe(200);
    expect((await suite.api().patch(`${I}/ip-addresses/${created[0].id}/`, { address: '172.16.9.9/16' })).status).toBe(200);
    u = await usage();
    expect(u.kept).toEqual(u.scratch);
    // deleted: one, then 200 in bulk
    expect((await suite.api().delete(`${I}/ip-addresses/${created[1].id}/`)).status).toBe(204);
    expect((await suite.api().delete(`${I}/ip-addresses/`, created.slice(2, 202).map((c) => ({ id: c.id })))).status).toBe(204);
    u = await usage();
    expect(u.kept).toEqual(u.scratch);
    expect(u.kept).toContainEqual({ scope: 0, len: 24, block: '172.16.0.0/24', used: 54 });
  });
});
