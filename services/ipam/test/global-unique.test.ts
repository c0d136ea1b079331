import { ipamSuite } from './stack';

// NetBox's ENFORCE_GLOBAL_UNIQUE = False: the global table takes duplicates; VRFs keep their own rule
const suite = ipamSuite({ ENFORCE_GLOBAL_UNIQUE: false });
const I = '/api/ipam';

describe('ENFORCE_GLOBAL_UNIQUE off', () => {
  test('when a prefix or an address repeats in the global table, then it is stored; in a VRF enforcing uniqueness it is still refused', async () => {
    const api = suite.api();
    for (let i = 0; i < 2; i++) {
      expect((await api.post(`${I}/prefixes/`, { prefix: '10.0.0.0/8' })).status).toBe(201);
      expect((await api.post(`${I}/ip-addresses/`, { address: `192.0.2.1/${24 + i}` })).status).toBe(201);
    }
    const vrf = await suite.made(`${I}/vrfs/`, { name: 'Strict', rd: '65300:1' });
    await suite.made(`${I}/prefixes/`, { prefix: '10.0.0.0/8', vrf: vrf.id });
    expect((await api.post(`${I}/prefixes/`, { prefix: '10.0.0.0/8', vrf: vrf.id })).body).toEqual({ prefix: ['Duplicate prefix found in VRF Strict (65300:1): 10.0.0.0/8'] });
    await suite.made(`${I}/ip-addresses/`, { address: '192.0.2.1/24', vrf: vrf.id });
    expect((await api.post(`${I}/ip-addresses/`, { address: '192.0.2.1/32', vrf: vrf.id })).body).toEqual({ address: ['Duplicate IP address found in VRF Strict (65300:1): 192.0.2.1/24'] });
    // duplicates in the global table count once in depth, each in children
    const dupes = (await api.get(`${I}/prefixes/?vrf_id=null`)).body.results;
    expect(dupes.map((p: Record<string, unknown>) => [p.prefix, p._depth, p.children])).toEqual([
      ['10.0.0.0/8', 0, 0],
      ['10.0.0.0/8', 0, 0],
    ]);
  });
});
