import type { Channel, ConfirmChannel } from 'amqplib';
import { WEBHOOKS_QUEUE, declareConsumerQueue, type ConsumerQueue } from '@inventory/events';

/**
 * The dispatcher's queues, declared by code at start:
 * - `webhooks.events`: every change event, matched against the webhooks
 *   (one delivery recorded per match, in the consumer's transaction);
 * - `webhooks.deliveries`: one message per delivery attempt, taken by the
 *   senders with a prefetch, so a slow receiver holds one slot, not the queue;
 * - `webhooks.retry.<ms>`: one per step of the retry schedule, whose messages
 *   expire after the step and dead-letter back to the deliveries queue;
 * - `webhooks.dead`: deliveries whose last attempt failed, worked by the
 *   dispatcher into the delivery log as `failed` (a retry sends them again).
 */
export const EVENTS_QUEUE: ConsumerQueue = WEBHOOKS_QUEUE;
export const WORK_EXCHANGE = 'webhooks.work';
export const WORK_QUEUE = 'webhooks.deliveries';
export const DEAD_QUEUE = 'webhooks.dead';
const DELIVER_KEY = 'deliver';
const DEAD_KEY = 'dead';

/** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE): six attempts over about three hours. */
export const DEFAULT_RETRY_SCHEDULE = [10, 60, 300, 1800, 7200];

export const retryQueue = (delayMs: number): string => `webhooks.retry.${delayMs}`;

/** What a delivery message carries: the delivery and which attempt this is (1-based). */
export interface DeliveryMessage {
  delivery: number;
  attempt: number;
}

export async function declareDeliveryTopology(ch: Channel, scheduleMs: number[]): Promise<void> {
  await declareConsumerQueue(ch, EVENTS_QUEUE);
  await ch.assertExchange(WORK_EXCHANGE, 'direct', { durable: true });
  await ch.assertQueue(WORK_QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.bindQueue(WORK_QUEUE, WORK_EXCHANGE, DELIVER_KEY);
  await ch.assertQueue(DEAD_QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.bindQueue(DEAD_QUEUE, WORK_EXCHANGE, DEAD_KEY);
  for (const ms of new Set(scheduleMs)) {
    // expired messages go back to the work queue: the wait costs nothing while it lasts
    await ch.assertQueue(retryQueue(ms), {
      durable: true,
      arguments: { 'x-message-ttl': ms, 'x-dead-letter-exchange': WORK_EXCHANGE, 'x-dead-letter-routing-key': DELIVER_KEY },
    });
  }
}

const content = (m: DeliveryMessage) => Buffer.from(JSON.stringify(m));
const persistent = { persistent: true, contentType: 'application/json' };

/** Queues an attempt now. */
export function publishAttempt(ch: ConfirmChannel, m: DeliveryMessage): void {
  ch.publish(WORK_EXCHANGE, DELIVER_KEY, content(m), persistent);
}

/** Queues the next attempt after the schedule's step (or a receiver's Retry-After, when longer, up to the longest step). */
export function publishRetry(ch: ConfirmChannel, m: DeliveryMessage, scheduleMs: number[], retryAfterMs?: number): number {
  const step = scheduleMs[Math.min(m.attempt - 1, scheduleMs.length - 1)];
  const wanted = Math.max(step, retryAfterMs ?? 0);
  const delay = [...new Set(scheduleMs)].sort((a, b) => a - b).find((ms) => ms >= wanted) ?? Math.max(...scheduleMs);
  ch.sendToQueue(retryQueue(delay), content({ delivery: m.delivery, attempt: m.attempt + 1 }), persistent);
  return delay;
}

/** After the last attempt: to the dead-letter queue. */
export function publishDead(ch: ConfirmChannel, m: DeliveryMessage): void {
  ch.publish(WORK_EXCHANGE, DEAD_KEY, content(m), persistent);
}

export function parseDeliveryMessage(body: Buffer): DeliveryMessage | null {
  try {
    const m = JSON.parse(body.toString('utf8')) as DeliveryMessage;
    return Number.isSafeInteger(m.delivery) && Number.isSafeInteger(m.attempt) && m.attempt >= 1 ? m : null;
  } catch {
    return null;
  }
}
