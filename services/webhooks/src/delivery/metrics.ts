import type { Metrics } from '@inventory/core';
import { queueDepths, webhookQueues } from '../admin/queues';

/**
 * `inventory_webhook_queue_messages{queue}`: the messages waiting in each of
 * the dispatcher's queues (topology.ts: events to match, attempts to send,
 * each retry step, the dead-letter and park queues), asked of RabbitMQ when
 * scraped, as the admin page asks (a connection for the scrape, a passive
 * declare per queue). A queue that cannot be checked is left out.
 */
export function registerQueueGauges(metrics: Metrics, amqpUrl: string | undefined, scheduleMs: number[]): void {
  if (!amqpUrl) return;
  const queues = webhookQueues(scheduleMs);
  metrics.gauge('inventory_webhook_queue_messages', "Messages ready in each of the webhook dispatcher's queues (events, deliveries, retry steps, dead, park).", ['queue'], async (g) => {
    const depths = await queueDepths(amqpUrl, queues);
    for (const q of depths.queues) if (q.messages !== null) g.set({ queue: q.queue }, q.messages);
  });
}
