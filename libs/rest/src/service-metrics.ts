import { sql, raw, quoteIdent } from '@inventory/filtering';
import { OUTBOX_TABLE } from '@inventory/events';
import type { Metrics } from '@inventory/core';
import type { Db } from './model';

/** How long a scrape waits for the outbox figures (a busy pool must not hold /metrics). */
const SCRAPE_QUERY_MS = 2_000;

/**
 * The gauges of a REST service read when scraped (docs/decisions/024):
 * its connection pools, and its outbox: rows not yet published and the age
 * of the oldest (one statement per scrape on the unsent rows' partial index;
 * nothing is measured per request).
 */
export function registerServiceGauges(metrics: Metrics, db: Db): void {
  const pools = (pick: (s: ReturnType<Db['poolStats']>[number]) => number) => (g: { set(labels: { pool: string }, v: number): void }) => {
    for (const s of db.poolStats()) g.set({ pool: s.pool }, pick(s));
  };
  metrics.gauge('inventory_db_pool_connections', 'Open connections of a database pool (idle or in use).', ['pool'], pools((s) => s.total));
  metrics.gauge('inventory_db_pool_idle_connections', 'Idle connections of a database pool.', ['pool'], pools((s) => s.idle));
  metrics.gauge('inventory_db_pool_waiting_clients', 'Callers waiting for a connection of a database pool (the pool is exhausted).', ['pool'], pools((s) => s.waiting));

  const table = raw(`${quoteIdent(db.schema)}.${quoteIdent(OUTBOX_TABLE)}`);
  // the two gauges are collected together: one statement serves both
  let reading: Promise<{ backlog: number; age: number }> | null = null;
  const read = () =>
    (reading ??= Promise.race([
      db.query(sql`SELECT count(*)::int AS backlog,
                          coalesce(extract(epoch FROM now() - (SELECT timestamp FROM ${table} WHERE sent_at IS NULL ORDER BY seq LIMIT 1)), 0)::float8 AS age
                     FROM ${table} WHERE sent_at IS NULL`),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('outbox figures timed out')), SCRAPE_QUERY_MS).unref()),
    ])
      .then(([row]) => ({ backlog: Number(row.backlog), age: Math.max(0, Number(row.age)) }))
      .finally(() => (reading = null)));
  metrics.gauge('inventory_outbox_backlog', 'Change events written to the outbox and not yet published.', [], async (g) => g.set((await read()).backlog));
  metrics.gauge('inventory_outbox_oldest_unsent_age_seconds', 'Age of the oldest change event not yet published (0 when none waits): the relay lag.', [], async (g) => g.set((await read()).age));
}
