import { defineModel, f, type ModelDef } from '@inventory/rest';
import { nestedGroupUnique } from './nested-groups';

export const siteGroup: ModelDef = defineModel({
  label: 'dcim.sitegroup',
  endpoint: 'site-groups',
  table: 'site_group',
  verboseName: 'site group',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    parent: f.fk('dcim.sitegroup', 'CASCADE', { nullable: true }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'site_count', '_depth'],
  display: (row) => String(row.name),
  ordering: ['_tree'],
  search: ['name', 'slug', 'description'],
  unique: nestedGroupUnique('site group'),
  counts: { site_count: { model: 'dcim.site', field: 'group', tree: true } },
});
