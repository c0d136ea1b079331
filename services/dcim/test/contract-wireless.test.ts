import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as dcim, dcimModels } from '@inventory/dcim';
import { createService as ipam } from '@inventory/ipam';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';
import { once } from './cabling-fixtures';

/**
 * The contract over NetBox 3.7's wireless app, served by dcim under
 * /api/wireless/ (decision 028), with ipam booted: a LAN's VLAN is ipam's.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users, dcim, ipam }, {}, { template: true });
});
afterAll(() => stack?.stop());

const made = async (path: string, body: Record<string, unknown>) => {
  const r = await stack.client('dcim').post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const theSite = once(() => made('/api/dcim/sites/', { name: 'Wireless site', slug: 'wireless-site' }));
const theType = once(async () => {
  const maker = await made('/api/dcim/manufacturers/', { name: 'Wireless maker', slug: 'wireless-maker' });
  return made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Access point', slug: 'access-point' });
});
const theRole = once(() => made('/api/dcim/device-roles/', { name: 'Wireless role', slug: 'wireless-role', color: '0000ff' }));
let devices = 0;
const newDevice = async () => made('/api/dcim/devices/', { name: `ap-${++devices}`, device_type: (await theType()).id, role: (await theRole()).id, site: (await theSite()).id });

const tooLong = 'x'.repeat(101);

/** Made once per file: a tenant (tenancy's) and two nested LAN groups. */
const theTenant = once(async () => {
  const r = await stack.client('tenancy').post('/api/tenancy/tenants/', { name: 'Wireless tenant', slug: 'wireless-tenant' });
  if (r.status !== 201) throw new Error(`tenant: ${r.status} ${r.text}`);
  return r.body;
});
const parentGroup = once(() => made('/api/wireless/wireless-lan-groups/', { name: 'Contract parent', slug: 'contract-parent' }));
const childGroup = once(async () => made('/api/wireless/wireless-lan-groups/', { name: 'Contract child', slug: 'contract-child', parent: (await parentGroup()).id }));

runModelContract('wireless LAN group', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.wirelessLanGroup,
  path: '/api/wireless/wireless-lan-groups/',
  schema: 'WirelessLANGroup',
  badPatch: { slug: 'a b' },
  make: async (i) => ({ name: `LAN group ${i}`, slug: `lan-group-${i}`, description: `d${i % 3}`, ...(i % 4 === 0 ? { parent: (await parentGroup()).id } : {}) }),
  patch: { description: 'patched' },
  invalid: [
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: tooLong, slug: 'long' }, field: 'name' },
    { body: { name: 'bad parent', slug: 'bad-parent', parent: 999999 }, field: 'parent' },
    { body: { name: 'Contract parent', slug: 'taken-name' }, field: 'name' },
  ],
  brief: ['name', 'slug', 'wirelesslan_count', '_depth'],
  filters: [
    { query: (o) => `name=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: (o) => `parent_id=null&description=${o[0].description}`, expect: (o) => o.filter((x) => x.parent === null && x.description === o[0].description) },
    { query: () => 'parent=contract-parent', expect: (o) => o.filter((x) => x.parent?.slug === 'contract-parent') },
    { query: () => 'q=lan-group', expect: (o) => o },
  ],
});

runModelContract('wireless LAN', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.wirelessLan,
  path: '/api/wireless/wireless-lans/',
  schema: 'WirelessLAN',
  badPatch: { auth_cipher: 'rot13' },
  make: async (i) => ({
    ssid: `ssid-${i}`,
    ...(i % 2 ? { group: (await childGroup()).id } : {}),
    status: i % 3 ? 'active' : 'reserved',
    ...(i % 5 === 0 ? { tenant: (await theTenant()).id } : {}),
    auth_type: i % 2 ? 'wpa-personal' : '',
    auth_cipher: i % 2 ? 'aes' : '',
    auth_psk: i % 2 ? `psk-${i}` : '',
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', status: 'deprecated', auth_type: 'open' },
  invalid: [
    { body: { description: 'no ssid' }, field: 'ssid' },
    { body: { ssid: 'x'.repeat(33) }, field: 'ssid' },
    { body: { ssid: 'bad status', status: 'lost' }, field: 'status' },
    { body: { ssid: 'bad group', group: 999999 }, field: 'group' },
    { body: { ssid: 'bad psk', auth_psk: 'x'.repeat(65) }, field: 'auth_psk' },
  ],
  brief: ['ssid'],
  choices: ['status', 'auth_type', 'auth_cipher'],
  // the VLAN is ipam's: the cross-service pass writes, reads, filters and deletes through it (PROTECT)
  targets: { 'ipam.vlan': (i) => ({ vid: (i % 4000) + 1, name: `Xref VLAN ${i}` }) },
  filters: [
    { query: (o) => `ssid=${o[1].ssid}`, expect: (o) => [o[1]] },
    { query: () => 'status=reserved', expect: (o) => o.filter((x) => x.status.value === 'reserved') },
    // a tree filter: the parent's slug finds the LANs of its child
    { query: () => 'group=contract-parent', expect: (o) => o.filter((x) => x.group?.slug === 'contract-child') },
    { query: () => 'auth_type=wpa-personal', expect: (o) => o.filter((x) => x.auth_type?.value === 'wpa-personal') },
    { query: () => 'auth_cipher__n=aes', expect: (o) => o.filter((x) => x.auth_cipher?.value !== 'aes') },
    { query: () => 'tenant=wireless-tenant', expect: (o) => o.filter((x) => x.tenant?.slug === 'wireless-tenant') },
    { query: () => 'q=ssid', expect: (o) => o },
  ],
});

/** The first link with an SSID. */
const named = (o: Record<string, any>[]) => o.find((x) => x.ssid) ?? o[0];

/** Each contract link joins two fresh wireless interfaces of one device. */
const linkDevice = once(newDevice);
let radios = 0;
const radio = async (type = 'ieee802.11ac') => made('/api/dcim/interfaces/', { device: (await linkDevice()).id, name: `wlan${++radios}`, type });

runModelContract('wireless link', {
  stack: () => stack,
  service: 'dcim',
  model: dcimModels.wirelessLink,
  path: '/api/wireless/wireless-links/',
  schema: 'WirelessLink',
  badPatch: { status: 'cut' },
  make: async (i) => ({
    interface_a: (await radio()).id,
    interface_b: (await radio(i % 2 ? 'ieee802.11ax' : 'other-wireless')).id,
    ssid: i % 3 ? `link-${i}` : '',
    status: i % 4 ? 'connected' : 'planned',
    ...(i % 5 === 0 ? { tenant: (await theTenant()).id } : {}),
    auth_type: i % 2 ? 'wpa-enterprise' : '',
    auth_cipher: i % 2 ? 'tkip' : '',
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', ssid: 'patched', auth_psk: 'secret' },
  invalid: [
    { body: { ssid: 'no ends' }, field: 'interface_a' },
    { body: { interface_a: 999999, interface_b: 999998 }, field: 'interface_a' },
    { body: { interface_a: 999999, interface_b: 999998, ssid: 'x'.repeat(33) }, field: 'ssid' },
  ],
  brief: ['ssid'],
  choices: ['status', 'auth_type', 'auth_cipher'],
  filters: [
    { query: (o) => `interface_a_id=${o[0].interface_a.id}`, expect: (o) => [o[0]] },
    { query: (o) => `interface_b_id__gte=${o[1].interface_b.id}`, expect: (o) => o.filter((x) => x.interface_b.id >= o[1].interface_b.id) },
    { query: () => 'status=planned', expect: (o) => o.filter((x) => x.status.value === 'planned') },
    { query: () => 'auth_type=wpa-enterprise', expect: (o) => o.filter((x) => x.auth_type?.value === 'wpa-enterprise') },
    { query: () => 'tenant=wireless-tenant', expect: (o) => o.filter((x) => x.tenant?.slug === 'wireless-tenant') },
    // an empty value is no filter (django-filter's): a link with an SSID names one
    { query: (o) => `ssid=${named(o).ssid}`, expect: (o) => o.filter((x) => x.ssid === named(o).ssid) },
    { query: () => 'q=link-', expect: (o) => o.filter((x) => x.ssid.includes('link-')) },
  ],
});
