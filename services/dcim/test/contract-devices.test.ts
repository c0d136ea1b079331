import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';
import { createService as virtualization } from '@inventory/virtualization';

/** The contract over devices, virtual chassis, bays and modules (a suite of its own: the site-tier contract is long already). */
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
const parentType = once(async () => made('dcim', '/api/dcim/device-types/', { manufacturer: (await theMaker()).id, model: 'Chassis', slug: 'chassis', subdevice_role: 'parent' }));
const theModuleType = once(async () => made('dcim', '/api/dcim/module-types/', { manufacturer: (await theMaker()).id, model: 'Card' }));
const theRack = once(async () => made('dcim', '/api/dcim/racks/', { name: 'Device rack', site: (await theSite()).id, u_height: 100 }));
/** A device per call, for the models that belong to one. */
let hosts = 0;
const aHost = async (type: Record<string, unknown> | null = null) => {
  hosts += 1;
  return made('dcim', '/api/dcim/devices/', { name: `host-${hosts}`, device_type: (type ?? (await theType())).id, role: (await theRole()).id, site: (await theSite()).id });
};
/**
 * A model's hosts: the i-th object's device is one of seven in turn, so consecutive objects (a
 * filter's three) belong to different devices without a device made per object (the fuzz makes
 * hundreds). One pool per model: their objects' names repeat across models.
 */
const hostPool = (type?: () => Promise<Record<string, unknown>>) => {
  const pool: Promise<Record<string, any>>[] = [];
  return (i: number) => (pool[i % 7] ??= (async () => aHost(type ? await type() : null))());
};
const bayHosts = hostPool();
const deviceBayHosts = hostPool(parentType);
const moduleHosts = hostPool();

runModelContract('device', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.device,
  path: '/api/dcim/devices/',
  schema: 'Device',
  badPatch: { face: 'sideways' },
  make: async (i) => ({
    // names are unique per site, and the contract's passes number their objects each from 1
    name: i % 5 ? `device-${i}-${++hosts}` : null,
    device_type: (await theType()).id,
    role: (await theRole()).id,
    site: (await theSite()).id,
    tenant: i % 2 ? (await theTenant()).id : null,
    status: i % 3 ? 'active' : 'planned',
    serial: `SN${i}`,
    asset_tag: i % 4 ? `DEV-${i}` : null,
    rack: i % 2 ? (await theRack()).id : null,
    description: `d${i % 3}`,
    local_context_data: i % 2 ? { ntp: [`10.0.0.${i % 250}`] } : null,
  }),
  patch: { description: 'patched', status: 'offline' },
  invalid: [
    { body: { name: 'no type' }, field: 'device_type' },
    { body: { name: 'bad status', device_type: 999999, role: 999999, site: 999999, status: 'broken' }, field: 'status' },
    { body: { name: 'x'.repeat(65), device_type: 999999, role: 999999, site: 999999 }, field: 'name' },
    { body: { name: 'bad context', device_type: 999999, role: 999999, site: 999999, local_context_data: [1] }, field: 'local_context_data' },
  ],
  brief: ['name', 'display_name'],
  choices: ['status', 'face', 'airflow'],
  // primary and out-of-band IPs must be assigned to one of the device's interfaces first (devices.test.ts)
  crossServiceExclude: ['primary_ip4', 'primary_ip6', 'oob_ip'],
  targets: {
    'virtualization.cluster': (i) => ({ name: `Xref cluster ${i}`, type: { slug: 'device-clusters' } }),
    'extras.configtemplate': (i) => ({ name: `Xref template ${i}`, template_code: 'hostname {{ device.name }}' }),
  },
  filters: [
    { query: (o) => `name=${o.find((x) => x.name)!.name.toUpperCase()}`, expect: (o) => o.filter((x) => x.name === o.find((y) => y.name)!.name) },
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'tenant=device-tenant', expect: (o) => o.filter((x) => x.tenant) },
    { query: () => 'manufacturer=device-maker', expect: (o) => o },
    { query: () => 'model=box', expect: (o) => o },
    { query: () => 'role=device-role&device_role=device-role', expect: (o) => o },
    { query: () => 'local_context_data=true', expect: (o) => o.filter((x) => x.local_context_data) },
    { query: (o) => `rack_id=${o[1].rack.id}`, expect: (o) => o.filter((x) => x.rack) },
    { query: () => 'has_primary_ip=false', expect: (o) => o },
    { query: () => 'q=dev-', expect: (o) => o.filter((x) => x.asset_tag) },
  ],
});

runModelContract('virtual chassis', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.virtualChassis,
  path: '/api/dcim/virtual-chassis/',
  schema: 'VirtualChassis',
  badPatch: { domain: 'x'.repeat(31) },
  make: async (i) => ({ name: `VC ${i}`, domain: i % 2 ? `dom${i}` : '', master: i % 3 ? null : (await aHost()).id }),
  patch: { description: 'patched' },
  invalid: [
    { body: { domain: 'no name' }, field: 'name' },
    { body: { name: 'bad master', master: 999999 }, field: 'master' },
  ],
  brief: ['name', 'master', 'member_count'],
  filters: [
    { query: () => 'site=device-home', expect: (o) => o.filter((x) => x.master) },
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: () => 'q=vc', expect: (o) => o },
  ],
});

runModelContract('module bay', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.moduleBay,
  path: '/api/dcim/module-bays/',
  schema: 'ModuleBay',
  badPatch: { position: 'x'.repeat(31) },
  make: async (i) => ({ device: (await bayHosts(i)).id, name: `Slot ${i}`, label: i % 2 ? `S${i}` : '', position: String(i) }),
  patch: { description: 'patched', label: 'L' },
  invalid: [
    { body: { name: 'no device' }, field: 'device' },
    { body: { device: 999999, name: 'bad device' }, field: 'device' },
  ],
  brief: ['installed_module', 'name'],
  filters: [
    { query: () => 'site=device-home', expect: (o) => o },
    { query: () => 'role=device-role', expect: (o) => o },
    { query: (o) => `device_id=${o[1].device.id}`, expect: (o) => [o[1]] },
    { query: () => 'q=slot', expect: (o) => o },
  ],
});

runModelContract('device bay', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.deviceBay,
  path: '/api/dcim/device-bays/',
  schema: 'DeviceBay',
  badPatch: { installed_device: 999999 },
  make: async (i) => ({ device: (await deviceBayHosts(i)).id, name: `Bay ${i}`, label: i % 2 ? `B${i}` : '' }),
  patch: { description: 'patched', label: 'Bay' },
  invalid: [
    { body: { name: 'no device' }, field: 'device' },
    { body: { device: 999999, name: 'bad device' }, field: 'device' },
  ],
  brief: ['device', 'name'],
  filters: [
    { query: () => 'device_type=Chassis', expect: (o) => o },
    { query: (o) => `device=${o[1].device.name}`, expect: (o) => [o[1]] },
  ],
});

runModelContract('module', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.module,
  path: '/api/dcim/modules/',
  schema: 'Module',
  badPatch: { status: 'broken' },
  make: async (i) => {
    const host = await moduleHosts(i);
    const bay = await made('dcim', '/api/dcim/module-bays/', { device: host.id, name: `Slot ${i}` });
    return { device: host.id, module_bay: bay.id, module_type: (await theModuleType()).id, serial: `M${i}`, asset_tag: i % 2 ? `MOD-${i}` : null, status: i % 3 ? 'active' : 'planned' };
  },
  patch: { description: 'patched', status: 'offline' },
  invalid: [
    { body: { serial: 'no device' }, field: 'device' },
    { body: { device: 999999, module_bay: 999999, module_type: 999999, status: 'nope' }, field: 'status' },
  ],
  brief: ['device', 'module_bay', 'module_type'],
  choices: ['status'],
  filters: [
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'module_type=Card', expect: (o) => o },
    { query: () => 'manufacturer=device-maker', expect: (o) => o },
    { query: (o) => `serial=${o[1].serial.toLowerCase()}`, expect: (o) => [o[1]] },
    { query: () => 'q=mod-', expect: (o) => o.filter((x) => x.asset_tag) },
  ],
});
