import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as ipam, ipamModels } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, virtualization, ipam }, {}, { template: true });
});
afterAll(() => stack?.stop());

/** Made once per file (a promise, so concurrent makes share it). */
const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
const made = async (service: string, path: string, body: Record<string, unknown>) => {
  const r = await stack.client(service).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'Vlan tenant', slug: 'vlan-tenant' }));
const theRir = once(() => made('ipam', '/api/ipam/rirs/', { name: 'Contract RIR', slug: 'contract-rir' }));
const theRole = once(() => made('ipam', '/api/ipam/roles/', { name: 'Contract role', slug: 'contract-role' }));
const theSite = once(() => made('dcim', '/api/dcim/sites/', { name: 'Vlan site', slug: 'vlan-site' }));
const theMachine = once(async () => {
  const type = await made('virtualization', '/api/virtualization/cluster-types/', { name: 'Vlan type', slug: 'vlan-type' });
  const cluster = await made('virtualization', '/api/virtualization/clusters/', { name: 'Vlan cluster', type: type.id });
  return made('virtualization', '/api/virtualization/virtual-machines/', { name: 'Vlan machine', cluster: cluster.id });
});
const theInterface = once(async () => made('virtualization', '/api/virtualization/interfaces/', { name: 'eth0', virtual_machine: (await theMachine()).id }));
const STATUS = ['active', 'reserved', 'deprecated'];

runModelContract('ASN', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.asn,
  path: '/api/ipam/asns/',
  schema: 'ASN',
  badPatch: { asn: 0 },
  make: async (i) => ({ asn: 4200000000 + i, rir: (await theRir()).id, tenant: i % 2 ? (await theTenant()).id : null, description: `d${i % 3}` }),
  patch: { description: 'patched', comments: 'c' },
  invalid: [
    { body: { asn: 65000 }, field: 'rir' },
    { body: { asn: 4294967296, rir: 1 }, field: 'asn' },
    { body: { rir: 1 }, field: 'asn' },
  ],
  brief: ['asn'],
  filters: [
    { query: (o) => `asn=${o[1].asn}`, expect: (o) => [o[1]] },
    { query: (o) => `asn__gte=${o[2].asn}`, expect: (o) => o.filter((x) => x.asn >= o[2].asn) },
    { query: () => 'rir=contract-rir', expect: (o) => o },
    { query: () => 'tenant=vlan-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: (o) => `q=${o[0].asn}`, expect: (o) => [o[0]] },
    { query: (o) => `q=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
  ],
});

runModelContract('ASN range', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.asnRange,
  path: '/api/ipam/asn-ranges/',
  schema: 'ASNRange',
  badPatch: { slug: 'a b' },
  make: async (i) => ({ name: `Range ${i}`, slug: `range-${i}`, rir: (await theRir()).id, start: 64512 + i * 10, end: 64512 + i * 10 + 9, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no rir', slug: 'no-rir', start: 1, end: 2 }, field: 'rir' },
    { body: { name: 'no start', slug: 'no-start', rir: 1, end: 2 }, field: 'start' },
    { body: { name: 'too far', slug: 'too-far', rir: 1, start: 1, end: 4294967296 }, field: 'end' },
  ],
  brief: ['name'],
  filters: [
    { query: (o) => `start=${o[1].start}`, expect: (o) => [o[1]] },
    { query: (o) => `end__lt=${o[2].end}`, expect: (o) => o.filter((x) => x.end < o[2].end) },
    { query: () => 'rir=contract-rir', expect: (o) => o },
    { query: (o) => `q=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
  ],
});

runModelContract('VLAN group', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.vlanGroup,
  path: '/api/ipam/vlan-groups/',
  schema: 'VLANGroup',
  badPatch: { min_vid: 0 },
  make: async (i) => ({
    name: `VLAN group ${i}`,
    slug: `vlan-group-${i}`,
    ...(i % 2 ? { scope_type: 'dcim.site', scope_id: (await theSite()).id } : {}),
    min_vid: 1 + (i % 10),
    max_vid: 4000,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', max_vid: 4094 },
  invalid: [
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: 'bad max', slug: 'bad-max', max_vid: 4095 }, field: 'max_vid' },
    { body: { name: 'reversed', slug: 'reversed', min_vid: 100, max_vid: 10 }, field: 'max_vid' },
    { body: { name: 'half scope', slug: 'half-scope', scope_type: 'dcim.site' }, field: '__all__' },
    { body: { name: 'bad scope', slug: 'bad-scope', scope_type: 'dcim.device', scope_id: 1 }, field: 'scope_type' },
  ],
  brief: ['name', 'slug', 'vlan_count'],
  filters: [
    { query: (o) => `slug=${o[1].slug}`, expect: (o) => [o[1]] },
    { query: () => 'scope_type=dcim.site', expect: (o) => o.filter((x) => x.scope_type === 'dcim.site') },
    { query: (o) => `site=${o.find((x) => x.scope)!.scope_id}`, expect: (o) => o.filter((x) => x.scope_type === 'dcim.site') },
    { query: () => 'min_vid__gt=5', expect: (o) => o.filter((x) => x.min_vid > 5) },
    { query: () => 'q=vlan group', expect: (o) => o },
  ],
});

runModelContract('VLAN', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.vlan,
  path: '/api/ipam/vlans/',
  schema: 'VLAN',
  badPatch: { vid: 4095 },
  make: async (i) => ({
    vid: 1 + (i % 4094),
    name: `VLAN ${i}`,
    status: STATUS[i % 3],
    tenant: i % 2 ? (await theTenant()).id : null,
    role: i % 3 ? (await theRole()).id : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', status: 2 },
  invalid: [
    { body: { name: 'no vid' }, field: 'vid' },
    { body: { vid: 10 }, field: 'name' },
    { body: { vid: 0, name: 'zero' }, field: 'vid' },
    { body: { vid: 10, name: 'bad status', status: 'broken' }, field: 'status' },
    { body: { vid: 10, name: 'x'.repeat(65) }, field: 'name' },
  ],
  brief: ['vid', 'name'],
  choices: ['status'],
  filters: [
    { query: (o) => `vid=${o[1].vid}`, expect: (o) => o.filter((x) => x.vid === o[1].vid) },
    { query: () => 'status=reserved', expect: (o) => o.filter((x) => x.status.value === 2) },
    { query: () => 'status=1', expect: (o) => o.filter((x) => x.status.value === 1) },
    { query: () => 'role=contract-role', expect: (o) => o.filter((x) => x.role) },
    { query: () => 'tenant=vlan-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: (o) => `q=${o[2].vid}`, expect: (o) => o.filter((x) => x.vid === o[2].vid || String(x.name).includes(String(o[2].vid)) || x.description.includes(String(o[2].vid))) },
  ],
});

runModelContract('FHRP group', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.fhrpGroup,
  path: '/api/ipam/fhrp-groups/',
  schema: 'FHRPGroup',
  badPatch: { group_id: 32768 },
  make: (i) => ({
    name: i % 2 ? `FHRP ${i}` : '',
    protocol: ['vrrp2', 'vrrp3', 'hsrp', 'carp'][i % 4],
    group_id: i,
    ...(i % 3 ? { auth_type: 'md5', auth_key: `key${i}` } : {}),
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', auth_type: 'plaintext' },
  invalid: [
    { body: { group_id: 1 }, field: 'protocol' },
    { body: { protocol: 'vrrp2' }, field: 'group_id' },
    { body: { protocol: 'bgp', group_id: 1 }, field: 'protocol' },
    { body: { protocol: 'vrrp2', group_id: 1, auth_type: 'sha' }, field: 'auth_type' },
  ],
  brief: ['protocol', 'group_id'],
  filters: [
    { query: () => 'protocol=hsrp', expect: (o) => o.filter((x) => x.protocol === 'hsrp') },
    { query: (o) => `group_id=${o[1].group_id}`, expect: (o) => [o[1]] },
    { query: () => 'auth_type=md5', expect: (o) => o.filter((x) => x.auth_type === 'md5') },
    { query: () => 'q=fhrp', expect: (o) => o.filter((x) => x.name) },
  ],
});

runModelContract('FHRP group assignment', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.fhrpGroupAssignment,
  path: '/api/ipam/fhrp-group-assignments/',
  schema: 'FHRPGroupAssignment',
  badPatch: { priority: 256 },
  make: async (i) => ({
    group: (await made('ipam', '/api/ipam/fhrp-groups/', { protocol: 'vrrp3', group_id: 1000 + i })).id,
    interface_type: 'virtualization.vminterface',
    interface_id: (await theInterface()).id,
    priority: i % 256,
  }),
  patch: { priority: 200 },
  invalid: [
    { body: { interface_type: 'virtualization.vminterface', interface_id: 1, priority: 1 }, field: 'group' },
    { body: { group: 1, interface_type: 'dcim.site', interface_id: 1, priority: 1 }, field: 'interface_type' },
    { body: { group: 1, interface_type: 'virtualization.vminterface', interface_id: 1, priority: 300 }, field: 'priority' },
  ],
  brief: ['group', 'interface_type', 'interface_id', 'priority'],
  filters: [
    { query: (o) => `group_id=${o[1].group.id}`, expect: (o) => [o[1]] },
    { query: () => 'interface_type=virtualization.vminterface', expect: (o) => o },
    { query: (o) => `priority=${o[2].priority}`, expect: (o) => o.filter((x) => x.priority === o[2].priority) },
    { query: (o) => `virtual_machine_id=${o[0].interface.virtual_machine.id}`, expect: (o) => o },
    { query: () => 'virtual_machine=Vlan machine', expect: (o) => o },
  ],
});

runModelContract('service template', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.serviceTemplate,
  path: '/api/ipam/service-templates/',
  schema: 'ServiceTemplate',
  badPatch: { ports: [70000] },
  make: (i) => ({ name: `Template ${i}`, protocol: ['tcp', 'udp', 'sctp'][i % 3], ports: [i, i + 1], description: `d${i % 3}` }),
  patch: { description: 'patched', ports: [22] },
  invalid: [
    { body: { protocol: 'tcp', ports: [22] }, field: 'name' },
    { body: { name: 'no ports', protocol: 'tcp' }, field: 'ports' },
    { body: { name: 'bad protocol', protocol: 'icmp', ports: [1] }, field: 'protocol' },
    { body: { name: 'not a list', protocol: 'tcp', ports: 'x' }, field: 'ports' },
  ],
  brief: ['name', 'protocol', 'ports'],
  choices: ['protocol'],
  filters: [
    { query: () => 'protocol=udp', expect: (o) => o.filter((x) => x.protocol.value === 'udp') },
    { query: (o) => `port=${o[1].ports[1]}`, expect: (o) => o.filter((x) => x.ports.includes(o[1].ports[1])) },
    { query: () => 'q=template', expect: (o) => o },
  ],
});

runModelContract('service', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.service,
  path: '/api/ipam/services/',
  schema: 'Service',
  badPatch: { ports: [0] },
  make: async (i) => ({ virtual_machine: (await theMachine()).id, name: `Service ${i}`, protocol: ['tcp', 'udp'][i % 2], ports: [1000 + i], description: `d${i % 3}` }),
  patch: { description: 'patched', ports: [22, 80, 81, 82] },
  invalid: [
    { body: { name: 'orphan', protocol: 'tcp', ports: [22] }, field: '__all__' },
    { body: { virtual_machine: 1, protocol: 'tcp', ports: [22] }, field: 'name' },
    { body: { virtual_machine: 999999, name: 'gone', protocol: 'tcp', ports: [22] }, field: 'virtual_machine' },
  ],
  brief: ['name', 'protocol', 'ports'],
  choices: ['protocol'],
  // exactly one parent: a device or a machine; both are covered by test/vlans.test.ts
  crossServiceExclude: ['device', 'virtual_machine'],
  filters: [
    { query: () => 'protocol=tcp', expect: (o) => o.filter((x) => x.protocol.value === 'tcp') },
    { query: (o) => `port=${o[1].ports[0]}`, expect: (o) => [o[1]] },
    { query: (o) => `virtual_machine_id=${o[0].virtual_machine.id}`, expect: (o) => o },
    { query: () => 'virtual_machine=Vlan machine', expect: (o) => o },
    { query: () => 'q=service', expect: (o) => o },
  ],
});
