import { sql, raw, or, type FilterDef } from '@inventory/filtering';
import { searchFilter, type ServiceContext } from '@inventory/rest';
import { manufacturer } from './manufacturer';

/** `q` of device and module types: the manufacturer's name, model, part number, description, comments. */
export function typeSearchFilter(ctx: ServiceContext): FilterDef {
  const makers = raw(ctx.db.table(manufacturer.table));
  return searchFilter((pattern) => [
    sql`t.model ILIKE ${pattern}`,
    sql`t.part_number ILIKE ${pattern}`,
    sql`t.description ILIKE ${pattern}`,
    sql`t.comments ILIKE ${pattern}`,
    sql`EXISTS (SELECT 1 FROM ${makers} m WHERE m.id = t.manufacturer_id AND m.name ILIKE ${pattern})`,
  ]);
}

/**
 * NetBox's "has at least one template of that kind" booleans of device and
 * module types (`console_ports`, …, `pass_through_ports` for front or rear
 * port templates); device types also have `module_bays`, `device_bays` and
 * `inventory_items`.
 */
export function templateFilters(ctx: ServiceContext, ownerColumn: 'device_type_id' | 'module_type_id', deviceType: boolean): FilterDef[] {
  const has = (table: string) => sql`EXISTS (SELECT 1 FROM ${raw(ctx.db.table(table))} x WHERE x.${raw(ownerColumn)} = t.id)`;
  const filters: FilterDef[] = [
    { kind: 'boolean', name: 'console_ports', expr: has('console_port_template') },
    { kind: 'boolean', name: 'console_server_ports', expr: has('console_server_port_template') },
    { kind: 'boolean', name: 'power_ports', expr: has('power_port_template') },
    { kind: 'boolean', name: 'power_outlets', expr: has('power_outlet_template') },
    { kind: 'boolean', name: 'interfaces', expr: has('interface_template') },
    { kind: 'boolean', name: 'pass_through_ports', expr: or([has('front_port_template'), has('rear_port_template')]) },
  ];
  if (deviceType) {
    filters.push(
      { kind: 'boolean', name: 'module_bays', expr: has('module_bay_template') },
      { kind: 'boolean', name: 'device_bays', expr: has('device_bay_template') },
      { kind: 'boolean', name: 'inventory_items', expr: has('inventory_item_template') },
    );
  }
  return filters;
}
