import { ValidationError } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { sql, raw } from '@inventory/filtering';
import { f, type FieldDef, type Row, type WriteContext } from '@inventory/rest';

/** The components an inventory item (or its template) may stand for (NetBox's MODULAR_COMPONENT_MODELS and bays). */
const COMPONENT_TABLES: Record<string, string> = {
  'dcim.consoleport': 'console_port',
  'dcim.consoleserverport': 'console_server_port',
  'dcim.frontport': 'front_port',
  'dcim.interface': 'interface',
  'dcim.poweroutlet': 'power_outlet',
  'dcim.powerport': 'power_port',
  'dcim.rearport': 'rear_port',
};
const TEMPLATE_TABLES: Record<string, string> = {
  'dcim.consoleporttemplate': 'console_port_template',
  'dcim.consoleserverporttemplate': 'console_server_port_template',
  'dcim.frontporttemplate': 'front_port_template',
  'dcim.interfacetemplate': 'interface_template',
  'dcim.poweroutlettemplate': 'power_outlet_template',
  'dcim.powerporttemplate': 'power_port_template',
  'dcim.rearporttemplate': 'rear_port_template',
};

/** The generic `component` of an inventory item (or of its template). */
export function componentFields(templates: boolean): Record<string, FieldDef> {
  const allowed = (label: string) => label in (templates ? TEMPLATE_TABLES : COMPONENT_TABLES) && !!contentType(label);
  return {
    component_type: f.contentType({ nullable: true, allowed }),
    component_id: f.integer({ nullable: true, min: 0, max: 2147483647 }),
    component: f.generic('component_type', 'component_id', { allowed }),
  };
}

/** The component named exists and belongs to the same owner (device, or device type). */
export async function checkComponent(row: Row, wctx: WriteContext, owner: 'device_id' | 'device_type_id'): Promise<void> {
  const type = row.component_type as string | null | undefined;
  if (!type || row.component_id === null || row.component_id === undefined) return;
  const table = (owner === 'device_id' ? COMPONENT_TABLES : TEMPLATE_TABLES)[type];
  const [hit] = await wctx.tx.query(sql`SELECT ${raw(owner)} AS owner FROM ${raw(wctx.service.db.table(table))} WHERE id = ${row.component_id}`);
  if (!hit) throw new ValidationError({ component_id: ['Related object not found using the provided numeric ID: ' + String(row.component_id)] });
  if (String(hit.owner) !== String(row[owner])) {
    throw new ValidationError({ component_id: [`The component must belong to the same ${owner === 'device_id' ? 'device' : 'device type'}.`] });
  }
}

/** The parent belongs to the same owner. */
export async function checkParent(row: Row, wctx: WriteContext, table: string, owner: 'device_id' | 'device_type_id'): Promise<void> {
  if (row.parent_id === null || row.parent_id === undefined) return;
  const [hit] = await wctx.tx.query(sql`SELECT ${raw(owner)} AS owner FROM ${raw(wctx.service.db.table(table))} WHERE id = ${row.parent_id}`);
  if (hit && String(hit.owner) !== String(row[owner])) {
    throw new ValidationError({ parent: [`Parent inventory item does not belong to the same ${owner === 'device_id' ? 'device' : 'device type'}.`] });
  }
}
