import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: outbox indexes for the by-request filters (created_by_request
 * and the like read the outbox by request id) and for pruning sent rows after
 * CHANGELOG_RETENTION. Never edit it; add a migration.
 */
export function outboxIndexStatements(schema: string): string[] {
  const t = `"${schema}"."_outbox"`;
  return [
    `CREATE INDEX "_outbox_request_id_idx" ON ${t} ("request_id")`,
    `CREATE INDEX "_outbox_sent_at_idx" ON ${t} ("sent_at") WHERE "sent_at" IS NOT NULL`,
  ];
}

export const outboxIndexes: Migration = {
  name: '0006_outbox_indexes',
  up: ({ qi, schema }) => runStatements(qi, outboxIndexStatements(schema)),
};
