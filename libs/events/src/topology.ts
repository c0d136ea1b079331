import type { Channel } from 'amqplib';
import { EVENTS_EXCHANGE } from './envelope';

/** The durable topic exchange every service publishes its change events to. */
export async function declareEventsExchange(ch: Channel): Promise<void> {
  await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
}

export interface ConsumerQueue {
  /** Queue name, e.g. `extras.changelog`. */
  name: string;
  /** Routing-key patterns on `inventory.events` (`#` for everything). */
  bindings: string[];
  /** Deliveries before a message is dead-lettered (a poison message does not loop forever). */
  deliveryLimit?: number;
}

/**
 * A consumer's queue: durable, quorum (replicated, with a delivery limit),
 * dead-lettering to `<name>.dead` through its own exchange, so nothing a
 * consumer cannot process is dropped.
 */
export async function declareConsumerQueue(ch: Channel, q: ConsumerQueue): Promise<void> {
  await declareEventsExchange(ch);
  const dlx = `${q.name}.dlx`;
  await ch.assertExchange(dlx, 'fanout', { durable: true });
  await ch.assertQueue(`${q.name}.dead`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.bindQueue(`${q.name}.dead`, dlx, '');
  await ch.assertQueue(q.name, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': q.deliveryLimit ?? 10, 'x-dead-letter-exchange': dlx },
  });
  for (const pattern of q.bindings) await ch.bindQueue(q.name, EVENTS_EXCHANGE, pattern);
}

/** The change log's queue (extras consumes every event into `/api/extras/object-changes/`). */
export const CHANGELOG_QUEUE: ConsumerQueue = { name: 'extras.changelog', bindings: ['#'] };

/** The webhook dispatcher's queue (services/webhooks matches every event against the webhooks). */
export const WEBHOOKS_QUEUE: ConsumerQueue = { name: 'webhooks.events', bindings: ['#'] };

/**
 * The system's durable consumers. Every relay declares their queues before it
 * publishes, as each consumer does when it starts: an event published before
 * its consumer's very first start (the first superuser, made as users starts)
 * still waits in that consumer's queue, whichever service starts first.
 */
export const DURABLE_QUEUES: readonly ConsumerQueue[] = [CHANGELOG_QUEUE, WEBHOOKS_QUEUE];
