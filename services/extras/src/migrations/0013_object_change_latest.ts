import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: an object's newest change found by one index scan. A
 * change's `changed_object` is the object as it is now, read from its newest
 * change (no earlier row is rewritten when it changes again); the index on
 * (type, id) alone is covered by this one. Never edit it; add a migration.
 */
export function objectChangeLatestStatements(schema: string): string[] {
  const t = `"${schema}"."object_change"`;
  return [
    `CREATE INDEX "object_change_object_time_idx" ON ${t} ("changed_object_type", "changed_object_id", "time" DESC, "id" DESC)`,
    `DROP INDEX "${schema}"."object_change_changed_object_type_changed_object_id_idx"`,
  ];
}

export const objectChangeLatest: Migration = {
  name: '0013_object_change_latest',
  up: ({ qi, schema }) => runStatements(qi, objectChangeLatestStatements(schema)),
};
