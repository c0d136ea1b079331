import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim }, {}, { template: true });
});
afterAll(() => stack?.stop());

const tooLong = 'x'.repeat(101);

/** Made once per file: a tenant (tenancy, another service) and the site every contract location lives in. */
let tenant: Promise<{ id: number; slug: string }> | null = null;
const theTenant = () =>
  (tenant ??= stack
    .client('tenancy')
    .post('/api/tenancy/tenants/', { name: 'DCIM tenant', slug: 'dcim-tenant' })
    .then((r) => {
      if (r.status !== 201) throw new Error(`tenant: ${r.status} ${r.text}`);
      return r.body;
    }));
let home: Promise<number> | null = null;
const homeSite = () =>
  (home ??= stack
    .client('dcim')
    .post('/api/dcim/sites/', { name: 'Location home', slug: 'location-home' })
    .then((r) => {
      if (r.status !== 201) throw new Error(`site: ${r.status} ${r.text}`);
      return r.body.id as number;
    }));

runModelContract('region', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.region,
  path: '/api/dcim/regions/',
  schema: 'Region',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Region ${i}`, slug: `region-${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
    { body: { name: 'bad parent', slug: 'bad-parent', parent: 999999 }, field: 'parent' },
  ],
  brief: ['name', 'slug', 'site_count', '_depth'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `parent_id=null&description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=region', expect: (o) => o },
  ],
});

runModelContract('site group', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.siteGroup,
  path: '/api/dcim/site-groups/',
  schema: 'SiteGroup',
  badPatch: { parent: 999999 },
  make: (i) => ({ name: `Site group ${i}`, slug: `site-group-${i}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: 'bad slug', slug: 'a b' }, field: 'slug' },
  ],
  brief: ['name', 'slug', 'site_count', '_depth'],
});

runModelContract('site', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.site,
  path: '/api/dcim/sites/',
  schema: 'Site',
  badPatch: { latitude: 100 },
  make: async (i) => ({
    name: `Site ${i}`,
    slug: `site-${i}`,
    status: i % 2 ? 'active' : 'planned',
    facility: `F${i}`,
    time_zone: i % 2 ? 'Europe/Berlin' : null,
    latitude: (i % 80) + 0.5,
    longitude: -((i % 170) + 0.25),
    tenant: i % 2 ? (await theTenant()).id : null,
  }),
  patch: { description: 'patched', latitude: -12.345678, time_zone: 'UTC', status: 'retired' },
  invalid: [
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: 'bad zone', slug: 'bad-zone', time_zone: 'Mars/Olympus_Mons' }, field: 'time_zone' },
    { body: { name: 'bad latitude', slug: 'bad-latitude', latitude: 123.5 }, field: 'latitude' },
    { body: { name: 'bad longitude', slug: 'bad-longitude', longitude: 1.1234567 }, field: 'longitude' },
    { body: { name: 'bad status', slug: 'bad-status', status: 'open' }, field: 'status' },
    { body: { name: 'bad region', slug: 'bad-region', region: 999999 }, field: 'region' },
    { body: { name: 'bad tenant', slug: 'bad-tenant', tenant: 999999 }, field: 'tenant' },
  ],
  brief: ['name', 'slug'],
  choices: ['status'],
  filters: [
    { query: (o) => `status=${o[1].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[1].status.value) },
    { query: (o) => `tenant=${o.find((x) => x.tenant)!.tenant.slug}`, expect: (o) => o.filter((x) => x.tenant) },
    { query: () => 'tenant_id=null', expect: (o) => o.filter((x) => !x.tenant) },
    { query: (o) => `latitude__gte=${o[1].latitude}`, expect: (o) => o.filter((x) => x.latitude >= o[1].latitude) },
    { query: (o) => `facility__ie=${o[2].facility.toLowerCase()}`, expect: (o) => [o[2]] },
    { query: () => 'q=site', expect: (o) => o },
  ],
});

runModelContract('location', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.location,
  path: '/api/dcim/locations/',
  schema: 'Location',
  badPatch: { parent: 999999 },
  make: async (i) => ({
    name: `Location ${i}`,
    slug: `location-${i}`,
    site: await homeSite(),
    status: i % 2 ? 'active' : 'staging',
    tenant: i % 2 ? (await theTenant()).id : null,
  }),
  patch: { description: 'patched', status: 'planned' },
  invalid: [
    { body: { name: 'no site', slug: 'no-site' }, field: 'site' },
    { body: { name: 'bad site', slug: 'bad-site', site: 999999 }, field: 'site' },
    { body: { slug: 'no-name', site: 999999 }, field: 'name' },
  ],
  brief: ['name', 'slug', 'rack_count', '_depth'],
  choices: ['status'],
  filters: [
    { query: (o) => `site_id=${o[0].site.id}&status=${o[0].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[0].status.value) },
    { query: () => 'q=location', expect: (o) => o },
  ],
});

/** Made once per file: a manufacturer for platforms, a rack role, and the racks reservations live in (100U each, one per 90 reservations). */
const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
const made = async (service: string, path: string, body: Record<string, unknown>) => {
  const r = await stack.client(service).post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theManufacturer = once(() => made('dcim', '/api/dcim/manufacturers/', { name: 'Platform maker', slug: 'platform-maker' }));
const theRackRole = once(() => made('dcim', '/api/dcim/rack-roles/', { name: 'Contract rack role', slug: 'contract-rack-role' }));
const theUser = once(() => made('users', '/api/users/users/', { username: 'reserver', password: 'Secret-Passw0rd!' }));
const reservationRacks = new Map<number, Promise<{ id: number }>>();
const reservationRack = async (block: number) => {
  if (!reservationRacks.has(block)) {
    reservationRacks.set(block, made('dcim', '/api/dcim/racks/', { name: `Reserved rack ${block}`, site: await homeSite(), u_height: 100 }));
  }
  return reservationRacks.get(block)!;
};

runModelContract('manufacturer', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.manufacturer,
  path: '/api/dcim/manufacturers/',
  schema: 'Manufacturer',
  badPatch: { slug: 'a b' },
  make: (i) => ({ name: `Manufacturer ${i}`, slug: `manufacturer-${i}`, description: `d${i % 3}` }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { slug: 'no-name' }, field: 'name' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'devicetype_count'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=manufacturer', expect: (o) => o },
  ],
});

runModelContract('rack role', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.rackRole,
  path: '/api/dcim/rack-roles/',
  schema: 'RackRole',
  badPatch: { color: 'FFFFFF' },
  make: (i) => ({ name: `Rack role ${i}`, slug: `rack-role-${i}`, color: i % 2 ? 'ff0000' : '00ff00' }),
  patch: { description: 'patched', color: 'abcdef' },
  invalid: [
    { body: { name: 'bad color', slug: 'bad-color', color: 'red' }, field: 'color' },
    { body: { name: 'no slug' }, field: 'slug' },
  ],
  brief: ['name', 'slug', 'rack_count'],
  filters: [
    { query: (o) => `color=${o[1].color}`, expect: (o) => o.filter((x) => x.color === o[1].color) },
    { query: () => 'q=rack-role', expect: (o) => o },
  ],
});

runModelContract('device role', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.deviceRole,
  path: '/api/dcim/device-roles/',
  schema: 'DeviceRole',
  badPatch: { color: '12345' },
  make: (i) => ({ name: `Device role ${i}`, slug: `device-role-${i}`, vm_role: i % 2 === 0 }),
  patch: { description: 'patched', vm_role: true },
  invalid: [
    { body: { name: 'bad color', slug: 'bad-color', color: 'GGGGGG' }, field: 'color' },
    { body: { slug: 'no-name' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  targets: { 'extras.configtemplate': (i) => ({ name: `Xref template ${i}`, template_code: 'hostname {{ device.name }}' }) },
  filters: [
    { query: () => 'vm_role=false', expect: (o) => o.filter((x) => !x.vm_role) },
    { query: () => 'q=device role', expect: (o) => o },
  ],
});

runModelContract('platform', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.platform,
  path: '/api/dcim/platforms/',
  schema: 'Platform',
  badPatch: { manufacturer: 999999 },
  make: async (i) => ({ name: `Platform ${i}`, slug: `platform-${i}`, manufacturer: i % 2 ? (await theManufacturer()).id : null }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'bad maker', slug: 'bad-maker', manufacturer: 999999 }, field: 'manufacturer' },
    { body: { name: 'no slug' }, field: 'slug' },
  ],
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  targets: { 'extras.configtemplate': (i) => ({ name: `Xref platform template ${i}`, template_code: 'hostname {{ device.name }}' }) },
  filters: [
    { query: () => 'manufacturer=platform-maker', expect: (o) => o.filter((x) => x.manufacturer) },
    { query: () => 'manufacturer_id=null', expect: (o) => o.filter((x) => !x.manufacturer) },
    { query: () => 'q=platform', expect: (o) => o },
  ],
});

runModelContract('rack', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.rack,
  path: '/api/dcim/racks/',
  schema: 'Rack',
  badPatch: { u_height: 0 },
  make: async (i) => ({
    name: `Rack ${i}`,
    facility_id: i % 3 ? `FAC-${i}` : null,
    site: await homeSite(),
    status: i % 2 ? 'active' : 'planned',
    role: i % 2 ? (await theRackRole()).id : null,
    tenant: i % 2 ? (await theTenant()).id : null,
    serial: `SN${i}`,
    asset_tag: i % 2 ? `AT-${i}` : null,
    type: i % 2 ? '4-post-cabinet' : null,
    width: i % 2 ? 19 : 23,
    u_height: (i % 50) + 1,
    weight: i % 2 ? 100.5 : null,
    max_weight: i % 2 ? 1000 : null,
    weight_unit: i % 2 ? 'kg' : null,
    outer_width: i % 2 ? 600 : null,
    outer_unit: i % 2 ? 'mm' : null,
  }),
  patch: { description: 'patched', status: 'reserved', desc_units: true },
  invalid: [
    { body: { name: 'no site' }, field: 'site' },
    { body: { name: 'bad site', site: 999999 }, field: 'site' },
    { body: { name: 'too tall', site: 999999, u_height: 101 }, field: 'u_height' },
    { body: { name: 'bad width', site: 999999, width: 20 }, field: 'width' },
    { body: { name: 'bad unit', site: 999999, starting_unit: 0 }, field: 'starting_unit' },
  ],
  brief: ['name', 'device_count'],
  choices: ['status', 'type', 'width', 'weight_unit', 'outer_unit'],
  filters: [
    { query: (o) => `status=${o[1].status.value}`, expect: (o) => o.filter((x) => x.status.value === o[1].status.value) },
    { query: () => 'width=23', expect: (o) => o.filter((x) => x.width.value === 23) },
    { query: () => 'role=contract-rack-role', expect: (o) => o.filter((x) => x.role) },
    { query: () => 'tenant_id=null', expect: (o) => o.filter((x) => !x.tenant) },
    { query: (o) => `serial=${o[2].serial.toLowerCase()}`, expect: (o) => [o[2]] },
    { query: (o) => `u_height__gte=${o[1].u_height}`, expect: (o) => o.filter((x) => x.u_height >= o[1].u_height) },
    { query: () => 'q=rack', expect: (o) => o },
  ],
});

runModelContract('rack reservation', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.rackReservation,
  path: '/api/dcim/rack-reservations/',
  schema: 'RackReservation',
  badPatch: { units: [0] },
  make: async (i) => ({
    rack: (await reservationRack(Math.floor(i / 90))).id,
    units: [(i % 90) + 1],
    user: (await theUser()).id,
    tenant: i % 2 ? (await theTenant()).id : null,
    description: `Reservation ${i}`,
  }),
  patch: { description: 'patched', comments: 'more' },
  invalid: [
    { body: { units: [1], user: 1, description: 'no rack' }, field: 'rack' },
    { body: { rack: 999999, units: [1], user: 1, description: 'bad rack' }, field: 'rack' },
    { body: { rack: 999999, units: [1], user: 1 }, field: 'description' },
    { body: { rack: 999999, user: 1, description: 'no units' }, field: 'units' },
  ],
  brief: ['user', 'units'],
  targets: { 'auth.user': (i) => ({ username: `xref-reserver-${i}`, password: 'Secret-Passw0rd!' }) },
  filters: [
    { query: (o) => `rack_id=${o[0].rack.id}`, expect: (o) => o.filter((x) => x.rack.id === o[0].rack.id) },
    { query: () => 'user=reserver', expect: (o) => o },
    { query: () => 'site=location-home', expect: (o) => o },
    { query: () => 'q=reserved rack', expect: (o) => o },
  ],
});

const typeMaker = once(() => made('dcim', '/api/dcim/manufacturers/', { name: 'Type maker', slug: 'type-maker' }));
const typePlatform = once(() => made('dcim', '/api/dcim/platforms/', { name: 'Type platform', slug: 'type-platform' }));

runModelContract('device type', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.deviceType,
  path: '/api/dcim/device-types/',
  schema: 'DeviceType',
  badPatch: { u_height: 1.25 },
  make: async (i) => ({
    manufacturer: (await typeMaker()).id,
    model: `Device type ${i}`,
    slug: `device-type-${i}`,
    part_number: `PN-${i}`,
    default_platform: i % 2 ? (await typePlatform()).id : null,
    u_height: (i % 4) / 2,
    is_full_depth: i % 3 !== 0,
    airflow: i % 2 ? 'front-to-rear' : null,
    subdevice_role: i % 5 === 0 ? 'parent' : null,
    weight: i % 2 ? 12.5 : null,
    weight_unit: i % 2 ? 'kg' : null,
    front_image: i % 2 ? `devicetype-images/front-${i}.png` : null,
  }),
  patch: { description: 'patched', exclude_from_utilization: true, comments: 'more' },
  invalid: [
    { body: { model: 'no maker', slug: 'no-maker' }, field: 'manufacturer' },
    { body: { manufacturer: 999999, model: 'bad maker', slug: 'bad-maker' }, field: 'manufacturer' },
    { body: { manufacturer: 999999, slug: 'no-model' }, field: 'model' },
    { body: { manufacturer: 999999, model: 'bad slug', slug: 'a b' }, field: 'slug' },
    { body: { manufacturer: 999999, model: 'bad airflow', slug: 'bad-airflow', airflow: 'up' }, field: 'airflow' },
  ],
  brief: ['manufacturer', 'model', 'slug', 'device_count'],
  choices: ['subdevice_role', 'airflow', 'weight_unit'],
  filters: [
    { query: () => 'manufacturer=type-maker', expect: (o) => o },
    { query: () => 'default_platform_id=null', expect: (o) => o.filter((x) => !x.default_platform) },
    { query: () => 'airflow=front-to-rear', expect: (o) => o.filter((x) => x.airflow) },
    { query: () => 'has_front_image=true', expect: (o) => o.filter((x) => x.front_image) },
    { query: () => 'is_full_depth=false', expect: (o) => o.filter((x) => !x.is_full_depth) },
    { query: (o) => `u_height__gte=${o[1].u_height}`, expect: (o) => o.filter((x) => x.u_height >= o[1].u_height) },
    { query: (o) => `part_number=${o[2].part_number}`, expect: (o) => [o[2]] },
    { query: () => 'q=type maker', expect: (o) => o },
  ],
});

runModelContract('module type', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.moduleType,
  path: '/api/dcim/module-types/',
  schema: 'ModuleType',
  badPatch: { manufacturer: 999999 },
  make: async (i) => ({
    manufacturer: (await typeMaker()).id,
    model: `Module type ${i}`,
    part_number: `MPN-${i}`,
    weight: i % 2 ? 0.75 : null,
    weight_unit: i % 2 ? 'lb' : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', comments: 'more' },
  invalid: [
    { body: { model: 'no maker' }, field: 'manufacturer' },
    { body: { manufacturer: 999999, model: 'bad maker' }, field: 'manufacturer' },
    { body: { manufacturer: 999999 }, field: 'model' },
    { body: { manufacturer: 999999, model: 'bad unit', weight_unit: 'stone' }, field: 'weight_unit' },
  ],
  brief: ['manufacturer', 'model'],
  choices: ['weight_unit'],
  filters: [
    { query: () => 'manufacturer=type-maker', expect: (o) => o },
    { query: () => 'weight_unit=lb', expect: (o) => o.filter((x) => x.weight_unit) },
    { query: (o) => `description=${o[0].description}`, expect: (o) => o.filter((x) => x.description === o[0].description) },
    { query: () => 'q=module type', expect: (o) => o },
  ],
});

/** Component templates live on one device type and one module type, made once per file (and a parent type for device bays). */
const templateType = once(async () =>
  made('dcim', '/api/dcim/device-types/', { manufacturer: (await typeMaker()).id, model: 'Template type', slug: 'template-type' }),
);
const parentType = once(async () =>
  made('dcim', '/api/dcim/device-types/', { manufacturer: (await typeMaker()).id, model: 'Chassis type', slug: 'chassis-type', subdevice_role: 'parent' }),
);
const templatePowerPort = once(async () => made('dcim', '/api/dcim/power-port-templates/', { device_type: (await templateType()).id, name: 'PSU-contract' }));
/** A rear port template of its own for each front port template (the filter pass moves positions one object at a time). */
let rearPorts = 0;
const rearPort = async () =>
  made('dcim', '/api/dcim/rear-port-templates/', { device_type: (await templateType()).id, name: `Rear ${++rearPorts}`, type: 'lc', positions: 1024 });
/**
 * The owner of every contract template: one device type (the filter pass moves objects between owners field by
 * field, which the one-owner rule refuses for a module type's; templates of module types are covered in templates.test.ts).
 */
const owner = async (_i: number) => ({ device_type: (await templateType()).id });
const ownerFilters = [
  { query: (o: any[]) => `device_type_id=${o[0].device_type.id}`, expect: (o: any[]) => o },
  { query: () => 'module_type_id=null', expect: (o: any[]) => o },
  { query: (o: any[]) => `name=${encodeURIComponent(o[1].name)}`, expect: (o: any[]) => [o[1]] },
];
const ownerInvalid = [
  { body: { name: 'no owner' }, field: '__all__' },
  { body: { device_type: 999999, name: 'bad owner' }, field: 'device_type' },
  { body: { device_type: 999999, name: 'x'.repeat(65) }, field: 'name' },
];

runModelContract('console port template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.consolePortTemplate,
  path: '/api/dcim/console-port-templates/',
  schema: 'ConsolePortTemplate',
  badPatch: { type: 'de-10' },
  make: async (i) => ({ ...(await owner(i)), name: `Console ${i}`, label: i % 2 ? `C${i}` : '', type: i % 2 ? 'rj-45' : null }),
  patch: { description: 'patched', type: 'usb-c' },
  invalid: [...ownerInvalid, { body: { device_type: 999999, name: 'bad type', type: 'rj-99' }, field: 'type' }],
  brief: ['name'],
  choices: ['type'],
  filters: [...ownerFilters, { query: () => 'type=rj-45', expect: (o) => o.filter((x) => x.type) }, { query: () => 'q=console', expect: (o) => o }],
});

runModelContract('console server port template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.consoleServerPortTemplate,
  path: '/api/dcim/console-server-port-templates/',
  schema: 'ConsoleServerPortTemplate',
  badPatch: { name: '' },
  make: async (i) => ({ ...(await owner(i)), name: `Server port ${i}`, type: i % 2 ? 'de-9' : null }),
  patch: { description: 'patched', label: 'L' },
  invalid: ownerInvalid,
  brief: ['name'],
  choices: ['type'],
  filters: ownerFilters,
});

runModelContract('power port template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerPortTemplate,
  path: '/api/dcim/power-port-templates/',
  schema: 'PowerPortTemplate',
  badPatch: { maximum_draw: 0 },
  make: async (i) => ({
    ...(await owner(i)),
    name: `PSU ${i}`,
    type: i % 2 ? 'iec-60320-c14' : null,
    maximum_draw: i % 2 ? 500 + i : null,
    allocated_draw: i % 2 ? 400 : null,
  }),
  patch: { description: 'patched', allocated_draw: 100 },
  invalid: [...ownerInvalid, { body: { device_type: 999999, name: 'bad draw', allocated_draw: 0 }, field: 'allocated_draw' }],
  brief: ['name'],
  choices: ['type'],
  filters: [...ownerFilters, { query: () => 'maximum_draw__gte=500', expect: (o) => o.filter((x) => x.maximum_draw) }],
});

runModelContract('power outlet template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.powerOutletTemplate,
  path: '/api/dcim/power-outlet-templates/',
  schema: 'PowerOutletTemplate',
  badPatch: { feed_leg: 'D' },
  make: async (i) => ({
    device_type: (await templateType()).id,
    name: `Outlet ${i}`,
    type: i % 2 ? 'iec-60320-c13' : null,
    power_port: i % 2 ? (await templatePowerPort()).id : null,
    feed_leg: i % 2 ? 'A' : null,
  }),
  patch: { description: 'patched', feed_leg: 'B' },
  invalid: [...ownerInvalid, { body: { device_type: 999999, name: 'bad leg', feed_leg: 'D' }, field: 'feed_leg' }],
  brief: ['name'],
  choices: ['type', 'feed_leg'],
  filters: [{ query: () => 'feed_leg=A', expect: (o) => o.filter((x) => x.feed_leg) }, { query: () => 'q=outlet', expect: (o) => o }],
});

runModelContract('interface template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.interfaceTemplate,
  path: '/api/dcim/interface-templates/',
  schema: 'InterfaceTemplate',
  badPatch: { type: 'ethernet' },
  make: async (i) => ({
    ...(await owner(i)),
    name: `eth${i}`,
    type: i % 2 ? '1000base-t' : '10gbase-x-sfpp',
    enabled: i % 4 !== 0,
    mgmt_only: i % 5 === 0,
    poe_mode: i % 2 ? 'pse' : null,
    poe_type: i % 2 ? 'type2-ieee802.3at' : null,
  }),
  patch: { description: 'patched', mgmt_only: true, rf_role: 'ap' },
  invalid: [
    { body: { name: 'no owner', type: 'virtual' }, field: '__all__' },
    { body: { device_type: 999999, name: 'bad owner', type: 'virtual' }, field: 'device_type' },
    { body: { device_type: 999999, name: 'no type' }, field: 'type' },
  ],
  brief: ['name'],
  choices: ['type', 'poe_mode', 'poe_type', 'rf_role'],
  filters: [
    ...ownerFilters,
    { query: () => 'type=1000base-t', expect: (o) => o.filter((x) => x.type.value === '1000base-t') },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
  ],
});

runModelContract('rear port template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.rearPortTemplate,
  path: '/api/dcim/rear-port-templates/',
  schema: 'RearPortTemplate',
  badPatch: { positions: 1025 },
  make: async (i) => ({ ...(await owner(i)), name: `Rear port ${i}`, type: i % 2 ? '8p8c' : 'lc', ...(i % 2 ? { color: 'aa1409' } : {}), positions: (i % 8) + 1 }),
  patch: { description: 'patched', positions: 12 },
  invalid: [
    { body: { name: 'no owner', type: 'lc' }, field: '__all__' },
    { body: { device_type: 999999, name: 'bad owner', type: 'lc' }, field: 'device_type' },
    { body: { device_type: 999999, name: 'no type' }, field: 'type' },
  ],
  brief: ['name'],
  choices: ['type'],
  filters: [...ownerFilters, { query: (o) => `positions=${o[2].positions}`, expect: (o) => o.filter((x) => x.positions === o[2].positions) }],
});

runModelContract('front port template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.frontPortTemplate,
  path: '/api/dcim/front-port-templates/',
  schema: 'FrontPortTemplate',
  badPatch: { rear_port_position: 0 },
  make: async (i) => ({
    device_type: (await templateType()).id,
    name: `Front port ${i}`,
    type: i % 2 ? 'lc' : 'sc',
    rear_port: (await rearPort()).id,
    rear_port_position: (i % 1000) + 1,
  }),
  patch: { description: 'patched', color: '00ff00' },
  invalid: [
    { body: { device_type: 999999, name: 'no rear', type: 'lc' }, field: 'rear_port' },
    { body: { device_type: 999999, name: 'bad rear', type: 'lc', rear_port: 999999 }, field: 'rear_port' },
    { body: { device_type: 999999, name: 'no type', rear_port: 999999 }, field: 'type' },
  ],
  brief: ['name'],
  choices: ['type'],
  filters: [{ query: () => 'type=lc', expect: (o) => o.filter((x) => x.type.value === 'lc') }, { query: () => 'q=front port', expect: (o) => o }],
});

runModelContract('module bay template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.moduleBayTemplate,
  path: '/api/dcim/module-bay-templates/',
  schema: 'ModuleBayTemplate',
  badPatch: { device_type: 999999 },
  make: async (i) => ({ device_type: (await templateType()).id, name: `Slot ${i}`, position: `${i}` }),
  patch: { description: 'patched', label: 'Bay' },
  invalid: [{ body: { name: 'no type' }, field: 'device_type' }, ...ownerInvalid.slice(1)],
  brief: ['name'],
  filters: [{ query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] }],
});

runModelContract('device bay template', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.deviceBayTemplate,
  path: '/api/dcim/device-bay-templates/',
  schema: 'DeviceBayTemplate',
  badPatch: { name: '' },
  make: async (i) => ({ device_type: (await parentType()).id, name: `Bay ${i}`, label: i % 2 ? `B${i}` : '' }),
  patch: { description: 'patched' },
  invalid: [{ body: { name: 'no type' }, field: 'device_type' }, ...ownerInvalid.slice(1)],
  brief: ['name'],
  filters: [{ query: () => 'q=bay', expect: (o) => o }],
});
