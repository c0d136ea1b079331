import { defineModel, f, type ModelDef, type UniqueDef } from '@inventory/rest';

/**
 * The unique rules of NetBox's nested groups (regions, site groups): name and
 * slug unique among siblings, and among top-level nodes (where the parent is
 * null, which the (parent, ...) rules cannot see). Django's texts: the
 * sibling rules' generic message, the top-level rules' own.
 */
export function nestedGroupUnique(verboseName: string): UniqueDef[] {
  const model = verboseName.charAt(0).toUpperCase() + verboseName.slice(1);
  return [
    { fields: ['parent', 'name'], message: `${model} with this Parent and Name already exists.` },
    { fields: ['name'], whenNull: ['parent'], message: `A top-level ${verboseName} with this name already exists.` },
    { fields: ['parent', 'slug'], message: `${model} with this Parent and Slug already exists.` },
    { fields: ['slug'], whenNull: ['parent'], message: `A top-level ${verboseName} with this slug already exists.` },
  ];
}

/**
 * A NetBox nested group (region, site group): a tree of name, slug, parent
 * (CASCADE; `parent`/`parent_id` filter the direct parent only, as NetBox's)
 * and description, whose `site_count` counts the sites of the group and its
 * descendants through the site's `siteField`.
 */
export function nestedGroup(o: { label: string; endpoint: string; table?: string; verboseName: string; siteField: string }): ModelDef {
  return defineModel({
    label: o.label,
    endpoint: o.endpoint,
    ...(o.table ? { table: o.table } : {}),
    verboseName: o.verboseName,
    fields: {
      name: f.name(100),
      slug: f.slug(100),
      parent: f.fk(o.label, 'CASCADE', { nullable: true }),
      description: f.description(),
    },
    tree: true,
    brief: ['name', 'slug', 'site_count', '_depth'],
    display: (row) => String(row.name),
    ordering: ['_tree'],
    search: ['name', 'slug', 'description'],
    unique: nestedGroupUnique(o.verboseName),
    counts: { site_count: { model: 'dcim.site', field: o.siteField, tree: true } },
    contacts: true,
  });
}
