import { runModelContract } from '@inventory/testkit';
import { dcimModels } from '@inventory/dcim';
import { stack, bootCablingStack, once, made, theSite } from './cabling-fixtures';

/** The contract over power panels and power feeds. */
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
