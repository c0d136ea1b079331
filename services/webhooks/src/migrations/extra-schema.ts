/**
 * What the declarations cannot say: the webhooks schema beyond the tables
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const t = `"${schema}"."webhook_delivery"`;
  return [
    // the status filter, recent failures and rates (admin page), retention
    `CREATE INDEX "webhook_delivery_status_last_updated_idx" ON ${t} ("status", "last_updated")`,
    // the sweep: deliveries still to send, by when they are due
    `CREATE INDEX "webhook_delivery_next_attempt_at_pending_idx" ON ${t} ("next_attempt_at") WHERE "status" IN ('queued', 'retrying')`,
    // one request's deliveries (?request_id=, retry by request)
    `CREATE INDEX "webhook_delivery_request_id_idx" ON ${t} ("request_id")`,
  ];
}
