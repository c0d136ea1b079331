import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { checkNotMoved, componentDevice, componentDisplay, componentSearch, deviceComponentFilters, deviceOf } from './device-component';

/** NetBox 3.7's DeviceBay: a slot of a parent device a child device is installed in. */
export const deviceBay: ModelDef = defineModel({
  label: 'dcim.devicebay',
  endpoint: 'device-bays',
  table: 'device_bay',
  verboseName: 'device bay',
  fields: {
    device: componentDevice(),
    name: f.name(64, { natural: true }),
    label: f.string(64),
    description: f.description(),
    installed_device: f.fk('dcim.device', 'SET_NULL', { filterKey: 'name', unique: 'Device bay with this Installed device already exists.' }),
  },
  brief: ['device', 'name'],
  display: componentDisplay,
  ordering: ['device', 'name'],
  search: ['name', 'label', 'description'],
  unique: [{ fields: ['device', 'name'], message: 'Device bay with this Device and Name already exists.' }],
  filters: (ctx) => [...deviceComponentFilters(ctx), componentSearch()],
  hooks: { validate: (row, existing, wctx) => checkDeviceBay(row, existing, wctx) },
});

/** NetBox's DeviceBay.clean(). */
async function checkDeviceBay(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  checkNotMoved(row, existing);
  const parent = await deviceOf(wctx, row.device_id);
  if (parent && parent.subdevice_role !== 'parent') {
    throw new ValidationError({ device: [`This type of device (${String(parent.model)}) does not support device bays.`] });
  }
  if (row.installed_device_id === null || row.installed_device_id === undefined) return;
  if (String(row.installed_device_id) === String(row.device_id)) throw new ValidationError({ installed_device: ['Cannot install a device into itself.'] });
  const child = await deviceOf(wctx, row.installed_device_id);
  if (child && child.subdevice_role !== 'child') {
    throw new ValidationError({ installed_device: [`Cannot install the specified device; device's type (${String(child.model)}) has no parent/child role.`] });
  }
  const [elsewhere] = await wctx.tx.query(
    sql`SELECT name FROM ${raw(wctx.service.db.table('device_bay'))} WHERE installed_device_id = ${row.installed_device_id} AND id <> ${row.id ?? 0}`,
  );
  if (elsewhere) throw new ValidationError({ installed_device: [`Cannot install the specified device; device is already installed in ${String(elsewhere.name)}`] });
}
