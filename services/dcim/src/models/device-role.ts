import { defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's DeviceRole. */
export const deviceRole: ModelDef = defineModel({
  label: 'dcim.devicerole',
  endpoint: 'device-roles',
  table: 'device_role',
  verboseName: 'device role',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    color: f.color({ default: '9e9e9e' }),
    vm_role: f.boolean(true),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: {
    device_count: { model: 'dcim.device', field: 'role' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'role' },
  },
});
