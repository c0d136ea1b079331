import { sql, raw } from '@inventory/filtering';
import { periodic, type ServiceContext, type Worker } from '@inventory/rest';

const HOUR = 3_600_000;

/**
 * Keeps the delivery log to WEBHOOK_DELIVERY_RETENTION days (0 keeps it all):
 * finished deliveries (succeeded or failed) older than that are deleted at
 * start and hourly, a few thousand per statement so no long lock is held.
 * Deliveries still queued or retrying are kept whatever their age.
 */
export function deliveryRetention(ctx: ServiceContext, days: number): Worker & { prune(): Promise<number> } {
  const table = raw(ctx.db.table('webhook_delivery'));
  const prune = async (): Promise<number> => {
    if (days <= 0) return 0;
    let total = 0;
    for (;;) {
      const rows = await ctx.db.query(sql`
        DELETE FROM ${table} WHERE id IN (
          SELECT id FROM ${table} WHERE status IN ('succeeded', 'failed') AND last_updated < now() - make_interval(days => ${days}) LIMIT 5000)
        RETURNING id`);
      total += rows.length;
      if (rows.length < 5000) return total;
    }
  };
  const run = () => prune().then(
    () => undefined,
    (err: Error) => ctx.log.warn({ err: err.message }, 'webhook delivery retention: pruning failed'),
  );
  return { ...periodic(run, HOUR), prune };
}
