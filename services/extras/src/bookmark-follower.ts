import type { Identity } from '@inventory/auth';
import { runWithContext } from '@inventory/core';
import type { ChangeEvent, ConsumerTx } from '@inventory/events';
import { sql, raw, type Sql } from '@inventory/filtering';
import { recordOf, removeGenericReferrers, runChange, type ServiceContext } from '@inventory/rest';
import { bookmark } from './models';

/**
 * Bookmarks follow their objects, from the change events extras consumes
 * anyway (the change log's queue): an update refreshes the `object` the
 * bookmarks show (the owner's nested form, as projections keep it), a
 * delete deletes the bookmarks, each in extras' own unit of work (their
 * own change records and events, by the user whose delete caused them), as
 * any service applies a CASCADE. Repeats change nothing.
 */
export function bookmarkFollower(ctx: ServiceContext): (events: ChangeEvent[], tx: ConsumerTx) => Promise<void> {
  const table = raw(ctx.db.table(bookmark.table));
  return async (events, tx) => {
    // the newest nested form of each object the batch changed: one UPDATE for a bulk write's thousand events
    const latest = new Map<string, { type: string; id: number; nested: unknown }>();
    for (const event of events) {
      const type = event.model.toLowerCase();
      const id = Number(event.object_id);
      if (!Number.isSafeInteger(id)) continue;
      if (event.event === 'deleted') {
        latest.delete(`${type}:${id}`);
        await followDelete(ctx, table, event, type, id, tx);
        continue;
      }
      const nested = recordOf(event).nested;
      if (nested) latest.set(`${type}:${id}`, { type, id, nested });
    }
    if (!latest.size) return;
    await tx.query(sql`
      UPDATE ${table} AS b SET object = r.nested
        FROM jsonb_to_recordset(${JSON.stringify([...latest.values()])}::jsonb) AS r(type text, id bigint, nested jsonb)
       WHERE b.object_type = r.type AND b.object_id = r.id AND b.object IS DISTINCT FROM r.nested`);
  };
}

/** A deleted object's bookmarks go, in extras' own unit of work, by the user whose delete caused it. */
async function followDelete(ctx: ServiceContext, table: Sql, event: ChangeEvent, type: string, id: number, tx: ConsumerTx): Promise<void> {
  const [any] = await tx.query(sql`SELECT 1 FROM ${table} WHERE object_type = ${type} AND object_id = ${id} LIMIT 1`);
  if (!any) return;
  const identity: Identity = { user: { id: 0, username: event.username ?? '', is_superuser: true, is_staff: true, is_active: true }, token: null, permissions: [], service: ctx.name };
  await runWithContext({ requestId: event.request_id ?? '', queries: 0 }, () =>
    runChange(ctx, bookmark, identity, async (wctx) => ({ touched: { deleted: await removeGenericReferrers(ctx, bookmark, 'object_type', 'object_id', type, [id], wctx) } })),
  );
}
