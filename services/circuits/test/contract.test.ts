import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as circuits, circuitsModels } from '@inventory/circuits';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, circuits }, {}, { template: true });
});
afterAll(() => stack?.stop());

const tooLong = 'x'.repeat(101);

/** Made once per file: what the contract objects refer to (a provider, a circuit type, a tenant, two dcim sites...). */
const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
const made = async (service: string, path: string, body: Record<string, unknown>) => {
  const r = await stack.client(service).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theProvider = once(() => made('circuits', '/api/circuits/providers/', { name: 'Contract provider', slug: 'contract-provider' }));
const theType = once(() => made('circuits', '/api/circuits/circuit-types/', { name: 'Contract type', slug: 'contract-type' }));
const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'Circuits tenant', slug: 'circuits-tenant' }));
const siteA = once(() => made('dcim', '/api/dcim/sites/', { name: 'Circuit site A', slug: 'circuit-site-a' }));
const siteB = once(() => made('dcim', '/api/dcim/sites/', { name: 'Circuit site B', slug: 'circuit-site-b' }));
let circuitsMade = 0;
/** A circuit of its own for each contract termination (a side is unique per circuit). */
const freshCircuit = async () =>
  made('circuits', '/api/circuits/circuits/', { cid: `Term circuit ${++circuitsMade}`, provider: (await theProvider()).id, type: (await theType()).id });

runModelContract('provider', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.provider,
  path: '/api/circuits/providers/',
  schema: 'Provider',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Provider ${i}`, slug: `provider-${i}`, description: `d${i % 3}`, comments: i % 2 ? 'odd' : '' }),
  patch: { description: 'patched', comments: 'new comments' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
    { body: { name: 'bad slug', slug: 'a b' }, field: 'slug' },
    { body: { name: 'bad asn', slug: 'bad-asn', asns: 'x' }, field: 'asns' },
  ],
  brief: ['name', 'slug', 'circuit_count'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `slug__ic=${o[2].slug.slice(-3)}`, expect: (o) => o.filter((x) => x.slug.includes(o[2].slug.slice(-3))) },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=provider', expect: (o) => o },
  ],
});

runModelContract('provider account', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.providerAccount,
  path: '/api/circuits/provider-accounts/',
  schema: 'ProviderAccount',
  badPatch: { provider: 999999 },
  make: async (i) => ({ provider: (await theProvider()).id, account: `ACCT-${i}`, name: i % 2 ? `Account ${i}` : '', description: `d${i % 3}` }),
  patch: { description: 'patched', comments: 'more' },
  invalid: [
    { body: { account: 'no provider' }, field: 'provider' },
    { body: { provider: 999999, account: 'bad provider' }, field: 'provider' },
    { body: { provider: 999999 }, field: 'account' },
    { body: { provider: 999999, account: tooLong }, field: 'account' },
  ],
  brief: ['name', 'account'],
  filters: [
    { query: () => 'provider=contract-provider', expect: (o) => o },
    { query: (o) => `account=${o[1].account}`, expect: (o) => [o[1]] },
    { query: () => 'name__empty=true', expect: (o) => o.filter((x) => x.name === '') },
    { query: () => 'q=acct', expect: (o) => o },
  ],
});

runModelContract('provider network', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.providerNetwork,
  path: '/api/circuits/provider-networks/',
  schema: 'ProviderNetwork',
  badPatch: { name: '' },
  make: async (i) => ({ provider: (await theProvider()).id, name: `Network ${i}`, service_id: i % 2 ? `SVC-${i}` : '' }),
  patch: { description: 'patched', comments: 'more', service_id: 'SVC-X' },
  invalid: [
    { body: { name: 'no provider' }, field: 'provider' },
    { body: { provider: 999999, name: 'bad provider' }, field: 'provider' },
    { body: { provider: 999999 }, field: 'name' },
  ],
  brief: ['name'],
  filters: [
    { query: (o) => `provider_id=${o[0].provider.id}`, expect: (o) => o },
    { query: () => 'service_id__empty=false', expect: (o) => o.filter((x) => x.service_id) },
    { query: () => 'q=network', expect: (o) => o },
  ],
});

runModelContract('circuit type', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.circuitType,
  path: '/api/circuits/circuit-types/',
  schema: 'CircuitType',
  badPatch: { color: 'FFFFFF' },
  make: (i) => ({ name: `Circuit type ${i}`, slug: `circuit-type-${i}`, color: i % 2 ? 'aa1409' : '' }),
  patch: { description: 'patched', color: 'abcdef' },
  invalid: [
    { body: { name: 'bad color', slug: 'bad-color', color: 'red' }, field: 'color' },
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'circuit_count'],
  filters: [
    { query: () => 'color=aa1409', expect: (o) => o.filter((x) => x.color === 'aa1409') },
    { query: () => 'q=circuit-type', expect: (o) => o },
  ],
});

runModelContract('circuit', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.circuit,
  path: '/api/circuits/circuits/',
  schema: 'Circuit',
  badPatch: { commit_rate: -1 },
  make: async (i) => ({
    cid: `CID-${i}`,
    provider: (await theProvider()).id,
    // no account: the filter pass moves circuits to new providers, which an account of the first would refuse
    type: (await theType()).id,
    status: i % 2 ? 'active' : 'planned',
    tenant: i % 2 ? (await theTenant()).id : null,
    install_date: i % 2 ? `2024-01-${String((i % 28) + 1).padStart(2, '0')}` : null,
    commit_rate: i % 2 ? i * 1000 : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', status: 'offline', termination_date: '2030-12-31', comments: 'more' },
  invalid: [
    { body: { provider: 999999, type: 999999 }, field: 'cid' },
    { body: { cid: 'no provider', type: 999999 }, field: 'provider' },
    { body: { cid: 'no type', provider: 999999 }, field: 'type' },
    { body: { cid: 'bad status', provider: 999999, type: 999999, status: 'open' }, field: 'status' },
    { body: { cid: 'bad date', provider: 999999, type: 999999, install_date: '2024-13-01' }, field: 'install_date' },
    { body: { cid: 'bad tenant', provider: 999999, type: 999999, tenant: 999999 }, field: 'tenant' },
  ],
  brief: ['cid'],
  choices: ['status'],
  filters: [
    { query: (o) => `status=${o[1].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[1].status.value) },
    { query: () => 'provider=contract-provider', expect: (o) => o },
    { query: () => 'type=contract-type', expect: (o) => o },
    { query: () => 'tenant=circuits-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: () => 'tenant_id=null', expect: (o) => o.filter((x) => !x.tenant) },
    { query: () => 'provider_account_id=null', expect: (o) => o.filter((x) => !x.provider_account) },
    { query: (o) => `cid=${o[2].cid}`, expect: (o) => [o[2]] },
    { query: () => 'q=cid-', expect: (o) => o },
  ],
});

runModelContract('circuit termination', {
  stack: () => stack,
  service: 'circuits',
  model: circuitsModels.circuitTermination,
  path: '/api/circuits/circuit-terminations/',
  schema: 'CircuitTermination',
  badPatch: { term_side: 'B' },
  make: async (i) => ({
    circuit: (await freshCircuit()).id,
    term_side: i % 2 ? 'A' : 'Z',
    site: (await (i % 2 ? siteA : siteB)()).id,
    port_speed: i % 2 ? 10000 : null,
    upstream_speed: i % 4 === 1 ? 5000 : null,
    xconnect_id: `XC-${i}`,
    pp_info: i % 2 ? `PP ${i}` : '',
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', port_speed: 1000000 },
  invalid: [
    { body: { term_side: 'A', site: 999999 }, field: 'circuit' },
    { body: { circuit: 999999, site: 999999 }, field: 'term_side' },
    { body: { circuit: 999999, term_side: 'B', site: 999999 }, field: 'term_side' },
    { body: { circuit: 999999, term_side: 'A', site: 999999, port_speed: -1 }, field: 'port_speed' },
    { body: { circuit: 999999, term_side: 'A', provider_network: 999999 }, field: 'provider_network' },
  ],
  brief: ['circuit', 'term_side', 'cable', '_occupied'],
  choices: ['term_side'],
  targets: { 'dcim.site': (i) => ({ name: `Xref termination site ${i}`, slug: `xref-termination-site-${i}` }) },
  filters: [
    { query: () => 'site=circuit-site-a', expect: (o) => o.filter((x) => x.site?.slug === 'circuit-site-a') },
    { query: (o) => `circuit_id=${o[1].circuit.id}`, expect: (o) => [o[1]] },
    { query: () => 'term_side=A', expect: (o) => o.filter((x) => x.term_side === 'A') },
    { query: () => 'port_speed__gte=10000', expect: (o) => o.filter((x) => x.port_speed >= 10000) },
    { query: (o) => `q=${encodeURIComponent(o[0].circuit.cid)}`, expect: (o) => o.filter((x) => x.circuit.cid.toLowerCase().includes(o[0].circuit.cid.toLowerCase())) },
    { query: () => 'provider_network_id=null', expect: (o) => o },
  ],
});
