import type { ChangeEvent, ConsumerTx } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import { evaluate } from '../dispatch/conditions';
import { webhookContext } from '../dispatch/context';
import { defaultBody } from '../dispatch/render';

/**
 * What matching reads of a trigger: a webhook's own (the seed's shape) or
 * an event rule that acts with a webhook (NetBox 3.7's shape).
 */
export interface MatchedHook {
  /** The webhook to deliver to. */
  id: number;
  /** The event rule, when the trigger is one (null or absent: the webhook's own). */
  rule?: number | null;
  content_types: string[];
  type_create: boolean;
  type_update: boolean;
  type_delete: boolean;
  conditions: unknown;
}

/** A delivery to record: one webhook (and the rule that matched, if any), one event, the context its attempts render (as the default body's text). */
export interface NewDelivery {
  webhookId: number;
  ruleId: number | null;
  event: ChangeEvent;
  context: string;
}

const KIND: Record<string, keyof MatchedHook> = { created: 'type_create', updated: 'type_update', deleted: 'type_delete' };

/**
 * The deliveries a batch of change events makes, in event order: one per
 * enabled trigger (the caller reads only those) that watches the object's
 * type and the event's kind and whose conditions hold for the object. A
 * webhook whose own triggers and an event rule both match gets one delivery
 * for each, as NetBox sends one per matching rule.
 */
export function matchEvents(hooks: MatchedHook[], events: ChangeEvent[]): NewDelivery[] {
  const made: NewDelivery[] = [];
  for (const event of events) {
    const kind = KIND[event.event];
    if (!kind) continue; // not an object change
    if (event.import && !event.import.webhooks) continue; // an import's, sent only when it asked (--webhooks)
    const type = event.model.toLowerCase();
    let context: ReturnType<typeof webhookContext> | null = null;
    let text = '';
    for (const hook of hooks) {
      if (!hook[kind] || !hook.content_types.includes(type)) continue;
      context ??= webhookContext(event);
      if (hook.conditions && !safeEvaluate(hook.conditions, context.data)) continue;
      text ||= defaultBody(context);
      made.push({ webhookId: hook.id, ruleId: hook.rule ?? null, event, context: text });
    }
  }
  return made;
}

/**
 * Records the deliveries in the consumer's transaction, one statement for
 * the batch; a delivery the (webhook, event, rule) triple already has is not
 * made again (a redelivered event): a conflict with either unique index (the
 * own triggers' or the rules') is skipped. Those made, with their webhooks.
 */
export async function recordDeliveries(tx: ConsumerTx, table: string, made: NewDelivery[]): Promise<{ id: number; webhookId: number }[]> {
  if (!made.length) return [];
  const col = <T>(fn: (d: NewDelivery) => T) => made.map(fn);
  // the contexts (JSON texts) travel as one JSON array, their elements kept as written: as a text[] the driver
  // escaped every quote of them and PostgreSQL parsed the array literal back (decision 010)
  const contexts = `[${col((d) => d.context).join(',')}]`;
  const rows = await tx.query(sql`
    INSERT INTO ${raw(table)} (webhook_id, event_rule_id, event_id, event, object_type, object_id, request_id, status, attempts, attempt_count, next_attempt_at, context)
    SELECT u.webhook_id, u.event_rule_id, u.event_id, u.event, u.object_type, u.object_id, u.request_id, 'queued', '[]'::jsonb, 0, now(), c.context
      FROM unnest(${col((d) => d.webhookId)}::bigint[], ${col((d) => d.ruleId)}::bigint[], ${col((d) => d.event.id)}::varchar[], ${col((d) => d.event.event)}::varchar[],
                  ${col((d) => d.event.model.toLowerCase())}::varchar[], ${col((d) => Number(d.event.object_id))}::bigint[],
                  ${col((d) => d.event.request_id ?? '')}::varchar[]) WITH ORDINALITY
           AS u(webhook_id, event_rule_id, event_id, event, object_type, object_id, request_id, n)
      JOIN json_array_elements(${contexts}::json) WITH ORDINALITY AS c(context, n) ON c.n = u.n
    ORDER BY u.n
    ON CONFLICT DO NOTHING RETURNING id, webhook_id`);
  return rows.map((r) => ({ id: Number(r.id), webhookId: Number(r.webhook_id) }));
}

/**
 * The enabled triggers, read in the matching transaction in one statement
 * (a trigger disabled before the event's batch sends nothing): each enabled
 * webhook's own, then each enabled event rule that acts with a webhook. A
 * rule's `enabled` alone decides for it (NetBox 3.7's webhooks have none).
 */
export async function enabledHooks(tx: ConsumerTx, tables: { webhook: string; rule: string }): Promise<MatchedHook[]> {
  const rows = await tx.query(sql`
    SELECT id, NULL::bigint AS rule, content_types, type_create, type_update, type_delete, conditions FROM ${raw(tables.webhook)} WHERE enabled
    UNION ALL
    SELECT w.id, r.id, r.content_types, r.type_create, r.type_update, r.type_delete, r.conditions
      FROM ${raw(tables.rule)} r JOIN ${raw(tables.webhook)} w ON w.id = r.action_object_id
     WHERE r.enabled AND r.action_type = 'webhook' AND r.action_object_type = 'extras.webhook'
    ORDER BY 1, 2 NULLS FIRST`);
  return rows.map((r) => ({
    id: Number(r.id),
    rule: r.rule === null ? null : Number(r.rule),
    content_types: (r.content_types as string[]).map((t) => t.toLowerCase()),
    type_create: r.type_create === true,
    type_update: r.type_update === true,
    type_delete: r.type_delete === true,
    conditions: r.conditions,
  }));
}

/** A stored expression that no longer evaluates (it was valid when saved) matches nothing. */
function safeEvaluate(conditions: unknown, data: unknown): boolean {
  try {
    return evaluate(conditions, data);
  } catch {
    return false;
  }
}
