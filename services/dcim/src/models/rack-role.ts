import { defineModel, f, type ModelDef } from '@inventory/rest';

export const rackRole: ModelDef = defineModel({
  label: 'dcim.rackrole',
  endpoint: 'rack-roles',
  table: 'rack_role',
  verboseName: 'rack role',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    color: f.color({ default: '9e9e9e' }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'rack_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { rack_count: { model: 'dcim.rack', field: 'role' } },
});
