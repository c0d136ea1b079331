import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: journal entries (`extras.journalentry`), attached to an
 * object of any service by content type and id, with the index of an
 * object's journal and of the newest-first list. Never edit it; add a migration.
 */
export function journalEntryStatements(schema: string): string[] {
  const t = `"${schema}"."journal_entry"`;
  return [
    `CREATE TABLE ${t} (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "assigned_object_type" VARCHAR(100) NOT NULL,
      "assigned_object_id" BIGINT NOT NULL,
      "created_by_id" BIGINT,
      "kind" VARCHAR(50),
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "journal_entry_assigned_object_type_assigned_object_id_idx" ON ${t} ("assigned_object_type", "assigned_object_id")`,
    `CREATE INDEX "journal_entry_created_by_id_idx" ON ${t} ("created_by_id")`,
    `CREATE INDEX "journal_entry_created_idx" ON ${t} ("created")`,
  ];
}

export const journalEntries: Migration = {
  name: '0010_journal_entries',
  up: ({ qi, schema }) => runStatements(qi, journalEntryStatements(schema)),
};
