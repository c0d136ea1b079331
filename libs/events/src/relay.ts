import { createHash } from 'node:crypto';
import { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { connectBroker } from './connection';
import pg from 'pg';
import { quoteIdent } from '@inventory/filtering';
import { EVENTS_EXCHANGE, routingKey, type ChangeEvent } from './envelope';
import { OUTBOX_TABLE, outboxChannel } from './outbox';
import { DURABLE_QUEUES, declareConsumerQueue, declareEventsExchange } from './topology';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

export interface RelayOptions {
  databaseUrl: string;
  /** The service's schema (its outbox lives there). */
  schema: string;
  amqpUrl: string;
  log: Log;
  batchSize?: number;
  /** Safety-net poll when no notification arrives (ms). */
  pollMs?: number;
  /** How long to wait for the broker's confirms of a batch (ms, default 30,000). */
  confirmTimeoutMs?: number;
  /** Sent rows are deleted after this long (hours; default 24; 0 keeps them). */
  retentionHours?: number;
}

const MAX_BACKOFF_MS = 10_000;
/** A broker that accepts publishes but never confirms them (a half-dead connection) is given up on after this. */
const CONFIRM_TIMEOUT_MS = 30_000;

/** A stable advisory-lock key per service: with several replicas, one relay publishes at a time. */
function lockKey(schema: string): string {
  return createHash('sha256').update(`outbox-relay:${schema}`).digest().readBigInt64BE(0).toString();
}

/**
 * Publishes a service's outbox to `inventory.events`: woken by LISTEN/NOTIFY
 * at every commit that wrote events (a slow poll as a safety net), in
 * batches, in write order, with publisher confirms; a row is marked sent only
 * once the broker confirmed it. A broker or database outage only delays
 * events: the relay reconnects with backoff and carries on from the first
 * unsent row. A message published but not yet marked (a crash in between) is
 * published again with the same message id, which consumers drop.
 */
export class OutboxRelay {
  private stopping = false;
  private wake: (() => void) | null = null;
  private pending = false;
  private loop: Promise<void> | null = null;
  private db: pg.Client | null = null;
  private broker: ChannelModel | null = null;
  private lastPrune = 0;
  /** Rows published since start (for tests and metrics). */
  published = 0;

  constructor(private readonly o: RelayOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.nudge();
    await this.loop;
    this.loop = null;
  }

  private nudge(): void {
    this.pending = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let backoff = 200;
    while (!this.stopping) {
      try {
        await this.serve();
        backoff = 200;
      } catch (err) {
        this.o.log.warn({ err: (err as Error).message, schema: this.o.schema }, 'outbox relay: retrying after an error');
        await this.disconnect();
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
    await this.disconnect();
  }

  /** Becomes the publishing relay of this schema, then drains until stopped (throws on any connection failure). */
  private async serve(): Promise<void> {
    // named, so operators (and tests) can find the relay's session in pg_stat_activity
    const db = new pg.Client({ connectionString: this.o.databaseUrl, application_name: `outbox-relay:${this.o.schema}` });
    this.db = db;
    db.on('error', () => this.nudge());
    await db.connect();
    while (!this.stopping) {
      const [{ locked }] = (await db.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [lockKey(this.o.schema)])).rows;
      if (locked) break;
      await this.sleep(this.o.pollMs ?? 5000); // another replica publishes
    }
    if (this.stopping) return;
    db.on('notification', () => this.nudge());
    await db.query(`LISTEN ${quoteIdent(outboxChannel(this.o.schema))}`);
    const conn = await connectBroker(this.o.amqpUrl);
    this.broker = conn;
    let broken: Error | null = null;
    conn.on('error', (err: Error) => ((broken = err), this.nudge()));
    conn.on('close', () => ((broken ??= new Error('broker connection closed')), this.nudge()));
    const ch = await conn.createConfirmChannel();
    await declareEventsExchange(ch);
    for (const q of DURABLE_QUEUES) await declareConsumerQueue(ch, q);
    this.o.log.info({ schema: this.o.schema }, 'outbox relay publishing');
    while (!this.stopping) {
      if (broken) throw broken;
      this.pending = false;
      while (!this.stopping && (await this.drainBatch(db, ch)) > 0);
      await this.prune(db);
      if (!this.pending) await this.sleep(this.o.pollMs ?? 5000);
    }
  }

  /** Publishes the next batch and marks it sent; the number of rows. */
  private async drainBatch(db: pg.Client, ch: ConfirmChannel): Promise<number> {
    const table = `${quoteIdent(this.o.schema)}.${quoteIdent(OUTBOX_TABLE)}`;
    const { rows } = await db.query(
      `SELECT seq, id, event, model, object_id, version, timestamp, username, request_id, data, snapshots, reference
       FROM ${table} WHERE sent_at IS NULL ORDER BY seq LIMIT $1`,
      [this.o.batchSize ?? 500],
    );
    if (!rows.length) return 0;
    for (const r of rows) {
      const event: ChangeEvent = {
        id: r.id,
        event: r.event,
        model: r.model,
        object_id: Number(r.object_id),
        version: Number(r.version),
        timestamp: new Date(r.timestamp).toISOString(),
        username: r.username,
        request_id: r.request_id,
        data: r.data,
        snapshots: r.snapshots,
        ...(r.reference ? { reference: r.reference } : {}),
      };
      ch.publish(EVENTS_EXCHANGE, routingKey(event), Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
        contentType: 'application/json',
        type: routingKey(event),
        timestamp: Math.floor(Date.parse(event.timestamp) / 1000),
      });
    }
    await this.confirmed(ch);
    await db.query(`UPDATE ${table} SET sent_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
    this.published += rows.length;
    return rows.length;
  }

  /** The broker's confirms of everything published on `ch`; a timeout counts as a broken connection (reconnect, publish again). */
  private async confirmed(ch: ConfirmChannel): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no publisher confirms within ${CONFIRM_TIMEOUT_MS} ms`)), this.o.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS);
    });
    try {
      await Promise.race([ch.waitForConfirms(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async prune(db: pg.Client): Promise<void> {
    const hours = this.o.retentionHours ?? 24;
    if (hours <= 0 || Date.now() - this.lastPrune < 600_000) return;
    this.lastPrune = Date.now();
    const table = `${quoteIdent(this.o.schema)}.${quoteIdent(OUTBOX_TABLE)}`;
    await db.query(`DELETE FROM ${table} WHERE sent_at < now() - make_interval(hours => $1)`, [hours]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
      if (this.pending || this.stopping) done();
    });
  }

  private async disconnect(): Promise<void> {
    const { db, broker } = this;
    this.db = null;
    this.broker = null;
    if (broker) await closeWithin(broker, 2_000);
    await db?.end().catch(() => undefined);
  }
}

/** Closes a broker connection, or drops its socket when the broker does not answer the close in time (a half-dead connection). */
async function closeWithin(conn: ChannelModel, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    conn.close().then(() => true, () => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  if (!closed) (conn as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
