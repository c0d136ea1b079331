import { sql, raw } from '@inventory/filtering';
import type { ServiceContext } from '@inventory/rest';
import { Batcher } from './batcher';
import type { AttemptRecord, DeliveryRow } from './sender';
import type { DueAttempt } from './topology';

/** The outcome of an attempt, to record. */
export interface Recording {
  id: number;
  attempt: number;
  record: AttemptRecord;
  status: 'succeeded' | 'retrying';
  nextAt: Date | null;
}

/**
 * The dispatcher's reads and writes of the delivery log (plain SQL, no change
 * events: the log is not an inventory object). The attempts under way load
 * and record their deliveries together, a statement for what arrives while
 * the previous one runs.
 */
export class DeliveryStore {
  private readonly loader: Batcher<number, DeliveryRow | undefined>;
  private readonly recorder: Batcher<Recording, boolean>;
  private readonly deliveries;

  constructor(private readonly db: ServiceContext['db']) {
    const deliveries = raw(db.table('webhook_delivery'));
    const hooks = raw(db.table('webhook'));
    this.deliveries = deliveries;
    // two loads may overlap (reads): an attempt holds its sender's slot while it waits for its load
    this.loader = new Batcher(async (ids) => {
      const rows = await db.query(sql`
        SELECT d.id, d.status, d.attempt_count, d.context::text AS context, d.event_id, w.payload_url, w.http_method, w.http_content_type, w.additional_headers,
               w.body_template, w.secret, w.ssl_verification, w.ca_file_path
          FROM ${deliveries} d JOIN ${hooks} w ON w.id = d.webhook_id WHERE d.id = ANY(${ids}::bigint[])`);
      const byId = new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id), attempt_count: Number(r.attempt_count) } as unknown as DeliveryRow]));
      return ids.map((id) => byId.get(id));
    }, 500, 2);
    this.recorder = new Batcher(async (recs) => {
      const col = <T>(fn: (r: Recording) => T) => recs.map(fn);
      // only if it is still the next attempt: a repeated message never records twice
      const rows = await db.query(sql`
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
  }

  /** The delivery with its webhook; undefined when it is gone (deleted with its webhook). */
  load(id: number): Promise<DeliveryRow | undefined> {
    return this.loader.call(id);
  }

  /** Records an attempt; false when it is not the next one (recorded already). */
  record(rec: Recording): Promise<boolean> {
    return this.recorder.call(rec);
  }

  /** After the last attempt: `failed` (when that attempt is still the last recorded). */
  async markFailed(id: number, attempt: number): Promise<void> {
    await this.db.query(sql`
      UPDATE ${this.deliveries} SET status = 'failed', next_attempt_at = NULL, last_updated = now()
       WHERE id = ${id} AND status = 'retrying' AND attempt_count = ${attempt}`);
  }

  /** These deliveries, unless succeeded, are `retrying` again, due now: their next attempts. */
  async retry(ids: number[]): Promise<DueAttempt[]> {
    const rows = await this.db.query(sql`
      UPDATE ${this.deliveries} SET status = 'retrying', next_attempt_at = now(), last_updated = now()
       WHERE id = ANY(${ids}::bigint[]) AND status <> 'succeeded' RETURNING id, attempt_count, webhook_id`);
    return rows.map(due);
  }

  /**
   * Deliveries whose next message was lost: still to send and overdue by
   * `graceMs` (due again now, so the next sweep does not take them twice),
   * a batch at a time; and a last failed attempt whose dead letter never
   * came is `failed`.
   */
  async overdue(graceMs: number): Promise<DueAttempt[]> {
    const grace = `${Math.round(graceMs / 1000)} seconds`;
    const t = this.deliveries;
    await this.db.query(sql`
      UPDATE ${t} SET status = 'failed', last_updated = now()
       WHERE status = 'retrying' AND next_attempt_at IS NULL AND last_updated < now() - ${grace}::interval`);
    const rows = await this.db.query(sql`
      UPDATE ${t} d SET next_attempt_at = now() FROM (
        SELECT id FROM ${t} WHERE status IN ('queued', 'retrying') AND next_attempt_at < now() - ${grace}::interval
         ORDER BY next_attempt_at LIMIT 1000 FOR UPDATE SKIP LOCKED) late
       WHERE d.id = late.id RETURNING d.id, d.attempt_count, d.webhook_id`);
    return rows.map(due);
  }
}

const due = (r: Record<string, unknown>): DueAttempt => ({ delivery: Number(r.id), attempt: Number(r.attempt_count) + 1, webhook: Number(r.webhook_id) });
