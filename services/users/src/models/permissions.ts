import { ValidationError } from '@inventory/core';
import { contentType, contentTypeById } from '@inventory/refs';
import { excludedBy, type FilterDef, or, parseBoolean, sql } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { m2mKeyFilter } from './filters';

export const PERMISSION_GROUPS_TABLE = 'object_permission_groups';
export const PERMISSION_USERS_TABLE = 'object_permission_users';

/** `can_view=true`: the action list holds the action. */
function actionFilter(action: string): FilterDef {
  return {
    kind: 'method',
    name: `can_${action}`,
    apply: (values) => {
      const b = parseBoolean(values[values.length - 1] ?? '');
      if (b === undefined) return undefined;
      return b ? sql`${action} = ANY(t.actions)` : sql`NOT (${action} = ANY(t.actions))`;
    },
  };
}

export const objectPermission: ModelDef = defineModel({
  label: 'users.objectpermission',
  endpoint: 'permissions',
  table: 'object_permission',
  verboseName: 'object permission',
  fields: {
    name: f.name(100),
    description: f.description(),
    enabled: f.boolean(true),
    object_types: f.contentTypes({ required: true }),
    groups: f.m2m('auth.group', PERMISSION_GROUPS_TABLE, { idFilter: 'group_id', filterKey: null, readAs: 'name' }),
    users: f.m2m('auth.user', PERMISSION_USERS_TABLE, { idFilter: 'user_id', filterKey: null, readAs: 'username' }),
    actions: f.array('string', { required: true, itemMaxLength: 30 }),
    constraints: f.json({ nullable: true, shape: 'object-or-array' }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  brief: ['name', 'enabled', 'object_types', 'groups', 'users', 'actions'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: (ctx): FilterDef[] => [
    {
      kind: 'method',
      name: 'object_types',
      lookups: ['n'],
      apply: (values, lookup) => {
        // content type ids (as NetBox); labels are accepted too
        const labels = values.map((v) => (/^\d+$/.test(v) ? contentTypeById(Number(v))?.label : contentType(v)?.label) ?? '');
        const any = or(labels.map((l) => sql`t.object_types @> ARRAY[${l}]::varchar[]`));
        return excludedBy(lookup, any);
      },
    },
    m2mKeyFilter(ctx, 'user', PERMISSION_USERS_TABLE, 'auth.user', 'username'),
    m2mKeyFilter(ctx, 'group', PERMISSION_GROUPS_TABLE, 'auth.group', 'name'),
    actionFilter('view'),
    actionFilter('add'),
    actionFilter('change'),
    actionFilter('delete'),
  ],
  hooks: {
    validate: (data) => {
      const errors: Record<string, string[]> = {};
      if (!Array.isArray(data.actions) || data.actions.length === 0) errors.actions = ['This field cannot be blank.'];
      const c = data.constraints;
      if (Array.isArray(c) && c.some((s) => s === null || typeof s !== 'object' || Array.isArray(s))) {
        errors.constraints = ['Constraints must be defined as a JSON object or a list of JSON objects.'];
      }
      if (Object.keys(errors).length) throw new ValidationError(errors);
    },
  },
});
