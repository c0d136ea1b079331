import { type Channel, type ConsumeMessage } from 'amqplib';
import pg from 'pg';
import type { Counter, Histogram, Metrics } from '@inventory/core';
import { type Sql, render, quoteIdent } from '@inventory/filtering';
import { eventsOf, type ChangeEvent } from './envelope';
import { EVENT_LAG_BUCKETS } from './relay';
import { BrokerSession, type BrokerLink } from './session';
import { declareConsumerQueue } from './topology';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

/** The consumer's transaction, as the handler sees it (the outbox's Queryable shape). */
export interface ConsumerTx {
  query(statement: Sql): Promise<Record<string, unknown>[]>;
}

/**
 * Applies one event in the consumer's transaction; may return work to run
 * after the commit and before the ack (what must not happen for a
 * rolled-back transaction, such as publishing; a crash in between leaves it
 * undone, so whoever needs it must be able to find it again).
 */
export type EventHandler = (event: ChangeEvent, tx: ConsumerTx) => Promise<void | AfterCommit>;

/**
 * Work to run after the consumer's commit and before the ack. It may hand
 * back a promise of what must still settle before the batch counts as
 * applied (`confirm` waits for it, the consumer does not).
 */
export type AfterCommit = () => Promise<void | { settled: Promise<void> }>;

/**
 * Applies several events, in delivery order, in one transaction (a consumer
 * with `batchSize` > 1 gives its handler what has arrived, up to that many).
 */
export type BatchHandler = (events: ChangeEvent[], tx: ConsumerTx) => Promise<void | AfterCommit>;

/** Events a consumer applied, by queue and event id: a redelivered event finds its record and is skipped. */
export const PROCESSED_EVENT_TABLE = '_processed_event';

/** The DDL of the processed-events record, as of its first migration (frozen there; the schema test compares with this). */
export function processedEventStatements(schema: string): string[] {
  const t = `${quoteIdent(schema)}.${quoteIdent(PROCESSED_EVENT_TABLE)}`;
  return [
    `CREATE TABLE ${t} (
      "queue" VARCHAR(100) NOT NULL,
      "event_id" UUID NOT NULL,
      "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "${PROCESSED_EVENT_TABLE}_pkey" PRIMARY KEY ("queue", "event_id")
    )`,
    `CREATE INDEX "${PROCESSED_EVENT_TABLE}_processed_at_idx" ON ${t} ("processed_at")`,
  ];
}

export interface ConsumerOptions {
  amqpUrl: string;
  databaseUrl: string;
  /** The consumer's schema (its `_processed_event` table, and the search path of the handler's transaction). */
  schema: string;
  /** Queue name, e.g. `extras.changelog`. */
  queue: string;
  /** Routing-key patterns on `inventory.events` (`#` for everything). */
  bindings: string[];
  /** One event at a time; or `batchHandler`, for the events at hand together. */
  handler?: EventHandler;
  batchHandler?: BatchHandler;
  log: Log;
  /** Unacknowledged messages the broker sends ahead (default 20, at least `batchSize`). Messages are applied in order. */
  prefetch?: number;
  /**
   * Most messages applied in one transaction (default 1): what arrived while
   * the previous transaction ran, so a backlog costs one commit per batch
   * while a lone event is applied at once. A batch that fails is applied
   * again one message at a time, so one poison message holds up only itself.
   * Only for handlers whose every effect is in the transaction.
   */
  batchSize?: number;
  /** Deliveries before the queue dead-letters a message (default 10). */
  deliveryLimit?: number;
  /** Processed-event records are deleted after this long (hours, default 168). */
  retentionHours?: number;
  /** Where the consumer's figures go (events by outcome, their lag, whether it consumes). */
  metrics?: Metrics;
  /** The service an event comes from, for the lag's `source` label (default: the app of its model, `dcim` of `dcim.site`). */
  sourceOf?: (event: ChangeEvent) => string;
  /**
   * Called once a batch's effects are committed (and what its after-commit
   * work hands back has settled), with every event of it, duplicates
   * included: the consumer's confirmation that reads now show them.
   */
  confirm?: (events: ChangeEvent[]) => void;
}

type Outcome = 'applied' | 'duplicate' | 'failed' | 'rejected';

/** What a batch is applied with: the link's database session and channel. */
interface Serving {
  db: pg.Client;
  ch: Channel;
  link: BrokerLink;
}

/** What `EventConsumer.status()` answers (`/api/status/` shows it per reader). */
export interface ConsumerStatus {
  connected: boolean;
  backlog: number | null;
  sources: Record<string, { lag_seconds: number; applied_at: string }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A message as it arrived, with its events (one, or a pack's), or null when it holds none that can be applied. */
interface Delivery {
  msg: ConsumeMessage;
  events: ChangeEvent[] | null;
}

/** The events of a message (a lone event's id is its message id, as published; a pack's carry theirs), or null when it holds none. */
function parse(msg: ConsumeMessage): Delivery {
  const body = eventsOf(msg.content);
  if (!body) return { msg, events: null };
  const messageId = msg.properties.messageId ? String(msg.properties.messageId) : null;
  const events = !body.pack && messageId ? [{ ...body.events[0], id: messageId }] : body.events;
  return { msg, events: events.every((e) => typeof e.id === 'string' && UUID.test(e.id)) ? events : null };
}

/**
 * Applies events from a durable quorum queue bound to `inventory.events`,
 * exactly once in effect: each message runs in one PostgreSQL transaction
 * that first records (queue, event id) in `_processed_event` (a duplicate
 * finds the record: acked, skipped), then runs the handler; the message is
 * acked only after the commit. A handler error rolls back and the message
 * is requeued (the queue's delivery limit dead-letters a poison message to
 * `<queue>.dead`); a message that is no event at all is dead-lettered at
 * once. Messages are applied one at a time, in delivery order, with
 * `prefetch` of them in flight. A broker or database failure reconnects with
 * backoff; what was not acked is delivered again.
 */
export class EventConsumer {
  private readonly session: BrokerSession;
  private lastPrune = 0;
  /** Events applied, and duplicates skipped, since start (for tests). */
  applied = 0;
  skipped = 0;
  failed = 0;
  private readonly batchSize: number;
  private readonly apply: BatchHandler;
  private readonly counted?: { events: Counter<'queue' | 'outcome'>; lag: Histogram<'queue' | 'source'> };
  private setConsuming: (on: boolean) => void = () => undefined;
  /** The channel consuming now (null while reconnecting). */
  private channel: Channel | null = null;
  /** Per source service: the lag of the last event applied, and when. */
  private readonly lastLag = new Map<string, { seconds: number; at: number }>();
  /** Resolves once the queue is declared, bound and consumed the first time (or the consumer stopped). */
  readonly ready: Promise<void>;

  constructor(private readonly o: ConsumerOptions) {
    const m = o.metrics;
    if (m) {
      this.counted = {
        events: m.counter('inventory_consumer_events_total', 'Change events a consumer took, by queue and outcome (applied, duplicate: applied before, failed: rolled back and requeued, rejected: not an event).', ['queue', 'outcome']),
        lag: m.histogram('inventory_consumer_lag_seconds', "Time from an event's write by its owner to its effect committed by a consumer (a projection's lag on `<service>.projections`), by queue and source service.", ['queue', 'source'], EVENT_LAG_BUCKETS),
      };
      const connected = m.gauge('inventory_consumer_connected', 'Whether a consumer is connected and taking messages (1) or reconnecting (0), by queue.', ['queue']);
      this.setConsuming = (on) => connected.set({ queue: o.queue }, on ? 1 : 0);
      this.setConsuming(false);
    }
    this.batchSize = Math.max(1, o.batchSize ?? 1);
    const { handler, batchHandler } = o;
    if (batchHandler) this.apply = batchHandler;
    else if (handler) this.apply = (events, tx) => (events.length === 1 ? handler(events[0], tx) : applyEach(handler, events, tx));
    else throw new Error('EventConsumer needs a handler or a batchHandler');
    this.session = new BrokerSession({ amqpUrl: o.amqpUrl, log: o.log, name: 'event consumer', logFields: { queue: o.queue }, serve: (link) => this.serve(link) });
    this.ready = this.session.ready;
  }

  start(): void {
    this.session.start();
  }

  /** Stops taking messages, finishes the one being applied, closes the connections (unacked ones go back to the queue). */
  stop(): Promise<void> {
    return this.session.stop();
  }

  /** Connects, consumes until a connection fails (throws) or the consumer stops (returns). */
  private async serve(link: BrokerLink): Promise<void> {
    const db = new pg.Client({
      connectionString: this.o.databaseUrl,
      options: `-c search_path=${quoteIdent(this.o.schema)},public -c timezone=UTC`,
    });
    db.on('error', (err) => link.fail(err));
    db.on('end', () => link.fail(new Error('database connection closed')));
    let chain: Promise<void> = Promise.resolve();
    try {
      await db.connect();
      const ch = await link.connect();
      await declareConsumerQueue(ch, { name: this.o.queue, bindings: this.o.bindings, deliveryLimit: this.o.deliveryLimit });
      await ch.prefetch(Math.max(this.o.prefetch ?? 20, this.batchSize));
      const s: Serving = { db, ch, link };
      const waiting: Delivery[] = [];
      // one drain at a time, in delivery order: each takes what has arrived meanwhile, up to batchSize events
      const drain = async (): Promise<void> => {
        while (waiting.length) await this.handleBatch(s, waiting.splice(0, this.batchOf(waiting)));
      };
      const { consumerTag } = await ch.consume(
        this.o.queue,
        (msg) => {
          if (!msg) return link.fail(new Error('consumer cancelled by the broker'));
          waiting.push(parse(msg));
          if (waiting.length === 1) chain = chain.then(drain);
        },
        { noAck: false },
      );
      this.setConsuming(true);
      this.channel = ch;
      link.ready();
      this.o.log.info({ queue: this.o.queue }, 'event consumer started');
      await link.ended; // throws when the link failed
      await ch.cancel(consumerTag).catch(() => undefined);
    } finally {
      this.channel = null;
      this.setConsuming(false);
      await chain; // the message being applied finishes (or fails) before the connections go
      await db.end().catch(() => undefined);
    }
  }

  /** How many of the waiting deliveries the next batch takes: at least one, then as long as their events fit in `batchSize`. */
  private batchOf(waiting: Delivery[]): number {
    let n = 0;
    let events = 0;
    for (const d of waiting) {
      const size = d.events?.length ?? 1;
      if (n > 0 && events + size > this.batchSize) break;
      n++;
      events += size;
    }
    return n;
  }

  /**
   * Applies messages in one transaction: (queue, event id) claimed in
   * `_processed_event` (a duplicate finds its record and is skipped), the
   * handler, the commit, after-commit work, then the acks. A batch that
   * fails is applied again one message at a time, and a pack that fails one
   * event at a time (so one poison event holds up only its own message,
   * until the queue's delivery limit dead-letters it; the others of its
   * pack are applied and recorded, so a redelivery skips them).
   */
  private async handleBatch(s: Serving, deliveries: Delivery[]): Promise<void> {
    const { db, ch, link } = s;
    if (!link.live) return; // stopping, or the link failed: left unacked, the broker delivers them again
    const good: { msg: ConsumeMessage; events: ChangeEvent[] }[] = [];
    for (const { msg, events } of deliveries) {
      if (events) good.push({ msg, events });
      else {
        this.o.log.warn({ queue: this.o.queue, messageId: msg.properties.messageId }, 'event consumer: not an event, dead-lettered');
        this.counted?.events.inc({ queue: this.o.queue, outcome: 'rejected' });
        this.settle(link, () => ch.nack(msg, false, false));
      }
    }
    if (!good.length) return;
    const events = good.flatMap((d) => d.events);
    try {
      await this.applyInTransaction(db, events);
      // one ack for the batch: every earlier message is settled already (batches run one at a time, in order)
      this.settle(link, () => ch.ack(good[good.length - 1].msg, true));
    } catch (err) {
      this.failed++;
      this.count('failed', events.length);
      const rolledBack = await this.rollback(db);
      const first = events[0];
      this.o.log.warn(
        { err: (err as Error).message, queue: this.o.queue, event: first.id, model: first.model, batch: events.length },
        events.length > 1 ? 'event consumer: batch failed, applying one at a time' : 'event consumer: handler failed, requeued',
      );
      if (!rolledBack) {
        // the database connection is gone: reconnect (the unacked messages come again)
        link.fail(err as Error);
        return;
      }
      if (good.length > 1) {
        for (const d of good) await this.handleBatch(s, [d]);
        return;
      }
      const { msg } = good[0];
      if (events.length > 1 && (await this.applyOneByOne(s, events))) {
        this.settle(link, () => ch.ack(msg, false));
        return;
      }
      // a short pause, growing with the deliveries, so a failing message does not spin
      const deliveries = Number(msg.properties.headers?.['x-delivery-count'] ?? 0);
      await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** deliveries, 2000)));
      this.settle(link, () => ch.nack(msg, false, true));
      return;
    }
    await this.prune(db);
  }

  /** A pack that failed as a whole, each event in a transaction of its own: whether all of them were applied. */
  private async applyOneByOne({ db, link }: Serving, events: ChangeEvent[]): Promise<boolean> {
    let all = true;
    for (const event of events) {
      if (!link.live) return false;
      try {
        await this.applyInTransaction(db, [event]);
      } catch (err) {
        all = false;
        this.count('failed', 1);
        this.o.log.warn({ err: (err as Error).message, queue: this.o.queue, event: event.id, model: event.model }, 'event consumer: event of a pack failed, requeued with its pack');
        if (!(await this.rollback(db))) {
          link.fail(err as Error); // the database connection is gone: the pack comes again
          return false;
        }
      }
    }
    return all;
  }

  private rollback(db: pg.Client): Promise<boolean> {
    return db.query('ROLLBACK').then(
      () => true,
      () => false,
    );
  }

  private async applyInTransaction(db: pg.Client, events: ChangeEvent[]): Promise<void> {
    const tx: ConsumerTx = {
      query: async (statement) => {
        const { text, values } = render(statement);
        return (await db.query(text, values)).rows;
      },
    };
    await db.query('BEGIN');
    const claimed = await db.query(
      `INSERT INTO ${quoteIdent(this.o.schema)}.${quoteIdent(PROCESSED_EVENT_TABLE)} (queue, event_id)
       SELECT $1, id FROM unnest($2::uuid[]) AS id ON CONFLICT DO NOTHING RETURNING event_id`,
      [this.o.queue, events.map((e) => e.id)],
    );
    const fresh = new Set(claimed.rows.map((r: { event_id: string }) => r.event_id.toLowerCase()));
    // in delivery order; an event twice in one batch is applied once
    const todo = events.filter((e) => fresh.delete(e.id.toLowerCase()));
    const afterCommit = todo.length ? await this.apply(todo, tx) : undefined;
    await db.query('COMMIT');
    const later = afterCommit
      ? await afterCommit().catch((err: Error) => this.o.log.warn({ err: err.message, queue: this.o.queue, event: events[0].id }, 'event consumer: after-commit work failed'))
      : undefined;
    const confirm = this.o.confirm;
    if (confirm) {
      // not awaited: what still settles (a referrer's own writes reaching their readers) never holds up the queue
      if (later) void later.settled.catch(() => undefined).then(() => confirm(events));
      else confirm(events);
    }
    this.applied += todo.length;
    this.skipped += events.length - todo.length;
    this.count('applied', todo.length);
    this.count('duplicate', events.length - todo.length);
    const now = Date.now();
    const sourceOf = this.o.sourceOf ?? ((e: ChangeEvent) => e.model.split('.')[0]);
    for (const e of todo) {
      const lag = Math.max(0, now - Date.parse(e.timestamp)) / 1000 || 0;
      this.counted?.lag.observe({ queue: this.o.queue, source: sourceOf(e) }, lag);
      this.lastLag.set(sourceOf(e), { seconds: lag, at: now });
    }
  }

  /**
   * How far behind its sources the consumer is: connected or not, the
   * messages waiting in its queue (null when the broker cannot say), and
   * per source service the write-to-commit time of the last event applied
   * (with when it was applied).
   */
  async status(): Promise<ConsumerStatus> {
    const ch = this.channel;
    let backlog: number | null = null;
    if (ch) {
      backlog = await ch.checkQueue(this.o.queue).then(
        (q) => q.messageCount,
        () => null,
      );
    }
    const sources: ConsumerStatus['sources'] = {};
    for (const [source, { seconds, at }] of this.lastLag) sources[source] = { lag_seconds: seconds, applied_at: new Date(at).toISOString() };
    return { connected: ch !== null, backlog, sources };
  }

  private count(outcome: Outcome, n: number): void {
    if (n > 0) this.counted?.events.inc({ queue: this.o.queue, outcome }, n);
  }

  /** Acks or nacks; a closed channel throws, and the broker then redelivers anyway. */
  private settle(link: BrokerLink, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      link.fail(err as Error);
    }
  }

  private async prune(db: pg.Client): Promise<void> {
    if (Date.now() - this.lastPrune < 600_000) return;
    this.lastPrune = Date.now();
    await db
      .query(
        `DELETE FROM ${quoteIdent(this.o.schema)}.${quoteIdent(PROCESSED_EVENT_TABLE)} WHERE processed_at < now() - make_interval(hours => $1)`,
        [this.o.retentionHours ?? 168],
      )
      .catch((err: Error) => this.o.log.warn({ err: err.message, queue: this.o.queue }, 'event consumer: pruning failed'));
  }
}

/** A one-event handler over a batch, in order, in the batch's transaction; the after-commit work of each, in order. */
async function applyEach(handler: EventHandler, events: ChangeEvent[], tx: ConsumerTx): Promise<AfterCommit | undefined> {
  const after: AfterCommit[] = [];
  for (const event of events) {
    const work = await handler(event, tx);
    if (work) after.push(work);
  }
  if (!after.length) return undefined;
  return async () => {
    const settling: Promise<void>[] = [];
    for (const work of after) {
      const later = await work();
      if (later) settling.push(later.settled);
    }
    return settling.length ? { settled: Promise.all(settling).then(() => undefined) } : undefined;
  };
}
