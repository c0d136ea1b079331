import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: the transactional outbox (libs/events/src/outbox.ts), one
 * row per changed object, written in the write's own transaction and
 * relayed to RabbitMQ. Never edit it; add a migration.
 */
export function outboxStatements(schema: string): string[] {
  const t = `"${schema}"."_outbox"`;
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
      "data" JSONB,
      "snapshots" JSONB NOT NULL,
      "sent_at" TIMESTAMP WITH TIME ZONE
    )`,
    `CREATE UNIQUE INDEX "_outbox_id_uniq" ON ${t} ("id")`,
    `CREATE INDEX "_outbox_unsent_idx" ON ${t} ("seq") WHERE "sent_at" IS NULL`,
  ];
}

export const outbox: Migration = {
  name: '0005_outbox',
  up: ({ qi, schema }) => runStatements(qi, outboxStatements(schema)),
};
