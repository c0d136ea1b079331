import { eventually } from '@inventory/testkit';
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

export { eventually, listed, get, aVrf };
