
/**
 * What the declarations cannot say: the extras schema beyond the tables
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const t = `"${schema}"."object_change"`;
  return [
    // the change log's filters: newest first, one request's changes, one object's history (newest first: its current form)
    `CREATE INDEX "object_change_time_idx" ON ${t} ("time")`,
    `CREATE INDEX "object_change_request_id_idx" ON ${t} ("request_id")`,
    `CREATE INDEX "object_change_object_time_idx" ON ${t} ("changed_object_type", "changed_object_id", "time" DESC, "id" DESC)`,
    // journal entries newest first; an image attachment's file served by its name
    `CREATE INDEX "journal_entry_created_idx" ON "${schema}"."journal_entry" ("created")`,
    `CREATE INDEX "image_attachment_image_idx" ON "${schema}"."image_attachment" ("image")`,
    // a data file's content (NetBox's DataFile.data), beside its row so that lists never read it; jobs by their object
    `CREATE TABLE "${schema}"."data_file_data" ("file_id" BIGINT NOT NULL REFERENCES "${schema}"."data_file" ("id") ON DELETE CASCADE, "data" BYTEA NOT NULL, PRIMARY KEY ("file_id"))`,
    `CREATE INDEX "job_object_type_object_id_idx" ON "${schema}"."job" ("object_type", "object_id")`,
  ];
}
