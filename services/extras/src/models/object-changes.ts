import { contentType, contentTypeById, contentTypeDisplay } from '@inventory/refs';
import { excludedBy, type FilterDef, parseDateTime, raw, sql } from '@inventory/filtering';
import { defineModel, f, parseUuid, type ModelDef } from '@inventory/rest';

export const OBJECT_CHANGE_ACTIONS = [
  ['create', 'Created'],
  ['update', 'Updated'],
  ['delete', 'Deleted'],
] as const;

/** `changed_object` and its nested objects carry the URLs of the writer's request: re-based onto this request's. */
function rebase(value: unknown, base: string, depth = 0): unknown {
  if (!value || typeof value !== 'object' || depth > 2) return value;
  if (Array.isArray(value)) return value.map((v) => rebase(v, base, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'url' && typeof v === 'string') {
      const at = v.indexOf('/api/');
      out[k] = at >= 0 ? base + v.slice(at) : v;
    } else out[k] = rebase(v, base, depth + 1);
  }
  return out;
}

const label = (action: unknown) => OBJECT_CHANGE_ACTIONS.find(([v]) => v === action)?.[1] ?? String(action);

/**
 * The change log (`/api/extras/object-changes/`, §C.7), read-only: one row
 * per change event of any service, written by the `extras.changelog`
 * consumer (changelog.ts). `user` is the user's nested form when the
 * consumer could resolve the event's username to a user id (users service
 * reachable), else null; `user_name` is always the recorded name.
 * `changed_object` is the nested form taken from the event's data (no call
 * at read time), refreshed by later changes of the object and null once it
 * is deleted. `object_repr` is stored for the filters and `display` and, as
 * in NetBox 3.7, not serialized.
 */
export const objectChange: ModelDef = defineModel({
  label: 'extras.objectchange',
  endpoint: 'object-changes',
  table: 'object_change',
  verboseName: 'object change',
  fields: {
    time: f.datetime({ readOnly: true, required: true }),
    user: f.fk('auth.user', 'SET_NULL', { readOnly: true, filter: false }),
    user_name: f.string(150, { readOnly: true }),
    request_id: f.string(64, { readOnly: true, filter: false }),
    action: f.choice(OBJECT_CHANGE_ACTIONS, { readOnly: true, required: true }),
    changed_object_type: f.contentType({ readOnly: true, required: true }),
    changed_object_id: { type: 'bigint', readOnly: true, required: true },
    changed_object: f.json({ readOnly: true, nullable: true, filter: false, orderable: false }),
    prechange_data: f.json({ readOnly: true, nullable: true, filter: false, orderable: false }),
    postchange_data: f.json({ readOnly: true, nullable: true, filter: false, orderable: false }),
    object_repr: f.string(200, { readOnly: true, writeOnly: true }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  readOnly: true,
  // brief mode is not supported on object changes (§A): it reads the full form
  brief: ['time', 'user', 'user_name', 'request_id', 'action', 'changed_object_type', 'changed_object_id', 'changed_object', 'prechange_data', 'postchange_data'],
  display: (r) => {
    const ct = contentType(String(r.changed_object_type));
    return `${ct ? contentTypeDisplay(ct) : String(r.changed_object_type)} ${String(r.object_repr)} ${label(r.action).toLowerCase()} by ${String(r.user_name)}`;
  },
  ordering: ['-time'],
  search: ['user_name', 'object_repr'],
  filters: (): FilterDef[] => [
    // the recorded username (the user may live on in another service, or be gone)
    // NetBox's ModelMultipleChoiceFilter by username: `__n` alone
    { kind: 'string', name: 'user', expr: sql`t.user_name`, lookups: ['n'] },
    { kind: 'integer', name: 'user_id', expr: sql`t.user_id` },
    { kind: 'string', name: 'object_repr', expr: sql`t.object_repr` },
    {
      kind: 'method',
      name: 'request_id',
      lookups: ['n'],
      valueType: 'string',
      apply: (values, lookup) => {
        const ids = values.filter((v) => v !== '').map(parseUuid);
        if (!ids.length) return undefined;
        return excludedBy(lookup, sql`t.request_id = ANY(${ids}::text[])`);
      },
    },
    {
      kind: 'method',
      name: 'changed_object_type_id',
      lookups: ['n'],
      valueType: 'integer',
      apply: (values, lookup) => {
        const labels = values.map((v) => contentTypeById(Number(v))?.label ?? '');
        return excludedBy(lookup, sql`t.changed_object_type = ANY(${labels}::text[])`);
      },
    },
    {
      kind: 'method',
      name: 'time_after',
      apply: (values) => {
        const v = values[values.length - 1];
        return v ? sql`t.time >= ${parseDateTime(v)}::timestamptz` : undefined;
      },
    },
    {
      kind: 'method',
      name: 'time_before',
      apply: (values) => {
        const v = values[values.length - 1];
        return v ? sql`t.time <= ${parseDateTime(v)}::timestamptz` : undefined;
      },
    },
  ],
  hooks: {
    // each change shows its object as it is now: the nested form its newest change left (null once deleted), one query a page
    async decorate(_rows, out, { service, q, wants }) {
      if (!out.length || wants?.('changed_object') === false) return;
      const t = raw(service.db.table(objectChange.table));
      const current = await q.query(sql`
        SELECT c.id, latest.changed_object FROM ${t} c
          CROSS JOIN LATERAL (SELECT n.changed_object FROM ${t} n
                               WHERE n.changed_object_type = c.changed_object_type AND n.changed_object_id = c.changed_object_id
                               ORDER BY n.time DESC, n.id DESC LIMIT 1) latest
         WHERE c.id = ANY(${out.map((o) => Number(o.id))}::bigint[])`);
      const byId = new Map(current.map((r) => [Number(r.id), r.changed_object]));
      for (const o of out) {
        const url = String(o.url);
        const base = url.slice(0, Math.max(0, url.indexOf('/api/')));
        o.changed_object = rebase(byId.get(Number(o.id)) ?? null, base);
      }
    },
  },
});
