import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: each outbox row carries the object's reference (nested
 * representation, ordering keys, tree path), which referring services keep
 * in their projections. Never edit it; add a migration.
 */
export const outboxReference: Migration = {
  name: '0006_outbox_reference',
  up: ({ qi, schema }) => runStatements(qi, [`ALTER TABLE "${schema}"."_outbox" ADD COLUMN "reference" JSONB`]),
};
