import { runModelContract, type Stack } from '@inventory/testkit';
import { virtualizationModels } from '@inventory/virtualization';
import { bootVirtualization } from './stack';

let stack: Stack;
beforeAll(async () => {
  stack = await bootVirtualization();
});
afterAll(() => stack?.stop());

const tooLong = 'x'.repeat(101);

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
const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'Virtualization tenant', slug: 'virtualization-tenant' }));
const theSite = once(() => made('dcim', '/api/dcim/sites/', { name: 'Virtualization site', slug: 'virtualization-site' }));
const theRole = once(() => made('dcim', '/api/dcim/device-roles/', { name: 'VM role', slug: 'vm-role', vm_role: true }));
const thePlatform = once(() => made('dcim', '/api/dcim/platforms/', { name: 'VM platform', slug: 'vm-platform' }));
const theType = once(() => made('virtualization', '/api/virtualization/cluster-types/', { name: 'Contract type', slug: 'contract-type' }));
const theGroup = once(() => made('virtualization', '/api/virtualization/cluster-groups/', { name: 'Contract group', slug: 'contract-group' }));
/** The cluster every contract machine lives in (in the site, so machines may name either). */
const theCluster = once(async () =>
  made('virtualization', '/api/virtualization/clusters/', { name: 'Contract cluster', type: (await theType()).id, site: (await theSite()).id }),
);
/** The machine every contract interface and disk belongs to. */
const theMachine = once(async () => made('virtualization', '/api/virtualization/virtual-machines/', { name: 'Component host', cluster: (await theCluster()).id }));

/** ipam (addresses, VLANs, VRFs) is served by no service yet: its references have no targets to make. */
const unserved = ['ipam.ipaddress', 'ipam.vlan', 'ipam.vrf'];

runModelContract('cluster type', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.clusterType,
  path: '/api/virtualization/cluster-types/',
  schema: 'ClusterType',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Cluster type ${i}`, slug: `cluster-type-${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'cluster_count'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=cluster-type', expect: (o) => o },
  ],
});

runModelContract('cluster group', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.clusterGroup,
  path: '/api/virtualization/cluster-groups/',
  schema: 'ClusterGroup',
  badPatch: { name: '' },
  make: (i) => ({ name: `Cluster group ${i}`, slug: `cluster-group-${i}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'bad slug', slug: 'a b' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'cluster_count'],
  filters: [{ query: (o) => `slug=${o[2].slug}`, expect: (o) => [o[2]] }, { query: () => 'q=cluster group', expect: (o) => o }],
});

runModelContract('cluster', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.cluster,
  path: '/api/virtualization/clusters/',
  schema: 'Cluster',
  badPatch: { status: 'retired' },
  make: async (i) => ({
    name: `Cluster ${i}`,
    type: (await theType()).id,
    group: i % 2 ? (await theGroup()).id : null,
    status: i % 2 ? 'active' : 'planned',
    tenant: i % 3 ? (await theTenant()).id : null,
    // every contract cluster is in the site: machines (in the site) may move between them
    site: (await theSite()).id,
  }),
  patch: { description: 'patched', status: 'offline', comments: 'more' },
  invalid: [
    { body: { name: 'no type' }, field: 'type' },
    { body: { name: 'bad type', type: 999999 }, field: 'type' },
    { body: { name: 'bad status', type: 999999, status: 'retired' }, field: 'status' },
    { body: { name: tooLong, type: 999999 }, field: 'name' },
  ],
  brief: ['name', 'virtualmachine_count'],
  choices: ['status'],
  filters: [
    { query: (o) => `status=${o[1].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[1].status.value) },
    { query: () => 'group=contract-group', expect: (o) => o.filter((x) => x.group) },
    { query: () => 'type=contract-type', expect: (o) => o },
    { query: () => 'site=virtualization-site', expect: (o) => o },
    { query: () => 'tenant_id=null', expect: (o) => o.filter((x) => !x.tenant) },
    { query: () => 'q=cluster', expect: (o) => o },
  ],
});

runModelContract('virtual machine', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.virtualMachine,
  path: '/api/virtualization/virtual-machines/',
  schema: 'VirtualMachine',
  badPatch: { vcpus: 0 },
  make: async (i) => ({
    name: `vm${i}`,
    // in the site, in no cluster: the cross-service pass gives machines other sites (a cluster would refuse them)
    site: (await theSite()).id,
    status: i % 2 ? 'active' : 'staged',
    role: i % 2 ? (await theRole()).id : null,
    platform: i % 3 ? (await thePlatform()).id : null,
    tenant: i % 2 ? (await theTenant()).id : null,
    vcpus: i % 2 ? 2.5 : null,
    memory: i % 2 ? 1024 * (i % 8) : null,
    disk: i % 4 ? 10 * i : null,
    local_context_data: i % 2 ? { ntp: `10.0.0.${i % 250}` } : null,
  }),
  // not local_context_data: the rendered config_context (merged from it) would change with it
  patch: { description: 'patched', status: 'failed', comments: 'more', memory: 4096 },
  invalid: [
    { body: { name: 'nowhere' }, field: 'cluster' },
    { body: { name: 'bad site', site: 999999 }, field: 'site' },
    { body: { name: 'bad cluster', cluster: 999999 }, field: 'cluster' },
    { body: { name: 'bad status', cluster: 999999, status: 'running' }, field: 'status' },
    { body: { name: 'bad context', cluster: 999999, local_context_data: [1, 2] }, field: 'local_context_data' },
    { body: { name: 'x'.repeat(65), cluster: 999999 }, field: 'name' },
    { body: { name: 'bad memory', cluster: 999999, memory: -1 }, field: 'memory' },
  ],
  brief: ['name'],
  choices: ['status'],
  targets: {
    'dcim.devicerole': (i) => ({ name: `Xref role ${i}`, slug: `xref-role-${i}`, vm_role: true }),
    'extras.configtemplate': (i) => ({ name: `Xref template ${i}`, template_code: 'hostname {{ virtualmachine.name }}' }),
  },
  unserved,
  // a host device must be one of the machine's cluster's devices (virtualization.test.ts)
  crossServiceExclude: ['device'],
  filters: [
    { query: (o) => `status=${o[1].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[1].status.value) },
    { query: (o) => `name=${o[2].name.toUpperCase()}`, expect: (o) => [o[2]] },
    { query: () => 'cluster_id=null', expect: (o) => o },
    { query: () => 'site=virtualization-site', expect: (o) => o },
    { query: () => 'role=vm-role', expect: (o) => o.filter((x) => x.role) },
    { query: () => 'platform_id=null', expect: (o) => o.filter((x) => !x.platform) },
    { query: () => 'local_context_data=true', expect: (o) => o.filter((x) => x.local_context_data) },
    { query: () => 'has_primary_ip=false', expect: (o) => o },
    { query: (o) => `memory__gte=${o[1].memory}`, expect: (o) => o.filter((x) => x.memory !== null && x.memory >= o[1].memory) },
    { query: () => 'q=vm', expect: (o) => o },
  ],
});

runModelContract('VM interface', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.vmInterface,
  path: '/api/virtualization/interfaces/',
  schema: 'VMInterface',
  badPatch: { mtu: 0 },
  make: async (i) => ({
    virtual_machine: (await theMachine()).id,
    name: `eth${i}`,
    enabled: i % 4 !== 0,
    mtu: i % 2 ? 1500 : null,
    mac_address: i % 2 ? `00:1a:2b:3c:${(Math.floor(i / 256) % 256).toString(16).padStart(2, '0')}:${(i % 256).toString(16).padStart(2, '0')}` : null,
    mode: i % 2 ? 'access' : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', mode: 'tagged-all', mtu: 9000 },
  invalid: [
    { body: { name: 'no machine' }, field: 'virtual_machine' },
    { body: { virtual_machine: 999999, name: 'bad machine' }, field: 'virtual_machine' },
    { body: { virtual_machine: 999999, name: 'bad mtu', mtu: 65537 }, field: 'mtu' },
    { body: { virtual_machine: 999999, name: 'bad mode', mode: 'trunk' }, field: 'mode' },
    { body: { virtual_machine: 999999 }, field: 'name' },
  ],
  brief: ['virtual_machine', 'name'],
  choices: ['mode'],
  unserved,
  filters: [
    { query: (o) => `virtual_machine_id=${o[0].virtual_machine.id}`, expect: (o) => o },
    { query: () => 'virtual_machine=Component host', expect: (o) => o },
    { query: () => 'cluster=Contract cluster', expect: (o) => o },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
    { query: (o) => `mac_address=${o[1].mac_address.toLowerCase()}`, expect: (o) => [o[1]] },
    { query: () => 'mode=access', expect: (o) => o.filter((x) => x.mode) },
    { query: () => 'mtu__gte=1500', expect: (o) => o.filter((x) => x.mtu) },
    { query: () => 'q=eth', expect: (o) => o },
  ],
});

runModelContract('virtual disk', {
  stack: () => stack,
  service: 'virtualization',
  model: virtualizationModels.virtualDisk,
  path: '/api/virtualization/virtual-disks/',
  schema: 'VirtualDisk',
  badPatch: { size: -1 },
  make: async (i) => ({ virtual_machine: (await theMachine()).id, name: `disk${i}`, size: (i % 7) * 10, description: `d${i % 3}` }),
  patch: { description: 'patched', size: 500 },
  invalid: [
    { body: { name: 'no machine', size: 1 }, field: 'virtual_machine' },
    { body: { virtual_machine: 999999, name: 'no size' }, field: 'size' },
    { body: { virtual_machine: 999999, size: 1 }, field: 'name' },
    { body: { virtual_machine: 999999, name: 'bad machine', size: 1 }, field: 'virtual_machine' },
  ],
  brief: ['virtual_machine', 'name', 'size'],
  filters: [
    { query: (o) => `virtual_machine=Component host&size__gte=${o[2].size}`, expect: (o) => o.filter((x) => x.size >= o[2].size) },
    { query: () => 'q=disk', expect: (o) => o },
  ],
});
