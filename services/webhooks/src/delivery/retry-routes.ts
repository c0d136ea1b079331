import type { Express } from 'express';
import { NotFound, ServiceUnavailable } from '@inventory/core';
import { sql, raw, and, type Sql } from '@inventory/filtering';
import { identityOf, mountRoute, requirePermission, type ServiceContext } from '@inventory/rest';
import { webhookDelivery } from '../models/delivery';
import type { Dispatcher } from './dispatcher';

const PATH = '/api/extras/webhook-deliveries/';

/**
 * Sends the deliveries `where` selects (over `webhook_delivery t`) once more,
 * through the dispatcher; the number queued. 503 without a running dispatcher.
 * The REST endpoints below and the admin page's buttons both retry this way.
 */
export async function retryDeliveries(ctx: ServiceContext, dispatcher: Dispatcher | null, where: Sql): Promise<number> {
  if (!dispatcher) throw new ServiceUnavailable('Webhook deliveries are not sent: no broker is configured.');
  const table = raw(ctx.db.table(webhookDelivery.table));
  const rows = await ctx.db.query(sql`SELECT t.id FROM ${table} t WHERE ${where} ORDER BY t.id`);
  return dispatcher.retry(rows.map((r) => Number(r.id)));
}

/**
 * Sending deliveries again: `POST …/{id}/retry/` one, `POST …/retry/` every
 * failed one (narrowed by `webhook_id`, `object_type`, `request_id` in the
 * query). Each gets one more attempt; one that fails again is `failed` again.
 * Needs the change permission on deliveries, within its constraints.
 */
export function mountRetryRoutes(app: Express, ctx: ServiceContext, dispatcher: () => Dispatcher | null): void {
  const send = (where: Sql): Promise<number> => retryDeliveries(ctx, dispatcher(), where);
  const retried = { type: 'object', properties: { retried: { type: 'integer' } }, required: ['retried'] };
  const query = (name: string, type: string) => ({ name, in: 'query', required: false, schema: { type } });
  mountRoute(app, {
    path: `${PATH}retry/`,
    name: 'Retry',
    operations: {
      post: {
        summary: 'Sends every failed delivery (of the webhook, object type or request named) once more; the number queued.',
        query: [query('webhook_id', 'integer'), query('object_type', 'string'), query('request_id', 'string')],
        response: retried,
        operationId: 'extras_webhook_deliveries_bulk_retry_create',
        handler: async (req, res) => {
          const scope = requirePermission(ctx, webhookDelivery, identityOf(res), 'change');
          const q = req.query as Record<string, unknown>;
          const parts: Sql[] = [scope, sql`t.status = 'failed'`];
          if (typeof q.webhook_id === 'string' && /^\d+$/.test(q.webhook_id)) parts.push(sql`t.webhook_id = ${Number(q.webhook_id)}`);
          if (typeof q.object_type === 'string') parts.push(sql`t.object_type = ${q.object_type.toLowerCase()}`);
          if (typeof q.request_id === 'string') parts.push(sql`t.request_id = ${q.request_id}`);
          res.json({ retried: await send(and(parts)) });
        },
      },
    },
  });
  mountRoute(app, {
    path: `${PATH}:id/retry/`,
    idOf: webhookDelivery.verboseName,
    name: 'Retry',
    operations: {
      post: {
        summary: 'Sends the delivery once more.',
        response: retried,
        handler: async (req, res) => {
          const scope = requirePermission(ctx, webhookDelivery, identityOf(res), 'change');
          const id = /^\d+$/.test(String(req.params.id)) ? Number(req.params.id) : NaN;
          if (!Number.isSafeInteger(id)) throw new NotFound();
          if (!(await send(and([scope, sql`t.id = ${id}`])))) throw new NotFound();
          res.json({ retried: 1 });
        },
      },
    },
  });
}
