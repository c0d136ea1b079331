import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { DEVICE_AIRFLOW, SUBDEVICE_ROLE, WEIGHT_UNIT } from './choices';
import { templateFilters, typeSearchFilter } from './type-filters';
import { checkRackedInstances } from './device-rules';

/**
 * NetBox's DeviceType. front_image and rear_image hold the stored image path
 * (or null): uploads are not served.
 */
export const deviceType: ModelDef = defineModel({
  label: 'dcim.devicetype',
  endpoint: 'device-types',
  table: 'device_type',
  verboseName: 'device type',
  fields: {
    manufacturer: f.fk('dcim.manufacturer', 'PROTECT', { required: true }),
    default_platform: f.fk('dcim.platform', 'SET_NULL'),
    model: f.string(100, { required: true }),
    slug: f.slug(100),
    part_number: f.string(50),
    u_height: f.decimal({ maxDigits: 4, decimalPlaces: 1, default: 1.0, nullable: false, min: 0 }),
    exclude_from_utilization: f.boolean(false),
    is_full_depth: f.boolean(true),
    subdevice_role: f.choice(SUBDEVICE_ROLE, { blank: true, singleFilter: true }),
    airflow: f.choice(DEVICE_AIRFLOW, { blank: true, singleFilter: true }),
    weight: f.decimal({ maxDigits: 8, decimalPlaces: 2, nullable: true }),
    weight_unit: f.choice(WEIGHT_UNIT, { blank: true, singleFilter: true }),
    front_image: f.string(100, { nullable: true, filter: false }),
    rear_image: f.string(100, { nullable: true, filter: false }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['manufacturer', 'model', 'slug', 'device_count'],
  display: (row) => String(row.model),
  ordering: ['manufacturer', 'model'],
  search: ['model', 'part_number', 'description', 'comments'],
  unique: [
    { fields: ['manufacturer', 'model'], message: 'Device type with this Manufacturer and Model already exists.' },
    { fields: ['manufacturer', 'slug'], message: 'Device type with this Manufacturer and Slug already exists.' },
  ],
  counts: {
    device_count: { model: 'dcim.device', field: 'device_type' },
    console_port_template_count: { model: 'dcim.consoleporttemplate', field: 'device_type' },
    console_server_port_template_count: { model: 'dcim.consoleserverporttemplate', field: 'device_type' },
    power_port_template_count: { model: 'dcim.powerporttemplate', field: 'device_type' },
    power_outlet_template_count: { model: 'dcim.poweroutlettemplate', field: 'device_type' },
    interface_template_count: { model: 'dcim.interfacetemplate', field: 'device_type' },
    front_port_template_count: { model: 'dcim.frontporttemplate', field: 'device_type' },
    rear_port_template_count: { model: 'dcim.rearporttemplate', field: 'device_type' },
    device_bay_template_count: { model: 'dcim.devicebaytemplate', field: 'device_type' },
    module_bay_template_count: { model: 'dcim.modulebaytemplate', field: 'device_type' },
    inventory_item_template_count: { model: 'dcim.inventoryitemtemplate', field: 'device_type' },
  },
  filters: (ctx) => [
    typeSearchFilter(ctx),
    { kind: 'boolean', name: 'has_front_image', expr: sql`(t.front_image IS NOT NULL AND t.front_image <> '')` },
    { kind: 'boolean', name: 'has_rear_image', expr: sql`(t.rear_image IS NOT NULL AND t.rear_image <> '')` },
    ...templateFilters(ctx, 'device_type_id', true),
  ],
  hooks: {
    validate: (row, existing, wctx) => checkDeviceType(row, existing, wctx),
  },
});

const isSet = (v: unknown) => v !== null && v !== undefined;

/** NetBox's DeviceType.clean() (WeightMixin's rule first). */
async function checkDeviceType(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (isSet(row.weight) && Number(row.weight) !== 0 && !row.weight_unit) {
    throw new ValidationError({ __all__: ['Must specify a unit when setting a weight'] });
  }
  const height = Number(row.u_height ?? 0);
  if (Math.round(height * 10) % 5 !== 0) throw new ValidationError({ u_height: ['U height must be in increments of 0.5 rack units.'] });
  if (existing && existing.subdevice_role === 'parent' && row.subdevice_role !== 'parent') {
    const [bay] = await wctx.tx.query(
      sql`SELECT 1 FROM ${raw(wctx.service.db.table('device_bay_template'))} WHERE device_type_id = ${existing.id} LIMIT 1`,
    );
    if (bay) {
      throw new ValidationError({
        subdevice_role: ['Must delete all device bay templates associated with this device before declassifying it as a parent device.'],
      });
    }
  }
  if (existing) await checkRackedInstances(row, existing, wctx);
  if (row.subdevice_role === 'child' && height !== 0) throw new ValidationError({ u_height: ['Child device types must be 0U.'] });
}
