import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: the change log (`extras.objectchange`, filled from the
 * change events of every service) with indexes for its filters, and the
 * processed-events record of the extras consumers (libs/events consumer.ts).
 * Never edit it; add a migration.
 */
export function objectChangeStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."object_change" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "time" TIMESTAMP WITH TIME ZONE NOT NULL,
      "user_id" BIGINT,
      "user_name" VARCHAR(150) NOT NULL DEFAULT '',
      "request_id" VARCHAR(64) NOT NULL DEFAULT '',
      "action" VARCHAR(50) NOT NULL,
      "changed_object_type" VARCHAR(100) NOT NULL,
      "changed_object_id" BIGINT NOT NULL,
      "changed_object" JSONB,
      "prechange_data" JSONB,
      "postchange_data" JSONB,
      "object_repr" VARCHAR(200) NOT NULL DEFAULT '',
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "object_change_user_id_idx" ON ${s}."object_change" ("user_id")`,
    `CREATE INDEX "object_change_time_idx" ON ${s}."object_change" ("time")`,
    `CREATE INDEX "object_change_request_id_idx" ON ${s}."object_change" ("request_id")`,
    `CREATE INDEX "object_change_changed_object_type_changed_object_id_idx" ON ${s}."object_change" ("changed_object_type", "changed_object_id")`,
    `CREATE TABLE ${s}."_processed_event" (
      "queue" VARCHAR(100) NOT NULL,
      "event_id" UUID NOT NULL,
      "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "_processed_event_pkey" PRIMARY KEY ("queue", "event_id")
    )`,
    `CREATE INDEX "_processed_event_processed_at_idx" ON ${s}."_processed_event" ("processed_at")`,
  ];
}

export const objectChanges: Migration = {
  name: '0004_object_changes',
  up: ({ qi, schema }) => runStatements(qi, objectChangeStatements(schema)),
};
