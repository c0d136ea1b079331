import { outboxJsonStatements, runStatements, type Migration } from '@inventory/rest';

/** Frozen history (docs/decisions/005-frozen-migrations.md): the outbox's documents as json text (libs/events outbox.ts). */
export const outboxJson: Migration = {
  name: '0009_outbox_json',
  up: ({ qi, schema }) => runStatements(qi, outboxJsonStatements(schema)),
};
