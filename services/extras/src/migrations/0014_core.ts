import { runStatements, type Migration } from '@inventory/rest';

/** The columns of NetBox's SyncedDataMixin, added to a model that had read-only nulls in their place. */
function syncedColumns(s: string, table: string): string[] {
  return [
    `ALTER TABLE ${s}."${table}" ADD COLUMN "data_source_id" BIGINT REFERENCES ${s}."data_source" ("id") ON DELETE RESTRICT`,
    `ALTER TABLE ${s}."${table}" ADD COLUMN "data_path" VARCHAR(1000) NOT NULL DEFAULT ''`,
    `ALTER TABLE ${s}."${table}" ADD COLUMN "data_file_id" BIGINT REFERENCES ${s}."data_file" ("id") ON DELETE SET NULL`,
    `ALTER TABLE ${s}."${table}" ADD COLUMN "data_synced" TIMESTAMP WITH TIME ZONE`,
    `ALTER TABLE ${s}."${table}" ADD COLUMN "auto_sync_enabled" BOOLEAN`,
    `UPDATE ${s}."${table}" SET "auto_sync_enabled" = false`,
    `CREATE INDEX "${table}_data_source_id_idx" ON ${s}."${table}" ("data_source_id")`,
    `CREATE INDEX "${table}_data_file_id_idx" ON ${s}."${table}" ("data_file_id")`,
  ];
}

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): NetBox 3.7's
 * core app served by extras (decisions 028, 029): data sources, data files
 * (their content beside them), jobs; and the data-file columns of config
 * contexts, config templates and export templates. Never edit it; add a
 * migration.
 */
export function coreStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."data_source" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "type" VARCHAR(50) NOT NULL,
      "source_url" VARCHAR(200) NOT NULL DEFAULT '',
      "enabled" BOOLEAN,
      "status" VARCHAR(50),
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "parameters" JSONB,
      "ignore_rules" TEXT NOT NULL DEFAULT '',
      "last_synced" TIMESTAMP WITH TIME ZONE,
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."data_file" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "source_id" BIGINT NOT NULL REFERENCES ${s}."data_source" ("id") ON DELETE CASCADE,
      "path" VARCHAR(1000) NOT NULL DEFAULT '',
      "last_updated" TIMESTAMP WITH TIME ZONE,
      "size" INTEGER,
      "hash" VARCHAR(64) NOT NULL DEFAULT '',
      "created" TIMESTAMP WITH TIME ZONE,
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "data_file_source_id_idx" ON ${s}."data_file" ("source_id")`,
    `CREATE UNIQUE INDEX "data_file_source_id_path_uniq" ON ${s}."data_file" ("source_id", "path")`,
    `CREATE TABLE ${s}."data_file_data" ("file_id" BIGINT NOT NULL REFERENCES ${s}."data_file" ("id") ON DELETE CASCADE, "data" BYTEA NOT NULL, PRIMARY KEY ("file_id"))`,
    `CREATE TABLE ${s}."job" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "object_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT,
      "name" VARCHAR(200) NOT NULL DEFAULT '',
      "status" VARCHAR(50),
      "created" TIMESTAMP WITH TIME ZONE,
      "scheduled" TIMESTAMP WITH TIME ZONE,
      "interval" INTEGER,
      "started" TIMESTAMP WITH TIME ZONE,
      "completed" TIMESTAMP WITH TIME ZONE,
      "user_id" BIGINT,
      "data" JSONB,
      "error" TEXT NOT NULL DEFAULT '',
      "job_id" VARCHAR(36) NOT NULL DEFAULT '' UNIQUE,
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "job_user_id_idx" ON ${s}."job" ("user_id")`,
    `CREATE INDEX "job_object_type_object_id_idx" ON ${s}."job" ("object_type", "object_id")`,
    ...syncedColumns(s, 'config_context'),
    ...syncedColumns(s, 'config_template'),
    ...syncedColumns(s, 'export_template'),
  ];
}

export const core: Migration = {
  name: '0014_core',
  up: ({ qi, schema }) => runStatements(qi, coreStatements(schema)),
};
