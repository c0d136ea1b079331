import { contentTypeById } from '@inventory/refs';
import { sql, ident, parseDateTime, type FilterDef } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's JobStatusChoices. */
export const JOB_STATUSES = [
  ['pending', 'Pending'],
  ['scheduled', 'Scheduled'],
  ['running', 'Running'],
  ['completed', 'Completed'],
  ['errored', 'Errored'],
  ['failed', 'Failed'],
] as const;

/** NetBox's `<field>__before` / `<field>__after` (DateTimeFilters, `lte` / `gte`): the last value counts. */
function bound(field: string, name: string, op: 'before' | 'after'): FilterDef {
  return {
    kind: 'method',
    name,
    apply: (values) => {
      const v = values[values.length - 1];
      if (!v) return undefined;
      const at = parseDateTime(v);
      return op === 'before' ? sql`t.${ident(field)} <= ${at}::timestamptz` : sql`t.${ident(field)} >= ${at}::timestamptz`;
    },
  };
}

/**
 * Jobs (NetBox 3.7's core.Job, `/api/core/jobs/`, read-only, a plain DRF
 * viewset: `?brief` is ignored): background work on an object, here the
 * syncs of data sources (data/sync.ts), with its status, times, user and
 * error. Written by the work itself: no change records, as in NetBox.
 */
export const job: ModelDef = defineModel({
  label: 'core.job',
  endpoint: 'jobs',
  table: 'job',
  verboseName: 'job',
  fields: {
    object_type: f.contentType({ readOnly: true, required: true, filter: false }),
    object_id: { type: 'bigint', readOnly: true, nullable: true },
    name: f.string(200, { readOnly: true }),
    status: f.choice(JOB_STATUSES, { readOnly: true, default: 'pending' }),
    created: f.datetime({ readOnly: true }),
    scheduled: f.datetime({ readOnly: true, nullable: true }),
    interval: f.integer({ readOnly: true, nullable: true, min: 1, help: 'Recurrence interval (in minutes)' }),
    started: f.datetime({ readOnly: true, nullable: true }),
    completed: f.datetime({ readOnly: true, nullable: true }),
    user: f.fk('auth.user', 'SET_NULL', { readOnly: true, filter: false }),
    data: f.json({ readOnly: true, nullable: true, filter: false, orderable: false }),
    error: f.text({ readOnly: true, filter: false }),
    job_id: f.string(36, { readOnly: true, unique: true, label: 'job ID', filter: false }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  readOnly: true,
  // not a NetBox viewset: no brief form, the full one is read
  brief: ['object_type', 'object_id', 'name', 'status', 'created', 'scheduled', 'interval', 'started', 'completed', 'user', 'data', 'error', 'job_id'],
  display: (r) => String(r.job_id),
  ordering: ['-created'],
  search: ['name'],
  filters: (): FilterDef[] => [
    // NetBox's ModelChoiceFilters: the content type and the user by id
    {
      kind: 'method',
      name: 'object_type',
      lookups: ['n'],
      valueType: 'integer',
      apply: (values, lookup) => {
        const given = values.filter((v) => v !== '');
        if (!given.length) return undefined;
        const labels = given.map((v) => contentTypeById(Number(v))?.label ?? '');
        return lookup === 'n' ? sql`NOT (t.object_type = ANY(${labels}::text[]))` : sql`t.object_type = ANY(${labels}::text[])`;
      },
    },
    {
      kind: 'method',
      name: 'user',
      lookups: ['n'],
      valueType: 'integer',
      apply: (values, lookup) => {
        const given = values.filter((v) => v !== '').map(Number);
        if (!given.length) return undefined;
        return lookup === 'n' ? sql`NOT COALESCE(t.user_id = ANY(${given}::bigint[]), FALSE)` : sql`t.user_id = ANY(${given}::bigint[])`;
      },
    },
    ...['created', 'scheduled', 'started', 'completed'].flatMap((field) => [bound(field, `${field}__before`, 'before'), bound(field, `${field}__after`, 'after')]),
  ],
});
