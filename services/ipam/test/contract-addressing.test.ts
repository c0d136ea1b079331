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

const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
const made = async (service: string, path: string, body: Record<string, unknown>) => {
  const r = await stack.client(service).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theRir = once(() => made('ipam', '/api/ipam/rirs/', { name: 'Contract RIR', slug: 'contract-rir' }));
const theVrf = once(() => made('ipam', '/api/ipam/vrfs/', { name: 'Contract VRF', rd: '65200:1' }));
const theRole = once(() => made('ipam', '/api/ipam/roles/', { name: 'Contract role', slug: 'contract-role' }));
/** Two octets from i, so that every i has its own network. */
const octets = (i: number) => `${Math.floor(i / 256) % 256}.${i % 256}`;

runModelContract('aggregate', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.aggregate,
  path: '/api/ipam/aggregates/',
  schema: 'Aggregate',
  badPatch: { prefix: '10.0.0.1/8' },
  make: async (i) => ({
    prefix: i % 3 === 0 ? `2001:db8:${i.toString(16)}::/48` : `11.${octets(i)}.0/24`,
    rir: (await theRir()).id,
    date_added: i % 2 ? '2024-05-06' : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', date_added: '2025-01-02' },
  invalid: [
    { body: { description: 'no prefix' }, field: 'prefix' },
    { body: { prefix: '12.0.0.1/8' }, field: 'prefix' },
    { body: { prefix: '0.0.0.0/0' }, field: 'prefix' },
    { body: { prefix: 'nope' }, field: 'prefix' },
    { body: { prefix: '12.1.0.0/16' }, field: 'rir' },
  ],
  brief: ['family', 'prefix'],
  filters: [
    { query: () => 'family=6', expect: (o) => o.filter((x) => x.family.value === 6) },
    { query: (o) => `prefix=${o[1].prefix}`, expect: (o) => [o[1]] },
    { query: () => 'rir=contract-rir', expect: (o) => o },
    { query: () => 'q=d1', expect: (o) => o.filter((x) => x.description === 'd1') },
  ],
});

runModelContract('prefix', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.prefix,
  path: '/api/ipam/prefixes/',
  schema: 'Prefix',
  badPatch: { prefix: '10.0.0.1/8' },
  // none holds another: a create changes no other object's children (the hierarchy has its own tests)
  make: async (i) => ({
    prefix: i % 3 === 0 ? `2001:db8:${i.toString(16)}::/48` : `100.${octets(i)}.0/24`,
    vrf: i % 5 === 0 ? (await theVrf()).id : null,
    status: i % 4 === 0 ? 'container' : 'active',
    role: i % 2 ? (await theRole()).id : null,
    is_pool: i % 3 === 0,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', mark_utilized: true, status: 'reserved' },
  invalid: [
    { body: { description: 'no prefix' }, field: 'prefix' },
    { body: { prefix: '10.0.0.1/8' }, field: 'prefix' },
    { body: { prefix: '0.0.0.0/0' }, field: 'prefix' },
    { body: { prefix: '10.99.0.0/16', status: 'nope' }, field: 'status' },
    { body: { prefix: '10.98.0.0/16', vrf: 999999 }, field: 'vrf' },
  ],
  brief: ['family', 'prefix', '_depth'],
  choices: ['status'],
  filters: [
    { query: () => 'status=container', expect: (o) => o.filter((x) => x.status.value === 'container') },
    { query: () => 'mask_length=48', expect: (o) => o.filter((x) => x.prefix.endsWith('/48')) },
    { query: () => 'vrf_id=null', expect: (o) => o.filter((x) => x.vrf === null) },
    { query: () => 'role=contract-role', expect: (o) => o.filter((x) => x.role) },
  ],
});

runModelContract('IP range', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ipRange,
  path: '/api/ipam/ip-ranges/',
  schema: 'IPRange',
  badPatch: { end_address: '1.1.1.1/8' },
  make: async (i) =>
    i % 3 === 0
      ? { start_address: `2001:db8:${i.toString(16)}::10/64`, end_address: `2001:db8:${i.toString(16)}::20/64`, status: 'reserved' }
      : { start_address: `172.${16 + Math.floor(i / 256)}.${i % 256}.10/24`, end_address: `172.${16 + Math.floor(i / 256)}.${i % 256}.20/24`, vrf: i % 2 ? (await theVrf()).id : null },
  patch: { description: 'patched', mark_utilized: true },
  invalid: [
    { body: { start_address: '10.9.9.1/24' }, field: 'end_address' },
    { body: { start_address: '10.9.9.9/24', end_address: '10.9.9.1/24' }, field: 'end_address' },
    { body: { start_address: '10.9.9.1/24', end_address: '10.9.9.9/25' }, field: 'end_address' },
    { body: { start_address: 'x', end_address: '10.9.9.9/24' }, field: 'start_address' },
  ],
  brief: ['family', 'start_address', 'end_address'],
  choices: ['status'],
  filters: [
    { query: () => 'family=6', expect: (o) => o.filter((x) => x.family.value === 6) },
    { query: (o) => `contains=${o[1].start_address}`, expect: (o) => [o[1]] },
    { query: () => 'status=reserved', expect: (o) => o.filter((x) => x.status.value === 'reserved') },
  ],
});

runModelContract('IP address', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ipAddress,
  path: '/api/ipam/ip-addresses/',
  schema: 'IPAddress',
  badPatch: { address: 'nope' },
  make: async (i) => ({
    address: i % 3 === 0 ? `2001:db8:aaaa::${i.toString(16)}/64` : `10.1.${octets(i)}/${i % 2 ? 24 : 16}`,
    vrf: i % 4 === 0 ? (await theVrf()).id : null,
    status: i % 5 === 0 ? 'reserved' : 'active',
    role: i % 2 ? 'loopback' : '',
    dns_name: `host${i}.example.com`,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', dns_name: 'patched.example.com', role: 'secondary' },
  invalid: [
    { body: { description: 'no address' }, field: 'address' },
    { body: { address: '0.0.0.0/0' }, field: 'address' },
    { body: { address: '10.250.0.1/24', status: 'slaac' }, field: 'status' },
    { body: { address: '10.250.0.2/24', dns_name: 'a b' }, field: 'dns_name' },
    { body: { address: '10.250.0.3/24', assigned_object_type: 'dcim.interface', assigned_object_id: 999999 }, field: 'assigned_object_id' },
  ],
  brief: ['family', 'address'],
  choices: ['status', 'role'],
  filters: [
    { query: () => 'family=4', expect: (o) => o.filter((x) => x.family.value === 4) },
    { query: () => 'mask_length=24', expect: (o) => o.filter((x) => x.address.endsWith('/24')) },
    { query: () => 'role=loopback', expect: (o) => o.filter((x) => x.role?.value === 'loopback') },
    { query: () => 'parent=10.0.0.0/8', expect: (o) => o.filter((x) => x.address.startsWith('10.')) },
  ],
});
