import { defineModel, f, type ModelDef } from '@inventory/rest';

/**
 * NetBox's DeviceRole, without `config_template` (and its `config_template_id`
 * filter): extras.configtemplate is not a model of any service yet.
 */
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
    description: f.description(),
  },
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  // devices (dcim) and virtual machines (virtualization) are not served yet: they count 0
  counts: {
    device_count: { model: 'dcim.device', field: 'role' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'role' },
  },
});
