import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: the record of events this service's consumers applied (its
 * projections of other services' objects), so a redelivered event is applied
 * once. Never edit it; add a migration.
 */
export const processedEvents: Migration = {
  name: '0008_processed_events',
  up: ({ qi, schema }) =>
    runStatements(qi, [
      `CREATE TABLE "${schema}"."_processed_event" (
        "queue" VARCHAR(100) NOT NULL,
        "event_id" UUID NOT NULL,
        "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "_processed_event_pkey" PRIMARY KEY ("queue", "event_id")
      )`,
      `CREATE INDEX "_processed_event_processed_at_idx" ON "${schema}"."_processed_event" ("processed_at")`,
    ]),
};
