import { runModelContract } from '@inventory/testkit';
import { dcimModels } from '@inventory/dcim';
import { stack, bootCablingStack, once, made, device, componentInvalid, componentFilters, brief } from './cabling-fixtures';

/** The contract over console ports, console server ports, power ports and power outlets. */
bootCablingStack();

runModelContract('console port', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.consolePort,
  path: '/api/dcim/console-ports/',
  schema: 'ConsolePort',
  badPatch: { speed: 1234 },
  make: async (i) => ({ ...(await device()), name: `con${i}`, label: i % 2 ? `C${i}` : '', type: i % 2 ? 'rj-45' : null, speed: i % 3 ? 9600 : null, mark_connected: i % 4 === 0 }),
  patch: { description: 'patched', type: 'usb-c', speed: 115200 },
  invalid: [...componentInvalid, { body: { device: 999999, name: 'bad type', type: 'rj-99' }, field: 'type' }],
  brief,
  choices: ['type', 'speed'],
  filters: [...componentFilters, { query: () => 'type=rj-45', expect: (o) => o.filter((x) => x.type) }, { query: () => 'connected=false', expect: (o) => o }],
});

runModelContract('console server port', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.consoleServerPort,
  path: '/api/dcim/console-server-ports/',
  schema: 'ConsoleServerPort',
  badPatch: { name: '' },
  make: async (i) => ({ ...(await device()), name: `tty${i}`, type: i % 2 ? 'de-9' : null, mark_connected: i % 4 === 0 }),
  patch: { description: 'patched', label: 'L' },
  invalid: componentInvalid,
  brief,
  choices: ['type', 'speed'],
  filters: componentFilters,
});

runModelContract('power port', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerPort,
  path: '/api/dcim/power-ports/',
  schema: 'PowerPort',
  badPatch: { maximum_draw: 0 },
  make: async (i) => ({ ...(await device()), name: `PSU${i}`, type: i % 2 ? 'iec-60320-c14' : null, maximum_draw: i % 2 ? 500 + i : null, allocated_draw: i % 2 ? 400 : null, mark_connected: i % 4 === 0 }),
  patch: { description: 'patched', allocated_draw: 100 },
  invalid: [...componentInvalid, { body: { device: 999999, name: 'bad draw', allocated_draw: 0 }, field: 'allocated_draw' }],
  brief,
  choices: ['type'],
  filters: [...componentFilters, { query: () => 'maximum_draw__gte=500', expect: (o) => o.filter((x) => x.maximum_draw) }],
});

const thePowerPort = once(async () => made('/api/dcim/power-ports/', { ...(await device()), name: 'PSU-outlets' }));

runModelContract('power outlet', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerOutlet,
  path: '/api/dcim/power-outlets/',
  schema: 'PowerOutlet',
  badPatch: { feed_leg: 'D' },
  make: async (i) => ({
    ...(await device()),
    name: `Outlet ${i}`,
    type: i % 2 ? 'iec-60320-c13' : null,
    power_port: i % 2 ? (await thePowerPort()).id : null,
    feed_leg: i % 2 ? 'A' : null,
  }),
  patch: { description: 'patched', feed_leg: 'B' },
  invalid: [...componentInvalid, { body: { device: 999999, name: 'bad leg', feed_leg: 'D' }, field: 'feed_leg' }],
  brief,
  choices: ['type', 'feed_leg'],
  filters: [{ query: () => 'feed_leg=A', expect: (o) => o.filter((x) => x.feed_leg) }, { query: () => 'q=outlet', expect: (o) => o }],
});

