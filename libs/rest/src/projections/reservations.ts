import { ServiceUnavailable } from '@inventory/core';
import { sql, raw, type Sql } from '@inventory/filtering';
import { type Queryable, type ServiceContext, type WriteContext, hashKey, memo } from '../model';
import { RESERVATION_TABLE, applyRecords, projectedModels, projection, type ProjectionRecord } from './projections';

/**
 * A PROTECTed delete never races a new reference to its object
 * (docs/decisions/025-consistency.md). The owner reserves the objects it is
 * about to delete in every service that PROTECTs them, and that service
 * checks for dependents in the same step; a write there that names a
 * reserved object waits until the owner has decided (the object then gone,
 * or released). The two sides meet on an advisory lock per object in the
 * referrer's database: a write holds it shared from the moment it names the
 * object to its commit, the reservation takes it exclusively, so a
 * reservation sees every reference committed before it, and a write after
 * it sees the reservation.
 */

/** How long a reservation holds without word from its owner (an owner that died between reserving and deciding). */
export const RESERVATION_TTL_MS = 30_000;

/** The advisory lock of one object of another service's model (the two-int form: its keys never meet the one-bigint locks). */
function lockKeys(label: string, ids: number[]): Sql {
  return sql`SELECT ${hashKey(label)}::int AS k, (i % 2147483647)::int AS i FROM unnest(${ids}::bigint[]) AS i ORDER BY 2`;
}

/** A write that must run again (an object it names is reserved by a delete being decided): after `retryAt`. */
export class RetryWrite extends Error {
  constructor(readonly retryAt: number) {
    super('an object this write names is being deleted');
  }
}

/**
 * Inside a write's transaction, for a PROTECT reference to `id` of another
 * service's `label`: holds the object's lock shared until the commit, then
 * checks that no delete has reserved it. Reserved: the write runs again once
 * the owner has decided. Once per object per write.
 */
export function guardReference(ctx: ServiceContext, label: string, id: number, wctx: WriteContext): Promise<void> {
  if (!projectedModels(ctx).has(label)) return Promise.resolve();
  return memo(wctx, `guard:${label}:${id}`, async () => {
    await wctx.tx.query(sql`SELECT pg_advisory_xact_lock_shared(l.k, l.i) FROM (${lockKeys(label, [id])}) l`);
    // a statement of its own: its snapshot is taken after the lock, so a reservation committed meanwhile is seen
    const [held] = await wctx.tx.query(sql`
      SELECT extract(epoch FROM r.until) * 1000 AS until, p.deleted
        FROM (SELECT 1) one
        LEFT JOIN ${table(ctx)} r ON r.label = ${label} AND r.object_id = ${id} AND r.until > now()
        LEFT JOIN ${projection(ctx, label)} p ON p.id = ${id}`);
    // reserved: wait for the owner's word; deleted since it was resolved: run again, to be refused as any missing object is
    if (held?.until !== null && held?.until !== undefined) throw new RetryWrite(Math.min(Number(held.until), Date.now() + 50));
    if (held?.deleted === true) throw new RetryWrite(Date.now());
  });
}

const table = (ctx: ServiceContext) => raw(ctx.db.table(RESERVATION_TABLE));

/**
 * The referrer's side of a delete (`/internal/dependents` with a token):
 * takes the objects' locks (waiting for the writes that name them to
 * commit), reserves them, and names the objects here that PROTECT them; with
 * dependents, the reservation is dropped again at once.
 */
export async function reserveAndCheck(
  ctx: ServiceContext,
  label: string,
  ids: number[],
  token: string,
  dependents: (q: Queryable) => Promise<string[]>,
): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(l.k, l.i) FROM (${lockKeys(label, ids)}) l`);
    await tx.query(sql`
      INSERT INTO ${table(ctx)} (label, object_id, token, until)
      SELECT ${label}, i, ${token}::uuid, now() + make_interval(secs => ${RESERVATION_TTL_MS / 1000}) FROM unnest(${ids}::bigint[]) AS i
      ON CONFLICT (label, object_id) DO UPDATE SET token = EXCLUDED.token, until = EXCLUDED.until`);
    const found = await dependents(tx);
    if (found.length) await tx.query(sql`DELETE FROM ${table(ctx)} WHERE label = ${label} AND token = ${token}::uuid`);
    return found;
  });
}

/**
 * The owner's word (`/internal/release`): the delete was refused or failed
 * (the reservation goes), or it committed (the objects are tombstoned here
 * at once, before their events arrive, then the reservation goes).
 */
export async function release(ctx: ServiceContext, label: string, token: string, deleted: { id: number; version: number }[]): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (deleted.length && projectedModels(ctx).has(label)) {
      const tombstones: ProjectionRecord[] = deleted.map((d) => ({ id: d.id, version: d.version, deleted: true, nested: null, data: {}, sort: [], path: null }));
      await applyRecords(ctx, tx, label, tombstones);
    }
    await tx.query(sql`DELETE FROM ${table(ctx)} WHERE label = ${label} AND token = ${token}::uuid`);
  });
}

/** Reservations of objects whose delete has arrived as an event go with their tombstones. */
export async function dropReservations(q: Queryable, ctx: ServiceContext, label: string, ids: number[]): Promise<void> {
  if (ids.length) await q.query(sql`DELETE FROM ${table(ctx)} WHERE label = ${label} AND object_id = ANY(${ids}::bigint[])`);
}

/** The longest a write waits for reserved objects before it gives up (503): a reservation's lifetime. */
export const RETRY_LIMIT_MS = RESERVATION_TTL_MS + 1_000;

/** Runs `write` again while it meets reserved objects (RetryWrite), up to RETRY_LIMIT_MS. */
export async function retryingReserved<T>(write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RETRY_LIMIT_MS;
  for (;;) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof RetryWrite)) throw err;
      if (Date.now() > deadline) throw new ServiceUnavailable('An object this write names is being deleted; try again.');
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(err.retryAt - Date.now(), 50))));
    }
  }
}
