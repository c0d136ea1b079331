import type { Identity } from '@inventory/auth';
import { runWithContext } from '@inventory/core';
import type { ChangeEvent, ConsumerTx } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
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
export function bookmarkFollower(ctx: ServiceContext): (event: ChangeEvent, tx: ConsumerTx) => Promise<void> {
  const table = raw(ctx.db.table(bookmark.table));
  return async (event, tx) => {
    const type = event.model.toLowerCase();
    const id = Number(event.object_id);
    if (!Number.isSafeInteger(id)) return;
    if (event.event === 'deleted') {
      const [any] = await tx.query(sql`SELECT 1 FROM ${table} WHERE object_type = ${type} AND object_id = ${id} LIMIT 1`);
      if (!any) return;
      const identity: Identity = { user: { id: 0, username: event.username ?? '', is_superuser: true, is_staff: true, is_active: true }, token: null, permissions: [], service: ctx.name };
      await runWithContext({ requestId: event.request_id ?? '', queries: 0 }, () =>
        runChange(ctx, bookmark, identity, async (wctx) => ({ touched: { deleted: await removeGenericReferrers(ctx, bookmark, 'object_type', 'object_id', type, [id], wctx) } })),
      );
      return;
    }
    const nested = recordOf(event).nested;
    if (!nested) return;
    await tx.query(sql`UPDATE ${table} SET object = ${JSON.stringify(nested)}::jsonb WHERE object_type = ${type} AND object_id = ${id} AND object IS DISTINCT FROM ${JSON.stringify(nested)}::jsonb`);
  };
}
