import { bootStack, Client, launchChromium, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy, tenancyModels } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as ipam, ipamModels } from '@inventory/ipam';
import { createService as virtualization, virtualizationModels } from '@inventory/virtualization';
import { createService as circuits, circuitsModels } from '@inventory/circuits';
import { rootName, typeName, type ModelDef } from '@inventory/rest';
import { stackGateway } from '@inventory/gateway';
import { buildClientSchema, getIntrospectionQuery, isObjectType, type GraphQLSchema } from 'graphql';

/**
 * `/graphql/` through the gateway over the real services: the schema
 * generated from the declarations, values as REST shows them, a query
 * across dcim, ipam, tenancy, virtualization and circuits whose statements
 * and service calls do not grow with the rows, permissions, limits,
 * GraphiQL, and a subgraph that was down coming back into the schema.
 */
let stack: Stack;
let gw: Client;
let admin: Record<string, string>;
let limited: Record<string, string>;
let schema: GraphQLSchema;
/** `tenant { circuits }` asked while circuits was down at the gateway's first composition. */
let withoutCircuits: Awaited<ReturnType<typeof gql>>;

const PASSWORD = 'graphql-password-1';

async function tokenFor(username: string): Promise<Record<string, string>> {
  const r = await gw.post('/api/users/tokens/provision/', { username, password: PASSWORD }, { identity: null });
  expect(r.status).toBe(201);
  return { authorization: `Token ${r.body.key}` };
}

/** POST /graphql/ as the given token; the answer with the counters the gateway reports. */
async function gql(query: string, headers = admin, variables?: Record<string, unknown>) {
  const res = await fetch(`${stack.urls.gateway}/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] },
    statements: Number(res.headers.get('x-query-count')),
    calls: Number(res.headers.get('x-service-calls')),
  };
}

const rest = async (path: string) => {
  const r = await gw.get(path, { headers: admin, identity: null });
  expect(r.status).toBe(200);
  return r.body;
};
/** Writes go straight to the owning service (as a service identity): the tests are about reads. */
const post = async (path: string, body: unknown) => {
  const r = await stack.client(path.split('/')[2]).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

const SERVED: [string, Record<string, unknown>][] = [
  ['tenancy', tenancyModels],
  ['dcim', dcimModels],
  ['ipam', ipamModels],
  ['virtualization', virtualizationModels],
  ['circuits', circuitsModels],
];

let ids: { tenant: number; site: number; otherSite: number; type: number; role: number; cluster: number };

/** `n` devices in the first site, each with two interfaces and an address on each. */
async function addDevices(from: number, n: number): Promise<void> {
  const devices = await post(
    '/api/dcim/devices/',
    Array.from({ length: n }, (_, i) => ({ name: `dev-${from + i}`, device_type: ids.type, role: ids.role, site: ids.site, tenant: ids.tenant })),
  );
  const interfaces = await post(
    '/api/dcim/interfaces/',
    devices.flatMap((d: { id: number }) => [0, 1].map((k) => ({ device: d.id, name: `eth${k}`, type: '1000base-t' }))),
  );
  await post(
    '/api/ipam/ip-addresses/',
    interfaces.map((itf: { id: number }, i: number) => ({
      address: `10.${Math.floor((from * 2 + i) / 250)}.${(from * 2 + i) % 250}.1/24`,
      assigned_object_type: 'dcim.interface',
      assigned_object_id: itf.id,
      tenant: ids.tenant,
    })),
  );
}

beforeAll(async () => {
  // a composition missing a service asks it again after 200 ms (5 s by default)
  const gateway = stackGateway({ GRAPHQL_MAX_DEPTH: '8', GRAPHQL_MAX_COST: '200000', GRAPHQL_RECOMPOSE_MS: '200' });
  stack = await bootStack({ users, tenancy, extras, dcim, ipam, virtualization, circuits, gateway }, {}, { template: true });
  gw = new Client(stack.urls.gateway, { identity: null });
  const u = stack.client('users');
  const adminUser = await u.post('/api/users/users/', { username: 'admin', password: PASSWORD });
  const labels = SERVED.flatMap(([, mod]) => (mod as { models: ModelDef[] }).models.map((m) => m.label));
  await u.post('/api/users/permissions/', { name: 'everything', object_types: [...labels, 'extras.tag'], actions: ['view'], users: [adminUser.body.id] });
  const alice = await u.post('/api/users/users/', { username: 'alice', password: PASSWORD });
  // alice sees tenants, and of the sites only "Site A"
  await u.post('/api/users/permissions/', { name: 'tenants', object_types: ['tenancy.tenant'], actions: ['view'], users: [alice.body.id] });
  await u.post('/api/users/permissions/', { name: 'site a', object_types: ['dcim.site'], actions: ['view'], users: [alice.body.id], constraints: { name: 'Site A' } });
  admin = await tokenFor('admin');
  limited = await tokenFor('alice');
  // circuits is down when the gateway composes first; back before its data is written
  await stack.stopService('circuits');
  withoutCircuits = await gql('{ tenant_list { name circuits { cid } } }');
  await stack.startService('circuits');
  const tenant = await post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  const site = await post('/api/dcim/sites/', { name: 'Site A', slug: 'site-a', tenant: tenant.id });
  const otherSite = await post('/api/dcim/sites/', { name: 'Site B', slug: 'site-b', tenant: tenant.id });
  const mfr = await post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await post('/api/dcim/device-types/', { manufacturer: mfr.id, model: 'Box', slug: 'box' });
  const role = await post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const ctype = await post('/api/virtualization/cluster-types/', { name: 'KVM', slug: 'kvm' });
  const cluster = await post('/api/virtualization/clusters/', { name: 'Cluster 1', type: ctype.id, site: site.id });
  await post('/api/virtualization/virtual-machines/', { name: 'vm-1', cluster: cluster.id, tenant: tenant.id });
  await post('/api/ipam/prefixes/', [{ prefix: '10.0.0.0/16', tenant: tenant.id, site: site.id }, { prefix: '10.1.0.0/16', tenant: tenant.id }]);
  const provider = await post('/api/circuits/providers/', { name: 'Transit', slug: 'transit' });
  const circuitType = await post('/api/circuits/circuit-types/', { name: 'Internet', slug: 'internet' });
  await post('/api/circuits/circuits/', [{ cid: 'C-1', provider: provider.id, type: circuitType.id, tenant: tenant.id }, { cid: 'C-2', provider: provider.id, type: circuitType.id }]);
  ids = { tenant: tenant.id, site: site.id, otherSite: otherSite.id, type: type.id, role: role.id, cluster: cluster.id };
  await addDevices(0, 5);
  const intro = await gql(getIntrospectionQuery());
  expect(intro.body.errors).toBeUndefined();
  schema = buildClientSchema(intro.body.data as never);
}, 180_000);
afterAll(() => stack?.stop());

test('when the schema is read, then every model of every service has its root fields and every field of its REST representation', () => {
  const root = schema.getQueryType()!.getFields();
  const missing: string[] = [];
  for (const [, mod] of SERVED) {
    for (const model of (mod as { models: ModelDef[] }).models) {
      const name = rootName(model.label);
      for (const f of [name, `${name}_list`, `${name}_count`]) if (!root[f]) missing.push(`Query.${f}`);
      const type = schema.getType(typeName(model.label));
      if (!type || !isObjectType(type)) {
        missing.push(typeName(model.label));
        continue;
      }
      const fields = type.getFields();
      const expected = ['id', 'url', 'display', ...Object.keys(model.fields).filter((n) => !model.fields[n].writeOnly), ...Object.keys(model.counts)];
      if (model.tags) expected.push('tags');
      if (model.customFields) expected.push('custom_fields');
      for (const f of expected) if (!fields[f]) missing.push(`${type.name}.${f}`);
    }
  }
  expect(missing).toEqual([]);
  // NetBox 3.7's names; reverse relations by NetBox's related names; the merge keys are not public
  for (const f of ['site', 'site_list', 'ip_address', 'ip_address_list', 'device_type', 'vm_interface_list']) expect(root[f]).toBeDefined();
  expect(Object.keys(root).filter((f) => f.startsWith('_'))).toEqual([]);
  const tenant = schema.getType('Tenant');
  expect(isObjectType(tenant) && Object.keys(tenant.getFields())).toEqual(expect.arrayContaining(['name', 'sites', 'devices', 'prefixes', 'ip_addresses', 'virtual_machines', 'circuits']));
});

test('when objects are read by GraphQL and by REST, then every field shows the same value', async () => {
  const r = await gql(`{ device_list(limit: 2, ordering: "name") { id url display name serial status airflow face position site { id name } tenant { id name }
    custom_fields tags { id } created last_updated }
    ip_address_list(limit: 3) { id address status role dns_name family assigned_object_type assigned_object_id } }`);
  expect(r.body.errors).toBeUndefined();
  const devices = r.body.data!.device_list as Record<string, unknown>[];
  const restDevices = (await rest('/api/dcim/devices/?limit=2&ordering=name')).results;
  expect(devices.map((d) => d.id)).toEqual(restDevices.map((d: { id: number }) => d.id));
  devices.forEach((d, i) => {
    const want = restDevices[i];
    for (const key of ['id', 'url', 'display', 'name', 'serial', 'position', 'custom_fields', 'created', 'last_updated']) expect([key, d[key]]).toEqual([key, want[key]]);
    // choices as their value, references as objects
    for (const key of ['status', 'airflow', 'face']) expect([key, d[key]]).toEqual([key, want[key]?.value ?? null]);
    expect(d.site).toEqual({ id: want.site.id, name: want.site.name });
    expect(d.tenant).toEqual({ id: want.tenant.id, name: want.tenant.name });
  });
  const addresses = r.body.data!.ip_address_list as Record<string, unknown>[];
  const restAddresses = (await rest('/api/ipam/ip-addresses/?limit=3')).results;
  addresses.forEach((a, i) => {
    const want = restAddresses[i];
    expect(a).toEqual({ ...Object.fromEntries(['id', 'address', 'dns_name', 'family', 'assigned_object_type', 'assigned_object_id'].map((k) => [k, want[k]])), status: want.status.value, role: want.role?.value ?? null });
  });
  // every key of the REST representation is a field of the type
  const unserved: string[] = [];
  for (const [path, type] of [['/api/dcim/devices/', 'Device'], ['/api/dcim/interfaces/', 'Interface'], ['/api/dcim/sites/', 'Site'], ['/api/ipam/ip-addresses/', 'IPAddress'], ['/api/ipam/prefixes/', 'Prefix'], ['/api/tenancy/tenants/', 'Tenant'], ['/api/virtualization/virtual-machines/', 'VirtualMachine'], ['/api/virtualization/clusters/', 'Cluster']]) {
    const t = schema.getType(type);
    const fields = isObjectType(t) ? t.getFields() : {};
    for (const key of Object.keys((await rest(`${path}?limit=1`)).results[0])) if (!fields[key]) unserved.push(`${type}.${key}`);
  }
  expect(unserved).toEqual([]);
  const counted = await gql('{ device_count site_count(slug: "site-a") ip_address_count }');
  expect(counted.body.data).toEqual({ device_count: (await rest('/api/dcim/devices/?limit=1')).count, site_count: 1, ip_address_count: (await rest('/api/ipam/ip-addresses/?limit=1')).count });
});

/** A device with its site, tenant, interfaces and their addresses, a VM with its cluster, a tenant with its sites and prefixes. */
const CROSS = `{
  device_list(limit: 100) {
    name
    site { name tenant { name } }
    tenant { name slug }
    interfaces { name ip_addresses { address assigned_object { ... on Interface { name device { name } } } } }
  }
  virtual_machine_list { name cluster { name site { name } } }
  tenant_list { name sites { name } prefixes { prefix site { name } } devices { name } circuits { cid provider { name } } }
}`;

test('when a query crosses services, then its statements and service calls stay the same from 5 to 50 devices', async () => {
  await gql(CROSS); // caches (custom-field definitions, tags) warmed, as for REST's query-count tests
  const small = await gql(CROSS);
  expect(small.body.errors).toBeUndefined();
  const d5 = small.body.data!.device_list as { name: string; site: unknown; tenant: unknown; interfaces: { ip_addresses: { assigned_object: { name: string; device: { name: string } } }[] }[] }[];
  expect(d5).toHaveLength(5);
  expect(d5[0]).toMatchObject({ name: 'dev-0', site: { name: 'Site A', tenant: { name: 'Acme' } }, tenant: { name: 'Acme', slug: 'acme' } });
  expect(d5[0].interfaces.map((i) => i.ip_addresses[0].assigned_object)).toEqual([
    { name: 'eth0', device: { name: 'dev-0' } },
    { name: 'eth1', device: { name: 'dev-0' } },
  ]);
  expect(small.body.data!.virtual_machine_list).toEqual([{ name: 'vm-1', cluster: { name: 'Cluster 1', site: { name: 'Site A' } } }]);
  expect(small.body.data!.tenant_list).toEqual([
    { name: 'Acme', sites: [{ name: 'Site A' }, { name: 'Site B' }], prefixes: [{ prefix: '10.0.0.0/16', site: { name: 'Site A' } }, { prefix: '10.1.0.0/16', site: null }], devices: d5.map((d) => ({ name: d.name })).sort((a, b) => a.name.localeCompare(b.name)),
      circuits: [{ cid: 'C-1', provider: { name: 'Transit' } }],
    },
  ]);
  await addDevices(5, 45);
  const large = await gql(CROSS);
  expect(large.body.errors).toBeUndefined();
  expect(large.body.data!.device_list).toHaveLength(50);
  console.log(`cross-service query: ${small.statements} statements and ${small.calls} service calls for 5 devices, ${large.statements} and ${large.calls} for 50`);
  expect(small.statements).toBeGreaterThan(0);
  expect(large.statements).toBe(small.statements);
  expect(large.calls).toBe(small.calls);
});

test('when circuits was down at the first composition, or stops and comes back, then its part of the schema follows it without restarting the gateway', async () => {
  // composed without circuits: Tenant had no `circuits` yet
  expect(withoutCircuits.status).toBe(400);
  expect(withoutCircuits.body.errors![0].message).toMatch(/Cannot query field "circuits" on type "Tenant"/);
  const query = '{ tenant_list { name circuits { cid } } circuit_count }';
  const want = { data: { tenant_list: [{ name: 'Acme', circuits: [{ cid: 'C-1' }] }], circuit_count: 2 } };
  // it answered again (beforeAll), and the next request after GRAPHQL_RECOMPOSE_MS composed it in
  expect((await gql(query)).body).toEqual(want);
  await stack.stopService('circuits');
  try {
    // down: its fields are still in the schema, answered with an error naming it; the other services' data stands
    const down = await gql(`{ tenant_count ${query.slice(1)}`);
    expect(down.status).toBe(200);
    expect(down.body.data?.tenant_count).toBe(1);
    expect(down.body.errors?.map((e) => e.message)).toContain('Service circuits is unavailable.');
  } finally {
    await stack.startService('circuits');
  }
  expect((await gql(query)).body).toEqual(want);
});

test('when a token is constrained, then lists and nested lists hold only its objects, and what it may not see is null', async () => {
  const r = await gql('{ site_list { name } tenant_list { name sites { name } } device_list(limit: 1) { name } }', limited);
  expect(r.body.data!.site_list).toEqual([{ name: 'Site A' }]);
  expect(r.body.data!.tenant_list).toEqual([{ name: 'Acme', sites: [{ name: 'Site A' }] }]);
  // no permission on devices at all: the list is refused with REST's message
  expect(r.body.errors?.[0].message).toMatch(/permission/);
  const other = await gql(`{ site(id: ${ids.otherSite}) { name } }`, limited);
  expect(other.body.data!.site).toBeNull();
  // a read-only token may POST queries (there are no mutations), and an anonymous caller gets what REST gives it
  const readOnly = await gw.post('/api/users/tokens/provision/', { username: 'alice', password: PASSWORD, write_enabled: false }, { identity: null });
  expect(readOnly.body.write_enabled).toBe(false);
  expect((await gql('{ tenant_count }', { authorization: `Token ${readOnly.body.key}` })).body).toEqual({ data: { tenant_count: 1 } });
  const anonymous = await gql('{ site_list { name } }', {});
  expect(anonymous.body.errors?.[0].message).toMatch(/credentials|permission/);
  // the services' subgraphs: not through the gateway, not to a user's identity, not without the user's
  expect((await fetch(`${stack.urls.gateway}/internal/graphql`, { headers: admin })).status).toBe(404);
  expect((await stack.client('dcim').post('/internal/graphql', { query: '{ site_count }' })).status).toBe(403);
  expect((await stack.client('dcim').asService('gateway').post('/internal/graphql', { query: '{ site_count }' })).status).toBe(403);
});

test('when a query is too deep, too costly, names an unknown filter or gives a wrong value, then it is refused with a clear error', async () => {
  const deep = await gql('{ device_list { site { tenant { sites { tenant { sites { tenant { sites { tenant { name } } } } } } } } } }');
  expect(deep.status).toBe(400);
  expect(deep.body.errors![0].message).toMatch(/levels deep; the limit is 8 \(GRAPHQL_MAX_DEPTH\)/);
  const costly = await gql('{ device_list(limit: 1000) { interfaces { ip_addresses { tenant { sites { name } } } } } }');
  expect(costly.status).toBe(400);
  expect(costly.body.errors![0].message).toMatch(/may return \d+ objects; the limit is 200000 \(GRAPHQL_MAX_COST\)/);
  const unknown = await gql('{ site_list(colour: "red") { name } }');
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors![0].message).toMatch(/Unknown argument "colour"/);
  const wrong = await gql('{ site_list(status: "sideways") { name } }');
  expect(wrong.body.errors![0].message).toMatch(/^status: .*sideways/);
  const mutation = await gql('mutation { x }');
  expect(mutation.status).toBe(400);
  // REST's pages: the same objects for the same limit, offset and ordering (natural order: dev-2 before dev-10)
  const paged = await gql('{ device_list(limit: 2, offset: 1, ordering: "-name") { name } }');
  const page = (await rest('/api/dcim/devices/?limit=2&offset=1&ordering=-name')).results;
  expect(paged.body.data!.device_list).toEqual(page.map((d: { name: string }) => ({ name: d.name })));
});

test('when a browser opens /graphql/, then it is sent to sign in, and signed in GraphiQL loads and runs a query; the SDL downloads', async () => {
  const sdl = await fetch(`${stack.urls.gateway}/graphql/?sdl`, { headers: admin });
  expect(sdl.status).toBe(200);
  expect(await sdl.text()).toMatch(/device_list\(/);
  const viaGet = await fetch(`${stack.urls.gateway}/graphql/?query=${encodeURIComponent('{ site_count }')}`, { headers: admin });
  expect(await viaGet.json()).toEqual({ data: { site_count: 2 } });
  const anonymous = await fetch(`${stack.urls.gateway}/graphql/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  expect(anonymous.status).toBe(302);
  expect(anonymous.headers.get('location')).toBe('/login/?next=%2Fgraphql%2F');
  const browser = await launchChromium();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    await page.goto(`${stack.urls.gateway}/graphql/`);
    await page.fill('#id_username', 'admin');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${stack.urls.gateway}/graphql/`), page.click('button[type=submit]')]);
    await page.waitForSelector('.graphiql-container');
    // the schema came through introspection: the documentation explorer lists the root fields
    const answer = await page.evaluate(async () => {
      const r = await fetch('/graphql/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ site_count }' }) });
      return r.json();
    });
    expect(answer).toEqual({ data: { site_count: 2 } });
  } finally {
    await browser.close();
  }
}, 120_000);
