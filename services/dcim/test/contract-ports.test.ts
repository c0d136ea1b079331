import { runModelContract } from '@inventory/testkit';
import { dcimModels } from '@inventory/dcim';
import { stack, bootCablingStack, made, device, componentInvalid, componentFilters, brief } from './cabling-fixtures';

/** The contract over interfaces, rear ports and front ports. */
bootCablingStack();

runModelContract('interface', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.iface,
  path: '/api/dcim/interfaces/',
  schema: 'Interface',
  badPatch: { type: 'ethernet' },
  make: async (i) => ({
    ...(await device()),
    name: `eth${i}`,
    type: i % 2 ? '1000base-t' : '10gbase-x-sfpp',
    enabled: i % 4 !== 0,
    mgmt_only: i % 5 === 0,
    mtu: i % 3 ? 1500 + i : null,
    speed: i % 2 ? 1000000 : null,
    duplex: i % 2 ? 'full' : null,
    mac_address: i % 2 ? `00:00:00:00:${String(Math.floor(i / 256) % 256).padStart(2, '0')}:${(i % 256).toString(16).padStart(2, '0')}` : null,
    mode: i % 3 ? 'access' : null,
    poe_mode: i % 2 ? 'pse' : null,
    poe_type: i % 2 ? 'type2-ieee802.3at' : null,
    mark_connected: i % 7 === 0,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', mgmt_only: true, mtu: 9000 },
  invalid: [
    { body: { name: 'no device', type: 'virtual' }, field: 'device' },
    { body: { device: 999999, name: 'bad device', type: 'virtual' }, field: 'device' },
    { body: { device: 999999, name: 'no type' }, field: 'type' },
    { body: { device: 999999, name: 'bad mtu', type: 'virtual', mtu: 70000 }, field: 'mtu' },
  ],
  brief: ['device', 'name', 'cable', 'connection_status', '_occupied'],
  // untagged_vlan, tagged_vlans and vrf are ipam's, which this repository does not serve yet
  unserved: ['ipam.vlan', 'ipam.vrf'],
  choices: ['type', 'duplex', 'mode', 'poe_mode', 'poe_type', 'rf_role', 'rf_channel'],
  filters: [
    ...componentFilters,
    { query: () => 'type=1000base-t', expect: (o) => o.filter((x) => x.type.value === '1000base-t') },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
    { query: () => 'kind=physical', expect: (o) => o },
    { query: () => 'mode=access', expect: (o) => o.filter((x) => x.mode) },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
  ],
});

runModelContract('rear port', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.rearPort,
  path: '/api/dcim/rear-ports/',
  schema: 'RearPort',
  badPatch: { positions: 1025 },
  make: async (i) => ({ ...(await device()), name: `Rear ${i}`, type: i % 2 ? '8p8c' : 'lc', ...(i % 2 ? { color: 'aa1409' } : {}), positions: (i % 8) + 1 }),
  patch: { description: 'patched', positions: 12 },
  invalid: [...componentInvalid.slice(1), { body: { device: 999999, name: 'no type' }, field: 'type' }],
  brief,
  choices: ['type'],
  filters: [...componentFilters, { query: (o) => `positions=${o[2].positions}`, expect: (o) => o.filter((x) => x.positions === o[2].positions) }],
});

/** A rear port of its own for each front port (the filter pass moves positions one object at a time). */
let rears = 0;
const rearPort = async () => made('/api/dcim/rear-ports/', { ...(await device()), name: `Front's rear ${++rears}`, type: 'lc', positions: 1024 });

runModelContract('front port', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.frontPort,
  path: '/api/dcim/front-ports/',
  schema: 'FrontPort',
  badPatch: { rear_port_position: 0 },
  make: async (i) => ({ ...(await device()), name: `Front ${i}`, type: i % 2 ? 'lc' : 'sc', rear_port: (await rearPort()).id, rear_port_position: (i % 1000) + 1 }),
  patch: { description: 'patched', color: '00ff00' },
  invalid: [
    { body: { device: 999999, name: 'no rear', type: 'lc' }, field: 'rear_port' },
    { body: { device: 999999, name: 'bad rear', type: 'lc', rear_port: 999999 }, field: 'rear_port' },
    { body: { device: 999999, name: 'no type', rear_port: 999999 }, field: 'type' },
  ],
  brief,
  choices: ['type'],
  filters: [{ query: () => 'type=lc', expect: (o) => o.filter((x) => x.type.value === 'lc') }, { query: () => 'q=front', expect: (o) => o }],
});

