import { ValidationError } from '@inventory/core';
import { sql, parseDateTime, type FilterDef } from '@inventory/filtering';
import { contentTypeIdFilter, defineModel, f, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { journaled, parentExists, printedType } from './attached';

export const JOURNAL_KINDS = [
  ['info', 'Info'],
  ['success', 'Success'],
  ['warning', 'Warning'],
  ['danger', 'Danger'],
] as const;

/**
 * JournalEntrySerializer.validate, then JournalEntry.clean(): the object must
 * exist (checked first, as NetBox does), then its model must keep a journal
 * (an object whose owner could not say is refused for its type alone).
 */
async function checkAssignment(data: Row, wctx: WriteContext): Promise<void> {
  const type = String(data.assigned_object_type);
  const id = data.assigned_object_id;
  const exists = await parentExists(wctx, type, id, journaled);
  if (exists === false) {
    throw new ValidationError({ non_field_errors: [`Invalid assigned_object: ${printedType(type)} ID ${String(id)}`] });
  }
  if (!journaled(type)) throw new ValidationError({ __all__: [`Journaling is not supported for this object type (${printedType(type)}).`] });
}

const pad = (n: number) => String(n).padStart(2, '0');

/** NetBox's str(): the creation time in SHORT_DATETIME_FORMAT (`Y-m-d H:i`, UTC by default) and the kind's label. */
function journalDisplay(row: Row): string {
  const created = row.created ? new Date(row.created as string) : new Date();
  const when = `${created.getUTCFullYear()}-${pad(created.getUTCMonth() + 1)}-${pad(created.getUTCDate())} ${pad(created.getUTCHours())}:${pad(created.getUTCMinutes())}`;
  const kind = JOURNAL_KINDS.find(([v]) => v === row.kind)?.[1] ?? String(row.kind ?? '');
  return `${when} (${kind})`;
}

const createdBound = (name: string, op: '>=' | '<='): FilterDef => ({
  kind: 'method',
  name,
  apply: (values) => {
    const v = values[values.length - 1];
    if (!v) return undefined;
    return op === '>=' ? sql`t.created >= ${parseDateTime(v)}::timestamptz` : sql`t.created <= ${parseDateTime(v)}::timestamptz`;
  },
});

/**
 * Journal entries (NetBox's extras.JournalEntry, §C.8): remarks attached to
 * an object of any service by `assigned_object_type` / `assigned_object_id`.
 * The journaled models are projected here (the generic relation's allowed
 * models), so `assigned_object` renders from the projection with no call;
 * an object's delete event deletes its entries (projection-feed.ts), each
 * with its own change record and event, as NetBox's GenericRelation does.
 */
export const journalEntry: ModelDef = defineModel({
  label: 'extras.journalentry',
  endpoint: 'journal-entries',
  table: 'journal_entry',
  verboseName: 'journal entry',
  verboseNamePlural: 'journal entries',
  fields: {
    // any content type is accepted as a value: the model's journal is checked after the object (NetBox's order)
    assigned_object_type: f.contentType({ required: true }),
    assigned_object_id: { type: 'bigint', required: true, min: 0 },
    assigned_object: f.generic('assigned_object_type', 'assigned_object_id', { allowed: journaled }),
    // the caller when omitted (beforeSave); NetBox's PrimaryKeyRelatedField reads it as the bare id
    created_by: f.fk('auth.user', 'SET_NULL', { pk: true, filterKey: 'username' }),
    kind: f.choice(JOURNAL_KINDS, { default: 'info' }),
    comments: f.text({ required: true }),
  },
  brief: ['created'],
  display: (row) => journalDisplay(row),
  ordering: ['-created'],
  search: ['comments'],
  filters: (): FilterDef[] => [
    contentTypeIdFilter('assigned_object_type_id', 'assigned_object_type'),
    createdBound('created_after', '>='),
    createdBound('created_before', '<='),
  ],
  hooks: {
    validate: (data, existing, wctx) => {
      // a change that keeps the object keeps what was checked when it was attached
      if (existing && existing.assigned_object_type === data.assigned_object_type && String(existing.assigned_object_id) === String(data.assigned_object_id)) return;
      return checkAssignment(data, wctx);
    },
    beforeSave: (columns, existing, wctx) => {
      if (!existing && !('created_by_id' in columns)) columns.created_by_id = wctx.identity.user?.id ?? null;
    },
  },
});
