import { defineModel, f, type ModelDef } from '@inventory/rest';

export const manufacturer: ModelDef = defineModel({
  label: 'dcim.manufacturer',
  endpoint: 'manufacturers',
  verboseName: 'manufacturer',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'devicetype_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: {
    devicetype_count: { model: 'dcim.devicetype', field: 'manufacturer' },
    inventoryitem_count: { model: 'dcim.inventoryitem', field: 'manufacturer' },
    platform_count: { model: 'dcim.platform', field: 'manufacturer' },
  },
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
});
