import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { BadRequest, UnprocessableEntity } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { sql, raw } from '@inventory/filtering';
import { type Tx, IDEMPOTENCY_TABLE, type ServiceContext } from '../model';

/**
 * Safe retries (beyond NetBox): a write sent with `Idempotency-Key` is
 * recorded in the same transaction as the write itself, and its answer right
 * after the commit. A
 * repeat by the same user within 24 hours gets that answer back and applies
 * nothing; a concurrent repeat waits on the first one's row lock and then
 * gets its answer; the same key with another request is a 422. A write that
 * failed left no row (its transaction rolled back), so its repeat runs again.
 */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A claimed key's record: written in the write's transaction (status and the
 * written objects' ids), then completed with the exact answer after the
 * commit. A repeat that arrives in between (or after a crash in between)
 * rebuilds the answer from the ids.
 */
export interface KeyRecord {
  status: number;
  ids: number[];
  bulk: boolean;
  answer: { headers: Record<string, string>; body: string } | null;
}

export function idempotencyKey(req: Request): string | null {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !KEY.test(value)) throw new BadRequest('Idempotency-Key must be 1 to 255 printable ASCII characters.');
  return value;
}

/** What makes two requests "the same": method, path with query, body. */
export function fingerprint(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n`)
    .update(JSON.stringify(req.body ?? null))
    .digest('hex');
}

/**
 * Claims the key inside the write's transaction. Returns the earlier record
 * to replay, or null when this request is the one that applies.
 */
export async function claimKey(ctx: ServiceContext, tx: Tx, identity: Identity, key: string, print: string): Promise<KeyRecord | null> {
  const table = raw(ctx.db.table(IDEMPOTENCY_TABLE));
  const userId = identity.user?.id ?? 0;
  // a key older than a day is free again
  const claimed = await tx.query(sql`
    INSERT INTO ${table} AS k (user_id, key, fingerprint) VALUES (${userId}, ${key}, ${print})
    ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL, object_ids = NULL, bulk = NULL, headers = NULL, body = NULL, created = now()
      WHERE k.created < now() - interval '24 hours'
    RETURNING 1`);
  if (claimed.length) {
    if (Math.random() < 0.01) await tx.query(sql`DELETE FROM ${table} WHERE created < now() - interval '24 hours'`);
    return null;
  }
  const [row] = await tx.query(sql`SELECT fingerprint, status, object_ids, bulk, headers, body FROM ${table} WHERE user_id = ${userId} AND key = ${key}`);
  if (row.fingerprint !== print) throw new UnprocessableEntity('This Idempotency-Key was already used for a different request.');
  return {
    status: Number(row.status),
    ids: ((row.object_ids as unknown[] | null) ?? []).map(Number),
    bulk: row.bulk === true,
    answer: row.body === null ? null : { headers: (row.headers as Record<string, string>) ?? {}, body: String(row.body) },
  };
}

/** In the write's transaction: what was applied. */
export async function recordApplied(ctx: ServiceContext, tx: Tx, identity: Identity, key: string, r: { status: number; ids: number[]; bulk: boolean }): Promise<void> {
  await tx.query(
    sql`UPDATE ${raw(ctx.db.table(IDEMPOTENCY_TABLE))} SET status = ${r.status}, object_ids = ${r.ids}::bigint[], bulk = ${r.bulk}
        WHERE user_id = ${identity.user?.id ?? 0} AND key = ${key}`,
  );
}

/** After the commit: the exact answer the client got, for later repeats. */
export async function recordAnswer(ctx: ServiceContext, identity: Identity, key: string, answer: { headers: Record<string, string>; body: string }): Promise<void> {
  await ctx.db.query(
    sql`UPDATE ${raw(ctx.db.table(IDEMPOTENCY_TABLE))} SET headers = ${JSON.stringify(answer.headers)}::jsonb, body = ${answer.body}
        WHERE user_id = ${identity.user?.id ?? 0} AND key = ${key}`,
  );
}
