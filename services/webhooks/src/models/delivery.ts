import { defineModel, f, type ModelDef } from '@inventory/rest';

export const DELIVERY_EVENTS = [
  ['created', 'Created'],
  ['updated', 'Updated'],
  ['deleted', 'Deleted'],
] as const;

export const DELIVERY_STATUS = [
  ['queued', 'Queued'],
  ['succeeded', 'Succeeded'],
  ['retrying', 'Retrying'],
  ['failed', 'Failed'],
] as const;

/**
 * One outbound request per matching webhook and change event (the seed's
 * delivery states, plus `retrying` for the automatic retries), read-only
 * over REST (`/api/extras/webhook-deliveries/`): the dispatcher writes the
 * rows in its own transactions. A redelivered event never makes a second
 * delivery (unique webhook, event id and event rule). `attempts` lists each try as
 * `{time, status_code, duration_ms, error, response}`; `attempts` and
 * `attempt_count` have no column default, so the dispatcher's insert gives
 * them (`[]`, 0).
 */
export const webhookDelivery: ModelDef = defineModel({
  label: 'extras.webhookdelivery',
  endpoint: 'webhook-deliveries',
  table: 'webhook_delivery',
  verboseName: 'webhook delivery',
  verboseNamePlural: 'webhook deliveries',
  fields: {
    webhook: f.fk('extras.webhook', 'CASCADE', { readOnly: true, required: true, filterKey: 'name' }),
    // the event rule that made it; null for the webhook's own triggers (the seed's shape)
    event_rule: f.fk('extras.eventrule', 'CASCADE', { readOnly: true, nullable: true, filterKey: 'name' }),
    event_id: f.string(36, { readOnly: true, required: true }),
    event: f.choice(DELIVERY_EVENTS, { readOnly: true, required: true }),
    object_type: f.string(100, { readOnly: true, required: true }),
    object_id: { type: 'bigint', readOnly: true, required: true },
    request_id: f.string(64, { readOnly: true }),
    status: f.choice(DELIVERY_STATUS, { readOnly: true, required: true, default: 'queued' }),
    attempts: f.json({ readOnly: true, required: true, filter: false, orderable: false }),
    attempt_count: f.integer({ readOnly: true, required: true, default: 0 }),
    next_attempt_at: f.datetime({ readOnly: true, nullable: true }),
    // the webhook context the attempts render (NetBox's event, timestamp, model, username, request_id, data, snapshots),
    // kept as the text of the default body (Python's json.dumps): sent as it is, without parsing or dumping again
    context: f.json({ readOnly: true, nullable: true, filter: false, orderable: false, asText: true }),
  },
  tags: false,
  customFields: false,
  readOnly: true,
  brief: ['webhook', 'event', 'object_type', 'object_id', 'status'],
  display: (r) => `${String(r.object_type)} ${String(r.object_id)} ${String(r.event)}`,
  ordering: ['-created', '-id'],
  search: ['object_type', 'request_id', 'event_id'],
  // one delivery per match: the webhook's own triggers once, each event rule naming it once
  unique: [
    { fields: ['webhook', 'event_id'], whenNull: ['event_rule'], message: 'This event already has a delivery for this webhook.' },
    { fields: ['webhook', 'event_id', 'event_rule'], message: 'This event already has a delivery for this webhook and event rule.' },
  ],
});
