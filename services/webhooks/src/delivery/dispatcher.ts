import * as fs from 'node:fs';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import got from 'got';
import { EventConsumer, type ChangeEvent, type ConsumerTx } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import type { ServiceContext } from '@inventory/rest';
import { evaluate } from '../dispatch/conditions';
import { webhookContext, type WebhookContext } from '../dispatch/context';
import { defaultBody, renderHeaders, renderTemplate } from '../dispatch/render';
import { SIGNATURE_HEADER, signBody } from '../dispatch/signature';
import {
  DEAD_QUEUE, EVENTS_QUEUE, WORK_QUEUE, declareDeliveryTopology, parseDeliveryMessage, publishAttempt, publishDead, publishRetry, type DeliveryMessage,
} from './topology';

type Row = Record<string, unknown>;

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
}

const KIND_COLUMN: Record<string, string> = { created: 'type_create', updated: 'type_update', deleted: 'type_delete' };
const RESPONSE_EXCERPT = 500;

/**
 * Matches change events against the webhooks and sends the deliveries:
 * see docs/decisions/010-webhook-dispatcher.md.
 */
export class Dispatcher {
  private readonly matcher: EventConsumer;
  private conn: ChannelModel | null = null;
  private ch: ConfirmChannel | null = null;
  private stopping = false;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts sent since start (for tests and metrics). */
  sent = 0;

  constructor(private readonly o: DispatcherOptions) {
    const table = (name: string) => raw(o.ctx.db.table(name));
    this.matcher = new EventConsumer({
      amqpUrl: o.amqpUrl,
      databaseUrl: o.databaseUrl,
      schema: o.ctx.name,
      queue: EVENTS_QUEUE.name,
      bindings: EVENTS_QUEUE.bindings,
      log: o.ctx.log,
      handler: (event, tx) => this.match(event, tx, table),
    });
  }

  async start(): Promise<void> {
    this.stopping = false;
    const conn = await amqp.connect(this.o.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await declareDeliveryTopology(ch, this.o.scheduleMs);
    await ch.prefetch(this.o.concurrency ?? 32);
    this.conn = conn;
    this.ch = ch;
    await ch.consume(WORK_QUEUE, (m) => m && this.track(this.attempt(m)), { noAck: false });
    await ch.consume(DEAD_QUEUE, (m) => m && this.track(this.dead(m)), { noAck: false });
    this.matcher.start();
    const sweep = () => void this.sweep().catch((err: Error) => this.o.ctx.log.warn({ err: err.message }, 'webhook sweep failed'));
    sweep();
    this.sweeper = setInterval(sweep, 30_000);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.matcher.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.conn?.close().catch(() => undefined);
    this.conn = null;
    this.ch = null;
  }

  /** One more attempt for each of these deliveries (a failed one is `retrying` again); the number queued. */
  async retry(ids: number[]): Promise<number> {
    const ch = this.ch;
    if (!ch || !ids.length) return 0;
    const db = this.o.ctx.db;
    const rows = await db.query(sql`
      UPDATE ${raw(db.table('webhook_delivery'))} SET status = 'retrying', next_attempt_at = now(), last_updated = now()
       WHERE id = ANY(${ids}::bigint[]) RETURNING id, attempt_count`);
    for (const r of rows) publishAttempt(ch, { delivery: Number(r.id), attempt: Number(r.attempt_count) + 1 });
    await ch.waitForConfirms();
    return rows.length;
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.catch((err: Error) => this.o.ctx.log.warn({ err: err.message }, 'webhook attempt failed unexpectedly')).finally(() => this.inFlight.delete(p));
  }

  /** In the event's transaction: one delivery per matching webhook; their first attempts are queued after the commit. */
  private async match(event: ChangeEvent, tx: ConsumerTx, table: (n: string) => ReturnType<typeof raw>): Promise<(() => Promise<void>) | undefined> {
    const column = KIND_COLUMN[event.event];
    if (!column) return undefined;
    const hooks = await tx.query(
      sql`SELECT id, conditions FROM ${table('webhook')} WHERE enabled AND ${raw(`"${column}"`)} AND ${event.model.toLowerCase()} = ANY(content_types) ORDER BY id`,
    );
    const context = webhookContext(event);
    const made: number[] = [];
    for (const hook of hooks) {
      if (hook.conditions && !safeEvaluate(hook.conditions, context.data)) continue;
      const [row] = await tx.query(sql`
        INSERT INTO ${table('webhook_delivery')} (webhook_id, event_id, event, object_type, object_id, request_id, status, attempts, attempt_count, context)
        VALUES (${hook.id}, ${event.id}, ${event.event}, ${event.model.toLowerCase()}, ${event.object_id}, ${event.request_id ?? ''}, 'queued', '[]'::jsonb, 0, ${JSON.stringify(context)}::jsonb)
        ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`);
      if (row) made.push(Number(row.id));
    }
    // a crash before this leaves them `queued` with no message: the sweep finds them
    return made.length ? () => this.queueFirstAttempts(made) : undefined;
  }

  private async queueFirstAttempts(ids: number[]): Promise<void> {
    const ch = this.ch;
    if (!ch) return;
    for (const id of ids) publishAttempt(ch, { delivery: id, attempt: 1 });
    await ch.waitForConfirms();
  }

  /** Deliveries recorded but never queued (the dispatcher stopped between its commit and the publish). */
  private async sweep(): Promise<void> {
    const db = this.o.ctx.db;
    const rows = await db.query(
      sql`SELECT id FROM ${raw(db.table('webhook_delivery'))} WHERE status = 'queued' AND attempt_count = 0 AND created < now() - interval '30 seconds' ORDER BY id LIMIT 1000`,
    );
    if (rows.length) await this.queueFirstAttempts(rows.map((r) => Number(r.id)));
  }

  /** One attempt of one delivery; the message is acked once its outcome (and any next attempt) is queued. */
  private async attempt(msg: ConsumeMessage): Promise<void> {
    const ch = this.ch;
    if (!ch) return;
    const m = parseDeliveryMessage(msg.content);
    if (!m) return ch.ack(msg);
    const db = this.o.ctx.db;
    const [d] = await db.query(sql`
      SELECT d.id, d.status, d.attempt_count, d.context, d.event_id, w.payload_url, w.http_method, w.http_content_type, w.additional_headers,
             w.body_template, w.secret, w.ssl_verification, w.ca_file_path
        FROM ${raw(db.table('webhook_delivery'))} d JOIN ${raw(db.table('webhook'))} w ON w.id = d.webhook_id WHERE d.id = ${m.delivery}`);
    if (!d) return ch.ack(msg); // its webhook was deleted with its deliveries
    if (d.status === 'succeeded' || Number(d.attempt_count) !== m.attempt - 1) return ch.ack(msg); // done, or this attempt was recorded
    const outcome = await this.send(d, m);
    const last = m.attempt > this.o.scheduleMs.length;
    const status = outcome.ok ? 'succeeded' : 'retrying'; // after the last attempt, `failed` once the dead-letter queue is worked
    const recorded = await db.query(sql`
      UPDATE ${raw(db.table('webhook_delivery'))}
         SET attempt_count = ${m.attempt}, attempts = attempts || ${JSON.stringify([outcome.record])}::jsonb, status = ${status},
             next_attempt_at = ${outcome.ok || last ? null : new Date(Date.now() + this.nextDelay(m, outcome.retryAfterMs)).toISOString()}::timestamptz,
             last_updated = now(), _version = _version + 1
       WHERE id = ${m.delivery} AND attempt_count = ${m.attempt - 1} RETURNING id`);
    if (recorded.length && !outcome.ok) {
      if (last) publishDead(ch, m);
      else publishRetry(ch, m, this.o.scheduleMs, outcome.retryAfterMs);
      await ch.waitForConfirms();
    }
    this.sent++;
    ch.ack(msg);
  }

  private nextDelay(m: DeliveryMessage, retryAfterMs?: number): number {
    return Math.max(this.o.scheduleMs[Math.min(m.attempt - 1, this.o.scheduleMs.length - 1)], retryAfterMs ?? 0);
  }

  /** After the last attempt: the delivery is `failed` in the log (a retry sends it again). */
  private async dead(msg: ConsumeMessage): Promise<void> {
    const m = parseDeliveryMessage(msg.content);
    if (m) {
      const db = this.o.ctx.db;
      await db.query(sql`UPDATE ${raw(db.table('webhook_delivery'))} SET status = 'failed', next_attempt_at = NULL, last_updated = now() WHERE id = ${m.delivery} AND status <> 'succeeded'`);
    }
    this.ch?.ack(msg);
  }

  private async send(d: Row, m: DeliveryMessage): Promise<{ ok: boolean; retryAfterMs?: number; record: Row }> {
    const started = Date.now();
    const time = new Date(started).toISOString();
    const context = d.context as WebhookContext;
    try {
      const url = await renderTemplate(String(d.payload_url), context);
      const headers: Record<string, string> = {
        'Content-Type': String(d.http_content_type || 'application/json'),
        'X-Delivery-Id': `${String(d.event_id)}:${String(d.id)}`,
        'X-Delivery-Timestamp': String(Math.floor(started / 1000)),
        'X-Delivery-Attempt': String(m.attempt),
        ...(await renderHeaders(String(d.additional_headers ?? ''), context)),
      };
      const body = d.body_template ? await renderTemplate(String(d.body_template), context) : defaultBody(context);
      if (d.secret) headers[SIGNATURE_HEADER] = signBody(String(d.secret), body);
      const res = await got(url, {
        method: String(d.http_method || 'POST') as 'POST',
        headers,
        body: d.http_method === 'GET' ? undefined : body,
        timeout: { request: this.o.timeoutMs ?? 10_000 },
        retry: 0,
        throwHttpErrors: false,
        followRedirect: false,
        https: { rejectUnauthorized: d.ssl_verification !== false, ...(d.ca_file_path ? { certificateAuthority: fs.readFileSync(String(d.ca_file_path)) } : {}) },
      });
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = Number(res.headers['retry-after']);
      return {
        ok,
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
        record: { time, status_code: res.statusCode, duration_ms: Date.now() - started, error: null, response: String(res.body ?? '').slice(0, RESPONSE_EXCERPT) },
      };
    } catch (err) {
      return { ok: false, record: { time, status_code: null, duration_ms: Date.now() - started, error: (err as Error).message, response: null } };
    }
  }
}

/** A stored expression that no longer evaluates (it was valid when saved) matches nothing. */
function safeEvaluate(conditions: unknown, data: unknown): boolean {
  try {
    return evaluate(conditions, data);
  } catch {
    return false;
  }
}
