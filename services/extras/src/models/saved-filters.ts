import { ValidationError } from '@inventory/core';
import { sql, type FilterDef } from '@inventory/filtering';
import { parseBoolean } from '@inventory/filtering';
import { contentTypesIdFilter, defineModel, f, savedFilterVisibility, type ModelDef } from '@inventory/rest';

/**
 * Saved filters (NetBox's extras.SavedFilter, spec C.10): named sets of
 * query parameters that any list of the chosen types applies with
 * `?filter=<slug>` or `?filter_id=<id>` (libs/rest read/saved-filters.ts; every
 * service reads them from its projection). `user` is the owner, the caller
 * when omitted (NetBox's UI sets it so; its API leaves it null); a filter
 * that is not `shared` is seen and used by its owner only (and by
 * superusers), here and in every list: a private filter of someone else's
 * answers 404, as an object outside the caller's permissions does.
 */
export const savedFilter: ModelDef = defineModel({
  label: 'extras.savedfilter',
  endpoint: 'saved-filters',
  table: 'saved_filter',
  verboseName: 'saved filter',
  fields: {
    content_types: f.contentTypes({ required: true, help: 'The object type(s) to which this filter applies.' }),
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
    // a stock PrimaryKeyRelatedField in NetBox's serializer: the user's id
    user: f.fk('auth.user', 'SET_NULL', { pk: true, filterKey: 'username' }),
    weight: f.integer({ default: 100, min: 0, max: 32767 }),
    enabled: f.boolean(true),
    shared: f.boolean(true),
    parameters: f.json({ required: true, filter: false }),
  },
  tags: false,
  customFields: false,
  brief: ['name', 'slug'],
  display: (r) => String(r.name),
  ordering: ['weight', 'name'],
  search: ['name', 'slug', 'description'],
  filters: () => [contentTypesIdFilter()],
  visibleTo: (identity) => savedFilterVisibility(identity),
  callerFilters: (identity): FilterDef[] => [
    {
      // NetBox's `usable`: enabled, and shared or the caller's (superusers included: it is about what the caller would pick)
      kind: 'method',
      name: 'usable',
      valueType: 'boolean',
      apply: (values) => {
        const wanted = parseBoolean(values[values.length - 1] ?? '');
        if (wanted === undefined) return undefined;
        const mine = identity.user ? sql`t.user_id = ${identity.user.id}` : sql`FALSE`;
        const usable = sql`(t.enabled AND (t.shared OR COALESCE(${mine}, FALSE)))`;
        return wanted ? usable : sql`NOT ${usable}`;
      },
    },
  ],
  hooks: {
    validate(row) {
      const p = row.parameters;
      if (p === null || typeof p !== 'object' || Array.isArray(p)) {
        throw ValidationError.field('parameters', 'Filter parameters must be stored as a dictionary of keyword arguments.');
      }
    },
    beforeSave(columns, existing, wctx) {
      // the owner is the caller unless the request names one (or null)
      if (!existing && !('user_id' in columns)) columns.user_id = wctx.identity.user?.id ?? null;
    },
  },
});
