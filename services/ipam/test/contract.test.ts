import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as ipam, ipamModels } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, ipam }, {}, { template: true });
});
afterAll(() => stack?.stop());

const tooLong = 'x'.repeat(101);
const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
const made = async (service: string, path: string, body: Record<string, unknown>) => {
  const r = await stack.client(service).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'Ipam tenant', slug: 'ipam-tenant' }));
const targets = once(async () => [
  await made('ipam', '/api/ipam/route-targets/', { name: '65000:901' }),
  await made('ipam', '/api/ipam/route-targets/', { name: '65000:902' }),
]);

runModelContract('RIR', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.rir,
  path: '/api/ipam/rirs/',
  schema: 'RIR',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `RIR ${i}`, slug: `rir-${i}`, is_private: i % 2 === 0, description: `d${i % 3}` }),
  patch: { description: 'patched', is_private: true },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
    { body: { name: 'bad private', slug: 'bad-private', is_private: 'maybe' }, field: 'is_private' },
  ],
  brief: ['name', 'slug', 'aggregate_count'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: () => 'is_private=true', expect: (o) => o.filter((x) => x.is_private) },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=rir-', expect: (o) => o },
  ],
});

runModelContract('role', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.role,
  path: '/api/ipam/roles/',
  schema: 'Role',
  badPatch: { weight: 40000 },
  make: (i) => ({ name: `Role ${i}`, slug: `role-${i}`, weight: 100 * (i % 4), description: `d${i % 3}` }),
  patch: { description: 'patched', weight: 7 },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: 'heavy', slug: 'heavy', weight: 32768 }, field: 'weight' },
    { body: { name: 'light', slug: 'light', weight: -1 }, field: 'weight' },
  ],
  brief: ['name', 'slug', 'prefix_count', 'vlan_count'],
  filters: [
    { query: (o) => `slug=${o[2].slug}`, expect: (o) => [o[2]] },
    { query: () => 'q=role', expect: (o) => o },
  ],
});

runModelContract('route target', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.routeTarget,
  path: '/api/ipam/route-targets/',
  schema: 'RouteTarget',
  badPatch: { name: 'x'.repeat(22) },
  make: async (i) => ({ name: `65001:${i}`, tenant: i % 2 ? (await theTenant()).id : null, description: `d${i % 3}` }),
  patch: { description: 'patched', comments: 'c' },
  invalid: [
    { body: { description: 'no name' }, field: 'name' },
    { body: { name: 'x'.repeat(22) }, field: 'name' },
    { body: { name: '65001:x', tenant: 999999 }, field: 'tenant' },
  ],
  brief: ['name'],
  filters: [
    { query: (o) => `name=${o[1].name}`, expect: (o) => [o[1]] },
    { query: () => 'tenant=ipam-tenant', expect: (o) => o.filter((x) => x.tenant) },
  ],
});

runModelContract('VRF', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.vrf,
  path: '/api/ipam/vrfs/',
  schema: 'VRF',
  badPatch: { rd: 'x'.repeat(22) },
  make: async (i) => ({
    name: `VRF ${i % 3}`,
    rd: i % 2 ? `65000:${i}` : null,
    enforce_unique: i % 3 !== 0,
    import_targets: i % 2 ? [(await targets())[0].id] : [],
    export_targets: [(await targets())[1].id],
  }),
  patch: { description: 'patched', enforce_unique: false },
  invalid: [
    { body: { rd: '1:1' }, field: 'name' },
    { body: { name: 'long rd', rd: 'x'.repeat(22) }, field: 'rd' },
    { body: { name: 'bad targets', import_targets: [999999] }, field: 'import_targets' },
  ],
  brief: ['name', 'rd', 'prefix_count'],
  filters: [
    { query: () => 'enforce_unique=false', expect: (o) => o.filter((x) => !x.enforce_unique) },
    { query: (o) => `import_target_id=${o[1].import_targets[0].id}`, expect: (o) => o.filter((x) => x.import_targets.length > 0) },
    { query: () => 'export_target=65000:902', expect: (o) => o },
    { query: () => 'q=65000:', expect: (o) => o.filter((x) => x.rd) },
  ],
});
