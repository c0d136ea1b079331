import { type Sql, sql, raw, quoteIdent } from '@inventory/filtering';
import type { ChangeEvent } from './envelope';

/**
 * The transactional outbox: one row per changed object, written in the same
 * transaction as the change (a rolled-back write leaves none), published by
 * the relay afterwards. `seq` orders rows as they were written, so one
 * object's events go out in order.
 */
export const OUTBOX_TABLE = '_outbox';

/**
 * The DDL of the outbox as it is now (the live schema derives from this; each
 * migration froze its own copy): the table (`reference` added later: what
 * referring services project), then the indexes of the by-request filters
 * (libs/rest read/filters.ts) and of pruning sent rows.
 */
/**
 * The outbox's documents are `json`, the text as written: a bulk write's
 * thousands of events are stored without converting each to `jsonb`, and
 * published with their keys in the order the representation has them
 * (NetBox's field order). This turns an outbox of `jsonb` columns into that.
 */
export function outboxJsonStatements(schema: string): string[] {
  const t = `${quoteIdent(schema)}.${quoteIdent(OUTBOX_TABLE)}`;
  return [`ALTER TABLE ${t} ALTER COLUMN "data" TYPE JSON USING "data"::json, ALTER COLUMN "snapshots" TYPE JSON USING "snapshots"::json, ALTER COLUMN "reference" TYPE JSON USING "reference"::json`];
}

export function outboxStatements(schema: string): string[] {
  const t = `${quoteIdent(schema)}.${quoteIdent(OUTBOX_TABLE)}`;
  return [
    `CREATE TABLE ${t} (
      "seq" BIGSERIAL PRIMARY KEY,
      "id" UUID NOT NULL,
      "event" VARCHAR(10) NOT NULL,
      "model" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "version" BIGINT NOT NULL,
      "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL,
      "username" VARCHAR(150) NOT NULL,
      "request_id" VARCHAR(64) NOT NULL,
      "data" JSON,
      "snapshots" JSON NOT NULL,
      "sent_at" TIMESTAMP WITH TIME ZONE,
      "reference" JSON
    )`,
    `CREATE UNIQUE INDEX "_outbox_id_uniq" ON ${t} ("id")`,
    `CREATE INDEX "_outbox_unsent_idx" ON ${t} ("seq") WHERE "sent_at" IS NULL`,
    `CREATE INDEX "_outbox_request_id_idx" ON ${t} ("request_id")`,
    `CREATE INDEX "_outbox_sent_at_idx" ON ${t} ("sent_at") WHERE "sent_at" IS NOT NULL`,
  ];
}

/** The channel a service's relay listens on; a commit that wrote outbox rows notifies it. */
export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}

interface Queryable {
  query(statement: Sql): Promise<Record<string, unknown>[]>;
}

/** Appends events to the outbox inside the caller's transaction (one statement), and wakes the relay at commit. */
export async function writeOutbox(tx: Queryable, schema: string, events: ChangeEvent[]): Promise<void> {
  if (!events.length) return;
  await appendOutbox(tx, schema, events);
  await notifyOutbox(tx, schema);
}

/** One INSERT of events into the outbox, in the caller's transaction. */
export async function appendOutbox(tx: Queryable, schema: string, events: ChangeEvent[]): Promise<void> {
  await appendOutboxJson(tx, schema, JSON.stringify(events.map(storedEvent)));
}

/**
 * The event as the outbox stores it: an import's mark rides in the
 * `snapshots` document (no outbox column of its own: decision 031), and the
 * relay lifts it back out (`publishedEvent`).
 */
export function storedEvent(event: ChangeEvent): ChangeEvent {
  if (!event.import) return event;
  const { import: mark, ...rest } = event;
  return { ...rest, snapshots: { ...event.snapshots, import: mark } as ChangeEvent['snapshots'] };
}

/** The event the relay publishes from a stored one: the import's mark back at the top. */
export function publishedEvent(event: ChangeEvent): ChangeEvent {
  const mark = (event.snapshots as { import?: ChangeEvent['import'] } | null)?.import;
  if (!mark) return event;
  const { import: _stored, ...snapshots } = event.snapshots as ChangeEvent['snapshots'] & { import?: unknown };
  return { ...event, snapshots, import: mark };
}

/**
 * One INSERT of events given as their JSON array text (serialized by the
 * caller, when it suits it); with `notify`, the same statement wakes the
 * relay at commit (a data-modifying WITH runs to its end whatever reads it).
 */
export async function appendOutboxJson(tx: Queryable, schema: string, events: string, notify = false): Promise<void> {
  const table = raw(`${quoteIdent(schema)}.${quoteIdent(OUTBOX_TABLE)}`);
  const insert = sql`
    INSERT INTO ${table} (id, event, model, object_id, version, timestamp, username, request_id, data, snapshots, reference)
    SELECT * FROM json_to_recordset(${events}::json)
      AS e(id uuid, event varchar, model varchar, object_id bigint, version bigint, timestamp timestamptz, username varchar, request_id varchar,
           data json, snapshots json, reference json)`;
  await tx.query(notify ? sql`WITH appended AS (${insert} RETURNING 1) SELECT pg_notify(${outboxChannel(schema)}, '')` : insert);
}

/** Wakes the relay when the caller's transaction commits (a NOTIFY is delivered only then). */
export async function notifyOutbox(tx: Queryable, schema: string): Promise<void> {
  await tx.query(sql`SELECT pg_notify(${outboxChannel(schema)}, '')`);
}
