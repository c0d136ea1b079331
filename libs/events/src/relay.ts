import { createHash } from 'node:crypto';
import { type ConfirmChannel } from 'amqplib';
import pg from 'pg';
import type { Counter, Histogram, Metrics } from '@inventory/core';
import { quoteIdent } from '@inventory/filtering';
import { EVENTS_EXCHANGE, PACK_HEADER, routingKey, type ChangeEvent } from './envelope';
import { OUTBOX_TABLE, outboxChannel, publishedEvent } from './outbox';
import { BrokerSession, type BrokerLink } from './session';
import { DURABLE_QUEUES, declareConsumerQueue, declareEventsExchange } from './topology';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

export interface RelayOptions {
  databaseUrl: string;
  /** The service's schema (its outbox lives there). */
  schema: string;
  amqpUrl: string;
  log: Log;
  batchSize?: number;
  /** Most events in one message (consecutive events of one routing key are packed; default PACK_MAX, 1 publishes each alone). */
  packMax?: number;
  /** Safety-net poll when no notification arrives (ms). */
  pollMs?: number;
  /** How long to wait for the broker's confirms of a batch (ms, default 30,000). */
  confirmTimeoutMs?: number;
  /** Sent rows are deleted after this long (hours; default 24; 0 keeps them). */
  retentionHours?: number;
  /** Where the relay's figures go (published events, their lag, whether it publishes). */
  metrics?: Metrics;
}

/** Event lags: milliseconds when all is well, up to hours after an outage. */
export const EVENT_LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200];

/** How long `stop()` lets the relay publish what is committed before it gives up (the rest waits in the outbox). */
export const FLUSH_TIMEOUT_MS = 10_000;

/** A broker that accepts publishes but never confirms them (a half-dead connection) is given up on after this. */
const CONFIRM_TIMEOUT_MS = 30_000;

/** Most events in one pack (a bulk write's thousand are one message). */
export const PACK_MAX = 1000;
/**
 * Most bytes of events in one pack: consumers hold up to their prefetch of
 * messages (1,000), so this bounds what a backlog of packs can take of their
 * memory (128 MB; a bulk write of 1,000 tenants is then about nine messages).
 */
const PACK_BYTES = 128 * 1024;

/** An event's envelope fields with its JSON text (serialized once: its size decides the packing). */
export interface Serialized {
  event: Pick<ChangeEvent, 'id' | 'event' | 'model' | 'timestamp'>;
  json: string;
}

/**
 * Runs of consecutive events of one routing key, in order, each at most
 * `max` events and PACK_BYTES (an event larger than that is a run of its
 * own). Order per object holds: a pack is applied in its order, and packs
 * in theirs.
 */
export function packs(events: (ChangeEvent | Serialized)[], max: number): Serialized[][] {
  const out: Serialized[][] = [];
  let run: Serialized[] = [];
  let bytes = 0;
  for (const item of events) {
    const { event, json } = 'json' in item ? item : { event: item, json: JSON.stringify(item) };
    const last = run[run.length - 1];
    const size = Buffer.byteLength(json);
    if (last && (routingKey(last.event) !== routingKey(event) || run.length >= max || bytes + size > PACK_BYTES)) {
      out.push(run);
      run = [];
      bytes = 0;
    }
    run.push({ event, json });
    bytes += size;
  }
  if (run.length) out.push(run);
  return out;
}

/**
 * Publishes a run: one event as itself (message id = its id), several as a
 * pack (a JSON array; message id = first and last ids, the same when the
 * same run is published again; `x-inventory-events` = how many).
 */
function publishPack(ch: ConfirmChannel, run: Serialized[]): void {
  const first = run[0].event;
  const key = routingKey(first);
  const single = run.length === 1;
  const body = single ? run[0].json : `[${run.map((s) => s.json).join(',')}]`;
  ch.publish(EVENTS_EXCHANGE, key, Buffer.from(body), {
    persistent: true,
    messageId: single ? first.id : `${first.id}..${run[run.length - 1].event.id}`,
    contentType: 'application/json',
    type: key,
    timestamp: Math.floor(Date.parse(first.timestamp) / 1000),
    ...(single ? {} : { headers: { [PACK_HEADER]: run.length } }),
  });
}

/**
 * An outbox row (its documents as the JSON text they were stored as) as the
 * event's JSON: the documents are spliced in, not parsed and serialized again
 * (a bulk write's thousands of representations). A row carrying an import's
 * mark takes the parsed way (`publishedEvent` lifts the mark out).
 */
export function outboxRowJson(r: Record<string, unknown>): Serialized {
  const timestamp = new Date(r.timestamp as Date | string).toISOString();
  const head = { id: r.id as string, event: r.event as ChangeEvent['event'], model: r.model as string, timestamp };
  const snapshots = r.snapshots as string;
  if (snapshots.includes('"import"')) {
    const event = publishedEvent({
      ...head,
      object_id: Number(r.object_id),
      version: Number(r.version),
      username: r.username as string,
      request_id: r.request_id as string,
      data: r.data === null ? null : JSON.parse(r.data as string),
      snapshots: JSON.parse(snapshots),
      ...(r.reference ? { reference: JSON.parse(r.reference as string) } : {}),
    });
    return { event, json: JSON.stringify(event) };
  }
  const json =
    `{"id":${JSON.stringify(head.id)},"event":${JSON.stringify(head.event)},"model":${JSON.stringify(head.model)},` +
    `"object_id":${Number(r.object_id)},"version":${Number(r.version)},"timestamp":"${timestamp}",` +
    `"username":${JSON.stringify(r.username)},"request_id":${JSON.stringify(r.request_id)},` +
    `"data":${(r.data as string | null) ?? 'null'},"snapshots":${snapshots}${r.reference ? `,"reference":${r.reference as string}` : ''}}`;
  return { event: head, json };
}

/** A stable advisory-lock key per service: with several replicas, one relay publishes at a time. */
function lockKey(schema: string): string {
  return createHash('sha256').update(`outbox-relay:${schema}`).digest().readBigInt64BE(0).toString();
}

/**
 * Publishes a service's outbox to `inventory.events`: woken by LISTEN/NOTIFY
 * at every commit that wrote events (a slow poll as a safety net), in
 * batches, in write order, with publisher confirms (consecutive events of one
 * routing key packed into one message: `packs`); a row is marked sent only
 * once the broker confirmed it. A broker or database outage only delays
 * events: the relay reconnects with backoff and carries on from the first
 * unsent row. A message published but not yet marked (a crash in between) is
 * published again with the same message id, which consumers drop.
 */
export class OutboxRelay {
  /** Stop now (a batch under way still completes). */
  private stopping = false;
  /** Publish what is in the outbox, then stop. */
  private flushing = false;
  private wake: (() => void) | null = null;
  private pending = false;
  private readonly session: BrokerSession<ConfirmChannel>;
  private lastPrune = 0;
  /** Rows published since start (for tests). */
  published = 0;
  /** Whether this instance is the one publishing (holds the schema's lock, connected to the broker). */
  publishing = false;
  private readonly counted?: { published: Counter; lag: Histogram };

  constructor(private readonly o: RelayOptions) {
    const m = o.metrics;
    if (m) {
      this.counted = {
        published: m.counter('inventory_outbox_published_total', 'Change events the outbox relay published (confirmed by the broker).'),
        lag: m.histogram('inventory_outbox_publish_lag_seconds', "Time from an event's write to the broker's confirm of its publication.", [], EVENT_LAG_BUCKETS),
      };
      m.gauge('inventory_outbox_relay_publishing', 'Whether this instance relays the outbox (1) or another replica does, or it is reconnecting (0).', [], (g) => g.set(this.publishing ? 1 : 0));
    }
    this.session = new BrokerSession({
      amqpUrl: o.amqpUrl,
      log: o.log,
      name: 'outbox relay',
      logFields: { schema: o.schema },
      channel: (conn) => conn.createConfirmChannel(),
      serve: (link) => this.serve(link),
      // a failure while flushing ends the relay (the session no longer retries once stop() was called)
      onError: (err) => {
        if (this.flushing) this.o.log.warn({ err: err.message, schema: this.o.schema }, 'outbox relay: stopped before publishing everything (the rest is published at the next start)');
      },
    });
  }

  start(): void {
    this.stopping = false;
    this.flushing = false;
    this.session.start();
  }

  /**
   * Publishes what is committed in the outbox by now, then stops (at a
   * shutdown, after the HTTP server has drained: no event of an answered
   * write waits for the next start). Gives up after `timeoutMs` or at the
   * first error (a broker that is down): what is left waits in the outbox.
   * A replica that is not the publishing one stops at once.
   */
  async stop(timeoutMs = FLUSH_TIMEOUT_MS): Promise<void> {
    this.flushing = true;
    this.nudge();
    const timer = setTimeout(() => {
      this.stopping = true;
      this.nudge();
    }, timeoutMs);
    // the session stops retrying; the link under way (if any) drains first (serve returns once flushed)
    await this.session.stop();
    clearTimeout(timer);
  }

  private nudge(): void {
    this.pending = true;
    this.wake?.();
  }

  /**
   * Becomes the publishing relay of this schema (the database and its lock
   * first: a standby replica holds no broker connection), then drains until
   * stopped (throws on any connection failure).
   */
  private async serve(link: BrokerLink<ConfirmChannel>): Promise<void> {
    // named, so operators (and tests) can find the relay's session in pg_stat_activity
    const db = new pg.Client({ connectionString: this.o.databaseUrl, application_name: `outbox-relay:${this.o.schema}` });
    db.on('error', () => this.nudge());
    link.ended.catch(() => this.nudge()); // a broken broker connection ends the wait at once
    try {
      await db.connect();
      if (!(await this.lock(db))) return;
      db.on('notification', () => this.nudge());
      await db.query(`LISTEN ${quoteIdent(outboxChannel(this.o.schema))}`);
      const ch = await link.connect();
      await declareEventsExchange(ch);
      for (const q of DURABLE_QUEUES) await declareConsumerQueue(ch, q);
      this.o.log.info({ schema: this.o.schema }, 'outbox relay publishing');
      this.publishing = true;
      link.ready();
      while (!this.stopping) {
        if (link.error) throw link.error;
        this.pending = false;
        while (!this.stopping && (await this.drainBatch(db, ch)) > 0);
        if (this.flushing) return; // drained: everything committed before the stop is published
        await this.prune(db);
        if (!this.pending) await this.sleep(this.o.pollMs ?? 5000);
      }
    } finally {
      this.publishing = false;
      await db.end().catch(() => undefined);
    }
  }

  /** Waits for the schema's advisory lock (another replica publishes meanwhile); false when stopped first. */
  private async lock(db: pg.Client): Promise<boolean> {
    for (;;) {
      if (this.stopping) return false;
      const [{ locked }] = (await db.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [lockKey(this.o.schema)])).rows;
      if (locked) return true;
      if (this.flushing) return false; // the publishing replica has the outbox
      await this.sleep(this.o.pollMs ?? 5000);
    }
  }

  /** Publishes the next batch and marks it sent; the number of rows. */
  private async drainBatch(db: pg.Client, ch: ConfirmChannel): Promise<number> {
    const table = `${quoteIdent(this.o.schema)}.${quoteIdent(OUTBOX_TABLE)}`;
    const { rows } = await db.query(
      `SELECT seq, id, event, model, object_id, version, timestamp, username, request_id, data::text AS data, snapshots::text AS snapshots,
              reference::text AS reference
       FROM ${table} WHERE sent_at IS NULL ORDER BY seq LIMIT $1`,
      [this.o.batchSize ?? 1000],
    );
    if (!rows.length) return 0;
    const events = rows.map(outboxRowJson);
    for (const pack of packs(events, this.o.packMax ?? PACK_MAX)) publishPack(ch, pack);
    await this.confirmed(ch);
    if (this.counted) {
      const now = Date.now();
      for (const r of rows) this.counted.lag.observe(Math.max(0, now - new Date(r.timestamp).getTime()) / 1000);
    }
    await db.query(`UPDATE ${table} SET sent_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
    this.published += rows.length;
    this.counted?.published.inc(rows.length);
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
      if (this.pending || this.stopping || this.flushing) done();
    });
  }
}
