import { defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's Platform, without the `available_for_device_type` filter. */
export const platform: ModelDef = defineModel({
  label: 'dcim.platform',
  endpoint: 'platforms',
  verboseName: 'platform',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    manufacturer: f.fk('dcim.manufacturer', 'PROTECT', { nullable: true }),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: {
    device_count: { model: 'dcim.device', field: 'platform' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'platform' },
  },
});
