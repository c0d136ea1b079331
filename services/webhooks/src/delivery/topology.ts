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
 *   dispatcher into the delivery log as `failed` (a retry sends them again);
 * - `webhooks.park`: attempts set aside for a few seconds because their
 *   webhook's receiver is slow and already holds its share of the senders
 *   (not an attempt: they come back to the deliveries queue unchanged).
 */
export const EVENTS_QUEUE: ConsumerQueue = WEBHOOKS_QUEUE;
export const WORK_EXCHANGE = 'webhooks.work';
export const WORK_QUEUE = 'webhooks.deliveries';
export const DEAD_QUEUE = 'webhooks.dead';
export const PARK_QUEUE = 'webhooks.park';
/** How long a parked attempt waits before it is taken again. */
export const PARK_MS = 2000;
const DELIVER_KEY = 'deliver';
const DEAD_KEY = 'dead';

/** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE): six attempts over about three hours. */
export const DEFAULT_RETRY_SCHEDULE = [10, 60, 300, 1800, 7200];

export const retryQueue = (delayMs: number): string => `webhooks.retry.${delayMs}`;

/**
 * What a delivery message carries: deliveries of one webhook (for the
 * senders' fairness) due for the same attempt (1-based). The first attempts
 * of one batch of events travel together, up to MAX_PER_MESSAGE; a retry
 * carries one delivery.
 */
export interface DeliveryMessage {
  deliveries: number[];
  attempt: number;
  webhook?: number;
}

/** A delivery due for an attempt, to put in a message. */
export interface DueAttempt {
  delivery: number;
  attempt: number;
  webhook: number;
}

export const MAX_PER_MESSAGE = 64;

/** The messages for these attempts: grouped by webhook and attempt, at most MAX_PER_MESSAGE each, in order. */
export function deliveryMessages(due: DueAttempt[]): DeliveryMessage[] {
  const groups = new Map<string, DeliveryMessage[]>();
  const out: DeliveryMessage[] = [];
  for (const d of due) {
    const key = `${d.webhook}:${d.attempt}`;
    const list = groups.get(key) ?? [];
    let m = list[list.length - 1];
    if (!m || m.deliveries.length >= MAX_PER_MESSAGE) {
      m = { deliveries: [], attempt: d.attempt, webhook: d.webhook };
      list.push(m);
      out.push(m);
      groups.set(key, list);
    }
    m.deliveries.push(d.delivery);
  }
  return out;
}

export async function declareDeliveryTopology(ch: Channel, scheduleMs: number[]): Promise<void> {
  await declareConsumerQueue(ch, EVENTS_QUEUE);
  await ch.assertExchange(WORK_EXCHANGE, 'direct', { durable: true });
  await ch.assertQueue(WORK_QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.bindQueue(WORK_QUEUE, WORK_EXCHANGE, DELIVER_KEY);
  await ch.assertQueue(DEAD_QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.bindQueue(DEAD_QUEUE, WORK_EXCHANGE, DEAD_KEY);
  await ch.assertQueue(PARK_QUEUE, {
    durable: true,
    arguments: { 'x-message-ttl': PARK_MS, 'x-dead-letter-exchange': WORK_EXCHANGE, 'x-dead-letter-routing-key': DELIVER_KEY },
  });
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

/** A broker that takes a message but never confirms it (a half-dead connection) is given up on after this. */
const CONFIRM_TIMEOUT_MS = 30_000;

/** Resolves once the broker confirmed the message (rejects when it refused it, the channel closed, or no confirm came). */
const confirmed = (send: (done: (err: unknown) => void) => void): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the broker did not confirm the message')), CONFIRM_TIMEOUT_MS);
    const done = (err: unknown) => {
      clearTimeout(timer);
      if (err) reject(err instanceof Error ? err : new Error('the broker refused the message'));
      else resolve();
    };
    try {
      send(done);
    } catch (err) {
      done(err ?? new Error('the channel is closed'));
    }
  });

/** Queues an attempt now. */
export function publishAttempt(ch: ConfirmChannel, m: DeliveryMessage): Promise<void> {
  return confirmed((done) => ch.publish(WORK_EXCHANGE, DELIVER_KEY, content(m), persistent, done));
}

/** The delay before the attempt after `attempt`: the schedule's step, or a receiver's longer Retry-After (up to the longest step). */
export function retryDelay(attempt: number, scheduleMs: number[], retryAfterMs?: number): number {
  const step = scheduleMs[Math.min(attempt - 1, scheduleMs.length - 1)];
  const wanted = Math.max(step, retryAfterMs ?? 0);
  return [...new Set(scheduleMs)].sort((a, b) => a - b).find((ms) => ms >= wanted) ?? Math.max(...scheduleMs);
}

/** Queues the next attempt of `m` after `delayMs` (a step of the schedule: one retry queue each). */
export function publishRetry(ch: ConfirmChannel, m: DeliveryMessage, delayMs: number): Promise<void> {
  return confirmed((done) => ch.sendToQueue(retryQueue(delayMs), content({ ...m, attempt: m.attempt + 1 }), persistent, done));
}

/** After the last attempt: to the dead-letter queue. */
export function publishDead(ch: ConfirmChannel, m: DeliveryMessage): Promise<void> {
  return confirmed((done) => ch.publish(WORK_EXCHANGE, DEAD_KEY, content(m), persistent, done));
}

/** Sets the same attempt aside for PARK_MS. */
export function publishParked(ch: ConfirmChannel, m: DeliveryMessage): Promise<void> {
  return confirmed((done) => ch.sendToQueue(PARK_QUEUE, content(m), persistent, done));
}

export function parseDeliveryMessage(body: Buffer): DeliveryMessage | null {
  try {
    const m = JSON.parse(body.toString('utf8')) as Partial<DeliveryMessage> & { delivery?: unknown };
    // one delivery as `delivery`: the first release's messages
    const deliveries = Array.isArray(m.deliveries) ? m.deliveries : [m.delivery];
    if (!deliveries.length || !deliveries.every((d) => Number.isSafeInteger(d)) || !Number.isSafeInteger(m.attempt) || (m.attempt as number) < 1) return null;
    return { deliveries: deliveries as number[], attempt: m.attempt as number, ...(Number.isSafeInteger(m.webhook) ? { webhook: m.webhook } : {}) };
  } catch {
    return null;
  }
}
