import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: indexes of the delivery log for the status filter, the
 * admin page's failures and rates, retention, the dispatcher's sweep of
 * overdue deliveries, and one request's deliveries. Never edit it; add a
 * migration.
 */
export function deliveryIndexStatements(schema: string): string[] {
  const t = `"${schema}"."webhook_delivery"`;
  return [
    `CREATE INDEX "webhook_delivery_status_last_updated_idx" ON ${t} ("status", "last_updated")`,
    `CREATE INDEX "webhook_delivery_next_attempt_at_pending_idx" ON ${t} ("next_attempt_at") WHERE "status" IN ('queued', 'retrying')`,
    `CREATE INDEX "webhook_delivery_request_id_idx" ON ${t} ("request_id")`,
  ];
}

export const deliveryIndexes: Migration = {
  name: '0002_delivery_indexes',
  up: ({ qi, schema }) => runStatements(qi, deliveryIndexStatements(schema)),
};
