import { defineModel, f, type ModelDef } from '@inventory/rest';

/**
 * NetBox's Platform, without `config_template` (and `config_template_id`):
 * extras.configtemplate is not a model of any service yet; nor the
 * `available_for_device_type` filter, until device types exist.
 */
export const platform: ModelDef = defineModel({
  label: 'dcim.platform',
  endpoint: 'platforms',
  verboseName: 'platform',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    manufacturer: f.fk('dcim.manufacturer', 'PROTECT', { nullable: true }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  // devices (dcim) and virtual machines (virtualization) are not served yet: they count 0
  counts: {
    device_count: { model: 'dcim.device', field: 'platform' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'platform' },
  },
});
