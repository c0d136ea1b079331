import { runModelContract } from '@inventory/testkit';
import { dcimModels } from '@inventory/dcim';
import { stack, bootCablingStack, once, made, theSite, newDevice } from './cabling-fixtures';

/** The contract over power panels, power feeds and cables. */
bootCablingStack();

runModelContract('power panel', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerPanel,
  path: '/api/dcim/power-panels/',
  schema: 'PowerPanel',
  badPatch: { name: '' },
  make: async (i) => ({ site: (await theSite()).id, name: `Panel ${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched', comments: 'more' },
  invalid: [
    { body: { name: 'no site' }, field: 'site' },
    { body: { site: 999999, name: 'bad site' }, field: 'site' },
    { body: { site: 999999 }, field: 'name' },
  ],
  brief: ['name', 'powerfeed_count'],
  filters: [
    { query: () => 'site=cabling-site', expect: (o) => o },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=panel', expect: (o) => o },
  ],
});

const thePanel = once(async () => made('/api/dcim/power-panels/', { site: (await theSite()).id, name: 'Feeds panel' }));

runModelContract('power feed', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerFeed,
  path: '/api/dcim/power-feeds/',
  schema: 'PowerFeed',
  badPatch: { max_utilization: 101 },
  make: async (i) => ({
    power_panel: (await thePanel()).id,
    name: `Feed ${i}`,
    status: i % 2 ? 'active' : 'planned',
    type: i % 3 ? 'primary' : 'redundant',
    supply: i % 2 ? 'ac' : 'dc',
    phase: i % 2 ? 'single-phase' : 'three-phase',
    voltage: i % 2 ? 230 : -48,
    amperage: 16 + (i % 10),
    mark_connected: i % 4 === 0,
  }),
  patch: { description: 'patched', max_utilization: 90 },
  invalid: [
    { body: { name: 'no panel' }, field: 'power_panel' },
    { body: { power_panel: 999999, name: 'bad panel' }, field: 'power_panel' },
    { body: { power_panel: 999999, name: 'bad phase', phase: 'two-phase' }, field: 'phase' },
  ],
  brief: ['name', 'cable', '_occupied'],
  choices: ['status', 'type', 'supply', 'phase'],
  filters: [
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'supply=dc', expect: (o) => o.filter((x) => x.supply.value === 'dc') },
    { query: () => 'site=cabling-site', expect: (o) => o },
    { query: () => 'occupied=true', expect: (o) => o.filter((x) => x.mark_connected) },
    { query: () => 'q=feeds panel', expect: (o) => o },
  ],
});

/** Each contract cable joins two fresh interfaces of a device of its own. */
const cableDevice = once(newDevice);
let ends = 0;
const freshInterface = async () => made('/api/dcim/interfaces/', { device: (await cableDevice()).id, name: `cable-end-${++ends}`, type: '1000base-t' });

runModelContract('cable', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.cable,
  path: '/api/dcim/cables/',
  schema: 'Cable',
  badPatch: { length_unit: 'parsec' },
  make: async (i) => ({
    a_terminations: [{ object_type: 'dcim.interface', object_id: (await freshInterface()).id }],
    b_terminations: [{ object_type: 'dcim.interface', object_id: (await freshInterface()).id }],
    type: i % 2 ? 'cat6' : '',
    status: i % 3 ? 'connected' : 'planned',
    label: `Cable ${i}`,
    color: i % 2 ? 'aa1409' : '',
    length: i % 2 ? 10 + i : null,
    length_unit: i % 2 ? 'm' : null,
  }),
  // a status change shows on the ends' connection_status: the contract's PATCH changes what the ends do not show
  patch: { description: 'patched', color: '00ff00', label: 'patched' },
  invalid: [
    { body: { label: 'no ends' }, field: '__all__' },
    { body: { a_terminations: 'x', b_terminations: [] }, field: 'a_terminations' },
    { body: { a_terminations: [{ object_type: 'dcim.interface', object_id: 999999 }], b_terminations: [] }, field: 'a_terminations' },
    { body: { a_terminations: [], b_terminations: [], status: 'cut' }, field: 'status' },
  ],
  brief: ['label'],
  choices: ['status', 'length_unit'],
  filters: [
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'type=cat6', expect: (o) => o.filter((x) => x.type === 'cat6') },
    { query: () => 'color=aa1409', expect: (o) => o.filter((x) => x.color === 'aa1409') },
    { query: (o) => `device_id=${o[0].a_terminations[0].object.device.id}`, expect: (o) => o },
    { query: () => 'site=cabling-site', expect: (o) => o },
    { query: () => 'unterminated=false', expect: (o) => o },
    { query: (o) => `interface_id=${o[1].b_terminations[0].object_id}`, expect: (o) => [o[1]] },
    { query: () => 'q=cable', expect: (o) => o },
  ],
});
