import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { contentType } from '@inventory/refs';
import { contentTypesIdFilter, defineModel, f, noteTouched, removeGenericReferrers, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { validateConditions } from '../dispatch/conditions';

/** NetBox 3.7's EventRuleActionChoices. */
export const ACTION_TYPES = [
  ['webhook', 'Webhook'],
  ['script', 'Script'],
] as const;

/** EventRule.clean() in NetBox 3.7.8, word for word. */
export const NO_RULE_EVENT_TYPE = 'At least one event type must be selected: create, update, delete, job start, and/or job end.';
/** NetBox accepts script actions; this service has no scripts to run, so it refuses them rather than store a rule that never acts. */
export const NO_SCRIPTS = 'Script actions are not supported by this service: an event rule can only send a webhook.';
export const NOT_A_WEBHOOK = 'A webhook action must name a webhook (extras.webhook).';

export const WEBHOOK_LABEL = 'extras.webhook';
const TYPES = ['type_create', 'type_update', 'type_delete', 'type_job_start', 'type_job_end'] as const;

/** Object types a rule may watch (and name as its action's object): those whose changes are events. */
const supportsEvents = (label: string) => !!contentType(label)?.features.events;

/**
 * NetBox 3.7's EventRule (spec §C.5): what to watch (object types, event
 * types, conditions) and what to do, a webhook named by the generic
 * `action_object_type` / `action_object_id` pair. The dispatcher matches
 * enabled rules beside the seed-shaped webhooks' own triggers
 * (docs/decisions/027-event-rules.md). `action_parameters`, `action_data`
 * and `comments` are not exposed by NetBox's API and are not kept here.
 */
export const eventRule: ModelDef = defineModel({
  label: 'extras.eventrule',
  endpoint: 'event-rules',
  table: 'event_rule',
  verboseName: 'event rule',
  fields: {
    content_types: f.contentTypes({ required: true, allowed: supportsEvents }),
    name: f.name(150, { unique: true }),
    type_create: f.boolean(false),
    type_update: f.boolean(false),
    type_delete: f.boolean(false),
    type_job_start: f.boolean(false),
    type_job_end: f.boolean(false),
    enabled: f.boolean(true),
    conditions: f.json({ nullable: true }),
    action_type: f.choice(ACTION_TYPES, { default: 'webhook' }),
    action_object_type: f.contentType({ required: true, allowed: supportsEvents }),
    action_object_id: { type: 'bigint', nullable: true, min: 0 },
    action_object: f.generic('action_object_type', 'action_object_id'),
    description: f.description(),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: () => [contentTypesIdFilter()],
  hooks: { validate: validateRule },
});

/** EventRule.clean(), then what this service can act on: a webhook that exists. */
async function validateRule(row: Row, _existing: Row | null, wctx: WriteContext): Promise<void> {
  const errs: Record<string, string[]> = {};
  if (!TYPES.some((t) => row[t] === true)) errs.__all__ = [NO_RULE_EVENT_TYPE];
  if (row.conditions !== null && row.conditions !== undefined) {
    const problem = validateConditions(row.conditions);
    if (problem) errs.conditions = [problem];
  }
  if (row.action_type === 'script') errs.action_type = [NO_SCRIPTS];
  else if (row.action_object_type !== WEBHOOK_LABEL) errs.action_object_type = [NOT_A_WEBHOOK];
  else if (row.action_object_id === null || row.action_object_id === undefined) errs.action_object_id = ['This field is required.'];
  else if (!(await webhookExists(wctx, Number(row.action_object_id)))) {
    errs.action_object_id = [`Related object not found using the provided numeric ID: ${String(row.action_object_id)}`];
  }
  if (Object.keys(errs).length) throw new ValidationError(errs);
}

async function webhookExists(wctx: WriteContext, id: number): Promise<boolean> {
  const rows = await wctx.tx.query(sql`SELECT 1 FROM ${raw(wctx.service.db.table('webhook'))} WHERE id = ${id}`);
  return rows.length > 0;
}

/**
 * Deleting webhooks deletes the event rules that act with them, each with its
 * change record and event: NetBox's Webhook.events is a GenericRelation,
 * which Django's delete cascades to.
 */
export async function deleteRulesOf(ids: number[], wctx: WriteContext): Promise<void> {
  const rows = await removeGenericReferrers(wctx.service, eventRule, 'action_object_type', 'action_object_id', WEBHOOK_LABEL, ids, wctx);
  if (rows.length) noteTouched(wctx, eventRule, { deleted: rows });
}
