import { sql, raw } from '@inventory/filtering';
import type { ServiceContext } from '@inventory/rest';
import { DELIVERY_STATUS, webhookDelivery } from '../models/delivery';
import { webhook } from '../models/webhook';

/** Deliveries and attempts over one window, with their rates per minute. */
export interface DeliveryRate {
  minutes: number;
  /** Deliveries that ended succeeded, or failed (after their last attempt), within the window. */
  succeeded: number;
  failed: number;
  /** Attempts sent within the window, and those of them that got no 2XX (an error status or no answer). */
  attempts: number;
  attempt_errors: number;
  succeeded_per_minute: number;
  failed_per_minute: number;
  attempts_per_minute: number;
}

/** One attempt as the dispatcher records it (`attempts` of a delivery). */
export interface AttemptRecord {
  time: string | null;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  /** The start of the receiver's answer (the dispatcher keeps 500 characters). */
  response: string | null;
}

export interface FailedDelivery {
  id: number;
  webhook: { id: number; name: string };
  event: string;
  object_type: string;
  object_id: number;
  request_id: string;
  attempt_count: number;
  created: string;
  last_updated: string;
  /** The receiver's last answer. */
  last_attempt: AttemptRecord | null;
}

export interface DeliveryStats {
  /** Deliveries per status, every status present (0 when none). */
  statuses: Record<string, number>;
  rates: DeliveryRate[];
  failures: { count: number; results: FailedDelivery[] };
}

/** The windows the rates are given for (minutes). */
export const RATE_WINDOWS = [5, 60];
/** The newest failures the page lists (all of them are retried by "Retry all failed"). */
export const FAILURES_SHOWN = 50;

const utc = (column: string) => raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** What the log says: totals per status, rates over the windows, the newest failures with the receiver's last answer. */
export async function deliveryStats(ctx: ServiceContext): Promise<DeliveryStats> {
  const deliveries = raw(ctx.db.table(webhookDelivery.table));
  const hooks = raw(ctx.db.table(webhook.table));
  const longest = Math.max(...RATE_WINDOWS);
  const since = (minutes: number) => sql`now() - make_interval(mins => ${minutes})`;

  const [statusRows, outcomeRows, attemptRows, failureRows] = await Promise.all([
    ctx.db.query(sql`SELECT status, count(*) AS n FROM ${deliveries} GROUP BY status`),
    // a delivery's final state is written with its last_updated: the window's outcomes
    ctx.db.query(sql`
      SELECT ${raw(RATE_WINDOWS.map((m, i) => `count(*) FILTER (WHERE status = 'succeeded' AND last_updated >= now() - interval '${m} minutes') AS s${i},
             count(*) FILTER (WHERE status = 'failed' AND last_updated >= now() - interval '${m} minutes') AS f${i}`).join(',\n             '))}
        FROM ${deliveries} WHERE last_updated >= ${since(longest)}`),
    // every attempt is recorded with its time; a delivery with an attempt in the window was updated in it
    ctx.db.query(sql`
      SELECT ${raw(RATE_WINDOWS.map((m, i) => `count(*) FILTER (WHERE at >= now() - interval '${m} minutes') AS a${i},
             count(*) FILTER (WHERE at >= now() - interval '${m} minutes' AND NOT ok) AS e${i}`).join(',\n             '))}
        FROM (SELECT (a ->> 'time')::timestamptz AS at, coalesce((a ->> 'status_code')::int BETWEEN 200 AND 299, false) AS ok
                FROM ${deliveries} d CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(d.attempts) = 'array' THEN d.attempts ELSE '[]'::jsonb END) a
               WHERE d.last_updated >= ${since(longest)} AND jsonb_typeof(a -> 'time') = 'string') x`),
    ctx.db.query(sql`
      SELECT d.id, d.webhook_id, w.name AS webhook_name, d.event, d.object_type, d.object_id, d.request_id, d.attempt_count,
             ${utc('d.created')} AS created, ${utc('d.last_updated')} AS last_updated,
             CASE WHEN jsonb_typeof(d.attempts) = 'array' THEN d.attempts -> -1 END AS last_attempt
        FROM ${deliveries} d JOIN ${hooks} w ON w.id = d.webhook_id
       WHERE d.status = 'failed'
       ORDER BY d.last_updated DESC, d.id DESC
       LIMIT ${FAILURES_SHOWN}`),
  ]);

  const statuses = Object.fromEntries(DELIVERY_STATUS.map(([value]) => [value, 0]));
  for (const r of statusRows) statuses[String(r.status)] = Number(r.n);
  const outcome = outcomeRows[0] ?? {};
  const attempts = attemptRows[0] ?? {};
  const perMinute = (n: number, minutes: number) => Math.round((n / minutes) * 100) / 100;
  const rates = RATE_WINDOWS.map((minutes, i): DeliveryRate => {
    const succeeded = Number(outcome[`s${i}`] ?? 0);
    const failed = Number(outcome[`f${i}`] ?? 0);
    const sent = Number(attempts[`a${i}`] ?? 0);
    return {
      minutes,
      succeeded,
      failed,
      attempts: sent,
      attempt_errors: Number(attempts[`e${i}`] ?? 0),
      succeeded_per_minute: perMinute(succeeded, minutes),
      failed_per_minute: perMinute(failed, minutes),
      attempts_per_minute: perMinute(sent, minutes),
    };
  });
  const results = failureRows.map((r): FailedDelivery => ({
    id: Number(r.id),
    webhook: { id: Number(r.webhook_id), name: String(r.webhook_name) },
    event: String(r.event),
    object_type: String(r.object_type),
    object_id: Number(r.object_id),
    request_id: String(r.request_id ?? ''),
    attempt_count: Number(r.attempt_count),
    created: String(r.created),
    last_updated: String(r.last_updated),
    last_attempt: attemptRecord(r.last_attempt),
  }));
  return { statuses, rates, failures: { count: statuses.failed, results } };
}

/** An attempt as stored, its fields checked (the log is ours, but a page must not break on an odd row). */
function attemptRecord(value: unknown): AttemptRecord | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const a = value as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { time: text(a.time), status_code: num(a.status_code), duration_ms: num(a.duration_ms), error: text(a.error), response: text(a.response) };
}
