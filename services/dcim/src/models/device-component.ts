import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { f, searchFilter, keyResolver, type FieldDef, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { SITE_SCOPE_HOPS } from '@inventory/refs';

/** A device component's owner: required, deleted with the device; filters by device name too. */
export const componentDevice = (): FieldDef => f.fk('dcim.device', 'CASCADE', { required: true, filterKey: 'name' });

/** NetBox's ComponentModel.clean(): a component stays on the device it was created on. */
export function checkNotMoved(row: Row, existing: Row | null): void {
  if (existing && String(existing.device_id) !== String(row.device_id)) {
    throw new ValidationError({ device: ['Components cannot be moved to a different device.'] });
  }
}

/**
 * NetBox's DeviceComponentFilterSet beyond `device`/`device_id`: the device's
 * site scope, location, rack, type, role and virtual chassis (§0.9).
 */
export function deviceComponentFilters(ctx: ServiceContext): FilterDef[] {
  const devices = raw(ctx.db.table('device'));
  const via = (column: string) => sql`(SELECT d.${raw(column)} FROM ${devices} d WHERE d.id = t.device_id)`;
  const rel = (name: string, column: string, label: string, key: string, tree = false): FilterDef => ({
    kind: 'relation',
    name,
    expr: via(column),
    resolve: keyResolver(ctx, label, key, tree),
    keyType: key === 'id' ? 'integer' : 'string',
  });
  const hop = (name: string, column: string, label: string, key: string): FilterDef => ({
    kind: 'relation',
    name,
    expr: sql`(SELECT s.${raw(column)} FROM ${devices} d JOIN ${raw(ctx.db.table('site'))} s ON s.id = d.site_id WHERE d.id = t.device_id)`,
    resolve: keyResolver(ctx, label, key, true),
    keyType: key === 'id' ? 'integer' : 'string',
  });
  const scope = SITE_SCOPE_HOPS.map((h) => hop(h.name, `${h.via}_id`, h.to, h.key));
  return [
    ...scope,
    rel('site_id', 'site_id', 'dcim.site', 'id'),
    rel('site', 'site_id', 'dcim.site', 'slug'),
    rel('location_id', 'location_id', 'dcim.location', 'id'),
    rel('location', 'location_id', 'dcim.location', 'slug'),
    rel('rack_id', 'rack_id', 'dcim.rack', 'id'),
    rel('rack', 'rack_id', 'dcim.rack', 'name'),
    rel('device_type_id', 'device_type_id', 'dcim.devicetype', 'id'),
    rel('device_type', 'device_type_id', 'dcim.devicetype', 'model'),
    rel('role_id', 'role_id', 'dcim.devicerole', 'id'),
    rel('role', 'role_id', 'dcim.devicerole', 'slug'),
    rel('device_role_id', 'role_id', 'dcim.devicerole', 'id'),
    rel('device_role', 'role_id', 'dcim.devicerole', 'slug'),
    rel('virtual_chassis_id', 'virtual_chassis_id', 'dcim.virtualchassis', 'id'),
    rel('virtual_chassis', 'virtual_chassis_id', 'dcim.virtualchassis', 'name'),
  ];
}

/** `q` of device components: name, label, description. */
export function componentSearch(): FilterDef {
  return searchFilter((p) => [sql`t.name ILIKE ${p}`, sql`t.label ILIKE ${p}`, sql`t.description ILIKE ${p}`]);
}

/** The device a write names, with its type's subdevice role (bays' rules). */
export async function deviceOf(wctx: WriteContext, id: unknown): Promise<Row | undefined> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  const [hit] = await wctx.tx.query(sql`
    SELECT d.id, d.name, dt.model, dt.subdevice_role FROM ${t('device')} d JOIN ${t('device_type')} dt ON dt.id = d.device_type_id WHERE d.id = ${id ?? 0}`);
  return hit;
}

/** A component's display: `name (label)` or `name`. */
export const componentDisplay = (row: Row) => (row.label ? `${String(row.name)} (${String(row.label)})` : String(row.name));
