import { type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { ServiceUnavailable, type Counter } from '@inventory/core';
import { BrokerSession, EventConsumer, type BrokerLink } from '@inventory/events';
import { eventSource, type ServiceContext } from '@inventory/rest';
import { enabledHooks, matchEvents, recordDeliveries } from './matcher';
import { sendAttempt } from './sender';
import { WebhookSlots } from './slots';
import { DeliveryStore } from './store';
import {
  DEAD_QUEUE, EVENTS_QUEUE, PARK_QUEUE, WORK_QUEUE, declareDeliveryTopology, deliveryMessages, parseDeliveryMessage, publishAttempt, publishDead, publishParked,
  publishRetry, retryDelay, type DeliveryMessage, type DueAttempt,
} from './topology';

export interface DispatcherOptions {
  ctx: ServiceContext;
  amqpUrl: string;
  databaseUrl: string;
  /** Milliseconds before each retry (the last step is the last retry). */
  scheduleMs: number[];
  /** One attempt's deadline (ms). */
  timeoutMs?: number;
  /** Attempts in flight at once per process. */
  concurrency?: number;
  /** How long a delivery may be overdue before the sweep queues it again (ms). */
  sweepGraceMs?: number;
}

const MATCH_BATCH = 500;
/** An attempt running longer than this marks its receiver slow (its next attempts are parked while it lasts). */
const SLOW_MS = 1000;
/** How late a delivery may be before the sweep queues it again, while no attempt waits in the broker. */
const QUIET_GRACE_MS = 15_000;
const SWEEP_EVERY_MS = 10_000;

/**
 * Matches change events against the webhooks and sends the deliveries:
 * see docs/decisions/010-webhook-dispatcher.md. Statements are shared by
 * what arrives together (a batch of events is matched in one transaction;
 * the attempts under way load and record their deliveries together), and a
 * broker or database outage only delays: the senders reconnect, and the
 * sweep finds any delivery whose next message was lost.
 */
export class Dispatcher {
  private readonly matcher: EventConsumer;
  private readonly store: DeliveryStore;
  private readonly slots: WebhookSlots;
  /** Deliveries with an attempt under way here (a duplicate message for one is dropped). */
  private readonly sending = new Set<number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Messages to publish once the broker is back. */
  private unpublished: ((ch: ConfirmChannel) => Promise<void>)[] = [];
  private ch: ConfirmChannel | null = null;
  /** The senders' broker session: their channel consumes the attempts and publishes retries. */
  private readonly session: BrokerSession<ConfirmChannel>;
  /** Settles `start()`: connected, or the first attempt failed. */
  private started: () => void = () => undefined;
  private sweeper: NodeJS.Timeout | null = null;
  /** Attempts sent since start (for tests). */
  sent = 0;
  private readonly outcomes: Counter<'outcome'>;

  constructor(private readonly o: DispatcherOptions) {
    this.matcher = new EventConsumer({
      amqpUrl: o.amqpUrl,
      databaseUrl: o.databaseUrl,
      schema: o.ctx.name,
      queue: EVENTS_QUEUE.name,
      bindings: EVENTS_QUEUE.bindings,
      log: o.ctx.log,
      metrics: o.ctx.metrics,
      sourceOf: (event) => eventSource(o.ctx, event),
      batchSize: MATCH_BATCH,
      prefetch: MATCH_BATCH * 2,
      batchHandler: async (events, tx) => {
        const hooks = await enabledHooks(tx, { webhook: o.ctx.db.table('webhook'), rule: o.ctx.db.table('event_rule') });
        const made = await recordDeliveries(tx, o.ctx.db.table('webhook_delivery'), matchEvents(hooks, events));
        // published after the commit (a crash in between leaves them `queued`: the sweep finds them)
        return made.length ? () => this.queue(made.map((d) => ({ delivery: d.id, attempt: 1, webhook: d.webhookId }))) : undefined;
      },
    });
    this.store = new DeliveryStore(o.ctx.db);
    this.outcomes = o.ctx.metrics.counter(
      'inventory_webhook_attempts_total',
      'Webhook delivery attempts by outcome: succeeded (a 2XX answer), retried (no 2XX; another attempt is scheduled), failed (no 2XX at the last attempt: the delivery is failed).',
      ['outcome'],
    );
    const concurrency = o.concurrency ?? 64;
    this.slots = new WebhookSlots(Math.max(1, Math.floor(concurrency / 2)), concurrency, SLOW_MS);
    this.session = new BrokerSession({
      amqpUrl: o.amqpUrl,
      log: o.ctx.log,
      name: 'webhook senders',
      channel: (conn) => conn.createConfirmChannel(),
      serve: (link) => this.serve(link),
      onError: () => this.started(), // start() does not wait for a broker that is down
    });
  }

  /** Starts matching and sending; resolves once connected to the broker (or after its first failure: it keeps trying). */
  async start(): Promise<void> {
    const started = new Promise<void>((r) => (this.started = r));
    this.session.start();
    await started;
    this.matcher.start();
    const sweep = () => void this.sweep().catch((err: Error) => this.o.ctx.log.warn({ err: err.message }, 'webhook sweep failed'));
    sweep();
    this.sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.matcher.stop();
    await this.session.stop();
    this.slots.close();
  }

  /** One more attempt for each of these deliveries (a failed one is `retrying` again); the number queued. */
  async retry(ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    if (!this.ch) throw new ServiceUnavailable('Webhook deliveries cannot be queued: the broker is not reachable.');
    const due = await this.store.retry(ids);
    await this.queue(due);
    return due.length;
  }

  /** Publishes attempts now (those of a webhook together), or as soon as the broker is back. */
  private async queue(due: DueAttempt[]): Promise<void> {
    await Promise.all(deliveryMessages(due).map((m) => this.publish((ch) => publishAttempt(ch, m))));
  }

  /**
   * Publishes now or, without a channel (or when it fails), keeps the work
   * for the next connection: a broker outage delays a message, it does not
   * drop it (a crash meanwhile leaves it to the sweep).
   */
  private async publish(work: (ch: ConfirmChannel) => Promise<void>): Promise<void> {
    const ch = this.ch;
    if (ch) {
      try {
        return await work(ch);
      } catch {
        /* the channel failed under it: kept below */
      }
    }
    this.unpublished.push(work);
  }

  /** Consumes the attempts (and the dead letters) on a confirm channel until the link ends; sends what waited for the broker. */
  private async serve(link: BrokerLink<ConfirmChannel>): Promise<void> {
    const ch = await link.connect();
    try {
      await declareDeliveryTopology(ch, this.o.scheduleMs);
      await ch.prefetch(this.o.concurrency ?? 64);
      const tags = [
        (await ch.consume(WORK_QUEUE, (m) => m && this.track(this.work(ch, m)), { noAck: false })).consumerTag,
        (await ch.consume(DEAD_QUEUE, (m) => m && this.track(this.dead(ch, m)), { noAck: false })).consumerTag,
      ];
      this.ch = ch;
      link.ready();
      this.started();
      for (const work of this.unpublished.splice(0)) await this.publish(work);
      await link.ended; // throws when the link failed
      // stopping: take no more; the attempts under way finish and are acked below
      for (const tag of tags) await ch.cancel(tag).catch(() => undefined);
    } finally {
      // the attempts under way may still queue their retries on this channel (if it is broken, they are kept for the next one)
      await Promise.allSettled([...this.inFlight]);
      this.ch = null;
    }
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.catch((err: Error) => this.o.ctx.log.warn({ err: err.message }, 'webhook attempt failed unexpectedly')).finally(() => this.inFlight.delete(p));
  }

  /** Acks or nacks; on a closed channel the broker delivers the message again anyway. */
  private settle(fn: () => void): void {
    try {
      fn();
    } catch {
      /* the channel is gone: what was not acked comes again */
    }
  }

  /**
   * A message's attempts, each in its webhook's share of the senders; the
   * message is acked once every outcome (and any next attempt) is queued.
   * Attempts set aside (their receiver is slow, or their outcome could not be
   * recorded) go to the park queue as one message, to come back in a while.
   */
  private async work(ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const m = parseDeliveryMessage(msg.content);
    if (!m) return this.settle(() => ch.ack(msg));
    const done = await Promise.all(m.deliveries.map((id) => this.attempt(id, m)));
    const later = m.deliveries.filter((_, i) => !done[i]);
    if (later.length) {
      try {
        await publishParked(ch, { ...m, deliveries: later });
      } catch {
        return this.settle(() => ch.nack(msg)); // all again: what was recorded meanwhile is not sent twice
      }
    }
    this.settle(() => ch.ack(msg));
  }

  /** One attempt of one delivery: false when it is set aside, to come again. */
  private async attempt(id: number, m: DeliveryMessage): Promise<boolean> {
    if (this.sending.has(id)) return true; // a repeat of an attempt under way here
    // claimed before waiting for a slot: a repeat arriving meanwhile (the start's sweep and the redelivered
    // message of a crashed process, both for one attempt) must find it taken, or both would send it
    this.sending.add(id);
    const release = await this.slots.take(m.webhook ?? 0).catch((err: unknown) => {
      this.sending.delete(id);
      throw err;
    });
    if (!release) {
      this.sending.delete(id);
      return false; // its receiver is slow and has its share of the senders
    }
    try {
      const d = await this.store.load(id);
      // deleted with its webhook, done, or this attempt was recorded (a repeated message)
      if (!d || d.status === 'succeeded' || d.attempt_count !== m.attempt - 1) return true;
      const outcome = await sendAttempt(d, m.attempt, this.o.timeoutMs ?? 10_000, this.o.ctx.settings.templateLimits);
      // the receiver has answered: its slot is free while the outcome is recorded (the delivery stays claimed in `sending`)
      release();
      this.sent++;
      // the schedule's end, or a receiver that answered 410 Gone (Standard Webhooks: stop sending it)
      const last = m.attempt > this.o.scheduleMs.length || !!outcome.gone;
      const delay = outcome.ok || last ? 0 : retryDelay(m.attempt, this.o.scheduleMs, outcome.retryAfterMs);
      const recorded = await this.store.record({
        id,
        attempt: m.attempt,
        record: outcome.record,
        // after the last attempt: `failed` once the dead-letter queue is worked
        status: outcome.ok ? 'succeeded' : 'retrying',
        nextAt: delay ? new Date(Date.now() + delay) : null,
      });
      if (recorded) this.outcomes.inc({ outcome: outcome.ok ? 'succeeded' : last ? 'failed' : 'retried' });
      if (recorded && !outcome.ok) {
        const one = { deliveries: [id], attempt: m.attempt, webhook: m.webhook };
        await this.publish((c) => (last ? publishDead(c, one) : publishRetry(c, one, delay)));
      }
      return true;
    } catch (err) {
      // the database failed: set aside (an attempt sent and not recorded is sent again, with the same delivery id)
      this.o.ctx.log.warn({ err: (err as Error).message, delivery: id }, 'webhook attempt not recorded, set aside');
      return false;
    } finally {
      this.sending.delete(id);
      release();
    }
  }

  /** After the last attempt: the delivery is `failed` in the log (a retry sends it again). */
  private async dead(ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const m = parseDeliveryMessage(msg.content);
    for (const id of m?.deliveries ?? []) await this.store.markFailed(id, m?.attempt ?? 0);
    this.settle(() => ch.ack(msg));
  }

  /**
   * Deliveries whose next message was lost (the dispatcher stopped between a
   * commit and a publish, or the broker dropped the channel) are queued
   * again; a repeat of a message that did arrive records nothing. Overdue
   * means 15 s late while the broker holds no attempt waiting to be taken,
   * and two minutes late otherwise (a backlog is worked off, not repeated).
   */
  private async sweep(): Promise<void> {
    const ch = this.ch;
    if (!ch) return;
    const [work, parked] = await Promise.all([ch.checkQueue(WORK_QUEUE), ch.checkQueue(PARK_QUEUE)]);
    const idle = work.messageCount + parked.messageCount === 0;
    const due = await this.store.overdue(idle ? QUIET_GRACE_MS : (this.o.sweepGraceMs ?? 120_000));
    if (due.length) await this.queue(due);
  }
}
