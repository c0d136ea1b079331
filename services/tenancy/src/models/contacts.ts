import { contentType } from '@inventory/refs';
import { excludedBy, type FilterDef, raw, sql } from '@inventory/filtering';
import { contentTypeIdFilter, defineModel, f, ilike, keyResolver, searchFilter, noteTouched, removeGenericReferrers, type ModelDef, type ServiceContext, type WriteContext } from '@inventory/rest';

const name = (r: Record<string, unknown>) => String(r.name);

export const PRIORITY_CHOICES = [
  ['primary', 'Primary'],
  ['secondary', 'Secondary'],
  ['tertiary', 'Tertiary'],
  ['inactive', 'Inactive'],
] as const;

export const contactGroup: ModelDef = defineModel({
  label: 'tenancy.contactgroup',
  endpoint: 'contact-groups',
  table: 'contact_group',
  verboseName: 'contact group',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    parent: f.fk('tenancy.contactgroup', 'CASCADE', { nullable: true }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'contact_count', '_depth'],
  display: name,
  ordering: ['_tree'],
  search: ['name', 'slug', 'description'],
  unique: [{ fields: ['parent', 'name'], errorField: '__all__', message: 'A contact group with this name already exists.' }],
  counts: { contact_count: { model: 'tenancy.contact', field: 'group', tree: true } },
});

export const contactRole: ModelDef = defineModel({
  label: 'tenancy.contactrole',
  endpoint: 'contact-roles',
  table: 'contact_role',
  verboseName: 'contact role',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
  },
  brief: ['name', 'slug'],
  display: name,
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
});

export const contact: ModelDef = defineModel({
  label: 'tenancy.contact',
  endpoint: 'contacts',
  verboseName: 'contact',
  fields: {
    group: f.fk('tenancy.contactgroup', 'SET_NULL', { treeFilter: true }),
    name: f.name(100),
    title: f.string(100),
    phone: f.string(50),
    email: f.email(),
    address: f.string(200),
    link: f.url(200),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name'],
  display: name,
  ordering: ['name'],
  search: ['name', 'title', 'phone', 'email', 'address', 'link', 'description', 'comments'],
  unique: [{ fields: ['group', 'name'], errorField: '__all__', message: 'Contact with this Group and Name already exists.' }],
});

const supportsContacts = (label: string) => !!contentType(label)?.features.contacts;

/** NetBox's ContactAssignmentFilterSet.search: the contact's name or the role's name contains the text (case-insensitively). */
function assignmentSearch(ctx: ServiceContext): FilterDef {
  const contacts = raw(ctx.db.table(contact.table));
  const roles = raw(ctx.db.table(contactRole.table));
  return searchFilter((pattern) => [
    sql`t.contact_id IN (SELECT c.id FROM ${contacts} c WHERE ${ilike(sql`c.name`, pattern)})`,
    sql`t.role_id IN (SELECT r.id FROM ${roles} r WHERE ${ilike(sql`r.name`, pattern)})`,
  ]);
}

export const contactAssignment: ModelDef = defineModel({
  label: 'tenancy.contactassignment',
  endpoint: 'contact-assignments',
  table: 'contact_assignment',
  verboseName: 'contact assignment',
  fields: {
    content_type: f.contentType({ required: true, allowed: supportsContacts }),
    object_id: f.integer({ required: true, min: 0, max: 2147483647 }),
    object: f.generic('content_type', 'object_id'),
    // NetBox's `group_id` / `group` (TreeNodeMultipleChoiceFilters on contact__group): the contact's group or any group below it
    contact: f.fk('tenancy.contact', 'PROTECT', {
      required: true,
      filterKey: null,
      idFilter: 'contact_id',
      hops: [
        { name: 'group_id', via: 'group', to: 'tenancy.contactgroup', key: 'id', tree: true },
        { name: 'group', via: 'group', to: 'tenancy.contactgroup', key: 'slug', tree: true },
      ],
    }),
    role: f.fk('tenancy.contactrole', 'PROTECT', { required: true }),
    priority: f.choice(PRIORITY_CHOICES, { blank: true, singleFilter: true }),
  },
  brief: ['contact', 'role', 'priority'],
  display: (row, r) => {
    const c = (r.contact as { display?: string } | null)?.display ?? '';
    const o = (r.object as { display?: string } | null)?.display ?? `${String(row.content_type)} ${String(row.object_id)}`;
    const p = r.priority as { label?: string } | null;
    return p && p.label ? `${c} (${p.label}) -> ${o}` : `${c} -> ${o}`;
  },
  ordering: ['contact', 'priority', 'role'],
  search: [],
  filters: (ctx) => [contentTypeIdFilter('content_type_id', 'content_type'), assignmentSearch(ctx)],
  unique: [{ fields: ['content_type', 'object_id', 'contact', 'role'], message: 'ContactAssignment with this Content type, Object id, Contact and Role already exists.' }],
});

/**
 * `contact`, `contact_role`, `contact_group` filters: objects with a matching
 * contact assignment. Tenancy owns the assignments, so these run in its SQL.
 */
export function contactFilters(ctx: ServiceContext, model: ModelDef): FilterDef[] {
  const assignments = raw(ctx.db.table(contactAssignment.table));
  const via = (name: string, label: string, tree: boolean): FilterDef => ({
    kind: 'method',
    name,
    lookups: ['n'],
    valueType: 'integer',
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, label, 'id', tree)(values);
      const ids = values.flatMap((v) => found.get(v) ?? []);
      const match =
        name === 'contact_group'
          ? sql`ca.contact_id IN (SELECT id FROM ${raw(ctx.db.table(contact.table))} WHERE group_id = ANY(${ids}::bigint[]))`
          : sql`ca.${raw(name === 'contact' ? 'contact_id' : 'role_id')} = ANY(${ids}::bigint[])`;
      const exists = sql`EXISTS (SELECT 1 FROM ${assignments} ca WHERE ca.content_type = ${model.label} AND ca.object_id = t.id AND ${match})`;
      return excludedBy(lookup, exists);
    },
  });
  return [via('contact', 'tenancy.contact', false), via('contact_role', 'tenancy.contactrole', false), via('contact_group', 'tenancy.contactgroup', true)];
}

/** Deleting an object deletes its contact assignments, through the engine, so each has its change record and event. */
export async function deleteAssignments(label: string, ids: number[], wctx: WriteContext): Promise<void> {
  const rows = await removeGenericReferrers(wctx.service, contactAssignment, 'content_type', 'object_id', label, ids, wctx);
  if (rows.length) noteTouched(wctx, contactAssignment, { deleted: rows });
}
