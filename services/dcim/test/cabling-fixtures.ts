import { bootStack, type Stack } from '@inventory/testkit';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

/**
 * What the cabling contract files share (components, ports, power and
 * cables, in three files so each runs beside the others in under a minute):
 * their stack, and the objects their bodies name, made once per file.
 */
export let stack: Stack;
export function bootCablingStack(): void {
  beforeAll(async () => {
    stack = await bootStack({ extras, tenancy, users, dcim }, {}, { template: true });
  });
  afterAll(() => stack?.stop());
}

export const once = <T>(make: () => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
};
export const made = async (path: string, body: Record<string, unknown>) => {
  const r = await stack.client('dcim').post(path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};

export const theSite = once(() => made('/api/dcim/sites/', { name: 'Cabling site', slug: 'cabling-site' }));
export const theType = once(async () => {
  const maker = await made('/api/dcim/manufacturers/', { name: 'Cabling maker', slug: 'cabling-maker' });
  return made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Cabling type', slug: 'cabling-type' });
});
export const theRole = once(() => made('/api/dcim/device-roles/', { name: 'Cabling role', slug: 'cabling-role', color: '0000ff' }));
let devices = 0;
export const newDevice = async () =>
  made('/api/dcim/devices/', { name: `cabling-${++devices}`, device_type: (await theType()).id, role: (await theRole()).id, site: (await theSite()).id });
/** Every component of the contract lives on one device (components cannot move between devices). */
export const theDevice = once(newDevice);
export const device = async () => ({ device: (await theDevice()).id });

export const componentInvalid = [
  { body: { name: 'no device', type: 'rj-45' }, field: 'device' },
  { body: { device: 999999, name: 'bad device' }, field: 'device' },
  { body: { device: 999999, name: 'x'.repeat(65) }, field: 'name' },
];
export const componentFilters = [
  { query: (o: any[]) => `device_id=${o[0].device.id}`, expect: (o: any[]) => o },
  { query: (o: any[]) => `device=${encodeURIComponent(o[0].device.name)}`, expect: (o: any[]) => o },
  { query: () => 'site=cabling-site', expect: (o: any[]) => o },
  { query: () => 'role=cabling-role', expect: (o: any[]) => o },
  { query: (o: any[]) => `name=${encodeURIComponent(o[1].name)}`, expect: (o: any[]) => [o[1]] },
  { query: () => 'cabled=false', expect: (o: any[]) => o },
  { query: () => 'occupied=true', expect: (o: any[]) => o.filter((x) => x.mark_connected) },
];
export const brief = ['device', 'name', 'cable', '_occupied'];

