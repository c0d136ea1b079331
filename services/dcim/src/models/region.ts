import { defineModel, f, type ModelDef } from '@inventory/rest';
import { nestedGroupUnique } from './nested-groups';

export const region: ModelDef = defineModel({
  label: 'dcim.region',
  endpoint: 'regions',
  verboseName: 'region',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    // direct parent filters only (parent, parent_id), as NetBox's
    parent: f.fk('dcim.region', 'CASCADE', { nullable: true }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'site_count', '_depth'],
  display: (row) => String(row.name),
  ordering: ['_tree'],
  search: ['name', 'slug', 'description'],
  unique: nestedGroupUnique('region'),
  counts: { site_count: { model: 'dcim.site', field: 'region', tree: true } },
});
