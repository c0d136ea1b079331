import { eventually, readOutbox } from '@inventory/testkit';
import { circuitsSuite, type Obj } from './stack';

const suite = circuitsSuite();
const { made } = suite;
const api = () => suite.api();
const dcim = () => suite.stack().client('dcim');

let n = 0;
/** A provider, a circuit type and a circuit of their own for each test. */
async function basics(): Promise<{ provider: Obj; type: Obj; circuit: Obj }> {
  n++;
  const provider = await made('/api/circuits/providers/', { name: `Provider ${n}`, slug: `provider-${n}` });
  const type = await made('/api/circuits/circuit-types/', { name: `Type ${n}`, slug: `type-${n}` });
  const circuit = await made('/api/circuits/circuits/', { cid: `C-${n}`, provider: provider.id, type: type.id });
  return { provider, type, circuit };
}
const aSite = (body: Obj = {}) => {
  n++;
  return made('/api/dcim/sites/', { name: `Circuit site ${n}`, slug: `circuit-site-${n}`, ...body }, dcim());
};
const ids = (r: { body: { results: Obj[] } }) => r.body.results.map((o) => o.id).sort((a: number, b: number) => a - b);

test('when the API root of circuits is read, then it lists the six endpoints', async () => {
  const r = await api().get('/api/circuits/');
  expect(r.status).toBe(200);
  expect(Object.keys(r.body)).toEqual(['circuit-terminations', 'circuit-types', 'circuits', 'provider-accounts', 'provider-networks', 'providers']);
  expect(r.body.circuits).toMatch(/^http:\/\/[^/]+\/api\/circuits\/circuits\/$/);
});

describe('circuit terminations', () => {
  test('when a termination names neither or both of a site and a provider network, then NetBox\'s messages refuse it', async () => {
    const { provider, circuit } = await basics();
    const site = await aSite();
    const network = await made('/api/circuits/provider-networks/', { provider: provider.id, name: 'MPLS' });
    const neither = await api().post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A' });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ __all__: ['A circuit termination must attach to either a site or a provider network.'] });
    const both = await api().post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id, provider_network: network.id });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ __all__: ['A circuit termination cannot attach to both a site and a provider network.'] });
    const a = await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', provider_network: network.id });
    expect(a).toMatchObject({ term_side: 'A', site: null, provider_network: { id: network.id, name: 'MPLS' }, mark_connected: false, xconnect_id: '', pp_info: '' });
    expect(a.display).toBe(`${circuit.cid}: Termination A`);
    // a PATCH that would leave both set is refused too (the stored provider network counts)
    const patched = await api().patch(`/api/circuits/circuit-terminations/${a.id}/`, { site: site.id });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual({ __all__: ['A circuit termination cannot attach to both a site and a provider network.'] });
    const moved = await api().patch(`/api/circuits/circuit-terminations/${a.id}/`, { site: site.id, provider_network: null });
    expect(moved.status).toBe(200);
    expect(moved.body.site).toMatchObject({ id: site.id, slug: site.slug });
  });

  test('when a circuit gets a second termination on the same side, then it is refused; the other side is fine', async () => {
    const { circuit } = await basics();
    const site = await aSite();
    await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id });
    const again = await api().post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ __all__: ['Circuit termination with this Circuit and Termination already exists.'] });
    const bad = await api().post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'B', site: site.id });
    expect(bad.body).toEqual({ term_side: ['"B" is not a valid choice.'] });
    const z = await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'Z', site: site.id });
    expect(z.term_side).toBe('Z');
    const brief = await api().get(`/api/circuits/circuit-terminations/${z.id}/?brief=1`);
    expect(brief.body).toEqual({
      id: z.id,
      url: z.url,
      display: `${circuit.cid}: Termination Z`,
      circuit: { id: circuit.id, url: circuit.url, display: circuit.cid, cid: circuit.cid },
      term_side: 'Z',
      cable: null,
      _occupied: false,
    });
    // an uncabled end (dcim's cables on circuit ends: services/dcim/test/gateway.test.ts)
    expect(z).toMatchObject({ mark_connected: false, cable: null, cable_end: '', link_peers: [], link_peers_type: null, _occupied: false });
    expect(Object.keys(z).slice(-1)).toEqual(['_occupied']);
  });

  test('when terminations are created, updated and deleted, then the circuit shows them as termination_a and termination_z', async () => {
    const { provider, circuit } = await basics();
    const site = await aSite();
    const network = await made('/api/circuits/provider-networks/', { provider: provider.id, name: 'Backbone' });
    expect(circuit).toMatchObject({ termination_a: null, termination_z: null });
    const a = await made('/api/circuits/circuit-terminations/', {
      circuit: circuit.id,
      term_side: 'A',
      site: site.id,
      port_speed: 10000,
      upstream_speed: 5000,
      xconnect_id: 'XC-1',
      pp_info: 'PP 1/2',
      description: 'near end',
    });
    let got = (await api().get(`/api/circuits/circuits/${circuit.id}/`)).body;
    expect(got.termination_a).toEqual({
      id: a.id,
      url: a.url,
      display: `${circuit.cid}: Termination A`,
      site: a.site,
      provider_network: null,
      port_speed: 10000,
      upstream_speed: 5000,
      xconnect_id: 'XC-1',
      description: 'near end',
    });
    expect(got.termination_z).toBeNull();
    const z = await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'Z', provider_network: network.id });
    await api().patch(`/api/circuits/circuit-terminations/${a.id}/`, { port_speed: 20000, description: 'moved' });
    got = (await api().get(`/api/circuits/circuits/?id=${circuit.id}`)).body.results[0];
    expect(got.termination_a).toMatchObject({ id: a.id, port_speed: 20000, description: 'moved' });
    expect(got.termination_z).toMatchObject({ id: z.id, site: null, provider_network: { id: network.id, display: 'Backbone', name: 'Backbone' } });
    // fields= computes only what is asked, and keeps the termination's keys
    const only = (await api().get(`/api/circuits/circuits/${circuit.id}/?fields=termination_z.provider_network`)).body;
    expect(only).toEqual({ termination_z: { provider_network: got.termination_z.provider_network } });
    // a circuit renamed: its terminations' display follows
    await api().patch(`/api/circuits/circuits/${circuit.id}/`, { cid: `${circuit.cid}-renamed` });
    got = (await api().get(`/api/circuits/circuits/${circuit.id}/`)).body;
    expect(got.termination_a.display).toBe(`${circuit.cid}-renamed: Termination A`);
    expect((await api().get(`/api/circuits/circuit-terminations/${z.id}/`)).body.display).toBe(`${circuit.cid}-renamed: Termination Z`);
    expect((await api().delete(`/api/circuits/circuit-terminations/${a.id}/`)).status).toBe(204);
    got = (await api().get(`/api/circuits/circuits/${circuit.id}/`)).body;
    expect(got.termination_a).toBeNull();
    expect(got.termination_z).toMatchObject({ id: z.id });
    // deleting the circuit deletes its terminations (CASCADE), each with its own deleted event
    expect((await api().delete(`/api/circuits/circuits/${circuit.id}/`)).status).toBe(204);
    expect((await api().get(`/api/circuits/circuit-terminations/${z.id}/`)).status).toBe(404);
    const events = (await readOutbox(suite.stack().databaseUrl, 'circuits')).filter(
      (e) => e.event === 'deleted' && ((e.model === 'circuits.circuit' && e.object_id === circuit.id) || (e.model === 'circuits.circuittermination' && e.object_id === z.id)),
    );
    expect(events.map((e) => e.model).sort()).toEqual(['circuits.circuit', 'circuits.circuittermination']);
  });

  test('when a page of circuits with terminations is read, then it costs the same queries for one circuit, fifty or all', async () => {
    const { provider, type } = await basics();
    const site = await aSite();
    const network = await made('/api/circuits/provider-networks/', { provider: provider.id, name: 'Count network' });
    const circuits: Obj[] = await made('/api/circuits/circuits/', Array.from({ length: 60 }, (_, i) => ({ cid: `Q-${i}`, provider: provider.id, type: type.id })));
    await made(
      '/api/circuits/circuit-terminations/',
      circuits.flatMap((c, i) => [
        { circuit: c.id, term_side: 'A', site: site.id },
        { circuit: c.id, term_side: 'Z', ...(i % 2 ? { site: site.id } : { provider_network: network.id }) },
      ]),
    );
    const counts = [];
    for (const limit of [50, 1000]) {
      const r = await api().get(`/api/circuits/circuits/?provider_id=${provider.id}&cid__isw=Q-&limit=${limit}`);
      expect(r.body.results.every((c: Obj) => c.termination_a && c.termination_z)).toBe(true);
      counts.push(Number(r.headers.get('x-query-count')));
    }
    expect(counts[1]).toBe(counts[0]);
    const one = await api().get(`/api/circuits/circuits/?provider_id=${provider.id}&cid__isw=Q-&limit=1`);
    expect(Number(one.headers.get('x-query-count'))).toBeLessThanOrEqual(counts[0]);
  });
});

describe('counts', () => {
  test('when circuits use a provider and a type, then circuit_count counts them on lists, details and briefs, and the provider lists its accounts', async () => {
    const { provider, type } = await basics();
    const acct1 = await made('/api/circuits/provider-accounts/', { provider: provider.id, account: 'B-200', name: 'Backup' });
    const acct2 = await made('/api/circuits/provider-accounts/', { provider: provider.id, account: 'A-100' });
    expect(acct1.display).toBe('B-200 (Backup)');
    expect(acct2.display).toBe('A-100');
    await made('/api/circuits/circuits/', [
      { cid: 'K-1', provider: provider.id, type: type.id, provider_account: acct1.id },
      { cid: 'K-2', provider: { slug: provider.slug }, type: { slug: type.slug } },
    ]);
    const p = (await api().get(`/api/circuits/providers/${provider.id}/`)).body;
    expect(p.circuit_count).toBe(3);
    expect(p.accounts).toEqual([
      { id: acct2.id, url: acct2.url, display: 'A-100', name: '', account: 'A-100' },
      { id: acct1.id, url: acct1.url, display: 'B-200 (Backup)', name: 'Backup', account: 'B-200' },
    ]);
    expect((await api().get(`/api/circuits/providers/${provider.id}/?brief=1`)).body).toEqual({
      id: provider.id,
      url: provider.url,
      display: provider.name,
      name: provider.name,
      slug: provider.slug,
      circuit_count: 3,
    });
    expect((await api().get(`/api/circuits/circuit-types/?id=${type.id}`)).body.results[0].circuit_count).toBe(3);
    // accounts and networks count nothing in NetBox 3.7: no count keys
    expect(Object.keys(acct1).filter((k) => k.endsWith('_count'))).toEqual([]);
  });

  test('when a termination uses a dcim site, then the site\'s circuit_count counts it once circuits\' event arrives', async () => {
    const { circuit } = await basics();
    const site = await aSite();
    await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id });
    await eventually(async () => (await dcim().get(`/api/dcim/sites/${site.id}/`)).body.circuit_count === 1, 15_000, 'the site counts the termination');
  });
});

describe('validation and unique rules', () => {
  test('when a circuit names an account of another provider, then the account is refused', async () => {
    const { provider, type } = await basics();
    const other = await made('/api/circuits/providers/', { name: 'Other provider', slug: 'other-provider' });
    const theirs = await made('/api/circuits/provider-accounts/', { provider: other.id, account: 'THEIRS' });
    const r = await api().post('/api/circuits/circuits/', { cid: 'X-1', provider: provider.id, type: type.id, provider_account: theirs.id });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ provider_account: ['The assigned account must belong to the assigned provider.'] });
  });

  test('when unique rules are broken, then the messages are NetBox\'s; blank account names never collide', async () => {
    const { provider, type, circuit } = await basics();
    const dup = await api().post('/api/circuits/circuits/', { cid: circuit.cid, provider: provider.id, type: type.id });
    expect(dup.body).toEqual({ __all__: ['Circuit with this Provider and Circuit ID already exists.'] });
    const name = await api().post('/api/circuits/providers/', { name: provider.name, slug: 'fresh-slug' });
    expect(name.body).toEqual({ name: ['provider with this name already exists.'] });
    await made('/api/circuits/provider-accounts/', [
      { provider: provider.id, account: 'U-1' },
      { provider: provider.id, account: 'U-2' },
      { provider: provider.id, account: 'U-3', name: 'Main' },
    ]);
    const account = await api().post('/api/circuits/provider-accounts/', { provider: provider.id, account: 'U-1' });
    expect(account.body).toEqual({ __all__: ['Provider account with this Provider and Account ID already exists.'] });
    const named = await api().post('/api/circuits/provider-accounts/', { provider: provider.id, account: 'U-4', name: 'Main' });
    expect(named.body).toEqual({ __all__: ['Constraint “circuits_provideraccount_unique_provider_name” is violated.'] });
    await made('/api/circuits/provider-networks/', { provider: provider.id, name: 'Net' });
    const network = await api().post('/api/circuits/provider-networks/', { provider: provider.id, name: 'Net' });
    expect(network.body).toEqual({ __all__: ['Provider network with this Provider and Name already exists.'] });
  });

  test('when a provider still has circuits or a network still has terminations, then deleting it is a 409 naming them', async () => {
    const { provider, circuit } = await basics();
    const network = await made('/api/circuits/provider-networks/', { provider: provider.id, name: 'Kept' });
    const t = await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'Z', provider_network: network.id });
    const r = await api().delete(`/api/circuits/provider-networks/${network.id}/`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: ${circuit.cid}: Termination Z (${t.id})`);
    expect((await api().delete(`/api/circuits/providers/${provider.id}/`)).status).toBe(409);
  });
});

describe('filters through terminations', () => {
  test('when circuits and providers are filtered by site, region and site group, then those with a termination there match (descendants too)', async () => {
    n++;
    const parent = await made('/api/dcim/regions/', { name: `Region ${n}`, slug: `region-${n}` }, dcim());
    const child = await made('/api/dcim/regions/', { name: `Region ${n} child`, slug: `region-${n}-child`, parent: parent.id }, dcim());
    const group = await made('/api/dcim/site-groups/', { name: `Group ${n}`, slug: `group-${n}` }, dcim());
    const inChild = await aSite({ region: child.id, group: group.id });
    const elsewhere = await aSite();
    const one = await basics();
    const two = await basics();
    const three = await basics();
    const network = await made('/api/circuits/provider-networks/', { provider: three.provider.id, name: 'Filter network' });
    await made('/api/circuits/circuit-terminations/', [
      { circuit: one.circuit.id, term_side: 'A', site: inChild.id, xconnect_id: `XQ-${n}` },
      { circuit: one.circuit.id, term_side: 'Z', site: elsewhere.id },
      { circuit: two.circuit.id, term_side: 'A', site: elsewhere.id },
      { circuit: three.circuit.id, term_side: 'Z', provider_network: network.id },
    ]);
    const circuitIds = [one, two, three].map((x) => x.circuit.id);
    const providerIds = [one, two, three].map((x) => x.provider.id);
    const circuits = async (q: string) => ids(await api().get(`/api/circuits/circuits/?${circuitIds.map((i) => `id=${i}`).join('&')}&${q}`));
    const providers = async (q: string) => ids(await api().get(`/api/circuits/providers/?${providerIds.map((i) => `id=${i}`).join('&')}&${q}`));
    // the region's and group's projections are fed by dcim's events
    const projected = async () =>
      (await api().get(`/api/circuits/circuits/?id=${one.circuit.id}&region_id=${parent.id}&region=${child.slug}&site_group=${group.slug}`)).body.count === 1;
    await eventually(projected, 15_000, 'the regions and the site group projected');
    expect(await circuits(`region=${parent.slug}`)).toEqual([one.circuit.id]);
    expect(await circuits(`region=${child.slug}`)).toEqual([one.circuit.id]);
    expect(await circuits(`region__n=${parent.slug}`)).toEqual([two.circuit.id, three.circuit.id]);
    expect(await circuits(`site_group_id=${group.id}`)).toEqual([one.circuit.id]);
    expect(await circuits(`site=${elsewhere.slug}`)).toEqual([one.circuit.id, two.circuit.id]);
    expect(await circuits(`site_id=${inChild.id}&site_id=${elsewhere.id}`)).toEqual([one.circuit.id, two.circuit.id]);
    expect(await circuits(`provider_network_id=${network.id}`)).toEqual([three.circuit.id]);
    expect(await circuits(`provider=${two.provider.slug}`)).toEqual([two.circuit.id]);
    expect(await providers(`region_id=${parent.id}`)).toEqual([one.provider.id]);
    expect(await providers(`site=${elsewhere.slug}`)).toEqual([one.provider.id, two.provider.id]);
    expect(await providers(`site_group=${group.slug}`)).toEqual([one.provider.id]);
    expect(await providers(`site__n=${elsewhere.slug}`)).toEqual([three.provider.id]);
    const unknown = await api().get('/api/circuits/circuits/?region=no-such-region');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ region: ['Select a valid choice. no-such-region is not one of the available choices.'] });
    // terminations filter by site alone (NetBox has no region filter on them)
    const terms = await api().get(`/api/circuits/circuit-terminations/?site=${inChild.slug}`);
    expect(terms.body.results.map((t: Obj) => t.circuit.id)).toEqual([one.circuit.id]);
    const onNetwork = await api().get(`/api/circuits/circuit-terminations/?provider_network_id=${network.id}`);
    expect(onNetwork.body.results.map((t: Obj) => [t.circuit.id, t.term_side])).toEqual([[three.circuit.id, 'Z']]);
    const ignored = await api().get(`/api/circuits/circuit-terminations/?region=${parent.slug}`);
    expect(ignored.headers.get('x-ignored-parameters')).toBe('region');
    // q reaches the terminations' cross-connect ids, and the providers' accounts
    expect(await circuits(`q=xq-${n}`)).toEqual([one.circuit.id]);
    await made('/api/circuits/provider-accounts/', { provider: two.provider.id, account: `ACC-${n}`, name: `Findable ${n}` });
    expect(await providers(`q=findable ${n}`)).toEqual([two.provider.id]);
  });
});

describe('across services', () => {
  test('when a dcim site is used by a circuit termination, then deleting it is a 409 from dcim naming the termination, and nothing is deleted', async () => {
    const { circuit } = await basics();
    const site = await aSite();
    const t = await made('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id });
    const r = await dcim().delete(`/api/dcim/sites/${site.id}/`);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: ${circuit.cid}: Termination A (${t.id})` });
    expect((await dcim().get(`/api/dcim/sites/${site.id}/`)).status).toBe(200);
    expect((await api().get(`/api/circuits/circuit-terminations/${t.id}/`)).body.site.id).toBe(site.id);
    // once the termination is gone the site can go
    expect((await api().delete(`/api/circuits/circuit-terminations/${t.id}/`)).status).toBe(204);
    expect((await dcim().delete(`/api/dcim/sites/${site.id}/`)).status).toBe(204);
  });

  test('when a tenant has circuits, then deleting it is a 409 from tenancy, and tenancy counts them', async () => {
    const { provider, type } = await basics();
    const tenancy = suite.stack().client('tenancy');
    const tenant = await made('/api/tenancy/tenants/', { name: 'Circuit tenant', slug: 'circuit-tenant' }, tenancy);
    const c = await made('/api/circuits/circuits/', { cid: 'T-1', provider: provider.id, type: type.id, tenant: { slug: 'circuit-tenant' } });
    expect(c.tenant).toMatchObject({ id: tenant.id, slug: 'circuit-tenant' });
    const r = await tenancy.delete(`/api/tenancy/tenants/${tenant.id}/`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: T-1 (${c.id})`);
    await eventually(async () => (await tenancy.get(`/api/tenancy/tenants/${tenant.id}/`)).body.circuit_count === 1, 15_000, 'the tenant counts the circuit');
  });
});
