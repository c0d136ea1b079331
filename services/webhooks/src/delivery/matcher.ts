import type { ChangeEvent, ConsumerTx } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import { evaluate } from '../dispatch/conditions';
import { webhookContext } from '../dispatch/context';
import { defaultBody } from '../dispatch/render';

/** What matching reads of a webhook. */
export interface MatchedHook {
  id: number;
  content_types: string[];
  type_create: boolean;
  type_update: boolean;
  type_delete: boolean;
  conditions: unknown;
}

/** A delivery to record: one webhook, one event, the context its attempts render (as the default body's text). */
export interface NewDelivery {
  webhookId: number;
  event: ChangeEvent;
  context: string;
}

const KIND: Record<string, keyof MatchedHook> = { created: 'type_create', updated: 'type_update', deleted: 'type_delete' };

/**
 * The deliveries a batch of change events makes, in event order: one per
 * enabled webhook (the caller reads only those) that watches the object's
 * type and the event's kind and whose conditions hold for the object.
 */
export function matchEvents(hooks: MatchedHook[], events: ChangeEvent[]): NewDelivery[] {
  const made: NewDelivery[] = [];
  for (const event of events) {
    const kind = KIND[event.event];
    if (!kind) continue; // not an object change
    const type = event.model.toLowerCase();
    let context: ReturnType<typeof webhookContext> | null = null;
    let text = '';
    for (const hook of hooks) {
      if (!hook[kind] || !hook.content_types.includes(type)) continue;
      context ??= webhookContext(event);
      if (hook.conditions && !safeEvaluate(hook.conditions, context.data)) continue;
      text ||= defaultBody(context);
      made.push({ webhookId: hook.id, event, context: text });
    }
  }
  return made;
}

/**
 * Records the deliveries in the consumer's transaction, one statement for
 * the batch; a delivery the (webhook, event) pair already has is not made
 * again (a redelivered event). Those made, with their webhooks.
 */
export async function recordDeliveries(tx: ConsumerTx, table: string, made: NewDelivery[]): Promise<{ id: number; webhookId: number }[]> {
  if (!made.length) return [];
  const col = <T>(fn: (d: NewDelivery) => T) => made.map(fn);
  const rows = await tx.query(sql`
    INSERT INTO ${raw(table)} (webhook_id, event_id, event, object_type, object_id, request_id, status, attempts, attempt_count, next_attempt_at, context)
    SELECT u.webhook_id, u.event_id, u.event, u.object_type, u.object_id, u.request_id, 'queued', '[]'::jsonb, 0, now(), u.context::json
      FROM unnest(${col((d) => d.webhookId)}::bigint[], ${col((d) => d.event.id)}::varchar[], ${col((d) => d.event.event)}::varchar[],
                  ${col((d) => d.event.model.toLowerCase())}::varchar[], ${col((d) => Number(d.event.object_id))}::bigint[],
                  ${col((d) => d.event.request_id ?? '')}::varchar[], ${col((d) => d.context)}::text[])
           AS u(webhook_id, event_id, event, object_type, object_id, request_id, context)
    ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id, webhook_id`);
  return rows.map((r) => ({ id: Number(r.id), webhookId: Number(r.webhook_id) }));
}

/** Enabled webhooks, read in the matching transaction (a webhook disabled before the event's batch sends nothing). */
export async function enabledHooks(tx: ConsumerTx, table: string): Promise<MatchedHook[]> {
  const rows = await tx.query(sql`
    SELECT id, content_types, type_create, type_update, type_delete, conditions FROM ${raw(table)} WHERE enabled ORDER BY id`);
  return rows.map((r) => ({
    id: Number(r.id),
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
