import { runModelContract } from '@inventory/testkit';
import { dcimModels } from '@inventory/dcim';
import { stack, bootCablingStack, once, made, newDevice } from './cabling-fixtures';

/** The contract over cables (their ends are interfaces made for each). */
bootCablingStack();

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
