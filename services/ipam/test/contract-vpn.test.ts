import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as ipam, ipamModels } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

/** NetBox 3.7's vpn app, served by ipam under /api/vpn/ (decision 028). */
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
let serial = 0;
const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'VPN tenant', slug: 'vpn-tenant' }));
const theMachine = once(async () => {
  const type = await made('virtualization', '/api/virtualization/cluster-types/', { name: 'VPN type', slug: 'vpn-type' });
  const cluster = await made('virtualization', '/api/virtualization/clusters/', { name: 'VPN cluster', type: type.id });
  return made('virtualization', '/api/virtualization/virtual-machines/', { name: 'VPN machine', cluster: cluster.id });
});
/** A new VM interface (tunnel and L2VPN terminations are one per object). */
const anInterface = async () => made('virtualization', '/api/virtualization/interfaces/', { name: `tun${++serial}`, virtual_machine: (await theMachine()).id });
const theIkeProposal = once(() =>
  made('ipam', '/api/vpn/ike-proposals/', { name: 'Base IKE proposal', authentication_method: 'preshared-keys', encryption_algorithm: 'aes-128-cbc', group: 14 }),
);
const theIpsecProposal = once(() => made('ipam', '/api/vpn/ipsec-proposals/', { name: 'Base IPSec proposal', encryption_algorithm: 'aes-256-gcm' }));
const theIkePolicy = once(async () => made('ipam', '/api/vpn/ike-policies/', { name: 'Base IKE policy', version: 2, proposals: [(await theIkeProposal()).id] }));
const theIpsecPolicy = once(async () => made('ipam', '/api/vpn/ipsec-policies/', { name: 'Base IPSec policy', proposals: [(await theIpsecProposal()).id], pfs_group: 19 }));
const theProfile = once(async () =>
  made('ipam', '/api/vpn/ipsec-profiles/', { name: 'Base profile', mode: 'esp', ike_policy: (await theIkePolicy()).id, ipsec_policy: (await theIpsecPolicy()).id }),
);
const theGroup = once(() => made('ipam', '/api/vpn/tunnel-groups/', { name: 'Base group', slug: 'base-group' }));
const theTunnel = once(async () => made('ipam', '/api/vpn/tunnels/', { name: 'Base tunnel', encapsulation: 'gre' }));
const theL2vpn = once(() => made('ipam', '/api/vpn/l2vpns/', { name: 'Base L2VPN', slug: 'base-l2vpn', type: 'vxlan', identifier: 5000 }));
const theTarget = once(() => made('ipam', '/api/ipam/route-targets/', { name: '65000:100' }));
const ENCRYPTION = ['aes-128-cbc', 'aes-256-gcm', '3des-cbc'];
const AUTH = ['hmac-sha1', 'hmac-sha256', ''];

runModelContract('tunnel group', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.tunnelGroup,
  path: '/api/vpn/tunnel-groups/',
  schema: 'TunnelGroup',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Tunnel group ${i}`, slug: `tunnel-group-${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: 'no slug' }, field: 'slug' },
  ],
  brief: ['name', 'slug', 'tunnel_count'],
  filters: [
    { query: (o) => `slug=${o[1].slug}`, expect: (o) => [o[1]] },
    { query: () => 'q=d1', expect: (o) => o.filter((x) => x.description === 'd1') },
  ],
});

runModelContract('tunnel', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.tunnel,
  path: '/api/vpn/tunnels/',
  schema: 'Tunnel',
  badPatch: { status: 'broken' },
  make: async (i) => ({
    name: `Tunnel ${i}`,
    status: ['planned', 'active', 'disabled'][i % 3],
    encapsulation: ['gre', 'ip-ip', 'ipsec-tunnel', 'ipsec-transport'][i % 4],
    group: i % 2 ? (await theGroup()).id : null,
    ipsec_profile: i % 3 === 0 ? (await theProfile()).id : null,
    tenant: i % 2 ? (await theTenant()).id : null,
    tunnel_id: i % 5 ? 1000 + i : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', status: 'disabled', comments: 'c' },
  invalid: [
    { body: { encapsulation: 'gre' }, field: 'name' },
    { body: { name: 'no encapsulation' }, field: 'encapsulation' },
    { body: { name: 'bad encapsulation', encapsulation: 'vxlan' }, field: 'encapsulation' },
    { body: { name: 'bad id', encapsulation: 'gre', tunnel_id: -1 }, field: 'tunnel_id' },
  ],
  brief: ['name'],
  choices: ['status', 'encapsulation'],
  filters: [
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'encapsulation=gre&encapsulation=ip-ip', expect: (o) => o.filter((x) => ['gre', 'ip-ip'].includes(x.encapsulation.value)) },
    { query: () => 'group=base-group', expect: (o) => o.filter((x) => x.group) },
    { query: () => 'ipsec_profile=Base profile', expect: (o) => o.filter((x) => x.ipsec_profile) },
    { query: () => 'tenant=vpn-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: (o) => `tunnel_id=${o[1].tunnel_id}`, expect: (o) => [o[1]] },
    { query: () => 'q=d2', expect: (o) => o.filter((x) => x.description === 'd2') },
  ],
});

runModelContract('tunnel termination', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.tunnelTermination,
  path: '/api/vpn/tunnel-terminations/',
  schema: 'TunnelTermination',
  badPatch: { role: 'leader' },
  make: async (i) => ({
    tunnel: (await theTunnel()).id,
    role: ['peer', 'hub', 'spoke'][i % 3],
    termination_type: 'virtualization.vminterface',
    termination_id: (await anInterface()).id,
  }),
  patch: { role: 'hub' },
  invalid: [
    { body: { role: 'peer', termination_type: 'virtualization.vminterface', termination_id: 1 }, field: 'tunnel' },
    { body: { tunnel: 1, termination_type: 'dcim.site', termination_id: 1 }, field: 'termination_type' },
    { body: { tunnel: 1, termination_type: 'virtualization.vminterface', termination_id: 999999 }, field: 'termination_id' },
  ],
  brief: [],
  choices: ['role'],
  volume: 30,
  filters: [
    { query: () => 'role=hub', expect: (o) => o.filter((x) => x.role.value === 'hub') },
    { query: () => 'tunnel=Base tunnel', expect: (o) => o },
    { query: () => 'termination_type=virtualization.vminterface', expect: (o) => o },
    { query: (o) => `vminterface_id=${o[1].termination_id}`, expect: (o) => [o[1]] },
    { query: (o) => `vminterface=${o[2].termination.name}`, expect: (o) => [o[2]] },
    // NetBox's `q` of tunnel terminations searches nothing
    { query: () => 'q=nothing', expect: (o) => o },
  ],
});

runModelContract('IKE proposal', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ikeProposal,
  path: '/api/vpn/ike-proposals/',
  schema: 'IKEProposal',
  badPatch: { group: 3 },
  make: (i) => ({
    name: `IKE proposal ${i}`,
    authentication_method: ['preshared-keys', 'certificates', 'rsa-signatures'][i % 3],
    encryption_algorithm: ENCRYPTION[i % 3],
    authentication_algorithm: AUTH[i % 3],
    group: [2, 14, 19, 20][i % 4],
    sa_lifetime: i % 2 ? 3600 + i : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', group: 21, authentication_algorithm: 'hmac-sha512' },
  invalid: [
    { body: { authentication_method: 'certificates', encryption_algorithm: 'des-cbc', group: 1 }, field: 'name' },
    { body: { name: 'no group', authentication_method: 'certificates', encryption_algorithm: 'des-cbc' }, field: 'group' },
    { body: { name: 'bad method', authentication_method: 'password', encryption_algorithm: 'des-cbc', group: 1 }, field: 'authentication_method' },
    { body: { name: 'bad group', authentication_method: 'certificates', encryption_algorithm: 'des-cbc', group: 3 }, field: 'group' },
  ],
  brief: ['name'],
  choices: ['authentication_method', 'encryption_algorithm', 'authentication_algorithm', 'group'],
  filters: [
    { query: () => 'group=14', expect: (o) => o.filter((x) => x.group.value === 14) },
    { query: () => 'encryption_algorithm=3des-cbc', expect: (o) => o.filter((x) => x.encryption_algorithm.value === '3des-cbc') },
    { query: () => 'authentication_algorithm=hmac-sha1', expect: (o) => o.filter((x) => x.authentication_algorithm?.value === 'hmac-sha1') },
    { query: () => 'authentication_method=certificates', expect: (o) => o.filter((x) => x.authentication_method.value === 'certificates') },
    { query: (o) => `sa_lifetime=${o[1].sa_lifetime}`, expect: (o) => [o[1]] },
    { query: () => 'q=d0', expect: (o) => o.filter((x) => x.description === 'd0') },
  ],
});

runModelContract('IKE policy', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ikePolicy,
  path: '/api/vpn/ike-policies/',
  schema: 'IKEPolicy',
  badPatch: { version: 3 },
  make: async (i) => ({
    name: `IKE policy ${i}`,
    version: i % 2 ? 1 : 2,
    mode: i % 2 ? ['main', 'aggressive'][i % 4 === 1 ? 0 : 1] : '',
    proposals: i % 3 ? [(await theIkeProposal()).id] : [],
    preshared_key: `key${i}`,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', preshared_key: 'secret' },
  invalid: [
    { body: { version: 2 }, field: 'name' },
    { body: { name: 'v1 without mode', version: 1 }, field: '__all__' },
    { body: { name: 'v2 with mode', version: 2, mode: 'main' }, field: '__all__' },
    { body: { name: 'bad mode', version: 1, mode: 'quick' }, field: 'mode' },
  ],
  brief: ['name'],
  choices: ['version', 'mode'],
  filters: [
    { query: () => 'version=1', expect: (o) => o.filter((x) => x.version.value === 1) },
    { query: () => 'mode=main', expect: (o) => o.filter((x) => x.mode?.value === 'main') },
    { query: () => 'proposal=Base IKE proposal', expect: (o) => o.filter((x) => x.proposals.length) },
    { query: (o) => `proposal_id=${o.find((x) => x.proposals.length)!.proposals[0].id}`, expect: (o) => o.filter((x) => x.proposals.length) },
    { query: (o) => `preshared_key=${o[2].preshared_key}`, expect: (o) => [o[2]] },
    { query: () => 'proposal__ic=base ike', expect: (o) => o.filter((x) => x.proposals.length) },
    { query: () => 'proposal__nie=base ike proposal', expect: (o) => o.filter((x) => !x.proposals.length) },
    { query: () => 'proposal_id__empty=true', expect: (o) => o.filter((x) => !x.proposals.length) },
    { query: (o) => `proposal_id__gte=${o.find((x) => x.proposals.length)!.proposals[0].id}`, expect: (o) => o.filter((x) => x.proposals.length) },
  ],
});

runModelContract('IPSec proposal', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ipsecProposal,
  path: '/api/vpn/ipsec-proposals/',
  schema: 'IPSecProposal',
  badPatch: { sa_lifetime_data: -1 },
  make: (i) => ({
    name: `IPSec proposal ${i}`,
    encryption_algorithm: i % 4 === 3 ? '' : ENCRYPTION[i % 3],
    authentication_algorithm: i % 4 === 3 ? 'hmac-md5' : AUTH[i % 3],
    sa_lifetime_seconds: i % 2 ? 28800 + i : null,
    sa_lifetime_data: i % 3 ? 100000 + i : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', sa_lifetime_seconds: 3600 },
  invalid: [
    { body: { encryption_algorithm: 'des-cbc' }, field: 'name' },
    { body: { name: 'neither' }, field: '__all__' },
    { body: { name: 'bad algorithm', encryption_algorithm: 'rot13' }, field: 'encryption_algorithm' },
  ],
  brief: ['name'],
  choices: ['encryption_algorithm', 'authentication_algorithm'],
  filters: [
    { query: () => 'encryption_algorithm=aes-256-gcm', expect: (o) => o.filter((x) => x.encryption_algorithm?.value === 'aes-256-gcm') },
    { query: () => 'authentication_algorithm=hmac-md5', expect: (o) => o.filter((x) => x.authentication_algorithm?.value === 'hmac-md5') },
    { query: (o) => `sa_lifetime_seconds=${o[1].sa_lifetime_seconds}`, expect: (o) => [o[1]] },
    { query: () => 'sa_lifetime_data__gte=100000', expect: (o) => o.filter((x) => x.sa_lifetime_data !== null) },
  ],
});

runModelContract('IPSec policy', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ipsecPolicy,
  path: '/api/vpn/ipsec-policies/',
  schema: 'IPSecPolicy',
  badPatch: { pfs_group: 4 },
  make: async (i) => ({
    name: `IPSec policy ${i}`,
    proposals: i % 2 ? [(await theIpsecProposal()).id] : [],
    pfs_group: i % 3 ? [5, 14][i % 2] : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', pfs_group: 34 },
  invalid: [
    { body: { pfs_group: 14 }, field: 'name' },
    { body: { name: 'bad group', pfs_group: 99 }, field: 'pfs_group' },
  ],
  brief: ['name'],
  choices: ['pfs_group'],
  filters: [
    { query: () => 'pfs_group=5', expect: (o) => o.filter((x) => x.pfs_group?.value === 5) },
    { query: () => 'proposal=Base IPSec proposal', expect: (o) => o.filter((x) => x.proposals.length) },
    { query: () => 'proposal__n=Base IPSec proposal', expect: (o) => o.filter((x) => !x.proposals.length) },
    { query: () => 'proposal_id__empty=false', expect: (o) => o.filter((x) => x.proposals.length) },
    { query: () => 'q=d1', expect: (o) => o.filter((x) => x.description === 'd1') },
  ],
});

runModelContract('IPSec profile', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.ipsecProfile,
  path: '/api/vpn/ipsec-profiles/',
  schema: 'IPSecProfile',
  badPatch: { mode: 'gre' },
  make: async (i) => ({
    name: `IPSec profile ${i}`,
    mode: i % 2 ? 'ah' : 'esp',
    ike_policy: (await theIkePolicy()).id,
    ipsec_policy: (await theIpsecPolicy()).id,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', mode: 'ah' },
  invalid: [
    { body: { mode: 'esp', ike_policy: 1, ipsec_policy: 1 }, field: 'name' },
    { body: { name: 'no ike', mode: 'esp', ipsec_policy: 1 }, field: 'ike_policy' },
    { body: { name: 'no mode', ike_policy: 1, ipsec_policy: 1 }, field: 'mode' },
  ],
  brief: ['name'],
  choices: ['mode'],
  filters: [
    { query: () => 'mode=ah', expect: (o) => o.filter((x) => x.mode.value === 'ah') },
    { query: () => 'ike_policy=Base IKE policy', expect: (o) => o },
    { query: (o) => `ipsec_policy_id=${o[0].ipsec_policy.id}`, expect: (o) => o },
  ],
});

runModelContract('L2VPN', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.l2vpn,
  path: '/api/vpn/l2vpns/',
  schema: 'L2VPN',
  badPatch: { type: 'mpls' },
  make: async (i) => ({
    name: `L2VPN ${i}`,
    slug: `l2vpn-${i}`,
    type: ['vxlan', 'vpls', 'epl', 'mpls-evpn'][i % 4],
    identifier: i % 2 ? 10000 + i : null,
    import_targets: i % 3 ? [(await theTarget()).id] : [],
    export_targets: i % 3 === 1 ? [(await theTarget()).id] : [],
    tenant: i % 2 ? (await theTenant()).id : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', type: 'evpl' },
  invalid: [
    { body: { slug: 'no-name', type: 'vxlan' }, field: 'name' },
    { body: { name: 'no type', slug: 'no-type' }, field: 'type' },
    { body: { name: 'bad slug', slug: 'a b', type: 'vxlan' }, field: 'slug' },
  ],
  brief: ['identifier', 'name', 'slug', 'type'],
  choices: ['type'],
  filters: [
    { query: () => 'type=vpls', expect: (o) => o.filter((x) => x.type.value === 'vpls') },
    { query: (o) => `identifier=${o[1].identifier}`, expect: (o) => [o[1]] },
    { query: () => 'import_target=65000:100', expect: (o) => o.filter((x) => x.import_targets.length) },
    { query: (o) => `export_target_id=${o.find((x) => x.export_targets.length)!.export_targets[0].id}`, expect: (o) => o.filter((x) => x.export_targets.length) },
    { query: () => 'tenant=vpn-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: (o) => `q=${o[1].identifier}`, expect: (o) => o.filter((x) => x.identifier === o[1].identifier || String(x.name).includes(String(o[1].identifier))) },
  ],
});

runModelContract('L2VPN termination', {
  stack: () => stack,
  service: 'ipam',
  model: ipamModels.l2vpnTermination,
  path: '/api/vpn/l2vpn-terminations/',
  schema: 'L2VPNTermination',
  badPatch: { assigned_object_type: 'dcim.site' },
  make: async (i) => {
    const n = ++serial;
    if (i % 2) return { l2vpn: (await theL2vpn()).id, assigned_object_type: 'virtualization.vminterface', assigned_object_id: (await anInterface()).id };
    const vlan = await made('ipam', '/api/ipam/vlans/', { vid: 1 + (n % 4000), name: `L2 VLAN ${n}` });
    return { l2vpn: (await theL2vpn()).id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id };
  },
  patch: { custom_fields: {} },
  invalid: [
    { body: { assigned_object_type: 'ipam.vlan', assigned_object_id: 1 }, field: 'l2vpn' },
    { body: { l2vpn: 1, assigned_object_type: 'dcim.site', assigned_object_id: 1 }, field: 'assigned_object_type' },
    { body: { l2vpn: 1, assigned_object_type: 'ipam.vlan', assigned_object_id: 999999 }, field: 'assigned_object_id' },
  ],
  brief: ['l2vpn'],
  volume: 30,
  filters: [
    { query: () => 'l2vpn=base-l2vpn', expect: (o) => o },
    { query: () => 'assigned_object_type=ipam.vlan', expect: (o) => o.filter((x) => x.assigned_object_type === 'ipam.vlan') },
    { query: (o) => `vlan_id=${o[0].assigned_object_id}`, expect: (o) => [o[0]] },
    { query: (o) => `vlan_vid=${o[0].assigned_object.vid}`, expect: (o) => o.filter((x) => x.assigned_object_type === 'ipam.vlan' && x.assigned_object.vid === o[0].assigned_object.vid) },
    { query: (o) => `vminterface_id=${o[1].assigned_object_id}`, expect: (o) => [o[1]] },
    { query: () => 'virtual_machine=VPN machine', expect: (o) => o.filter((x) => x.assigned_object_type === 'virtualization.vminterface') },
    { query: () => 'q=base', expect: (o) => o },
  ],
});
