import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';
import { createService as virtualization } from '@inventory/virtualization';

/** The contract over inventory items, their roles and templates, and virtual device contexts (a suite of its own, beside the devices'). */
let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, virtualization }, {}, { template: true });
  // the cluster type every cross-service cluster target names
  const r = await stack.client('virtualization').post('/api/virtualization/cluster-types/', { name: 'Device clusters', slug: 'device-clusters' });
  if (r.status !== 201) throw new Error(`cluster type: ${r.status} ${r.text}`);
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

const theTenant = once(() => made('tenancy', '/api/tenancy/tenants/', { name: 'Device tenant', slug: 'device-tenant' }));
const theSite = once(() => made('dcim', '/api/dcim/sites/', { name: 'Device home', slug: 'device-home' }));
const theMaker = once(() => made('dcim', '/api/dcim/manufacturers/', { name: 'Device maker', slug: 'device-maker' }));
const theRole = once(() => made('dcim', '/api/dcim/device-roles/', { name: 'Device role', slug: 'device-role' }));
const theType = once(async () => made('dcim', '/api/dcim/device-types/', { manufacturer: (await theMaker()).id, model: 'Box', slug: 'box' }));
/** A device per call, for the models that belong to one. */
let hosts = 0;
const aHost = async (type: Record<string, unknown> | null = null) => {
  hosts += 1;
  return made('dcim', '/api/dcim/devices/', { name: `host-${hosts}`, device_type: (type ?? (await theType())).id, role: (await theRole()).id, site: (await theSite()).id });
};
/**
 * The device of the i-th object: seven hosts in turn, so consecutive objects (a filter's three)
 * belong to different devices without a device created per object (the fuzz makes hundreds).
 */
const pool: Promise<Record<string, any>>[] = [];
const hostFor = (i: number) => (pool[i % 7] ??= aHost());

const theItemRole = once(() => made('dcim', '/api/dcim/inventory-item-roles/', { name: 'Optic', slug: 'optic', color: '00ff00' }));

runModelContract('inventory item role', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.inventoryItemRole,
  path: '/api/dcim/inventory-item-roles/',
  schema: 'InventoryItemRole',
  badPatch: { color: 'GREEN' },
  make: (i) => ({ name: `Item role ${i}`, slug: `item-role-${i}`, color: i % 2 ? 'ff0000' : '0000ff' }),
  patch: { description: 'patched' },
  invalid: [{ body: { name: 'no slug' }, field: 'slug' }],
  brief: ['name', 'slug', 'inventoryitem_count'],
  filters: [{ query: () => 'color=ff0000', expect: (o) => o.filter((x) => x.color === 'ff0000') }],
});

runModelContract('inventory item', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.inventoryItem,
  path: '/api/dcim/inventory-items/',
  schema: 'InventoryItem',
  badPatch: { status: 'lost' },
  make: async (i) => ({
    device: (await hostFor(i)).id,
    name: `Item ${i}`,
    role: i % 2 ? (await theItemRole()).id : null,
    manufacturer: i % 3 ? (await theMaker()).id : null,
    serial: `IS${i}`,
    asset_tag: i % 2 ? `INV-${i}` : null,
    discovered: i % 2 === 0,
  }),
  patch: { description: 'patched', part_id: 'P-1' },
  invalid: [
    { body: { name: 'no device' }, field: 'device' },
    { body: { device: 999999, name: 'bad' }, field: 'device' },
  ],
  brief: ['device', 'name', '_depth'],
  choices: ['status'],
  filters: [
    { query: () => 'role=optic', expect: (o) => o.filter((x) => x.role) },
    { query: () => 'discovered=true', expect: (o) => o.filter((x) => x.discovered) },
    { query: (o) => `serial=${o[1].serial.toLowerCase()}`, expect: (o) => [o[1]] },
    { query: () => 'site=device-home', expect: (o) => o },
  ],
});

runModelContract('inventory item template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.inventoryItemTemplate,
  path: '/api/dcim/inventory-item-templates/',
  schema: 'InventoryItemTemplate',
  badPatch: { name: 'x'.repeat(65) },
  make: async (i) => ({ device_type: (await theType()).id, name: `Item template ${i}`, role: i % 2 ? (await theItemRole()).id : null, part_id: `PT${i}` }),
  patch: { description: 'patched' },
  invalid: [{ body: { name: 'no type' }, field: 'device_type' }],
  brief: ['name', '_depth'],
  filters: [{ query: () => 'role=optic', expect: (o) => o.filter((x) => x.role) }],
});

runModelContract('virtual device context', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.virtualDeviceContext,
  path: '/api/dcim/virtual-device-contexts/',
  schema: 'VirtualDeviceContext',
  badPatch: { status: 'gone' },
  make: async (i) => ({ name: `VDC ${i}`, device: (await hostFor(i)).id, identifier: i, status: i % 2 ? 'active' : 'planned', tenant: i % 2 ? (await theTenant()).id : null }),
  patch: { description: 'patched', status: 'offline' },
  invalid: [
    { body: { name: 'no status', device: 999999 }, field: 'status' },
    { body: { name: 'no device', status: 'active' }, field: 'device' },
  ],
  brief: ['name', 'identifier', 'device'],
  choices: ['status'],
  // primary IPs must be assigned to one of the device's interfaces first
  crossServiceExclude: ['primary_ip4', 'primary_ip6'],
  filters: [
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'tenant=device-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: (o) => `device=${o[1].device.name}`, expect: (o) => [o[1]] },
  ],
});
