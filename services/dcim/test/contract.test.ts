import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, dcim });
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
