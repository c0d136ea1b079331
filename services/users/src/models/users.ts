import { sql, raw, type FilterDef } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { hashPassword } from '../passwords';
import { m2mKeyFilter } from './filters';

/** Link tables (owner = the model declaring the relation). */
export const USER_GROUPS_TABLE = 'user_groups';
export const USER_CONFIG_TABLE = 'user_config';
/** Each user's dashboard (NetBox's Dashboard: a layout and its widgets' config), at /api/extras/dashboard/. */
export const DASHBOARD_TABLE = 'dashboard';

/** Django's UnicodeUsernameValidator. */
const USERNAME = /^[\p{L}\p{N}_.@+-]+$/u;
const USERNAME_MESSAGE = 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.';

export const group: ModelDef = defineModel({
  label: 'auth.group',
  endpoint: 'groups',
  table: 'group',
  verboseName: 'group',
  fields: {
    name: f.name(150, { unique: true }),
    user_count: f.integer({ readOnly: true, virtual: true }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name'],
  hooks: {
    /** Members per group: one grouped query for the whole page. */
    decorate: async (rows, out, { brief, service, q, wants }) => {
      if (brief || rows.length === 0 || wants?.('user_count') === false) return;
      const ids = rows.map((r) => Number(r.id));
      const counts = await q.query(
        sql`SELECT target_id, count(*) AS n FROM ${raw(service.db.table(USER_GROUPS_TABLE))} WHERE target_id = ANY(${ids}::bigint[]) GROUP BY target_id`,
      );
      const byGroup = new Map(counts.map((c) => [Number(c.target_id), Number(c.n)]));
      for (const o of out) o.user_count = byGroup.get(Number(o.id)) ?? 0;
    },
  },
});

export const user: ModelDef = defineModel({
  label: 'auth.user',
  endpoint: 'users',
  table: 'user',
  verboseName: 'user',
  fields: {
    username: f.string(150, {
      required: true,
      unique: 'A user with that username already exists.',
      pattern: { regex: USERNAME, message: USERNAME_MESSAGE },
    }),
    // write-only; required on POST and PUT, optional on PATCH; stored hashed (beforeSave)
    password: f.password({ required: true }),
    first_name: f.string(150),
    last_name: f.string(150),
    email: f.email({ label: 'email address' }),
    is_staff: f.boolean(false),
    is_active: f.boolean(true),
    date_joined: f.datetime({ default: () => new Date().toISOString() }),
    last_login: f.datetime({ nullable: true }),
    groups: f.m2m('auth.group', USER_GROUPS_TABLE, { idFilter: 'group_id', filterKey: null }),
    // stored, never serialized, not writable through the API; filterable (see filters)
    is_superuser: f.boolean(false, { readOnly: true, writeOnly: true, filter: false, orderable: false }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  brief: ['username'],
  display: (r) => {
    const full = `${String(r.first_name ?? '')} ${String(r.last_name ?? '')}`.trim();
    return full ? `${String(r.username)} (${full})` : String(r.username);
  },
  ordering: ['username'],
  search: ['username', 'first_name', 'last_name', 'email'],
  filters: (ctx): FilterDef[] => [
    { kind: 'boolean', name: 'is_superuser', expr: sql`t.is_superuser` },
    m2mKeyFilter(ctx, 'group', USER_GROUPS_TABLE, 'auth.group', 'name'),
  ],
  hooks: {
    beforeSave: async (data) => {
      if (typeof data.password === 'string') data.password = await hashPassword(data.password);
    },
    beforeDelete: async (ids, { tx, service }) => {
      await tx.query(sql`DELETE FROM ${raw(service.db.table(USER_CONFIG_TABLE))} WHERE user_id = ANY(${ids}::bigint[])`);
      await tx.query(sql`DELETE FROM ${raw(service.db.table(DASHBOARD_TABLE))} WHERE user_id = ANY(${ids}::bigint[])`);
    },
  },
});
