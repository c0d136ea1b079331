import { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { ServiceUnavailable } from '@inventory/core';
import { EventConsumer, connectBroker } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import type { ServiceContext } from '@inventory/rest';
import { Batcher } from './batcher';
import { enabledHooks, matchEvents, recordDeliveries } from './matcher';
import { sendAttempt, type AttemptRecord, type DeliveryRow } from './sender';
import { WebhookSlots } from './slots';
import {
  DEAD_QUEUE, EVENTS_QUEUE, WORK_QUEUE, declareDeliveryTopology, parseDeliveryMessage, publishAttempt, publishDead, publishParked, publishRetry,
  retryDelay, type DeliveryMessage,
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

/** The outcome of an attempt, to record. */
interface Recording {
  id: number;
  attempt: number;
  record: AttemptRecord;
  status: 'succeeded' | 'retrying';
  nextAt: Date | null;
}

const MATCH_BATCH = 200;
const MAX_BACKOFF_MS = 10_000;
/** An attempt running longer than this marks its receiver slow (its next attempts are parked while it lasts). */
const SLOW_MS = 1000;

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
  private readonly load: Batcher<number, DeliveryRow | undefined>;
  private readonly record: Batcher<Recording, boolean>;
  private readonly slots: WebhookSlots;
  /** Deliveries with an attempt under way here (a duplicate message for one is dropped). */
  private readonly sending = new Set<number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Messages to publish once the broker is back. */
  private unpublished: ((ch: ConfirmChannel) => Promise<void>)[] = [];
  private ch: ConfirmChannel | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private broken: ((err: Error) => void) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  /** Attempts sent since start (for tests and metrics). */
  sent = 0;

  constructor(private readonly o: DispatcherOptions) {
    const deliveries = raw(o.ctx.db.table('webhook_delivery'));
    const hooks = raw(o.ctx.db.table('webhook'));
    this.matcher = new EventConsumer({
      amqpUrl: o.amqpUrl,
      databaseUrl: o.databaseUrl,
      schema: o.ctx.name,
      queue: EVENTS_QUEUE.name,
      bindings: EVENTS_QUEUE.bindings,
      log: o.ctx.log,
      batchSize: MATCH_BATCH,
      prefetch: MATCH_BATCH * 2,
      batchHandler: async (events, tx) => {
        const made = await recordDeliveries(tx, o.ctx.db.table('webhook_delivery'), matchEvents(await enabledHooks(tx, o.ctx.db.table('webhook')), events));
        // published after the commit (a crash in between leaves them `queued`: the sweep finds them)
        return made.length ? () => this.queue(made.map((d) => ({ delivery: d.id, attempt: 1, webhook: d.webhookId }))) : undefined;
      },
    });
    this.load = new Batcher(async (ids) => {
      const rows = await o.ctx.db.query(sql`
        SELECT d.id, d.status, d.attempt_count, d.context, d.event_id, w.payload_url, w.http_method, w.http_content_type, w.additional_headers,
               w.body_template, w.secret, w.ssl_verification, w.ca_file_path
          FROM ${deliveries} d JOIN ${hooks} w ON w.id = d.webhook_id WHERE d.id = ANY(${ids}::bigint[])`);
      const byId = new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id), attempt_count: Number(r.attempt_count) } as unknown as DeliveryRow]));
      return ids.map((id) => byId.get(id));
    });
    this.record = new Batcher(async (recs) => {
      const col = <T>(fn: (r: Recording) => T) => recs.map(fn);
      // only if it is still the next attempt: a repeated message never records twice
      const rows = await o.ctx.db.query(sql`
        UPDATE ${deliveries} d
           SET attempt_count = u.attempt, attempts = d.attempts || jsonb_build_array(u.record::jsonb), status = u.status,
               next_attempt_at = u.next_at, last_updated = now(), _version = d._version + 1
          FROM unnest(${col((r) => r.id)}::bigint[], ${col((r) => r.attempt)}::int[], ${col((r) => JSON.stringify(r.record))}::text[],
                      ${col((r) => r.status)}::varchar[], ${col((r) => r.nextAt?.toISOString() ?? null)}::timestamptz[])
               AS u(id, attempt, record, status, next_at)
         WHERE d.id = u.id AND d.attempt_count = u.attempt - 1 RETURNING d.id`);
      const done = new Set(rows.map((r) => Number(r.id)));
      return recs.map((r) => done.has(r.id));
    });
    const concurrency = o.concurrency ?? 64;
    this.slots = new WebhookSlots(Math.max(1, Math.floor(concurrency / 2)), SLOW_MS);
  }

  /** Starts matching and sending; resolves once connected to the broker (or after its first failure: it keeps trying). */
  async start(): Promise<void> {
    this.stopping = false;
    let connected: () => void = () => undefined;
    const ready = new Promise<void>((r) => (connected = r));
    this.loop ??= this.run(() => connected());
    await ready;
    this.matcher.start();
    const sweep = () => void this.sweep().catch((err: Error) => this.o.ctx.log.warn({ err: err.message }, 'webhook sweep failed'));
    sweep();
    this.sweeper = setInterval(sweep, 30_000);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.matcher.stop();
    this.broken?.(new Error('stopping'));
    await this.loop;
    this.loop = null;
    this.slots.close();
  }

  /** One more attempt for each of these deliveries (a failed one is `retrying` again); the number queued. */
  async retry(ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    if (!this.ch) throw new ServiceUnavailable('Webhook deliveries cannot be queued: the broker is not reachable.');
    const db = this.o.ctx.db;
    const rows = await db.query(sql`
      UPDATE ${raw(db.table('webhook_delivery'))} SET status = 'retrying', next_attempt_at = now(), last_updated = now()
       WHERE id = ANY(${ids}::bigint[]) AND status <> 'succeeded' RETURNING id, attempt_count, webhook_id`);
    await this.queue(rows.map((r) => ({ delivery: Number(r.id), attempt: Number(r.attempt_count) + 1, webhook: Number(r.webhook_id) })));
    return rows.length;
  }

  /** Publishes attempts now, or as soon as the broker is back. */
  private async queue(messages: DeliveryMessage[]): Promise<void> {
    await Promise.all(messages.map((m) => this.publish((ch) => publishAttempt(ch, m))));
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

  /** Connects, consumes, and reconnects with backoff until stopped. */
  private async run(connected: () => void): Promise<void> {
    let backoff = 200;
    while (!this.stopping) {
      const started = Date.now();
      try {
        await this.serve(connected);
      } catch (err) {
        connected(); // start() does not wait for a broker that is down
        if (this.stopping) break;
        if (Date.now() - started > 30_000) backoff = 200;
        this.o.ctx.log.warn({ err: (err as Error).message }, 'webhook senders: reconnecting after an error');
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private async serve(connected: () => void): Promise<void> {
    let conn: ChannelModel | null = null;
    const failure = new Promise<Error>((resolve) => (this.broken = resolve));
    try {
      conn = await connectBroker(this.o.amqpUrl);
      conn.on('error', (err: Error) => this.broken?.(err));
      conn.on('close', () => this.broken?.(new Error('broker connection closed')));
      const ch = await conn.createConfirmChannel();
      ch.on('error', (err: Error) => this.broken?.(err));
      ch.on('close', () => this.broken?.(new Error('broker channel closed')));
      await declareDeliveryTopology(ch, this.o.scheduleMs);
      await ch.prefetch(this.o.concurrency ?? 64);
      await ch.consume(WORK_QUEUE, (m) => m && this.track(this.attempt(ch, m)), { noAck: false });
      await ch.consume(DEAD_QUEUE, (m) => m && this.track(this.dead(ch, m)), { noAck: false });
      this.ch = ch;
      connected();
      for (const work of this.unpublished.splice(0)) await this.publish(work);
      const err = await failure;
      if (!this.stopping) throw err;
    } finally {
      this.ch = null;
      this.broken = null;
      await Promise.allSettled([...this.inFlight]);
      await conn?.close().catch(() => undefined);
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

  /** One attempt of one delivery; the message is acked once its outcome (and any next attempt) is queued. */
  private async attempt(ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const m = parseDeliveryMessage(msg.content);
    if (!m || this.sending.has(m.delivery)) return this.settle(() => ch.ack(msg)); // not a delivery, or one under way here
    const release = await this.slots.take(m.webhook ?? 0);
    if (!release) {
      // its receiver is slow and has its share of the senders: set aside, not attempted
      await publishParked(ch, m).then(
        () => this.settle(() => ch.ack(msg)),
        () => this.settle(() => ch.nack(msg)),
      );
      return;
    }
    this.sending.add(m.delivery);
    try {
      const d = await this.load.call(m.delivery);
      // deleted with its webhook, done, or this attempt was recorded (a repeated message)
      if (!d || d.status === 'succeeded' || d.attempt_count !== m.attempt - 1) return this.settle(() => ch.ack(msg));
      const outcome = await sendAttempt(d, m.attempt, this.o.timeoutMs ?? 10_000);
      this.sent++;
      const last = m.attempt > this.o.scheduleMs.length;
      const delay = outcome.ok || last ? 0 : retryDelay(m, this.o.scheduleMs, outcome.retryAfterMs);
      const recorded = await this.record.call({
        id: m.delivery,
        attempt: m.attempt,
        record: outcome.record,
        // after the last attempt: `failed` once the dead-letter queue is worked
        status: outcome.ok ? 'succeeded' : 'retrying',
        nextAt: delay ? new Date(Date.now() + delay) : null,
      });
      if (recorded && !outcome.ok) await this.publish((c) => (last ? publishDead(c, m) : publishRetry(c, m, delay)));
      this.settle(() => ch.ack(msg));
    } catch (err) {
      // the database or the channel failed: the message comes again (an attempt sent and not recorded is sent again, same delivery id)
      this.o.ctx.log.warn({ err: (err as Error).message, delivery: m.delivery }, 'webhook attempt not recorded, requeued');
      await new Promise((r) => setTimeout(r, 500));
      this.settle(() => ch.nack(msg));
    } finally {
      this.sending.delete(m.delivery);
      release();
    }
  }

  /** After the last attempt: the delivery is `failed` in the log (a retry sends it again). */
  private async dead(ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const m = parseDeliveryMessage(msg.content);
    if (m) {
      const db = this.o.ctx.db;
      await db.query(sql`
        UPDATE ${raw(db.table('webhook_delivery'))} SET status = 'failed', next_attempt_at = NULL, last_updated = now()
         WHERE id = ${m.delivery} AND status = 'retrying' AND attempt_count = ${m.attempt}`);
    }
    this.settle(() => ch.ack(msg));
  }

  /**
   * Deliveries whose next message was lost (the dispatcher stopped between a
   * commit and a publish, or the broker dropped the channel): overdue ones
   * are queued again, and a last failed attempt whose dead letter never came
   * is `failed`. A repeat of a message that did arrive records nothing.
   */
  private async sweep(): Promise<void> {
    const db = this.o.ctx.db;
    const t = raw(db.table('webhook_delivery'));
    const grace = `${Math.round((this.o.sweepGraceMs ?? 120_000) / 1000)} seconds`;
    await db.query(sql`
      UPDATE ${t} SET status = 'failed', last_updated = now()
       WHERE status = 'retrying' AND next_attempt_at IS NULL AND last_updated < now() - ${grace}::interval`);
    if (!this.ch) return;
    const rows = await db.query(sql`
      UPDATE ${t} d SET next_attempt_at = now() FROM (
        SELECT id FROM ${t} WHERE status IN ('queued', 'retrying') AND next_attempt_at < now() - ${grace}::interval
         ORDER BY next_attempt_at LIMIT 1000 FOR UPDATE SKIP LOCKED) due
       WHERE d.id = due.id RETURNING d.id, d.attempt_count, d.webhook_id`);
    await this.queue(rows.map((r) => ({ delivery: Number(r.id), attempt: Number(r.attempt_count) + 1, webhook: Number(r.webhook_id) })));
  }
}
